'use strict';
/**
 * lib/platform/push-queue.ts: batching per path, per-message tickets, retries and close,
 * against the mock v2 core through lib/platform/client.ts (and a few stub
 * senders where the timing must be controlled).
 */
const assert = require('node:assert/strict');
const path = require('node:path');

const dist = require('path').resolve(__dirname, '../../../dist');
const push = require(path.join(dist, 'lib', 'platform', 'push-queue'));
const { PlatformClient } = require(path.join(dist, 'lib', 'platform', 'client'));
const { posBatchPath } = require(path.join(dist, 'lib', 'platform', 'url'));
const retry = require(path.join(dist, 'lib', 'platform', 'retry'));
const { isRetryableError } = require(path.join(dist, 'lib', 'http', 'net-errors'));
const { isRetryableStatus } = require(path.join(dist, 'lib', 'http', 'transport-error'));
const { startMockCore } = require(path.join(dist, 'sim', 'mock-core'));
const { FakeClock } = require('../../support/fake-clock');

const { PushQueue } = push;
const USER = 'pusher';
const PASSWORD = 'push-secret-123';
const POS_A = posBatchPath('pos-main-bar');
const POS_B = posBatchPath('pos-restaurant');

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/** Records what a queue reports, and checks every ticket is settled once. */
function recorder() {
  const batches = [];
  const tickets = new Map();
  const retries = [];
  return {
    batches,
    tickets,
    retries,
    onBatchDone: (result) => batches.push(result),
    onTicketDone: (outcome) => {
      const seen = tickets.get(outcome.ticket);
      if (seen) seen.count++;
      else tickets.set(outcome.ticket, { count: 1, outcome });
    },
    onRetry: (info) => retries.push(info),
    assertEachOnce(expected) {
      for (const t of expected) {
        const seen = tickets.get(t);
        assert.ok(seen, `ticket ${JSON.stringify(t)} was settled`);
        assert.equal(seen.count, 1, `ticket ${JSON.stringify(t)} settled once`);
      }
      assert.equal(tickets.size, expected.length, 'no other tickets');
    },
  };
}

describe('lib/platform/push-queue', function () {
  this.timeout(20000);
  let core;
  let client;
  const queues = [];

  /** A queue that sends to the mock core; delays are recorded, not waited. */
  function queue(options = {}, rec = recorder()) {
    const delays = [];
    const q = new PushQueue({
      send: (p, items, ctx) =>
        client.request({ method: 'POST', path: p, body: items, headers: { 'idempotency-key': ctx.batchId }, signal: ctx.signal }),
      sleep: async (ms) => {
        delays.push(ms);
      },
      random: () => 0.5,
      ...rec,
      ...options,
    });
    queues.push(q);
    return { q, rec, delays };
  }

  before(async () => {
    core = await startMockCore({ userName: USER, password: PASSWORD, maxRecorded: 1000 });
  });

  after(async () => {
    await core.close();
  });

  beforeEach(() => {
    core.reset();
    client = new PlatformClient({ baseUrl: core.url, userName: USER, password: PASSWORD });
  });

  afterEach(async () => {
    for (const q of queues.splice(0)) await q.close(1000);
    await client.close();
  });

  describe('batching', () => {
    it('delivers 1,000 items added one by one in at most ceil(1000/N)+1 requests, none lost or duplicated', async () => {
      const { q, rec } = queue({ maxItems: 100, maxWaitMs: 50 });
      const ids = [];
      const pending = [];
      for (let i = 0; i < 1000; i++) {
        const id = `tx-${String(i).padStart(4, '0')}`;
        ids.push(id);
        pending.push(q.add(POS_A, [{ id, amount: i / 100 }], `msg-${i}`));
      }
      const outcomes = await Promise.all(pending);
      assert.ok(outcomes.every((o) => o.ok && o.items === 1 && o.batches === 1));
      await q.whenIdle();
      assert.ok(core.received.batchCount <= Math.ceil(1000 / 100) + 1, `${core.received.batchCount} requests`);
      const got = core.received.batches.flatMap((b) => b.items.map((item) => item.id));
      assert.equal(got.length, 1000);
      assert.equal(new Set(got).size, 1000, 'no duplicates');
      assert.deepEqual(got, ids, 'all there, in order');
      assert.ok(core.received.batches.every((b) => b.items.length <= 100 && b.posId === 'pos-main-bar'));
      rec.assertEachOnce(ids.map((_, i) => `msg-${i}`));
      const stats = q.stats();
      assert.equal(stats.pushed, 1000);
      assert.equal(stats.failed, 0);
      assert.equal(stats.queued, 0);
      assert.equal(stats.inFlight, 0);
      assert.equal(stats.openTickets, 0);
      assert.equal(stats.requests, core.received.batchCount);
      assert.equal(client.loginCount, 1);
    });

    it('settles a message whose items span two batches once, after both', async () => {
      const { q, rec } = queue({ maxItems: 10, maxWaitMs: 30 });
      const a = q.add(
        POS_A,
        Array.from({ length: 7 }, (_, i) => ({ id: `a${i}` })),
        'A',
      );
      const b = q.add(
        POS_A,
        Array.from({ length: 7 }, (_, i) => ({ id: `b${i}` })),
        'B',
      );
      const [outA, outB] = await Promise.all([a, b]);
      assert.deepEqual([outA.ok, outA.batches, outA.items], [true, 1, 7]);
      assert.deepEqual([outB.ok, outB.batches, outB.items], [true, 2, 7]);
      assert.deepEqual(
        core.received.batches.map((x) => x.items.length),
        [10, 4],
      );
      assert.deepEqual(
        rec.batches.map((r) => r.tickets),
        [['A', 'B'], ['B']],
      );
      assert.deepEqual(
        rec.batches.map((r) => r.completed.map((o) => o.ticket)),
        [['A'], ['B']],
      );
      rec.assertEachOnce(['A', 'B']);
    });

    it('splits a large addition across batches and groups per path', async () => {
      const { q, rec } = queue({ maxItems: 10, maxWaitMs: 30 });
      const big = q.add(
        POS_A,
        Array.from({ length: 25 }, (_, i) => ({ id: `x${i}` })),
        'big',
      );
      const other = q.add(POS_B, [{ id: 'r1' }, { id: 'r2' }], 'other');
      const [outBig, outOther] = await Promise.all([big, other]);
      assert.equal(outBig.batches, 3);
      assert.equal(outOther.batches, 1);
      const byPos = (pos) => core.received.batches.filter((x) => x.posId === pos).map((x) => x.items.map((i) => i.id));
      assert.deepEqual(
        byPos('pos-main-bar').map((ids) => ids.length),
        [10, 10, 5],
      );
      assert.deepEqual(
        byPos('pos-main-bar').flat(),
        Array.from({ length: 25 }, (_, i) => `x${i}`),
      );
      assert.deepEqual(byPos('pos-restaurant'), [['r1', 'r2']]);
      rec.assertEachOnce(['big', 'other']);
    });

    it('sends a partial batch maxWaitMs after its first item', async () => {
      const clock = new FakeClock();
      const { q } = queue({ maxItems: 100, maxWaitMs: 150, clock });
      const done = q.add(POS_A, [{ id: 1 }], 'm1');
      await clock.advance(50);
      q.add(POS_A, [{ id: 2 }, { id: 3 }], 'm2');
      await clock.advance(99);
      assert.deepEqual([q.stats().queued, q.stats().batchesInFlight], [3, 0], 'at 149 ms all three still wait');
      await clock.advance(1);
      assert.deepEqual([q.stats().queued, q.stats().batchesInFlight], [0, 1], 'at 150 ms after the first item they leave as one batch');
      await done;
      assert.deepEqual(
        core.received.batches.map((b) => b.items.length),
        [3],
      );
    });

    it('keeps one batch in flight per path; the next one accumulates meanwhile', async () => {
      let inFlight = 0;
      let most = 0;
      const sent = [];
      const rec = recorder();
      const q = new PushQueue({
        maxItems: 5,
        maxWaitMs: 10,
        ...rec,
        send: async (p, items) => {
          inFlight++;
          most = Math.max(most, inFlight);
          sent.push(items.map((i) => i.n));
          await tick(30);
          inFlight--;
          return { statusCode: 200, headers: {}, body: null };
        },
      });
      queues.push(q);
      const all = [];
      for (let n = 0; n < 23; n++) {
        all.push(q.add('/p', [{ n }], n));
        if (n % 4 === 0) await tick(5);
      }
      await Promise.all(all);
      assert.equal(most, 1);
      assert.deepEqual(
        sent.flat(),
        Array.from({ length: 23 }, (_, n) => n),
      );
      assert.ok(sent.every((b) => b.length <= 5));
    });

    it('settles an empty addition at once, and sends the batch id as idempotency key', async () => {
      const { q, rec } = queue({ maxItems: 2, maxWaitMs: 10 });
      const empty = await q.add(POS_A, [], 'empty');
      assert.deepEqual([empty.ok, empty.items, empty.batches], [true, 0, 0]);
      await q.add(POS_A, [{ id: 1 }, { id: 2 }], 'two');
      assert.equal(core.received.batches[0].headers['idempotency-key'], rec.batches[0].batchId);
      rec.assertEachOnce(['empty', 'two']);
    });
  });

  describe('retries', () => {
    it('honours Retry-After seconds on 429, capped by maxDelayMs', async () => {
      const { q, rec, delays } = queue({ maxItems: 3, maxWaitMs: 10 });
      core.failNext(1, { status: 429, retryAfter: 7 });
      let out = await q.add(POS_A, [{ id: 1 }, { id: 2 }, { id: 3 }], 'm');
      assert.equal(out.ok, true);
      assert.deepEqual(delays, [7000]);
      assert.equal(rec.batches[0].attempts, 2);
      assert.equal(rec.retries[0].statusCode, 429);
      core.failNext(1, { status: 429, retryAfter: 120 });
      out = await q.add(POS_A, [{ id: 4 }, { id: 5 }, { id: 6 }], 'n');
      assert.equal(out.ok, true);
      assert.deepEqual(delays, [7000, 30000]);
      assert.equal(core.received.batchCount, 2);
      assert.deepEqual(
        core.received.batches.flatMap((b) => b.items.map((i) => i.id)),
        [1, 2, 3, 4, 5, 6],
      );
    });

    it('honours a Retry-After HTTP date', async () => {
      const now = Date.parse('2030-01-01T00:00:00Z');
      const clock = new FakeClock(now);
      const { q, delays } = queue({ maxItems: 1, clock });
      core.failNext(1, { status: 429, retryAfter: 'Tue, 01 Jan 2030 00:00:12 GMT' });
      assert.equal((await q.add(POS_A, [{ id: 1 }], 'm')).ok, true);
      assert.deepEqual(delays, [12000]);
      assert.equal(retry.parseRetryAfter('3', 0), 3000);
      assert.equal(retry.parseRetryAfter(['1.5'], 0), 1500);
      assert.equal(retry.parseRetryAfter('Tue, 01 Jan 2030 00:00:00 GMT', now + 5000), 0, 'a date in the past: at once');
      assert.equal(retry.parseRetryAfter('soon', 0), undefined);
      assert.equal(retry.parseRetryAfter(undefined, 0), undefined);
    });

    it('retries 503 with exponential backoff and full jitter, then succeeds', async () => {
      const { q, rec, delays } = queue({ maxItems: 2, baseDelayMs: 500, random: () => 0.5 });
      core.failNext(3, { status: 503 });
      const out = await q.add(POS_A, [{ id: 1 }, { id: 2 }], 'm');
      assert.equal(out.ok, true);
      assert.deepEqual(delays, [250, 500, 1000], 'random 0.5 × 500·2^(n-1)');
      assert.equal(rec.batches[0].attempts, 4);
      assert.equal(core.received.batchCount, 1, 'recorded once: the failures never reached the route');
      assert.equal(q.stats().retries, 3);
      assert.equal(q.stats().requests, 4);
    });

    it('keeps jittered delays inside [0, min(maxDelayMs, base·2^(n-1)))', async () => {
      let r = 0;
      const randoms = [0, 0.999, 0.3, 0.999, 0.999, 0.999];
      const { q, delays } = queue({ maxItems: 1, baseDelayMs: 1000, maxDelayMs: 5000, maxRetries: 6, random: () => randoms[r++] });
      core.failNext(6, { status: 502 });
      assert.equal((await q.add(POS_A, [{ id: 1 }], 'm')).ok, true);
      assert.deepEqual(delays, [0, 1998, 1200, 4995, 4995, 4995]);
    });

    it('does not retry a 400: the batch fails with the answer body, every ticket is told', async () => {
      const { q, rec, delays } = queue({ maxItems: 4, maxWaitMs: 10 });
      core.failNext(1, { status: 400, body: { title: 'Bad Request', errors: [{ field: 'amount', message: 'must be a number' }] } });
      const [a, b] = await Promise.all([q.add(POS_A, [{ id: 1 }, { id: 2 }], 'A'), q.add(POS_A, [{ id: 3 }, { id: 4 }], 'B')]);
      for (const out of [a, b]) {
        assert.equal(out.ok, false);
        assert.equal(out.failedItems, 2);
        assert.equal(out.error.code, 'ERR_PUSH_STATUS');
        assert.equal(out.error.status, 400);
        assert.deepEqual(out.error.body, { title: 'Bad Request', errors: [{ field: 'amount', message: 'must be a number' }] });
        assert.match(
          out.error.message,
          /^push of 4 items to \/api\/v2\/pos\/plugins\/pos-main-bar\/events\/batch failed after 1 attempt: 400 \(Bad Request\): .*must be a number/,
        );
      }
      assert.deepEqual(delays, []);
      assert.equal(rec.batches.length, 1);
      assert.equal(rec.batches[0].ok, false);
      assert.deepEqual(
        rec.batches[0].items.map((i) => i.id),
        [1, 2, 3, 4],
        'the failed items are reported',
      );
      assert.deepEqual(rec.batches[0].tickets, ['A', 'B']);
      assert.equal(q.stats().failed, 4);
      assert.equal(q.stats().lastError.status, 400);
      rec.assertEachOnce(['A', 'B']);
      // the path is not blocked
      assert.equal((await q.add(POS_A, [{ id: 5 }], 'C')).ok, true);
    });

    it('retries a network error (connection dropped)', async () => {
      const { q, rec, delays } = queue({ maxItems: 2 });
      core.failNext(1, { drop: true });
      const out = await q.add(POS_A, [{ id: 1 }, { id: 2 }], 'm');
      assert.equal(out.ok, true);
      assert.equal(delays.length, 1);
      assert.equal(rec.retries[0].error.code, 'ERR_PLATFORM_NETWORK');
      assert.deepEqual(
        core.received.batches.map((b) => b.items.map((i) => i.id)),
        [[1, 2]],
      );
    });

    it('leaves a 401 to the client: it signs in again, the queue does not retry', async () => {
      const { q, delays } = queue({ maxItems: 1 });
      assert.equal((await q.add(POS_A, [{ id: 1 }], 'a')).ok, true);
      core.expireTokens();
      assert.equal((await q.add(POS_A, [{ id: 2 }], 'b')).ok, true);
      assert.deepEqual(delays, []);
      assert.equal(client.loginCount, 2);
      assert.equal(q.stats().requests, 2);
    });

    it('gives up after maxRetries and reports the items', async () => {
      const { q, rec, delays } = queue({ maxItems: 3, maxRetries: 2 });
      core.failNext(10, { status: 500, body: { title: 'boom' } });
      const out = await q.add(POS_A, [{ id: 1 }, { id: 2 }, { id: 3 }], 'm');
      assert.equal(out.ok, false);
      assert.equal(out.error.attempts, 3);
      assert.match(out.error.message, /failed after 3 attempts: 500 \(Internal Server Error\): \{"title":"boom"\}$/);
      assert.equal(delays.length, 2);
      assert.deepEqual(
        rec.batches[0].items.map((i) => i.id),
        [1, 2, 3],
      );
    });

    it('does not retry an error that says it will not pass (bad password)', async () => {
      await client.close();
      client = new PlatformClient({ baseUrl: core.url, userName: USER, password: 'wrong' });
      const { q, delays } = queue({ maxItems: 1 });
      const out = await q.add(POS_A, [{ id: 1 }], 'm');
      assert.equal(out.ok, false);
      assert.equal(out.error.code, 'ERR_PUSH_SEND');
      assert.equal(out.error.cause.code, 'ERR_PLATFORM_LOGIN');
      assert.match(out.error.message, /sign-in at .* failed: 401/);
      assert.doesNotMatch(out.error.message, /wrong/);
      assert.deepEqual(delays, []);
    });

    it('default retry decision for errors', () => {
      assert.equal(isRetryableError(Object.assign(new Error('x'), { code: 'ECONNRESET' })), true);
      assert.equal(isRetryableError(new Error('x', { cause: { code: 'UND_ERR_SOCKET' } })), true);
      assert.equal(isRetryableError(Object.assign(new Error('x'), { retryable: false, code: 'ECONNRESET' })), false);
      assert.equal(isRetryableError(new TypeError('bug')), false);
      assert.deepEqual([408, 429, 500, 503, 599, 400, 401, 404, 422].map(isRetryableStatus), [
        true,
        true,
        true,
        true,
        true,
        false,
        false,
        false,
        false,
      ]);
    });
  });

  describe('flush, close and limits', () => {
    it('flush() sends at once; close() flushes what waits', async () => {
      const { q } = queue({ maxItems: 100, maxWaitMs: 60_000 });
      const a = q.add(POS_A, [{ id: 1 }], 'a');
      await q.flush();
      assert.equal((await a).ok, true);
      const b = q.add(POS_B, [{ id: 2 }], 'b');
      const report = await q.close();
      assert.deepEqual(report, { drained: true, unsentItems: 0, unsentTickets: [] });
      assert.equal((await b).ok, true);
      assert.equal(core.received.batchCount, 2);
      const late = await q.add(POS_A, [{ id: 3 }], 'late');
      assert.equal(late.ok, false);
      assert.equal(late.error.code, 'ERR_PUSH_CLOSED');
    });

    it('close() gives up at its bound and reports the unsent items once', async () => {
      const rec = recorder();
      const signals = [];
      let release;
      const clock = new FakeClock();
      const q = new PushQueue({
        maxItems: 2,
        maxWaitMs: 10,
        clock,
        ...rec,
        // a platform that never answers
        send: (p, items, ctx) => {
          signals.push(ctx.signal);
          return new Promise((resolve) => {
            release = () => resolve({ statusCode: 200 });
          });
        },
      });
      const outs = [q.add('/p', [1, 2], 'first'), q.add('/p', [3, 4, 5], 'second')];
      await clock.advance(10); // the first batch leaves and hangs
      assert.equal(signals.length, 1);
      const closing = q.close(200);
      await clock.advance(199);
      assert.equal(q.stats().inFlight, 2, 'still waiting for the answer just before the bound');
      await clock.advance(1);
      const report = await closing;
      assert.equal(report.drained, false);
      assert.equal(report.unsentItems, 5);
      assert.deepEqual(report.unsentTickets.sort(), ['first', 'second']);
      assert.ok(signals[0].aborted, 'the send under way is told to stop');
      const settled = await Promise.all(outs);
      assert.ok(settled.every((o) => !o.ok && o.error.code === 'ERR_PUSH_CLOSED'));
      assert.deepEqual(
        rec.batches.flatMap((b) => b.items),
        [1, 2, 3, 4, 5],
      );
      release(); // a late answer changes nothing
      await clock.advance(0);
      rec.assertEachOnce(['first', 'second']);
      assert.equal(q.stats().failed, 5);
      assert.equal(q.stats().pushed, 0);
    });

    it('close() stops a retry that waits, at the bound', async () => {
      const rec = recorder();
      const clock = new FakeClock();
      let retrying;
      const retried = new Promise((resolve) => (retrying = resolve));
      const q = new PushQueue({
        maxItems: 1,
        baseDelayMs: 60_000,
        maxDelayMs: 60_000,
        random: () => 0.99,
        clock,
        ...rec,
        onRetry: (info) => retrying(info),
        send: async () => ({ statusCode: 503, headers: {}, body: null }),
      });
      const out = q.add('/p', ['x'], 't');
      assert.equal((await retried).delayMs, 59_400, 'waiting 59.4 s to try again');
      const closing = q.close(100);
      await clock.advance(100);
      const report = await closing;
      assert.equal(report.drained, false);
      const o = await out;
      assert.equal(o.ok, false);
      assert.equal(o.error.code, 'ERR_PUSH_CLOSED');
      assert.equal(o.error.attempts, 1);
      await clock.advance(60_000); // the retry's time comes: nothing is sent or settled again
      rec.assertEachOnce(['t']);
    });

    it('refuses items past maxQueuedItems instead of growing', async () => {
      const q = new PushQueue({ maxItems: 10, maxWaitMs: 60_000, maxQueuedItems: 5, send: async () => ({ statusCode: 200 }) });
      queues.push(q);
      const ok = q.add('/p', [1, 2, 3], 'ok');
      const refused = await q.add('/p', [4, 5, 6], 'refused');
      assert.equal(refused.ok, false);
      assert.equal(refused.error.code, 'ERR_PUSH_QUEUE_FULL');
      assert.equal(q.stats().queued, 3);
      await q.flush();
      assert.equal((await ok).ok, true);
    });

    it('survives hooks that throw', async () => {
      const q = new PushQueue({
        maxItems: 1,
        send: async () => ({ statusCode: 200 }),
        onBatchDone: () => {
          throw new Error('hook');
        },
        onTicketDone: () => {
          throw new Error('hook');
        },
      });
      queues.push(q);
      assert.equal((await q.add('/p', [1], 'a')).ok, true);
      assert.equal((await q.add('/p', [2], 'b')).ok, true);
    });
  });
});
