'use strict';
/**
 * Attempts and dead letters of lib/delivery/stream.ts against a real
 * redis-server: attempts counted in Redis across instances and restarts, a
 * failure paused and tried again, dead-lettered after maxAttempts in one
 * script (slot freed, bytes counted down, bounded), listed, replayed and
 * discarded by another instance, and the happy path writing nothing more.
 */
const assert = require('node:assert/strict');
const { RedisStreamDelivery, STREAM_GROUP } = require('../../../dist/lib/delivery/stream');
const { parseFailure } = require('../../../dist/lib/delivery/stream-dead-letters');
const { DEFAULT_RETRY_POLICY, retryPause } = require('../../../dist/lib/delivery/retry');
const { RedisConnection } = require('../../../dist/lib/redis/connection');
const { RedisServer, redisAvailable } = require('../../support/redis-server');
const { FakeClock } = require('../../support/fake-clock');

function stateOf(connection, state) {
  if (connection.state === state) return Promise.resolve();
  return new Promise((resolve) => {
    const seen = (s) => {
      if (s !== state) return;
      connection.off('state', seen);
      resolve();
    };
    connection.on('state', seen);
  });
}

/** Polls `check` until it holds: waiting on the state that proves it, bounded by the test's timeout. */
async function waitFor(check) {
  for (;;) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const RETRY = { maxAttempts: 3, firstPauseMs: 1000, maxPauseMs: 60_000, maxDeadLetters: 100 };
const body = (n) => Buffer.from(JSON.stringify({ publishType: 'x', n }));
const meta = (n) => ({ kind: 'lpr', messageId: `m-${n}`, receivedAt: new Date(1_700_000_000_000 + n).toISOString() });

describe('lib/delivery RedisStreamDelivery: attempts and dead letters (redis-server)', function () {
  this.timeout(30_000);
  let server;
  const open = [];
  let clock;

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start();
  });
  after(() => server?.close());
  beforeEach(() => (clock = new FakeClock(Date.now())));
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });

  async function connect(instance) {
    const connection = new RedisConnection({ url: server.url, prefix: 'unit:', instance }, instance);
    open.push(connection);
    connection.open();
    await stateOf(connection, 'connected');
    return connection;
  }

  let streams = 0;
  async function delivery(connection, options = {}) {
    const opened = await RedisStreamDelivery.open({
      connection,
      name: options.name ?? `/dl${streams++}`,
      maxEvents: 1000,
      maxBytes: 64 * 1024 * 1024,
      streamMaxEvents: 1000,
      streamMaxBytes: 64 * 1024 * 1024,
      claimAfterMs: 60_000,
      claimEveryMs: 3_600_000,
      retry: RETRY,
      clock,
      ...options,
    });
    open.push(opened.delivery);
    opened.delivery.awaitCompletion = true;
    return opened;
  }

  const counterOf = async (client, d, id) => (await client.xPendingRange(d.key, STREAM_GROUP, id, id, 1))[0];

  it('pauses a failed event and emits it again as attempt 2 once the pause ends, counted in Redis', async () => {
    const a = await connect('a');
    const { delivery: d } = await delivery(a);
    const notices = [];
    d.onFailure = (notice) => notices.push(notice);
    const id = await d.take(meta(1), body(1), { n: 1 });
    assert.equal(d.fail(id, 'not emitted yet'), false, 'not in flight before it is emitted');
    d.emitted(id);
    assert.equal((await counterOf(a.client, d, id)).deliveriesCounter, 1, 'attempt 1');
    assert.equal(d.fail(id, 'mail server down'), true);
    assert.deepEqual(
      notices.map((n) => [n.stage, n.attempts, n.error, n.record.id]),
      [['failed', 1, 'mail server down', id]],
    );
    assert.equal(d.pending.events, 1, 'still held: pending for this instance while paused');
    assert.equal(d.fail(id, 'again'), false, 'paused: not in flight, not counted twice');
    assert.equal(d.fail('1-1', 'unknown'), false);
    const failure = await waitFor(async () => parseFailure((await a.client.hGet(`${d.key}:failures`, id)) ?? undefined));
    assert.deepEqual(failure, { attempt: 1, dueAt: clock.now() + 1000, error: 'mail server down' });
    assert.deepEqual(await d.unfinished(), [], 'a paused event is not in the flow');
    assert.deepEqual([d.stats.oldestUnfinishedAt, d.stats.oldestUnpausedAt], [Date.parse(meta(1).receivedAt), undefined], 'paused: no unpaused age');

    await clock.advance(999);
    assert.deepEqual(await d.overdue(), [], 'the pause has not ended');
    await clock.advance(1);
    const [again] = await d.overdue();
    assert.equal(again.id, id);
    assert.equal(again.attempt, 2);
    assert.deepEqual(again.meta, meta(1));
    assert.equal((await counterOf(a.client, d, id)).deliveriesCounter, 2, 'Redis counts attempt 2');
    d.emitted(id);
    assert.equal(d.fail(id, 'still down'), true);
    assert.equal(notices.length, 1, 'only the first failure is told');
    await clock.advance(retryPause(RETRY, 2) - 1);
    assert.deepEqual(await d.overdue(), [], 'the second pause is four times longer');
    await clock.advance(1);
    assert.deepEqual(
      (await d.overdue()).map((r) => r.attempt),
      [3],
    );
    d.emitted(id);
    d.complete(id);
    await waitFor(async () => (await a.client.xLen(d.key)) === 0);
    await waitFor(async () => (await a.client.exists(`${d.key}:failures`)) === 0);
    assert.deepEqual(d.stats, {
      redelivered: 2,
      failed: 2,
      deadLettered: 0,
      deadLettersDropped: 0,
      deadLetters: 0,
      oldestUnfinishedAt: undefined,
      streamPending: 1, // as the last pass read it
    });
  });

  it('counts attempts across two instances and across a restart under the same name', async () => {
    const name = '/across';
    const a = await connect('a');
    const { delivery: first } = await delivery(a, { name, claimAfterMs: 200 });
    const id = await first.take(meta(2), body(2), {});
    first.emitted(id);
    await first.close(); // instance a dies during attempt 1

    const b = await connect('b');
    const { delivery: second } = await delivery(b, { name, claimAfterMs: 200 });
    const notices = [];
    second.onFailure = (notice) => notices.push(notice);
    const [claimed] = await waitFor(async () => {
      const records = await second.overdue();
      return records.length > 0 && records;
    });
    assert.equal(claimed.id, id);
    assert.equal(claimed.attempt, 2, 'the claim is the next attempt');
    assert.equal(claimed.body.toString(), body(2).toString());
    assert.deepEqual(
      notices.map((n) => [n.stage, n.attempts]),
      [['failed', 1]],
      'the time limit passing is its first failure',
    );
    assert.equal(second.stats.failed, 1);
    assert.equal(second.stats.streamPending, 1, 'read with the claim');
    second.emitted(id);
    await second.close(); // b is restarted during attempt 2

    const b2 = await connect('b');
    const { delivery: third, recovered } = await delivery(b2, { name, claimAfterMs: 200 });
    assert.deepEqual(
      recovered.map((r) => [r.id, r.attempt]),
      [[id, 3]],
      'read back under the same name: attempt 3',
    );
    assert.equal((await counterOf(b2.client, third, id)).deliveriesCounter, 3);
    third.emitted(id);
    assert.equal(third.fail(id, 'bad plate'), true);
    await waitFor(async () => (await b2.client.xLen(third.key)) === 0);
    const [letter] = await third.deadLetters();
    assert.equal(letter.attempts, 3, 'dead after maxAttempts, counted over three instances');
  });

  it('dead-letters after maxAttempts in one step: slot freed, entry and failure gone, bytes counted down, listed without its body', async () => {
    const a = await connect('a');
    const { delivery: d } = await delivery(a, { retry: { ...RETRY, maxAttempts: 2 } });
    const notices = [];
    d.onFailure = (notice) => notices.push(notice);
    const keep = await d.take(meta(3), body(3), {});
    d.emitted(keep);
    const event = { n: 4 };
    const id = await d.take(meta(4), body(4), event);
    d.emitted(id);
    d.fail(id, 'first');
    await clock.advance(1000);
    assert.deepEqual(
      (await d.overdue()).map((r) => [r.id, r.attempt]),
      [[id, 2]],
    );
    d.emitted(id);
    assert.equal(d.fail(id, 'TypeError: plate is undefined'), true);
    await waitFor(() => d.pending.events === 1);
    assert.equal(d.pending.bytes, body(3).length, 'its slot and bytes freed');
    assert.deepEqual(
      notices.map((n) => [n.stage, n.attempts, n.error]),
      [
        ['failed', 1, 'first'],
        ['dead-letter', 2, 'TypeError: plate is undefined'],
      ],
    );
    assert.equal(notices[1].record.event, event, 'the event by reference');
    assert.deepEqual(
      (await a.client.xRange(d.key, '-', '+')).map((e) => e.id),
      [keep],
    );
    assert.equal((await a.client.xPending(d.key, STREAM_GROUP)).pending, 1);
    assert.equal(await a.client.get(`${d.key}:bytes`), String(body(3).length));
    assert.equal(await a.client.exists(`${d.key}:failures`), 0);
    const letters = await d.deadLetters();
    assert.deepEqual(letters, [
      {
        id,
        messageId: 'm-4',
        kind: 'lpr',
        attempts: 2,
        lastError: 'TypeError: plate is undefined',
        receivedAt: 1_700_000_000_004,
        deadAt: clock.now(),
        bytes: body(4).length,
      },
    ]);
    const [stored] = await a.client.xRange(`${d.key}:dead`, '-', '+');
    assert.equal(stored.message.body, body(4).toString(), 'the body is kept in Redis');
    assert.deepEqual(
      { deadLettered: d.stats.deadLettered, deadLetters: d.stats.deadLetters, failed: d.stats.failed },
      { deadLettered: 1, deadLetters: 1, failed: 2 },
    );
    assert.equal(d.stats.oldestUnfinishedAt, 1_700_000_000_003);
  });

  it('dead-letters on claim an entry whose last attempt ran out on an instance that died', async () => {
    const name = '/last-on-dead';
    const a = await connect('a');
    const { delivery: dying } = await delivery(a, { name, claimAfterMs: 200, retry: { ...RETRY, maxAttempts: 1 } });
    const id = await dying.take(meta(5), body(5), {});
    dying.emitted(id);
    await dying.close();
    const b = await connect('b');
    const { delivery: survivor } = await delivery(b, { name, claimAfterMs: 200, retry: { ...RETRY, maxAttempts: 1 } });
    const notices = [];
    survivor.onFailure = (notice) => notices.push(notice);
    await waitFor(async () => (await survivor.overdue(), notices.length > 0));
    assert.deepEqual(
      notices.map((n) => [n.stage, n.attempts, n.record.id, n.record.body.toString()]),
      [['dead-letter', 1, id, body(5).toString()]],
    );
    assert.match(notices[0].error, /not finished within 0.2 s/);
    assert.equal(survivor.pending.events, 0);
    assert.equal(await b.client.xLen(survivor.key), 0);
    assert.equal(await b.client.get(`${survivor.key}:bytes`), '0');
    assert.deepEqual(
      (await survivor.deadLetters()).map((l) => [l.id, l.attempts]),
      [[id, 1]],
    );
  });

  it('dead-letters an event read back after a restart when the attempt cut short was its last', async () => {
    const name = '/last-on-restart';
    const a = await connect('same');
    const { delivery: before } = await delivery(a, { name, retry: { ...RETRY, maxAttempts: 1 } });
    const id = await before.take(meta(6), body(6), {});
    before.emitted(id);
    await before.close();
    const again = await connect('same');
    const { delivery: after, recovered } = await delivery(again, { name, retry: { ...RETRY, maxAttempts: 1 } });
    assert.deepEqual(recovered, [], 'not emitted again');
    const notices = [];
    after.onFailure = (notice) => notices.push(notice);
    await after.overdue();
    await waitFor(() => notices.length > 0);
    assert.deepEqual(
      notices.map((n) => [n.stage, n.attempts]),
      [['dead-letter', 1]],
    );
    assert.match(notices[0].error, /stopped or the flow was redeployed/);
    assert.equal(after.pending.events, 0);
  });

  it('dead-letters once Redis is back when the last attempt fails while it is unreachable', async () => {
    const own = await RedisServer.start({ persist: true });
    try {
      const connection = new RedisConnection({ url: own.url, prefix: 'unit:', maxReconnectDelayMs: 200 }, 'down');
      open.push(connection);
      connection.open();
      await stateOf(connection, 'connected');
      const { delivery: d } = await delivery(connection, { retry: { ...RETRY, maxAttempts: 1 } });
      const notices = [];
      d.onFailure = (notice) => notices.push(notice);
      const id = await d.take(meta(7), body(7), {});
      d.emitted(id);
      const down = stateOf(connection, 'unreachable');
      await own.stop();
      await down;
      assert.equal(d.fail(id, 'boom'), true);
      assert.deepEqual(await d.overdue(), []);
      assert.equal(d.pending.events, 1, 'held until it is written');
      const up = stateOf(connection, 'connected');
      await own.resume();
      await up;
      await waitFor(async () => (await d.overdue(), notices.length > 0));
      assert.deepEqual(
        notices.map((n) => [n.stage, n.attempts, n.error]),
        [['dead-letter', 1, 'boom']],
      );
      assert.equal(d.pending.events, 0);
      assert.deepEqual(
        (await d.deadLetters()).map((l) => l.id),
        [id],
      );
      assert.equal(await connection.client.xLen(d.key), 0);
    } finally {
      await own.close();
    }
  });

  it('keeps dead letters bounded: past maxDeadLetters the oldest is dropped and counted', async () => {
    const a = await connect('a');
    const { delivery: d } = await delivery(a, { retry: { ...RETRY, maxAttempts: 1, maxDeadLetters: 2 } });
    const ids = [];
    for (let n = 10; n < 13; n++) {
      const id = await d.take(meta(n), body(n), {});
      d.emitted(id);
      d.fail(id, `bad ${n}`);
      ids.push(id);
      await waitFor(() => d.pending.events === 0);
    }
    assert.deepEqual(
      (await d.deadLetters()).map((l) => [l.id, l.lastError]),
      [
        [ids[1], 'bad 11'],
        [ids[2], 'bad 12'],
      ],
    );
    assert.equal(await a.client.xLen(`${d.key}:dead`), 2, 'the body went with it');
    assert.deepEqual(
      { deadLettered: d.stats.deadLettered, deadLettersDropped: d.stats.deadLettersDropped, deadLetters: d.stats.deadLetters },
      { deadLettered: 3, deadLettersDropped: 1, deadLetters: 2 },
    );
  });

  it('replays and discards dead letters from another instance: the event comes back with fresh attempts, due at once', async () => {
    const name = '/shared-dead';
    const a = await connect('a');
    const { delivery: da } = await delivery(a, { name, retry: { ...RETRY, maxAttempts: 1 } });
    const ids = [];
    for (let n = 20; n < 24; n++) {
      const id = await da.take(meta(n), body(n), {});
      da.emitted(id);
      da.fail(id, 'poison');
      ids.push(id);
    }
    await waitFor(() => da.pending.events === 0);

    const b = await connect('b');
    const { delivery: db } = await delivery(b, { name, retry: { ...RETRY, maxAttempts: 1 } });
    assert.equal(db.stats.deadLetters, 4, 'counted when it opens');
    assert.deepEqual(
      (await db.deadLetters()).map((l) => l.id),
      ids,
    );
    const due = new Promise((resolve) => (db.onOverdue = resolve));
    assert.equal(await db.replay([ids[1], 'no-such-id']), 1);
    await due;
    const [replayed] = await db.overdue();
    assert.notEqual(replayed.id, ids[1], 'a new entry of the stream');
    assert.equal(replayed.attempt, 1, 'attempts fresh');
    assert.equal(replayed.body.toString(), body(21).toString());
    assert.equal(replayed.meta.messageId, 'm-21');
    const pending = await b.client.xPendingRange(db.key, STREAM_GROUP, '-', '+', 10);
    assert.deepEqual(
      pending.map((p) => [p.id, p.consumer, p.deliveriesCounter]),
      [[replayed.id, 'b', 1]],
      'pending for the instance that replayed it',
    );
    assert.equal(await b.client.get(`${db.key}:bytes`), String(body(21).length));
    db.emitted(replayed.id);
    assert.equal(db.stats.redelivered, 1, 'a replay is emitted again');
    db.complete(replayed.id);
    await waitFor(async () => (await b.client.xLen(db.key)) === 0);

    assert.equal(await db.discard([ids[0]]), 1);
    assert.deepEqual(
      (await da.deadLetters()).map((l) => l.id),
      [ids[2], ids[3]],
      'the same list from every instance',
    );
    assert.equal(await db.discard(), 2);
    assert.deepEqual(await da.deadLetters(), []);
    assert.equal(await a.client.exists(`${da.key}:dead`), 0);
    assert.equal(db.stats.deadLetters, 0);

    // all of them at once
    for (let n = 30; n < 32; n++) {
      const id = await da.take(meta(n), body(n), {});
      da.emitted(id);
      da.fail(id, 'poison');
    }
    await waitFor(() => da.pending.events === 0);
    db.onOverdue = undefined;
    assert.equal(await db.replay(), 2);
    assert.deepEqual(
      (await db.overdue()).map((r) => [r.meta.messageId, r.attempt]),
      [
        ['m-30', 1],
        ['m-31', 1],
      ],
    );
    assert.deepEqual(await db.deadLetters(), []);
  });

  it('keeps a paused event from being claimed by another instance; a pause its dead instance left is kept by the claimer', async () => {
    const name = '/paused';
    const claimAfterMs = 1000;
    const a = await connect('a');
    const { delivery: da } = await delivery(a, { name, claimAfterMs, retry: { ...RETRY, firstPauseMs: 600_000 } });
    const b = await connect('b');
    const { delivery: db } = await delivery(b, { name, claimAfterMs, retry: { ...RETRY, firstPauseMs: 600_000 } });
    const id = await da.take(meta(40), body(40), {});
    da.emitted(id);
    da.fail(id, 'later');
    const idleOf = async () => (await counterOf(a.client, da, id)).millisecondsSinceLastDelivery;
    await waitFor(async () => (await idleOf()) >= claimAfterMs);
    await clock.advance(claimAfterMs / 2);
    assert.deepEqual(await da.overdue(), [], 'still paused');
    assert.ok((await idleOf()) < claimAfterMs, 'its idle time was reset');
    assert.deepEqual(await db.overdue(), [], 'not idle long enough for b to claim');
    assert.equal((await counterOf(a.client, da, id)).consumer, 'a');

    await da.close(); // a dies during the pause
    await waitFor(async () => (await idleOf()) >= claimAfterMs);
    assert.deepEqual(await db.overdue(), [], 'claimed, but the pause has not ended');
    const claimed = await counterOf(b.client, db, id);
    assert.deepEqual([claimed.consumer, claimed.deliveriesCounter], ['b', 1], 'its counter is the failed attempt again');
    assert.equal(db.pending.events, 1);
    await clock.advance(600_000);
    assert.deepEqual(
      (await db.overdue()).map((r) => [r.id, r.attempt]),
      [[id, 2]],
    );
  });

  it('writes nothing more than before for an event finished normally', async () => {
    const a = await connect('a');
    const { delivery: d } = await delivery(a);
    for (let n = 0; n < 3; n++) {
      const id = await d.take(meta(n), body(n), {});
      d.emitted(id);
      d.complete(id);
    }
    await waitFor(async () => (await a.client.xLen(d.key)) === 0);
    assert.deepEqual((await a.client.keys(`${d.key}*`)).sort(), [d.key, `${d.key}:bytes`]);
    assert.equal(d.stats.redelivered, 0);
  });

  it('retries by the default policy: 10 s, ×4 each time, at most an hour, five attempts, 100 dead letters', () => {
    assert.deepEqual(DEFAULT_RETRY_POLICY, { maxAttempts: 5, firstPauseMs: 10_000, maxPauseMs: 3_600_000, maxDeadLetters: 100 });
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => retryPause(DEFAULT_RETRY_POLICY, n)),
      [10_000, 40_000, 160_000, 640_000, 2_560_000, 3_600_000],
    );
  });
});
