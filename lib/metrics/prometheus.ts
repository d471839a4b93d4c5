/**
 * The Prometheus side of the operator's view: a private prom-client Registry
 * (never the global one, which other packages and node-red-contrib-prometheus-exporter
 * use) whose metrics read the process's sources (./sources.ts) when scraped,
 * through prom-client's `collect()`. Receivers are labelled by their
 * configured path, never by the URL a request used.
 */
import { Counter, Gauge, Registry, type Metric } from 'prom-client';
import { readiness } from './health';
import { metricSources, type MetricSources, type SourceEntry, type SourceKind } from './sources';

/** What a scrape answers. */
export interface Scrape {
  contentType: string;
  body: string;
}

export interface MetricsExporter {
  readonly registry: Registry;
  scrape(): Promise<Scrape>;
}

/** A request's outcome, from the status it was answered with. */
export function outcomeOf(status: number): 'accepted' | 'invalid' | 'refused' | 'rejected' | 'error' {
  if (status >= 200 && status < 300) return 'accepted';
  if (status === 422) return 'invalid';
  // Busy, journal full, Redis unreachable, deploying: the bridge sends it again.
  if (status === 503 || status === 429) return 'refused';
  if (status >= 400 && status < 500) return 'rejected';
  return 'error';
}

interface Snapshot {
  kind: SourceKind;
  entry: SourceEntry;
  counters: Record<string, number>;
  gauges: Record<string, number>;
  ready?: boolean;
}

type Reading = (s: Snapshot) => number | undefined;

/** One metric per row: its name, what it reads, of which kind of source. */
interface Row {
  name: string;
  help: string;
  kind: SourceKind;
  type: 'counter' | 'gauge';
  value: Reading;
}

const NODE_LABELS = ['node', 'name'] as const;

const ROWS: Row[] = [
  {
    name: 'detection_bridge_events_accepted_total',
    help: 'Events a receiver accepted (answered 200).',
    kind: 'receiver',
    type: 'counter',
    value: (s) => s.counters.accepted ?? 0,
  },
  {
    name: 'detection_bridge_events_refused_total',
    help: 'Events a receiver refused for now (503: in flight full, journal full, Redis unreachable); the bridge sends them again.',
    kind: 'receiver',
    type: 'counter',
    value: (s) => sumStatus(s.entry, 503) + sumStatus(s.entry, 429),
  },
  {
    name: 'detection_bridge_events_redelivered_total',
    help: 'Events emitted again (any cause).',
    kind: 'receiver',
    type: 'counter',
    value: (s) => s.counters.redelivered,
  },
  {
    name: 'detection_bridge_attempts_failed_total',
    help: 'Attempts that failed (a flow said failed, or the time limit passed).',
    kind: 'receiver',
    type: 'counter',
    value: (s) => s.counters.failed,
  },
  {
    name: 'detection_bridge_events_dead_lettered_total',
    help: 'Events kept aside after their last attempt failed.',
    kind: 'receiver',
    type: 'counter',
    value: (s) => s.counters.deadLettered,
  },
  {
    name: 'detection_bridge_dead_letters_dropped_total',
    help: 'Dead letters dropped past the cap.',
    kind: 'receiver',
    type: 'counter',
    value: (s) => s.counters.deadLettersDropped,
  },
  { name: 'detection_bridge_dead_letters', help: 'Dead letters kept now.', kind: 'receiver', type: 'gauge', value: (s) => s.gauges.deadLetters },
  {
    name: 'detection_bridge_events_in_flight',
    help: 'Events taken and not finished.',
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.inFlightEvents,
  },
  {
    name: 'detection_bridge_bytes_in_flight',
    help: 'Bytes of the events taken and not finished.',
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.inFlightBytes,
  },
  {
    name: 'detection_bridge_oldest_unfinished_event_age_seconds',
    help: 'Age of the oldest event taken and not finished (0: none).',
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.oldestUnfinishedAgeSeconds,
  },
  {
    name: 'detection_bridge_journal_bytes',
    help: 'Size of the journal file (disk mode).',
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.journalBytes,
  },
  {
    name: 'detection_bridge_stream_pending',
    help: "Entries pending in the receiver's Redis stream, all instances (redis mode).",
    kind: 'receiver',
    type: 'gauge',
    value: (s) => s.gauges.streamPending,
  },
  {
    name: 'detection_bridge_receiver_ready',
    help: 'Whether the receiver takes events now (1) or not (0); see the readiness answer for why.',
    kind: 'receiver',
    type: 'gauge',
    value: (s) => (s.ready === undefined ? undefined : s.ready ? 1 : 0),
  },
  {
    name: 'detection_bridge_dedupe_passed_total',
    help: 'Messages a dedupe node passed.',
    kind: 'dedupe',
    type: 'counter',
    value: (s) => s.counters.passed,
  },
  {
    name: 'detection_bridge_dedupe_dropped_total',
    help: 'Messages a dedupe node dropped as repeats.',
    kind: 'dedupe',
    type: 'counter',
    value: (s) => s.counters.dropped,
  },
  {
    name: 'detection_bridge_dedupe_held_total',
    help: "Messages a dedupe node's cap held back (summed up in its digests).",
    kind: 'dedupe',
    type: 'counter',
    value: (s) => s.counters.held,
  },
  {
    name: 'detection_bridge_presence_arrived_total',
    help: 'Arrivals a presence node sent.',
    kind: 'presence',
    type: 'counter',
    value: (s) => s.counters.arrived,
  },
  {
    name: 'detection_bridge_presence_left_total',
    help: 'Departures a presence node sent.',
    kind: 'presence',
    type: 'counter',
    value: (s) => s.counters.left,
  },
  {
    name: 'detection_bridge_presence_still_here_total',
    help: 'Still-here messages a presence node sent.',
    kind: 'presence',
    type: 'counter',
    value: (s) => s.counters.stillHere,
  },
  {
    name: 'detection_bridge_presence_dropped_total',
    help: 'Keys a presence node dropped past its Most keys.',
    kind: 'presence',
    type: 'counter',
    value: (s) => s.counters.dropped,
  },
  {
    name: 'detection_bridge_presence_present',
    help: 'Keys a presence node holds as present now.',
    kind: 'presence',
    type: 'gauge',
    value: (s) => s.gauges.present,
  },
  {
    name: 'detection_bridge_push_batches_sent_total',
    help: 'Batches a platform push node sent successfully.',
    kind: 'push',
    type: 'counter',
    value: (s) => s.counters.batchesSent,
  },
  {
    name: 'detection_bridge_push_batches_failed_total',
    help: 'Batches a platform push node gave up on.',
    kind: 'push',
    type: 'counter',
    value: (s) => s.counters.batchesFailed,
  },
];

function sumStatus(entry: SourceEntry, status: number): number {
  return entry.meter.requests.get(status) ?? 0;
}

function labelsOf(s: Snapshot): Record<string, string> {
  return s.kind === 'receiver' ? { path: s.entry.key } : { node: s.entry.key, name: s.entry.labels.name ?? '' };
}

/** Waits for `promise` at most `ms`; undefined past it or on failure. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A private registry over `sources`. `slowMs` bounds what costs I/O (a Redis
 * stream's pending count): a scrape never waits longer for it, the value is
 * left out instead.
 */
export function createMetricsExporter(
  sources: MetricSources = metricSources,
  options: { slowMs?: number; now?: () => number } = {},
): MetricsExporter {
  const slowMs = options.slowMs ?? 1000;
  const registry = new Registry();
  let snapshot: Snapshot[] = [];

  /** Every key's values now; what costs I/O is asked of all sources at once, each bounded by slowMs. */
  const take = async (): Promise<Snapshot[]> => {
    const entries = (['receiver', 'dedupe', 'presence', 'push'] as const).flatMap((kind) => sources.list(kind).map((entry) => ({ kind, entry })));
    return Promise.all(
      entries.map(async ({ kind, entry }) => {
        const gauges = sources.gauges(entry);
        const slow = await Promise.all([...entry.live].map((source) => (source.readSlow ? within(source.readSlow(), slowMs) : undefined)));
        for (const values of slow) {
          for (const [name, value] of Object.entries(values ?? {})) if (value !== undefined) gauges[name] = (gauges[name] ?? 0) + value;
        }
        const snap: Snapshot = { kind, entry, counters: sources.counters(entry), gauges };
        if (kind === 'receiver' && entry.live.size > 0) snap.ready = readiness(sources, entry.key).status === 200;
        return snap;
      }),
    );
  };

  for (const row of ROWS) {
    const labelNames = row.kind === 'receiver' ? ['path'] : [...NODE_LABELS];
    const config = { name: row.name, help: row.help, labelNames, registers: [registry] };
    if (row.type === 'counter') {
      new Counter({
        ...config,
        collect(this: Counter) {
          this.reset();
          for (const s of snapshot) {
            if (s.kind !== row.kind) continue;
            const value = row.value(s);
            if (value !== undefined) this.inc(labelsOf(s), value);
          }
        },
      });
    } else {
      new Gauge({
        ...config,
        collect(this: Gauge) {
          this.reset();
          for (const s of snapshot) {
            if (s.kind !== row.kind) continue;
            const value = row.value(s);
            if (value !== undefined) this.set(labelsOf(s), value);
          }
        },
      });
    }
  }

  new Counter({
    name: 'detection_bridge_requests_total',
    help: 'Requests to a receiver, by outcome (accepted, invalid, refused, rejected, error) and HTTP status.',
    labelNames: ['path', 'outcome', 'status'],
    registers: [registry],
    collect(this: Counter) {
      this.reset();
      for (const s of snapshot) {
        if (s.kind !== 'receiver') continue;
        for (const [status, count] of s.entry.meter.requests)
          this.inc({ path: s.entry.key, outcome: outcomeOf(status), status: String(status) }, count);
      }
    },
  });

  // Kept by the receivers as plain numbers (./histogram.ts): served as prom-client serves a histogram.
  const durationName = 'http_server_request_duration_seconds';
  const duration = {
    name: durationName,
    help: 'Duration of HTTP server requests to a receiver (OpenTelemetry http.server.request.duration).',
    type: 'histogram',
    aggregator: 'sum',
    collect() {},
    reset() {},
    get: async () => ({
      name: durationName,
      help: duration.help,
      type: 'histogram',
      aggregator: 'sum',
      values: snapshot
        .filter((s) => s.kind === 'receiver')
        .flatMap((s) => {
          const h = s.entry.meter.duration;
          const route = s.entry.key;
          return [
            ...h.buckets().map((b) => ({
              metricName: `${durationName}_bucket`,
              labels: { http_route: route, le: b.le === Infinity ? '+Inf' : b.le },
              value: b.count,
            })),
            { metricName: `${durationName}_sum`, labels: { http_route: route }, value: h.sum },
            { metricName: `${durationName}_count`, labels: { http_route: route }, value: h.count },
          ];
        }),
    }),
  };
  registry.registerMetric(duration as unknown as Metric);

  return {
    registry,
    async scrape() {
      snapshot = await take();
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
