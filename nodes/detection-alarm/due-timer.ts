/**
 * When detection-alarm sweeps its book for what fell due (reminders,
 * escalations, quiet closes, snoozes ending): one timer on the node's clock
 * at the earliest time asked for, and sweeps that never overlap (one asked
 * for while another runs follows it), so a node stopping can wait for the
 * one under way.
 */
import type { Clock } from '../../lib/core';

/** Longest single wait (Node's timers take at most 2^31 - 1 ms): a day, then it waits again. */
const MAX_WAIT_MS = 86_400_000;

export class DueTimer {
  private timer: unknown;
  private timerAt = Infinity;
  private sweeping: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly sweep: () => Promise<void>,
  ) {}

  /** Sweeps at `at` (epoch ms on the clock), unless a sweep is due sooner already; Infinity: not for this. */
  wakeAt(at: number): void {
    if (this.stopped || !Number.isFinite(at)) return;
    if (this.timer !== undefined) {
      if (this.timerAt <= at) return;
      this.clock.clearTimeout(this.timer);
    }
    this.timerAt = at;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.sweepNow();
      },
      Math.min(MAX_WAIT_MS, Math.max(0, at - this.clock.now())),
    );
  }

  /** Sweeps now, or once the sweep under way is done. */
  sweepNow(): void {
    if (this.stopped) return;
    if (this.sweeping) {
      this.again = true;
      return;
    }
    // a sweep reports its own failures: this only keeps one from going unhandled
    this.sweeping = this.sweep()
      .catch(() => undefined)
      .finally(() => {
        this.sweeping = undefined;
        if (!this.again) return;
        this.again = false;
        this.sweepNow();
      });
  }

  /** No more sweeps; resolves once the one under way (if any) is done. */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    return Promise.resolve(this.sweeping);
  }
}
