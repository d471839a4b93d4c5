/**
 * Says an outage of something a node depends on (Redis, say) once when it is
 * lost and once when it is back, so the log tells an operator when it began
 * and how long it lasted. A connection that flaps says "lost" at most once a
 * period; an outage held back is said at the end of the period if it is still
 * on (the log's last word is never "back" while it is down), with how many
 * short ones came in between. A "back" is said only after a "lost" was.
 */
import { systemClock, type Clock } from './clock';

export interface OutageReportOptions {
  /** "lost" is said at most once per this period (ms). */
  periodMs: number;
  clock?: Clock;
  /** It is lost; `alsoLost`: outages not said since the last said one (each back within the period). */
  sayLost(alsoLost: number): void;
  /** It is back, after `downMs` down. */
  sayBack(downMs: number): void;
}

export interface OutageReport {
  lost(): void;
  back(): void;
  /** Stops: no more timers or words. */
  close(): void;
}

export function createOutageReport(options: OutageReportOptions): OutageReport {
  const clock = options.clock ?? systemClock;
  let down = false;
  /** A "lost" was said and no "back" since. */
  let said = false;
  let saidAt = -Infinity;
  let downSince = 0;
  let unsaid = 0;
  let timer: unknown;
  let closed = false;

  const sayLost = (): void => {
    said = true;
    saidAt = clock.now();
    const alsoLost = unsaid;
    unsaid = 0;
    options.sayLost(alsoLost);
  };

  return {
    lost() {
      if (down || closed) return;
      down = true;
      const now = clock.now();
      downSince = now;
      if (now - saidAt >= options.periodMs) return sayLost();
      unsaid++;
      if (timer !== undefined) return;
      timer = clock.setTimeout(
        () => {
          timer = undefined;
          // Still down at the end of the period: said now (it counted itself among the unsaid).
          if (down && !said && !closed) {
            unsaid--;
            sayLost();
          }
        },
        saidAt + options.periodMs - now,
      );
      (timer as { unref?: () => void } | undefined)?.unref?.();
    },
    back() {
      if (!down || closed) return;
      down = false;
      if (!said) return;
      said = false;
      options.sayBack(clock.now() - downSince);
    },
    close() {
      closed = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    },
  };
}
