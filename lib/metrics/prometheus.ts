/**
 * The Prometheus side of the operator's view: a private prom-client Registry
 * (never the global one, which other packages and node-red-contrib-prometheus-exporter
 * use) whose metrics read the process's sources (./sources.ts) when scraped,
 * through prom-client's `collect()` (the metrics, one row each: ./rows.ts),
 * served with the process's runtime metrics and the build info
 * (./runtime.ts). Receivers are labelled by their configured path, never by
 * the URL a request used.
 */
import { Counter, Gauge, Registry, type Metric } from 'prom-client';
import { readiness } from './health';
import { NODE_LABELS, ROWS, type Snapshot } from './rows';
import { buildInfo, registerBuildInfo, runtimeRegistry } from './runtime';
import { ACK_BUCKETS, bucketsOfCounters } from './histogram';
import { metricSources, SOURCE_KINDS, type MetricSources } from './sources';

/** What a scrape answers. */
export interface Scrape {
  contentType: string;
  body: string;
}

export interface MetricsExporter {
  /** What it serves: the package's metrics, the build info and the process's runtime metrics. */
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
 * left out instead. `nodeRedVersion`: for the build info (what `RED.version()` gives a node).
 */
export function createMetricsExporter(
  sources: MetricSources = metricSources,
  options: { slowMs?: number; now?: () => number; nodeRedVersion?: unknown } = {},
): MetricsExporter {
  const slowMs = options.slowMs ?? 1000;
  const registry = new Registry();
  let snapshot: Snapshot[] = [];

  /** Every key's values now; what costs I/O is asked of all sources at once, each bounded by slowMs. */
  const take = async (): Promise<Snapshot[]> => {
    const entries = SOURCE_KINDS.flatMap((kind) => sources.list(kind).map((entry) => ({ kind, entry })));
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
  plainHistogram(
    registry,
    'http_server_request_duration_seconds',
    'Duration of HTTP server requests to a receiver, by method and status code (OpenTelemetry http.server.request.duration).',
    () =>
      snapshot
        .filter((s) => s.kind === 'receiver')
        .flatMap((s) =>
          [...s.entry.meter.durations.values()].map(({ method, status, histogram: h }) => ({
            labels: { http_route: s.entry.key, http_request_method: method, http_response_status_code: String(status) },
            buckets: h.buckets(),
            sum: h.sum,
            count: h.count,
          })),
        ),
  );
  // Kept by the alarm nodes as counters (./histogram.ts histogramCounters), so they carry over a deploy.
  plainHistogram(registry, 'detection_bridge_alarm_time_to_ack_seconds', 'Time from an alarm opening to its acknowledgement.', () =>
    snapshot.filter((s) => s.kind === 'alarm').map((s) => ({ labels: labelsOf(s), ...bucketsOfCounters(s.counters, 'ack', ACK_BUCKETS) })),
  );
  registerBuildInfo(registry, buildInfo(options.nodeRedVersion));
  const served = Registry.merge([registry, runtimeRegistry()]);

  return {
    registry: served,
    async scrape() {
      snapshot = await take();
      return { contentType: served.contentType, body: await served.metrics() };
    },
  };
}

interface HistogramSeries {
  labels: Record<string, string>;
  buckets: Array<{ le: number; count: number }>;
  sum: number;
  count: number;
}

/** A histogram kept as plain numbers elsewhere, served as prom-client serves one (its own Histogram would count again). */
function plainHistogram(registry: Registry, name: string, help: string, series: () => HistogramSeries[]): void {
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    collect() {},
    reset() {},
    get: async () => ({
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      values: series().flatMap(({ labels, buckets, sum, count }) => [
        ...buckets.map((b) => ({ metricName: `${name}_bucket`, labels: { ...labels, le: b.le === Infinity ? '+Inf' : b.le }, value: b.count })),
        { metricName: `${name}_sum`, labels, value: sum },
        { metricName: `${name}_count`, labels, value: count },
      ]),
    }),
  };
  registry.registerMetric(metric as unknown as Metric);
}
