'use strict';
const assert = require('node:assert/strict');
const { getHelper, nodeModule, translatedModule, collect, until, completeProbe, trackFinished } = require('../support');
const { holdDateNow } = require('../support/fake-clock');
const ev = require('../fixtures/events');

const dedupe = nodeModule('detection-dedupe');
const helper = getHelper();

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

  it('lets a message detection-in emits again (msg.redelivered) through, and still drops a plain resend', async () => {
    const { node, first, finished } = await start();
    const passed = countInputs(first);
    const event = ev.fullLpr();
    node.receive(delivery(event));
    node.receive({ ...delivery(event), redelivered: true });
    node.receive(delivery(resent(event)));
    await finished();
    assert.deepEqual(
      passed.map((m) => m.redelivered === true),
      [false, true],
    );
  });

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

  it('forgets the window on redeploy without persistence', async () => {
    const { node, finished } = await start();
    const event = ev.fullLpr();
    node.receive(delivery(event));
    await finished();
    await helper.setFlows(flow(), 'full');
    const node2 = await until(() => helper.getNode('dd') !== node && helper.getNode('dd'), 2000, 'the redeployed node');
    const passed = countInputs(helper.getNode('first'));
    const finished2 = await until(() => helper.getNode('dd-finished') && trackFinished(node2), 2000, 'the redeployed flow');
    node2.receive(delivery(resent(event)));
    await finished2();
    assert.equal(passed.length, 1);
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
