'use strict';
/**
 * lib/bridge/client.ts, the sample endpoints (fetchSample and
 * EventsBridgeClient.sample), against a local HTTPS server on 127.0.0.1 with
 * a self-signed certificate made for this run. The enrollment endpoints are
 * in client.test.js.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const https = require('node:https');
const path = require('node:path');
const { Agent } = require('undici');
const { ROOT, selfSigned, until } = require('../../support');

const client = require(path.join(ROOT, 'dist', 'lib', 'bridge', 'client'));
const { TransportError } = require(path.join(ROOT, 'dist', 'lib', 'http', 'transport-error'));
const { buildSampleEvent } = require(path.join(ROOT, 'dist', 'lib', 'bridge', 'sample'));
const { checkEvent } = require(path.join(ROOT, 'dist', 'lib', 'events', 'schemas'));

/**
 * A fake bridge. The first path segment picks the behaviour (after an
 * optional /eventsbridge prefix): samples at /api/v1/webhook-models/{kind},
 * and /500, /slow, /html, /array, /newer, /redirect in front of it. Each
 * request is in `seen`, with `gone` resolving once its connection closes.
 */
function bridgeHandler(seen) {
  return (req, res) => {
    seen.push({ url: req.url, headers: req.headers, res, gone: new Promise((resolve) => res.once('close', resolve)) });
    const m = /^(?:\/eventsbridge)?(?:\/(500|slow|html|array|newer|redirect|empty))?\/api\/v1\/webhook-models\/(face|lpr)$/.exec(req.url);
    if (!m || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const [, mode, kind] = m;
    const json = (status, value) => {
      const body = JSON.stringify(value);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    switch (mode) {
      case '500':
        return json(500, { error: 'boom' });
      case 'slow':
        return undefined; // never answers
      case 'html':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html><body>login</body></html>');
      case 'empty':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 0 });
        return res.end();
      case 'array':
        return json(200, [buildSampleEvent(kind)]);
      case 'redirect':
        res.writeHead(301, { location: `https://other-host/eventsbridge/api/v1/webhook-models/${kind}` });
        return res.end();
      case 'newer': {
        const event = buildSampleEvent(kind);
        event.bridgeVersion = '12.0';
        event.payload.detectionInfo.dateTimeUtc = 1767225600; // a number: fails the schema
        return json(200, event);
      }
      default:
        return json(200, buildSampleEvent(kind));
    }
  };
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

async function stop(server) {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('bridge/client: samples (fetchSample, EventsBridgeClient.sample)', function () {
  this.timeout(20000);
  let tls;
  let server;
  let base;
  let seen;
  let connections;

  before(async () => {
    tls = selfSigned();
    seen = [];
    connections = 0;
    server = https.createServer({ key: tls.key, cert: tls.cert }, bridgeHandler(seen));
    server.on('secureConnection', () => connections++);
    base = `https://127.0.0.1:${await listen(server)}`;
  });

  after(async () => {
    await stop(server);
  });

  beforeEach(() => {
    seen.length = 0;
  });

  it('refuses the self-signed certificate by default, with a clear error', async () => {
    await assert.rejects(client.fetchSample(base, 'face'), (err) => {
      assert.ok(err instanceof TransportError);
      assert.equal(err.reason, 'certificate');
      assert.equal(err.code, 'ERR_BRIDGE_CERTIFICATE');
      assert.equal(err.url, `${base}/api/v1/webhook-models/face`);
      assert.match(
        err.message,
        new RegExp(`^GET ${base}/api/v1/webhook-models/face failed: the server certificate is not trusted \\(DEPTH_ZERO_SELF_SIGNED_CERT\\)`),
      );
      assert.match(err.message, /self-signed/);
      return true;
    });
    assert.equal(seen.length, 0, 'no request was sent over the untrusted connection');
  });

  it('accepts it with the insecure option and returns the sample', async () => {
    for (const kind of ['face', 'lpr']) {
      const got = await client.fetchSample(base, kind, { insecure: true });
      assert.equal(got.status, 200);
      assert.equal(got.kind, kind);
      assert.deepEqual(got.errors, []);
      assert.equal(got.url, `${base}/api/v1/webhook-models/${kind}`);
      assert.ok(checkEvent(got.event).ok);
      assert.equal(got.event.publishType, kind === 'face' ? 'WebHookFaceRecPayload' : 'WebHookLprPayload');
    }
    assert.deepEqual(
      seen.map((s) => s.url),
      ['/api/v1/webhook-models/face', '/api/v1/webhook-models/lpr'],
    );
    assert.equal(seen[0].headers.accept, 'application/json');
    assert.equal(seen[0].headers.authorization, undefined, 'anonymous');
  });

  it('trusts it with the ca option (the events-bridge node’s CA certificate), without insecure', async () => {
    const got = await client.fetchSample(base, 'lpr', { ca: tls.cert });
    assert.equal(got.kind, 'lpr');
    assert.deepEqual(got.errors, []);
    // a CA that did not sign it is no help
    const other = selfSigned();
    await assert.rejects(client.fetchSample(base, 'lpr', { ca: other.cert }), (err) => err.reason === 'certificate');
  });

  it('EventsBridgeClient.sample: through the client’s own pool, with its CA and path prefix, one connection for several', async () => {
    const bridge = new client.EventsBridgeClient({ baseUrl: `${base}/eventsbridge`, ca: tls.cert, token: 'the-jwt' });
    try {
      const before = connections;
      const face = await bridge.sample('face');
      assert.equal(face.url, `${base}/eventsbridge/api/v1/webhook-models/face`);
      assert.equal(face.kind, 'face');
      await new Promise((resolve) => setImmediate(resolve));
      const lpr = await bridge.sample('lpr');
      assert.equal(lpr.kind, 'lpr');
      assert.equal(connections - before, 1, 'one keep-alive connection of the client’s pool');
      assert.equal(seen[0].headers.authorization, undefined, 'anonymous: the JWT is for enrollment only');
    } finally {
      await bridge.close();
    }
    // closed: its pool is gone
    await assert.rejects(bridge.sample('face'));
  });

  it('also accepts it through a dispatcher that trusts the certificate, and reuses its connection', async () => {
    const agent = new Agent({ connect: { ca: tls.cert } });
    try {
      const before = connections;
      await client.fetchSample(base, 'face', { dispatcher: agent });
      // undici frees the connection right after the body ends: a request sent
      // in the same tick would open a second one
      await new Promise((resolve) => setImmediate(resolve));
      await client.fetchSample(base, 'lpr', { dispatcher: agent });
      assert.equal(connections - before, 1, 'one keep-alive connection for both');
    } finally {
      await agent.close();
    }
  });

  it('keeps the path prefix of a cloud base URL', async () => {
    for (const prefix of ['/eventsbridge', '/eventsbridge/', '/eventsbridge/api/v1/webhook-models/face']) {
      const got = await client.fetchSample(`${base}${prefix}`, 'lpr', { insecure: true });
      assert.equal(got.url, `${base}/eventsbridge/api/v1/webhook-models/lpr`);
      assert.equal(got.kind, 'lpr');
    }
    assert.deepEqual(
      seen.map((s) => s.url),
      Array(3).fill('/eventsbridge/api/v1/webhook-models/lpr'),
    );
  });

  it('turns a 500 answer into an error naming the URL and the status', async () => {
    const url = `${base}/eventsbridge/500/api/v1/webhook-models/face`;
    await assert.rejects(client.fetchSample(`${base}/eventsbridge/500`, 'face', { insecure: true }), (err) => {
      assert.equal(err.reason, 'status');
      assert.equal(err.code, 'ERR_BRIDGE_STATUS');
      assert.equal(err.status, 500);
      assert.equal(err.message, `GET ${url} answered 500 (Internal Server Error)`);
      assert.deepEqual(err.params, { url, status: 500, statusText: 'Internal Server Error' });
      return true;
    });
    // a 404 too (a base URL pointing somewhere else)
    await assert.rejects(client.fetchSample(`${base}/wrong`, 'face', { insecure: true }), /answered 404 \(Not Found\)$/);
  });

  it('says where a redirect points instead of following it', async () => {
    await assert.rejects(client.fetchSample(`${base}/redirect`, 'lpr', { insecure: true }), (err) => {
      assert.equal(err.reason, 'redirect');
      assert.equal(err.status, 301);
      assert.match(err.message, /answered 301 \(Moved Permanently\), a redirect to https:\/\/other-host\/eventsbridge\/api\/v1\/webhook-models\/lpr/);
      return true;
    });
  });

  it('times out', async () => {
    // /slow never answers: only the client's own time-out (0.3 s, named in the text) ends the call
    await assert.rejects(client.fetchSample(`${base}/slow`, 'face', { insecure: true, timeoutMs: 300 }), (err) => {
      assert.equal(err.reason, 'timeout');
      assert.equal(err.code, 'ERR_BRIDGE_TIMEOUT');
      assert.equal(err.message, `GET ${base}/slow/api/v1/webhook-models/face timed out after 0.3 s`);
      return true;
    });
    // the client hung up on the request it gave up, which was never answered
    assert.equal(seen.length, 1);
    await seen[0].gone;
    assert.equal(seen[0].res.headersSent, false);
  });

  it('rejects a body that is not JSON, or JSON that is not an object', async () => {
    await assert.rejects(client.fetchSample(`${base}/html`, 'face', { insecure: true }), (err) => {
      assert.equal(err.reason, 'not-json');
      assert.equal(err.status, 200);
      assert.match(
        err.message,
        new RegExp(`^GET ${base}/html/api/v1/webhook-models/face answered 200 with a body that is not JSON \\(Content-Type text/html\\): `),
      );
      assert.match(err.message, /line 1, column 1/);
      return true;
    });
    await assert.rejects(
      client.fetchSample(`${base}/empty`, 'face', { insecure: true }),
      /not JSON \(Content-Type application\/json\): the body is empty$/,
    );
    await assert.rejects(client.fetchSample(`${base}/array`, 'lpr', { insecure: true }), (err) => {
      assert.equal(err.reason, 'not-event');
      assert.match(err.message, /not a detection event: expected a JSON object, got an array$/);
      return true;
    });
  });

  it('returns a sample that fails the schema, with the errors, keeping extra fields', async () => {
    const got = await client.fetchSample(`${base}/newer`, 'lpr', { insecure: true });
    assert.equal(got.kind, 'lpr');
    assert.equal(got.event.bridgeVersion, '12.0');
    assert.deepEqual(
      got.errors.map((e) => e.path),
      ['payload.detectionInfo.dateTimeUtc'],
    );
  });

  it('reports a sample of the other kind as a schema problem', async () => {
    const other = http.createServer((req, res) => {
      const body = JSON.stringify(buildSampleEvent('face'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    const port = await listen(other);
    try {
      const got = await client.fetchSample(`http://127.0.0.1:${port}`, 'lpr');
      assert.equal(got.kind, 'face', 'the kind of what was answered');
      assert.deepEqual(
        got.errors.map((e) => e.path),
        ['publishType'],
      );
    } finally {
      await stop(other);
    }
  });

  it('sends credentials of the base URL as Basic auth and never shows them', async () => {
    const got = await client.fetchSample(base.replace('https://', 'https://user:p%40ss@'), 'face', { insecure: true });
    assert.equal(got.url, `${base}/api/v1/webhook-models/face`);
    assert.equal(seen[0].headers.authorization, `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    await assert.rejects(client.fetchSample(base.replace('https://', 'https://user:secret@') + '/500', 'face', { insecure: true }), (err) => {
      assert.doesNotMatch(err.message, /secret|user/);
      return true;
    });
    await assert.rejects(client.fetchSample('https://user:secret@ bad host', 'face'), (err) => {
      assert.equal(err.reason, 'url');
      assert.doesNotMatch(err.message, /secret/);
      return true;
    });
  });

  it('names a refused connection', async () => {
    const closed = http.createServer();
    const port = await listen(closed);
    await stop(closed);
    await assert.rejects(client.fetchSample(`http://127.0.0.1:${port}/eventsbridge`, 'face'), (err) => {
      assert.equal(err.reason, 'network');
      assert.equal(err.code, 'ERR_BRIDGE_NETWORK');
      assert.equal(err.message, `GET http://127.0.0.1:${port}/eventsbridge/api/v1/webhook-models/face failed: connection refused (ECONNREFUSED)`);
      return true;
    });
  });

  it('can be cancelled', async () => {
    const controller = new AbortController();
    const pending = client.fetchSample(`${base}/slow`, 'face', { insecure: true, signal: controller.signal });
    // cancelled while the bridge holds the request: the call ends, and so does the connection
    await until(() => seen.length === 1, 5000, 'the request at the bridge');
    controller.abort();
    await assert.rejects(pending, (err) => err.reason === 'aborted' && err.code === 'ERR_BRIDGE_ABORTED');
    await seen[0].gone;
    assert.equal(seen[0].res.headersSent, false);
  });

  it('refuses base URLs it cannot use', async () => {
    for (const [bad, why] of [
      ['', /is empty/],
      ['bridge-host:5022', /must start with https:\/\//],
      ['//bridge-host', /absolute address/],
      ['ftp://bridge-host', /must start with https:\/\//],
      ['https://bridge-host/eventsbridge?x=1', /query/],
    ]) {
      await assert.rejects(client.fetchSample(bad, 'face'), (err) => {
        assert.equal(err.reason, 'url', bad);
        assert.match(err.message, why);
        return true;
      });
    }
    assert.equal(client.sampleUrl('https://tenant-host/eventsbridge', 'face').display, 'https://tenant-host/eventsbridge/api/v1/webhook-models/face');
    assert.equal(client.sampleUrl('https://bridge-host:5022/', 'lpr').display, 'https://bridge-host:5022/api/v1/webhook-models/lpr');
    assert.equal(client.sampleUrl('https://tenant-host/a/b//', 'lpr').display, 'https://tenant-host/a/b/api/v1/webhook-models/lpr');
  });
});
