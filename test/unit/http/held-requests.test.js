'use strict';
/**
 * lib/http/held-requests: requests that arrive while a receiver is replaced
 * by a deploy wait, unread, for its successor; bounded in number and time
 * (then 503), over real sockets on 127.0.0.1, on a fake clock.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { ROOT, request, until } = require('../../support');
const { FakeClock } = require('../../support/fake-clock');
const { HeldRequests } = require(path.join(ROOT, 'dist', 'lib', 'http', 'held-requests'));

describe('lib/http/held-requests', () => {
  let server;
  let url;
  let clock;
  let held;
  const refused = [];

  beforeEach(async () => {
    clock = new FakeClock(0);
    refused.length = 0;
    held = new HeldRequests({
      maxPerKey: 2,
      maxWaitMs: 10000,
      clock,
      refuse(req, res) {
        refused.push(req.url);
        res.writeHead(503, { 'retry-after': '1' });
        res.end();
      },
    });
    server = http.createServer((req, res) => held.hold(req.url, req, res));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${server.address().port}`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** The body a handler reads from a held request: held requests are not read. */
  const echo = (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => res.end(`got ${Buffer.concat(chunks).length} bytes`));
  };

  it('hands held requests to the successor in arrival order, bodies unread until then', async () => {
    const first = request(`${url}/a`, { body: Buffer.alloc(300000, 1) });
    await until(() => held.count('/a') === 1, 5000, 'the first request held');
    const second = request(`${url}/a`, { body: Buffer.alloc(5, 1) });
    await until(() => held.count('/a') === 2, 5000, 'the second request held');
    const order = [];
    held.release('/a', (req, res) => {
      order.push(req.headers['content-length']);
      echo(req, res);
    });
    assert.deepEqual(order, ['300000', '5']);
    assert.equal((await first).text, 'got 300000 bytes');
    assert.equal((await second).text, 'got 5 bytes');
    assert.equal(held.count('/a'), 0);
  });

  it('refuses at once past the bound, and after the longest wait', async () => {
    const a1 = request(`${url}/a`, { body: 'x' });
    const a2 = request(`${url}/a`, { body: 'x' });
    await until(() => held.count('/a') === 2, 5000, 'two held');
    const a3 = await request(`${url}/a`, { body: 'x' });
    assert.equal(a3.status, 503, 'the third is refused at once');
    await clock.advance(9999);
    assert.equal(held.count('/a'), 2, 'still waiting before the limit');
    await clock.advance(1);
    assert.equal((await a1).status, 503);
    assert.equal((await a2).status, 503);
    assert.equal((await a1).headers['retry-after'], '1');
    assert.equal(held.count('/a'), 0);
  });

  it('refuses what no successor came for, and forgets a sender that gave up', async () => {
    const b = request(`${url}/b`, { body: 'x' });
    const gone = http.request(`${url}/c`, { method: 'POST', agent: false });
    gone.on('error', () => undefined);
    gone.write('x');
    await until(() => held.count('/b') === 1 && held.count('/c') === 1, 5000, 'both held');
    gone.destroy();
    await until(() => held.count('/c') === 0, 5000, 'the closed one forgotten');
    assert.deepEqual(held.keys(), ['/b']);
    held.refuseAll('/b');
    assert.equal((await b).status, 503);
    assert.deepEqual(refused, ['/b']);
    assert.equal(clock.pending, 0, 'no timer left');
  });
});
