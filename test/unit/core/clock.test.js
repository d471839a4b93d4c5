'use strict';
/** lib/core/clock.ts: the system clock reads the wall clock, and sleepOn waits on the clock it is given, or ends at once when aborted. */
const assert = require('node:assert/strict');
const { systemClock, sleepOn } = require('../../../dist/lib/core/clock');
const { FakeClock } = require('../../support/fake-clock');

describe('lib/core/clock', () => {
  it('systemClock.now is the wall clock', () => {
    const before = Date.now();
    const now = systemClock.now();
    assert.ok(now >= before && now <= Date.now(), `${now}`);
  });

  it('systemClock runs timers and clears one', async () => {
    let cleared = false;
    const handle = systemClock.setTimeout(() => (cleared = true), 0);
    systemClock.clearTimeout(handle);
    // Node runs timers in the order they fall due: had the first not been cleared, it would have run before this one.
    await new Promise((resolve) => systemClock.setTimeout(resolve, 1));
    assert.equal(cleared, false, 'the cleared timer did not run');
  });

  it('sleepOn resolves when the clock reaches the time, not before', async () => {
    const clock = new FakeClock();
    let woke = false;
    const sleeping = sleepOn(clock, 1000, new AbortController().signal).then(() => (woke = true));
    await clock.advance(999);
    assert.equal(woke, false);
    await clock.advance(1);
    await sleeping;
    assert.equal(woke, true);
    assert.equal(clock.pending, 0);
  });

  it('sleepOn resolves at once on abort, its timer cleared; an aborted signal does not wait at all', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const sleeping = sleepOn(clock, 60000, controller.signal);
    assert.equal(clock.pending, 1);
    controller.abort();
    await sleeping;
    assert.equal(clock.pending, 0, 'timer cleared');
    await sleepOn(clock, 60000, controller.signal);
    assert.equal(clock.pending, 0, 'no timer for an aborted signal');
  });
});
