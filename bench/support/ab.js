'use strict';
/**
 * The arithmetic of an A/B run (two builds of the package taking turns in one
 * run): the order of the targets in each round, per-round ratios of one target
 * to another, their median and range, and the verdict against a limit.
 * Pure functions, unit-tested in test/unit/bench/ab.test.js.
 */

/**
 * The targets in round `round` (from 0): the list rotated by the round, so
 * with two targets the rounds go A B, B A, A B … and none always runs first
 * (the first turn after a pause, or after another process's load, is not
 * always the same target's).
 */
function roundOrder(targets, round) {
  const n = targets.length;
  if (n === 0) return [];
  const shift = ((round % n) + n) % n;
  return [...targets.slice(shift), ...targets.slice(0, shift)];
}

/** The median of some numbers (the mean of the middle two for an even count); null for none. */
function median(values) {
  const sorted = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** {median, min, max, n} of the finite numbers among `values` (nulls when none). */
function spread(values) {
  const finite = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  if (finite.length === 0) return { median: null, min: null, max: null, n: 0 };
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), n: finite.length };
}

/**
 * Per-round ratios `numerator[i] ÷ denominator[i]` of two targets measured in
 * the same rounds: a round where either is missing or the denominator is not
 * above 0 gives null (and is left out of the spread).
 */
function roundRatios(numerator, denominator) {
  const n = Math.min(numerator.length, denominator.length);
  const out = [];
  for (let i = 0; i < n; i++) {
    const a = numerator[i];
    const b = denominator[i];
    out.push(typeof a === 'number' && typeof b === 'number' && Number.isFinite(a) && b > 0 ? a / b : null);
  }
  return out;
}

/**
 * The verdict of a throughput ratio against a floor (the 2% line is
 * `atLeast` 0.98): judged on the median of the rounds. `met`: the median
 * reaches it; `clear`: the whole range is on the same side of it (min–max
 * does not straddle the line), so the rounds agree; when not clear, more
 * rounds or a quieter machine are needed to trust the verdict.
 */
function verdict(ratios, atLeast) {
  const s = spread(ratios);
  if (s.median === null) return { ...s, atLeast, met: null, clear: false };
  const met = s.median >= atLeast;
  const clear = met ? s.min >= atLeast : s.max < atLeast;
  return { ...s, atLeast, met, clear };
}

module.exports = { roundOrder, median, spread, roundRatios, verdict };
