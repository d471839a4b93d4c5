'use strict';
const assert = require('node:assert/strict');
const promClient = require('prom-client');
const { MetricSources, createMetricsExporter, outcomeOf, DurationHistogram, ACK_BUCKETS, histogramCounters } = require('../../../dist/lib/metrics');

/** `name{labels} value` lines of an exposition, as a map. */
function samples(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    out.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return out;
}

describe('lib/metrics Prometheus exporter', () => {
  it('serves every source as Prometheus text, receivers by their configured path, read at scrape time', async () => {
    const sources = new MetricSources();
    const counts = { accepted: 3, redelivered: 1, failed: 2, deadLettered: 1, deadLettersDropped: 0 };
    const receiver = sources.register('receiver', '/hooks/plates', {
      read: () => ({
        counters: counts,
        gauges: {
          inFlightEvents: 2,
          inFlightBytes: 2048,
          oldestUnfinishedAgeSeconds: 700,
          oldestUnpausedAgeSeconds: 12.5,
          deadLetters: 1,
          journalBytes: 4096,
          redisUp: 0,
        },
      }),
      readSlow: async () => ({ streamPending: 4 }),
      ready: () => ({ ok: false, problems: [{ code: 'busy' }] }),
    });
    receiver.meter.observe(200, 0.02, 'POST');
    receiver.meter.observe(200, 0.03, 'POST');
    receiver.meter.observe(503, 0.001, 'POST');
    receiver.meter.observe(401, 0.001, 'POST');
    sources.register('dedupe', 'd1', { read: () => ({ counters: { passed: 5, dropped: 2, held: 7 } }) }, { name: 'plates once' });
    sources.register(
      'presence',
      'pr1',
      { read: () => ({ counters: { arrived: 9, left: 4, stillHere: 1, dropped: 2 }, gauges: { present: 5 } }) },
      { name: 'on site' },
    );
    sources.register('push', 'p1', { read: () => ({ counters: { batchesSent: 4, batchesFailed: 1 } }) }, { name: '' });
    const toAck = new DurationHistogram(ACK_BUCKETS);
    for (const seconds of [45, 200, 200, 40_000]) toAck.observe(seconds);
    const alarmCounts = { opened: 6, acknowledged: 4, reminders: 3, escalations: 1, held: 2, ...histogramCounters(toAck, 'ack') };
    sources.register('alarm', 'al1', { read: () => ({ counters: alarmCounts, gauges: { open: 2 } }) }, { name: 'gate' });

    const exporter = createMetricsExporter(sources);
    const { contentType, body } = await exporter.scrape();
    assert.match(contentType, /^text\/plain; version=0\.0\.4/);
    const s = samples(body);
    const p = 'path="/hooks/plates"';
    assert.equal(s.get(`detection_bridge_events_accepted_total{${p}}`), 3);
    assert.equal(s.get(`detection_bridge_events_refused_total{${p}}`), 1);
    assert.equal(s.get(`detection_bridge_events_redelivered_total{${p}}`), 1);
    assert.equal(s.get(`detection_bridge_attempts_failed_total{${p}}`), 2);
    assert.equal(s.get(`detection_bridge_events_dead_lettered_total{${p}}`), 1);
    assert.equal(s.get(`detection_bridge_dead_letters{${p}}`), 1);
    assert.equal(s.get(`detection_bridge_events_in_flight{${p}}`), 2);
    assert.equal(s.get(`detection_bridge_bytes_in_flight{${p}}`), 2048);
    assert.equal(s.get(`detection_bridge_oldest_unfinished_event_age_seconds{${p}}`), 700);
    assert.equal(s.get(`detection_bridge_oldest_unpaused_event_age_seconds{${p}}`), 12.5);
    assert.equal(s.get(`detection_bridge_redis_up{${p}}`), 0);
    assert.equal(s.get(`detection_bridge_journal_bytes{${p}}`), 4096);
    assert.equal(s.get(`detection_bridge_stream_pending{${p}}`), 4);
    assert.equal(s.get(`detection_bridge_receiver_ready{${p}}`), 0);
    assert.equal(s.get(`detection_bridge_requests_total{${p},outcome="accepted",status="200"}`), 2);
    assert.equal(s.get(`detection_bridge_requests_total{${p},outcome="refused",status="503"}`), 1);
    assert.equal(s.get(`detection_bridge_requests_total{${p},outcome="rejected",status="401"}`), 1);
    // by method and status code: a 503 apart from the 200s
    const d = (status) => `http_route="/hooks/plates",http_request_method="POST",http_response_status_code="${status}"`;
    assert.equal(s.get(`http_server_request_duration_seconds_bucket{${d(200)},le="0.005"}`), 0);
    assert.equal(s.get(`http_server_request_duration_seconds_bucket{${d(200)},le="0.025"}`), 1);
    assert.equal(s.get(`http_server_request_duration_seconds_bucket{${d(200)},le="+Inf"}`), 2);
    assert.equal(s.get(`http_server_request_duration_seconds_count{${d(200)}}`), 2);
    assert.ok(Math.abs(s.get(`http_server_request_duration_seconds_sum{${d(200)}}`) - 0.05) < 1e-9);
    assert.equal(s.get(`http_server_request_duration_seconds_bucket{${d(503)},le="0.005"}`), 1);
    assert.equal(s.get(`http_server_request_duration_seconds_count{${d(503)}}`), 1);
    assert.equal(s.get(`http_server_request_duration_seconds_count{${d(401)}}`), 1);
    assert.match(body, /# TYPE http_server_request_duration_seconds histogram/);
    assert.match(body, /# TYPE detection_bridge_events_accepted_total counter/);
    assert.equal(s.get('detection_bridge_dedupe_passed_total{node="d1",name="plates once"}'), 5);
    assert.equal(s.get('detection_bridge_dedupe_dropped_total{node="d1",name="plates once"}'), 2);
    assert.equal(s.get('detection_bridge_dedupe_held_total{node="d1",name="plates once"}'), 7);
    const pr = 'node="pr1",name="on site"';
    assert.equal(s.get(`detection_bridge_presence_arrived_total{${pr}}`), 9);
    assert.equal(s.get(`detection_bridge_presence_left_total{${pr}}`), 4);
    assert.equal(s.get(`detection_bridge_presence_still_here_total{${pr}}`), 1);
    assert.equal(s.get(`detection_bridge_presence_dropped_total{${pr}}`), 2);
    assert.equal(s.get(`detection_bridge_presence_present{${pr}}`), 5);
    assert.match(body, /# TYPE detection_bridge_presence_present gauge/);
    assert.equal(s.get('detection_bridge_push_batches_sent_total{node="p1",name=""}'), 4);
    assert.equal(s.get('detection_bridge_push_batches_failed_total{node="p1",name=""}'), 1);
    const al = 'node="al1",name="gate"';
    assert.deepEqual(
      [
        'alarms_opened_total',
        'alarms_acknowledged_total',
        'alarm_reminders_total',
        'alarms_escalated_total',
        'alarm_alerts_held_total',
        'alarms_open',
      ].map((m) => s.get(`detection_bridge_${m}{${al}}`)),
      [6, 4, 3, 1, 2, 2],
    );
    const ack = (le) => s.get(`detection_bridge_alarm_time_to_ack_seconds_bucket{${al},le="${le}"}`);
    assert.deepEqual([ack(30), ack(60), ack(300), ack(28800), ack('+Inf')], [0, 1, 3, 3, 4], 'cumulative buckets; 40,000 s only in +Inf');
    assert.equal(s.get(`detection_bridge_alarm_time_to_ack_seconds_count{${al}}`), 4);
    assert.equal(s.get(`detection_bridge_alarm_time_to_ack_seconds_sum{${al}}`), 40_445);
    assert.match(body, /# TYPE detection_bridge_alarm_time_to_ack_seconds histogram/);

    counts.accepted = 10;
    assert.equal(samples((await exporter.scrape()).body).get(`detection_bridge_events_accepted_total{${p}}`), 10, 'read again at the next scrape');
  });

  it('uses a registry of its own: nothing of it in prom-client’s global registry, and two exporters side by side', async () => {
    const sources = new MetricSources();
    sources.register('receiver', '/a', { read: () => ({ counters: { accepted: 1 } }) });
    const a = createMetricsExporter(sources);
    const b = createMetricsExporter(sources);
    assert.notEqual(a.registry, promClient.register);
    assert.equal(promClient.register.getSingleMetric('detection_bridge_events_accepted_total'), undefined);
    assert.equal(samples((await b.scrape()).body).get('detection_bridge_events_accepted_total{path="/a"}'), 1);
    assert.equal(samples((await a.scrape()).body).get('detection_bridge_events_accepted_total{path="/a"}'), 1);
  });

  it('serves the build info and Node’s process and runtime metrics, prefixed, beside a global registry that has its own', async () => {
    // what node-red-contrib-prometheus-exporter does on prom-client's global registry
    promClient.collectDefaultMetrics();
    try {
      const sources = new MetricSources();
      const first = createMetricsExporter(sources, { nodeRedVersion: '4.1.8' });
      const exporter = createMetricsExporter(sources, { nodeRedVersion: '4.1.8' });
      const { body } = await exporter.scrape();
      const s = samples(body);
      const { version } = require('../../../package.json');
      assert.equal(s.get(`detection_bridge_build_info{version="${version}",nodered_version="4.1.8",nodejs_version="${process.versions.node}"}`), 1);
      assert.ok(s.get('detection_bridge_process_resident_memory_bytes') > 0);
      assert.ok(s.get('detection_bridge_process_cpu_seconds_total') > 0);
      assert.ok(s.has('detection_bridge_nodejs_eventloop_lag_p99_seconds'));
      assert.ok(s.get('detection_bridge_process_open_fds') > 0);
      assert.match(body, /# TYPE detection_bridge_nodejs_gc_duration_seconds histogram/);
      assert.equal(
        [...s.keys()].filter((k) => !/^(detection_bridge_|http_server_request_duration_seconds)/.test(k)).join(', '),
        '',
        'nothing unprefixed of ours',
      );
      assert.ok((await promClient.register.metrics()).includes('\nprocess_resident_memory_bytes '), 'the global registry keeps its own');
      assert.equal(samples((await first.scrape()).body).get('detection_bridge_process_open_fds') > 0, true, 'two monitors share one set');
    } finally {
      promClient.register.clear();
    }
  });

  it('says `unknown` for a Node-RED version it was not given as text (RED.version()’s typings say a Promise)', async () => {
    const { body } = await createMetricsExporter(new MetricSources(), { nodeRedVersion: Promise.resolve('4.1.8') }).scrape();
    assert.match(body, /\ndetection_bridge_build_info\{version="[^"]+",nodered_version="unknown",nodejs_version="[^"]+"\} 1\n/);
  });

  it('leaves out a slow value that does not come in time, and serves the rest', async () => {
    const sources = new MetricSources();
    sources.register('receiver', '/slow', {
      read: () => ({ counters: { accepted: 1 } }),
      readSlow: () => new Promise(() => {}),
    });
    const { body } = await createMetricsExporter(sources, { slowMs: 20 }).scrape();
    const s = samples(body);
    assert.equal(s.get('detection_bridge_events_accepted_total{path="/slow"}'), 1);
    assert.equal(
      [...s.keys()].some((k) => k.startsWith('detection_bridge_stream_pending')),
      false,
    );
  });

  it('names the outcome of a status', () => {
    assert.deepEqual([200, 422, 503, 429, 401, 413, 500].map(outcomeOf), [
      'accepted',
      'invalid',
      'refused',
      'refused',
      'rejected',
      'rejected',
      'error',
    ]);
  });
});
