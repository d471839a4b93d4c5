'use strict';
/**
 * detection-filter inside the Node-RED runtime (node-red-node-test-helper).
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const {
  ROOT,
  getHelper,
  translatedModule,
  collect,
  until,
  completeProbe,
  trackFinished,
  loadWithHttp,
  closeServers,
  postJson,
  nodeModule,
} = require('../support');
const { FakeClock } = require('../support/fake-clock');
const ev = require('../fixtures/events');

const { buildSampleEvent } = require(path.join(ROOT, 'dist', 'lib'));
const { plateListCompilations } = require(path.join(ROOT, 'dist', 'lib', 'plates'));

const TYPE = 'detection-filter';
const helper = getHelper();
const NOW = new Date('2026-03-01T12:00:00Z');

/** The built-in sample of `kind` ('face' or 'lpr'), changed by `edit`. */
function event(kind, edit = () => {}) {
  const e = buildSampleEvent(kind, { now: NOW });
  edit(e);
  return e;
}

/** Events the rules are tried on, by name. The samples: a face (John Michael
 *  Doe, VIP and Advantage Player, Entrance Cam 3, confidence 0.93, externalId
 *  12345) and a plate (XYZ987, VIP and Staff Parking, Gate 2 LPR, externalId 98765). */
const EVENTS = {
  face: () => event('face'),
  plate: () => event('lpr'),
  'plate, VIP expired': () =>
    event('lpr', (e) => {
      e.payload.lprPlateInfo.tags[0].expires = '2026-02-01T00:00:00Z';
    }),
  'plate at another camera': () =>
    event('lpr', (e) => {
      e.payload.detectionInfo.detectorName = 'Gate 1 LPR';
    }),
  'plate read with dash and space': () =>
    event('lpr', (e) => {
      e.payload.lprPlateInfo.plate = 'xyz-9 87';
    }),
  'plate, similar1Plate only': () =>
    event('lpr', (e) => {
      e.payload.lprPlateInfo.plate = 'XYZ981';
      e.payload.lprPlateInfo.similar1Plate = 'XYZ 987';
    }),
  'face, optional fields missing': () =>
    event('face', (e) => {
      delete e.externalId;
      delete e.payload.personInfo.tags;
      delete e.payload.personInfo.firstName;
      delete e.payload.personInfo.middleName;
      delete e.payload.personInfo.lastName;
      delete e.payload.detectionInfo.confidence;
    }),
  'plate, optional fields missing': () =>
    event('lpr', (e) => {
      delete e.externalId;
      delete e.payload.lprPlateInfo.tags;
      delete e.payload.lprPlateInfo.similar1Plate;
    }),
  'face with server context': () =>
    event('face', (e) => {
      e.serverContext = { zone: 'North ', floor: 2 };
    }),
};

/** Each rule and the events it passes (every other event of EVENTS must not pass). */
const RULES = [
  { rule: { t: 'kind', v: 'face' }, passes: ['face', 'face, optional fields missing', 'face with server context'] },
  {
    rule: { t: 'kind', v: 'lpr' },
    passes: [
      'plate',
      'plate, VIP expired',
      'plate at another camera',
      'plate read with dash and space',
      'plate, similar1Plate only',
      'plate, optional fields missing',
    ],
  },
  {
    rule: { t: 'tag', v: 'vip', vt: 'list' },
    passes: ['face', 'plate', 'plate at another camera', 'plate read with dash and space', 'plate, similar1Plate only', 'face with server context'],
  },
  {
    rule: { t: 'tag', v: 'Banned, Staff Parking' },
    passes: ['plate', 'plate, VIP expired', 'plate at another camera', 'plate read with dash and space', 'plate, similar1Plate only'],
  },
  {
    rule: { t: 'camera', v: ' gate 2 lpr ' },
    passes: ['plate', 'plate, VIP expired', 'plate read with dash and space', 'plate, similar1Plate only', 'plate, optional fields missing'],
  },
  {
    rule: { t: 'camera-match', v: 'Gate ? LPR' },
    passes: [
      'plate',
      'plate, VIP expired',
      'plate at another camera',
      'plate read with dash and space',
      'plate, similar1Plate only',
      'plate, optional fields missing',
    ],
  },
  { rule: { t: 'camera-match', v: 'entrance*' }, passes: ['face', 'face, optional fields missing', 'face with server context'] },
  { rule: { t: 'site', v: 'eConnect Site 1 FR' }, passes: ['face', 'face, optional fields missing', 'face with server context'] },
  {
    rule: { t: 'plate', v: 'xyz-987' },
    passes: [
      'plate',
      'plate, VIP expired',
      'plate at another camera',
      'plate read with dash and space',
      'plate, similar1Plate only',
      'plate, optional fields missing',
    ],
  },
  { rule: { t: 'plate', v: 'XYZ981' }, passes: ['plate, similar1Plate only'] },
  {
    rule: { t: 'enrolled' },
    passes: Object.keys(EVENTS).filter((n) => !n.includes('optional fields missing')),
  },
  { rule: { t: 'name', v: 'michael doe' }, passes: ['face', 'face with server context'] },
  { rule: { t: 'confidence', v: '0.9' }, passes: ['face', 'face with server context'] },
  { rule: { t: 'confidence', v: '0.95' }, passes: [] },
  { rule: { t: 'context', k: 'zone', v: 'north' }, passes: ['face with server context'] },
  { rule: { t: 'context', k: 'floor', v: '2' }, passes: ['face with server context'] },
];

function filterNode(id, config = {}) {
  return {
    id,
    type: TYPE,
    z: 'f1',
    name: '',
    property: 'payload',
    propertyType: 'msg',
    combine: 'all',
    noMatchOutput: true,
    outputs: 2,
    rules: [],
    wires: [[`${id}-match`], [`${id}-other`]],
    ...config,
  };
}

/** A flow with the filter `flt` (and its two helper nodes) configured by `config`. */
function flow(config = {}, extra = []) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    filterNode('flt', config),
    { id: 'flt-match', type: 'helper', z: 'f1' },
    { id: 'flt-other', type: 'helper', z: 'f1' },
    ...extra,
  ];
}

/** Every message each output of filter `id` gets. */
function record(id = 'flt') {
  const got = { match: [], other: [] };
  for (const out of Object.keys(got)) helper.getNode(`${id}-${out}`).on('input', (msg) => got[out].push(msg));
  return got;
}

/** The last status the node showed (the helper spies on every node's status: keep the node's own). */
const lastStatus = (node) => {
  const calls = node.status.getCalls().filter((call) => call.thisValue === node);
  return calls.length ? calls[calls.length - 1].args[0] : undefined;
};

/** The flt node's own calls of `method` (the helper spies on every node). */
const ownCalls = (node, method) => node[method].getCalls().filter((call) => call.thisValue === node);

describe('detection-filter node', function () {
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
  });

  it('tries every rule on face and plate events: only the events it should pass come out of output 1', async () => {
    const nodes = RULES.flatMap(({ rule }, i) => [
      filterNode(`r${i}`, { rules: [rule] }),
      { id: `r${i}-match`, type: 'helper', z: 'f1' },
      { id: `r${i}-other`, type: 'helper', z: 'f1' },
    ]);
    await helper.load(translatedModule(TYPE), [{ id: 'f1', type: 'tab', label: 'test' }, ...nodes]);
    const names = Object.keys(EVENTS);
    const results = RULES.map((_, i) => {
      const got = record(`r${i}`);
      const node = helper.getNode(`r${i}`);
      for (const name of names) node.receive({ payload: EVENTS[name](), topic: name });
      return got;
    });
    await until(() => results.every((got) => got.match.length + got.other.length === names.length), 5000, 'every event through every rule');
    RULES.forEach(({ rule, passes }, i) => {
      assert.deepEqual(
        results[i].match.map((m) => m.topic),
        names.filter((n) => passes.includes(n)),
        `rule ${JSON.stringify(rule)} passes`,
      );
      assert.equal(helper.getNode(`r${i}`).error.callCount, 0);
    });
  });

  it('all: a VIP plate at Gate 2 passes; at another camera, or with the VIP tag expired, it does not', async () => {
    await helper.load(
      translatedModule(TYPE),
      flow({
        rules: [
          { t: 'tag', v: 'VIP, Banned', vt: 'list' },
          { t: 'camera', v: 'Gate 2 LPR', vt: 'list' },
        ],
      }),
    );
    const got = record();
    const flt = helper.getNode('flt');
    const vip = { payload: EVENTS.plate() };
    flt.receive(vip);
    flt.receive({ payload: EVENTS['plate at another camera']() });
    flt.receive({ payload: EVENTS['plate, VIP expired']() });
    await until(() => got.match.length + got.other.length === 3, 3000, 'three messages');
    assert.equal(got.match.length, 1);
    assert.equal(got.match[0], vip, 'the message itself, not a copy');
    assert.equal(got.other.length, 2);
  });

  it('any: one rule holding is enough', async () => {
    await helper.load(
      translatedModule(TYPE),
      flow({
        combine: 'any',
        rules: [
          { t: 'plate', v: 'ABC123' },
          { t: 'name', v: 'Doe' },
        ],
      }),
    );
    const got = record();
    const flt = helper.getNode('flt');
    flt.receive({ payload: EVENTS.face() });
    flt.receive({ payload: EVENTS.plate() });
    await until(() => got.match.length + got.other.length === 2, 3000, 'two messages');
    assert.equal(got.match.length, 1);
    assert.equal(got.match[0].payload.publishType, 'WebHookFaceRecPayload');
  });

  it('with output 2 off: one output, messages that do not match are dropped, finished and counted', async () => {
    await helper.load(
      translatedModule(TYPE),
      flow({ noMatchOutput: false, outputs: 1, wires: [['flt-match']], rules: [{ t: 'kind', v: 'lpr' }] }, completeProbe('flt', 'f1')),
    );
    const flt = helper.getNode('flt');
    const finished = trackFinished(flt);
    const got = record();
    flt.receive({ payload: EVENTS.face() });
    flt.receive({ payload: EVENTS.plate() });
    flt.receive({ payload: 'not an event' });
    await finished();
    await until(() => got.match.length === 1, 3000, 'the plate');
    assert.equal(got.other.length, 0);
    const sends = ownCalls(flt, 'send');
    assert.equal(sends.length, 1, 'one send, for the plate');
    await until(() => (lastStatus(flt) || {}).text === '1 matched · 2 not', 3000, 'status with counts');
  });

  it('a message without a detection event does not match, without an error', async () => {
    await helper.load(translatedModule(TYPE), flow({ rules: [] }, completeProbe('flt', 'f1')));
    const flt = helper.getNode('flt');
    const finished = trackFinished(flt);
    const got = record();
    flt.receive({ payload: { publishType: 'WebHookPosPayload' } });
    flt.receive({ payload: 42 });
    flt.receive({ topic: 'no payload' });
    flt.receive({ payload: EVENTS.face() });
    await finished();
    await until(() => got.other.length === 3 && got.match.length === 1, 3000, 'messages');
    assert.equal(flt.error.callCount, 0);
    assert.equal(flt.warn.callCount, 0);
  });

  it('reads the event from another property', async () => {
    await helper.load(translatedModule(TYPE), flow({ property: 'data.event', rules: [{ t: 'kind', v: 'face' }] }));
    const got = record();
    const flt = helper.getNode('flt');
    flt.receive({ data: { event: EVENTS.face() } });
    flt.receive({ payload: EVENTS.face() });
    await until(() => got.match.length + got.other.length === 2, 3000, 'two messages');
    assert.equal(got.match.length, 1);
    assert.ok(got.match[0].data);
  });

  it('reads a list from msg for each message, as an array or as text', async () => {
    await helper.load(translatedModule(TYPE), flow({ rules: [{ t: 'plate', v: 'watch.plates', vt: 'msg' }] }));
    const got = record();
    const flt = helper.getNode('flt');
    flt.receive({ payload: EVENTS.plate(), watch: { plates: ['AB 1', 'xyz-987'] }, topic: 'array' });
    flt.receive({ payload: EVENTS.plate(), watch: { plates: 'AB1, XYZ 987' }, topic: 'text' });
    flt.receive({ payload: EVENTS.plate(), watch: { plates: ['AB1'] }, topic: 'not on the list' });
    await until(() => got.match.length + got.other.length === 3, 3000, 'three messages');
    assert.deepEqual(
      got.match.map((m) => m.topic),
      ['array', 'text'],
    );
  });

  it('reads lists from flow and global context for each message, and sees them change', async () => {
    await helper.load(
      translatedModule(TYPE),
      flow({
        rules: [
          { t: 'tag', v: 'alertTags', vt: 'flow' },
          { t: 'camera', v: 'cameras', vt: 'global' },
        ],
      }),
    );
    const got = record();
    const flt = helper.getNode('flt');
    const ctx = flt.context();
    ctx.flow.set('alertTags', ['Banned']);
    ctx.global.set('cameras', 'Gate 2 LPR, Gate 1 LPR');
    flt.receive({ payload: EVENTS.plate(), topic: 'first' });
    await until(() => got.other.length === 1, 3000, 'the first message');
    assert.equal(got.match.length, 0, 'no Banned tag on the plate');
    ctx.flow.set('alertTags', 'banned\nvip');
    flt.receive({ payload: EVENTS.plate(), topic: 'second' });
    await until(() => got.match.length === 1, 3000, 'the second message passes with VIP on the list');
    ctx.global.set('cameras', ['Gate 1 LPR']);
    flt.receive({ payload: EVENTS.plate(), topic: 'third' });
    await until(() => got.other.length === 2, 3000, 'the third message: its camera is off the list');
    assert.deepEqual(
      got.match.map((m) => m.topic),
      ['second'],
    );
  });

  it('reads a list from a context store that answers asynchronously (a persistent store)', async () => {
    // A store that answers only through callbacks, later, as a file or Redis store does.
    const data = new Map();
    const later = (fn) => setTimeout(fn, 5);
    const slowStore = () => ({
      open: () => Promise.resolve(),
      close: () => Promise.resolve(),
      get(scope, key, callback) {
        if (typeof callback !== 'function') throw new Error('this store answers through a callback only');
        later(() => callback(null, data.get(`${scope}:${key}`)));
      },
      set(scope, key, value, callback) {
        later(() => {
          data.set(`${scope}:${key}`, value);
          if (callback) callback(null);
        });
      },
      keys: (scope, callback) =>
        later(() =>
          callback(
            null,
            [...data.keys()].filter((k) => k.startsWith(`${scope}:`)),
          ),
        ),
      delete: () => Promise.resolve(),
      clean: () => Promise.resolve(),
    });
    helper.settings({ contextStorage: { slow: { module: slowStore } } });
    try {
      await helper.load(translatedModule(TYPE), flow({ rules: [{ t: 'plate', v: '#:(slow)::watchlist', vt: 'flow' }] }));
      await helper._context.load();
      const got = record();
      const flt = helper.getNode('flt');
      await new Promise((resolve, reject) => flt.context().flow.set('watchlist', ['XYZ-987'], 'slow', (err) => (err ? reject(err) : resolve())));
      assert.equal(data.size, 1, 'the list is in the slow store');
      flt.receive({ payload: EVENTS.plate(), topic: 'on the list' });
      flt.receive({ payload: EVENTS['plate, optional fields missing'](), topic: 'also on the list' });
      await until(() => got.match.length === 2, 3000, 'both plates, once the store has answered');
      await new Promise((resolve) => flt.context().flow.set('watchlist', 'AB1', 'slow', resolve));
      flt.receive({ payload: EVENTS.plate(), topic: 'off the list' });
      await until(() => got.other.length === 1, 3000, 'the plate, now off the list');
      assert.equal(ownCalls(flt, 'warn').length, 0);
      assert.equal(flt.error.callCount, 0);
    } finally {
      helper.settings({});
    }
  });

  it('a list that is missing matches nothing and is reported once, as a warning', async () => {
    await helper.load(translatedModule(TYPE), flow({ rules: [{ t: 'plate', v: 'watchlist', vt: 'flow' }] }, completeProbe('flt', 'f1')));
    const got = record();
    const flt = helper.getNode('flt');
    const finished = trackFinished(flt);
    flt.receive({ payload: EVENTS.plate() });
    flt.receive({ payload: EVENTS.plate() });
    await finished();
    await until(() => got.other.length === 2, 3000, 'two messages that do not match');
    const warnings = ownCalls(flt, 'warn');
    assert.equal(warnings.length, 1, 'one warning');
    assert.match(warnings[0].args[0], /^rule 1: flow\.watchlist does not exist/);
    assert.equal(flt.error.callCount, 0);
    flt.context().flow.set('watchlist', ['XYZ987']);
    flt.receive({ payload: EVENTS.plate() });
    await until(() => got.match.length === 1, 3000, 'matches once the list is set');
  });

  it('reports rules that cannot work: red status, an error at deploy, every message failed with it', async () => {
    await helper.load(
      translatedModule(TYPE),
      flow(
        {
          rules: [
            { t: 'kind', v: 'lpr' },
            { t: 'tag', v: ' ', vt: 'list' },
            { t: 'confidence', v: '85' },
          ],
        },
        [
          { id: 'c1', type: 'catch', z: 'f1', scope: ['flt'], uncaught: false, wires: [['caught']] },
          { id: 'caught', type: 'helper', z: 'f1' },
        ],
      ),
    );
    const flt = helper.getNode('flt');
    await until(() => flt.error.called, 2000, 'an error at deploy');
    const problem = 'detection filter cannot run: rule 2: enter at least one tag; rule 3: enter a confidence from 0 to 1 (0.8 for 80%), not "85"';
    assert.equal(flt.error.firstCall.args[0], problem);
    assert.deepEqual(lastStatus(flt), { fill: 'red', shape: 'ring', text: 'rule 2: enter at least one tag' });
    const caught = collect(helper.getNode('caught'), 2);
    const got = record();
    flt.receive({ payload: EVENTS.plate() });
    flt.receive({ payload: EVENTS.face() });
    const msgs = await caught;
    for (const msg of msgs) {
      assert.equal(msg.error.message.replace(/^Error: /, ''), problem);
      assert.equal(msg.error.source.id, 'flt');
    }
    assert.equal(got.match.length + got.other.length, 0, 'nothing passes');
  });

  it('reports a list property that is not valid', async () => {
    await helper.load(translatedModule(TYPE), flow({ rules: [{ t: 'plate', v: 'watch..list', vt: 'msg' }] }));
    const flt = helper.getNode('flt');
    await until(() => flt.error.called, 2000, 'an error at deploy');
    assert.match(flt.error.firstCall.args[0], /^detection filter cannot use rule 1's list msg\.watch\.\.list: /);
    assert.equal(lastStatus(flt).fill, 'red');
  });

  it('shows counts in its status, and the rules too when the node has a name', async () => {
    await helper.load(translatedModule(TYPE), [
      ...flow({ rules: [{ t: 'kind', v: 'face' }] }),
      filterNode('named', {
        name: 'VIP at the gate',
        rules: [
          { t: 'tag', v: 'VIP' },
          { t: 'camera', v: 'Gate 2 LPR' },
        ],
      }),
      { id: 'named-match', type: 'helper', z: 'f1' },
      { id: 'named-other', type: 'helper', z: 'f1' },
    ]);
    const flt = helper.getNode('flt');
    const named = helper.getNode('named');
    assert.equal(lastStatus(flt).text, '0 matched · 0 not');
    const got = record();
    for (let i = 0; i < 3; i++) flt.receive({ payload: EVENTS.face() });
    for (let i = 0; i < 2; i++) flt.receive({ payload: EVENTS.plate() });
    named.receive({ payload: EVENTS.plate() });
    await until(() => got.match.length === 3 && got.other.length === 2, 3000, 'messages');
    const status = await until(
      () => {
        const s = lastStatus(flt);
        return s && s.text === '3 matched · 2 not' ? s : null;
      },
      3000,
      'status with counts',
    );
    assert.equal(status.fill, 'green');
    await until(() => (lastStatus(named) || {}).text === '1 matched · 0 not (tag VIP · camera Gate 2 LPR)', 3000, 'the named node shows its rules');
  });

  describe('msg.match says why, msg.priority says urgent', () => {
    /** The compiled node with RED._ answering from the German catalogs (the node's and lib's, merged as the build merges them). */
    function germanModule(type) {
      const fs = require('node:fs');
      const read = (file) => JSON.parse(fs.readFileSync(path.join(ROOT, 'locales', 'de', file), 'utf8'));
      const catalog = { ...read(`${type}.json`), ...read('shared.json') };
      const mod = nodeModule(type);
      return (RED) => {
        RED._ = (key, vars = {}) => {
          const text = key.split('.').reduce((at, part) => (at && typeof at === 'object' ? at[part] : undefined), catalog);
          if (typeof text !== 'string') throw new Error(`de lacks ${key}`);
          return text.replace(/__(\w+)__/g, (_, name) => String(vars[name]));
        };
        return mod(RED);
      };
    }
    /** The sample plate tagged partner-Banned too. */
    const bannedPlate = () =>
      event('lpr', (e) => {
        e.payload.lprPlateInfo.tags.push({ tagName: 'partner-Banned', expires: null });
      });
    const rules = [
      { t: 'tag', v: 'Banned', vt: 'list', u: true },
      { t: 'camera', v: 'Gate 2 LPR', vt: 'list' },
      { t: 'kind', v: 'face' },
    ];

    it('any: every rule that held, the line in the runtime language, urgent; a priority the flow set is left', async () => {
      await helper.load(translatedModule(TYPE), flow({ combine: 'any', tagPrefix: 'partner', rules }));
      const flt = helper.getNode('flt');
      const got = record();
      flt.receive({ payload: bannedPlate() });
      flt.receive({ payload: bannedPlate(), priority: 'low' });
      flt.receive({ payload: EVENTS.plate() });
      flt.receive({ payload: EVENTS.face(), match: { earlier: true } });
      await until(() => got.match.length === 4, 3000, 'four messages through');
      const [urgent, low, camera, face] = got.match;
      assert.deepEqual(urgent.match, {
        rules: [
          { rule: 1, type: 'tag', tag: 'partner-Banned', as: 'Banned', urgent: true },
          { rule: 2, type: 'camera', camera: 'Gate 2 LPR' },
        ],
        text: 'tag Banned (sent as partner-Banned) · camera Gate 2 LPR',
        urgent: true,
      });
      assert.equal(urgent.priority, 'urgent');
      assert.equal(low.priority, 'low', 'the priority the flow set');
      assert.equal(low.match.urgent, true, 'still urgent in msg.match');
      assert.deepEqual(camera.match, { rules: [{ rule: 2, type: 'camera', camera: 'Gate 2 LPR' }], text: 'camera Gate 2 LPR' });
      assert.equal('priority' in camera, false, 'no urgent rule held: no priority');
      assert.deepEqual(face.match, { rules: [{ rule: 3, type: 'kind', kind: 'face' }], text: 'face event' }, 'replaces one it had');
    });

    it('in German: the line and the label of an urgent rule; statuses without figures go as keys', async () => {
      await helper.load(germanModule(TYPE), [
        ...flow({ combine: 'all', tagPrefix: 'partner', rules: rules.slice(0, 2) }),
        filterNode('bad', { property: 'pay..load', rules }),
      ]);
      const flt = helper.getNode('flt');
      const got = record();
      flt.receive({ payload: bannedPlate() });
      flt.receive({ payload: EVENTS.face() });
      await until(() => got.match.length === 1 && got.other.length === 1, 3000, 'one through, one not');
      assert.equal(got.match[0].match.text, 'Tag Banned (gesendet als partner-Banned) · Kamera Gate 2 LPR');
      assert.equal(got.other[0].match, undefined, 'no msg.match on output 2');
      assert.equal(got.other[0].priority, undefined);
      assert.equal(lastStatus(helper.getNode('bad')).text, 'detection-filter.status.config');
    });

    it('a named node shows an urgent rule marked in its status; a filter without rules gives no msg.match', async () => {
      await helper.load(translatedModule(TYPE), [
        ...flow({ name: 'Banned', tagPrefix: 'partner', rules: rules.slice(0, 2) }),
        filterNode('none', { rules: [] }),
        { id: 'none-match', type: 'helper', z: 'f1' },
        { id: 'none-other', type: 'helper', z: 'f1' },
      ]);
      const got = record();
      const none = record('none');
      helper.getNode('flt').receive({ payload: bannedPlate() });
      helper.getNode('none').receive({ payload: bannedPlate() });
      await until(() => got.match.length === 1 && none.match.length === 1, 3000, 'both through');
      await until(
        () => (lastStatus(helper.getNode('flt')) || {}).text === '1 matched · 0 not (!tag Banned · camera Gate 2 LPR)',
        3000,
        'the status marks the urgent rule',
      );
      assert.equal(none.match[0].match, undefined);
      assert.equal(none.match[0].priority, undefined);
    });
  });

  describe("the account's tag prefix", () => {
    /** The sample plate tagged `partner-Banned` (as the bridge sends a tag the integrator enrolled as Banned). */
    const bannedPlate = () =>
      event('lpr', (e) => {
        e.payload.lprPlateInfo.tags = [{ tagName: 'partner-Banned', expires: null }];
      });
    const modules = ['events-bridge', TYPE].map(translatedModule);
    const bridgeNode = (fields = {}) => ({ id: 'eb', type: 'events-bridge', name: '', url: 'https://bridge.invalid', timeout: 10, ...fields });

    /** Feeds the Banned plate to filter `id` (rule: tag Banned) and says which output it took. */
    async function route(id) {
      const got = record(id);
      helper.getNode(id).receive({ payload: bannedPlate() });
      await until(() => got.match.length + got.other.length === 1, 3000, `${id}: the plate out of one output`);
      return got.match.length === 1 ? 'match' : 'other';
    }

    it('a filter on Banned passes partner-Banned with the prefix set (in the filter, or on its events bridge), not without', async () => {
      const rules = [{ t: 'tag', v: 'Banned', vt: 'list' }];
      await helper.load(modules, [
        { id: 'f1', type: 'tab', label: 'test' },
        bridgeNode({ tagPrefix: 'partner' }),
        bridgeNode({ id: 'eb-none' }),
        ...[
          ['own', { tagPrefix: 'partner' }],
          ['own-dash', { tagPrefix: 'partner-' }],
          ['bridge', { bridge: 'eb' }],
          ['own-wins', { tagPrefix: 'acme', bridge: 'eb' }],
          ['unset', {}],
          ['saved-before', { tagPrefix: undefined, bridge: undefined }],
          ['bridge-without', { bridge: 'eb-none' }],
          ['other', { tagPrefix: 'acme' }],
        ].flatMap(([id, config]) => [
          filterNode(id, { rules, ...config }),
          { id: `${id}-match`, type: 'helper', z: 'f1' },
          { id: `${id}-other`, type: 'helper', z: 'f1' },
        ]),
      ]);
      assert.equal(await route('own'), 'match', 'prefix typed in the filter');
      assert.equal(await route('own-dash'), 'match', 'typed with its dash');
      assert.equal(await route('bridge'), 'match', "the events bridge's prefix");
      assert.equal(await route('own-wins'), 'other', "the filter's own prefix wins over the bridge's");
      assert.equal(await route('unset'), 'other', 'no prefix: exact names, as before');
      assert.equal(await route('saved-before'), 'other', 'a filter saved before the option');
      assert.equal(await route('bridge-without'), 'other', 'a bridge without a prefix');
      assert.equal(await route('other'), 'other', 'another prefix');
      for (const id of ['own', 'bridge', 'unset']) assert.equal(ownCalls(helper.getNode(id), 'error').length, 0, id);
    });

    it('a tag prefix that is not valid, or a bridge that is not deployed: red status, an error at deploy and for every message', async () => {
      const rules = [{ t: 'tag', v: 'Banned' }];
      await helper.load(modules, [
        { id: 'f1', type: 'tab', label: 'test' },
        bridgeNode({ tagPrefix: 'part ner' }),
        filterNode('bad', { rules, tagPrefix: 'partner*' }),
        filterNode('gone', { rules, bridge: 'no-such-bridge' }),
        filterNode('bad-bridge', { rules, bridge: 'eb' }),
        { id: 'c1', type: 'catch', z: 'f1', scope: ['bad'], uncaught: false, wires: [['caught']] },
        { id: 'caught', type: 'helper', z: 'f1' },
      ]);
      const bad = helper.getNode('bad');
      const gone = helper.getNode('gone');
      const badBridge = helper.getNode('bad-bridge');
      const firstError = (node) => (ownCalls(node, 'error')[0] || { args: [] }).args[0];
      await until(() => firstError(bad) && firstError(gone) && firstError(badBridge), 2000, 'errors at deploy');
      assert.equal(firstError(bad), 'detection filter cannot use the tag prefix "partner*": type letters, digits, - or _, such as partner');
      // a status without figures goes as its catalog key: the editor shows it in its own language
      assert.deepEqual(lastStatus(bad), { fill: 'red', shape: 'ring', text: 'detection-filter.status.tag-prefix' });
      assert.match(firstError(gone), /cannot find the events bridge chosen for its tag prefix/);
      assert.deepEqual(lastStatus(gone), { fill: 'red', shape: 'ring', text: 'detection-filter.status.no-bridge' });
      assert.match(
        firstError(badBridge),
        /^detection filter cannot use the tag prefix of its events bridge: the events bridge setting "Tag prefix" is not valid: the tag prefix is letters/,
      );
      const caught = collect(helper.getNode('caught'), 1);
      bad.receive({ payload: bannedPlate() });
      const [msg] = await caught;
      assert.match(msg.error.message, /cannot use the tag prefix "partner\*"/);
    });
  });

  describe('time windows (events posted to a detection in, over HTTP)', () => {
    afterEach(async () => {
      await closeServers();
      helper.settings({});
    });

    /** A plate detected at `iso` (as the bridge writes dateTimeUtc), in `zone` (undefined: the event gives none). */
    function plateAt(iso, zone, edit = () => {}) {
      const e = ev.fullLpr();
      e.payload.detectionInfo.dateTimeUtc = iso;
      if (zone === undefined) delete e.payload.detectionInfo.timeZone;
      else e.payload.detectionInfo.timeZone = zone;
      edit(e);
      return e;
    }

    /**
     * detection in (on /hooks/time) wired to the filter `flt` configured by `config`; the
     * clock the nodes stamp with held at `now` (ms), so "when it arrived" is known.
     */
    async function receiverAndFilter(config, { now, tabEnv } = {}) {
      const clock = new FakeClock(now === undefined ? Date.parse('2026-03-05T13:00:00Z') : now);
      helper.settings({ detectionBridgeClock: clock });
      const tab = { id: 'f1', type: 'tab', label: 'test', ...(tabEnv ? { env: tabEnv } : {}) };
      const base = await loadWithHttp(['detection-in', TYPE].map(translatedModule), [
        tab,
        { id: 'in1', type: 'detection-in', z: 'f1', path: '/hooks/time', auth: 'none', maxBodyMiB: 16, validation: 'lenient', wires: [['flt'], []] },
        filterNode('flt', config),
        { id: 'flt-match', type: 'helper', z: 'f1' },
        { id: 'flt-other', type: 'helper', z: 'f1' },
      ]);
      const got = record();
      /** Posts `event` and resolves with the output it came out of. */
      async function route(event) {
        const before = got.match.length + got.other.length;
        const matched = got.match.length;
        const answer = await postJson(`${base}/hooks/time`, event);
        assert.equal(answer.status, 200, answer.text);
        await until(() => got.match.length + got.other.length > before, 5000, 'the event out of the filter');
        return got.match.length > matched ? 'match' : 'other';
      }
      return { route, got, clock, flt: helper.getNode('flt') };
    }

    const night = { t: 'time', v: 'Mon-Fri 22:00-06:00', vt: 'windows', k: 'inside' };

    it('a night window passes a night event and not a day one (in the zone chosen in the node)', async () => {
      const { route, flt } = await receiverAndFilter({ rules: [night], timeZone: 'Europe/Berlin' });
      // Wednesday 4 March 2026: 22:30 UTC is 23:30 in Berlin, 11:00 UTC is noon
      assert.equal(await route(plateAt('2026-03-04T22:30:00Z')), 'match', 'Wed 23:30 in Berlin');
      assert.equal(await route(plateAt('2026-03-05T04:59:00Z')), 'match', 'Thu 05:59 in Berlin, the same night');
      assert.equal(await route(plateAt('2026-03-04T11:00:00Z')), 'other', 'Wed 12:00 in Berlin');
      assert.equal(await route(plateAt('2026-03-04T20:30:00Z')), 'other', 'Wed 21:30 in Berlin');
      assert.equal(await route(plateAt('2026-03-07T22:30:00Z')), 'other', 'Saturday night: not a start day');
      assert.equal(ownCalls(flt, 'warn').length, 0);
      assert.equal(ownCalls(flt, 'error').length, 0);
    });

    it('a resent event is judged by when it was detected, not when it arrives', async () => {
      // it arrives on Thursday at 14:00 in Berlin (the nodes' clock); it was detected on Wednesday night
      const { route, clock, flt } = await receiverAndFilter(
        { rules: [night], timeZone: 'Europe/Berlin' },
        { now: Date.parse('2026-03-05T13:00:00Z') },
      );
      const resent = plateAt('2026-03-04T22:30:00.1234567', undefined, (e) => {
        e.payload.resentEvent = true;
      });
      assert.equal(await route(resent), 'match', 'detected at night (a .NET time without a zone is UTC), delivered by day: passes');
      assert.equal(await route(plateAt(new Date(clock.now()).toISOString())), 'other', 'detected now, by day');
      const dayResent = plateAt('2026-03-04T11:00:00Z', undefined, (e) => {
        e.payload.resentEvent = true;
      });
      assert.equal(await route(dayResent), 'other', 'detected by day, resent later');
      assert.equal(ownCalls(flt, 'warn').length, 0);
    });

    it("an event with a zone of its own is judged in it, not in the node's", async () => {
      const { route } = await receiverAndFilter({ rules: [night], timeZone: 'Asia/Tokyo' });
      // Thursday 03:30 UTC: Wednesday 22:30 in New York, Thursday 12:30 in Tokyo
      assert.equal(await route(plateAt('2026-03-05T03:30:00Z', 'America/New_York')), 'match', 'night in New York');
      assert.equal(await route(plateAt('2026-03-05T03:30:00Z')), 'other', "no zone: the node's, midday in Tokyo");
      assert.equal(await route(plateAt('2026-03-05T03:30:00Z', 'Berlin')), 'other', "a zone Intl does not know: the node's");
      assert.equal(await route(plateAt('2026-03-04T14:30:00Z')), 'match', 'no zone: 23:30 in Tokyo');
    });

    it('windows read from flow context change what passes without a redeploy; bad ones are said once', async () => {
      const { route, flt } = await receiverAndFilter({ rules: [{ t: 'time', v: 'alertHours', vt: 'flow', k: 'inside' }], timeZone: 'UTC' });
      const wednesdayNight = () => plateAt('2026-03-04T23:30:00Z');
      assert.equal(await route(wednesdayNight()), 'other', 'not set yet: holds for no event');
      await until(() => ownCalls(flt, 'warn').length === 1, 3000, 'the warning');
      assert.match(ownCalls(flt, 'warn')[0].args[0], /^rule 1: flow\.alertHours does not exist, so the time rule holds for no event/);
      flt.context().flow.set('alertHours', 'Mon-Fri 22:00-06:00');
      assert.equal(await route(wednesdayNight()), 'match');
      flt.context().flow.set('alertHours', [{ days: ['sat', 'sun'] }]);
      assert.equal(await route(wednesdayNight()), 'other', 'moved to the weekend (as a dashboard sets it)');
      flt.context().flow.set('alertHours', [{ days: 'wed', from: '23:00', to: '24:00' }]);
      assert.equal(await route(wednesdayNight()), 'match');
      flt.context().flow.set('alertHours', 'Wed 23:00-25:00');
      assert.equal(await route(wednesdayNight()), 'other', 'windows that do not parse hold for no event');
      assert.equal(await route(wednesdayNight()), 'other');
      const warnings = ownCalls(flt, 'warn').map((c) => c.args[0]);
      assert.equal(warnings.length, 2, `one warning per problem, not per message: ${warnings.join(' | ')}`);
      assert.equal(
        warnings[1],
        'rule 1: flow.alertHours is not time windows ("25:00" is not a time: write hours and minutes from 00:00 to 24:00, such as 22:00), so the time rule holds for no event until it is corrected',
      );
      assert.equal(ownCalls(flt, 'error').length, 0);
    });

    it("windows from the flow's env, read at deploy; a zone or windows that cannot work stop the node with the reason", async () => {
      const { route, flt } = await receiverAndFilter(
        { rules: [{ t: 'time', v: 'NIGHT_HOURS', vt: 'env', k: 'outside' }], timeZone: 'UTC', name: 'Daytime' },
        { tabEnv: [{ name: 'NIGHT_HOURS', value: 'Mon-Fri 22:00-06:00', type: 'str' }] },
      );
      assert.equal(await route(plateAt('2026-03-04T23:30:00Z')), 'other', 'inside the night: not outside');
      assert.equal(await route(plateAt('2026-03-04T12:00:00Z')), 'match', 'outside the night');
      await until(() => (lastStatus(flt) || {}).text === '1 matched · 1 not (outside env.NIGHT_HOURS)', 3000, 'the status with the rule');
      await closeServers();
      await helper.unload();

      await helper.load(translatedModule(TYPE), [
        { id: 'f1', type: 'tab', label: 'test' },
        filterNode('zone', { rules: [night], timeZone: 'Berlin' }),
        filterNode('bad', { rules: [{ t: 'time', v: 'Mon-Fri 22:00' }] }),
        filterNode('env', { rules: [{ t: 'time', v: 'NO_SUCH_WINDOWS', vt: 'env' }] }),
        filterNode('zone-unused', { rules: [{ t: 'kind', v: 'lpr' }], timeZone: 'Berlin' }),
      ]);
      const firstError = (id) => (ownCalls(helper.getNode(id), 'error')[0] || { args: [] }).args[0];
      await until(() => firstError('zone') && firstError('bad') && firstError('env'), 2000, 'errors at deploy');
      assert.equal(firstError('zone'), 'detection filter cannot run: Time zone: "Berlin" is not a time zone: write Europe/Berlin, not Berlin');
      assert.equal(lastStatus(helper.getNode('zone')).fill, 'red');
      assert.equal(
        firstError('bad'),
        'detection filter cannot run: rule 1: "22:00" is not a from-to time: write the start and the end, such as 22:00-06:00',
      );
      assert.match(firstError('env'), /rule 1: the environment variable NO_SUCH_WINDOWS is not set/);
      assert.equal(firstError('zone-unused'), undefined, 'a zone no time rule uses does not stop the node');
    });
  });

  it('an event without a readable detection time is judged when it is handled, with one warning', async () => {
    const clock = new FakeClock(Date.parse('2026-03-04T12:00:00Z'));
    helper.settings({ detectionBridgeClock: clock });
    try {
      await helper.load(translatedModule(TYPE), flow({ rules: [{ t: 'time', v: 'Wed 22:00-23:00' }], timeZone: 'UTC' }));
      const got = record();
      const flt = helper.getNode('flt');
      const timeless = () =>
        event('lpr', (e) => {
          e.payload.detectionInfo.dateTimeUtc = 'yesterday';
          e.payload.detectionInfo.timeZone = 'UTC';
        });
      flt.receive({ payload: timeless(), topic: 'noon' });
      flt.receive({ payload: timeless(), topic: 'noon again' });
      await until(() => got.other.length === 2, 3000, 'two messages at noon');
      await clock.advance(10.5 * 3600_000);
      flt.receive({ payload: timeless(), topic: '22:30' });
      await until(() => got.match.length === 1, 3000, 'the message at 22:30');
      assert.equal(got.match[0].topic, '22:30');
      const warnings = ownCalls(flt, 'warn');
      assert.equal(warnings.length, 1, 'one warning for the node, not one per message');
      assert.match(
        warnings[0].args[0],
        /^an event without a readable detection time \(payload\.detectionInfo\.dateTimeUtc\) is judged by the time rules at the time it reached this node/,
      );
    } finally {
      helper.settings({});
    }
  });

  it('sends a failing JSONata event expression to Catch nodes', async () => {
    await helper.load(
      translatedModule(TYPE),
      flow({ property: '$error("boom")', propertyType: 'jsonata' }, [
        { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
        { id: 'caught', type: 'helper', z: 'f1' },
      ]),
    );
    const got = collect(helper.getNode('caught'), 1);
    helper.getNode('flt').receive({ payload: EVENTS.plate() });
    const [msg] = await got;
    assert.match(msg.error.message, /detection filter could not read jsonata:\$error\("boom"\): boom/);
    assert.equal(msg.error.code, 'PROPERTY_READ');
  });
});

describe('detection-filter: plates as readers get them wrong, over real HTTP (receiver → filter)', function () {
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
  });

  /** A plate event read as `plate` (and `similar1Plate`, when given), tagged with `topic` in its messageId. */
  const plateEvent = (plate, similar1Plate) =>
    event('lpr', (e) => {
      e.payload.lprPlateInfo.plate = plate;
      if (similar1Plate === undefined) delete e.payload.lprPlateInfo.similar1Plate;
      else e.payload.lprPlateInfo.similar1Plate = similar1Plate;
    });

  /**
   * A receiver on /hooks/plates wired to one filter per entry of `filters`
   * ({ id: config }), each with its match and other helpers. Returns the URL
   * to post to and, per filter, the messages each output got.
   */
  async function receiverToFilters(filters, extra = []) {
    const ids = Object.keys(filters);
    const base = await loadWithHttp(
      [nodeModule('detection-in'), translatedModule(TYPE)],
      [
        { id: 'f1', type: 'tab', label: 'test' },
        {
          id: 'in1',
          type: 'detection-in',
          z: 'f1',
          path: '/hooks/plates',
          auth: 'none',
          headerName: '',
          maxBodyMiB: 16,
          validation: 'lenient',
          wires: [ids, []],
        },
        ...ids.flatMap((id) => [
          filterNode(id, filters[id]),
          { id: `${id}-match`, type: 'helper', z: 'f1' },
          { id: `${id}-other`, type: 'helper', z: 'f1' },
        ]),
        ...extra,
      ],
    );
    const got = Object.fromEntries(ids.map((id) => [id, record(id)]));
    return { url: `${base}/hooks/plates`, got };
  }

  /** Posts each event, in order, and waits until every filter has sent each one out of an output. */
  async function post(url, got, events) {
    const before = Object.fromEntries(Object.entries(got).map(([id, g]) => [id, g.match.length + g.other.length]));
    for (const e of events) assert.equal((await postJson(url, e)).status, 200);
    await until(
      () => Object.entries(got).every(([id, g]) => g.match.length + g.other.length === before[id] + events.length),
      10000,
      `${events.length} events through every filter`,
    );
  }

  const PAIRS = [
    ['0', 'O'],
    ['0', 'D'],
    ['0', 'Q'],
    ['1', 'I'],
    ['2', 'Z'],
    ['5', 'S'],
    ['8', 'B'],
    ['6', 'G'],
  ];

  it('one look-alike of each default class, in both directions, passes with msg.match naming entry, read, position and score', async () => {
    // entry K<i><a>7M is read K<i><b>7M; entry J<i><b>7M is read J<i><a>7M
    const cases = PAIRS.flatMap(([a, b], i) => [
      { entry: `K${i}${a}7M`, read: `K${i}${b}7M`, position: 2 + String(i).length, written: a, seen: b },
      { entry: `J${i}${b}7M`, read: `J${i}${a}7M`, position: 2 + String(i).length, written: b, seen: a },
    ]);
    const list = cases.map((c) => c.entry).join(', ');
    const { url, got } = await receiverToFilters({
      one: { rules: [{ t: 'plate', v: list, vt: 'list' }], plateLookalikes: '1' },
      exact: { rules: [{ t: 'plate', v: list, vt: 'list' }], plateLookalikes: '0' },
      'saved-before': { rules: [{ t: 'plate', v: list, vt: 'list' }] },
    });
    await post(
      url,
      got,
      cases.map((c) => plateEvent(c.read)),
    );
    assert.equal(got.one.match.length, cases.length, 'every read passes with one look-alike');
    cases.forEach((c, i) => {
      const msg = got.one.match[i];
      assert.equal(msg.payload.payload.lprPlateInfo.plate, c.read);
      assert.deepEqual(msg.match, {
        rule: 1,
        entry: c.entry,
        read: c.read,
        against: 'plate',
        kind: 'look-alike',
        differences: [{ position: c.position, entry: c.written, read: c.seen, kind: 'look-alike' }],
        score: 0.9,
        rules: [{ rule: 1, type: 'plate', plate: c.read, entry: c.entry, kind: 'look-alike', score: 0.9 }],
        text: `plate ${c.read} for ${c.entry} (score 0.9)`,
      });
    });
    assert.equal(got.exact.match.length, 0, 'look-alikes off: none passes');
    assert.equal(got['saved-before'].match.length, 0, 'a filter saved before the option matches exactly, as it did');
    assert.ok(
      got.exact.other.every((m) => m.match === undefined),
      'no msg.match on messages that did not pass',
    );
  });

  it('two look-alikes only when two are allowed; extra or missing characters only when allowed; an unrelated character never', async () => {
    const rules = [{ t: 'plate', v: '8OB123', vt: 'list' }];
    const { url, got } = await receiverToFilters({
      one: { rules, plateLookalikes: '1', plateExtraMissing: '0' },
      two: { rules, plateLookalikes: '2', plateExtraMissing: '0' },
      extra: { rules, plateLookalikes: '1', plateExtraMissing: '1' },
      extra2: { rules, plateLookalikes: '0', plateExtraMissing: '2' },
    });
    const reads = ['8OB123', '80B123', 'B0B123', '8OB1123', '8OB23', '80B1234', '8OB11223', '8OB127', '8OB1274'];
    await post(
      url,
      got,
      reads.map((r) => plateEvent(r)),
    );
    const passed = (id) => got[id].match.map((m) => m.payload.payload.lprPlateInfo.plate);
    assert.deepEqual(passed('one'), ['8OB123', '80B123']);
    assert.deepEqual(passed('two'), ['8OB123', '80B123', 'B0B123']);
    assert.deepEqual(passed('extra'), ['8OB123', '80B123', '8OB1123', '8OB23', '80B1234']);
    assert.deepEqual(passed('extra2'), ['8OB123', '8OB1123', '8OB23', '8OB11223']);
    const byRead = (id, r) => got[id].match.find((m) => m.match.read === r).match;
    assert.deepEqual(byRead('two', 'B0B123').differences, [
      { position: 1, entry: '8', read: 'B', kind: 'look-alike' },
      { position: 2, entry: 'O', read: '0', kind: 'look-alike' },
    ]);
    assert.equal(byRead('two', 'B0B123').score, 0.8);
    assert.deepEqual(byRead('extra', '8OB23'), {
      rule: 1,
      entry: '8OB123',
      read: '8OB23',
      against: 'plate',
      kind: 'extra-missing',
      differences: [{ position: 4, entry: '1', read: '', kind: 'missing' }],
      score: 0.7,
      rules: [{ rule: 1, type: 'plate', plate: '8OB23', entry: '8OB123', kind: 'extra-missing', score: 0.7 }],
      text: 'plate 8OB23 for 8OB123 (score 0.7)',
    });
    assert.equal(byRead('extra', '80B1234').score, 0.6);
    assert.equal(byRead('extra2', '8OB11223').score, 0.4);
  });

  it('similar1Plate: counted by default, and not when turned off', async () => {
    const rules = [{ t: 'plate', v: '8OB123', vt: 'list' }];
    const { url, got } = await receiverToFilters({
      on: { rules, plateLookalikes: '1' },
      off: { rules, plateLookalikes: '1', plateSimilar: false },
    });
    await post(url, got, [plateEvent('XYZ987', '8OB 123'), plateEvent('XYZ987', '80B123')]);
    assert.deepEqual(
      got.on.match.map((m) => [m.match.against, m.match.kind, m.match.read, m.match.score]),
      [
        ['similar1Plate', 'similar1Plate', '8OB 123', 0.95],
        ['similar1Plate', 'look-alike', '80B123', 0.85],
      ],
    );
    assert.equal(got.off.match.length, 0);
  });

  it('look-alike classes that cannot be used stop the node, saying what is wrong', async () => {
    await helper.load(translatedModule(TYPE), flow({ rules: [{ t: 'plate', v: '8OB123' }], plateLookalikes: '1', plateClasses: '0O O8' }));
    const flt = helper.getNode('flt');
    await until(() => flt.error.called, 2000, 'an error at deploy');
    assert.equal(
      flt.error.firstCall.args[0],
      'detection filter cannot run: look-alike characters: "O" is in two look-alike groups (0O and O8): put it in one',
    );
    assert.equal(lastStatus(flt).fill, 'red');
  });

  it('a 100,000-entry list from flow context is compiled once across many messages, and again when it changes', async function () {
    this.timeout(60000);
    const { url, got } = await receiverToFilters({
      hot: { rules: [{ t: 'plate', v: 'hotlist', vt: 'flow' }], plateLookalikes: '1', plateExtraMissing: '1' },
    });
    const hot = helper.getNode('hot');
    const list = Array.from({ length: 100_000 }, (_, i) => `HL${String(i).padStart(6, '0')}`);
    list[54_321] = '8OB-123';
    hot.context().flow.set('hotlist', list);
    const before = plateListCompilations();
    // a realistic mix: a look-alike, an exact hit, a missing and an extra character, a plate not on the list
    const EXPECTED = {
      '80B123': ['8OB-123', 'look-alike'],
      HL000007: ['HL000007', 'exact'],
      HL00007: ['HL000007', 'extra-missing'], // HL000070, HL100007… too: the first in the list wins
      HL0000077: ['HL000007', 'extra-missing'],
      ZZ9999: undefined,
    };
    const mix = Object.keys(EXPECTED);
    const reads = Array.from({ length: 40 }, (_, i) => mix[i % mix.length]);
    await post(
      url,
      got,
      reads.map((r) => plateEvent(r)),
    );
    assert.equal(plateListCompilations() - before, 1, 'compiled once for 40 messages');
    assert.deepEqual(
      got.hot.match.map((m) => [m.match.read, m.match.entry, m.match.kind]),
      reads.filter((r) => EXPECTED[r]).map((r) => [r, ...EXPECTED[r]]),
    );
    assert.equal(got.hot.other.length, 8, 'the plate not on the list, each time');
    // set anew: compiled again, once, and the new entry is seen
    hot.context().flow.set('hotlist', [...list, 'NEW123']);
    await post(url, got, [plateEvent('NEW123'), plateEvent('NEW1Z3'), plateEvent('80B123')]);
    assert.equal(plateListCompilations() - before, 2, 'compiled again once, for the changed list');
    assert.deepEqual(
      got.hot.match.slice(-3).map((m) => [m.match.entry, m.match.kind]),
      [
        ['NEW123', 'exact'],
        ['NEW123', 'look-alike'],
        ['8OB-123', 'look-alike'],
      ],
    );
    assert.equal(ownCalls(hot, 'warn').length, 0);
  });
});

describe('detection-filter: the preview of a plate entry (admin API)', function () {
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
  });

  it('answers what an entry accepts and refuses with the options given, for a node not deployed', async () => {
    await helper.load(translatedModule(TYPE), [{ id: 'f1', type: 'tab', label: 'test' }]);
    const res = await helper
      .request()
      .get('/detection-bridge/plates/preview')
      .query({ entry: '8ob-123', lookalikes: '1', extraMissing: '0', classes: '0ODQ 1I 2Z 5S 8B 6G', similar1Plate: 'true' })
      .expect(200);
    assert.equal(res.body.entry, '8OB123');
    assert.deepEqual(
      res.body.accepted.map((x) => [x.plate, x.match.kind, x.match.score]),
      [
        ['8OB123', 'exact', 1],
        ['BOB123', 'look-alike', 0.9],
        ['80B123', 'look-alike', 0.9],
        ['8O8123', 'look-alike', 0.9],
        ['8OBI23', 'look-alike', 0.9],
        ['8OB1Z3', 'look-alike', 0.9],
        ['777777', 'similar1Plate', 0.95],
      ],
    );
    assert.deepEqual(
      res.body.refused.map((x) => x.plate),
      ['B0B123', '8OB1123', '8OB23', '8OB127'],
    );
    const extra = await helper
      .request()
      .get('/detection-bridge/plates/preview')
      .query({ entry: '8OB123', lookalikes: '0', extraMissing: '1' })
      .expect(200);
    assert.ok(extra.body.accepted.some((x) => x.plate === '8OB1123' && x.match.kind === 'extra-missing'));
    assert.ok(
      extra.body.refused.some((x) => x.plate === 'BOB123'),
      'a look-alike with none allowed',
    );
  });

  it('says what is wrong with look-alike classes that cannot be used', async () => {
    await helper.load(translatedModule(TYPE), [{ id: 'f1', type: 'tab', label: 'test' }]);
    const res = await helper
      .request()
      .get('/detection-bridge/plates/preview')
      .query({ entry: '8OB123', lookalikes: '1', classes: '0O 1' })
      .expect(200);
    assert.deepEqual(res.body, { problem: 'the look-alike group "1" has one character: a group needs two or more, such as 0O' });
  });
});
