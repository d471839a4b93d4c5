'use strict';
/**
 * lib/http/listener (a receiver's own door: routing, 403, 404, HTTPS, client
 * certificates) over real sockets on 127.0.0.1.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const https = require('node:https');
const net = require('node:net');
const { parseAllowList } = require('../../../dist/lib/http/listener-allow');
const { Listener } = require('../../../dist/lib/http/listener');
const { createSelfSignedCertificate } = require('../../../dist/lib/http/self-signed');

/** One request; resolves with status, headers and body text. */
function request(url, options = {}, body) {
  const lib = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, { method: 'POST', ...options }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('lib/http/listener', function () {
  const open = [];
  afterEach(async () => {
    while (open.length) await open.pop().close(100);
  });
  async function started(options) {
    const listener = new Listener({ host: '127.0.0.1', port: 0, ...options });
    open.push(listener);
    await listener.start();
    return listener;
  }
  const echo = (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`got ${Buffer.concat(chunks).length} at ${req.url}`);
    });
  };

  it('serves the mounted paths only (case and trailing slash as Express), 404 problem for any other', async () => {
    const listener = await started();
    listener.mount('/detections', echo);
    const base = `http://127.0.0.1:${listener.port}`;
    assert.deepEqual(await request(`${base}/detections`, {}, 'abc').then((r) => [r.status, r.body]), [200, 'got 3 at /detections']);
    assert.equal((await request(`${base}/Detections/?x=1`, {}, 'abc')).status, 200);
    for (const other of ['/', '/flows', '/settings', '/red/about', '/auth/login', '/detections/x']) {
      const answer = await request(`${base}${other}`, { method: 'GET' });
      assert.equal(answer.status, 404, other);
      assert.equal(answer.headers['content-type'], 'application/problem+json');
      assert.equal(JSON.parse(answer.body).status, 404);
    }
  });

  it('refuses a second receiver on a path, and frees it on remove', async () => {
    const listener = await started();
    const route = listener.mount('/a', echo);
    assert.throws(
      () => listener.mount('/A/', echo),
      (err) => err.code === 'ERR_PATH_IN_USE',
    );
    assert.equal(listener.has('/a'), true);
    route.remove();
    assert.equal(listener.has('/a'), false);
    const base = `http://127.0.0.1:${listener.port}`;
    assert.equal((await request(`${base}/a`, {}, 'x')).status, 404);
    listener.mount('/a', echo);
    assert.equal((await request(`${base}/a`, {}, 'x')).status, 200);
  });

  it('a route below a path serves one segment deeper (a page and its token), apart from the path’s own route', async () => {
    const listener = await started();
    const page = listener.mount('/alarm/page', echo, { below: true });
    const base = `http://127.0.0.1:${listener.port}`;
    const get = (p) => request(`${base}${p}`, { method: 'GET' });
    assert.deepEqual(await get('/alarm/page/Ab.c-D_e').then((r) => [r.status, r.body]), [200, 'got 0 at /alarm/page/Ab.c-D_e'], 'the URL as sent');
    assert.equal((await get('/Alarm/Page/tok/')).status, 200);
    for (const other of ['/alarm/page', '/alarm/page/a/b', '/alarm/pagex/tok', '/alarm/tok']) assert.equal((await get(other)).status, 404, other);
    assert.throws(
      () => listener.mount('/alarm/page/', echo, { below: true }),
      (err) => err.code === 'ERR_PATH_IN_USE',
    );
    listener.mount('/alarm/page', echo);
    assert.equal((await get('/alarm/page')).status, 200, 'the path itself is another route');
    page.remove();
    assert.equal((await get('/alarm/page/tok')).status, 404);
    assert.equal((await get('/alarm/page')).status, 200);
  });

  it('answers 403 with a problem body to an address outside the allow-list, before the handler', async () => {
    let called = 0;
    const listener = await started({ allow: parseAllowList('10.0.0.0/8') });
    listener.mount('/detections', (req, res) => {
      called++;
      echo(req, res);
    });
    const answer = await request(`http://127.0.0.1:${listener.port}/detections`, {}, Buffer.alloc(64 * 1024));
    assert.equal(answer.status, 403);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    const body = JSON.parse(answer.body);
    assert.equal(body.status, 403);
    assert.equal(body.title, 'Forbidden');
    assert.match(body.detail, /127\.0\.0\.1/);
    assert.equal(called, 0);
    // the same request from an allowed address passes
    const allowed = await started({ allow: parseAllowList('127.0.0.0/8') });
    allowed.mount('/detections', echo);
    assert.equal((await request(`http://127.0.0.1:${allowed.port}/detections`, {}, 'x')).status, 200);
  });

  it('holds 100 Continue back for the receiver, and never invites a refused body', async () => {
    const { inviteBody } = require('../../../dist/lib/http/continue');
    const listener = await started({ allow: parseAllowList('127.0.0.1') });
    listener.mount('/detections', (req, res) => {
      inviteBody(req, res);
      echo(req, res);
    });
    const send = (p) =>
      new Promise((resolve, reject) => {
        const req = http.request(`http://127.0.0.1:${listener.port}${p}`, {
          method: 'POST',
          headers: { expect: '100-continue', 'content-length': 3 },
        });
        let continued = false;
        req.on('continue', () => {
          continued = true;
          req.end('abc');
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode, continued }));
        });
        req.on('error', reject);
        req.flushHeaders();
      });
    assert.deepEqual(await send('/detections'), { status: 200, continued: true });
    assert.deepEqual(await send('/elsewhere'), { status: 404, continued: false });
  });

  it('serves HTTPS with the given certificate', async () => {
    const made = createSelfSignedCertificate({ names: ['127.0.0.1'] });
    const listener = await started({ tls: { cert: made.cert, key: made.key } });
    listener.mount('/detections', echo);
    const answer = await request(`https://127.0.0.1:${listener.port}/detections`, { ca: made.cert }, 'abcd');
    assert.equal(answer.status, 200);
    await assert.rejects(request(`https://127.0.0.1:${listener.port}/detections`, {}, 'x'), /self.signed|unable to verify/i);
  });

  it('with a client CA, admits only clients presenting a certificate it signed', async () => {
    const server = createSelfSignedCertificate({ names: ['127.0.0.1'] });
    const client = createSelfSignedCertificate({ names: ['camera-bridge'] });
    const stranger = createSelfSignedCertificate({ names: ['stranger'] });
    const listener = await started({ tls: { cert: server.cert, key: server.key, clientCa: client.cert } });
    listener.mount('/detections', echo);
    const url = `https://127.0.0.1:${listener.port}/detections`;
    assert.equal((await request(url, { ca: server.cert, cert: client.cert, key: client.key }, 'x')).status, 200);
    await assert.rejects(request(url, { ca: server.cert }, 'x'));
    await assert.rejects(request(url, { ca: server.cert, cert: stranger.cert, key: stranger.key }, 'x'));
  });

  it('reports a port in use as failed with EADDRINUSE', async () => {
    const first = await started();
    const second = new Listener({ host: '127.0.0.1', port: first.port });
    const states = [];
    second.on('state', (s) => states.push(s));
    await assert.rejects(second.start(), (err) => err.code === 'EADDRINUSE');
    assert.equal(second.state, 'failed');
    assert.equal(second.error.code, 'EADDRINUSE');
    assert.deepEqual(states, ['starting', 'failed']);
    await second.close(10);
  });

  it('closes: the port is free again', async () => {
    const listener = await started();
    const port = listener.port;
    await listener.close(100);
    open.pop();
    await new Promise((resolve, reject) => {
      const probe = net.createServer().once('error', reject);
      probe.listen(port, '127.0.0.1', () => probe.close(resolve));
    });
  });
});
