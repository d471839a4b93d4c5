/**
 * A request-duration histogram kept as plain numbers: one observe is a short
 * scan over fixed bounds and two additions, with no labels to hash, so a
 * receiver can time every request at no noticeable cost. Read at scrape time
 * (./prometheus.ts) as Prometheus histogram buckets.
 */

/** OpenTelemetry's advice for `http.server.request.duration` (seconds). */
export const DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

export class DurationHistogram {
  /** Observations per bucket (not cumulative); the last one is above every bound (+Inf). */
  private readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[] = DURATION_BUCKETS) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(seconds: number): void {
    if (!(seconds >= 0)) return;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]) i++;
    this.counts[i]++;
    this.sum += seconds;
    this.count++;
  }

  /** Cumulative counts per bound, as Prometheus buckets: `le` → observations at most that long. */
  buckets(): Array<{ le: number; count: number }> {
    const out: Array<{ le: number; count: number }> = [];
    let running = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      running += this.counts[i];
      out.push({ le: this.bounds[i], count: running });
    }
    out.push({ le: Infinity, count: running + this.counts[this.bounds.length] });
    return out;
  }
}

/** Time from an alarm's opening to its acknowledgement (seconds): half a minute to a working day. */
export const ACK_BUCKETS: readonly number[] = [30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400, 28_800];

/**
 * A histogram as a source's counters (`<prefix>:<i>` per bucket, not
 * cumulative, `<prefix>:sum`, `<prefix>:count`): counters only grow, so
 * what a node counted carries over a deploy as every other count does
 * (./sources.ts), and the exporter makes buckets of them again.
 */
export function histogramCounters(h: DurationHistogram, prefix: string): Record<string, number> {
  const out: Record<string, number> = { [`${prefix}:sum`]: h.sum, [`${prefix}:count`]: h.count };
  let below = 0;
  h.buckets().forEach((b, i) => {
    out[`${prefix}:${i}`] = b.count - below;
    below = b.count;
  });
  return out;
}

/** Prometheus buckets (cumulative) from counters made by histogramCounters with `bounds`. */
export function bucketsOfCounters(
  counters: Record<string, number>,
  prefix: string,
  bounds: readonly number[],
): { buckets: Array<{ le: number; count: number }>; sum: number; count: number } {
  const buckets: Array<{ le: number; count: number }> = [];
  let running = 0;
  for (let i = 0; i <= bounds.length; i++) {
    running += counters[`${prefix}:${i}`] ?? 0;
    buckets.push({ le: i < bounds.length ? bounds[i] : Infinity, count: running });
  }
  return { buckets, sum: counters[`${prefix}:sum`] ?? 0, count: counters[`${prefix}:count`] ?? 0 };
}
