'use strict';
/**
 * sim/mock-core.ts on its own, through plain undici requests: the routes,
 * bearer checks, injected failures, token expiry, bounded recordings, a path
 * prefix and HTTPS.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { Agent, request } = require('undici');

const { selfSigned } = require('../../support');
const { FakeClock } = require('../../support/fake-clock');

const dist = require('path').resolve(__dirname, '../../../dist');
const { startMockCore, createMockCore, DEFAULT_MOCK_PLUGINS } = require(path.join(dist, 'sim', 'mock-core'));

async function call(url, { method = 'GET', token, body, headers = {}, dispatcher } = {}) {
  const h = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  let payload;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    h['content-type'] = h['content-type'] || 'application/json';
  }
  const res = await request(url, { method, headers: h, body: payload, dispatcher });
  const text = await res.body.text();
  let json;
  if (/json/.test(res.headers['content-type'] || '') && text) json = JSON.parse(text);
  return { status: res.statusCode, headers: res.headers, text, json };
}

describe('sim/mock-core (the mock platform core)', function () {
  this.timeout(20000);
  let core;
  /** The core's time: moved by the tests, never waited for. */
  const clock = new FakeClock(Date.parse('2026-11-25T08:00:00Z'));

  const login = async (creds = { userName: 'admin', password: 'secret' }) => call(`${core.url}/api/v2/auth/login`, { method: 'POST', body: creds });

  before(async () => {
    core = await startMockCore({ maxRecorded: 3, clock });
  });

  after(async () => {
    await core.close();
  });

  beforeEach(() => {
    core.reset();
    core.setTokenTtl(3_600_000);
    core.setLoginBody(undefined);
    core.setPlugins(DEFAULT_MOCK_PLUGINS);
  });

  it('listens on 127.0.0.1 with a free port', () => {
    assert.match(core.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(core.port > 0);
  });

  it('signs in with the right credentials: a JWT with exp, a refresh token and expiresIn', async () => {
    const res = await login();
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json).sort(), ['accessToken', 'expiresIn', 'refreshToken']);
    assert.equal(res.json.expiresIn, 3600);
    const [header, payload, signature] = res.json.accessToken.split('.');
    assert.deepEqual(JSON.parse(Buffer.from(header, 'base64url')), { alg: 'HS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(payload, 'base64url'));
    assert.equal(claims.sub, 'admin');
    assert.equal(claims.iat, Math.floor(clock.now() / 1000), 'issued at the core’s clock');
    assert.equal(claims.exp, claims.iat + 3600);
    assert.equal(core.received.requests[0].at, new Date(clock.now()).toISOString());
    assert.ok(signature.length > 20);
    assert.equal(core.received.logins, 1);
    assert.equal(core.received.requests[0].body, '(login body not recorded)', 'the password is not kept');
  });

  it('refuses wrong credentials and malformed logins with 401 problem bodies', async () => {
    for (const creds of [{ userName: 'admin', password: 'nope' }, { user: 'admin', pass: 'secret' }, 'null']) {
      const res = await login(creds);
      assert.equal(res.status, 401);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.equal(res.json.status, 401);
      assert.match(res.json.detail, /user name or password/);
    }
    assert.equal(core.received.failedLogins, 3);
    assert.equal(core.received.logins, 0);
    assert.equal((await call(`${core.url}/api/v2/auth/login`, { method: 'POST', body: '{oops' })).status, 400);
  });

  it('checks the bearer token on every other route', async () => {
    const url = `${core.url}/api/v2/portal/installed-plugins`;
    let res = await call(url);
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer error="invalid_token"');
    assert.match(res.json.detail, /Bearer <token> header is required/);
    res = await call(url, { token: 'made.up.token' });
    assert.equal(res.status, 401);
    assert.match(res.json.detail, /unknown/);
    const { accessToken } = (await login()).json;
    res = await call(url, { token: accessToken });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { plugins: DEFAULT_MOCK_PLUGINS });
    assert.equal(DEFAULT_MOCK_PLUGINS.filter((p) => p.type === 'pos').length, 2);
    assert.equal(core.received.unauthorized, 2);
  });

  it('expires tokens by TTL and on expireTokens()', async () => {
    core.setTokenTtl(300);
    let token = (await login()).json.accessToken;
    await clock.advance(299);
    assert.equal((await call(`${core.url}/api/v2/x`, { token })).status, 200, 'good until its lifetime is over');
    await clock.advance(1);
    let res = await call(`${core.url}/api/v2/x`, { token });
    assert.equal(res.status, 401);
    assert.match(res.json.detail, /expired/);
    core.setTokenTtl(60_000);
    token = (await login()).json.accessToken;
    assert.equal((await call(`${core.url}/api/v2/x`, { token })).status, 200);
    core.expireTokens();
    res = await call(`${core.url}/api/v2/x`, { token });
    assert.equal(res.status, 401);
  });

  it('records POS batches in the three body shapes and answers {accepted}', async () => {
    const { accessToken: token } = (await login()).json;
    const base = `${core.url}/api/v2/pos/plugins`;
    let res = await call(`${base}/pos-main-bar/events/batch`, { method: 'POST', token, body: [{ id: 1 }, { id: 2 }] });
    assert.deepEqual([res.status, res.json], [200, { accepted: 2 }]);
    res = await call(`${base}/pos-restaurant/events/batch`, { method: 'POST', token, body: { events: [{ id: 3 }] } });
    assert.deepEqual(res.json, { accepted: 1 });
    res = await call(`${base}/pos%20x/events/batch`, {
      method: 'POST',
      token,
      body: { transactions: [{ id: 4 }, { id: 5 }, { id: 6 }] },
      headers: { 'x-trace': 't1' },
    });
    assert.deepEqual(res.json, { accepted: 3 });
    res = await call(`${base}/pos-main-bar/events/batch`, { method: 'POST', token, body: { something: 'else' } });
    assert.equal(res.status, 400);
    assert.equal((await call(`${base}/pos-main-bar/events/batch`, { token })).status, 405);
    assert.deepEqual(
      core.received.batches.map((b) => [b.posId, b.items.length]),
      [
        ['pos-main-bar', 2],
        ['pos-restaurant', 1],
        ['pos x', 3],
      ],
    );
    assert.equal(core.received.batches[2].headers['x-trace'], 't1');
    assert.equal(core.received.batches[2].headers.authorization, 'Bearer <redacted>');
    assert.equal(core.received.itemCount, 6);
  });

  it('echoes any other v2 call and 404s outside /api/v2', async () => {
    const { accessToken: token } = (await login()).json;
    const res = await call(`${core.url}/api/v2/cameras/7?fields=a&fields=b&x=1`, { method: 'PUT', token, body: { name: 'Gate' } });
    assert.deepEqual(res.json, { method: 'PUT', path: '/api/v2/cameras/7', query: { fields: ['a', 'b'], x: '1' }, body: { name: 'Gate' } });
    assert.equal((await call(`${core.url}/api/v1/other`, { token })).status, 404);
  });

  it('fails the next requests on demand: status, Retry-After, body, dropped connection, login only', async () => {
    const { accessToken: token } = (await login()).json;
    const url = `${core.url}/api/v2/x`;
    core.failNext(2, { status: 429, retryAfter: 3 });
    for (let i = 0; i < 2; i++) {
      const res = await call(url, { token });
      assert.equal(res.status, 429);
      assert.equal(res.headers['retry-after'], '3');
      assert.equal(res.json.status, 429);
    }
    assert.equal((await call(url, { token })).status, 200);
    core.failNext(1, { status: 400, body: { error: 'bad' } });
    assert.deepEqual((await call(url, { token })).json, { error: 'bad' });
    core.failNext(1, { drop: true });
    await assert.rejects(call(url, { token }), (err) => /other side closed|socket|reset/i.test(`${err.code} ${err.message}`));
    core.failNext(1, { match: 'login', status: 503 });
    assert.equal((await call(url, { token })).status, 200, 'an API call is not affected');
    assert.equal((await login()).status, 503);
    assert.equal((await login()).status, 200);
  });

  it('keeps counts always and only the last K bodies', async () => {
    const { accessToken: token } = (await login()).json;
    for (let i = 0; i < 5; i++) {
      await call(`${core.url}/api/v2/pos/plugins/p/events/batch`, { method: 'POST', token, body: [{ i }] });
    }
    assert.equal(core.received.batchCount, 5);
    assert.equal(core.received.itemCount, 5);
    assert.deepEqual(
      core.received.batches.map((b) => b.items[0].i),
      [2, 3, 4],
    );
    assert.equal(core.received.requestCount, 6);
    assert.equal(core.received.requests.length, 3);
  });

  it('serves under a path prefix, with custom plugins and login shape', async () => {
    const other = await startMockCore({
      userName: 'u',
      password: 'p',
      prefix: 'core/',
      plugins: { data: [{ pluginId: 'x' }] },
      loginBody: (t) => ({ data: { token: t.accessToken } }),
    });
    try {
      assert.match(other.url, /^http:\/\/127\.0\.0\.1:\d+\/core$/);
      const res = await call(`${other.url}/api/v2/auth/login`, { method: 'POST', body: { userName: 'u', password: 'p' } });
      const token = res.json.data.token;
      assert.deepEqual((await call(`${other.url}/api/v2/portal/installed-plugins`, { token })).json, { data: [{ pluginId: 'x' }] });
      assert.equal((await call(`${other.url.replace(/\/core$/, '')}/api/v2/portal/installed-plugins`, { token })).status, 404);
    } finally {
      await other.close();
    }
  });

  it('serves HTTPS with a given key and certificate', async () => {
    const tls = selfSigned();
    const secure = await startMockCore({ tls });
    const agent = new Agent({ connect: { ca: tls.cert } });
    try {
      assert.match(secure.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const res = await call(`${secure.url}/api/v2/auth/login`, {
        method: 'POST',
        body: { userName: 'admin', password: 'secret' },
        dispatcher: agent,
      });
      assert.equal(res.status, 200);
      await assert.rejects(call(`${secure.url}/api/v2/x`), (err) => err.code === 'DEPTH_ZERO_SELF_SIGNED_CERT');
    } finally {
      await agent.close();
      await secure.close();
      await secure.close(); // twice is fine
    }
  });

  it('mounts its routes on a server of the caller (createMockCore)', async () => {
    const routes = createMockCore({ prefix: '/eventsbridge' });
    const server = http.createServer((req, res) => {
      if (req.url.startsWith('/eventsbridge/api/v2/')) return routes.handler(req, res);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('sample server');
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${server.address().port}`;
    try {
      assert.equal((await call(`${base}/eventsbridge/api/v1/webhook-models/face`)).text, 'sample server');
      const res = await call(`${base}/eventsbridge/api/v2/auth/login`, { method: 'POST', body: { userName: 'admin', password: 'secret' } });
      assert.equal(res.status, 200);
      const echo = await call(`${base}/eventsbridge/api/v2/things`, { token: res.json.accessToken });
      assert.equal(echo.json.path, '/api/v2/things');
      assert.equal(routes.received.logins, 1);
      assert.equal(routes.prefix, '/eventsbridge');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
