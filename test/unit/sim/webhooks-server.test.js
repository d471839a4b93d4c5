'use strict';
/** sim/webhooks-server: the simulated WebHooks controller over real HTTP on 127.0.0.1, behind the enrollment endpoints' JWT. */
const assert = require('node:assert/strict');
const { request } = require('undici');
const { EnrollmentStore } = require('../../../dist/sim/enroll-server');
const { startSampleServer } = require('../../../dist/sim/sample-server');
const { WebHookStore, EMPTY_GUID } = require('../../../dist/sim/webhooks-server');

describe('sim/webhooks-server', () => {
  let server;
  let enrollments;
  let store;
  let changes;

  before(async () => {
    enrollments = new EnrollmentStore();
    store = new WebHookStore({ token: () => enrollments.token });
    store.on('change', (c) => changes.push(c));
    server = await startSampleServer({ port: 0, basePath: '/eventsbridge', enrollments, webhooks: store });
  });
  beforeEach(() => {
    store.clear();
    changes = [];
  });
  after(() => server.close());

  async function call(method, path, body, token = enrollments.token) {
    const headers = token ? { authorization: `Bearer ${token}` } : {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await request(`${server.url}/api/v1/webhooks${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, type: res.headers['content-type'], body: text ? JSON.parse(text) : undefined };
  }

  async function newId() {
    const res = await call('GET', '/new');
    assert.equal(res.status, 200);
    return res.body.hookId;
  }

  const hook = (hookId, extra = {}) => ({ hookId, name: 'gate', url: 'https://127.0.0.1:9/hook', webHookLpr: true, ...extra });

  it('answers 401 without the JWT, or with another one, on every operation', async () => {
    const id = await newId();
    for (const [method, path, body] of [
      ['GET', ''],
      ['GET', '/new'],
      ['PUT', '', hook(id)],
      ['GET', `/${id}`],
      ['DELETE', `/${id}`],
    ]) {
      assert.equal((await call(method, path, body, null)).status, 401, `${method} ${path} without a JWT`);
      assert.equal((await call(method, path, body, 'a.b.c')).status, 401, `${method} ${path} with a foreign JWT`);
    }
    assert.equal(store.list().length, 0);
  });

  it('new hands out a fresh GUID each time', async () => {
    const [a, b] = [await newId(), await newId()];
    assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.notEqual(a, b);
    assert.notEqual(a, EMPTY_GUID);
  });

  it('PUT creates, GET one and all show it, a second PUT updates the same WebHook, DELETE removes it', async () => {
    const id = await newId();
    const created = await call('PUT', '', hook(id, { basicUsername: 'u', basicPassword: 'p', eventFilter: { camera: 'gate' } }));
    assert.equal(created.status, 200);
    assert.equal(created.body.hookId, id);
    assert.equal(created.body.resilient, false, 'resilient defaults to false');
    assert.equal(created.body.allowSelfSigned, false);
    assert.deepEqual((await call('GET', `/${id}`)).body.eventFilter, { camera: 'gate' });

    const other = await newId();
    await call('PUT', '', hook(other, { webHookLpr: false, webHookFaceRec: true }));
    const updated = await call('PUT', '', hook(id, { name: 'gate 2', resilient: true, webHookFaceRec: true }));
    assert.equal(updated.status, 200);
    assert.equal(updated.body.createdAt, created.body.createdAt, 'the same WebHook, updated');

    const all = await call('GET', '');
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.map((h) => [h.hookId, h.name, h.resilient]),
      [
        [id, 'gate 2', true],
        [other, 'gate', false],
      ],
    );
    assert.deepEqual(
      changes.map((c) => [c.action, c.hook.hookId]),
      [
        ['created', id],
        ['created', other],
        ['updated', id],
      ],
    );

    assert.equal((await call('DELETE', `/${id}`)).status, 200);
    assert.equal((await call('GET', `/${id}`)).status, 404);
    const again = await call('DELETE', `/${id}`);
    assert.equal(again.status, 404);
    assert.match(again.type, /problem\+json/);
    assert.deepEqual(
      store.list().map((h) => h.hookId),
      [other],
    );
    assert.equal(changes.at(-1).action, 'deleted');
  });

  it('GET of an unknown WebHook is 404; a malformed id is 400', async () => {
    const res = await call('GET', `/${await newId()}`);
    assert.equal(res.status, 404);
    assert.match(res.body.reason, /no WebHook/);
    assert.equal((await call('GET', '/not-a-guid')).status, 400);
  });

  it('PUT refuses with 400 and a reason: the empty GUID, no or a bad url, no kind chosen, not JSON', async () => {
    const id = await newId();
    const cases = [
      [hook(EMPTY_GUID), /empty GUID/],
      [hook('123'), /hookId: a GUID/],
      [{ hookId: id, webHookLpr: true }, /url/],
      [hook(id, { url: 'ftp://example.com/x' }), /url: an absolute http/],
      [hook(id, { url: 'https://u:p@example.com/x' }), /without credentials/],
      [hook(id, { webHookLpr: false }), /no kind chosen/],
      [hook(id, { headerValue: 'v' }), /headerKey/],
      [hook(id, { resilient: 'yes' }), /resilient/],
      ['{not json', /not JSON/],
    ];
    for (const [body, reason] of cases) {
      const res = await call('PUT', '', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.type, /problem\+json/);
      assert.match(res.body.reason, reason);
    }
    assert.equal(store.list().length, 0, 'nothing refused was kept');
  });

  it('wrong methods are 405 with Allow; the JWT rotates with the enrollment store', async () => {
    const res = await request(`${server.url}/api/v1/webhooks`, { method: 'DELETE', headers: { authorization: `Bearer ${enrollments.token}` } });
    await res.body.dump();
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'GET, PUT');
    const old = enrollments.token;
    enrollments.rotateToken();
    assert.equal((await call('GET', '', undefined, old)).status, 401);
    assert.equal((await call('GET', '')).status, 200);
  });

  it('counts the requests and keeps the latest with their answers', async () => {
    const before = store.requestCount;
    await call('GET', '');
    await call('GET', '/new', undefined, null);
    assert.equal(store.requestCount, before + 2);
    assert.deepEqual(
      store.requests.slice(-2).map((r) => [r.method, r.path, r.status]),
      [
        ['GET', '/api/v1/webhooks', 200],
        ['GET', '/api/v1/webhooks/new', 401],
      ],
    );
  });
});
