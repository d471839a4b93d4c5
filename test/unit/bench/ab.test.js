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
