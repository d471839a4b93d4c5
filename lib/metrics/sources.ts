/**
 * What an operator's view reads, kept process-wide: each receiver, dedupe,
 * presence, push and alarm node registers a source (a function that reads the counts it keeps
 * anyway) under a stable key, and the metrics and health answers
 * (./prometheus.ts, ./health.ts) read every source when they are asked. No
 * node pays anything per event for it but what it counted already.
 *
 * A deploy replaces a node by a new instance whose counts start at zero: the
 * entry of its key outlives it and adds what the old one had counted (its
 * base), so a counter Prometheus reads never goes down while the process
 * runs. Requests and their durations are counted by the entry itself
 * (RequestMeter), so they carry over as they are.
 */
import { DurationHistogram } from './histogram';

/** The kinds of source, in the order the exporter reads them. */
export const SOURCE_KINDS = ['receiver', 'dedupe', 'presence', 'push', 'alarm'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** Why a receiver does not take events now: a stable code (`not-mounted`, `redis-unreachable`, …) and what the code alone does not say. */
export interface ReadinessProblem {
  code: string;
  detail?: string;
}

/** Whether a receiver takes events now; when not, why. */
export interface Readiness {
  ok: boolean;
  problems: ReadinessProblem[];
  /** Redis in Sentinel mode: the primary in use (`host:port`, the last one while none is), and whether a failover is under way. */
  redis?: RedisPrimary;
}

export interface RedisPrimary {
  primary?: string;
  failover: boolean;
  /** Confirming on fewer replicas than asked (With fewer replicas: on those connected): how many are online, of how many asked. */
  shortfall?: { online: number; asked: number };
}

export interface SourceReading {
  /** Totals since this source started: they only grow while it lives. */
  counters: Record<string, number>;
  /** Values now; undefined: does not apply to this source (left out). */
  gauges?: Record<string, number | undefined>;
}

export interface MetricSource {
  read(): SourceReading;
  /** Receivers: whether it takes events now. */
  ready?(): Readiness;
  /** Values that cost I/O (a Redis stream's pending entries): read at scrape time only, bounded by the reader. */
  readSlow?(): Promise<Record<string, number | undefined>>;
}

/** Methods named as they are; any other is `_OTHER` (OpenTelemetry's rule), so a caller cannot add series. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/** The `http_request_method` label of a request's method. */
export function methodLabel(method: string | undefined): string {
  return method !== undefined && KNOWN_METHODS.has(method) ? method : '_OTHER';
}

/** The durations of one method and status. */
export interface DurationSeries {
  method: string;
  status: number;
  histogram: DurationHistogram;
}

/** Requests of one key by HTTP status, and how long they took by method and status. */
export class RequestMeter {
  readonly requests = new Map<number, number>();
  /** `METHOD status` → its durations; few (methods are named or `_OTHER`, statuses are the receiver's own). */
  readonly durations = new Map<string, DurationSeries>();

  /** One request (`method`) answered with `status` after `seconds`. */
  observe(status: number, seconds: number, method?: string): void {
    this.requests.set(status, (this.requests.get(status) ?? 0) + 1);
    const label = methodLabel(method);
    const key = `${label} ${status}`;
    let series = this.durations.get(key);
    if (!series) {
      series = { method: label, status, histogram: new DurationHistogram() };
      this.durations.set(key, series);
    }
    series.histogram.observe(seconds);
  }
}

export interface Registration {
  /** Where this source's requests are counted (shared with the instances before and after it). */
  readonly meter: RequestMeter;
  /** The source is gone (its node closed): what it counted stays in its key's totals. */
  unregister(): void;
}

/** One key's sources and what the ones gone before them counted. */
export interface SourceEntry {
  readonly kind: SourceKind;
  readonly key: string;
  /** Prometheus labels of this key (besides the metric's own). */
  labels: Record<string, string>;
  readonly live: Set<MetricSource>;
  readonly base: Record<string, number>;
  readonly meter: RequestMeter;
}

/** Keys whose sources are all gone are kept (their counters) up to this many; the oldest go first. */
const MAX_RETIRED = 1000;

export class MetricSources {
  private readonly entries = new Map<string, SourceEntry>();

  /** Registers `source` under `kind` and `key` (a receiver's configured path, a node's id). */
  register(kind: SourceKind, key: string, source: MetricSource, labels: Record<string, string> = {}): Registration {
    const id = `${kind}\u0000${key}`;
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { kind, key, labels, live: new Set(), base: {}, meter: new RequestMeter() };
      this.entries.set(id, entry);
    } else {
      // Most recent first: a retired key that comes back is no longer the oldest.
      this.entries.delete(id);
      this.entries.set(id, entry);
      entry.labels = labels;
    }
    const own = entry;
    own.live.add(source);
    let gone = false;
    return {
      meter: own.meter,
      unregister: () => {
        if (gone) return;
        gone = true;
        // What it counted stays: its last reading joins the base of its key.
        try {
          for (const [name, value] of Object.entries(source.read().counters)) own.base[name] = (own.base[name] ?? 0) + value;
        } catch {
          // A source that cannot be read any more loses only its own last counts.
        }
        own.live.delete(source);
        this.trim();
      },
    };
  }

  /** Every key of `kind`, in registration order. */
  list(kind: SourceKind): SourceEntry[] {
    return [...this.entries.values()].filter((e) => e.kind === kind);
  }

  /** A key's counters now: what its sources gone before counted plus what the live ones count. */
  counters(entry: SourceEntry): Record<string, number> {
    const out: Record<string, number> = { ...entry.base };
    for (const source of entry.live) {
      for (const [name, value] of Object.entries(read(source).counters)) out[name] = (out[name] ?? 0) + value;
    }
    return out;
  }

  /** A key's gauges now (summed over its live sources); none once every source is gone. */
  gauges(entry: SourceEntry): Record<string, number> {
    const out: Record<string, number> = {};
    for (const source of entry.live) {
      for (const [name, value] of Object.entries(read(source).gauges ?? {})) if (value !== undefined) out[name] = (out[name] ?? 0) + value;
    }
    return out;
  }

  private trim(): void {
    let retired = 0;
    for (const entry of this.entries.values()) if (entry.live.size === 0) retired++;
    for (const [id, entry] of this.entries) {
      if (retired <= MAX_RETIRED) break;
      if (entry.live.size > 0) continue;
      this.entries.delete(id);
      retired--;
    }
  }
}

function read(source: MetricSource): SourceReading {
  try {
    return source.read();
  } catch {
    return { counters: {} };
  }
}

/** The process's sources: every node registers here, every monitor reads here. */
export const metricSources = new MetricSources();
