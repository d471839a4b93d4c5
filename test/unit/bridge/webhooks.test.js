'use strict';
/**
 * WebHook registration (lib/bridge/webhooks.ts) against a real HTTP server on
 * 127.0.0.1: what is sent (method, path, JWT, body), what is read back, and
 * each failure a user meets. Runs against dist/.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { ROOT } = require('../../support');

const { EventsBridgeClient, WebhookClient } = require(path.join(ROOT, 'dist', 'lib', 'bridge'));

const ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const TOKEN = 'eyJ.test.jwt';
const spec = {
  hookId: ID,
  name: 'Node-RED',
  address: 'https://nr.example:1880/detections',
  allowSelfSigned: true,
  resilient: true,
  face: true,
  plate: true,
};

/** A bridge answering by `routes[method + ' ' + url]` → [status, value, contentType], 404 for the rest. */
async function fakeBridge(routes) {
  const seen = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: body ? JSON.parse(body) : undefined });
      const [status, value, type = 'application/json'] = routes[`${req.method} ${req.url}`] ?? [404, { title: 'Not Found' }];
      res.writeHead(status, { 'content-type': type });
      res.end(value === undefined ? '' : typeof value === 'string' && type !== 'application/json' ? value : JSON.stringify(value));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    seen,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('bridge/webhooks: WebHook registration over real HTTP', function () {
  this.timeout(20000);
  let bridge;
  let client;
  const open = async (routes, { base = '', token = TOKEN, api } = {}) => {
    bridge = await fakeBridge(routes);
    client = new EventsBridgeClient({ baseUrl: `${bridge.url}${base}`, token });
    return new WebhookClient(client, api);
  };
  afterEach(async () => {
    await client?.close();
    await bridge?.close();
    client = bridge = undefined;
  });

  it('newHookId: a bare GUID, a JSON string or an object; GET on the default path with the JWT', async () => {
    for (const [value, type] of [
      [ID.toUpperCase(), 'text/plain'],
      [ID, 'application/json'],
      [{ hookId: `{${ID}}`, other: 1 }, 'application/json'],
    ]) {
      const hooks = await open({ 'GET /api/v1/webhooks/new': [200, value, type] });
      assert.equal(await hooks.newHookId(), ID, JSON.stringify(value));
      assert.equal(bridge.seen[0].method, 'GET');
      assert.equal(bridge.seen[0].headers.authorization, `Bearer ${TOKEN}`);
      await client.close();
      await bridge.close();
    }
  });

  it('newHookId: the empty GUID or no GUID is an answer error quoting the answer', async () => {
    const hooks = await open({ 'GET /api/v1/webhooks/new': [200, { hookId: '00000000-0000-0000-0000-000000000000' }] });
    await assert.rejects(hooks.newHookId(), (err) => {
      assert.equal(err.code, 'ERR_ENROLL_ANSWER');
      assert.equal(err.params.detail.key, 'webhook.answer.new-id');
      assert.match(err.message, /^GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/webhooks\/new answered 200, but/);
      return true;
    });
  });

  it('putWebhook: PUT on the controller with the body; custom paths under a base path, custom names', async () => {
    const hooks = await open(
      { 'PUT /eventsbridge/hooks': [200, { ok: true }] },
      { base: '/eventsbridge', api: { paths: { controller: '/hooks' }, names: { address: 'webHookUrl' } } },
    );
    const answer = await hooks.putWebhook({ ...spec, hookId: ID.toUpperCase(), header: { key: 'Authorization', value: 'Bearer r' } });
    assert.equal(answer.hookId, ID);
    assert.equal(answer.statusCode, 200);
    const [req] = bridge.seen;
    assert.equal(`${req.method} ${req.url}`, 'PUT /eventsbridge/hooks');
    assert.equal(req.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(req.headers['content-type'], 'application/json');
    assert.deepEqual(req.body, {
      hookId: ID,
      name: 'Node-RED',
      webHookUrl: 'https://nr.example:1880/detections',
      allowSelfSigned: true,
      headerKey: 'Authorization',
      headerValue: 'Bearer r',
      resilient: true,
      webHookFaceRec: true,
      webHookLpr: true,
    });
  });

  it('putWebhook: a spec that cannot be sent fails before anything is sent', async () => {
    const hooks = await open({});
    await assert.rejects(hooks.putWebhook({ ...spec, address: 'nr.example/detections' }), (err) => {
      assert.equal(err.key, 'webhook.spec.address');
      assert.equal(err.params.option, 'address');
      return true;
    });
    assert.equal(bridge.seen.length, 0);
  });

  it('putWebhook refused: the bridge reason in the error; 401: renew the JWT', async () => {
    let hooks = await open({ 'PUT /api/v1/webhooks': [400, { reason: 'url must be https' }] });
    await assert.rejects(hooks.putWebhook(spec), (err) => {
      assert.equal(err.code, 'ERR_ENROLL_STATUS');
      assert.equal(err.status, 400);
      assert.match(err.message, /PUT http:\/\/127\.0\.0\.1:\d+\/api\/v1\/webhooks answered 400 \(Bad Request\).*url must be https/);
      return true;
    });
    await client.close();
    await bridge.close();
    hooks = await open({ 'PUT /api/v1/webhooks': [401, ''] });
    await assert.rejects(hooks.putWebhook(spec), (err) => {
      assert.equal(err.code, 'ERR_ENROLL_UNAUTHORIZED');
      assert.match(err.message, /401 \(Unauthorized\).*enter a new JWT/);
      return true;
    });
  });

  it('getWebhook: one read back; undefined on 404; a bad hookId is refused before sending', async () => {
    const other = '9b2c1e7a-0000-4000-8000-000000000001';
    const hooks = await open({
      [`GET /api/v1/webhooks/${ID}`]: [200, { hookId: ID, name: 'Node-RED', url: 'https://nr.example/d', webHookLpr: false, owner: 'x' }],
    });
    const hook = await hooks.getWebhook(ID.toUpperCase());
    assert.equal(hook.hookId, ID);
    assert.equal(hook.address, 'https://nr.example/d');
    assert.equal(hook.plate, false);
    assert.equal(hook.face, undefined);
    assert.deepEqual(hook.extra, { owner: 'x' });
    assert.equal(await hooks.getWebhook(other), undefined);
    assert.deepEqual(
      bridge.seen.map((r) => `${r.method} ${r.url}`),
      [`GET /api/v1/webhooks/${ID}`, `GET /api/v1/webhooks/${other}`],
    );
    await assert.rejects(hooks.getWebhook('../new'), { key: 'webhook.spec.hook-id' });
    assert.equal(bridge.seen.length, 2);
  });

  it('listWebhooks: an array or one under items; an item without hookId is an error that hides secrets', async () => {
    let hooks = await open({ 'GET /api/v1/webhooks': [200, [{ hookId: ID, name: 'a' }, { HOOKID: 'a7d1c6b2-2f4e-4a43-9c8a-1b2c3d4e5f60' }]] });
    assert.deepEqual(
      (await hooks.listWebhooks()).map((h) => h.hookId),
      [ID, 'a7d1c6b2-2f4e-4a43-9c8a-1b2c3d4e5f60'],
    );
    await client.close();
    await bridge.close();
    hooks = await open({
      'GET /api/v1/webhooks': [200, { items: [{ hookId: ID }, { name: 'b', basicPassword: 'secret-pw', headerValue: 'Bearer secret' }] }],
    });
    await assert.rejects(hooks.listWebhooks(), (err) => {
      assert.equal(err.code, 'ERR_ENROLL_ANSWER');
      assert.equal(err.params.detail.key, 'webhook.answer.hook-id');
      assert.equal(err.params.detail.params.index, 2);
      assert.doesNotMatch(JSON.stringify(err.params), /secret/);
      return true;
    });
  });

  it('listWebhooks: an answer that is no list', async () => {
    const hooks = await open({ 'GET /api/v1/webhooks': [200, { count: 0 }] });
    await assert.rejects(hooks.listWebhooks(), (err) => err.code === 'ERR_ENROLL_ANSWER' && err.params.detail.key === 'webhook.answer.not-list');
  });

  it('deleteWebhook: DELETE <controller>/<hookId>; 404 is already gone; 500 fails', async () => {
    const gone = 'a7d1c6b2-2f4e-4a43-9c8a-1b2c3d4e5f60';
    const broken = 'b7d1c6b2-2f4e-4a43-9c8a-1b2c3d4e5f60';
    const hooks = await open({
      [`DELETE /api/v1/webhooks/${ID}`]: [204, undefined],
      [`DELETE /api/v1/webhooks/${broken}`]: [500, { message: 'database locked' }],
    });
    assert.equal((await hooks.deleteWebhook(ID)).deleted, true);
    const answer = await hooks.deleteWebhook(gone);
    assert.equal(answer.deleted, false);
    assert.match(answer.url, new RegExp(`/api/v1/webhooks/${gone}$`));
    await assert.rejects(hooks.deleteWebhook(broken), (err) => err.code === 'ERR_ENROLL_STATUS' && /database locked/.test(err.message));
    assert.deepEqual(
      bridge.seen.map((r) => r.method),
      ['DELETE', 'DELETE', 'DELETE'],
    );
  });

  it('unreachable bridge, no JWT, a bad layout: errors before or instead of an answer', async () => {
    await open({});
    const url = bridge.url;
    await client.close();
    await bridge.close();
    client = new EventsBridgeClient({ baseUrl: url, token: TOKEN });
    let hooks = new WebhookClient(client);
    await assert.rejects(hooks.listWebhooks(), (err) => {
      assert.equal(err.code, 'ERR_ENROLL_NETWORK');
      assert.match(err.message, /GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/webhooks failed: connection refused/);
      return true;
    });
    await client.close();
    hooks = await open({}, { token: '' });
    await assert.rejects(hooks.newHookId(), { code: 'ERR_ENROLL_CREDENTIALS' });
    assert.equal(bridge.seen.length, 0);
    assert.throws(
      () => new WebhookClient(client, { names: { name: 'url' } }),
      (err) => {
        assert.equal(err.code, 'ERR_ENROLL_PATH');
        assert.equal(err.params.path, 'names.address');
        return true;
      },
    );
  });
});
