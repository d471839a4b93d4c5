/**
 * When a tracker (tracker.ts) wakes its owner to look for events due again:
 * at the end of the earliest failed event's pause, and every time limit
 * (redeliverAfterMs) while it holds events. On the tracker's clock, so tests
 * drive it with the fake one.
 */
import type { Clock } from '../core/clock';

export class WakeUps {
  private limitTimer: unknown;
  private retryTimer: unknown;
  private retryAt = Infinity;
  /** The clock reading of the last look for due events: what was due by then was listed. */
  lookedAt = -Infinity;

  constructor(
    private readonly clock: Clock,
    /** Wakes the owner (it looks for due events); undefined: nobody to wake. */
    private readonly wake: () => (() => void) | undefined,
  ) {}

  /**
   * Wakes the owner when a pause ends at `at`, and then at the next end `nextDue(looked)` answers (the
   * earliest pause ending after `looked`, or Infinity).
   */
  pauseEnds(at: number, nextDue: (looked: number) => number): void {
    if (at >= this.retryAt) return;
    const clock = this.clock;
    if (this.retryTimer !== undefined) clock.clearTimeout(this.retryTimer);
    this.retryAt = at;
    this.retryTimer = clock.setTimeout(
      () => {
        this.retryTimer = undefined;
        this.retryAt = Infinity;
        const before = clock.now();
        this.wake()?.();
        // The next pause to wait for: every one not over when that pass looked (listed ones have none any
        // more by now or soon). Its own clock reading, not a later one: Node runs a timer on the event loop's
        // cached time, in whole ms, so it can fire a moment early by the clock, and a pause that ended between
        // the pass and a later reading would be neither listed nor waited for, its event never tried again.
        const next = nextDue(this.lookedAt >= before ? this.lookedAt : before);
        if (next < Infinity) this.pauseEnds(next, nextDue);
      },
      Math.max(0, at - clock.now()),
    );
  }

  /** Wakes the owner every `limit` ms while `holding()` (0: never). */
  timeLimit(limit: number, holding: () => boolean): void {
    if (limit <= 0 || this.limitTimer !== undefined || !this.wake()) return;
    this.limitTimer = this.clock.setTimeout(() => {
      this.limitTimer = undefined;
      this.wake()?.();
      if (holding()) this.timeLimit(limit, holding);
    }, limit);
  }

  clear(): void {
    if (this.limitTimer !== undefined) this.clock.clearTimeout(this.limitTimer);
    this.limitTimer = undefined;
    if (this.retryTimer !== undefined) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.retryAt = Infinity;
  }
}
