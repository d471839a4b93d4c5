/**
 * Counting for the bridge simulator's delivery runs: the summary object, a
 * latency recorder with percentiles, and the summary as a text table or JSON.
 * Node-RED-free.
 */
import { writeFile } from 'node:fs/promises';
import type { EventKind } from '../lib/events';

export interface LatencySummary {
  /** Acknowledged attempts measured. */
  count: number;
  /** Milliseconds from sending the request to the end of the answer; null when nothing was acknowledged. */
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

export interface DeliverySummary {
  /** The receiver URL (several, round robin: comma-separated). */
  url: string;
  /** `resilient`: retry until a 200; `retries`: a fixed number of retries with exponential backoff. */
  mode: 'resilient' | 'retries';
  /** The retry budget in `retries` mode; null in resilient mode (unbounded). */
  retries: number | null;
  /** Events delivered for the first time (each with a fresh messageId). */
  sent: number;
  /** Events sent, by kind. */
  kinds: Record<EventKind, number>;
  /** HTTP requests made, first deliveries and replays. */
  attempts: number;
  /** Events the receiver acknowledged (2xx; 200 in resilient mode). Each event counts once. */
  acknowledged: number;
  /** Replays: attempts after the first, each with `resentEvent` true and the same messageId. */
  retried: number;
  /** Events given up on after the last retry. */
  failed: number;
  /** Events still unfinished when the run was stopped. */
  abandoned: number;
  /** True when the run was stopped (AbortSignal, SIGINT) before it finished. */
  stopped: boolean;
  /** Answers by HTTP status, over all attempts: `{ "200": 9, "503": 2 }`. */
  statusCodes: Record<string, number>;
  /** Attempts without an answer, by reason: `timeout`, `aborted`, or an error code
   *  such as `ECONNREFUSED` or `DEPTH_ZERO_SELF_SIGNED_CERT`. */
  errors: Record<string, number>;
  /** Latency of acknowledged attempts. */
  latencyMs: LatencySummary;
  /** Request body bytes over all attempts. */
  bytesSent: number;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** Acknowledged events per second over the run. */
  acknowledgedPerSecond: number;
}

/** Keeps every sample up to `capacity`, then a uniform random sample of that
 *  size (reservoir sampling), so a run that goes on forever stays bounded.
 *  Count and maximum are always exact. */
export class LatencyRecorder {
  private readonly samples: number[] = [];
  private seen = 0;
  private maximum = -Infinity;

  constructor(private readonly capacity = 100_000) {}

  record(ms: number): void {
    this.seen++;
    if (ms > this.maximum) this.maximum = ms;
    if (this.samples.length < this.capacity) {
      this.samples.push(ms);
    } else {
      const j = Math.floor(Math.random() * this.seen);
      if (j < this.capacity) this.samples[j] = ms;
    }
  }

  summary(): LatencySummary {
    if (this.seen === 0) return { count: 0, p50: null, p90: null, p99: null, max: null };
    const sorted = [...this.samples].sort((a, b) => a - b);
    return {
      count: this.seen,
      p50: round(percentile(sorted, 50)),
      p90: round(percentile(sorted, 90)),
      p99: round(percentile(sorted, 99)),
      max: round(this.maximum),
    };
  }
}

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function counts(record: Record<string, number>): string {
  const entries = Object.entries(record).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
  return entries.length ? entries.map(([k, v]) => `${k} ×${v}`).join(', ') : '-';
}

function ms(value: number | null): string {
  return value === null ? '-' : value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

function bytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

/** The summary as an aligned two-column text table. */
export function formatSummary(summary: DeliverySummary): string {
  const mode =
    summary.mode === 'resilient'
      ? 'resilient (retry until 200)'
      : `${summary.retries} ${summary.retries === 1 ? 'retry' : 'retries'} with exponential backoff`;
  const l = summary.latencyMs;
  const rows: Array<[string, string]> = [
    ['receiver', summary.url],
    ['mode', mode],
    ['duration', `${(summary.durationMs / 1000).toFixed(2)} s${summary.stopped ? ' (stopped)' : ''}`],
    ['sent (events)', `${summary.sent} (face ${summary.kinds.face}, plate ${summary.kinds.lpr})`],
    ['attempts', String(summary.attempts)],
    ['acknowledged', `${summary.acknowledged} (${summary.acknowledgedPerSecond.toFixed(1)}/s)`],
    ['retried (replays)', String(summary.retried)],
    ['failed', String(summary.failed)],
    ['abandoned', String(summary.abandoned)],
    ['status codes', counts(summary.statusCodes)],
    ['no answer', counts(summary.errors)],
    ['latency ms', `p50 ${ms(l.p50)}  p90 ${ms(l.p90)}  p99 ${ms(l.p99)}  max ${ms(l.max)}  (n=${l.count})`],
    ['bytes sent', bytes(summary.bytesSent)],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const line = '-'.repeat(width + 2 + Math.min(60, Math.max(...rows.map(([, v]) => v.length))));
  return ['delivery summary', line, ...rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`), line].join('\n') + '\n';
}

/** Writes the summary as pretty JSON (with a trailing newline). */
export async function writeSummaryJson(file: string, summary: DeliverySummary): Promise<void> {
  await writeFile(file, `${JSON.stringify(summary, null, 2)}\n`, 'utf8');
}
