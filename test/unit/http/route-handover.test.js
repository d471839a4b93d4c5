'use strict';
/**
 * lib/http/route-handover: one receiver per path, and the hand-over of a path
 * from a receiver stopped by a deploy to its successor (requests held on the
 * stopped one's route, then answered by the successor), over real sockets on
 * 127.0.0.1. "The flows have started" is a function the test calls.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { ROOT, request, until } = require('../../support');
const { FakeClock } = require('../../support/fake-clock');
const { RouteHandover } = require(path.join(ROOT, 'dist', 'lib', 'http', 'route-handover'));

describe('lib/http/route-handover', () => {
  let server;
  let url;
  let routes;
  /** Path → the handler mounted there (one route per path, as on an Express app or a listener). */
  let mounted;
  /** The sweeps waiting for "the flows have started". */
  let sweeps;

  beforeEach(async () => {
    mounted = new Map();
    sweeps = [];
    routes = new RouteHandover({
      maxPerKey: 4,
      maxWaitMs: 10000,
      clock: new FakeClock(0),
      refuse(_req, res) {
        res.writeHead(503, { 'retry-after': '1' });
        res.end('refused');
      },
      afterStart: (sweep) => sweeps.push(sweep),
    });
    server = http.createServer((req, res) => {
      const handler = mounted.get(req.url);
      if (handler) return handler(req, res);
      res.writeHead(404);
      return res.end('no route');
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${server.address().port}`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Mounts on `key`'s path, as mountReceiverRoute does. */
  const mountOn = (key) => (handler) => {
    assert.equal(mounted.has(key), false, `${key} is mounted once at a time`);
    mounted.set(key, handler);
    return { remove: () => mounted.delete(key) };
  };
  /** A receiver answering with its name and the body's length. */
  const receiver = (name) => (req, res) => {
    let bytes = 0;
    req.on('data', (c) => (bytes += c.length));
    req.on('end', () => res.end(`${name} got ${bytes}`));
  };
  const flowsStarted = () => sweeps.splice(0).forEach((sweep) => sweep());

  it('one receiver per path: a second is told who has it, and gets it once the first gives it up', () => {
    assert.equal(routes.claim('/a', 'n1'), undefined);
    assert.equal(routes.claim('/a', 'n1'), undefined, 'the same receiver again (a redeploy of it)');
    assert.equal(routes.claim('/a', 'n2'), 'n1');
    assert.equal(routes.claim('/b', 'n2'), undefined, 'another path is free');
    routes.unclaim('/a', 'n2');
    assert.equal(routes.claim('/a', 'n3'), 'n1', 'only its receiver gives a path up');
    routes.unclaim('/a', 'n1');
    assert.equal(routes.claim('/a', 'n3'), undefined);
  });

  it('a deploy: what reaches the stopped receiver is held, unread, and answered by its successor', async () => {
    routes.claim('/a', 'n1');
    const first = routes.serve('/a', 'n1', receiver('first'), mountOn('/a'));
    assert.equal((await request(`${url}/a`, { body: 'xyz' })).text, 'first got 3');

    first.stop(false);
    assert.equal(routes.claim('/a', 'n2'), undefined, 'the path is free for the successor');
    const during = request(`${url}/a`, { body: Buffer.alloc(200000, 1) });
    await until(() => routes.heldCount('/a') === 1, 5000, 'the request held');

    routes.serve('/a', 'n2', receiver('second'), mountOn('/a'));
    const answer = await during;
    assert.equal(answer.status, 200);
    assert.equal(answer.text, 'second got 200000', 'one answer, from the successor');
    assert.equal((await request(`${url}/a`, { body: 'x' })).text, 'second got 1');
    flowsStarted();
    assert.equal((await request(`${url}/a`, { body: 'x' })).text, 'second got 1', 'the successor keeps the path');
  });

  it('a path no receiver came back to is let go once the flows have started: held requests refused, route removed', async () => {
    routes.claim('/gone', 'n1');
    routes.serve('/gone', 'n1', receiver('first'), mountOn('/gone')).stop(false);
    const held = request(`${url}/gone`, { body: 'x' });
    await until(() => routes.heldCount('/gone') === 1, 5000, 'the request held');
    assert.equal(sweeps.length, 1, 'a sweep waits for the flows to start');
    flowsStarted();
    const refused = await held;
    assert.equal(refused.status, 503);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal((await request(`${url}/gone`, { body: 'x' })).status, 404, 'the route is gone');
  });

  it('a successor not ready yet (its Redis connecting): requests stay held until it is, then it answers them', async () => {
    routes.claim('/a', 'n1');
    routes.serve('/a', 'n1', receiver('first'), mountOn('/a')).stop(false);
    routes.claim('/a', 'n2');
    let ready;
    routes.serve('/a', 'n2', receiver('second'), mountOn('/a'), new Promise((resolve) => (ready = resolve)));
    const during = request(`${url}/a`, { body: 'xy' });
    await until(() => routes.heldCount('/a') === 1, 5000, 'the request held');
    // the flows start meanwhile: the path has its receiver, the standby route is kept
    flowsStarted();
    const later = request(`${url}/a`, { body: 'xyz' });
    await until(() => routes.heldCount('/a') === 2, 5000, 'the second request held too');
    ready();
    assert.deepEqual(
      (await Promise.all([during, later])).map((a) => a.text),
      ['second got 2', 'second got 3'],
    );
    assert.equal((await request(`${url}/a`, { body: 'x' })).text, 'second got 1');
  });

  it('a first receiver not ready yet holds on its own route; stopped before it is ready, it never serves', async () => {
    routes.claim('/new', 'n1');
    let ready;
    const served = routes.serve('/new', 'n1', receiver('first'), mountOn('/new'), new Promise((resolve) => (ready = resolve)));
    const during = request(`${url}/new`, { body: 'x' });
    await until(() => routes.heldCount('/new') === 1, 5000, 'the request held');
    served.stop(false);
    ready();
    routes.claim('/new', 'n2');
    routes.serve('/new', 'n2', receiver('second'), mountOn('/new'));
    assert.equal((await during).text, 'second got 1', 'handed to the receiver that came next');
  });

  it('a receiver removed by the deploy takes its route away at once', async () => {
    routes.claim('/a', 'n1');
    routes.serve('/a', 'n1', receiver('first'), mountOn('/a')).stop(true);
    assert.equal((await request(`${url}/a`, { body: 'x' })).status, 404);
    assert.equal(sweeps.length, 0, 'nothing on standby');
    assert.equal(routes.claim('/a', 'n2'), undefined);
  });
});
