'use strict';
/**
 * lib/delivery/options.ts: a receiver's store options as the option table
 * states them, defaults read from it, units converted once.
 */
const assert = require('node:assert/strict');
const { RECEIVER_DEFAULTS, DEFAULT_LIMITS, storeLimits, retryPolicyOf } = require('../../../dist/lib/delivery/options');
const { NODE_OPTIONS } = require('../../../dist/lib/config/node-options');

describe('delivery: options', () => {
  it('the defaults are the table’s', () => {
    for (const [name, rule] of Object.entries(NODE_OPTIONS['detection-in'])) {
      const expected = rule.absent !== undefined ? rule.absent : rule.default;
      assert.equal(RECEIVER_DEFAULTS[name], expected, name);
    }
    assert.equal(DEFAULT_LIMITS.journalMaxBytes, NODE_OPTIONS['detection-in'].journalMaxMiB.default * 1024 * 1024);
  });

  it('converts MiB to bytes and seconds to ms', () => {
    const limits = storeLimits({ ...RECEIVER_DEFAULTS, maxInFlightMiB: 2, streamMaxMiB: 0.5, redeliverAfterSeconds: 3, claimAfterSeconds: 7 });
    assert.equal(limits.maxBytes, 2 * 1024 * 1024);
    assert.equal(limits.streamMaxBytes, 512 * 1024);
    assert.equal(limits.redeliverAfterMs, 3000);
    assert.equal(limits.claimAfterMs, 7000);
  });

  it('a longest pause below the first one is the first one', () => {
    assert.deepEqual(retryPolicyOf({ maxAttempts: 3, firstPauseSeconds: 10, maxPauseSeconds: 2, maxDeadLetters: 5 }), {
      maxAttempts: 3,
      firstPauseMs: 10000,
      maxPauseMs: 10000,
      maxDeadLetters: 5,
    });
  });
});
