/** The pauses between an event's attempts, and the policy a receiver uses when its options say nothing. */
import { DEFAULT_LIMITS } from './options';
import type { RetryPolicy } from './types';

/** detection-in's defaults, as the option table states them (options.ts). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = DEFAULT_LIMITS.retry;

/** The pause after failed attempt `attempt` (1 = the first): firstPauseMs, then 4 times longer each time, at most maxPauseMs. */
export function retryPause(policy: RetryPolicy, attempt: number): number {
  const n = Math.max(1, Math.floor(attempt));
  // 4^(n-1) overflows to Infinity long before it matters: bounded by maxPauseMs either way.
  return Math.max(0, Math.min(policy.maxPauseMs, policy.firstPauseMs * 4 ** (n - 1)));
}
