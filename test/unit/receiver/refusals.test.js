'use strict';
/**
 * lib/receiver/refusals.ts: what a receiver remembers of the requests it
 * turned away: the word (503 refused, other 4xx rejected), the last one while
 * nothing was accepted after it, counts that leave after their window (the
 * status redrawn when they do), and a warning per kind and period.
 */
const assert = require('node:assert/strict');
const { RefusalLog, refusalWord, refusalView } = require('../../../dist/lib/receiver/refusals');
const { problem } = require('../../../dist/lib/http/problem');
const { FakeClock } = require('../../support/fake-clock');

const MIN = 60_000;
const t = (key, vars) => (vars ? `${key}${JSON.stringify(vars)}` : key);

function log(clock, over = {}) {
  const said = [];
  let changes = 0;
  const refusals = new RefusalLog({
    clock,
    warn: (r) => said.push(`warn ${r.word} ${r.status} ${r.ip} ${r.messageId ?? '-'}: ${r.reason}`),
    heldBack: (r, count) => said.push(`held back ${count} ${r.word} ${r.status}, last ${r.ip}`),
    changed: () => changes++,
    ...over,
  });
  return { refusals, said, changes: () => changes };
}

describe('lib/receiver/refusals', () => {
  it('one word per meaning: 503 (and 429) refused, every other 4xx rejected', () => {
    assert.equal(refusalWord(503), 'refused');
    assert.equal(refusalWord(429), 'refused');
    for (const status of [400, 401, 403, 405, 408, 413, 415, 422]) assert.equal(refusalWord(status), 'rejected');
  });

  it('keeps the last refusal (why, from where, when) while nothing is accepted after it', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 5, 12, 0, 0));
    const { refusals } = log(clock);
    refusals.record(problem('unauthorized', 'expected a Bearer token'), '10.0.0.5');
    await clock.advance(1000);
    refusals.record(problem('unavailable', 'the event could not be queued: Redis is unreachable'), '10.0.0.6', 'msg-7');
    const recent = refusals.recent();
    assert.deepEqual(recent.current, {
      word: 'refused',
      status: 503,
      reason: 'the event could not be queued: Redis is unreachable',
      ip: '10.0.0.6',
      at: Date.UTC(2026, 0, 5, 12, 0, 1),
      messageId: 'msg-7',
    });
    assert.deepEqual([recent.refused, recent.rejected], [1, 1]);
    refusals.accepted();
    assert.equal(refusals.recent().current, undefined, 'taking events again: no longer current');
    assert.equal(refusals.last.ip, '10.0.0.6', 'but kept');
    assert.deepEqual([refusals.recent().refused, refusals.recent().rejected], [1, 1], 'the counts stay for their window');
  });

  it('counts leave after the window, and the status is told when they do', async () => {
    const clock = new FakeClock(0);
    const { refusals, changes } = log(clock);
    refusals.record(problem('unavailable', 'busy'), '10.0.0.1');
    await clock.advance(5 * MIN);
    refusals.record(problem('unavailable', 'busy'), '10.0.0.1');
    refusals.record(problem('forbidden', 'no'), '10.0.0.1');
    assert.deepEqual([refusals.recent().refused, refusals.recent().rejected], [2, 1]);
    const before = changes();
    await clock.advance(6 * MIN);
    assert.deepEqual([refusals.recent().refused, refusals.recent().rejected], [1, 1], 'the first left the window');
    assert.equal(changes(), before + 1, 'a redraw when it left');
    await clock.advance(5 * MIN);
    assert.deepEqual([refusals.recent().refused, refusals.recent().rejected], [0, 0]);
    assert.equal(changes(), before + 2);
    assert.equal(clock.pending, 0, 'nothing left to expire: no timer');
  });

  it('warns once per kind of answer and period, then says how many more there were', async () => {
    const clock = new FakeClock(0);
    const { refusals, said } = log(clock);
    for (let i = 0; i < 5; i++) refusals.record(problem('unauthorized', 'the credentials sent do not match this receiver'), `10.0.0.${i}`);
    refusals.record(problem('unavailable', 'busy'), '10.0.0.9', 'm-1');
    assert.deepEqual(said, ['warn rejected 401 10.0.0.0 -: the credentials sent do not match this receiver', 'warn refused 503 10.0.0.9 m-1: busy']);
    await clock.advance(MIN);
    assert.deepEqual(said.slice(2), ['held back 4 rejected 401, last 10.0.0.4']);
    refusals.record(problem('unauthorized', 'x'), '10.0.0.1');
    assert.equal(said.length, 4, 'a new period: said again');
  });

  it('closed: no warnings, no timers', async () => {
    const clock = new FakeClock(0);
    const { refusals, said } = log(clock);
    refusals.record(problem('unauthorized', 'x'), '10.0.0.1');
    refusals.record(problem('unauthorized', 'x'), '10.0.0.1');
    refusals.close();
    assert.equal(clock.pending, 0);
    refusals.record(problem('unauthorized', 'x'), '10.0.0.1');
    await clock.advance(20 * MIN);
    assert.equal(said.length, 1);
  });

  it('a view for the status: the counts of the window, the last one (shortened) while current', () => {
    const at = new Date(2026, 0, 5, 14, 2, 11).getTime();
    const long = 'x'.repeat(100);
    const current = { word: 'rejected', status: 401, reason: long, ip: '10.0.0.5', at };
    const view = refusalView({ refused: 3, rejected: 1, windowMs: 10 * MIN, current }, t);
    assert.equal(view.turningAway, true);
    assert.equal(
      view.text,
      `status.recent-both{"refused":3,"rejected":1,"minutes":10}status.last-rejected{"time":"14:02:11","ip":"10.0.0.5","status":401,"reason":"${'x'.repeat(59)}…"}`,
    );
    assert.deepEqual(refusalView({ refused: 2, rejected: 0, windowMs: 10 * MIN, current: undefined }, t), {
      text: 'status.recent-refused{"refused":2,"minutes":10}',
      turningAway: false,
    });
    assert.equal(refusalView({ refused: 0, rejected: 1, windowMs: 10 * MIN }, t).text, 'status.recent-rejected{"rejected":1,"minutes":10}');
    assert.deepEqual(refusalView({ refused: 0, rejected: 0, windowMs: 10 * MIN }, t), { text: '', turningAway: false });
  });
});
