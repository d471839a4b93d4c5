'use strict';
/**
 * lib/metrics/rows.ts: the package's metrics, one row each, named as
 * Prometheus wants them, and what a row reads of a source.
 */
const assert = require('node:assert/strict');
const { ROWS } = require('../../../dist/lib/metrics/rows');
const { RequestMeter } = require('../../../dist/lib/metrics/sources');

describe('lib/metrics rows', () => {
  it('names each metric once, with the package prefix; counters end in _total, gauges do not', () => {
    const names = ROWS.map((r) => r.name);
    assert.equal(new Set(names).size, names.length, 'no name twice');
    for (const row of ROWS) {
      assert.match(row.name, /^detection_bridge_[a-z_]+$/);
      assert.equal(row.name.endsWith('_total'), row.type === 'counter', row.name);
      assert.ok(row.help.length > 10, `${row.name} has a help text`);
    }
  });

  it('reads refused as the 503s and 429s a receiver answered; the new gauges from the source’s own', () => {
    const meter = new RequestMeter();
    for (const status of [200, 503, 503, 429, 401, 422]) meter.observe(status, 0.01, 'POST');
    const snapshot = {
      kind: 'receiver',
      entry: { meter },
      counters: {},
      gauges: { oldestUnfinishedAgeSeconds: 700, oldestUnpausedAgeSeconds: 3, redisUp: 0 },
    };
    const value = (name) => ROWS.find((r) => r.name === name).value(snapshot);
    assert.equal(value('detection_bridge_events_refused_total'), 3, 'not the 401 (rejected) nor the 422 (invalid)');
    assert.equal(value('detection_bridge_oldest_unfinished_event_age_seconds'), 700);
    assert.equal(value('detection_bridge_oldest_unpaused_event_age_seconds'), 3);
    assert.equal(value('detection_bridge_redis_up'), 0);
    assert.equal(value('detection_bridge_receiver_ready'), undefined, 'left out when not known');
  });
});
