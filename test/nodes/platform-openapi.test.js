'use strict';
/**
 * platform-server's OpenAPI file and platform-request's check against it, in
 * the Node-RED runtime against the mock v2 core on 127.0.0.1. The documents
 * are written for the tests (test/support/openapi-document.js).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { getHelper, translatedModule, translate, collect, until } = require('../support');
const { startMockCore } = require('../../dist/sim/mock-core');
const { namedDocument } = require('../support/openapi-document');

const helper = getHelper();
const modules = ['platform-server', 'platform-request'].map(translatedModule);
const CREDS = { userName: 'integrator', password: 'pa55word' };
const BATCH = '/api/v2/pos/plugins/{posId}/events/batch';
const tx = (i) => ({ transactionId: `tx-${i}`, terminal: 'T1', amount: 10 + i, type: 'SALE' });

/** Release 11.1 of the test document: a POS transaction must name its currency. */
function release111() {
  const doc = namedDocument('11.1');
  const item = doc.components.schemas.PosTransaction;
  item.required.push('currency');
  item.properties.currency = { type: 'string', pattern: '^[A-Z]{3}$' };
  return doc;
}

function request(id, server, extra = {}) {
  const base = { type: 'platform-request', z: 'f1', server, method: 'POST', methodType: 'method', path: BATCH, pathType: 'str' };
  return { id, ...base, errors: 'catch', configVersion: 2, wires: [[`${id}-out`]], ...extra };
}

describe('platform nodes with an OpenAPI file', function () {
  this.timeout(20000);
  let core;
  let dir;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-nodes-'));
    fs.writeFileSync(path.join(dir, '11.0.json'), JSON.stringify(namedDocument('11.0')));
    fs.writeFileSync(path.join(dir, '11.1.json'), JSON.stringify(release111()));
    fs.writeFileSync(path.join(dir, 'broken.json'), '{"openapi": "3.0.3", "info": ');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    if (core) await core.close();
    core = undefined;
  });

  /** Two servers on one core, each with its own OpenAPI file, and one request node per server. */
  async function start({ a = '11.0.json', b = '11.1.json', reqA = {}, coreOptions = {} } = {}) {
    core = await startMockCore({ ...CREDS, ...coreOptions });
    const file = (name) => (name && !/^https?:/.test(name) ? path.join(dir, name) : name);
    const flow = [
      { id: 'f1', type: 'tab', label: 'test' },
      { id: 'srvA', type: 'platform-server', url: core.url, insecure: false, ca: '', timeout: 10, openapi: file(a) },
      { id: 'srvB', type: 'platform-server', url: core.url, insecure: false, ca: '', timeout: 10, openapi: file(b) },
      request('reqA', 'srvA', reqA),
      request('reqB', 'srvB'),
      { id: 'reqA-out', type: 'helper', z: 'f1' },
      { id: 'reqB-out', type: 'helper', z: 'f1' },
      { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper', z: 'f1' },
    ];
    await helper.load(modules, flow, { srvA: { ...CREDS }, srvB: { ...CREDS } });
    const n = (id) => helper.getNode(id);
    return { reqA: n('reqA'), reqB: n('reqB'), outA: n('reqA-out'), outB: n('reqB-out'), caught: n('caught'), srvA: n('srvA'), srvB: n('srvB') };
  }

  const batchesTo = (posId) => core.received.requests.filter((r) => r.path === `/api/v2/pos/plugins/${posId}/events/batch`);

  it('sends a call that matches its operation', async () => {
    const { reqA, outA } = await start();
    const got = collect(outA, 1);
    reqA.receive({ posId: 'pos-1', payload: [tx(1), tx(2)] });
    const [msg] = await got;
    assert.equal(msg.statusCode, 200);
    assert.deepEqual(msg.payload, { accepted: 2 });
    assert.equal(batchesTo('pos-1').length, 1);
  });

  it('refuses a mismatch with every failing path, and sends nothing', async () => {
    const { reqA, outA, caught } = await start();
    const refused = collect(caught, 1);
    reqA.receive({ posId: 'pos-bad', payload: [tx(1), { transactionId: 'x', terminal: 'T', amount: 'ten', type: 'GIFT' }] });
    const [msg] = await refused;
    assert.equal(msg.error.source.id, 'reqA');
    assert.match(msg.error.message, /pos_eventsBatch/);
    assert.match(msg.error.message, /11\.0/);
    assert.match(msg.error.message, /body\[1\]\.amount/);
    assert.match(msg.error.message, /body\[1\]\.type/);
    // Proof nothing went out for the refused message: a later good call is the only batch to that instance.
    const sent = collect(outA, 1);
    reqA.receive({ posId: 'pos-bad', payload: [tx(3)] });
    await sent;
    assert.deepEqual(
      batchesTo('pos-bad').map((r) => r.body),
      [[tx(3)]],
    );
  });

  it('sends as written when the check is off', async () => {
    const { reqA, outA } = await start({ reqA: { check: false } });
    const got = collect(outA, 1);
    reqA.receive({ posId: 'pos-2', payload: [{ nonsense: true }] });
    assert.equal((await got)[0].statusCode, 200);
    assert.deepEqual(batchesTo('pos-2')[0].body, [{ nonsense: true }]);
  });

  it('checks each server against its own release, side by side', async () => {
    const { reqA, reqB, outA, caught } = await start();
    // Valid in 11.0, missing `currency` in 11.1.
    const okA = collect(outA, 1);
    const refusedB = collect(caught, 1);
    reqA.receive({ posId: 'pos-a', payload: [tx(1)] });
    reqB.receive({ posId: 'pos-b', payload: [tx(1)] });
    await okA;
    const [msg] = await refusedB;
    assert.equal(msg.error.source.id, 'reqB');
    assert.match(msg.error.message, /11\.1/);
    assert.match(msg.error.message, /body\[0\]\.currency/);
    assert.equal(batchesTo('pos-a').length, 1);
  });

  it('serves the compact operation list and the release to the editor', async () => {
    await start();
    const a = await helper.request().get('/platform-server/srvA/operations').expect(200);
    assert.equal(a.body.release, '11.0');
    assert.deepEqual(
      a.body.operations.map((op) => op.id),
      ['auth_login', 'portal_installedPlugins', 'pos_eventsBatch'],
    );
    const b = await helper.request().get('/platform-server/srvB/operations').expect(200);
    assert.equal(b.body.release, '11.1');
  });

  it('fetches the file from the core with the sign-in', async () => {
    const port = await freeCore();
    const { reqA, caught } = await start({ a: `${port.url}/api/v2/openapi/11.1.json`, b: '', coreOptions: port.options });
    const refused = collect(caught, 1);
    reqA.receive({ posId: 'pos-1', payload: [tx(1)] });
    assert.match((await refused)[0].error.message, /body\[0\]\.currency/);
    const fetch = core.received.requests.find((r) => r.path === '/api/v2/openapi/11.1.json');
    assert.match(fetch.headers.authorization, /^Bearer /);
    // a server without a file: the usual case, answered 200 with the reason (the dialog shows it; no error in the browser's console)
    const none = await helper.request().get('/platform-server/srvB/operations').expect(200);
    assert.deepEqual(none.body, { release: null, message: 'this platform server has no OpenAPI file' });
  });

  it('reports a missing or invalid file on the server and keeps sending unchecked', async () => {
    const { reqA, reqB, outA, outB, srvA, srvB } = await start({ a: 'missing.json', b: 'broken.json' });
    await until(() => srvA.getOperations && srvB.getOperations);
    const [opsA, opsB] = await Promise.all([srvA.getOperations(), srvB.getOperations()]);
    assert.ok(opsA instanceof Error && /missing\.json/.test(opsA.message) && /ENOENT/.test(opsA.message), String(opsA));
    assert.ok(opsB instanceof Error && /not JSON/.test(opsB.message), String(opsB));
    const answer = await helper.request().get('/platform-server/srvA/operations').expect(400);
    assert.match(answer.body.message, /missing\.json/);
    // the config node's own status says so (the helper spies on every node's status: keep each node's own calls)
    for (const srv of [srvA, srvB]) {
      const own = srv.status.getCalls().filter((call) => call.thisValue === srv);
      // without figures: the catalog key, for the editor to show in its language
      assert.deepEqual(own[own.length - 1].args[0], { fill: 'red', shape: 'ring', text: 'platform-server.status.openapi-error' });
      assert.equal(translate(own[own.length - 1].args[0].text), 'OpenAPI file not usable');
    }
    const got = [collect(outA, 1), collect(outB, 1)];
    reqA.receive({ posId: 'pos-x', payload: [{ free: 'text' }] });
    reqB.receive({ posId: 'pos-y', payload: [{ free: 'text' }] });
    await Promise.all(got);
    assert.equal(batchesTo('pos-x').length + batchesTo('pos-y').length, 2);
  });
});

describe('platform-request parameters set in the node', function () {
  this.timeout(20000);
  let core;
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    if (core) await core.close();
    core = undefined;
  });

  /** One request node, no OpenAPI file: the parameters work with free text too. */
  async function start(extra) {
    core = await startMockCore(CREDS);
    const flow = [
      { id: 'f1', type: 'tab', label: 'test' },
      { id: 'srv', type: 'platform-server', url: core.url, insecure: false, ca: '', timeout: 10, openapi: '' },
      request('req', 'srv', { method: 'GET', ...extra }),
      { id: 'req-out', type: 'helper', z: 'f1' },
      { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper', z: 'f1' },
    ];
    await helper.load(modules, flow, { srv: { ...CREDS } });
    return { req: helper.getNode('req'), out: helper.getNode('req-out'), caught: helper.getNode('caught') };
  }

  it('fills placeholders from its rows, the others from msg, and sends its query rows under msg.query', async () => {
    const { req, out } = await start({
      path: '/api/v2/{module}/plugins/{plugin_id}/items',
      operationId: 'cameras_instance_items_list',
      params: [
        { name: 'plugin_id', in: 'path', value: 'payload.instance', type: 'msg' },
        { name: 'limit', in: 'query', value: '50', type: 'num' },
        { name: 'search', in: 'query', value: 'lobby', type: 'str' },
        { name: 'unused', in: 'query', value: '', type: 'str' },
      ],
    });
    const got = collect(out, 1);
    req.receive({ module: 'cameras', payload: { instance: 'cam/7' }, query: { search: 'gate', page: '2' } });
    const [msg] = await got;
    assert.equal(msg.statusCode, 200);
    const [sent] = core.received.requests.filter((r) => r.path.endsWith('/items'));
    assert.equal(sent.path, '/api/v2/cameras/plugins/cam%2F7/items');
    // msg.query wins over the node's row of the same name; empty rows are not sent.
    assert.deepEqual(sent.query, { limit: '50', search: 'gate', page: '2' });
  });

  it('reads a row from flow context, and names the row when it cannot be read', async () => {
    const { req, caught } = await start({
      path: '/api/v2/sites/{site_id}',
      params: [{ name: 'site_id', in: 'path', value: '$error("no site")', type: 'jsonata' }],
    });
    const refused = collect(caught, 1);
    req.receive({ site_id: 'from-msg' });
    const [msg] = await refused;
    assert.match(msg.error.message, /J: \$error/);
    assert.match(msg.error.message, /no site/);
    await helper.unload();
    await helper.stopServer();
    await core.close();
    await helper.startServer();
    const next = await start({ path: '/api/v2/sites/{site_id}', params: [{ name: 'site_id', in: 'path', value: 'site', type: 'flow' }] });
    next.req.context().flow.set('site', 'north');
    const got = collect(next.out, 1);
    next.req.receive({ site_id: 'from-msg' });
    await got;
    assert.ok(core.received.requests.some((r) => r.path === '/api/v2/sites/north'));
  });
});

describe('the openapi-operation example', function () {
  this.timeout(20000);
  let core;
  let dir;
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    if (core) await core.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    core = undefined;
    dir = undefined;
  });

  for (const withFile of [false, true]) {
    it(`pushes its batch to the instance its parameter names, ${withFile ? 'checked against the file' : 'without a file'}`, async () => {
      const example = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'openapi-operation.json'), 'utf8'));
      core = await startMockCore(CREDS);
      let openapi = '';
      if (withFile) {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-example-'));
        openapi = path.join(dir, '11.0.json');
        fs.writeFileSync(openapi, JSON.stringify(namedDocument('11.0')));
      }
      const inject = example.find((n) => n.type === 'inject');
      const server = example.find((n) => n.type === 'platform-server');
      assert.equal(server.openapi, '', 'the example works without a file');
      const nodes = example
        .filter((n) => n.type !== 'inject' && n.type !== 'comment')
        .map((n) => {
          if (n.type === 'platform-server') return { ...n, url: core.url, openapi };
          if (n.type === 'debug') return { id: n.id, type: 'helper', z: 'f1', name: n.name };
          return { ...n, z: 'f1' };
        });
      await helper.load(modules, [{ id: 'f1', type: 'tab', label: 'example' }, ...nodes], { [server.id]: { ...CREDS } });
      const accepted = example.find((n) => n.name === 'accepted');
      const got = collect(helper.getNode(accepted.id), 1);
      helper.getNode(inject.wires[0][0]).receive({ payload: JSON.parse(inject.props[0].v) });
      const [msg] = await got;
      assert.deepEqual(msg.payload, { accepted: 2 });
      const index = await helper.getNode(server.id).getOperations();
      assert.equal(withFile ? index.release : index, withFile ? '11.0' : undefined, 'the file was loaded (or none given)');
      assert.deepEqual(
        core.received.batches.map((b) => b.posId),
        ['pos-main-bar'],
      );
    });
  }
});

/** A port for the core chosen before the flow (the server's OpenAPI URL names it). */
async function freeCore() {
  const probe = await startMockCore(CREDS);
  const { port } = probe;
  await probe.close();
  return { url: `http://127.0.0.1:${port}`, options: { port, documents: { '/api/v2/openapi/11.1.json': release111() } } };
}
