/**
 * Lets a repeated report through a few times per period, so a failure that
 * repeats (a bridge with a wrong token, a burst of dead letters, Redis
 * flapping) fills neither Node-RED's log nor the debug sidebar, yet nothing
 * goes unsaid: what was held back in a period is counted and handed to
 * `onHeldBack` once the period ends. Reports are told apart by a key (the
 * kind of failure); the keys remembered are bounded. Time comes from a Clock,
 * so tests drive it.
 */
import { systemClock, type Clock } from './clock';

export interface RateLimitOptions {
  /** How long a period lasts (ms). */
  periodMs: number;
  /** Reports of one key let through per period; default 1. */
  perPeriod?: number;
  clock?: Clock;
  /** Keys remembered at most (the oldest is forgotten first); default 500. */
  maxKeys?: number;
  /** Once a period in which `count` reports of `key` were held back has ended: say so, once. */
  onHeldBack?(key: string, count: number): void;
}

export interface RateLimit {
  /** Whether a report of `key` may be made now; counts it as made (or as held back). */
  pass(key?: string): boolean;
  /** Forgets everything and cancels the pending summaries (the owner is closing). */
  close(): void;
}

interface Period {
  start: number;
  passed: number;
  heldBack: number;
  timer?: unknown;
}

const DEFAULT_MAX_KEYS = 500;

export function createRateLimit(options: RateLimitOptions): RateLimit {
  const clock = options.clock ?? systemClock;
  const perPeriod = Math.max(1, options.perPeriod ?? 1);
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  /** key → its current period; oldest first (a Map keeps insertion order). */
  const periods = new Map<string, Period>();
  let closed = false;

  const summarize = (key: string, period: Period): void => {
    period.timer = undefined;
    const count = period.heldBack;
    period.heldBack = 0;
    if (!closed && count > 0) options.onHeldBack?.(key, count);
  };

  const forget = (key: string): void => {
    const period = periods.get(key);
    if (period?.timer !== undefined) {
      clock.clearTimeout(period.timer);
      // said now rather than never
      summarize(key, period);
    }
    periods.delete(key);
  };

  return {
    pass(key = '') {
      if (closed) return false;
      const now = clock.now();
      const period = periods.get(key);
      if (period === undefined || now - period.start >= options.periodMs) {
        if (period) forget(key);
        periods.set(key, { start: now, passed: 1, heldBack: 0 });
        if (periods.size > maxKeys) forget(periods.keys().next().value as string);
        return true;
      }
      if (period.passed < perPeriod) {
        period.passed++;
        return true;
      }
      period.heldBack++;
      // a summary only for an owner that says it (the warning gate asks none)
      if (period.timer === undefined && options.onHeldBack) {
        period.timer = clock.setTimeout(() => summarize(key, period), period.start + options.periodMs - now);
        // A summary pending must not keep Node.js running.
        (period.timer as { unref?: () => void } | undefined)?.unref?.();
      }
      return false;
    },
    close() {
      closed = true;
      for (const period of periods.values()) if (period.timer !== undefined) clock.clearTimeout(period.timer);
      periods.clear();
    },
  };
}
