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
