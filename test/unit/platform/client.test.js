'use strict';
/**
 * lib/platform/client.ts against the mock v2 core (sim/mock-core.ts) and a
 * few tiny local servers on 127.0.0.1: sign-in, the token-pair spellings,
 * renewal, 401 handling, concurrency, TLS and failures.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { Agent, request } = require('undici');

const { selfSigned } = require('../../support');

const dist = require('path').resolve(__dirname, '../../../dist');
/** The platform modules, one namespace for the tests. */
const pc = {
  ...require(path.join(dist, 'lib', 'platform', 'url')),
  ...require(path.join(dist, 'lib', 'platform', 'token-pair')),
  ...require(path.join(dist, 'lib', 'platform', 'plugins')),
  ...require(path.join(dist, 'lib', 'platform', 'client')),
};
const { TransportError } = require(path.join(dist, 'lib', 'http', 'transport-error'));
const { startMockCore } = require(path.join(dist, 'sim', 'mock-core'));
const { FakeClock } = require('../../support/fake-clock');

const USER = 'integrator';
const PASSWORD = 'pa55-w0rd-very-secret';

/** An unsigned JWT-shaped token with the given payload. */
function jwt(payload) {
  const part = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(payload)}.c2lnbmF0dXJl`;
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

async function stop(server) {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('lib/platform/client', function () {
  this.timeout(20000);
  let core;
  const clients = [];
  const client = (options = {}) => {
    const c = new pc.PlatformClient({ baseUrl: core.url, userName: USER, password: PASSWORD, ...options });
    clients.push(c);
    return c;
  };

  before(async () => {
    core = await startMockCore({ userName: USER, password: PASSWORD });
  });

  after(async () => {
    await core.close();
  });

  beforeEach(() => {
    core.reset();
    core.setLoginBody(undefined);
    core.setTokenTtl(3_600_000);
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
  });

  describe('sign-in and calls', () => {
    it('signs in on first use and sends the bearer token', async () => {
      const c = client();
      assert.equal(c.signedIn, false);
      assert.equal(c.loginCount, 0);
      const signedIn = [];
      c.on('signedIn', (info) => signedIn.push(info));
      const res = await c.request({ path: '/api/v2/cameras', query: { page: 2, tag: ['a', 'b'], skip: undefined } });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.body, { method: 'GET', path: '/api/v2/cameras', query: { page: '2', tag: ['a', 'b'] }, body: null });
      assert.equal(c.signedIn, true);
      assert.equal(c.loginCount, 1);
      assert.equal(core.received.logins, 1);
      assert.equal(signedIn.length, 1);
      assert.equal(signedIn[0].accessField, 'accessToken');
      assert.equal(signedIn[0].expirySource, 'expiresIn');
      const call = core.received.requests.find((r) => r.path === '/api/v2/cameras');
      assert.equal(call.headers.authorization, 'Bearer <redacted>');
      // the token is reused
      await c.request({ path: 'api/v2/cameras' });
      assert.equal(core.received.logins, 1);
    });

    it('JSON-encodes bodies, sends strings and Buffers as they are, and drops a GET body', async () => {
      const c = client();
      let res = await c.request({ method: 'post', path: '/api/v2/things', body: { a: 1, b: [true] } });
      assert.deepEqual(res.body.body, { a: 1, b: [true] });
      assert.equal(res.body.method, 'POST');
      res = await c.request({ method: 'PUT', path: '/api/v2/things/1', body: '{"raw":true}' });
      assert.deepEqual(res.body.body, { raw: true });
      res = await c.request({
        method: 'PATCH',
        path: '/api/v2/things/1',
        body: Buffer.from('bytes'),
        headers: { 'content-type': 'text/plain', 'x-extra': 'yes' },
      });
      assert.equal(res.body.body, 'bytes');
      assert.equal(core.received.requests.at(-1).headers['x-extra'], 'yes');
      res = await c.request({ method: 'GET', path: '/api/v2/things', body: 12345 });
      assert.equal(res.body.body, null);
    });

    it('keeps the path prefix of the base URL and drops a pasted /api/v2', async () => {
      const prefixed = await startMockCore({ userName: USER, password: PASSWORD, prefix: '/core' });
      try {
        for (const base of [prefixed.url, `${prefixed.url}/`, `${prefixed.url}/api/v2`, `${prefixed.url}/api/v2/auth/login`]) {
          const c = client({ baseUrl: base });
          const res = await c.request({ path: '/api/v2/portal/installed-plugins' });
          assert.equal(res.statusCode, 200, base);
        }
        assert.deepEqual([...new Set(prefixed.received.requests.map((r) => r.path))].sort(), [
          '/api/v2/auth/login',
          '/api/v2/portal/installed-plugins',
        ]);
        assert.equal(pc.platformUrl(pc.parsePlatformBase('https://h/core/'), 'api/v2/x?a=1', { b: 2 }).href, 'https://h/core/api/v2/x?a=1&b=2');
      } finally {
        await prefixed.close();
      }
    });

    it('answers non-2xx without throwing, parses JSON, keeps text, and gives null for an empty body', async () => {
      const server = http.createServer((req, res) => {
        if (req.url === '/api/v2/auth/login') {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ token: 'opaque-token' }));
        }
        const routes = {
          '/api/v2/text': [200, 'text/plain', 'plain words'],
          '/api/v2/empty': [204, 'application/json', ''],
          '/api/v2/problem': [422, 'application/problem+json', '{"title":"Unprocessable","errors":[1]}'],
          '/api/v2/broken': [200, 'application/json', '{not json'],
        };
        const [status, type, body] = routes[req.url] || [404, 'text/plain', 'no'];
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      });
      const port = await listen(server);
      try {
        const c = client({ baseUrl: `http://127.0.0.1:${port}` });
        assert.deepEqual(await c.request({ path: '/api/v2/text' }).then((r) => [r.statusCode, r.body]), [200, 'plain words']);
        assert.deepEqual(await c.request({ path: '/api/v2/empty' }).then((r) => [r.statusCode, r.body]), [204, null]);
        assert.deepEqual(await c.request({ path: '/api/v2/problem' }).then((r) => [r.statusCode, r.body]), [
          422,
          { title: 'Unprocessable', errors: [1] },
        ]);
        assert.deepEqual(await c.request({ path: '/api/v2/broken' }).then((r) => [r.statusCode, r.body]), [200, '{not json']);
        assert.equal(c.tokenExpiresAt, undefined, 'an opaque token has no known expiry');
        assert.equal(c.signedIn, true);
      } finally {
        await stop(server);
      }
    });

    it('refuses a full URL as path, and base URLs it cannot use', async () => {
      const c = client();
      for (const bad of ['https://elsewhere/api/v2/x', '//elsewhere/api/v2/x', '', 'api/v2/x#frag']) {
        await assert.rejects(c.request({ path: bad }), (err) => {
          assert.ok(err instanceof TransportError);
          assert.equal(err.code, 'ERR_PLATFORM_PATH');
          return true;
        });
      }
      assert.equal(core.received.requestCount, 0, 'nothing was sent');
      for (const [base, why] of [
        ['', /is empty/],
        ['core-host', /absolute address/],
        ['ftp://core-host', /https:\/\//],
        [`https://${USER}:${PASSWORD}@core-host`, /credentials/],
        ['https://core-host/?x=1', /query/],
      ]) {
        assert.throws(
          () => new pc.PlatformClient({ baseUrl: base, userName: USER, password: PASSWORD }),
          (err) => {
            assert.equal(err.code, 'ERR_PLATFORM_URL', base);
            assert.match(err.message, why);
            assert.doesNotMatch(err.message, new RegExp(PASSWORD));
            return true;
          },
        );
      }
    });

    it('fails clearly without credentials', async () => {
      const c = client({ password: '' });
      await assert.rejects(c.request({ path: '/api/v2/x' }), (err) => err.code === 'ERR_PLATFORM_CREDENTIALS' && /password/.test(err.message));
      assert.equal(core.received.requestCount, 0);
    });

    it('reports a refused login with the status and never the password', async () => {
      const c = client({ password: 'wrong-password' });
      const failed = [];
      c.on('signInFailed', (err) => failed.push(err));
      await assert.rejects(c.request({ path: '/api/v2/x' }), (err) => {
        assert.equal(err.code, 'ERR_PLATFORM_LOGIN');
        assert.equal(err.status, 401);
        assert.equal(err.retryable, false);
        assert.match(
          err.message,
          /^sign-in at http:\/\/127\.0\.0\.1:\d+\/api\/v2\/auth\/login failed: 401 \(Unauthorized\): .*user name or password is wrong/,
        );
        assert.doesNotMatch(err.message, /wrong-password/);
        return true;
      });
      assert.equal(failed.length, 1);
      assert.equal(c.signedIn, false);
      assert.equal(core.received.failedLogins, 1);
      // a server that echoes the password back: blanked in the excerpt
      core.failNext(1, { match: 'login', status: 500, body: { error: `cannot check password ${PASSWORD} now` } });
      const c2 = client();
      await assert.rejects(c2.signIn(), (err) => {
        assert.equal(err.status, 500);
        assert.equal(err.retryable, true);
        assert.match(err.message, /cannot check password \*\*\* now/);
        assert.ok(!err.message.includes(PASSWORD));
        return true;
      });
    });
  });

  describe('token pair spellings', () => {
    const variants = [
      [
        'accessToken/refreshToken/expiresIn',
        (t) => ({ accessToken: t.accessToken, refreshToken: t.refreshToken, expiresIn: t.expiresIn }),
        'accessToken',
        'expiresIn',
      ],
      [
        'access_token/refresh_token/expires_in',
        (t) => ({ access_token: t.accessToken, refresh_token: t.refreshToken, expires_in: String(t.expiresIn), token_type: 'Bearer' }),
        'access_token',
        'expiresIn',
      ],
      ['token/expiresAt ISO', (t) => ({ username: USER, token: t.accessToken, expiresAt: t.expiresAt }), 'token', 'expiresAt'],
      ['jwt/expires_at epoch seconds', (t) => ({ jwt: t.accessToken, expires_at: Math.floor(Date.parse(t.expiresAt) / 1000) }), 'jwt', 'expiresAt'],
      [
        'data wrapper, expiration epoch ms',
        (t) => ({ success: true, data: { accessToken: t.accessToken, refreshToken: t.refreshToken, expiration: Date.parse(t.expiresAt) } }),
        'data.accessToken',
        'expiresAt',
      ],
      ['result wrapper, JWT exp only', (t) => ({ result: { token: t.accessToken } }), 'result.token', 'jwt'],
      [
        'expiry at the top, token in data',
        (t) => ({ data: { access_token: t.accessToken }, expires_in: t.expiresIn }),
        'data.access_token',
        'expiresIn',
      ],
      ['a bare JWT string', (t) => t.accessToken, '(the whole answer)', 'jwt'],
    ];
    for (const [title, shape, field, source] of variants) {
      it(`reads ${title}`, async () => {
        core.setLoginBody(shape);
        const c = client();
        const info = new Promise((resolve) => c.once('signedIn', resolve));
        const res = await c.request({ path: '/api/v2/portal/installed-plugins' });
        assert.equal(res.statusCode, 200);
        const got = await info;
        assert.equal(got.accessField, field);
        assert.equal(got.expirySource, source);
        const expected = Date.now() + 3_600_000;
        assert.ok(Math.abs(c.tokenExpiresAt - expected) < 5000, `expiry ${new Date(c.tokenExpiresAt).toISOString()}`);
      });
    }

    it('extractTokenPair covers the spellings without a server', () => {
      const now = 1_700_000_000_000;
      const e = (body) => pc.extractTokenPair(body, now);
      assert.deepEqual(e({ accessToken: 'a', refreshToken: 'r', expiresIn: 900 }).pair, {
        accessToken: 'a',
        accessField: 'accessToken',
        refreshToken: 'r',
        expiresAt: now + 900_000,
        expirySource: 'expiresIn',
      });
      assert.equal(e({ token: 'a', expiration: '2030-01-01T00:00:00Z' }).pair.expiresAt, Date.parse('2030-01-01T00:00:00Z'));
      assert.equal(e({ jwt: 'a', expiresAt: 1_900_000_000 }).pair.expiresAt, 1_900_000_000_000);
      assert.equal(e({ jwt: 'a', expiresAt: 1_900_000_000_123 }).pair.expiresAt, 1_900_000_000_123);
      assert.equal(e({ result: { access_token: 'a', refresh_token: 'r' } }).pair.refreshToken, 'r');
      assert.equal(e({ tokens: { accessToken: 'a' }, refreshToken: 'r' }).pair.refreshToken, 'r', 'refresh token at the top');
      assert.equal(e({ accessToken: jwt({ exp: 1_800_000_000 }) }).pair.expiresAt, 1_800_000_000_000);
      assert.equal(
        e({ accessToken: jwt({ exp: 1_800_000_000 }), expiresIn: 60 }).pair.expiresAt,
        now + 60_000,
        'an explicit expiry wins over the claim',
      );
      assert.equal(e({ accessToken: 'not.a.jwt!' }).pair.expiresAt, undefined);
      assert.equal(e({ accessToken: '  ' }).ok, false, 'an empty token does not count');
    });

    it('names the fields (never the values) when no access token fits', async () => {
      core.setLoginBody((t) => ({ session: t.accessToken, user: { name: USER, roles: ['x'] }, message: 'welcome' }));
      const c = client();
      await assert.rejects(c.request({ path: '/api/v2/x' }), (err) => {
        assert.equal(err.code, 'ERR_PLATFORM_TOKEN_FIELDS');
        assert.equal(err.status, 200);
        assert.match(err.message, /no access token was found/);
        assert.match(err.message, /the fields: session, user, user\.name, user\.roles, message$/);
        assert.doesNotMatch(err.message, /eyJ|welcome|integrator/);
        return true;
      });
      assert.equal(c.signedIn, false);
      assert.deepEqual(pc.extractTokenPair([1, 2]), { ok: false, fields: ['(an array)'] });
      assert.deepEqual(pc.extractTokenPair({}), { ok: false, fields: ['(an empty object)'] });
    });
  });

  describe('renewal', () => {
    it('signs in again before a known expiry (renewBeforeMs), without a 401', async () => {
      let now = Date.now();
      const c = client({ now: () => now, renewBeforeMs: 60_000 });
      await c.request({ path: '/api/v2/x' });
      const expiresAt = c.tokenExpiresAt;
      now = expiresAt - 61_000; // not yet inside the window
      await c.request({ path: '/api/v2/x' });
      assert.equal(core.received.logins, 1);
      now = expiresAt - 59_000; // inside the window: renew first
      await c.request({ path: '/api/v2/x' });
      assert.equal(core.received.logins, 2);
      assert.equal(core.received.unauthorized, 0);
      assert.equal(c.loginCount, 2);
    });

    it('caps the renewal window at half a short token lifetime', async () => {
      core.setTokenTtl(20_000); // shorter than renewBeforeMs
      let now = Date.now();
      const c = client({ now: () => now });
      await c.request({ path: '/api/v2/x' });
      await c.request({ path: '/api/v2/x' });
      assert.equal(core.received.logins, 1, 'the token is used, not renewed on every call');
      now += 11_000; // past half the lifetime
      await c.request({ path: '/api/v2/x' });
      assert.equal(core.received.logins, 2);
    });

    it('signs in again after a token expires on the server (short TTL)', async () => {
      // a core of its own on a clock the test moves, shared with the client; expiresIn says 2 s
      // (whole seconds): the server's 1.5 s run out first, and only its 401 tells the client
      const clock = new FakeClock(Date.now());
      const timed = await startMockCore({ userName: USER, password: PASSWORD, tokenTtlMs: 1500, clock });
      try {
        const c = client({ baseUrl: timed.url, renewBeforeMs: 0, now: () => clock.now() });
        await c.request({ path: '/api/v2/x' });
        assert.equal(timed.received.logins, 1);
        await clock.advance(1499);
        await c.request({ path: '/api/v2/x' });
        assert.equal(timed.received.logins, 1, 'still good');
        await clock.advance(1);
        const res = await c.request({ path: '/api/v2/x' });
        assert.equal(res.statusCode, 200);
        assert.equal(timed.received.logins, 2);
        assert.equal(timed.received.unauthorized, 1, 'the server refused the expired token once');
      } finally {
        await timed.close();
      }
    });

    it('after a 401 signs in again exactly once and repeats the call', async () => {
      const c = client();
      await c.request({ path: '/api/v2/x' });
      core.expireTokens();
      const res = await c.request({ method: 'POST', path: '/api/v2/x', body: { n: 1 } });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.body.body, { n: 1 }, 'the repeated call carries the body again');
      assert.equal(core.received.logins, 2);
      assert.equal(core.received.unauthorized, 1);
    });

    it('returns a second 401 instead of looping', async () => {
      const c = client();
      await c.request({ path: '/api/v2/x' });
      core.failNext(5, { status: 401, body: { title: 'Unauthorized', detail: 'permission key missing' } });
      const res = await c.request({ path: '/api/v2/x' });
      assert.equal(res.statusCode, 401);
      assert.deepEqual(res.body, { title: 'Unauthorized', detail: 'permission key missing' });
      assert.equal(core.received.logins, 2, 'one extra login');
      assert.equal(core.received.requestCount, 2 + 3, 'first call and login; then 401, login, 401');
    });

    it('shares one sign-in among concurrent calls, also after a 401', async () => {
      const c = client();
      const many = await Promise.all(Array.from({ length: 25 }, (_, i) => c.request({ path: `/api/v2/x/${i}` })));
      assert.ok(many.every((r) => r.statusCode === 200));
      assert.equal(core.received.logins, 1);
      assert.equal(c.loginCount, 1);
      core.expireTokens();
      const again = await Promise.all(Array.from({ length: 25 }, (_, i) => c.request({ path: `/api/v2/y/${i}` })));
      assert.ok(again.every((r) => r.statusCode === 200));
      assert.equal(core.received.logins, 2, 'one login for all the 401s');
    });

    it('shares one failed sign-in too, and tries again on the next call', async () => {
      const c = client();
      core.failNext(1, { match: 'login', status: 503 });
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => c.request({ path: '/api/v2/x' })));
      assert.ok(results.every((r) => r.status === 'rejected' && r.reason.code === 'ERR_PLATFORM_LOGIN' && r.reason.retryable));
      const loginCalls = core.received.requests.filter((r) => r.path === '/api/v2/auth/login').length;
      assert.equal(loginCalls, 1);
      const res = await c.request({ path: '/api/v2/x' });
      assert.equal(res.statusCode, 200);
    });
  });

  describe('installed plugins', () => {
    it('returns the raw answer, a normalised list and the POS instances', async () => {
      const c = client();
      const got = await c.installedPlugins();
      assert.equal(got.statusCode, 200);
      assert.ok(Array.isArray(got.body.plugins));
      assert.deepEqual(
        got.plugins.map((p) => [p.id, p.name, p.type]),
        [
          ['portal', 'Portal', 'portal'],
          ['pos-main-bar', 'POS Main Bar', 'pos'],
          ['pos-restaurant', 'POS Restaurant', 'pos'],
          ['lpr', 'License Plate Recognition', 'lpr'],
          ['casino-ratings', 'Casino Ratings', 'ratings'],
        ],
      );
      assert.deepEqual(
        pc.posPlugins(got.plugins).map((p) => p.id),
        ['pos-main-bar', 'pos-restaurant'],
      );
    });

    it('finds plugins in other shapes', () => {
      const nested = pc.normalizePlugins({
        data: {
          modules: [
            {
              module: 'Pos',
              displayName: 'Point of sale',
              instances: [
                { instanceId: 'a1', displayName: 'Bar' },
                { instanceId: 7, title: 'Lobby' },
              ],
            },
            { name: 'Face', instances: [{ instanceId: 'f1' }] },
          ],
        },
      });
      assert.deepEqual(
        nested.map((p) => [p.id, p.name, p.type]),
        [
          ['a1', 'Bar', 'Pos'],
          ['7', 'Lobby', 'Pos'],
          ['f1', 'f1', 'Face'],
        ],
      );
      assert.deepEqual(
        pc.posPlugins(nested).map((p) => p.id),
        ['a1', '7'],
      );
      const keyed = pc.normalizePlugins({ pos: [{ pluginId: 'p1', name: 'Bar' }], lpr: [{ id: 'l1', name: 'Gate' }] });
      assert.deepEqual(
        keyed.map((p) => [p.id, p.type]),
        [
          ['p1', 'pos'],
          ['l1', 'lpr'],
        ],
      );
      assert.deepEqual(
        pc.normalizePlugins([{ id: 1, name: 'x', kind: 'PosPlugin' }]).map((p) => p.type),
        ['PosPlugin'],
      );
      assert.deepEqual(pc.normalizePlugins({ nothing: 'here' }), []);
      assert.equal(pc.isPosPlugin({ name: 'Position tracker', type: 'gps' }), false);
      assert.equal(pc.isPosPlugin({ name: 'Casino', type: 'ratings' }), false);
      for (const yes of ['pos', 'POS Bar', 'PosPlugin', 'micros-pos', 'Point of Sale', 'POSConnect']) {
        assert.equal(pc.isPosPlugin({ name: yes }), true, yes);
      }
      assert.equal(pc.posBatchPath('a b/c'), '/api/v2/pos/plugins/a%20b%2Fc/events/batch');
    });

    it('rejects a non-2xx answer with ERR_PLATFORM_STATUS', async () => {
      const c = client();
      await c.signIn();
      core.failNext(1, { status: 403, body: { title: 'Forbidden', detail: 'portal.read missing' } });
      await assert.rejects(c.installedPlugins(), (err) => {
        assert.equal(err.code, 'ERR_PLATFORM_STATUS');
        assert.equal(err.status, 403);
        assert.match(
          err.message,
          /GET http:\/\/127\.0\.0\.1:\d+\/api\/v2\/portal\/installed-plugins answered 403 \(Forbidden\): .*portal\.read missing/,
        );
        return true;
      });
    });
  });

  describe('transport failures', () => {
    it('names a refused connection (retryable)', async () => {
      const closed = http.createServer();
      const port = await listen(closed);
      await stop(closed);
      const c = client({ baseUrl: `http://127.0.0.1:${port}` });
      await assert.rejects(c.request({ path: '/api/v2/x' }), (err) => {
        assert.equal(err.code, 'ERR_PLATFORM_NETWORK');
        assert.equal(err.retryable, true);
        assert.match(err.message, /^POST http:\/\/127\.0\.0\.1:\d+\/api\/v2\/auth\/login failed: connection refused \(ECONNREFUSED\)$/);
        return true;
      });
      assert.equal(c.lastError.code, 'ERR_PLATFORM_NETWORK');
    });

    it('times out', async () => {
      const sockets = new Set();
      const slow = http.createServer(() => {});
      slow.on('connection', (s) => sockets.add(s));
      const port = await listen(slow);
      try {
        const c = client({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 300 });
        // the server never answers: only the client's own time-out can end the call
        await assert.rejects(c.signIn(), (err) => {
          assert.equal(err.code, 'ERR_PLATFORM_TIMEOUT');
          assert.equal(err.retryable, true);
          assert.match(err.message, /timed out after 0\.3 s$/);
          return true;
        });
      } finally {
        await stop(slow);
      }
    });

    it('caps the size of an answer', async () => {
      const c = client({ maxResponseBytes: 1000 });
      await c.signIn();
      await assert.rejects(c.request({ method: 'POST', path: '/api/v2/big', body: { text: 'x'.repeat(5000) } }), (err) => {
        assert.equal(err.code, 'ERR_PLATFORM_TOO_LARGE');
        assert.match(err.message, /answered a body larger than 1000 bytes$/);
        return true;
      });
      assert.equal(c.urlFor('api/v2/big', { a: 1 }), `${core.url}/api/v2/big?a=1`);
    });

    it('can be cancelled, and refuses calls after close', async () => {
      const c = client();
      await c.signIn();
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(c.request({ path: '/api/v2/x', signal: controller.signal }), (err) => err.code === 'ERR_PLATFORM_ABORTED');
      await c.close();
      assert.equal(c.signedIn, false);
      await assert.rejects(c.request({ path: '/api/v2/x' }), (err) => err.code === 'ERR_PLATFORM_CLOSED');
    });
  });

  describe('TLS with a self-signed certificate', () => {
    let tls;
    let secure;

    before(async () => {
      tls = selfSigned();
      secure = await startMockCore({ userName: USER, password: PASSWORD, tls });
    });

    after(async () => {
      await secure.close();
    });

    it('refuses it by default, with a clear error and nothing sent', async () => {
      const c = client({ baseUrl: secure.url });
      await assert.rejects(c.request({ path: '/api/v2/x' }), (err) => {
        assert.equal(err.code, 'ERR_PLATFORM_CERTIFICATE');
        assert.equal(err.retryable, false);
        assert.match(err.message, /the server certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\)/);
        assert.match(err.message, /self-signed/);
        return true;
      });
      assert.equal(secure.received.requestCount, 0);
    });

    it('accepts it with insecure on', async () => {
      const c = client({ baseUrl: secure.url, insecure: true });
      const got = await c.installedPlugins();
      assert.equal(got.plugins.length, 5);
    });

    it('accepts it when its certificate is given as ca', async () => {
      const c = client({ baseUrl: secure.url, ca: tls.cert.toString('utf8') });
      for (let i = 0; i < 5; i++) {
        assert.equal((await c.request({ path: `/api/v2/x/${i}` })).statusCode, 200);
      }
    });

    it('sends through a given dispatcher and leaves it open on close', async () => {
      const agent = new Agent({ connect: { ca: tls.cert } });
      try {
        const c = client({ baseUrl: secure.url, dispatcher: agent });
        assert.equal((await c.request({ path: '/api/v2/x' })).statusCode, 200);
        await c.close();
        const res = await request(`${secure.url}/api/v2/x`, { dispatcher: agent });
        await res.body.dump();
        assert.equal(res.statusCode, 401, 'the agent still works');
      } finally {
        await agent.close();
      }
    });
  });
});
