'use strict';
/**
 * Completion per receiver (issue 25), in the Node-RED runtime over real HTTP:
 * two receivers on two tabs, one with a detection-done downstream and one
 * without. The first holds its events until done marks them (and emits them
 * again after a deploy); the second finishes them when it hands them to the
 * flow, although a done node exists on the other tab. "Finished when"
 * overrides the wiring, and a receiver set to wait for a done node that is
 * not wired says so in yellow and in the log.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { getHelper, nodeModule, translatedModule, translate, loadWithHttp, closeServers, postJson, collect, until, deploy } = require('../support');
const ev = require('../fixtures/events');

const helper = getHelper();
const detectionIn = translatedModule('detection-in');
const detectionDone = nodeModule('detection-done');
const { trackerOf } = require('../../dist/lib/delivery/registry');

const lpr = (id) => {
  const event = ev.fullLpr();
  event.payload.messageId = id;
  return event;
};

/** Receivers keep unfinished events across deploys, by node id: each test has its own ids. */
let n = 0;

/**
 * Tab A: receiver A → heldA (a helper: the test hands its messages to doneA, wired after it).
 * Tab B: receiver B → heldB, no done node. `a`, `b`: more receiver settings.
 */
function twoTabs(ids, a = {}, b = {}) {
  // x and y: a node without them is taken for a configuration node when a deploy rewires it
  return placed([
    { id: 'tabA', type: 'tab', label: 'with done' },
    { id: 'tabB', type: 'tab', label: 'without done' },
    { id: ids.A, type: 'detection-in', z: 'tabA', path: '/hooks/a', auth: 'none', wires: [['heldA'], []], ...a },
    { id: 'heldA', type: 'helper', z: 'tabA', wires: [['doneA']] },
    { id: 'doneA', type: 'detection-done', z: 'tabA', passOn: false, wires: [] },
    { id: ids.B, type: 'detection-in', z: 'tabB', path: '/hooks/b', auth: 'none', wires: [['heldB'], []], ...b },
    { id: 'heldB', type: 'helper', z: 'tabB' },
  ]);
}

/** Flow nodes with a place on their tab. */
const placed = (nodes) => nodes.map((node) => (node.type === 'tab' ? node : { x: 100, y: 100, ...node }));

/** The node's last status (the helper's spies are shared by all nodes: its own calls only). */
function lastStatus(node) {
  const own = node.status.getCalls().filter((c) => c.thisValue === node);
  return own.length > 0 ? own[own.length - 1].args[0] : {};
}
const statusText = (node) => String(lastStatus(node).text || '');
/** How often `node` itself logged `text` as a warning. */
const warned = (node, text) => node.warn.getCalls().filter((c) => c.thisValue === node && c.args[0] === text).length;

describe('completion per receiver', function () {
  let userDir;
  let base;
  let ids;
  beforeEach(async () => {
    n++;
    ids = { A: `cpA${n}`, B: `cpB${n}` };
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'completion-test-'));
    helper.settings({ userDir });
    await helper.startServer();
  });
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
    helper.settings({});
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  async function load(flow) {
    base = await loadWithHttp([detectionIn, detectionDone], flow);
  }

  it('two tabs: A (done downstream) holds its events until done marks them; B (none) finishes them when handed to the flow', async () => {
    await load(twoTabs(ids, { maxInFlight: 2 }, { maxInFlight: 1 }));
    const gotA = collect(helper.getNode('heldA'), 2);
    assert.equal((await postJson(`${base}/hooks/a`, lpr('a1'))).status, 200);
    assert.equal((await postJson(`${base}/hooks/a`, lpr('a2'))).status, 200);
    const [a1] = await gotA;
    // A is full: its events wait for doneA
    const refused = await postJson(`${base}/hooks/a`, lpr('a3'));
    assert.equal(refused.status, 503);
    const receiverA = helper.getNode(ids.A);
    await until(() => / · 2 pending$/.test(statusText(receiverA)), 5000, 'A shows 2 pending');

    // B takes three events with room for one: each is finished once emitted
    const gotB = collect(helper.getNode('heldB'), 3);
    for (const id of ['b1', 'b2', 'b3']) assert.equal((await postJson(`${base}/hooks/b`, lpr(id))).status, 200);
    assert.deepEqual(
      (await gotB).map((m) => m.messageId),
      ['b1', 'b2', 'b3'],
    );
    assert.equal(trackerOf(ids.B).pending.events, 0);
    assert.equal(trackerOf(ids.B).awaitCompletion, false);
    const receiverB = helper.getNode(ids.B);
    await until(() => /3 in/.test(statusText(receiverB)), 5000, 'B counts its events');
    assert.doesNotMatch(statusText(receiverB), /pending/);

    // done marks a1: room for one more on A
    helper.getNode('doneA').receive(a1);
    await until(() => / · 1 pending$/.test(statusText(receiverA)), 5000, 'A shows 1 pending');
    assert.equal((await postJson(`${base}/hooks/a`, lpr('a3'))).status, 200);
  });

  it('after a deploy A emits again what done did not mark; B has nothing left to emit again', async () => {
    await load(twoTabs(ids));
    const gotA = collect(helper.getNode('heldA'), 2);
    const gotB = collect(helper.getNode('heldB'), 2);
    for (const id of ['x', 'y']) {
      assert.equal((await postJson(`${base}/hooks/a`, lpr(id))).status, 200);
      assert.equal((await postJson(`${base}/hooks/b`, lpr(`b-${id}`))).status, 200);
    }
    const [x] = await gotA;
    await gotB;
    helper.getNode('doneA').receive(x);
    await until(() => trackerOf(ids.A).pending.events === 1, 5000, 'x finished');

    // stop and start the flows, as a full deploy does
    await closeServers();
    await helper.unload();
    await load(twoTabs(ids));
    const again = await collect(helper.getNode('heldA'), 1);
    assert.deepEqual(
      again.map((m) => [m.messageId, m.redelivered]),
      [['y', true]],
    );
    // B's first message after the deploy is a new one: nothing of before was held
    const nextB = collect(helper.getNode('heldB'), 1);
    assert.equal((await postJson(`${base}/hooks/b`, lpr('b-new'))).status, 200);
    assert.deepEqual(
      (await nextB).map((m) => [m.messageId, m.redelivered]),
      [['b-new', undefined]],
    );
  });

  it('"handed to the flow" finishes events although a done node is downstream', async () => {
    await load(twoTabs(ids, { finishedWhen: 'handed', maxInFlight: 1 }));
    const got = collect(helper.getNode('heldA'), 3);
    for (const id of ['h1', 'h2', 'h3']) assert.equal((await postJson(`${base}/hooks/a`, lpr(id))).status, 200);
    assert.equal((await got).length, 3);
    assert.equal(trackerOf(ids.A).awaitCompletion, false);
  });

  it('"a detection done node marks it" with none downstream: holds, warns once per deploy and shows it in yellow', async () => {
    await load(twoTabs(ids, {}, { finishedWhen: 'done', maxInFlight: 1 }));
    const receiverB = helper.getNode(ids.B);
    const noDone = translate('detection-in.warnings.no-done');
    await until(() => warned(receiverB, noDone) > 0, 5000, 'the warning in the log');
    assert.equal(warned(receiverB, noDone), 1);
    // the receiver with a done node downstream does not warn
    assert.equal(warned(helper.getNode(ids.A), noDone), 0);

    const got = collect(helper.getNode('heldB'), 1);
    assert.equal((await postJson(`${base}/hooks/b`, lpr('w1'))).status, 200);
    await got;
    assert.equal((await postJson(`${base}/hooks/b`, lpr('w2'))).status, 503, 'held: no room');
    const marker = translate('detection-in.status.no-done');
    await until(() => statusText(receiverB).endsWith(`${marker} · 1 pending`), 5000, 'the warning in the status');
    assert.equal(lastStatus(receiverB).fill, 'yellow');
  });

  it('a done node wired downstream by a deploy makes an automatic receiver wait; unwired again, what it holds is finished', async () => {
    const flow = (wired) => {
      const nodes = twoTabs(ids);
      if (wired) nodes.find((x) => x.id === 'heldB').wires = [['doneB']];
      return [...nodes, ...placed([{ id: 'doneB', type: 'detection-done', z: 'tabB', wires: [] }])];
    };
    await load(flow(false));
    assert.equal(trackerOf(ids.B).awaitCompletion, false);
    await deploy(flow(true), 'nodes');
    await until(() => trackerOf(ids.B).awaitCompletion === true, 5000, 'B waits for doneB');
    const got = collect(helper.getNode('heldB'), 1);
    assert.equal((await postJson(`${base}/hooks/b`, lpr('held'))).status, 200);
    await got;
    assert.equal(trackerOf(ids.B).pending.events, 1);
    await deploy(flow(false), 'nodes');
    await until(() => trackerOf(ids.B).awaitCompletion === false, 5000, 'B no longer waits');
    await until(() => trackerOf(ids.B).pending.events === 0, 5000, 'what B held is finished');
  });
});
