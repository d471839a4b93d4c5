'use strict';
/**
 * Mocha's spec reporter, and at the end of the run a JSON summary written to
 * the file MOCHA_SUMMARY names: passed, failed and pending (skipped) counts
 * and the titles of the failed and pending tests. .ci/pipeline.js reads it
 * to add up a phase and to fail a run in which anything was skipped.
 */
const fs = require('node:fs');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failedTitles = [];
    const pendingTitles = [];
    runner.on(EVENT_TEST_FAIL, (test) => failedTitles.push(test.fullTitle()));
    runner.on(EVENT_TEST_PENDING, (test) => pendingTitles.push(test.fullTitle()));
    runner.once(EVENT_RUN_END, () => {
      const file = process.env.MOCHA_SUMMARY;
      if (!file) return;
      const { passes, failures, pending, duration } = this.stats;
      fs.writeFileSync(file, JSON.stringify({ passed: passes, failed: failures, pending, durationMs: duration, failedTitles, pendingTitles }));
    });
  }
}

module.exports = SummaryReporter;
