'use strict';
/**
 * Attempts and dead letters (issue 27) in the Node-RED runtime over real
 * HTTP: a detection done set to "failed" makes detection-in try the event
 * again (msg.attempt 2, 3 …) after its pause; after Max attempts the event
 * goes out on output 3 as a dead letter, frees its In flight slot, shows in
 * the status, is listed by the admin endpoint and sent through again by it.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { getHelper, nodeModule, translatedModule, loadWithHttp, closeServers, postJson, until, ownStatus } = require('../support');
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

let n = 0;

/** The node's last status of its own. */
function statusText(node) {
  return String(ownStatus(node)?.text || '');
}

/** Messages a helper node receives, as they come. */
function inbox(node) {
  const got = [];
  node.on('input', (msg) => got.push(msg));
  return got;
}

describe('attempts and dead letters (detection-in, detection done set to failed)', function () {
  let userDir;
  let base;
  let id;
  beforeEach(async () => {
    n++;
    id = `dl${n}`;
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dead-letters-test-'));
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

  async function load(receiver = {}) {
    base = await loadWithHttp(
      [detectionIn, detectionDone],
      [
        { id: 't1', type: 'tab', label: 'dead letters' },
        {
          id,
          type: 'detection-in',
          z: 't1',
          path: '/hooks/dl',
          auth: 'none',
          maxInFlight: 1,
          maxAttempts: 3,
          firstPauseSeconds: 0.05,
          maxPauseSeconds: 0.1,
          x: 100,
          y: 100,
          wires: [['held'], [], ['failures']],
          ...receiver,
        },
        { id: 'held', type: 'helper', z: 't1', x: 300, y: 100, wires: [['done']] },
        { id: 'done', type: 'detection-done', z: 't1', x: 500, y: 100, wires: [] },
        // what a Catch node feeds: the test gives it the caught messages
        { id: 'failed', type: 'detection-done', z: 't1', outcome: 'failed', x: 500, y: 200, wires: [] },
        { id: 'failures', type: 'helper', z: 't1', x: 300, y: 200 },
      ],
    );
  }

  /** What a Catch node sends for `msg`: the message with the error it caught. */
  const caught = (msg, message) => ({ ...msg, error: { message, source: { id: 'fn1', type: 'function', name: 'alert' } } });

  it('a failed event is tried again with msg.attempt 2, 3; after Max attempts it is a dead letter on output 3 and its slot is free', async () => {
    await load();
    const held = inbox(helper.getNode('held'));
    const failures = inbox(helper.getNode('failures'));
    const receiver = helper.getNode(id);
    assert.equal((await postJson(`${base}/hooks/dl`, lpr('poison'))).status, 200);
    for (const attempt of [1, 2, 3]) {
      await until(() => held.length === attempt, 5000, `attempt ${attempt}`).catch((err) => {
        // seen once in a while in CI, never here: what the tracker held then
        const tracker = trackerOf(id);
        const entries = [...(tracker?.inFlight ?? new Map())].map(([key, e]) => ({
          key,
          attempts: e.attempts,
          dueAt: e.dueAt,
          emittedAt: e.emittedAt,
        }));
        const failedCalls = helper
          .getNode('failed')
          .error.getCalls()
          .map((c) => String(c.args[0]));
        throw new Error(
          `${err.message}: ${JSON.stringify({ now: Date.now(), entries, stats: tracker?.stats, held: held.length, failedErrors: failedCalls })}`,
        );
      });
      const msg = held[attempt - 1];
      assert.equal(msg.attempt, attempt);
      assert.equal(msg.messageId, 'poison');
      assert.equal(msg.redelivered, attempt > 1 ? true : undefined);
      if (attempt === 1) assert.equal((await postJson(`${base}/hooks/dl`, lpr('other'))).status, 503, 'the only slot is held');
      helper.getNode('failed').receive(caught(msg, `mail server down ${attempt}`));
    }
    await until(() => failures.length === 2, 5000, 'the dead letter on output 3');
    assert.deepEqual(
      failures.map((m) => [m.topic, m.attempt, m.error, m.messageId, m.kind]),
      [
        ['failed', 1, 'mail server down 1 (alert)', 'poison', 'lpr'],
        ['dead-letter', 3, 'mail server down 3 (alert)', 'poison', 'lpr'],
      ],
    );
    assert.equal(failures[1].payload, held[0].payload, 'the event, by reference');
    assert.equal(failures[1].detection.plate, held[0].detection.plate);
    assert.equal(failures[1]._delivery, undefined, 'nothing a done node could finish');
    assert.equal(trackerOf(id).pending.events, 0);
    await until(() => / · 1 dead$/.test(statusText(receiver)), 5000, 'the status shows the dead letter');
    assert.notEqual(ownStatus(receiver).fill, 'red');

    // The slot is free: a new event is taken, and finished.
    assert.equal((await postJson(`${base}/hooks/dl`, lpr('fresh'))).status, 200);
    await until(() => held.length === 4, 5000, 'the new event');
    assert.equal(held[3].attempt, 1);
    helper.getNode('done').receive(held[3]);
    await until(() => trackerOf(id).pending.events === 0, 5000, 'the new event finished');

    // Listed by the admin endpoint; replayed by it as attempt 1, then finished.
    const listed = await helper.request().get(`/detection-bridge/dead-letters/${id}`).expect(200);
    assert.equal(listed.body.count, 1);
    assert.deepEqual(
      listed.body.items.map((d) => [d.messageId, d.attempts, d.lastError, d.kind]),
      [['poison', 3, 'mail server down 3 (alert)', 'lpr']],
    );
    const replayed = await helper.request().post(`/detection-bridge/dead-letters/${id}/replay`).send({}).expect(200);
    assert.deepEqual(replayed.body, { replayed: 1 });
    await until(() => held.length === 5, 5000, 'the replayed event');
    assert.deepEqual([held[4].messageId, held[4].attempt, held[4].redelivered], ['poison', 1, true]);
    helper.getNode('done').receive(held[4]);
    await until(() => trackerOf(id).pending.events === 0, 5000, 'the replayed event finished');
    const after = await helper.request().get(`/detection-bridge/dead-letters/${id}`).expect(200);
    assert.deepEqual(after.body, { count: 0, items: [] });
    await until(() => !/dead/.test(statusText(receiver)), 5000, 'no dead letters in the status');
  });

  it('the admin endpoints: discard by id, a bad body is 400, an unknown node is a 404 problem', async () => {
    await load({ maxAttempts: 1 });
    const held = inbox(helper.getNode('held'));
    const failures = inbox(helper.getNode('failures'));
    for (const m of ['a', 'b']) {
      assert.equal((await postJson(`${base}/hooks/dl`, lpr(m))).status, 200);
      await until(() => held.length === failures.length + 1, 5000, `event ${m}`);
      helper.getNode('failed').receive({ ...held[held.length - 1], error: 'plain text error' });
      await until(() => failures.length === held.length, 5000, `dead letter ${m}`);
    }
    assert.deepEqual(
      failures.map((m) => [m.topic, m.error]),
      [
        ['dead-letter', 'plain text error'],
        ['dead-letter', 'plain text error'],
      ],
      'Max attempts 1: the first failure is the last',
    );
    const listed = await helper.request().get(`/detection-bridge/dead-letters/${id}`).expect(200);
    assert.equal(listed.body.count, 2);
    await helper.request().post(`/detection-bridge/dead-letters/${id}/discard`).send({ ids: 'all' }).expect(400);
    const dropped = await helper
      .request()
      .post(`/detection-bridge/dead-letters/${id}/discard`)
      .send({ ids: [listed.body.items[0].id] })
      .expect(200);
    assert.deepEqual(dropped.body, { discarded: 1 });
    const left = await helper.request().get(`/detection-bridge/dead-letters/${id}`).expect(200);
    assert.deepEqual(
      left.body.items.map((d) => d.messageId),
      ['b'],
    );
    const optional = await helper.request().get('/detection-bridge/dead-letters/nosuchnode?optional=1').expect(200);
    assert.deepEqual(optional.body, { count: 0, items: [], deployed: false }, "the dialog's ask: no error in a browser");
    const unknown = await helper.request().get('/detection-bridge/dead-letters/nosuchnode').expect(404);
    assert.match(unknown.headers['content-type'], /application\/problem\+json/);
    assert.match(JSON.parse(unknown.text).detail, /nosuchnode/);
  });
});
