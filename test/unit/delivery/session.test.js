'use strict';
/**
 * lib/delivery/session.ts: a receiver's store session through its ports, in
 * each mode, with the fake clock: events taken and emitted, a deploy (the
 * session closed and a new one opened for the same node: what was not
 * finished is emitted again, flagged, as its next attempt, and what was
 * finished is not), a restart (the process gone: memory keeps nothing by
 * design, a journal is replayed, a Redis instance reads its pending entries
 * back by name), and the time limit on the fake clock. Redis mode runs
 * against a real redis-server this file starts.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { StoreSession } = require('../../../dist/lib/delivery/session');
const { DeployWatch } = require('../../../dist/lib/delivery/deploy-watch');
const { dropTracker, trackerOf } = require('../../../dist/lib/delivery/registry');
const { completion } = require('../../../dist/lib/delivery/completion');
const { strandedList } = require('../../../dist/lib/delivery/stranded');
const { validateEvent } = require('../../../dist/lib/receiver/validation');
const { RedisConnection } = require('../../../dist/lib/redis/connection');
const { RedisServer, redisAvailable } = require('../../support/redis-server');
const { FakeClock } = require('../../support/fake-clock');
const { until } = require('../../support');
const ev = require('../../fixtures/events');

const OPTIONS = {
  ackMode: 'memory',
  maxInFlight: 100,
  maxInFlightMiB: 16,
  journalMaxMiB: 16,
  redeliverAfterSeconds: 0,
  finishedWhen: 'auto',
  streamMaxEvents: 1000,
  streamMaxMiB: 16,
  claimAfterSeconds: 3600,
  maxAttempts: 5,
  firstPauseSeconds: 10,
  maxPauseSeconds: 3600,
  maxDeadLetters: 100,
};

/** The deployed flows: receiver `id` wired to a detection-done, so it waits for done to finish an event. */
const flowsWithDone = (id) => [
  { id: 'tab', type: 'tab' },
  { id, type: 'detection-in', z: 'tab', wires: [['done-' + id], [], []] },
  { id: 'done-' + id, type: 'detection-done', z: 'tab', wires: [] },
];

function lpr(messageId) {
  const event = ev.fullLpr();
  event.payload.messageId = messageId;
  return event;
}

const stateOf = (connection, state) =>
  connection.state === state
    ? Promise.resolve()
    : new Promise((resolve) => {
        const seen = (s) => {
          if (s !== state) return;
          connection.off('state', seen);
          resolve();
        };
        connection.on('state', seen);
      });

describe('lib/delivery StoreSession', function () {
  this.timeout(30_000);
  let dir;
  let n = 0;
  let server;
  const connections = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'session-'));
    if (redisAvailable()) server = await RedisServer.start();
  });
  after(async () => {
    for (const c of connections) await c.close();
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A session for receiver `id`: the messages it sends, on a watch of its own, on `clock`. */
  function open(id, mode, { clock, watch, connection, options = {}, node = { id, z: 'tab' } }) {
    const sent = [];
    const notes = [];
    const session = new StoreSession(
      node,
      { ...OPTIONS, ackMode: mode, ...options },
      { journalPath: path.join(dir, `journal-${id}.log`), redis: () => connection, streamName: `/session/${id}`, clock },
      {
        send: (output, msg) => sent.push({ output, msg }),
        log: { log: (text) => notes.push(text), warn: (text) => notes.push(text), error: (text) => notes.push(text), debug: () => undefined },
        changed: () => undefined,
        t: (key, params) => `${key} ${JSON.stringify(params ?? {})}`,
      },
      watch,
    );
    return { session, sent, notes };
  }

  /** Takes `event` through the store port as lib/receiver does (stage, commit, then emit after the 200). */
  async function take(session, event) {
    await session.ready;
    const body = Buffer.from(JSON.stringify(event));
    const meta = { ip: '127.0.0.1', headers: {}, receivedAt: new Date(0).toISOString() };
    const checked = validateEvent(event, 'lenient');
    const accepted = { event: checked.event, body, kind: checked.kind, messageId: event.payload.messageId, warnings: checked.warnings, meta };
    const staged = session.stage(body, meta);
    if (staged) await staged.commit(accepted);
    else await session.enqueue(accepted);
    session.receiverHooks.emit(accepted);
    return accepted.deliveryId;
  }

  async function redisConnection(instance) {
    const connection = new RedisConnection({ url: server.url, prefix: `session${n}:`, instance }, instance);
    connections.push(connection);
    connection.open();
    await stateOf(connection, 'connected');
    return connection;
  }

  for (const mode of ['memory', 'disk', 'redis']) {
    describe(`${mode} mode`, () => {
      let connection;
      beforeEach(async function () {
        n++;
        if (mode === 'redis') {
          if (!server) return this.skip();
          connection = await redisConnection('one');
        }
      });

      it('a deploy: what the flow had not finished is emitted again once, flagged, as its next attempt', async () => {
        const id = `deploy-${mode}-${n}`;
        const clock = new FakeClock(1000);
        const watch = new DeployWatch(() => flowsWithDone(id));
        const first = open(id, mode, { clock, watch, connection });
        watch.started();
        await take(first.session, lpr('a'));
        await take(first.session, lpr('b'));
        assert.deepEqual(
          first.sent.map((s) => [s.output, s.msg.messageId, s.msg.attempt, s.msg.redelivered]),
          [
            [0, 'a', 1, undefined],
            [0, 'b', 1, undefined],
          ],
        );
        // done marks a; b is still in the flow when the deploy stops it
        assert.equal(completion.finish(first.sent[0].msg), true);
        watch.stopping({ type: 'full' });
        await first.session.close(false);
        const second = open(id, mode, { clock, watch, connection });
        await second.session.ready;
        assert.deepEqual(second.sent, [], 'nothing goes out before the flows have started');
        watch.started();
        await until(() => second.sent.length === 1, 5000, 'b emitted again');
        const again = second.sent[0].msg;
        assert.deepEqual([again.messageId, again.attempt, again.redelivered], ['b', 2, true]);
        completion.finish(again);
        await until(() => trackerOf(id).pending.events === 0, 5000, 'b finished');
        assert.equal(second.sent.length, 1);
        await second.session.close(true);
      });

      it(`a restart: ${mode === 'memory' ? 'memory keeps nothing across a restart (by design)' : 'what was not finished is read back and emitted again'}`, async () => {
        const id = `restart-${mode}-${n}`;
        const clock = new FakeClock(1000);
        const watch = new DeployWatch(() => flowsWithDone(id));
        const first = open(id, mode, { clock, watch, connection });
        watch.started();
        await take(first.session, lpr('r1'));
        await take(first.session, lpr('r2'));
        completion.finish(first.sent[1].msg);
        // The process ends: its stores close, the registry is gone with it.
        await first.session.close(false);
        await dropTracker(id)?.close();
        if (connection) {
          await connection.close();
          connection = await redisConnection('one');
        }
        const restarted = new DeployWatch(() => flowsWithDone(id));
        const second = open(id, mode, { clock, watch: restarted, connection });
        await second.session.ready;
        restarted.started();
        if (mode === 'memory') {
          await take(second.session, lpr('r3'));
          assert.deepEqual(
            second.sent.map((s) => s.msg.messageId),
            ['r3'],
          );
        } else {
          await until(() => second.sent.length === 1, 5000, 'r1 emitted again');
          assert.deepEqual([second.sent[0].msg.messageId, second.sent[0].msg.redelivered, second.sent[0].msg.kind], ['r1', true, 'lpr']);
          completion.finish(second.sent[0].msg);
          await until(() => trackerOf(id).pending.events === 0, 5000, 'r1 finished');
        }
        await second.session.close(true);
      });

      it('deleted with events held, then back under its own id (the deletion undone): they are its own again, not stranded', async () => {
        const id = `back-${mode}-${n}`;
        const clock = new FakeClock(1000);
        const watch = new DeployWatch(() => flowsWithDone(id));
        const node = { id, z: 'tab', key: `/back/${id}` };
        const first = open(id, mode, { clock, watch, connection, node });
        watch.started();
        await take(first.session, lpr('kept'));
        await first.session.close(true);
        assert.deepEqual(
          strandedList().map((s) => [s.receiver, s.events]),
          [[id, 1]],
        );
        const back = open(id, mode, { clock, watch, connection, node });
        await back.session.ready;
        watch.started();
        await until(() => back.sent.length === 1, 5000, 'kept emitted again');
        assert.deepEqual([back.sent[0].msg.messageId, back.sent[0].msg.redelivered], ['kept', true]);
        assert.deepEqual(strandedList(), []);
        completion.finish(back.sent[0].msg);
        await until(() => trackerOf(id).pending.events === 0, 5000, 'kept finished');
        await back.session.close(true);
      });

      if (mode !== 'redis') {
        it('the time limit, on the fake clock: an event not finished in time goes out again as attempt 2', async () => {
          const id = `limit-${mode}-${n}`;
          const clock = new FakeClock(1000);
          const watch = new DeployWatch(() => flowsWithDone(id));
          const { session, sent } = open(id, mode, { clock, watch, options: { redeliverAfterSeconds: 30 } });
          watch.started();
          await take(session, lpr('slow'));
          const events = () => sent.filter((s) => s.output === 0).map((s) => s.msg);
          await clock.advance(29_000);
          assert.equal(events().length, 1);
          await clock.advance(1_000);
          await until(() => events().length === 2, 5000, 'emitted again');
          assert.deepEqual([events()[1].messageId, events()[1].attempt, events()[1].redelivered], ['slow', 2, true]);
          // Its first failure (the time limit) is told on output 3.
          assert.deepEqual(
            sent.filter((s) => s.output === 2).map((s) => [s.msg.topic, s.msg.messageId, s.msg.attempt]),
            [['failed', 'slow', 1]],
          );
          completion.finish(events()[1]);
          await session.close(true);
        });
      }
    });
  }
});
