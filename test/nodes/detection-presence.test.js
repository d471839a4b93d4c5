'use strict';
/**
 * detection-presence inside the Node-RED runtime (node-red-node-test-helper),
 * with a fake clock given through Node-RED's settings (detectionBridgeClock):
 * events over real HTTP through a receiver, arrivals, departures, still-here
 * and "present now"; a deploy and a restart keep who is present and send a
 * departure that fell due meanwhile once, late; the bound; bad input.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  ROOT,
  NODE_RED_DIR,
  getHelper,
  translatedModule,
  loadWithHttp,
  closeServers,
  postJson,
  collect,
  until,
  completeProbe,
  trackFinished,
  deploy,
} = require('../support');
const { FakeClock } = require('../support/fake-clock');
const ev = require('../fixtures/events');

const helper = getHelper();
const presence = translatedModule('detection-presence');
const detectionIn = translatedModule('detection-in');
const detectionSwitch = translatedModule('detection-switch');
const { dropPresence } = require('../../dist/lib/presence/local-presence');

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T08:00:00.000Z');

/** A plate event seen at `at` (ms) at `camera`. */
function plateEvent(plate, at, camera = 'Gate 1 entry') {
  const e = ev.minimalLpr();
  e.payload.lprPlateInfo.plate = plate;
  e.payload.detectionInfo.detectorName = camera;
  e.payload.detectionInfo.dateTimeUtc = new Date(at).toISOString();
  return e;
}

/** A face event of person `faceId` seen at `at`. */
function faceEvent(faceId, at, camera = 'Lobby') {
  const e = ev.minimalFace();
  e.payload.personInfo.faceId = faceId;
  e.payload.personInfo.firstName = 'Jane';
  e.payload.personInfo.lastName = 'Roe';
  e.payload.detectionInfo.detectorName = camera;
  e.payload.detectionInfo.dateTimeUtc = new Date(at).toISOString();
  return e;
}

const OUTPUTS = ['arrived', 'left', 'still', 'list'];

/** The presence node `pr` (10 minutes away, 1 hour still here) with a helper on each output. */
function flow(config = {}, extra = []) {
  return [
    { id: 'f1', type: 'tab', label: 'presence' },
    {
      id: 'pr',
      type: 'detection-presence',
      z: 'f1',
      name: '',
      away: 10,
      awayUnits: 'm',
      stillHere: 1,
      stillHereUnits: 'h',
      maxKeys: 100,
      x: 300,
      y: 100,
      wires: OUTPUTS.map((o) => [o]),
      ...config,
    },
    ...OUTPUTS.map((id, i) => ({ id, type: 'helper', z: 'f1', x: 500, y: 60 + i * 40 })),
    ...completeProbe('pr', 'f1'),
    ...extra,
  ];
}

describe('detection-presence node', function () {
  this.timeout(20_000);
  let clock;
  let userDir;
  beforeEach(async () => {
    clock = new FakeClock(T0);
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'presence-node-'));
    helper.settings({ detectionBridgeClock: clock, userDir });
    await helper.startServer();
  });
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
    helper.settings({});
    // the test helper stops flows as a deploy does: the table would be kept for the next test's node
    dropPresence('pr');
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  /** What each output sent, from now on. */
  function outputs() {
    const got = {};
    for (const id of OUTPUTS) {
      got[id] = [];
      helper.getNode(id).on('input', (m) => got[id].push(m));
    }
    return got;
  }

  async function start(config, extra) {
    await helper.load([presence], flow(config, extra));
    const node = helper.getNode('pr');
    return { node, finished: trackFinished(node), out: outputs() };
  }

  /** The node's status as last shown. The test helper's spy on `status` is shared by every node (a
   *  receiver's throttled status may come after this one's): its own calls only. */
  const shown = (node) => {
    const own = node.status.getCalls().filter((c) => c.thisValue === node);
    return own.length > 0 ? own[own.length - 1].args[0] : undefined;
  };

  it('over HTTP through a receiver: arrives once per stay (look-alike plates one car), leaves after Away after, lists who is here', async () => {
    const base = await loadWithHttp(
      [detectionIn, presence],
      flow({}, [{ id: 'rx', type: 'detection-in', z: 'f1', path: '/hooks/presence', auth: 'none', x: 100, y: 100, wires: [['pr'], []] }]),
    );
    const node = helper.getNode('pr');
    const out = outputs();
    let handled = 0;
    helper.getNode('pr-finished').on('input', () => handled++);
    const post = async (event, count) => {
      assert.equal((await postJson(`${base}/hooks/presence`, event)).status, 200);
      await until(() => handled >= count, 10_000, `message ${count} handled`);
    };

    await post(plateEvent('8OB123', T0), 1);
    assert.equal(out.arrived.length, 1);
    const [arrived] = out.arrived;
    assert.equal(arrived.payload.publishType, 'WebHookLprPayload', 'the event’s own message goes out');
    assert.deepEqual(arrived.presence, {
      key: '808123',
      kind: 'lpr',
      label: '8OB123',
      state: 'arrived',
      firstSeen: new Date(T0).toISOString(),
      lastSeen: new Date(T0).toISOString(),
      dwellSeconds: 0,
      cameras: ['Gate 1 entry'],
      sightings: 1,
    });

    await clock.advance(2 * MIN);
    await post(plateEvent('BOB123', T0 + 2 * MIN, 'Yard'), 2);
    assert.equal(out.arrived.length, 1, 'the same car read with a look-alike: no second arrival');
    await post(faceEvent('f-77', T0 + 2 * MIN), 3);
    assert.equal(out.arrived.length, 2);
    assert.equal(out.arrived[1].presence.label, 'Jane Roe');

    await clock.advance(8 * MIN);
    node.receive({ topic: 'list' });
    await until(() => out.list.length === 1);
    assert.deepEqual(
      out.list[0].payload.map((r) => [r.key, r.kind, r.firstSeen, r.lastSeen, r.dwellSeconds, r.cameras, r.sightings]),
      [
        ['808123', 'lpr', new Date(T0).toISOString(), new Date(T0 + 2 * MIN).toISOString(), 600, ['Gate 1 entry', 'Yard'], 2],
        ['f-77', 'face', new Date(T0 + 2 * MIN).toISOString(), new Date(T0 + 2 * MIN).toISOString(), 480, ['Lobby'], 1],
      ],
    );
    assert.deepEqual(out.list[0].presence, { state: 'present', count: 2, at: new Date(T0 + 10 * MIN).toISOString() });
    assert.equal(out.left.length, 0);

    await clock.advance(2 * MIN);
    assert.equal(out.left.length, 2, 'both gone 10 minutes after they were last seen');
    const car = out.left.find((m) => m.payload.kind === 'lpr');
    assert.equal(car.topic, 'left');
    assert.deepEqual(car.payload, car.presence);
    assert.deepEqual(
      [car.payload.state, car.payload.reason, car.payload.dwellSeconds, car.payload.sightings, car.payload.late],
      ['left', 'away', 120, 2, undefined],
    );
    assert.equal(car.payload.payload, undefined, 'a message of its own: no event in it');
    await until(
      () => shown(node).text === '0 present · 2 arrived · 2 left',
      10_000,
      () => `the status (shown: ${JSON.stringify(shown(node))})`,
    );
    assert.equal(shown(node).fill, 'green');
  });

  it('still here once per stay; an exit camera ends the stay at once', async () => {
    const { node, finished, out } = await start({ exitCameras: 'Gate 1 exit, Back gate' });
    assert.equal(shown(node).fill, 'grey', 'grey before the first message');
    for (let m = 0; m <= 65; m += 5) {
      node.receive({ payload: plateEvent('PARK1', T0 + m * MIN, 'Yard') });
      await finished();
      await clock.advance(5 * MIN);
    }
    // now T0 + 70 min
    assert.equal(out.arrived.length, 1);
    assert.equal(out.still.length, 1, 'once, at one hour');
    assert.deepEqual(
      [out.still[0].topic, out.still[0].payload.state, out.still[0].payload.dwellSeconds, out.still[0].payload.late],
      ['still-here', 'still-here', 3600, undefined],
    );
    node.receive({ payload: plateEvent('PARK1', T0 + 70 * MIN, 'back gate ') });
    await finished();
    assert.equal(out.left.length, 1);
    assert.deepEqual(
      [out.left[0].payload.reason, out.left[0].payload.sightings, out.left[0].payload.cameras],
      ['exit-camera', 15, ['Yard', 'back gate ']],
    );
    await clock.advance(3 * 60 * MIN);
    assert.equal(out.left.length, 1, 'no second departure');
    assert.equal(out.still.length, 1);
  });

  it('waits for a time further off than Node’s timers reach (24.8 days) in steps: still here after 30 days', async () => {
    const { node, finished, out } = await start({ away: 1000, awayUnits: 'h', stillHere: 720, stillHereUnits: 'h' });
    node.receive({ payload: plateEvent('LONG1', T0) });
    await finished();
    const waits = [];
    const setTimeout = clock.setTimeout.bind(clock);
    clock.setTimeout = (fn, ms) => {
      waits.push(ms);
      return setTimeout(fn, ms);
    };
    await clock.advance(29 * 24 * 60 * MIN);
    assert.deepEqual(out.still, []);
    await clock.advance(24 * 60 * MIN);
    assert.equal(out.still.length, 1);
    assert.equal(out.still[0].payload.dwellSeconds, 30 * 24 * 3600);
    assert.ok(waits.length > 0 && waits.every((ms) => ms <= 24 * 60 * MIN), `no wait past a day: ${waits.join(', ')}`);
  });

  it('a resent event counts by its detection time: one whose key would have left already makes no one arrive', async () => {
    const { node, finished, out } = await start();
    await clock.advance(60 * MIN);
    node.receive({ payload: plateEvent('OLD1', T0) });
    node.receive({ payload: plateEvent('OLD2', T0 + 55 * MIN) });
    await finished();
    assert.deepEqual(
      out.arrived.map((m) => [m.presence.label, m.presence.firstSeen]),
      [['OLD2', new Date(T0 + 55 * MIN).toISOString()]],
    );
    await clock.advance(5 * MIN);
    assert.deepEqual(
      out.left.map((m) => m.payload.label),
      ['OLD2'],
      'leaves at its detection time + Away after',
    );
  });

  function redeploy(config, type = 'full') {
    const before = helper.getNode('pr');
    return deploy(flow(config), type).then(async () => {
      const node = await until(() => helper.getNode('pr') !== before && helper.getNode('pr'), 10_000, 'the redeployed node');
      await until(() => helper.getNode('pr-finished'), 10_000, 'the redeployed flow');
      return { node, finished: trackFinished(node), out: outputs() };
    });
  }

  it('a deploy keeps who is present; a departure that fell due by new settings is sent once, at once, late', async () => {
    let { node, finished, out } = await start();
    node.receive({ payload: plateEvent('A1', T0) });
    node.receive({ payload: plateEvent('B2', T0) });
    await finished();
    assert.equal(out.arrived.length, 2);

    ({ node, finished, out } = await redeploy({ maxKeys: 50 }));
    await until(() => /^2 present/.test(shown(node).text), 10_000, 'the new instance shows who is present');
    await clock.advance(5 * MIN);
    node.receive({ payload: plateEvent('A1', T0 + 5 * MIN) });
    await finished();
    assert.equal(out.arrived.length, 0, 'A1 was here before the deploy: no second arrival');
    await clock.advance(5 * MIN);
    assert.deepEqual(
      out.left.map((m) => m.payload.label),
      ['B2'],
    );
    await clock.advance(5 * MIN);
    assert.deepEqual(
      out.left.map((m) => m.payload.label),
      ['B2', 'A1'],
    );

    // C3 arrives at T0 + 15 min; at T0 + 20 min Away after becomes 1 minute: due at T0 + 16 min, 4 minutes ago
    node.receive({ payload: plateEvent('C3', T0 + 15 * MIN) });
    await finished();
    await clock.advance(5 * MIN);
    ({ node, out } = await redeploy({ away: 1 }, 'nodes'));
    await until(() => out.left.length === 1, 10_000, 'the overdue departure');
    assert.deepEqual(
      [out.left[0].payload.label, out.left[0].payload.late, out.left[0].payload.lastSeen],
      ['C3', true, new Date(T0 + 15 * MIN).toISOString()],
    );
    node.receive({ topic: 'list' });
    await until(() => out.list.length === 1);
    assert.deepEqual(out.list[0].payload, []);
    assert.equal(out.left.length, 1, 'once');
  });

  it('a restart keeps who is present; a departure that fell due while Node-RED was down is sent once, late, and not again at the next restart', async () => {
    let { node, finished, out } = await start();
    node.receive({ payload: plateEvent('GONE1', T0) });
    await finished();
    await clock.advance(58 * MIN);
    assert.equal(out.left.length, 1, 'GONE1 left while running');
    assert.equal(out.left[0].payload.late, undefined, 'on time');
    node.receive({ payload: plateEvent('GONE1', T0 + 58 * MIN) });
    node.receive({ payload: plateEvent('GONE2', T0 + 58 * MIN) });
    await finished();
    await clock.advance(7 * MIN);
    node.receive({ payload: plateEvent('STAY1', T0 + 65 * MIN) });
    await finished();

    // stop: saved on close; a new process keeps nothing in memory
    await helper.unload();
    dropPresence('pr');
    const file = path.join(userDir, 'detection-bridge', 'presence-pr.json');
    assert.deepEqual(
      JSON.parse(fs.readFileSync(file, 'utf8'))
        .entries.map((e) => e.label)
        .sort(),
      ['GONE1', 'GONE2', 'STAY1'],
    );
    // down 9 minutes: GONE1 and GONE2 fell due meanwhile (at 68), STAY1 not yet (75)
    await clock.advance(9 * MIN);
    ({ node, finished, out } = await start());
    node.receive({ payload: plateEvent('STAY1', T0 + 74 * MIN) });
    await finished();
    assert.equal(out.arrived.length, 0, 'STAY1 was here before the restart');
    assert.deepEqual(
      out.left.map((m) => [m.payload.label, m.payload.late, m.payload.reason, m.payload.lastSeen]),
      [
        ['GONE1', true, 'away', new Date(T0 + 58 * MIN).toISOString()],
        ['GONE2', true, 'away', new Date(T0 + 58 * MIN).toISOString()],
      ],
      'each departure that fell due while down, once, late, before the first message',
    );

    // and again: STAY1 falls due (84) while Node-RED is down
    await helper.unload();
    dropPresence('pr');
    await clock.advance(30 * MIN);
    ({ node, out } = await start());
    node.receive({ topic: 'list' });
    await until(() => out.list.length === 1, 10_000, 'the answer');
    assert.deepEqual(
      out.left.map((m) => [m.payload.label, m.payload.late]),
      [['STAY1', true]],
    );
    assert.deepEqual(out.list[0].payload, []);

    await helper.unload();
    dropPresence('pr');
    ({ node, out } = await start());
    node.receive({ topic: 'list' });
    await until(() => out.list.length === 1, 10_000, 'the answer');
    assert.deepEqual(out.left, [], 'not sent again after another restart');
    assert.deepEqual(out.list[0].payload, []);
  });

  it('holds at most Most keys: past it the least recently seen is dropped, said once, counted in the status', async () => {
    const { node, finished, out } = await start({ maxKeys: 3 });
    for (let i = 1; i <= 6; i++) {
      node.receive({ payload: plateEvent(`K${i}`, T0 + i * 1000) });
      await finished();
      await clock.advance(1000);
    }
    assert.equal(out.arrived.length, 6);
    const warnings = node.warn.args.map((a) => String(a[0])).filter((w) => /Most keys/.test(w));
    assert.equal(warnings.length, 1, 'one warning for the episode');
    assert.match(warnings[0], /more than 3 keys present/);
    await until(() => shown(node).text === '3 present · 6 arrived · 0 left · 3 dropped', 10_000, 'the status');
    assert.equal(shown(node).fill, 'yellow');
    node.receive({ topic: 'list' });
    await until(() => out.list.length === 1);
    assert.deepEqual(
      out.list[0].payload.map((r) => r.label),
      ['K4', 'K5', 'K6'],
    );
    await clock.advance(20 * MIN);
    assert.deepEqual(
      out.left.map((m) => m.payload.label),
      ['K4', 'K5', 'K6'],
      'the dropped keys never depart',
    );
  });

  it('bad input: a message that is not an event goes to Catch; an event without the key is ignored, with one warning', async () => {
    const catching = [
      { id: 'c1', type: 'catch', z: 'f1', scope: ['pr'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper', z: 'f1' },
    ];
    const { node, out } = await start({ keyBy: 'plate' }, catching);
    let handled = 0;
    helper.getNode('pr-finished').on('input', () => handled++);
    const caught = collect(helper.getNode('caught'), 2);
    node.receive({ payload: 'hello' });
    node.receive({ payload: { publishType: 'SomethingElse' } });
    const errors = await caught;
    for (const e of errors) {
      assert.equal(e.error.code, 'ERR_PRESENCE_NOT_EVENT');
      assert.match(e.error.message, /msg\.payload is not a detection event/);
    }
    node.receive({ payload: faceEvent('f1', T0) });
    node.receive({ payload: faceEvent('f2', T0) });
    await until(() => handled === 2, 10_000, 'both face events finished');
    assert.deepEqual(out.arrived, []);
    const warnings = node.warn.args.map((a) => String(a[0]));
    assert.deepEqual(warnings, ["events without a key (plate (face events ignored)) are ignored: they are not counted as anyone's presence"]);
  });

  it('with settings that cannot run: every message ends with the error, for Catch nodes', async () => {
    for (const bad of [{ lookalikeClasses: '0O O1' }, { scope: 'redis', redis: '' }, { property: 'payload.(', propertyType: 'jsonata' }]) {
      const catching = [
        { id: 'c1', type: 'catch', z: 'f1', scope: ['pr'], uncaught: false, wires: [['caught']] },
        { id: 'caught', type: 'helper', z: 'f1' },
      ];
      await helper.load([presence], flow(bad, catching));
      const got = collect(helper.getNode('caught'), 1);
      helper.getNode('pr').receive({ payload: plateEvent('A1', T0) });
      const [caught] = await got;
      assert.equal(caught.error.source.id, 'pr', JSON.stringify(bad));
      assert.match(caught.error.message, /look-alike classes are not valid|choose a Redis server|event property is not valid/, JSON.stringify(bad));
      assert.equal(shown(helper.getNode('pr')).fill, 'red');
      await helper.unload();
    }
  });
  it('keyed by face id: look-alike classes are not read, so ones that would not do stop nothing', async () => {
    const { node, out } = await start({ keyBy: 'face', lookalikeClasses: '0O O1' });
    node.receive({ payload: faceEvent('f-9', T0) });
    await until(() => out.arrived.length === 1, 10_000, 'the arrival');
    assert.equal(out.arrived[0].presence.key, 'f-9');
    assert.notEqual(shown(node).fill, 'red');
  });

  it('runs the presence-who-is-here example as imported: arrives, the look-alike read is the same car, leaves at the exit camera', async () => {
    const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'presence-who-is-here.json'), 'utf8'));
    const coreDir = path.dirname(require.resolve('@node-red/nodes/package.json', { paths: [NODE_RED_DIR] }));
    const core = (file) => require(path.join(coreDir, 'core', file));
    const tab = { id: 'ex-tab', type: 'tab', label: 'example' };
    const nodes = example.map((n) => ({ ...n, z: tab.id }));
    const byName = (type, name) => nodes.find((n) => n.type === type && n.name === name);
    const presenceNode = nodes.find((n) => n.type === 'detection-presence');
    // probes on the example's own debug nodes, and on what the presence node finished
    await loadWithHttp(
      [detectionIn, detectionSwitch, presence, core('common/20-inject.js'), core('common/21-debug.js'), core('common/90-comment.js')],
      [tab, ...nodes, ...completeProbe(presenceNode.id, tab.id).map((n) => ({ ...n, x: 100, y: 500 }))],
    );
    const seen = {};
    for (const name of ['arrived', 'left', 'still here', 'present now']) {
      seen[name] = [];
      helper.getNode(byName('debug', name).id).on('input', (m) => seen[name].push(m));
    }
    let handled = 0;
    helper.getNode(`${presenceNode.id}-finished`).on('input', () => handled++);
    const press = async (name, count) => {
      helper.getNode(byName('inject', name).id).receive({});
      await until(() => handled >= count, 10_000, `${name} handled`);
    };
    await press('8OB123 arrives (Gate 1 entry)', 1);
    await press('BOB123 in the yard (same car)', 2);
    await press('who is here?', 3);
    await press('BOB123 leaves (Gate 1 exit)', 4);
    await press('who is here?', 5);
    assert.deepEqual(
      seen.arrived.map((m) => [m.presence.label, m.presence.cameras]),
      [['8OB123', ['Gate 1 entry']]],
    );
    assert.deepEqual(
      seen['present now'].map((m) => m.payload.map((r) => [r.label, r.cameras])),
      [[['8OB123', ['Gate 1 entry', 'Yard']]], []],
    );
    assert.deepEqual(
      seen.left.map((m) => [m.payload.label, m.payload.reason, m.payload.sightings]),
      [['8OB123', 'exit-camera', 3]],
    );
    assert.deepEqual(seen['still here'], []);
    for (const n of nodes) {
      const node = helper.getNode(n.id);
      if (node && node.error) assert.equal(node.error.callCount, 0, `${n.type} ${n.name} reported an error`);
    }
  });
});
