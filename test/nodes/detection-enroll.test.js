'use strict';
/**
 * events-bridge and detection-enroll in the Node-RED runtime against the
 * simulator's enrollment endpoints (sim/enroll-server.ts) on 127.0.0.1:
 * every action for plates and faces, by dialog and by msg.action/msg.kind,
 * the list one message per item (a core join node rebuilds it), paging,
 * 401, 500 with a reason, a bad certificate, a timeout, values refused
 * before sending, and the sync-watch-list example run as imported.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, NODE_RED_DIR, getHelper, translatedModule, collect, until, selfSigned, translate, ownStatus } = require('../support');
const { EnrollmentStore, startSampleServer } = require(path.join(ROOT, 'dist', 'sim'));

const helper = getHelper();
const modules = ['events-bridge', 'detection-enroll'].map(translatedModule);
const coreDir = path.dirname(require.resolve('@node-red/nodes/package.json', { paths: [NODE_RED_DIR] }));
const core = (file) => require(path.join(coreDir, 'core', file));

/** A small real JPEG (SOI, JFIF APP0, EOI). */
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9,
]);

/** The text of the error a Catch node got (Node-RED puts "Error: " before it). */
const errorText = (caught) => caught.error.message.replace(/^Error: /, '');

function flow(url, { bridge = {}, enroll = {}, extra = [] } = {}) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    { id: 'eb', type: 'events-bridge', name: '', url, insecure: false, ca: '', timeout: 10, pageQuery: '', pageSize: 500, ...bridge },
    { id: 'en', type: 'detection-enroll', z: 'f1', name: '', bridge: 'eb', action: 'enroll', kind: 'lpr', wires: [['out']], ...enroll },
    { id: 'out', type: 'helper', z: 'f1' },
    { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper', z: 'f1' },
    ...extra,
  ];
}

describe('detection-enroll against the simulated enrollment endpoints', function () {
  this.timeout(20000);
  let store;
  let server;

  beforeEach(async () => {
    await helper.startServer();
    store = new EnrollmentStore();
  });
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    if (server) await server.close();
    server = undefined;
  });

  /** Starts the simulator (`tls`: HTTPS with this key and certificate) and loads the flow. */
  async function start(options = {}, { tls, token, more = [] } = {}) {
    server = server || (await startSampleServer({ port: 0, enrollments: store, basePath: '/eventsbridge', tls }));
    await helper.load([...modules, ...more], flow(server.url, options), { eb: { token: token === undefined ? store.token : token } });
    return { en: helper.getNode('en'), out: helper.getNode('out'), caught: helper.getNode('caught') };
  }

  /** Sends `msg` to node `id` and resolves with what came out of `probe` (1 message). */
  async function call(id, msg, probe = 'out') {
    const got = collect(helper.getNode(probe), 1);
    helper.getNode(id).receive(msg);
    return (await got)[0];
  }

  describe('plates', () => {
    it('enrolls with the documented body, checks, lists and unenrolls', async () => {
      await start();
      const row = {
        externalId: 'guest-42',
        plate: ' GST042 ',
        monitorReason: 'expected guest',
        tags: 'VIP, Guest',
        additionalFields: { TenantID: 'T-1', Booking: 1001 },
      };
      const enrolled = await call('en', { payload: row });
      assert.deepEqual(enrolled.payload, {}, 'the answer');
      assert.equal(enrolled.statusCode, 200);
      assert.deepEqual([enrolled.externalId, enrolled.action, enrolled.kind], ['guest-42', 'enroll', 'lpr']);
      const kept = store.get('lpr', 'guest-42');
      assert.equal(kept.plate, 'GST042');
      assert.equal(kept.monitorReason, 'expected guest');
      assert.deepEqual(kept.tags, ['VIP', 'Guest']);
      assert.deepEqual(kept.additionalFields, [
        { fieldName: 'TenantID', fieldValue: 'T-1' },
        { fieldName: 'Booking', fieldValue: '1001' },
      ]);
      assert.equal(store.requests.at(-1).path, '/api/v1/lpr/monitor/guest-42');

      await helper.unload();
      await start({ enroll: { action: 'check' } });
      const checked = await call('en', { payload: { externalId: 'guest-42' } });
      assert.equal(checked.enrolled, true);
      assert.deepEqual(checked.payload, { enrolled: true });
      const other = await call('en', { payload: { externalId: 'nobody' } });
      assert.equal(other.enrolled, false);

      await helper.unload();
      await start({ enroll: { action: 'list' } });
      const [item] = await (async () => {
        const got = collect(helper.getNode('out'), 1);
        helper.getNode('en').receive({ payload: 'go', topic: 'list' });
        return got;
      })();
      assert.deepEqual(item.payload, { externalId: 'guest-42', enrolled: true, expected: true });
      assert.equal(item.externalId, 'guest-42');
      assert.equal(item.topic, 'list', 'the other properties of the message are kept');
      assert.deepEqual({ ...item.parts, id: undefined }, { id: undefined, index: 0, type: 'array', count: 1 });

      await helper.unload();
      await start({ enroll: { action: 'unenroll' } });
      const removed = await call('en', { payload: { externalId: 'guest-42' } });
      assert.equal(removed.statusCode, 200);
      assert.equal(store.get('lpr', 'guest-42'), undefined);
    });

    it('takes the action and the kind from the message, and values from other places', async () => {
      const { en } = await start({
        enroll: {
          action: 'action',
          actionType: 'msg',
          kind: 'kind',
          kindType: 'msg',
          externalId: 'id',
          externalIdType: 'msg',
          plate: 'reading.plate',
          additionalFields: '{"Site":"North"}',
          additionalFieldsType: 'json',
        },
      });
      await call('en', { action: 'enroll', kind: 'plate', id: 7, reading: { plate: 'ABC123' } });
      assert.deepEqual(store.get('lpr', '7'), {
        ...store.get('lpr', '7'),
        plate: 'ABC123',
        additionalFields: [{ fieldName: 'Site', fieldValue: 'North' }],
      });
      const checked = await call('en', { action: 'check', kind: 'lpr', id: 7 });
      assert.equal(checked.enrolled, true);
      const before = store.requestCount;
      const caught = collect(helper.getNode('caught'), 3);
      en.receive({ action: 'delete', kind: 'lpr', id: 7 });
      en.receive({ action: 'check', kind: 'car', id: 7 });
      en.receive({ kind: 'lpr', id: 7 });
      const got = await caught;
      // they finish in any order: each is told by its msg.action
      const [badAction, badKind, noAction] = ['delete', 'check', undefined].map((action) => got.find((m) => m.action === action));
      assert.equal(badAction.error.code, 'ERR_ENROLL_ACTION');
      assert.equal(errorText(badAction), 'msg.action must be enroll, unenroll, check or list, not "delete"');
      assert.equal(badKind.error.code, 'ERR_ENROLL_KIND');
      assert.equal(errorText(badKind), 'msg.kind must be lpr (or plate) or face, not "car"');
      assert.equal(errorText(noAction), 'msg.action must be enroll, unenroll, check or list, not undefined');
      assert.equal(store.requestCount, before, 'nothing reached the bridge');
    });

    it('reads the action from another message property, the kind from flow context or the environment', async () => {
      process.env.E2E_ENROLL_KIND = ' Plate ';
      try {
        await start({
          enroll: { action: 'op', actionType: 'msg', kind: 'E2E_ENROLL_KIND', kindType: 'env', externalId: 'id', externalIdType: 'msg' },
        });
        const enrolled = await call('en', { op: 'ENROLL ', id: 'k-1', payload: { plate: 'KND001' } });
        assert.deepEqual([enrolled.action, enrolled.kind, store.get('lpr', 'k-1').plate], ['enroll', 'lpr', 'KND001']);
        const refused = await call('en', { op: 'remove', id: 'k-1' }, 'caught');
        assert.equal(errorText(refused), 'msg.op must be enroll, unenroll, check or list, not "remove"');
      } finally {
        delete process.env.E2E_ENROLL_KIND;
      }
      await helper.unload();
      const { en } = await start({ enroll: { action: 'check', kind: 'site.kind', kindType: 'flow', externalId: 'id', externalIdType: 'msg' } });
      en.context().flow.set('site.kind', 'lpr');
      assert.equal((await call('en', { id: 'k-1' })).enrolled, true);
      en.context().flow.set('site.kind', 'car');
      const refused = await call('en', { id: 'k-1' }, 'caught');
      assert.equal(errorText(refused), 'flow.site.kind must be lpr (or plate) or face, not "car"');
    });

    it('refuses at deploy a property for the action that does not parse, naming it', async () => {
      const { en } = await start({ enroll: { action: 'a..b', actionType: 'msg' } });
      await until(() => en.error.called, 2000, 'the error at deploy');
      assert.match(en.error.firstCall.args[0], /^msg\.a\.\.b cannot be read: /);
    });

    it('refuses missing or wrong values before sending anything, naming every problem', async () => {
      const { en } = await start();
      const before = store.requestCount;
      const caught = collect(helper.getNode('caught'), 3);
      en.receive({ payload: { plate: 'ABC123' } });
      en.receive({ payload: { externalId: 'x', tags: 5, additionalFields: 'TenantID=1' } });
      en.receive({ payload: { externalId: '..', plate: 'A' } });
      const got = await caught;
      // they finish in any order: each is told by its externalId
      const [noId, bad, dots] = [undefined, 'x', '..'].map((id) => got.find((m) => m.payload.externalId === id));
      assert.equal(noId.error.code, 'ERR_ENROLL_INPUT');
      assert.match(noId.error.message, /the externalId is missing \(not set\)/);
      assert.match(bad.error.message, /the plate to enroll is missing \(not set\)/);
      assert.match(bad.error.message, /the tags must be a list of tag names .* got number 5/);
      assert.match(bad.error.message, /the additional fields must be an object .* got "TenantID=1"/);
      assert.match(dots.error.message, /cannot be used: a URL path reads it as a folder/);
      assert.equal(store.requestCount, before, 'nothing reached the bridge');
      assert.deepEqual(bad.payload, { externalId: 'x', tags: 5, additionalFields: 'TenantID=1' }, 'msg.payload is left as it came');
    });
  });

  describe('faces', () => {
    it('enrolls a photo (a Buffer from msg.image) with names, checks, lists and unenrolls', async () => {
      await start({ enroll: { kind: 'face' } });
      const enrolled = await call('en', {
        image: JPEG,
        payload: { externalId: 'person-7', firstName: 'Ann', lastName: 'Lee', tags: ['Banned'], monitorReason: 'incident 12' },
      });
      assert.equal(enrolled.statusCode, 200);
      assert.equal(enrolled.kind, 'face');
      const kept = store.get('face', 'person-7');
      assert.equal(kept.photo, JPEG.toString('base64'), 'the photo, as base64 under faceImage');
      assert.deepEqual([kept.firstName, kept.middleName, kept.lastName, kept.monitorReason], ['Ann', undefined, 'Lee', 'incident 12']);
      assert.deepEqual(kept.tags, ['Banned']);
      assert.equal(store.requests.at(-1).path, '/api/v1/faces/monitor/person-7');

      await helper.unload();
      await start({ enroll: { kind: 'face', action: 'action', actionType: 'msg', photo: 'payload.photo' } });
      // base64 text with a data: prefix is taken too
      await call('en', { action: 'enroll', payload: { externalId: 'person-8', photo: `data:image/jpeg;base64,${JPEG.toString('base64')}` } });
      assert.equal(store.get('face', 'person-8').photo, JPEG.toString('base64'));
      assert.equal((await call('en', { action: 'check', payload: { externalId: 'person-8' } })).enrolled, true);
      const items = collect(helper.getNode('out'), 2);
      helper.getNode('en').receive({ action: 'list' });
      assert.deepEqual(
        (await items).map((m) => m.externalId),
        ['person-7', 'person-8'],
      );
      await call('en', { action: 'unenroll', payload: { externalId: 'person-7' } });
      assert.deepEqual(
        store.list('face').map((i) => i.externalId),
        ['person-8'],
      );
    });

    it('refuses a face without a photo, and tells a bridge that wants another photo property', async () => {
      const { en } = await start({ enroll: { kind: 'face' } });
      const caught = collect(helper.getNode('caught'), 1);
      en.receive({ payload: { externalId: 'p' } });
      assert.match((await caught)[0].error.message, /the photo is missing \(not set\): give a JPEG as a Buffer or as base64 text/);
      await helper.unload();
      await start({ bridge: { photoField: 'photo' }, enroll: { kind: 'face' } });
      const refused = await call('en', { image: JPEG, payload: { externalId: 'p' } }, 'caught');
      assert.equal(refused.statusCode, 500);
      assert.match(refused.reason, /faceImage is required/);
    });
  });

  describe('lists', () => {
    function enrollPlates(n) {
      for (let i = 1; i <= n; i++) store.put({ kind: 'lpr', externalId: `p-${i}`, plate: `P${i}`, tags: [], additionalFields: [] });
    }

    it('pages through a list, one message per item, and a join node rebuilds it', async () => {
      enrollPlates(7);
      const join = {
        id: 'joiner',
        type: 'join',
        z: 'f1',
        name: '',
        mode: 'auto',
        build: 'object',
        property: 'payload',
        propertyType: 'msg',
        key: 'topic',
        joiner: '\\n',
        joinerType: 'str',
        accumulate: false,
        timeout: '',
        count: '',
        reduceRight: false,
        wires: [['joined']],
      };
      await start(
        {
          bridge: { pageQuery: 'page={page}&pageSize={size}', pageSize: 3 },
          enroll: { action: 'list', wires: [['out', 'joiner']] },
          extra: [join, { id: 'joined', type: 'helper', z: 'f1' }],
        },
        { more: [core('sequence/17-split.js')] },
      );
      const items = collect(helper.getNode('out'), 7);
      const whole = collect(helper.getNode('joined'), 1);
      store.requests.length = 0;
      helper.getNode('en').receive({ payload: 'list' });
      const got = await items;
      assert.deepEqual(
        got.map((m) => m.externalId),
        ['p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6', 'p-7'],
      );
      assert.deepEqual(
        got.map((m) => m.parts.index),
        [0, 1, 2, 3, 4, 5, 6],
      );
      assert.equal(new Set(got.map((m) => m.parts.id)).size, 1, 'one sequence');
      assert.deepEqual(
        got.map((m) => m.parts.count),
        [undefined, undefined, undefined, undefined, undefined, 7, 7],
        'the count is known, and given, once the last page came (to the item held back from the page before)',
      );
      assert.deepEqual(
        store.requests.map((r) => r.query),
        [
          { page: '1', pageSize: '3' },
          { page: '2', pageSize: '3' },
          { page: '3', pageSize: '3' },
        ],
        'three pages asked for, the third short',
      );
      const [joined] = await whole;
      assert.deepEqual(
        joined.payload.map((i) => i.externalId),
        ['p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6', 'p-7'],
      );
    });

    it('ends a list whose last page is full with the empty page after it', async () => {
      enrollPlates(6);
      await start({ bridge: { pageQuery: 'skip={offset}&page={page}&pageSize={size}', pageSize: 3 }, enroll: { action: 'list' } });
      const items = collect(helper.getNode('out'), 6);
      helper.getNode('en').receive({});
      const got = await items;
      assert.deepEqual(
        got.map((m) => m.parts.count),
        [undefined, undefined, undefined, undefined, undefined, 6],
      );
      assert.deepEqual(store.requests.at(-1).query, { skip: '6', page: '3', pageSize: '3' });
      await until(() => /6 listed/.test((ownStatus(helper.getNode('en')) || {}).text), 2000, 'the status');
    });

    it('notices a bridge that ignores the paging query, and sends its one answer once', async () => {
      enrollPlates(4);
      await start({ bridge: { pageQuery: 'p={page}&n={size}', pageSize: 4 }, enroll: { action: 'list' } });
      const en = helper.getNode('en');
      const items = collect(helper.getNode('out'), 4);
      en.receive({});
      const got = await items;
      await until(() => en.warn.called, 2000, 'a warning');
      assert.match(en.warn.firstCall.args[0], /does not seem to take the paging query/);
      assert.deepEqual(
        got.map((m) => m.externalId),
        ['p-1', 'p-2', 'p-3', 'p-4'],
      );
      assert.equal(got[3].parts.count, 4);
      assert.equal(store.requests.length, 2, 'the second page was the first again: no third');
    });
  });

  describe('failures reach Catch nodes', () => {
    it('a 401 says the token must be renewed, and the status says so', async () => {
      const { en } = await start({ enroll: { action: 'check' } });
      store.rotateToken();
      const caught = await call('en', { payload: { externalId: 'x' } }, 'caught');
      assert.equal(caught.error.code, 'ERR_ENROLL_UNAUTHORIZED');
      assert.equal(caught.statusCode, 401);
      assert.match(caught.error.message, /answered 401 \(Unauthorized\).*the token must be renewed; enter a new JWT in the events bridge node/);
      assert.ok(!caught.error.message.includes(store.token));
      await until(() => /^token refused: renew it/.test((ownStatus(en) || {}).text), 2000, 'the status');
      assert.equal(ownStatus(en).fill, 'red');
    });

    it('a 500 carries the reason the bridge gave; msg.payload stays the input', async () => {
      await start({ enroll: { action: 'unenroll' } });
      const caught = await call('en', { payload: { externalId: 'ghost' } }, 'caught');
      assert.equal(caught.error.code, 'ERR_ENROLL_STATUS');
      assert.equal(caught.statusCode, 500);
      assert.equal(caught.reason, 'ghost is not enrolled');
      assert.match(
        caught.error.message,
        /DELETE http:\/\/127\.0\.0\.1:\d+\/eventsbridge\/api\/v1\/lpr\/monitor\/ghost answered 500 \(Internal Server Error\): ghost is not enrolled/,
      );
      assert.deepEqual(caught.payload, { externalId: 'ghost' });
      store.failNext(1, { reason: 'the plate database is being rebuilt' });
      const injected = await call('en', { payload: { externalId: 'ghost' } }, 'caught');
      assert.equal(injected.reason, 'the plate database is being rebuilt');
    });

    it('a self-signed certificate is refused unless accepted or given as the CA', async () => {
      const tls = selfSigned();
      await start({ enroll: { action: 'check' } }, { tls });
      const refused = await call('en', { payload: { externalId: 'x' } }, 'caught');
      assert.equal(refused.error.code, 'ERR_ENROLL_CERTIFICATE');
      assert.match(refused.error.message, /the server certificate is not trusted/);
      assert.equal(store.requestCount, 0);
      for (const bridge of [{ insecure: true }, { ca: tls.cert }]) {
        await helper.unload();
        await start({ bridge, enroll: { action: 'check' } }, { tls });
        assert.equal((await call('en', { payload: { externalId: 'x' } })).enrolled, false, JSON.stringify(Object.keys(bridge)));
      }
    });

    it('a bridge that does not answer in time is a timeout', async () => {
      await start({ bridge: { timeout: 0.3 }, enroll: { action: 'check' } });
      store.failNext(1, { stallMs: 5000 });
      const caught = await call('en', { payload: { externalId: 'x' } }, 'caught');
      assert.equal(caught.error.code, 'ERR_ENROLL_TIMEOUT');
      assert.match(caught.error.message, /GET \S+\/lpr\/monitor\/x timed out after 0\.3 s/);
    });

    it('without a token nothing is sent, and the status says why', async () => {
      const { en } = await start({}, { token: '' });
      // without figures: the catalog key, for the editor to show in its language
      await until(() => (ownStatus(en) || {}).text === 'detection-enroll.status.no-token', 2000, 'the status');
      assert.equal(translate(ownStatus(en).text), 'no token');
      const caught = await call('en', { payload: { externalId: 'x', plate: 'A' } }, 'caught');
      assert.equal(caught.error.code, 'ERR_ENROLL_CREDENTIALS');
      assert.match(caught.error.message, /no token \(JWT\) is configured/);
      assert.equal(store.requestCount, 0);
    });

    it('a node without a usable bridge says why at deploy and on every message', async () => {
      await helper.load(modules, flow('ftp://bridge', {}), { eb: { token: 't' } });
      const en = helper.getNode('en');
      await until(() => en.error.called, 2000, 'the error');
      assert.match(en.error.firstCall.args[0], /the events bridge URL "ftp:\/\/bridge" is not valid/);
      await helper.unload();
      await helper.load(modules, flow('https://bridge', { bridge: { lprMonitorPath: '/api/v1/lpr/monitor' } }), { eb: { token: 't' } });
      await until(() => helper.getNode('en').error.called, 2000, 'the error');
      assert.equal(
        helper.getNode('en').error.firstCall.args[0],
        `the events bridge setting "Plate path" is not valid: ${translate('enroll.path.external-id', { path: '/api/v1/lpr/monitor' })}`,
      );
    });
  });

  describe('the sync-watch-list example', () => {
    it('enrolls the rows of the CSV file and unenrolls what is no longer on it', async () => {
      const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'sync-watch-list.json'), 'utf8'));
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'enroll-example-'));
      const csvFile = path.join(tmp, 'watch-list.csv');
      server = await startSampleServer({ port: 0, enrollments: store });
      // On the bridge before the sync: one plate still on the list, one taken off it since.
      store.put({ kind: 'lpr', externalId: 'guest-1001', plate: 'OLD', tags: [], additionalFields: [] });
      store.put({ kind: 'lpr', externalId: 'former-9', plate: 'FRM009', tags: [], additionalFields: [] });
      const bridge = example.find((n) => n.type === 'events-bridge');
      const nodes = example.map((n) => {
        if (n.type === 'events-bridge') return { ...n, url: server.url };
        if (n.type === 'file' || n.type === 'file in') return { ...n, filename: csvFile, z: 'f1' };
        if (n.type === 'debug') return { id: n.id, type: 'helper', z: 'f1', name: n.name, wires: [] };
        return { ...n, z: 'f1' };
      });
      const byName = (name) => nodes.find((n) => n.name === name);
      await helper.load(
        [
          ...modules,
          core('common/20-inject.js'),
          core('common/90-comment.js'),
          core('common/25-catch.js'),
          core('function/10-function.js'),
          core('function/80-template.js'),
          core('parsers/70-CSV.js'),
          core('storage/10-file.js'),
        ],
        [{ id: 'f1', type: 'tab', label: 'example' }, ...nodes],
        { [bridge.id]: { token: store.token } },
      );
      try {
        const written = collect(helper.getNode(byName('watch-list.csv written').id), 1);
        helper.getNode(byName('write a sample watch-list.csv').id).receive({});
        await written;
        const rows = fs.readFileSync(csvFile, 'utf8').trim().split('\n');
        assert.equal(rows[0], 'externalId,plate,monitorReason,tags,TenantID');
        const enrolled = collect(helper.getNode(byName('enrolled').id), rows.length - 1);
        const unenrolled = collect(helper.getNode(byName('unenrolled').id), 1);
        helper.getNode(byName('sync now').id).receive({});
        const done = await enrolled;
        assert.deepEqual(done.map((m) => m.externalId).sort(), ['banned-3', 'guest-1001', 'staff-17']);
        const [gone] = await unenrolled;
        assert.equal(gone.externalId, 'former-9');
        assert.deepEqual(
          store
            .list('lpr')
            .map((i) => i.externalId)
            .sort(),
          ['banned-3', 'guest-1001', 'staff-17'],
        );
        const guest = store.get('lpr', 'guest-1001');
        assert.equal(guest.plate, 'GST1001', 'updated from the file');
        assert.deepEqual(guest.tags, ['VIP', 'Guest']);
        assert.deepEqual(guest.additionalFields, [{ fieldName: 'TenantID', fieldValue: 'T-1' }]);
        for (const n of nodes) {
          const node = helper.getNode(n.id);
          if (node && node.error && n.type !== 'helper')
            assert.equal(node.error.callCount, 0, `${n.type} ${n.name}: ${node.error.firstCall && node.error.firstCall.args[0]}`);
        }
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  });
});
