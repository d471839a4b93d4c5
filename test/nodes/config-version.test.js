'use strict';
/**
 * Configuration versions in the Node-RED runtime (issue 14): a flow saved by
 * the release before versions existed (written by hand as its editor saved
 * it: "From msg.kind", "set by msg.method", an empty path or POS instance,
 * and no configVersion) runs as it did, and as the same flow in the new
 * TypedInput shape; a flow of the current version is not migrated again; a
 * flow from a newer release still runs, with a warning. The platform nodes
 * talk to the mock v2 core over HTTP on 127.0.0.1. Also: the editor script
 * the package serves, run as the editor runs it.
 */
const assert = require('node:assert/strict');
const vm = require('node:vm');
const { getHelper, translatedModule, collect, until } = require('../support');
const { startMockCore } = require('../../dist/sim/mock-core');

const helper = getHelper();
const modules = ['detection-sample', 'platform-server', 'platform-push', 'platform-request'].map(translatedModule);
const CREDS = { userName: 'integrator', password: 'pa55word' };
const tx = (i) => ({ transactionId: `tx-${i}`, terminal: 'T1', amount: 10 + i, type: 'SALE' });

/** The nodes as the editor of the release before versions saved them. */
const OLD = {
  sampleFromMsg: {
    type: 'detection-sample',
    name: '',
    kind: 'msg',
    source: 'builtin',
    images: 'pictures',
    baseUrl: '',
    insecure: false,
    timeout: 10,
  },
  sampleLpr: { type: 'detection-sample', name: '', kind: 'lpr', source: 'builtin', images: 'pictures', baseUrl: '', insecure: false, timeout: 10 },
  pushPos1: { type: 'platform-push', name: '', server: 'srv', operation: 'pos', posId: 'pos-1', path: '', batchSize: 1, batchMs: 0, maxRetries: 0 },
  pushPosFromMsg: { type: 'platform-push', name: '', server: 'srv', operation: 'pos', posId: '', path: '', batchSize: 1, batchMs: 0, maxRetries: 0 },
  pushTito: {
    type: 'platform-push',
    name: '',
    server: 'srv',
    operation: 'tito',
    posId: '',
    path: '/api/v2/tito/{siteId}/tickets',
    batchSize: 1,
    batchMs: 0,
    maxRetries: 0,
  },
  requestFromMsg: { type: 'platform-request', name: '', server: 'srv', method: 'msg', path: '', errors: 'catch' },
  requestDelete: { type: 'platform-request', name: '', server: 'srv', method: 'DELETE', path: '/api/v2/things/{id}', errors: 'catch' },
};
/** The same nodes as the editor saves them now. */
const NEW = {
  sampleFromMsg: { ...OLD.sampleFromMsg, kind: 'kind', kindType: 'msg', bridge: '', configVersion: 3 },
  sampleLpr: { ...OLD.sampleLpr, kindType: 'kind', bridge: '', configVersion: 3 },
  pushPos1: { ...OLD.pushPos1, posId: '$exists(posId) ? posId : "pos-1"', posIdType: 'jsonata', pathType: 'str', configVersion: 2 },
  pushPosFromMsg: { ...OLD.pushPosFromMsg, posId: 'posId', posIdType: 'msg', pathType: 'str', configVersion: 2 },
  pushTito: { ...OLD.pushTito, posId: 'posId', posIdType: 'msg', pathType: 'str', configVersion: 2 },
  requestFromMsg: { ...OLD.requestFromMsg, method: 'method', methodType: 'msg', path: 'path', pathType: 'msg', configVersion: 2 },
  requestDelete: { ...OLD.requestDelete, methodType: 'method', pathType: 'str', configVersion: 2 },
};

/** A flow of `nodes` (name → configuration), each wired to a helper `<name>-out`, with a Catch node. */
function flow(core, nodes) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    { id: 'srv', type: 'platform-server', name: '', url: core.url, insecure: false, ca: '', timeout: 10 },
    ...Object.entries(nodes).flatMap(([name, config]) => [
      { ...config, id: name, z: 'f1', wires: [[`${name}-out`]] },
      { id: `${name}-out`, type: 'helper', z: 'f1' },
    ]),
    { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper', z: 'f1' },
  ];
}

/** The first message any of `nodes` (key → helper node) receives, as `{ key: msg }`. */
function nextOf(nodes) {
  return new Promise((resolve, reject) => {
    const listeners = Object.entries(nodes).map(([key, node]) => [node, (msg) => finish({ [key]: msg })]);
    const timer = setTimeout(() => finish(null), 5000);
    function finish(result) {
      clearTimeout(timer);
      for (const [node, listener] of listeners) node.removeListener('input', listener);
      if (result) resolve(result);
      else reject(new Error(`no message reached ${Object.keys(nodes).join(' or ')}`));
    }
    for (const [node, listener] of listeners) node.on('input', listener);
  });
}

describe('configuration versions in the runtime', function () {
  this.timeout(20000);
  let core;

  beforeEach(async () => {
    await helper.startServer();
    core = await startMockCore({ ...CREDS });
  });
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    await core.close();
  });

  /** Loads `nodes`, sends each node its messages, one after another, and tells what came of each: an output or an error. */
  async function run(nodes, inputs) {
    await helper.load(modules, flow(core, nodes), { srv: { ...CREDS } });
    const seen = [];
    for (const [name, msg] of inputs) {
      const requests = core.received.requests.length;
      const outcome = nextOf({ out: helper.getNode(`${name}-out`), error: helper.getNode('caught') });
      helper.getNode(name).receive(structuredClone(msg));
      const { out, error: caught } = await outcome;
      const error = caught && caught.error;
      const call = core.received.requests.slice(requests).find((r) => !r.path.includes('/login'));
      if (error) seen.push(`${name}: ${error.code} ${error.message.replace(/^Error: /, '')}`);
      else if (out.payload && out.payload.publishType) seen.push(`${name}: ${out.kind} sample`);
      else seen.push(`${name}: ${call.method} ${call.path} ${out.statusCode}`);
    }
    await helper.unload();
    return seen;
  }

  const INPUTS = [
    ['sampleFromMsg', { payload: 1, kind: 'lpr' }],
    ['sampleFromMsg', { payload: 2 }],
    ['sampleFromMsg', { payload: 3, kind: 'plate' }],
    ['sampleLpr', { payload: 4, kind: 'face' }],
    ['pushPos1', { payload: tx(1) }],
    ['pushPos1', { payload: tx(2), posId: 'pos-2' }],
    ['pushPosFromMsg', { payload: tx(3), posId: 'pos-3' }],
    ['pushPosFromMsg', { payload: tx(4) }],
    ['pushTito', { payload: tx(5), siteId: 's 9' }],
    ['requestFromMsg', { method: 'post', path: '/api/v2/things/{id}', id: 5, payload: { a: 1 } }],
    ['requestFromMsg', { method: 'GET' }],
    ['requestFromMsg', { path: '/api/v2/portal/installed-plugins' }],
    ['requestDelete', { id: 'x' }],
  ];
  const AS_BEFORE = [
    'sampleFromMsg: lpr sample',
    'sampleFromMsg: face sample',
    'sampleFromMsg: ERR_SAMPLE_KIND msg.kind must be "face" or "lpr" (or not set, for face), not "plate"',
    'sampleLpr: lpr sample',
    'pushPos1: POST /api/v2/pos/plugins/pos-1/events/batch 200',
    'pushPos1: POST /api/v2/pos/plugins/pos-2/events/batch 200',
    'pushPosFromMsg: POST /api/v2/pos/plugins/pos-3/events/batch 200',
    'pushPosFromMsg: ERR_PUSH_NO_POS no POS instance: msg.posId is undefined; it must hold the id of a POS module instance',
    'pushTito: POST /api/v2/tito/s%209/tickets 200',
    'requestFromMsg: POST /api/v2/things/5 200',
    'requestFromMsg: ERR_PLATFORM_PATH no path: msg.path is undefined; it must hold the path as text, such as /api/v2/portal/installed-plugins',
    'requestFromMsg: ERR_PLATFORM_METHOD msg.method is undefined: the method must be GET, POST, PUT, PATCH or DELETE',
    'requestDelete: DELETE /api/v2/things/x 200',
  ];

  it('a flow saved before configuration versions runs as it did, and as the same flow in the new shape', async () => {
    const old = await run(OLD, INPUTS);
    assert.deepEqual(old, AS_BEFORE);
    assert.deepEqual(await run(NEW, INPUTS), old);
  });

  it('a flow of the current version is not migrated again', async () => {
    // the very values a version-1 flow would have migrated: as version 2 they mean what they say
    const current = {
      pushFixed: { ...OLD.pushPos1, posIdType: 'str', pathType: 'str', configVersion: 2 },
      requestPath: {
        ...OLD.requestDelete,
        method: 'GET',
        methodType: 'method',
        path: '/api/v2/portal/installed-plugins',
        pathType: 'str',
        configVersion: 2,
      },
    };
    const seen = await run(current, [
      ['pushFixed', { payload: tx(1), posId: 'pos-2' }],
      ['requestPath', { path: '/api/v2/other' }],
    ]);
    assert.deepEqual(seen, ['pushFixed: POST /api/v2/pos/plugins/pos-1/events/batch 200', 'requestPath: GET /api/v2/portal/installed-plugins 200']);
    // an empty path in the current shape is an empty path, not "read msg.path" (as it is in a version-1 flow)
    await helper.load(modules, flow(core, { requestEmpty: { ...current.requestPath, path: '' } }), { srv: { ...CREDS } });
    const node = helper.getNode('requestEmpty');
    await until(() => node.error.called, 2000, 'the error at deploy');
    assert.equal(node.error.firstCall.args[0], 'no path: enter one in the node, or read it from a message property such as msg.path');
  });

  it('a flow from a newer release of the package still runs, with a warning that says what to do', async () => {
    await helper.load(modules, flow(core, { newer: { ...NEW.sampleLpr, configVersion: 4, somethingNew: { a: 1 } } }), { srv: { ...CREDS } });
    const node = helper.getNode('newer');
    assert.equal(node.warn.callCount, 1);
    assert.equal(
      node.warn.firstCall.args[0],
      'this node was saved by a newer version of node-red-contrib-detection-bridge (configuration version 4; this version knows up to 3). ' +
        'It runs with the settings this version understands: update the package (Menu → Manage palette) to run it as it was set up.',
    );
    const got = collect(helper.getNode('newer-out'), 1);
    node.receive({ payload: 1 });
    assert.equal((await got)[0].kind, 'lpr');
  });

  it('detection-dedupe: a cooldown saved with the old default expression runs as "plate at camera", and as before', async () => {
    const OLD_KEY =
      '($p := payload.payload; ($p.lprPlateInfo.plate ? $p.lprPlateInfo.plate : $p.personInfo.faceId) & " @ " & $p.detectionInfo.detectorName)';
    const saved = { type: 'detection-dedupe', name: '', mode: 'cooldown', key: OLD_KEY, keyType: 'jsonata', missingKey: 'pass' };
    const window = { ttl: 60, ttlUnits: 's', refresh: false, maxKeys: 1000, duplicatesOutput: false, persist: false, store: '', outputs: 1 };
    const { buildSampleEvent } = require('../../dist/lib');
    const { dropWindow } = require('../../dist/lib/dedupe/local-window');
    const read = (plate, camera, n) => {
      const event = buildSampleEvent('lpr', { messageId: `m${n}` });
      event.payload.lprPlateInfo.plate = plate;
      event.payload.detectionInfo.detectorName = camera;
      return { payload: event, n };
    };
    const passedOf = async (config) => {
      await helper.load(
        [translatedModule('detection-dedupe')],
        [
          { id: 'f1', type: 'tab', label: 'test' },
          { ...config, ...window, id: 'dd1', z: 'f1', wires: [['out']] },
          { id: 'out', type: 'helper', z: 'f1' },
        ],
      );
      const passed = [];
      helper.getNode('out').on('input', (m) => passed.push(m.n));
      const node = helper.getNode('dd1');
      for (const [plate, camera, n] of [
        ['PARK1', 'Gate 1', 1],
        ['PARK1', 'Gate 1', 2],
        ['PARK1', 'Gate 2', 3],
        ['VISIT9', 'Gate 1', 4],
        ['VISIT9', 'Gate 1', 5],
        ['LAST', 'Gate 1', 6],
      ])
        node.receive(read(plate, camera, n));
      await until(() => passed.includes(6), 5000, 'the last, new plate');
      await helper.unload();
      dropWindow('dd1');
      return passed;
    };
    const old = await passedOf(saved);
    assert.deepEqual(old, [1, 3, 4, 6]);
    const current = { ...saved, key: 'plateAtCamera', keyType: 'event', property: 'payload', propertyType: 'msg', configVersion: 2 };
    assert.deepEqual(await passedOf(current), old);
    // and the hand-written expression of the same keys is not touched: it still runs as JSONata
    assert.deepEqual(await passedOf({ ...saved, key: `${OLD_KEY}` + ' & ""' }), old);
  });

  it('serves the editor script: the same steps, run on each node the editor adds, also in a locked flow', async () => {
    await helper.load(modules, flow(core, {}), { srv: { ...CREDS } });
    const res = await helper.request().get('/detection-bridge/editor.js').expect(200);
    assert.match(res.headers['content-type'], /^application\/javascript/);
    assert.equal(res.headers['cache-control'], 'no-cache');
    // the editor: a window, RED.events; every node file of the package loads the script
    const handlers = [];
    const context = { window: {}, RED: { events: { on: (event, handler) => handlers.push({ event, handler }) } } };
    vm.runInNewContext(res.text, context);
    vm.runInNewContext(res.text, context);
    assert.deepEqual(
      handlers.map((h) => h.event),
      ['nodes:add'],
      'installed once',
    );
    assert.equal(context.window.DetectionBridgeConfig.currentVersion('platform-request'), 2);

    /** An editor node: its defaults' properties, behind a proxy that refuses changes as a locked flow's does. */
    const editorNode = (config) => {
      const node = { ...config, _def: { defaults: Object.fromEntries(Object.keys(NEW[config.name]).map((k) => [k, {}])) } };
      const proxy = new Proxy(node, {
        get: (target, prop) => (prop === '__node__' ? target : target[prop]),
        set: () => {
          throw new Error('locked');
        },
      });
      return { node, proxy };
    };
    const propsOf = ({ _def, ...props }) => props;
    const add = handlers[0].handler;
    for (const name of ['sampleFromMsg', 'pushPos1', 'requestFromMsg']) {
      const { node, proxy } = editorNode({ ...OLD[name], name });
      add(proxy);
      assert.deepEqual(propsOf(node), { ...NEW[name], name }, `${name}: migrated in the editor as in the runtime`);
    }
    const current = editorNode({ ...NEW.requestDelete, name: 'requestDelete' });
    add(current.proxy);
    assert.deepEqual(propsOf(current.node), { ...NEW.requestDelete, name: 'requestDelete' }, 'a current node is left alone');
    add({ type: 'inject', _def: { defaults: { x: {} } } }); // not of the package: nothing to do, nothing thrown
  });
});
