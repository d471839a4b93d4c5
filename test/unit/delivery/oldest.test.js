'use strict';
/**
 * lib/delivery/oldest.ts and what a tracker's stats say with it: the oldest
 * unfinished event, and the oldest not waiting out a retry pause (the one an
 * alert reads: a healthy retry must not page); and a replayed dead letter
 * counted as emitted again, as every other redelivery is.
 */
const assert = require('node:assert/strict');
const { oldestOf } = require('../../../dist/lib/delivery/oldest');
const { DeliveryTracker } = require('../../../dist/lib/delivery/tracker');
const { FakeClock } = require('../../support/fake-clock');

const retry = (over = {}) => ({ maxAttempts: 3, firstPauseMs: 640_000, maxPauseMs: 3_600_000, maxDeadLetters: 10, ...over });

async function memoryTracker(over = {}) {
  const clock = new FakeClock(1_000_000);
  const { tracker } = await DeliveryTracker.open({ mode: 'memory', maxEvents: 10, maxBytes: 1e6, retry: retry(over), clock });
  tracker.awaitCompletion = true;
  tracker.onOverdue = () => {};
  return { tracker, clock };
}

describe('lib/delivery/oldest', () => {
  it('the oldest of all, and of those not paused at `now` (a pause over, or a replay due now, counts again)', () => {
    const entries = [
      { at: 10, dueAt: 500 }, // paused until 500
      { at: 20 }, // in the flow
      { at: 5, dueAt: 100 }, // its pause is over at 100
      { at: undefined }, // no time of receipt: left out
    ];
    assert.deepEqual(
      oldestOf(entries, (e) => e.at, 99),
      { oldestUnfinishedAt: 5, oldestUnpausedAt: 20 },
    );
    assert.deepEqual(
      oldestOf(entries, (e) => e.at, 100),
      { oldestUnfinishedAt: 5, oldestUnpausedAt: 5 },
    );
    assert.deepEqual(
      oldestOf([{ at: 1, dueAt: 9 }], (e) => e.at, 0),
      { oldestUnfinishedAt: 1 },
      'every event paused: no unpaused age at all',
    );
    assert.deepEqual(
      oldestOf([], (e) => e.at, 0),
      { oldestUnfinishedAt: undefined },
    );
  });

  it('a tracker leaves an event out of oldestUnpausedAt for its retry pause, and only then', async () => {
    const { tracker, clock } = await memoryTracker();
    const receivedAt = clock.now();
    const id = await tracker.take({}, Buffer.alloc(1), {});
    tracker.emitted(id);
    assert.deepEqual([tracker.stats.oldestUnfinishedAt, tracker.stats.oldestUnpausedAt], [receivedAt, receivedAt], 'in the flow');

    tracker.fail(id, 'mail server down');
    assert.deepEqual([tracker.stats.oldestUnfinishedAt, tracker.stats.oldestUnpausedAt], [receivedAt, undefined], 'waiting out 640 s');
    await clock.advance(639_999);
    assert.equal(tracker.stats.oldestUnpausedAt, undefined, 'still waiting');

    // another event taken meanwhile and held by the flow: that one counts
    const later = clock.now();
    const stuck = await tracker.take({}, Buffer.alloc(1), {});
    tracker.emitted(stuck);
    assert.deepEqual([tracker.stats.oldestUnfinishedAt, tracker.stats.oldestUnpausedAt], [receivedAt, later]);

    await clock.advance(1);
    assert.equal(tracker.stats.oldestUnpausedAt, receivedAt, 'the pause is over: due, so it counts again');
    const [again] = await tracker.overdue();
    tracker.emitted(again.id);
    assert.equal(tracker.stats.oldestUnpausedAt, receivedAt, 'in the flow again');
    tracker.complete(id);
    tracker.complete(stuck);
    assert.deepEqual([tracker.stats.oldestUnfinishedAt, tracker.stats.oldestUnpausedAt], [undefined, undefined]);
  });

  it('a replayed dead letter counts as emitted again (redelivered), once, when it goes out', async () => {
    const { tracker } = await memoryTracker({ maxAttempts: 1 });
    const id = await tracker.take({}, Buffer.alloc(1), { n: 1 });
    tracker.emitted(id);
    tracker.fail(id, 'poison');
    assert.equal(tracker.stats.deadLetters, 1);
    assert.equal(tracker.stats.redelivered, 0);

    assert.equal(await tracker.replay(), 1);
    const [replayed] = await tracker.overdue();
    assert.equal(replayed.attempt, 1, 'a fresh count of attempts');
    tracker.emitted(replayed.id);
    assert.equal(tracker.stats.redelivered, 1);
    assert.deepEqual(await tracker.overdue(), [], 'listed once');
    assert.equal(tracker.stats.redelivered, 1);
  });
});
