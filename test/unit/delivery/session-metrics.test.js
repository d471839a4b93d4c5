'use strict';
/**
 * lib/delivery/session-metrics.ts: a receiver's Prometheus source, before and
 * after its session is attached, and its registration dropped.
 */
const assert = require('node:assert/strict');
const { receiverMetrics } = require('../../../dist/lib/delivery/session-metrics');
const { metricSources } = require('../../../dist/lib/metrics/sources');

describe('delivery: session metrics', () => {
  it('counts nothing before a session is attached, then reads the session; unregistered, its counts stay with the label', async () => {
    const label = `/session-metrics-${process.pid}`;
    const metrics = receiverMetrics(label);
    const entry = () => metricSources.list('receiver').find((e) => e.key === label);
    assert.ok(entry(), 'registered');
    assert.equal(metricSources.counters(entry()).accepted, 0);
    assert.deepEqual(await [...entry().live][0].readSlow(), {});
    const session = {
      status: { counts: { received: 4 } },
      since: (what) => ({ redelivered: 1, failed: 2, deadLettered: 0, deadLettersDropped: 0 })[what],
      opened: { pending: { events: 2, bytes: 100 }, stats: { deadLetters: 1, oldestUnfinishedAt: undefined } },
    };
    metrics.attach({ session });
    assert.equal(metricSources.counters(entry()).accepted, 4);
    assert.equal(metricSources.counters(entry()).failed, 2);
    assert.equal(metricSources.gauges(entry()).inFlightEvents, 2);
    assert.deepEqual([metricSources.gauges(entry()).oldestUnpausedAgeSeconds, metricSources.gauges(entry()).redisUp], [0, undefined]);
    // one event in a retry pause since an hour, one in the flow since a minute; redis mode with Redis gone
    session.opened.stats = { deadLetters: 0, oldestUnfinishedAt: Date.now() - 3_600_000, oldestUnpausedAt: Date.now() - 60_000 };
    session.redis = { ready: false };
    const gauges = metricSources.gauges(entry());
    assert.ok(gauges.oldestUnfinishedAgeSeconds >= 3600 && gauges.oldestUnfinishedAgeSeconds < 3660, String(gauges.oldestUnfinishedAgeSeconds));
    assert.ok(gauges.oldestUnpausedAgeSeconds >= 60 && gauges.oldestUnpausedAgeSeconds < 120, String(gauges.oldestUnpausedAgeSeconds));
    assert.equal(gauges.redisUp, 0);
    session.redis.ready = true;
    assert.equal(metricSources.gauges(entry()).redisUp, 1);
    metrics.unregister();
    // the source is gone; its counts are kept for the next receiver under the label
    assert.equal(entry().live.size, 0);
    assert.equal(metricSources.counters(entry()).accepted, 4);
  });
});
