'use strict';
const assert = require('node:assert/strict');
const { getHelper, nodeModule, translatedModule, collect, until, completeProbe, trackFinished } = require('../support');
const { holdDateNow } = require('../support/fake-clock');
const ev = require('../fixtures/events');

const dedupe = nodeModule('detection-dedupe');
const helper = getHelper();
const { dropWindow } = require('../../dist/lib/dedupe/local-window');
const { keepTracker, dropTracker } = require('../../dist/lib/delivery/registry');

/** The old default key of the cooldown, before keys could be picked by name. */
const OLD_COOLDOWN_KEY =
  '($p := payload.payload; ($p.lprPlateInfo.plate ? $p.lprPlateInfo.plate : $p.personInfo.faceId) & " @ " & $p.detectionInfo.detectorName)';

function flow(config = {}) {
  const outputs = config.duplicatesOutput ? 2 : 1;
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
      wires: outputs === 2 ? [['first'], ['dups']] : [['first']],
      ...config,
    },
    { id: 'first', type: 'helper', z: 'f1' },
    { id: 'dups', type: 'helper', z: 'f1' },
    // fires once per message the dedupe node has finished (passed, dropped or reset)
    ...completeProbe('dd', 'f1'),
  ];
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

describe('detection-dedupe node', () => {
  // The window reads Date.now(): tests of its time hold it still and move it by hand.
  let clock;
  const holdClock = () => (clock = holdDateNow(T0));
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    if (clock) clock.restore();
    clock = undefined;
    await helper.unload();
    await helper.stopServer();
    // the test helper stops flows as a deploy does: the window would be kept for the next test's node
    dropWindow('dd');
  });

  async function start(config, mod = dedupe) {
    await helper.load([mod], flow(config));
    const node = helper.getNode('dd');
    const finished = trackFinished(node);
    return { node, first: helper.getNode('first'), dups: helper.getNode('dups'), finished };
  }

  function countInputs(node) {
    const seen = [];
    node.on('input', (m) => seen.push(m));
    return seen;
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
    helper.settings({ userDir });
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
      helper.settings({});
      fs.rmSync(userDir, { recursive: true, force: true });
    }
  });

  it('with the key log: a damaged line between whole ones is said once, with how many, and the other keys are kept', async () => {
    const fs = require('node:fs');
    const os = require('node:os');
    const path = require('node:path');
    const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dedupe-keylog-'));
    helper.settings({ userDir });
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
      helper.settings({});
      fs.rmSync(userDir, { recursive: true, force: true });
    }
  });

  it('with the key log on a full disk (a small tmpfs: root): passes no repeat, warns once, shows it in yellow, and saves every key once there is room', async () => {
    const fs = require('node:fs');
    const path = require('node:path');
    const { mountTmpfs, fillUp } = require('../support/tmpfs');
    const disk = mountTmpfs('256k');
    helper.settings({ userDir: disk.dir });
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
      const shown = () => node.status.lastCall && node.status.lastCall.args[0];
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
      helper.settings({});
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
    holdClock();
    node.receive(delivery(event));
    await finished();
    clock.advance(1500);
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
    holdClock();
    node.receive(delivery(event));
    node.receive(delivery(resent(event)));
    await finished();
    clock.advance(9999); // the last millisecond of the 10 s window
    node.receive(delivery(resent(event)));
    await finished();
    assert.equal(passed.length, 1, 'still inside the window');
    clock.advance(1); // the window has ended
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
    holdClock();
    node.receive(read('PARK1', 'Gate 1', 'm1'));
    node.receive(read('PARK1', 'Gate 1', 'm2')); // parked car, read again: dropped
    node.receive(read('PARK1', 'Gate 2', 'm3')); // same plate, other camera: passes
    node.receive(read('VISIT9', 'Gate 1', 'm4'));
    await finished();
    clock.advance(2 * 60_000); // the 2 min cooldown ends
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
    holdClock();
    // seen every 40 s for 160 s, each time within the 60 s cooldown, which restarts
    for (let i = 0; i < 5; i++) {
      node.receive({ payload: e, n: i });
      await finished();
      clock.advance(40_000);
    }
    // 40 s after the last sighting, 200 s after the first: still quiet
    node.receive({ payload: e, n: 'parked' });
    await finished();
    clock.advance(60_000); // no longer seen for the whole cooldown
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
    await helper.setFlows(flow(config), type);
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
    await helper.setFlows(
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
      helper.settings({ userDir, contextStorage: { default: { module: 'localfilesystem' } } });
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
        helper.settings({});
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
    for (const bad of [{ ttl: 0 }, { key: 'nonsense', keyType: 'event' }, { key: 'payload.(', keyType: 'jsonata' }, { scope: 'redis', redis: '' }]) {
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

  it('shows passed, dropped and keys in its status', async () => {
    // translated, so the counts themselves are read, as users see them
    const { node, finished } = await start({}, translatedModule('detection-dedupe'));
    const event = ev.fullLpr();
    node.receive(delivery(event));
    node.receive(delivery(resent(event)));
    node.receive(delivery(ev.fullFace()));
    await finished();
    const shown = () => node.status.lastCall && node.status.lastCall.args[0];
    await until(() => shown().text === '2 passed · 1 dropped · 2 keys', 2000, 'the status after three messages');
    assert.equal(shown().fill, 'green');
  });
});
