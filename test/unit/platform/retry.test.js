'use strict';
/** lib/platform/retry.ts: how long to wait before sending a failed push again: the server's Retry-After, else capped backoff with full jitter. */
const assert = require('node:assert/strict');
const { parseRetryAfter, retryDelay } = require('../../../dist/lib/platform/retry');

const NOW = Date.parse('2026-12-03T12:00:00Z');
const policy = { baseDelayMs: 100, maxDelayMs: 5000 };

describe('lib/platform/retry', () => {
  it('parseRetryAfter: seconds, or an HTTP date from now (never below 0); anything else undefined', () => {
    assert.equal(parseRetryAfter('3', NOW), 3000);
    assert.equal(parseRetryAfter(' 1.5 ', NOW), 1500);
    assert.equal(parseRetryAfter(['2', '9'], NOW), 2000);
    assert.equal(parseRetryAfter('Thu, 03 Dec 2026 12:00:10 GMT', NOW), 10000);
    assert.equal(parseRetryAfter('Thu, 03 Dec 2026 11:59:00 GMT', NOW), 0);
    for (const bad of [undefined, '', '  ', 'soon']) assert.equal(parseRetryAfter(bad, NOW), undefined, String(bad));
  });

  it('retryDelay: the Retry-After asked for, whatever the header case, capped', () => {
    assert.equal(
      retryDelay(policy, 1, { 'retry-after': '2' }, NOW, () => 0.5),
      2000,
    );
    assert.equal(
      retryDelay(policy, 1, { 'Retry-After': '2' }, NOW, () => 0.5),
      2000,
    );
    assert.equal(
      retryDelay(policy, 1, { 'retry-after': '60' }, NOW, () => 0.5),
      5000,
    );
  });

  it('retryDelay: else a random share of base·2^(attempt-1), capped', () => {
    assert.equal(
      retryDelay(policy, 1, undefined, NOW, () => 0.5),
      50,
    );
    assert.equal(
      retryDelay(policy, 3, {}, NOW, () => 0.5),
      200,
    );
    assert.equal(
      retryDelay(policy, 3, {}, NOW, () => 0),
      0,
    );
    assert.equal(
      retryDelay(policy, 3, {}, NOW, () => 0.999),
      399,
    );
    assert.equal(
      retryDelay(policy, 20, { 'retry-after': 'soon' }, NOW, () => 0.5),
      2500,
    );
  });
});
