'use strict';
const assert = require('node:assert/strict');
const {
  getHelper,
  nodeModule,
  translatedModule,
  translate,
  collect,
  until,
  completeProbe,
  trackFinished,
  loadWithHttp,
  closeServers,
  request,
  ownStatus,
  deploy,
} = require('../support');
const http = require('node:http');
const { FakeClock } = require('../support/fake-clock');
const ev = require('../fixtures/events');

const dedupe = nodeModule('detection-dedupe');
const helper = getHelper();
const { dropWindow } = require('../../dist/lib/dedupe/local-window');
const { dropCap } = require('../../dist/lib/dedupe/cap');
const { keepTracker, dropTracker, trackerOf } = require('../../dist/lib/delivery/registry');
const { RedisServer, redisAvailable, redisClient } = require('../support/redis-server');

/** The old default key of the cooldown, before keys could be picked by name. */
const OLD_COOLDOWN_KEY =
  '($p := payload.payload; ($p.lprPlateInfo.plate ? $p.lprPlateInfo.plate : $p.personInfo.faceId) & " @ " & $p.detectionInfo.detectorName)';

function flow(config = {}) {
  // first sightings, duplicates (when asked for), the cap's digest (last, with a cap)
  const wires = [['first'], ...(config.duplicatesOutput ? [['dups']] : []), ...(config.cap ? [['digest']] : [])];
  const outputs = wires.length;
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    {
      id: 'dd',
      type: 'detection-dedupe',
      z: 'f1',
      name: '',
      mode: 'id',
      key: 'messageId',
      keyType: 'msg',
      missingKey: 'pass',
      ttl: 1,
      ttlUnits: 'h',
      refresh: false,
      maxKeys: 100000,
      duplicatesOutput: false,
      persist: false,
      store: '',
      outputs,
      wires,
      ...config,
    },
    { id: 'first', type: 'helper', z: 'f1' },
    { id: 'dups', type: 'helper', z: 'f1' },
    { id: 'digest', type: 'helper', z: 'f1' },
    // fires once per message the dedupe node has finished (passed, dropped or reset)
    ...completeProbe('dd', 'f1'),
    // x and y: a node without them is taken for a configuration node when a deploy rewires it
  ].map((node) => (node.type === 'tab' ? node : { x: 100, y: 100, ...node }));
}

/** A moment to hold the clock at while windows are tested. */
const T0 = Date.parse('2026-03-01T12:00:00.000Z');

/** A message as detection-in emits it. */
function delivery(event) {
  return {
    payload: event,
    topic: event.publishType,
    kind: event.publishType === 'WebHookLprPayload' ? 'lpr' : 'face',
    messageId: event.payload.messageId ?? undefined,
    resent: event.payload.resentEvent,
  };
}

function resent(event) {
  const copy = JSON.parse(JSON.stringify(event));
  copy.payload.resentEvent = true;
  return copy;
}

/** The node's clock, given through Node-RED's settings (nodes/shared/clock.ts): it moves only when a test moves it. */
let clock;
/** Node-RED's settings for the next load: `extra` and the test's clock. */
const useSettings = (extra = {}) => helper.settings({ detectionBridgeClock: clock, ...extra });

describe('detection-dedupe node', () => {
  beforeEach(() => {
    clock = new FakeClock(T0);
    useSettings();
    return helper.startServer();
  });
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
    helper.settings({});
    // the test helper stops flows as a deploy does: the window (and a cap's period) would be kept for the next test's node
    dropWindow('dd');
    dropCap('dd');
  });

  async function start(config, mod = dedupe) {
    await helper.load([mod], flow(config));
    const node = helper.getNode('dd');
    const finished = trackFinished(node);
    return { node, first: helper.getNode('first'), dups: helper.getNode('dups'), finished };
  }

  it('passes the first delivery of a messageId and drops the resent one', async () => {
    const { node, first, finished } = await start();
    const passed = countInputs(first);
    const event = ev.fullLpr();
    node.receive(delivery(event));
    node.receive(delivery(resent(event)));
    node.receive(delivery(ev.fullFace()));
    await finished();
    assert.equal(passed.length, 2);
    assert.equal(passed[0].payload.payload.resentEvent, false);
    assert.equal(passed[1].kind, 'face');
  });

  /** A receiver's tracker as far as finishing goes: the ids marked finished. */
  function fakeReceiver(id) {
    const completed = [];
    keepTracker(id, { complete: (deliveryId) => completed.push(deliveryId) > 0 });
    return completed;
  }

  for (const duplicatesOutput of [false, true]) {
    it(`redelivered: the delivery that let its key through passes again; another one with its key is a repeat (${duplicatesOutput ? 'to output 2' : 'dropped, marked finished'})`, async () => {
      const completed = fakeReceiver('rx');
      try {
        const { node, first, dups, finished } = await start({ duplicatesOutput });
        const passed = countInputs(first);
        const repeats = countInputs(dups);
        const event = ev.fullLpr();
        const as = (id, redelivered, e = event) => ({
          ...delivery(e),
          _delivery: { receiver: 'rx', id },
          ...(redelivered ? { redelivered: true } : {}),
        });
        node.receive(as(1, false)); // passes
        node.receive(as(2, false, resent(event))); // the bridge's retry: a repeat
        node.receive(as(1, true)); // emitted again after a deploy: the flow never finished it
        node.receive(as(2, true, resent(event))); // the retry emitted again: still a repeat
        node.receive({ ...delivery(event), redelivered: true }); // no delivery: cannot tell, a repeat
        const other = ev.fullFace();
        node.receive(as(3, true, other)); // a key not seen: passes
        await finished();
        assert.deepEqual(
          passed.map((m) => [m._delivery.id, m.redelivered === true]),
          [
            [1, false],
            [1, true],
            [3, true],
          ],
        );
        if (duplicatesOutput) {
          assert.deepEqual(
            repeats.map((m) => m._delivery && m._delivery.id),
            [2, 2, undefined],
          );
          assert.deepEqual(completed, [], 'repeats on output 2 are for the flow to finish');
        } else assert.deepEqual(completed, [2, 2], 'dropped repeats are finished, so they are not emitted again');
      } finally {
        dropTracker('rx');
      }
    });
  }

  it('with the key log: keys kept on disk across a reload, messages in order', async () => {
    const fs = require('node:fs');
    const os = require('node:os');
    const path = require('node:path');
    const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dedupe-keylog-'));
    useSettings({ userDir });
    try {
      let { node, first, finished } = await start({ persist: true, store: 'detection-bridge:key-log' });
      let passed = countInputs(first);
      const events = ['a', 'b', 'c', 'd'].map((id) => {
        const e = ev.fullLpr();
        e.payload.messageId = id;
        return e;
      });
      for (const e of events.slice(0, 3)) node.receive(delivery(e));
      await finished();
      assert.deepEqual(
        passed.map((m) => m.messageId),
        ['a', 'b', 'c'],
      );
      assert.ok(fs.existsSync(path.join(userDir, 'detection-bridge', 'dedupe-dd.keys')));
      await helper.unload();
      ({ node, first, finished } = await start({ persist: true, store: 'detection-bridge:key-log' }));
      passed = countInputs(first);
      for (const e of [events[1], events[3], events[0]]) node.receive(delivery(resent(e)));
      await finished();
      assert.deepEqual(
        passed.map((m) => m.messageId),
        ['d'],
        'only the new key passes after the reload',
      );
    } finally {
      useSettings();
      fs.rmSync(userDir, { recursive: true, force: true });
    }
  });

  it('with the key log: a damaged line between whole ones is said once, with how many, and the other keys are kept', async () => {
    const fs = require('node:fs');
    const os = require('node:os');
    const path = require('node:path');
    const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dedupe-keylog-'));
    useSettings({ userDir });
    try {
      let { node, first, finished } = await start({ persist: true, store: 'detection-bridge:key-log' });
      const events = ['a', 'b', 'c'].map((id) => {
        const e = ev.fullLpr();
        e.payload.messageId = id;
        return e;
      });
      for (const e of events.slice(0, 2)) node.receive(delivery(e));
      await finished();
      await helper.unload();
      // A line the disk damaged between the two whole ones.
      const file = path.join(userDir, 'detection-bridge', 'dedupe-dd.keys');
      const whole = fs.readFileSync(file);
      const cut = whole.indexOf(0x0a) + 1;
      fs.writeFileSync(file, Buffer.concat([whole.subarray(0, cut), Buffer.from('["x", 3\x00\x00garbage\n'), whole.subarray(cut)]));
      ({ node, first, finished } = await start({ persist: true, store: 'detection-bridge:key-log' }));
      const passed = countInputs(first);
      for (const e of [resent(events[0]), resent(events[1]), events[2]]) node.receive(delivery(e));
      await finished();
      assert.deepEqual(
        passed.map((m) => m.messageId),
        ['c'],
        'the keys on either side of the damaged line are kept',
      );
      const warned = node.warn.getCalls().filter((c) => c.args[0] === 'detection-dedupe.warn.key-log-damaged');
      assert.equal(warned.length, 1, 'said once');
    } finally {
      useSettings();
      fs.rmSync(userDir, { recursive: true, force: true });
    }
  });

  it('with the key log on a full disk (a small tmpfs: root): passes no repeat, warns once, shows it in yellow, and saves every key once there is room', async () => {
    const fs = require('node:fs');
    const path = require('node:path');
    const { mountTmpfs, fillUp } = require('../support/tmpfs');
    const disk = mountTmpfs('256k');
    useSettings({ userDir: disk.dir });
    try {
      let { node, first, finished } = await start({ persist: true, store: 'detection-bridge:key-log' });
      const events = Array.from({ length: 30 }, (_, i) => {
        const e = ev.fullLpr();
        // long ids: none of them fits on the full disk
        e.payload.messageId = `full-${i}-`.padEnd(3000, 'x');
        return e;
      });
      node.receive(delivery(events[0]));
      await finished();
      const filler = fillUp(disk.dir, 0);
      let passed = countInputs(first);
      for (const e of events.slice(1)) node.receive(delivery(e));
      for (const e of events) node.receive(delivery(resent(e)));
      await finished();
      assert.deepEqual(
        passed.map((m) => m.messageId),
        events.slice(1).map((e) => e.payload.messageId),
        'every new key passes once, no resend passes',
      );
      const warned = node.warn.getCalls().filter((c) => c.args[0] === 'detection-dedupe.warn.key-log-full');
      assert.equal(warned.length, 1, 'warned once, not once per key');
      assert.equal(node.error.callCount, 0);
      const shown = () => ownStatus(node);
      await until(() => shown().fill === 'yellow' && /status\.unsaved/.test(shown().text), 2000, 'a yellow status: keys not saved');

      // Room again: the window is written whole (retried every 2 s), and says so.
      fs.unlinkSync(filler);
      await until(() => node.log.getCalls().some((c) => c.args[0] === 'detection-dedupe.warn.key-log-saved'), 5000, 'the window saved again');
      await until(() => shown().fill === 'green', 2000, 'the status green again');
      await helper.unload();
      // As after a restart: the next instance reads the key log, no window carried over in memory.
      dropWindow('dd');
      ({ node, first, finished } = await start({ persist: true, store: 'detection-bridge:key-log' }));
      passed = countInputs(first);
      for (const e of events) node.receive(delivery(resent(e)));
      await finished();
      assert.deepEqual(passed, [], 'after a restart, every key is known: no resend passes');
      assert.ok(fs.existsSync(path.join(disk.dir, 'detection-bridge', 'dedupe-dd.keys')));
    } finally {
      await helper.unload();
      useSettings();
      disk.unmount();
    }
  });

  it('finds the id inside the event when msg.messageId is missing', async () => {
    const { node, first, finished } = await start();
    const passed = countInputs(first);
    const event = ev.fullFace();
    node.receive({ payload: event });
    node.receive({ payload: resent(event) });
    await finished();
    assert.equal(passed.length, 1);
  });

  it('sends duplicates to output 2 with duplicateOf', async () => {
    const { node, dups, finished } = await start({ duplicatesOutput: true });
    const got = collect(dups, 1);
    const event = ev.fullLpr();
    node.receive(delivery(event));
    await finished();
    await clock.advance(1500);
    node.receive(delivery(resent(event)));
    const [dup] = await got;
    assert.equal(dup.duplicateOf.key, 'msg-lpr-0001');
    assert.equal(dup.duplicateOf.firstSeen, '2026-03-01T12:00:00.000Z', 'when the first delivery was seen');
    assert.equal(dup.payload.payload.resentEvent, true);
  });

  it('forgets every key on msg.reset, which is not passed on', async () => {
    const { node, first, finished } = await start();
    const passed = countInputs(first);
    const event = ev.fullLpr();
    node.receive(delivery(event));
    node.receive({ reset: true });
    node.receive(delivery(resent(event)));
    await finished();
    assert.equal(passed.length, 2);
    assert.equal(
      passed.some((m) => m.reset),
      false,
    );
  });

  it('passes messages without a key by default, warning once', async () => {
    const { node, first, finished } = await start();
    const passed = countInputs(first);
    const event = ev.minimalLpr();
    for (let i = 0; i < 3; i++) node.receive({ payload: event });
    await finished();
    assert.equal(passed.length, 3);
    assert.equal(node.warn.callCount, 1);
    assert.equal(node.warn.firstCall.args[0], 'detection-dedupe.warn.no-key');
  });

  it('drops messages without a key when told to', async () => {
    const { node, first, finished } = await start({ missingKey: 'drop' });
    const passed = countInputs(first);
    node.receive({ payload: ev.minimalLpr() });
    node.receive(delivery(ev.fullLpr()));
    await finished();
    assert.equal(passed.length, 1);
    assert.equal(passed[0].messageId, 'msg-lpr-0001');
  });

  it('keys on a hash of the event without resentEvent when told to', async () => {
    const { node, first, finished } = await start({ missingKey: 'hash' });
    const passed = countInputs(first);
    const event = ev.minimalLpr();
    node.receive({ payload: event });
    node.receive({ payload: resent(event) });
    const other = ev.minimalLpr();
    other.payload.lprPlateInfo.plate = 'OTHER1';
    node.receive({ payload: other });
    await finished();
    assert.equal(passed.length, 2);
    assert.equal(passed[1].payload.payload.lprPlateInfo.plate, 'OTHER1');
  });

  it('lets a key through again once its window ends', async () => {
    const { node, first, finished } = await start({ ttl: 10, ttlUnits: 's' });
    const passed = countInputs(first);
    const event = ev.fullLpr();
    node.receive(delivery(event));
    node.receive(delivery(resent(event)));
    await finished();
    await clock.advance(9999); // the last millisecond of the 10 s window
    node.receive(delivery(resent(event)));
    await finished();
    assert.equal(passed.length, 1, 'still inside the window');
    await clock.advance(1); // the window has ended
    node.receive(delivery(resent(event)));
    await finished();
    assert.equal(passed.length, 2);
    assert.equal(passed[1].resent, true, 'the delivery after the window');
  });

  it('keeps at most maxKeys, forgetting the oldest', async () => {
    const { node, first, finished } = await start({ maxKeys: 2 });
    const passed = countInputs(first);
    for (const id of ['a', 'b', 'c', 'a', 'c']) node.receive({ messageId: id, payload: {} });
    await finished();
    assert.deepEqual(
      passed.map((m) => m.messageId),
      ['a', 'b', 'c', 'a'],
    );
  });

  it('cooldown: drops the same plate at the same detector for N seconds, not other detectors', async () => {
    const key =
      '($p := payload.payload; ($p.lprPlateInfo.plate ? $p.lprPlateInfo.plate : $p.personInfo.faceId) & " @ " & $p.detectionInfo.detectorName)';
    const { node, first, finished } = await start({ mode: 'cooldown', key, keyType: 'jsonata', ttl: 2, ttlUnits: 'm', duplicatesOutput: true });
    const passed = countInputs(first);
    const dups = countInputs(helper.getNode('dups'));
    const read = (plate, detector, id) => {
      const e = ev.minimalLpr();
      e.payload.lprPlateInfo.plate = plate;
      e.payload.detectionInfo.detectorName = detector;
      e.payload.messageId = id;
      return delivery(e);
    };
    node.receive(read('PARK1', 'Gate 1', 'm1'));
    node.receive(read('PARK1', 'Gate 1', 'm2')); // parked car, read again: dropped
    node.receive(read('PARK1', 'Gate 2', 'm3')); // same plate, other camera: passes
    node.receive(read('VISIT9', 'Gate 1', 'm4'));
    await finished();
    await clock.advance(2 * 60_000); // the 2 min cooldown ends
    node.receive(read('PARK1', 'Gate 1', 'm5')); // cooldown over
    await finished();
    assert.deepEqual(
      passed.map((m) => m.messageId),
      ['m1', 'm3', 'm4', 'm5'],
    );
    assert.deepEqual(
      dups.map((m) => m.duplicateOf.key),
      ['PARK1 @ Gate 1'],
    );
  });

  it('cooldown with restart on repeat keeps a parked car quiet while it is seen', async () => {
    const { node, first, finished } = await start({
      mode: 'cooldown',
      key: 'payload.payload.lprPlateInfo.plate',
      keyType: 'msg',
      ttl: 60,
      ttlUnits: 's',
      refresh: true,
    });
    const passed = countInputs(first);
    const e = ev.minimalLpr();
    // seen every 40 s for 160 s, each time within the 60 s cooldown, which restarts
    for (let i = 0; i < 5; i++) {
      node.receive({ payload: e, n: i });
      await finished();
      await clock.advance(40_000);
    }
    // 40 s after the last sighting, 200 s after the first: still quiet
    node.receive({ payload: e, n: 'parked' });
    await finished();
    await clock.advance(60_000); // no longer seen for the whole cooldown
    node.receive({ payload: e, n: 'after' });
    await finished();
    assert.deepEqual(
      passed.map((m) => m.n),
      [0, 'after'],
    );
  });

  it('reports a key expression error to Catch nodes', async () => {
    const catchFlow = [
      ...flow({ key: '$error("boom")', keyType: 'jsonata' }),
      { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper', z: 'f1' },
    ];
    await helper.load([dedupe], catchFlow);
    const got = collect(helper.getNode('caught'), 1);
    helper.getNode('dd').receive(delivery(ev.fullLpr()));
    const [caught] = await got;
    assert.match(caught.error.message, /boom/);
    assert.equal(caught.error.source.id, 'dd');
  });

  it('refuses an invalid expression at start', async () => {
    const { node } = await start({ key: 'payload.(', keyType: 'jsonata' });
    await until(() => node.error.called, 2000, 'an error');
    assert.equal(node.error.firstCall.args[0], 'detection-dedupe.errors.expression');
  });

  // Restoring across a real restart with a file store is covered end to end
  // (test/e2e/flow.test.js): the test helper drops node context on redeploy.
  it('saves the window to the context store while events arrive, and on close', async function () {
    this.timeout(10000);
    const { node, finished } = await start({ persist: true });
    node.receive(delivery(ev.fullLpr()));
    node.receive(delivery(ev.fullFace()));
    const read = () => new Promise((resolve, reject) => node.context().get('detection-dedupe-window', (err, v) => (err ? reject(err) : resolve(v))));
    await finished();
    assert.equal(await read(), undefined, 'both events are in, and not saved one by one: saves are batched');
    const saved = await until(read, 4000, 'the periodic save');
    assert.deepEqual(saved.entries.map((e) => e[0]).sort(), ['msg-face-0001', 'msg-lpr-0001']);
    assert.equal(saved.ttlMs, 3600000);
  });

  /** Deploys `nodes` (`type`: full or nodes) and returns the new dedupe node, its first output and its tracker. */
  async function redeploy(config, type = 'full') {
    const before = helper.getNode('dd');
    await deploy(flow(config), type);
    const node = await until(() => helper.getNode('dd') !== before && helper.getNode('dd'), 2000, 'the redeployed node');
    const finished = await until(() => helper.getNode('dd-finished') && trackFinished(node), 2000, 'the redeployed flow');
    return { node, passed: countInputs(helper.getNode('first')), finished };
  }

  it('keeps its window across a full deploy and a deploy that changes the window; forgets it when the key changes or the node is removed', async () => {
    const cooldown = { mode: 'cooldown', key: 'plateAtCamera', keyType: 'event', ttl: 60, ttlUnits: 's' };
    const { node, finished } = await start(cooldown);
    const at = (plate, id) => {
      const e = ev.minimalLpr();
      e.payload.lprPlateInfo.plate = plate;
      e.payload.messageId = id;
      return delivery(e);
    };
    node.receive(at('PARK1', 'm1'));
    await finished();

    let next = await redeploy(cooldown);
    next.node.receive(at('PARK1', 'm2'));
    next.node.receive(at('VISIT9', 'm3'));
    await next.finished();
    assert.deepEqual(
      next.passed.map((m) => m.messageId),
      ['m3'],
      'a full deploy: PARK1 still cooling down',
    );

    // a longer window and fewer keys: the keys inside it carry over
    next = await redeploy({ ...cooldown, ttl: 10, ttlUnits: 'm', maxKeys: 5 }, 'nodes');
    next.node.receive(at('PARK1', 'm4'));
    next.node.receive(at('VISIT9', 'm5'));
    await next.finished();
    assert.deepEqual(next.passed, [], 'the changed node kept both keys');

    // another key: the keys meant something else
    next = await redeploy({ ...cooldown, key: 'plate' });
    next.node.receive(at('PARK1', 'm6'));
    await next.finished();
    assert.deepEqual(
      next.passed.map((m) => m.messageId),
      ['m6'],
    );

    // removed, then added again: a new node
    await deploy(
      flow().filter((n) => n.id !== 'dd' && n.id !== 'dd-complete'),
      'full',
    );
    next = await redeploy({ ...cooldown, key: 'plate' });
    next.node.receive(at('PARK1', 'm7'));
    await next.finished();
    assert.deepEqual(
      next.passed.map((m) => m.messageId),
      ['m7'],
    );
  });

  for (const store of ['', 'detection-bridge:key-log']) {
    it(`persisted (${store ? 'key log' : 'context store'}): keys and their deliveries survive a deploy and a restart`, async function () {
      this.timeout(10000);
      const fs = require('node:fs');
      const os = require('node:os');
      const path = require('node:path');
      const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dedupe-deploy-'));
      useSettings({ userDir, contextStorage: { default: { module: 'localfilesystem' } } });
      const completed = fakeReceiver('rx');
      try {
        const config = { persist: true, store };
        let { node, finished } = await start(config);
        const event = ev.fullLpr();
        const as = (id, redelivered, e = event) => ({
          ...delivery(e),
          _delivery: { receiver: 'rx', id },
          ...(redelivered ? { redelivered: true } : {}),
        });
        node.receive(as(1, false));
        await finished();
        let next = await redeploy(config);
        next.node.receive(as(2, false, resent(event)));
        next.node.receive(as(1, true));
        await next.finished();
        assert.deepEqual(
          next.passed.map((m) => m._delivery.id),
          [1],
          'after a deploy: the retry dropped, the unfinished event passes',
        );
        if (!store) {
          // the test helper drops node context when it stops (a restart with a file store: test/e2e/flow.test.js)
          const saved = await until(
            () => new Promise((resolve) => next.node.context().get('detection-dedupe-window', (err, v) => resolve(v))),
            4000,
            'the periodic save',
          );
          assert.deepEqual(
            saved.entries.map((e) => [e[0], e[2]]),
            [['msg-lpr-0001', 'rx/1']],
            'saved with the delivery that passed',
          );
          assert.deepEqual(completed, [2]);
          return;
        }
        // a restart: nothing kept in the process, the store alone
        await helper.unload();
        dropWindow('dd');
        ({ node, finished } = await start(config));
        const passed = countInputs(helper.getNode('first'));
        node.receive(as(2, true, resent(event)));
        node.receive(as(1, true));
        await finished();
        assert.deepEqual(
          passed.map((m) => m._delivery.id),
          [1],
          'after a restart too',
        );
        assert.deepEqual(completed, [2, 2]);
      } finally {
        dropTracker('rx');
        useSettings();
        fs.rmSync(userDir, { recursive: true, force: true });
      }
    });
  }

  it('keys picked by name: plate (or person) at camera by default, person, from another property', async () => {
    const { node, first, finished } = await start({ mode: 'cooldown', key: '', keyType: '', ttl: 60, ttlUnits: 's', missingKey: 'drop' });
    const passed = countInputs(first);
    const face = (faceId, camera, n) => {
      const e = ev.fullFace();
      e.payload.personInfo.faceId = faceId;
      e.payload.detectionInfo.detectorName = camera;
      return { payload: e, n };
    };
    node.receive(face('f1', 'Door', 1));
    node.receive(face('f1', 'Door', 2));
    node.receive(face('f1', 'Gate', 3));
    node.receive(face('f2', 'Door', 4));
    await finished();
    assert.deepEqual(
      passed.map((m) => m.n),
      [1, 3, 4],
      'no key saved: the cooldown keys on the person at the camera',
    );
    await helper.unload();
    dropWindow('dd');
    const again = await start({ mode: 'cooldown', key: 'person', keyType: 'event', property: 'event', propertyType: 'msg', missingKey: 'drop' });
    const passedAgain = countInputs(again.first);
    for (const m of [face('f1', 'Door', 1), face('f1', 'Gate', 2), face('f2', 'Gate', 3), { payload: ev.fullLpr(), n: 4 }]) {
      again.node.receive({ event: m.payload, n: m.n });
    }
    await again.finished();
    assert.deepEqual(
      passedAgain.map((m) => m.n),
      [1, 3],
      'the person wherever seen, read from msg.event; a plate event has no person: dropped',
    );
  });

  it('a flow saved with the old cooldown expression keys as "plate at camera" does', async () => {
    const send = async (config) => {
      const { node, first, finished } = await start(config);
      const passed = countInputs(first);
      const read = (plate, detector, id) => {
        const e = ev.minimalLpr();
        e.payload.lprPlateInfo.plate = plate;
        e.payload.detectionInfo.detectorName = detector;
        e.payload.messageId = id;
        return delivery(e);
      };
      for (const [plate, detector, id] of [
        ['PARK1', 'Gate 1', 'm1'],
        ['PARK1', 'Gate 1', 'm2'],
        ['PARK1', 'Gate 2', 'm3'],
        ['VISIT9', 'Gate 1', 'm4'],
      ])
        node.receive(read(plate, detector, id));
      await finished();
      await helper.unload();
      dropWindow('dd');
      return passed.map((m) => m.messageId);
    };
    const old = await send({ mode: 'cooldown', key: OLD_COOLDOWN_KEY, keyType: 'jsonata', ttl: 60, ttlUnits: 's' });
    assert.deepEqual(old, ['m1', 'm3', 'm4']);
    assert.deepEqual(
      await send({
        mode: 'cooldown',
        key: 'plateAtCamera',
        keyType: 'event',
        property: 'payload',
        propertyType: 'msg',
        configVersion: 2,
        ttl: 60,
        ttlUnits: 's',
      }),
      old,
    );
  });

  it('with settings that cannot run: every message ends with the error, for Catch nodes', async () => {
    for (const bad of [
      { ttl: 0 },
      { key: 'nonsense', keyType: 'event' },
      { key: 'payload.(', keyType: 'jsonata' },
      { scope: 'redis', redis: '' },
      { cap: true, capCount: 0 },
      { cap: true, capCount: 2.5 },
      { cap: true, capPeriod: 0 },
    ]) {
      const catchFlow = [
        ...flow(bad),
        { id: 'c1', type: 'catch', z: 'f1', scope: ['dd'], uncaught: false, wires: [['caught']] },
        { id: 'caught', type: 'helper', z: 'f1' },
      ];
      await helper.load([dedupe], catchFlow);
      const got = collect(helper.getNode('caught'), 1);
      helper.getNode('dd').receive(delivery(ev.fullLpr()));
      const [caught] = await got;
      assert.equal(caught.error.source.id, 'dd', JSON.stringify(bad));
      assert.match(caught.error.message, /detection-dedupe\.errors\./, JSON.stringify(bad));
      await helper.unload();
    }
  });

  it('a configuration that cannot run: its status without figures goes as its catalog key, for the editor to translate', async () => {
    const { node } = await start({ ttl: 0 }, translatedModule('detection-dedupe'));
    assert.deepEqual(ownStatus(node), { fill: 'red', shape: 'ring', text: 'detection-dedupe.status.error' });
  });

  describe('look-alikes merged into a key', () => {
    const LOOKALIKE = { mode: 'cooldown', key: 'plateLookalike', keyType: 'event', ttl: 60, ttlUnits: 's' };

    it('a repeat read otherwise than the plate that let its key through says so: counted apart in the status, plate and read in msg.duplicateOf', async () => {
      const { node, first, dups, finished } = await start({ ...LOOKALIKE, duplicatesOutput: true }, translatedModule('detection-dedupe'));
      const passed = countInputs(first);
      const repeats = countInputs(dups);
      for (const [plate, id] of [
        ['ABC123', 'm1'],
        ['A8C123', 'm2'], // B read as 8: the same car
        ['ABC123', 'm3'], // read as it passed: a plain repeat
        ['abc-123', 'm4'], // written otherwise, not read otherwise
        ['XYZ987', 'm5'],
        ['XY2987', 'm6'],
      ]) {
        await clock.advance(1000);
        node.receive(plateRead(plate, id));
      }
      await finished();
      assert.deepEqual(
        passed.map((m) => m.messageId),
        ['m1', 'm5'],
      );
      const firstSeen = new Date(T0 + 1000).toISOString();
      assert.deepEqual(
        repeats.map((m) => [m.messageId, m.duplicateOf]),
        [
          ['m2', { key: 'A8C123', firstSeen, plate: 'ABC123', read: 'A8C123', lookalike: true }],
          ['m3', { key: 'A8C123', firstSeen, plate: 'ABC123', read: 'ABC123', lookalike: false }],
          ['m4', { key: 'A8C123', firstSeen, plate: 'ABC123', read: 'abc-123', lookalike: false }],
          ['m6', { key: 'XY2987', firstSeen: new Date(T0 + 5000).toISOString(), plate: 'XYZ987', read: 'XY2987', lookalike: true }],
        ],
      );
      await until(() => statusText(node) === '2 passed · 4 dropped · 2 keys · 2 look-alikes', 2000, 'the look-alikes in the status');
      node.receive({ reset: true });
      await finished();
      await until(() => statusText(node) === '0 passed · 0 dropped · 0 keys', 2000, 'a reset clears them with the counts');
    });

    it('dropped (no duplicates output), per camera too: the status still counts them; other keys add nothing to msg.duplicateOf', async () => {
      const { node, finished } = await start({ ...LOOKALIKE, key: 'plateLookalikeAtCamera' }, translatedModule('detection-dedupe'));
      node.receive(plateRead('8OB123', 'm1'));
      node.receive(plateRead('80B123', 'm2'));
      node.receive(plateRead('80B123', 'm3', 'Gate 2')); // another camera: its own key
      await finished();
      await until(() => statusText(node) === '2 passed · 1 dropped · 2 keys · 1 look-alike', 2000, 'one look-alike');
      await helper.unload();
      dropWindow('dd');
      const plain = await start({ ...LOOKALIKE, key: 'plateAtCamera', duplicatesOutput: true });
      const got = collect(plain.dups, 1);
      plain.node.receive(plateRead('ABC123', 'm1'));
      plain.node.receive(plateRead('ABC123', 'm2'));
      const [dup] = await got;
      assert.deepEqual(Object.keys(dup.duplicateOf), ['key', 'firstSeen']);
    });

    for (const store of ['detection-bridge:key-log', '']) {
      it(`the plate that let a key through is saved with it (${store ? 'key log: it survives a restart' : 'context store'})`, async function () {
        this.timeout(10000);
        const fs = require('node:fs');
        const os = require('node:os');
        const path = require('node:path');
        const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dedupe-lookalike-'));
        useSettings({ userDir });
        try {
          const config = { ...LOOKALIKE, duplicatesOutput: true, persist: true, store };
          let { node, finished } = await start(config);
          node.receive(plateRead('ABC123', 'm1'));
          await finished();
          if (!store) {
            const saved = await until(
              () => new Promise((resolve) => node.context().get('detection-dedupe-window', (err, v) => resolve(v))),
              4000,
              'the periodic save',
            );
            assert.deepEqual(saved.entries, [['A8C123', T0, null, 'ABC123']]);
            return;
          }
          // a restart: nothing kept in the process, the key log alone
          await helper.unload();
          dropWindow('dd');
          let dups;
          ({ node, dups, finished } = await start(config));
          const got = collect(dups, 1);
          node.receive(plateRead('A8C123', 'm2'));
          const [dup] = await got;
          assert.deepEqual(dup.duplicateOf, {
            key: 'A8C123',
            firstSeen: new Date(T0).toISOString(),
            plate: 'ABC123',
            read: 'A8C123',
            lookalike: true,
          });
        } finally {
          useSettings();
          fs.rmSync(userDir, { recursive: true, force: true });
        }
      });
    }
  });

  it('shows passed, dropped and keys in its status', async () => {
    // translated, so the counts themselves are read, as users see them
    const { node, finished } = await start({}, translatedModule('detection-dedupe'));
    const event = ev.fullLpr();
    node.receive(delivery(event));
    node.receive(delivery(resent(event)));
    node.receive(delivery(ev.fullFace()));
    await finished();
    const shown = () => ownStatus(node);
    await until(() => shown().text === '2 passed · 1 dropped · 2 keys', 2000, 'the status after three messages');
    assert.equal(shown().fill, 'green');
  });

  describe('the cap', () => {
    /** At most 5 messages a minute, overall. */
    const CAP = { cap: true, capCount: 5, capPeriod: 1, capUnits: 'm', capPer: 'all' };
    const MINUTE = 60_000;
    /** A plate read, as detection-in emits it. */
    const read = (plate, id, camera = 'Gate 1') => {
      const e = ev.minimalLpr();
      e.payload.lprPlateInfo.plate = plate;
      e.payload.detectionInfo.detectorName = camera;
      e.payload.messageId = id;
      return delivery(e);
    };
    /** When the digest is due, as the status shows it (Node-RED's time zone; seconds for a period under an hour). */
    const dueAt = (ms) => {
      const d = new Date(ms);
      return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
    };
    const warnings = (node, key) => node.warn.getCalls().filter((c) => c.thisValue === node && c.args[0] === key);

    it('a burst of 1,000 events through a receiver and a cap of 5 per minute: 5 messages, and at the minute’s end one digest that counts 995', async function () {
      this.timeout(60_000);
      const receiver = { id: 'rin', type: 'detection-in', z: 'f1', path: '/hooks/cap', auth: 'none', finishedWhen: 'done', wires: [['dd'], []] };
      const base = await loadWithHttp([nodeModule('detection-in'), translatedModule('detection-dedupe')], [...flow(CAP), receiver]);
      const node = helper.getNode('dd');
      const passed = countInputs(helper.getNode('first'));
      const finished = countInputs(helper.getNode('dd-finished'));
      const digests = countInputs(helper.getNode('digest'));
      const events = Array.from({ length: 1000 }, (_, i) => {
        const e = ev.minimalLpr();
        e.payload.messageId = `burst-${i}`;
        return e;
      });
      // eight senders at once on kept-alive connections, as a bridge sends
      const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
      let next = 0;
      const answers = [];
      try {
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (next < events.length) {
              const i = next++;
              const body = JSON.stringify(events[i]);
              answers[i] = (await request(`${base}/hooks/cap`, { headers: { 'content-type': 'application/json' }, body, agent })).status;
            }
          }),
        );
      } finally {
        agent.destroy();
      }
      assert.ok(
        answers.every((status) => status === 200),
        'every event answered 200',
      );
      await until(() => finished.length === 1000, 30_000, 'dedupe done with all 1,000');
      assert.equal(passed.length, 5, 'five messages let through');
      assert.equal(digests.length, 0, 'no digest before the period ends');
      assert.equal(trackerOf('rin').pending.events, 5, 'the 995 held are finished: their receiver does not emit them again');
      const end = T0 + MINUTE;
      await until(() => statusText(node) === `5 passed · 0 dropped · 995 held (digest ${dueAt(end)})`, 2000, 'the held count in the status');

      const got = collect(helper.getNode('digest'), 1);
      await clock.advance(MINUTE);
      const [digest] = await got;
      assert.equal(digest.topic, 'digest');
      assert.equal(digest.payload.held, 995);
      assert.equal(digest.payload.passed, 5);
      assert.equal(digest.payload.start, new Date(T0).toISOString());
      assert.equal(digest.payload.end, new Date(end).toISOString());
      assert.deepEqual(digest.payload.cap, { count: 5, periodMs: MINUTE, per: 'all' });
      assert.equal(digest.payload.keys.length, 100, 'at most 100 keys listed');
      assert.equal(digest.payload.notListed, 895, 'the rest counted');
      assert.ok(
        digest.payload.keys.every((k) => /^burst-\d+$/.test(k.key) && k.held === 1),
        'each held message id listed once',
      );
      assert.equal(passed.length, 5);
      await until(() => statusText(node) === '5 passed · 0 dropped · 1000 keys', 2000, 'the status without a period running');
    });

    for (const capPer of ['key', 'all']) {
      it(`counts ${capPer === 'key' ? 'per key' : 'overall'}, after the cooldown: a repeat the cooldown drops is not counted`, async () => {
        const cooldown = { mode: 'cooldown', key: 'plate', keyType: 'event', ttl: 10, ttlUnits: 's' };
        const { node, first, finished } = await start({ ...cooldown, ...CAP, capCount: 2, capPer });
        const passed = countInputs(first);
        const digests = countInputs(helper.getNode('digest'));
        for (const [plate, id, wait] of [
          ['PARK1', 'm1', 0],
          ['PARK1', 'm2', 11_000], // cooldown over: passes (PARK1's second)
          ['PARK1', 'm3', 11_000], // cooldown over again: PARK1's third, past the cap per key
          ['VISIT9', 'm4', 1000],
          ['PARK1', 'm5', 1000], // inside PARK1's cooldown (counted from m3): dropped, not counted
        ]) {
          await clock.advance(wait);
          node.receive(read(plate, id));
          await finished();
        }
        const got = collect(helper.getNode('digest'), 1);
        await clock.advance(MINUTE);
        const [digest] = await got;
        if (capPer === 'key') {
          assert.deepEqual(
            passed.map((m) => m.messageId),
            ['m1', 'm2', 'm4'],
          );
          assert.deepEqual(
            digest.payload.keys.map((k) => [k.key, k.held]),
            [['PARK1', 1]],
          );
        } else {
          assert.deepEqual(
            passed.map((m) => m.messageId),
            ['m1', 'm2'],
          );
          assert.deepEqual(
            digest.payload.keys.map((k) => [k.key, k.held]),
            [
              ['PARK1', 1],
              ['VISIT9', 1],
            ],
          );
        }
        assert.equal(digest.payload.cap.per, capPer);
        assert.equal(digests.length, 1);
      });
    }

    for (const [from, refresh, expected] of [
      ['the last message let through', false, [0, 80, 160, 'after']],
      ['the last sighting', true, [0, 'after']],
    ]) {
      it(`the cooldown counted from ${from}`, async () => {
        const { node, first, finished } = await start({ mode: 'cooldown', key: 'plate', keyType: 'event', ttl: 60, ttlUnits: 's', refresh });
        const passed = countInputs(first);
        const e = ev.minimalLpr();
        // a parked car read every 40 s: inside a 60 s cooldown each time
        for (let at = 0; at <= 160; at += 40) {
          node.receive({ payload: e, n: at });
          await finished();
          await clock.advance(40_000);
        }
        await clock.advance(60_000); // not seen for a whole cooldown
        node.receive({ payload: e, n: 'after' });
        await finished();
        assert.deepEqual(
          passed.map((m) => m.n),
          expected,
        );
      });
    }

    it('held messages are finished, so their receiver does not emit them again; the digest has its own output after the duplicates', async () => {
      const completed = fakeReceiver('rx');
      try {
        const { node, first, dups, finished } = await start({ ...CAP, capCount: 1, duplicatesOutput: true });
        const passed = countInputs(first);
        const repeats = countInputs(dups);
        const as = (id, event) => ({ ...delivery(event), _delivery: { receiver: 'rx', id } });
        const events = ['a', 'b', 'c'].map((id) => {
          const e = ev.minimalLpr();
          e.payload.messageId = id;
          return e;
        });
        node.receive(as(1, events[0]));
        node.receive(as(2, events[1]));
        node.receive(as(3, events[2]));
        node.receive(as(4, resent(events[1]))); // a retry of a held event: a repeat, as any
        await finished();
        assert.deepEqual(
          passed.map((m) => m._delivery.id),
          [1],
        );
        assert.deepEqual(
          repeats.map((m) => m._delivery.id),
          [4],
          'the window decides before the cap: a repeat of a held event is a duplicate',
        );
        assert.deepEqual(completed, [2, 3], 'the held ones finished');
        const got = collect(helper.getNode('digest'), 1);
        await clock.advance(MINUTE);
        const [digest] = await got;
        assert.deepEqual(
          digest.payload.keys.map((k) => k.key),
          ['b', 'c'],
        );
      } finally {
        dropTracker('rx');
      }
    });

    it('passes messages without a key through the cap too (key null in the digest)', async () => {
      const { node, first, finished } = await start({ ...CAP, capCount: 1 });
      const passed = countInputs(first);
      for (let i = 0; i < 3; i++) node.receive({ payload: {}, n: i });
      await finished();
      assert.deepEqual(
        passed.map((m) => m.n),
        [0],
      );
      const got = collect(helper.getNode('digest'), 1);
      await clock.advance(MINUTE);
      const [digest] = await got;
      assert.deepEqual(digest.payload.keys, [{ key: null, held: 2, first: new Date(T0).toISOString(), last: new Date(T0).toISOString() }]);
    });

    it('goes on counting across a deploy, and sends one digest for the whole period', async () => {
      const { node, finished } = await start(CAP);
      for (let i = 0; i < 3; i++) node.receive({ messageId: `before-${i}`, payload: {} });
      await finished();
      await clock.advance(10_000);
      const next = await redeploy(CAP);
      const digests = countInputs(helper.getNode('digest'));
      for (let i = 0; i < 4; i++) next.node.receive({ messageId: `after-${i}`, payload: {} });
      await next.finished();
      assert.deepEqual(
        next.passed.map((m) => m.messageId),
        ['after-0', 'after-1'],
        'five in the period: three before the deploy, two after',
      );
      const got = collect(helper.getNode('digest'), 1);
      await clock.advance(MINUTE - 10_000);
      const [digest] = await got;
      assert.equal(digest.payload.held, 2);
      assert.equal(digest.payload.passed, 5);
      assert.equal(digest.payload.start, new Date(T0).toISOString(), 'the period started before the deploy');
      assert.equal(digests.length, 1);
    });

    it('a deploy that shortens the period past now sends the digest as soon as the flows have started', async () => {
      const { node, finished } = await start(CAP);
      for (let i = 0; i < 7; i++) node.receive({ messageId: `m${i}`, payload: {} });
      await finished();
      await clock.advance(30_000);
      const got = collect(helper.getNode('digest'), 1);
      const shorter = { ...CAP, capPeriod: 20, capUnits: 's' };
      await deploy(flow(shorter), 'nodes');
      const [digest] = await got;
      assert.equal(digest.payload.held, 2);
      assert.equal(digest.payload.end, new Date(T0 + 20_000).toISOString());
    });

    it('says in a warning what a removed node, or one whose cap a deploy turned off, had held: no digest is sent for it', async () => {
      const { node, finished } = await start(CAP);
      for (let i = 0; i < 7; i++) node.receive({ messageId: `m${i}`, payload: {} });
      await finished();
      // the cap turned off: the next instance says it
      const next = await redeploy({ ...CAP, cap: false });
      assert.equal(warnings(next.node, 'detection-dedupe.warn.cap-off').length, 1);
      // removed with messages held
      const again = await redeploy(CAP);
      for (let i = 0; i < 7; i++) again.node.receive({ messageId: `n${i}`, payload: {} });
      await again.finished();
      await deploy(
        flow(CAP).filter((n) => n.id !== 'dd' && n.id !== 'dd-complete'),
        'full',
      );
      assert.equal(warnings(again.node, 'detection-dedupe.warn.cap-removed').length, 1);
    });

    it('urgent messages (msg.priority urgent or high): 20 ordinary alerts and 3 urgent ones in a minute, a cap of 5 per 10 minutes: the urgent go out at once, 5 ordinary, and the digest says held 15, urgent 3, passed 5', async () => {
      const { node, first, finished } = await start(URGENT_CAP, translatedModule('detection-dedupe'));
      await urgentBurst(node, first, finished);
      await until(() => statusText(node) === '8 passed · 1 dropped · 23 keys', 2000, 'the status once the digest is out');
    });

    it('with "Urgent messages always pass" off, an urgent message is counted and held like any', async () => {
      const { node, first, finished } = await start({ ...CAP, capCount: 1, capUrgent: false });
      const passed = countInputs(first);
      node.receive({ messageId: 'm1', payload: {} });
      node.receive({ messageId: 'm2', payload: {}, priority: 'urgent' });
      await finished();
      assert.deepEqual(
        passed.map((m) => m.messageId),
        ['m1'],
      );
      const got = collect(helper.getNode('digest'), 1);
      await clock.advance(MINUTE);
      const [digest] = await got;
      assert.deepEqual([digest.payload.passed, digest.payload.urgent, digest.payload.held], [1, 0, 1]);
    });

    it('the status while a period holds messages, and its digest time', async () => {
      const { node, finished } = await start(CAP, translatedModule('detection-dedupe'));
      for (let i = 0; i < 8; i++) node.receive({ messageId: `m${i}`, payload: {} });
      await finished();
      await until(() => statusText(node) === `5 passed · 0 dropped · 3 held (digest ${dueAt(T0 + MINUTE)})`, 2000, 'the held count');
      assert.equal(
        translate('detection-dedupe.status.held', { passed: 5, dropped: 0, held: 3, at: '14:02' }),
        '5 passed · 0 dropped · 3 held (digest 14:02)',
      );
    });
  });
});

describe('detection-dedupe node: a cap shared through Redis (redis-server)', function () {
  this.timeout(30_000);
  let server;
  let client;
  let n = 0;
  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start();
    client = await redisClient(server.url);
  });
  after(async () => {
    await client?.close();
    await server?.close();
  });
  beforeEach(() => {
    clock = new FakeClock(T0);
    useSettings();
    return helper.startServer();
  });
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    helper.settings({});
  });

  /** The flow of the first describe, its dedupe shared through a redis configuration node of its own (a prefix per test). */
  async function startShared(config) {
    const prefix = `shared${++n}:`;
    const shared = { scope: 'redis', redis: 'r1', sharedName: 'site', ...config };
    await helper.load(
      [nodeModule('detection-redis'), translatedModule('detection-dedupe')],
      [...flow(shared), { id: 'r1', type: 'detection-redis', url: server.url, prefix }],
    );
    await until(() => helper.getNode('r1').connection.ready, 5000, 'connected');
    const node = helper.getNode('dd');
    return { node, first: helper.getNode('first'), dups: helper.getNode('dups'), finished: trackFinished(node), prefix };
  }

  it('urgent messages: the same burst through the shared cap: the urgent go out at once, 5 ordinary, the digest says held 15, urgent 3, passed 5', async () => {
    const { node, first, finished, prefix } = await startShared(URGENT_CAP);
    await urgentBurst(node, first, finished);
    await until(() => statusText(node) === '8 passed · 1 dropped · redis: connected', 2000, 'the status once the digest is out');
    assert.deepEqual(await client.keys(`${prefix}dedupe-cap:*`), [], 'the period is gone from Redis');
  });

  it('look-alikes: the shared window keeps the plate that let a key through', async () => {
    const { node, dups, finished } = await startShared({
      mode: 'cooldown',
      key: 'plateLookalike',
      keyType: 'event',
      ttl: 60,
      ttlUnits: 's',
      duplicatesOutput: true,
    });
    const repeats = countInputs(dups);
    node.receive(plateRead('8OB 123', 'm1'));
    node.receive(plateRead('80B123', 'm2'));
    await finished();
    assert.deepEqual(
      repeats.map((m) => m.duplicateOf),
      [{ key: '808123', firstSeen: new Date(T0).toISOString(), plate: '8OB 123', read: '80B123', lookalike: true }],
    );
    await until(() => /^1 passed · 1 dropped · 1 look-alike · redis: /.test(statusText(node)), 2000, 'the look-alike in the status');
  });

  it('two dedupe nodes on their own connections let 5 per minute through between them, and one of them sends the one digest', async () => {
    const prefix = `capnodes${++n}:`;
    const redis = (id) => ({ id, type: 'detection-redis', url: server.url, prefix });
    const dedupeNode = (id, redisId) => ({
      id,
      type: 'detection-dedupe',
      z: 't1',
      mode: 'id',
      key: 'messageId',
      keyType: 'msg',
      ttl: 1,
      ttlUnits: 'h',
      scope: 'redis',
      redis: redisId,
      sharedName: 'site',
      cap: true,
      capCount: 5,
      capPeriod: 1,
      capUnits: 'm',
      capPer: 'all',
      outputs: 2,
      wires: [[`${id}-out`], [`${id}-digest`]],
    });
    await helper.load(
      [nodeModule('detection-redis'), translatedModule('detection-dedupe')],
      [
        { id: 't1', type: 'tab' },
        redis('redis1'),
        redis('redis2'),
        dedupeNode('d1', 'redis1'),
        dedupeNode('d2', 'redis2'),
        ...['d1-out', 'd1-digest', 'd2-out', 'd2-digest', 'finished'].map((id) => ({ id, type: 'helper', z: 't1' })),
        // one Complete node for both (the test helper loads the core node once per node of its type)
        { id: 'both-complete', type: 'complete', z: 't1', scope: ['d1', 'd2'], uncaught: false, wires: [['finished']] },
      ],
    );
    const d1 = helper.getNode('d1');
    const d2 = helper.getNode('d2');
    assert.notEqual(helper.getNode('redis1').connection, helper.getNode('redis2').connection, 'two connections');
    await until(() => helper.getNode('redis1').connection.ready && helper.getNode('redis2').connection.ready, 5000, 'both connected');
    const finished = countInputs(helper.getNode('finished'));
    const passed = [countInputs(helper.getNode('d1-out')), countInputs(helper.getNode('d2-out'))];
    const digests = [countInputs(helper.getNode('d1-digest')), countInputs(helper.getNode('d2-digest'))];
    for (let i = 0; i < 100; i++) (i % 2 ? d1 : d2).receive({ messageId: `m${i}`, payload: {} });
    await until(() => finished.length === 100, 10_000, 'all 100 done');
    assert.equal(passed[0].length + passed[1].length, 5, 'five between both');
    const held = (node) => /held/.test(statusText(node));
    await until(() => held(d1) && held(d2), 2000, 'both show the period’s held count');

    await clock.advance(60_000);
    // both timers fire at the period's end; each claim ends with the status back to counts
    await until(() => !held(d1) && !held(d2), 5000, 'both have asked for the digest');
    assert.equal(digests[0].length + digests[1].length, 1, 'one digest between both');
    const [digest] = [...digests[0], ...digests[1]];
    assert.equal(digest.payload.held, 95);
    assert.equal(digest.payload.passed, 5);
    assert.deepEqual(await client.keys(`${prefix}dedupe-cap:*`), [], 'the period is gone from Redis');
  });
});

/** A plate read at a camera, as detection-in emits it. */
function plateRead(plate, id, camera = 'Gate 1') {
  const e = ev.minimalLpr();
  e.payload.lprPlateInfo.plate = plate;
  e.payload.detectionInfo.detectorName = camera;
  e.payload.messageId = id;
  return delivery(e);
}

/** A cooldown by plate, capped at 5 messages per 10 minutes (urgent messages pass by default). */
const URGENT_CAP = {
  mode: 'cooldown',
  key: 'plate',
  keyType: 'event',
  ttl: 10,
  ttlUnits: 'm',
  cap: true,
  capCount: 5,
  capPeriod: 10,
  capUnits: 'm',
  capPer: 'all',
};

/**
 * 20 ordinary alerts (distinct plates) and 3 urgent ones, one every 2.5 s (within a minute), the
 * urgent ones 4th, 10th and 17th, then a repeat of the first urgent one (the cooldown still drops
 * it); then the period's end. Each urgent message is out before the next message is given.
 */
async function urgentBurst(node, first, finished) {
  const passed = countInputs(first);
  const digests = countInputs(helper.getNode('digest'));
  const order = Array.from({ length: 20 }, (_, i) => ({ plate: `ORD${String(i).padStart(2, '0')}` }));
  for (const [at, plate, priority] of [
    [3, 'URG1', 'urgent'],
    [9, 'URG2', 'High'],
    [16, 'URG3', ' URGENT '],
  ])
    order.splice(at, 0, { plate, priority });
  order.push({ plate: 'URG1', priority: 'urgent' });
  for (const [i, { plate, priority }] of order.entries()) {
    if (i > 0) await clock.advance(2500);
    node.receive({ ...plateRead(plate, `m${i}`), ...(priority && { priority }) });
    await finished();
    if (priority && i < order.length - 1) assert.equal(passed.at(-1)?.payload.payload.lprPlateInfo.plate, plate, `${plate} went out at once`);
  }
  assert.deepEqual(
    passed.map((m) => m.payload.payload.lprPlateInfo.plate),
    ['ORD00', 'ORD01', 'ORD02', 'URG1', 'ORD03', 'ORD04', 'URG2', 'URG3'],
    'the urgent ones, and five ordinary ones',
  );
  assert.equal(digests.length, 0, 'no digest before the period ends');
  // the urgent ones among the passed, the repeat among the dropped (a shared cap adds the connection after)
  const due = new Date(T0 + 10 * 60_000);
  const at = [due.getHours(), due.getMinutes(), due.getSeconds()].map((v) => String(v).padStart(2, '0')).join(':');
  await until(() => statusText(node).startsWith(`8 passed · 1 dropped · 15 held (digest ${at})`), 2000, 'the held count in the status');
  const got = collect(helper.getNode('digest'), 1);
  await clock.advance(10 * 60_000 - 2500 * (order.length - 1));
  const [digest] = await got;
  assert.equal(digest.payload.held, 15);
  assert.equal(digest.payload.urgent, 3);
  assert.equal(digest.payload.passed, 5, 'passed: the messages counted against the cap, urgent ones apart');
  assert.equal(digest.payload.end, new Date(T0 + 10 * 60_000).toISOString());
  assert.equal(passed.length, 8);
}

function countInputs(node) {
  const seen = [];
  node.on('input', (m) => seen.push(m));
  return seen;
}

/** The node's own last status text (the test helper spies on every node at once). */
function statusText(node) {
  const own = node.status.getCalls().filter((c) => c.thisValue === node);
  return own.length ? String(own[own.length - 1].args[0].text) : '';
}
