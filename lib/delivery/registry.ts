/**
 * Receivers' trackers by node id, for the life of the process (not of one
 * deploy): a receiver restarted by a deploy takes over the events its
 * previous instance left unfinished, and the flow's nodes find the tracker
 * of the receiver a message came from (through completion.ts, never
 * directly). Whether a receiver waits for a done node at all is its own
 * decision (downstream.ts), not the registry's.
 */
import type { EventDelivery } from './types';

const trackers = new Map<string, EventDelivery<unknown>>();

export function trackerOf(receiver: string): EventDelivery<unknown> | undefined {
  return trackers.get(receiver);
}

export function keepTracker(receiver: string, tracker: EventDelivery<unknown>): void {
  trackers.set(receiver, tracker);
}

export function dropTracker(receiver: string): EventDelivery<unknown> | undefined {
  const tracker = trackers.get(receiver);
  trackers.delete(receiver);
  return tracker;
}
