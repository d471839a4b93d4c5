'use strict';
const assert = require('node:assert/strict');
const { roundOrder, median, spread, roundRatios, verdict } = require('../../../bench/support/ab');

describe('bench/support/ab (the arithmetic of an A/B run)', () => {
  it('interleaves the targets: A B, B A, … and with three each takes every place in turn', () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((r) => roundOrder(['A', 'B'], r).join('')),
      ['AB', 'BA', 'AB', 'BA'],
    );
    const three = [0, 1, 2].map((r) => roundOrder(['A', 'B', 'C'], r));
    assert.deepEqual(three, [
      ['A', 'B', 'C'],
      ['B', 'C', 'A'],
      ['C', 'A', 'B'],
    ]);
    for (const target of ['A', 'B', 'C']) {
      assert.deepEqual(three.map((order) => order.indexOf(target)).sort(), [0, 1, 2], `${target} runs first, second and third once`);
    }
    assert.deepEqual(roundOrder(['A'], 5), ['A']);
    assert.deepEqual(roundOrder([], 1), []);
  });

  it('takes the median of an odd and an even count, ignoring what is not a number', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([1.02, null, 0.97, Number.NaN, 1.0]), 1.0);
    assert.equal(median([]), null);
  });

  it('gives median, min, max and the count of the rounds', () => {
    assert.deepEqual(spread([1.01, 0.95, 1.04, null]), { median: 1.01, min: 0.95, max: 1.04, n: 3 });
    assert.deepEqual(spread([null]), { median: null, min: null, max: null, n: 0 });
  });

  it('pairs rounds: ratio of each round, null where a round has no denominator', () => {
    assert.deepEqual(roundRatios([100, 90, 50, 80], [100, 100, 0, null]), [1, 0.9, null, null]);
    assert.deepEqual(roundRatios([1, 2, 3], [1]), [1], 'only rounds both targets ran');
  });

  it('judges the median against the line and says whether the rounds agree', () => {
    const within = verdict([0.99, 1.0, 1.01], 0.98);
    assert.equal(within.met, true);
    assert.equal(within.clear, true);
    const straddling = verdict([0.95, 0.99, 1.03], 0.98);
    assert.equal(straddling.met, true, 'the median (0.99) reaches 0.98');
    assert.equal(straddling.clear, false, 'one round fell below: not yet to be trusted');
    const missed = verdict([0.9, 0.95, 0.97], 0.98);
    assert.equal(missed.met, false);
    assert.equal(missed.clear, true);
    assert.equal(verdict([0.9, 0.97, 0.99], 0.98).clear, false);
    assert.deepEqual(verdict([], 0.98), { median: null, min: null, max: null, n: 0, atLeast: 0.98, met: null, clear: false });
  });
});

describe('bench/support/report: the 2% line of issue 27', () => {
  const { twoPercentLine } = require('../../../bench/support/report');
  const ratio = (rounds) => ({ rps: { rounds }, p99: { rounds: [] }, cpu: { rounds: [], median: null } });
  const ab = (ratios, extra = {}) => ({ baseline: { short: '5ad0c38' }, kinds: [{ kind: 'lpr', ratios }], ...extra });

  it('judges plate throughput with the operator’s view on against the baseline, on the median of the rounds', () => {
    const line = twoPercentLine(ab({ currentToBaseline: ratio([1.5, 1.5, 1.5]), monitorToBaseline: ratio([0.97, 0.96, 0.99]) }), 'full');
    assert.equal(line.verdict.median, 0.97, 'the monitor variant, not current alone');
    assert.equal(line.verdict.met, false);
    assert.match(line.text, /current with the operator's view on ÷ baseline 5ad0c38 = 0\.970, median of 3 rounds \(min 0\.960, max 0\.990\): MISSED/);
    assert.match(line.text, /straddle 0\.98/);
  });

  it('says when the operator’s view was not in the run, and never judges a quick run', () => {
    const without = twoPercentLine(ab({ currentToBaseline: ratio([1.0, 0.99, 1.01]) }, { monitorNote: 'no detection-monitor' }), 'full');
    assert.match(without.text, /WITHOUT the operator's view: no detection-monitor in this build/);
    assert.match(without.text, /MET, costs at most 2% \(≥ 0\.98\), every round on the same side/);
    const quick = twoPercentLine(ab({ currentToBaseline: ratio([1.0]) }), 'quick');
    assert.match(quick.text, /not judged: a quick run/);
    assert.match(twoPercentLine({ kinds: [{ kind: 'face', ratios: {} }] }, 'full').text, /not judged: no plate bodies/);
  });
});
