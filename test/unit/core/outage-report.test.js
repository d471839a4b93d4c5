'use strict';
/**
 * lib/core/outage-report.ts: lost once, back once; a flapping dependency says
 * "lost" at most once a period, and an outage held back is said at the end
 * of the period when it is still on.
 */
const assert = require('node:assert/strict');
const { createOutageReport } = require('../../../dist/lib/core/outage-report');
const { FakeClock } = require('../../support/fake-clock');

function report(clock) {
  const said = [];
  const outage = createOutageReport({
    periodMs: 60_000,
    clock,
    sayLost: (alsoLost) => said.push(`lost+${alsoLost}@${clock.now()}`),
    sayBack: (downMs) => said.push(`back after ${downMs}@${clock.now()}`),
  });
  return { said, outage };
}

describe('lib/core/outage-report', () => {
  it('says lost once and back once, with how long it was down; repeats of a state say nothing', async () => {
    const clock = new FakeClock(0);
    const { said, outage } = report(clock);
    outage.back();
    assert.deepEqual(said, [], 'back without a lost: nothing (the first connect)');
    outage.lost();
    outage.lost();
    await clock.advance(62_000);
    outage.lost();
    outage.back();
    outage.back();
    assert.deepEqual(said, ['lost+0@0', 'back after 62000@62000']);
  });

  it('a flapping connection: one lost per period; an outage still on at the end of the period is said then', async () => {
    const clock = new FakeClock(0);
    const { said, outage } = report(clock);
    outage.lost();
    await clock.advance(1000);
    outage.back();
    await clock.advance(1000);
    outage.lost(); // held back: within the period of the first
    await clock.advance(1000);
    outage.back(); // its back is not said either
    await clock.advance(1000);
    outage.lost(); // held back, and still on when the period ends
    assert.deepEqual(said, ['lost+0@0', 'back after 1000@1000']);
    await clock.advance(60_000);
    assert.deepEqual(said.slice(2), ['lost+1@60000'], 'the log never ends on "back" while it is down');
    await clock.advance(6_000);
    outage.back();
    assert.deepEqual(said.slice(3), ['back after 66000@70000'], 'down since the outage began, not since it was said');
  });

  it('an outage held back and over before the period ends is counted in the next lost said', async () => {
    const clock = new FakeClock(0);
    const { said, outage } = report(clock);
    outage.lost();
    outage.back();
    outage.lost();
    outage.back();
    await clock.advance(120_000);
    assert.equal(said.length, 2);
    outage.lost();
    assert.deepEqual(said.slice(2), ['lost+1@120000']);
  });

  it('once closed: no more words, no timer left', async () => {
    const clock = new FakeClock(0);
    const { said, outage } = report(clock);
    outage.lost();
    outage.back();
    outage.lost();
    outage.close();
    assert.equal(clock.pending, 0);
    await clock.advance(120_000);
    outage.back();
    assert.equal(said.length, 2);
  });
});
