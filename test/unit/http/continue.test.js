'use strict';
/**
 * lib/http/continue.ts: `Expect: 100-continue` held back until the receiver accepts the headers, over
 * real HTTP on 127.0.0.1: the client's body is invited once, and not at all for a request refused first.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const { deferContinue, inviteBody, bodyNotInvited } = require('../../../dist/lib/http/continue');

describe('lib/http/continue', () => {
  let server;
  let port;
  let accept;
  const seen = [];
  before(async () => {
    server = http.createServer();
    // Node answers 100 Continue itself unless someone listens for checkContinue.
    server.on('checkContinue', (req, res) => {
      deferContinue(req);
      seen.push(bodyNotInvited(req));
      if (!accept) {
        res.writeHead(401, { Connection: 'close' });
        res.end();
        inviteBody(req, res);
        return;
      }
      inviteBody(req, res);
      seen.push(bodyNotInvited(req));
      inviteBody(req, res);
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => res.end(`got ${body}`));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = server.address().port;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  /** POSTs with Expect: 100-continue, writing the body only when invited; resolves with the continues, status and body. */
  function post() {
    return new Promise((resolve, reject) => {
      let continues = 0;
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', agent: false, headers: { Expect: '100-continue', 'Content-Length': '5' } });
      req.on('continue', () => {
        continues++;
        req.end('hello');
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ continues, status: res.statusCode, text }));
      });
      req.on('error', reject);
      req.flushHeaders();
    });
  }

  it('invites the body once the headers are accepted, once', async () => {
    accept = true;
    seen.length = 0;
    assert.deepEqual(await post(), { continues: 1, status: 200, text: 'got hello' });
    assert.deepEqual(seen, [true, false], 'held back, then invited');
  });

  it('a request refused on its headers is answered without inviting its body', async () => {
    accept = false;
    const answer = await post();
    assert.equal(answer.status, 401);
    assert.equal(answer.continues, 0);
  });

  it('does nothing for a request that was not held back', () => {
    const req = {};
    let wrote = false;
    inviteBody(req, { headersSent: false, writableEnded: false, writeContinue: () => (wrote = true) });
    assert.equal(wrote, false);
    assert.equal(bodyNotInvited(req), false);
  });
});
