'use strict';
/**
 * lib/core/rate-limit.ts: a few reports per key and period, and what was held
 * back said once the period is over (a fake clock drives the periods).
 */
const assert = require('node:assert/strict');
const { createRateLimit } = require('../../../dist/lib/core/rate-limit');
const { FakeClock } = require('../../support/fake-clock');

describe('lib/core/rate-limit', () => {
  it('lets one report per key through per period, and says how many it held back when the period ends', async () => {
    const clock = new FakeClock(1_000_000);
    const heldBack = [];
    const limit = createRateLimit({ periodMs: 60_000, clock, onHeldBack: (key, count) => heldBack.push([key, count, clock.now()]) });
    assert.equal(limit.pass('401'), true);
    assert.equal(limit.pass('503'), true, 'another key has its own period');
    assert.equal(limit.pass('401'), false);
    await clock.advance(30_000);
    assert.equal(limit.pass('401'), false);
    assert.deepEqual(heldBack, []);
    await clock.advance(30_000);
    assert.deepEqual(heldBack, [['401', 2, 1_060_000]], 'said once, at the end of the period, with the count');
    assert.equal(limit.pass('401'), true, 'a new period');
    await clock.advance(120_000);
    assert.deepEqual(heldBack.length, 1, 'a period with nothing held back says nothing');
    assert.equal(clock.pending, 0);
  });

  it('lets `perPeriod` through before holding back; the default key is one key', async () => {
    const clock = new FakeClock(0);
    const heldBack = [];
    const limit = createRateLimit({ periodMs: 1000, perPeriod: 3, clock, onHeldBack: (key, count) => heldBack.push(count) });
    const passed = Array.from({ length: 5 }, () => limit.pass());
    assert.deepEqual(passed, [true, true, true, false, false]);
    await clock.advance(1000);
    assert.deepEqual(heldBack, [2]);
  });

  it('remembers a bounded number of keys: the oldest forgotten says what it held back at once', async () => {
    const clock = new FakeClock(0);
    const heldBack = [];
    const limit = createRateLimit({ periodMs: 1000, maxKeys: 2, clock, onHeldBack: (key, count) => heldBack.push([key, count]) });
    limit.pass('a');
    limit.pass('a');
    limit.pass('b');
    limit.pass('c');
    assert.deepEqual(heldBack, [['a', 1]]);
    assert.equal(limit.pass('a'), true, 'forgotten: a new period');
  });

  it('once closed: nothing passes and no summary comes', async () => {
    const clock = new FakeClock(0);
    const heldBack = [];
    const limit = createRateLimit({ periodMs: 1000, clock, onHeldBack: () => heldBack.push(1) });
    limit.pass('a');
    limit.pass('a');
    limit.close();
    assert.equal(clock.pending, 0, 'the summary timer is cancelled');
    await clock.advance(5000);
    assert.deepEqual(heldBack, []);
    assert.equal(limit.pass('a'), false);
  });
});
