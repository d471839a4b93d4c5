/**
 * The options a receiver's store session takes, keyed and typed as the
 * option table states them (lib/config/node-options.ts, detection-in), with
 * their defaults read from it and their units converted here, once (MiB to
 * bytes, seconds to ms). A new delivery option is added to the table, read
 * here or in the session, and offered by the dialog's template.
 */
import { mibBytes, nodeOptions } from '../config';
import type { RetryPolicy } from './types';

/** detection-in's options as the table reads them. */
export type ReceiverNodeOptions = ReturnType<typeof nodeOptions<'detection-in'>>;

/** The options a store session takes: detection-in's, as the table reads them (it uses those that say how events are kept). */
export type SessionOptions = ReceiverNodeOptions;

/** Every option of the table as a receiver saved without it runs with. */
export const RECEIVER_DEFAULTS: ReceiverNodeOptions = nodeOptions('detection-in', {});

/** The retry policy of the options: seconds to ms (a longest pause below the first one: the first one, every time). */
export function retryPolicyOf(o: Pick<SessionOptions, 'maxAttempts' | 'firstPauseSeconds' | 'maxPauseSeconds' | 'maxDeadLetters'>): RetryPolicy {
  return {
    maxAttempts: o.maxAttempts,
    firstPauseMs: o.firstPauseSeconds * 1000,
    maxPauseMs: Math.max(o.maxPauseSeconds, o.firstPauseSeconds) * 1000,
    maxDeadLetters: o.maxDeadLetters,
  };
}

/** The store's limits of the options, in bytes and ms. */
export function storeLimits(o: SessionOptions) {
  return {
    maxEvents: o.maxInFlight,
    maxBytes: mibBytes(o.maxInFlightMiB),
    journalMaxBytes: mibBytes(o.journalMaxMiB),
    redeliverAfterMs: o.redeliverAfterSeconds * 1000,
    streamMaxEvents: o.streamMaxEvents,
    streamMaxBytes: mibBytes(o.streamMaxMiB),
    claimAfterMs: o.claimAfterSeconds * 1000,
    retry: retryPolicyOf(o),
  };
}

/** The defaults in bytes and ms: what a store given no option runs with. */
export const DEFAULT_LIMITS = storeLimits(RECEIVER_DEFAULTS);
