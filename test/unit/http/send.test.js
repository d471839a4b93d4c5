'use strict';
/**
 * lib/http/send.ts: one outgoing call as every client in lib makes it, against a real server on 127.0.0.1:
 * the answer read whole, capped, a deadline and a cancel signal, each failure a TransportError naming the
 * URL without its credentials.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const { Agent } = require('undici');
const { send, firstHeader } = require('../../../dist/lib/http/send');

describe('lib/http/send', () => {
  let server;
  let base;
  const agent = new Agent();
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/hang') return; // never answers
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.setHeader('Set-Cookie', ['a=1', 'b=2']);
        res.end(req.url === '/big' ? 'x'.repeat(1000) : `${req.method} ${body}`);
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await agent.close();
  });

  const call = (path, extra = {}) => ({
    service: 'platform',
    method: 'POST',
    url: new URL(`${base}${path}`),
    headers: { 'content-type': 'text/plain' },
    body: 'hello',
    dispatcher: agent,
    timeoutMs: 5000,
    maxBytes: 100,
    ...extra,
  });

  it('sends the request and reads the answer whole', async () => {
    const answer = await send(call('/echo'));
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.body.toString(), 'POST hello');
    assert.equal(firstHeader(answer.headers, 'set-cookie'), 'a=1');
    assert.equal(firstHeader({ 'x-one': 'v' }, 'x-one'), 'v');
    assert.equal(firstHeader({}, 'x-none'), undefined);
  });

  it('an answer past maxBytes fails too-large, naming the limit', async () => {
    await assert.rejects(send(call('/big')), (err) => {
      assert.equal(err.name, 'TransportError');
      assert.equal(err.reason, 'too-large');
      assert.equal(err.params.limit, 100);
      return true;
    });
  });

  it('past the deadline: timeout; cancelled by the caller: aborted; both name the display URL', async () => {
    const display = `${base}/hang`;
    await assert.rejects(
      send(call('/hang', { url: new URL(`http://user:secret@127.0.0.1:${server.address().port}/hang`), display, timeoutMs: 200 })),
      (err) => {
        assert.equal(err.reason, 'timeout');
        assert.ok(err.message.includes(display), err.message);
        assert.ok(!err.message.includes('secret'), err.message);
        return true;
      },
    );
    const controller = new AbortController();
    const pending = send(call('/hang', { signal: controller.signal }));
    controller.abort();
    await assert.rejects(pending, (err) => err.reason === 'aborted');
  });

  it('nobody listening: a network failure', async () => {
    const closed = http.createServer();
    await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = closed.address().port;
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(send(call('/', { url: new URL(`http://127.0.0.1:${port}/`) })), (err) => {
      assert.equal(err.reason, 'network');
      assert.equal(err.retryable, true);
      return true;
    });
  });
});
