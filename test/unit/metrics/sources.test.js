'use strict';
const assert = require('node:assert/strict');
const { MetricSources, RequestMeter, DurationHistogram, methodLabel } = require('../../../dist/lib/metrics');

describe('lib/metrics MetricSources', () => {
  it('reads a source when asked: its counters and gauges', () => {
    const sources = new MetricSources();
    const counts = { accepted: 2 };
    sources.register('receiver', '/a', { read: () => ({ counters: { ...counts }, gauges: { inFlightEvents: 1, journalBytes: undefined } }) });
    const [entry] = sources.list('receiver');
    assert.deepEqual(sources.counters(entry), { accepted: 2 });
    counts.accepted = 5;
    assert.deepEqual(sources.counters(entry), { accepted: 5 }, 'read again, not kept');
    assert.deepEqual(sources.gauges(entry), { inFlightEvents: 1 }, 'a gauge that does not apply is left out');
    assert.deepEqual(sources.list('dedupe'), []);
  });

  it('keeps counters going across a deploy: the next instance of a key adds to what the last one counted', () => {
    const sources = new MetricSources();
    const first = { accepted: 7, redelivered: 1 };
    const a = sources.register('receiver', '/a', { read: () => ({ counters: first, gauges: { inFlightEvents: 3 } }) });
    a.meter.observe(200, 0.01, 'POST');
    a.unregister();
    a.unregister(); // twice is once
    const [entry] = sources.list('receiver');
    assert.deepEqual(sources.counters(entry), { accepted: 7, redelivered: 1 }, 'kept while no instance runs');
    assert.deepEqual(sources.gauges(entry), {}, 'gauges are of live sources only');
    const second = { accepted: 2, redelivered: 0 };
    const b = sources.register('receiver', '/a', { read: () => ({ counters: second }) });
    assert.equal(b.meter, a.meter, 'requests and durations are the key’s, not the instance’s');
    assert.deepEqual(sources.counters(entry), { accepted: 9, redelivered: 1 });
    assert.equal(b.meter.requests.get(200), 1);
  });

  it('sums two live sources of one key; a source that throws counts nothing rather than failing the scrape', () => {
    const sources = new MetricSources();
    sources.register('dedupe', 'n1', { read: () => ({ counters: { passed: 1 } }) });
    sources.register('dedupe', 'n1', {
      read: () => {
        throw new Error('gone');
      },
    });
    sources.register('dedupe', 'n1', { read: () => ({ counters: { passed: 2 } }) });
    assert.deepEqual(sources.counters(sources.list('dedupe')[0]), { passed: 3 });
  });
});

describe('lib/metrics RequestMeter and DurationHistogram', () => {
  it('counts requests by status, and durations by method and status, each in its bucket (cumulative, +Inf last)', () => {
    const meter = new RequestMeter();
    meter.observe(200, 0.004, 'POST');
    meter.observe(200, 0.3, 'POST');
    meter.observe(503, 42, 'POST');
    meter.observe(405, 0.001, 'GET');
    assert.deepEqual(
      [...meter.requests],
      [
        [200, 2],
        [503, 1],
        [405, 1],
      ],
    );
    assert.deepEqual(
      [...meter.durations.values()].map((d) => [d.method, d.status, d.histogram.count]),
      [
        ['POST', 200, 2],
        ['POST', 503, 1],
        ['GET', 405, 1],
      ],
    );
    const ok = meter.durations.get('POST 200').histogram;
    const buckets = ok.buckets();
    const at = (le) => buckets.find((b) => b.le === le).count;
    assert.equal(at(0.005), 1);
    assert.equal(at(0.25), 1);
    assert.equal(at(0.5), 2);
    assert.equal(at(Infinity), 2);
    assert.ok(Math.abs(ok.sum - 0.304) < 1e-9);
    const refused = meter.durations.get('POST 503').histogram;
    assert.deepEqual([refused.buckets().find((b) => b.le === 10).count, refused.buckets().at(-1).count], [0, 1], '42 s: above every bound');
  });

  it('names a method the way OpenTelemetry does: known ones as they are, any other `_OTHER` (a caller adds no series)', () => {
    assert.deepEqual(['POST', 'GET', 'HEAD', 'PATCH', 'post', 'BREW', undefined].map(methodLabel), [
      'POST',
      'GET',
      'HEAD',
      'PATCH',
      '_OTHER',
      '_OTHER',
      '_OTHER',
    ]);
    const meter = new RequestMeter();
    meter.observe(405, 0.001, 'BREW');
    meter.observe(405, 0.001, 'SPAM');
    assert.deepEqual([...meter.durations.keys()], ['_OTHER 405']);
  });

  it('a duration on a bound is in that bucket (le: at most); nonsense is not counted', () => {
    const h = new DurationHistogram([1, 2]);
    h.observe(1);
    h.observe(NaN);
    h.observe(-1);
    assert.deepEqual(h.buckets(), [
      { le: 1, count: 1 },
      { le: 2, count: 1 },
      { le: Infinity, count: 1 },
    ]);
  });
});
