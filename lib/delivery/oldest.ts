/**
 * The ages an operator's view reads of a store's events in flight (tracker.ts,
 * stream.ts): the oldest unfinished one, and the oldest not waiting out a
 * retry pause, so that an alert on the second does not page on a healthy
 * retry (the default pauses reach 640 s).
 */
import type { DeliveryStats } from './types';

/** When the oldest of `entries` was received (`receivedAt`), of all of them and of those not paused at `now`. */
export function oldestOf<E extends { dueAt?: number }>(
  entries: Iterable<E>,
  receivedAt: (entry: E) => number | undefined,
  now: number,
): Pick<DeliveryStats, 'oldestUnfinishedAt' | 'oldestUnpausedAt'> {
  let oldest: number | undefined;
  let unpaused: number | undefined;
  for (const entry of entries) {
    const at = receivedAt(entry);
    if (at === undefined) continue;
    if (oldest === undefined || at < oldest) oldest = at;
    // A failed event due again later is waiting, not stuck; one due already (a replay, a pause just over) counts.
    const pausing = entry.dueAt !== undefined && entry.dueAt > now;
    if (!pausing && (unpaused === undefined || at < unpaused)) unpaused = at;
  }
  return unpaused === undefined ? { oldestUnfinishedAt: oldest } : { oldestUnfinishedAt: oldest, oldestUnpausedAt: unpaused };
}
