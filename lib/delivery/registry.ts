/**
 * Receivers' trackers by node id, for the life of the process (not of one
 * deploy): a receiver restarted by a deploy takes over the events its
 * previous instance left unfinished, and `detection-done` nodes find the
 * tracker of the receiver a message came from. Whether a receiver waits for
 * a done node at all is its own decision (downstream.ts), not the registry's.
 */
import type { DeliveryId, EventDelivery } from './tracker';

/** What a message carries to be marked finished: `msg._delivery`. */
export interface DeliveryToken {
  receiver: string;
  id: DeliveryId;
}

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

export function isDeliveryToken(value: unknown): value is DeliveryToken {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as DeliveryToken).receiver === 'string' &&
    (Number.isInteger((value as DeliveryToken).id) || typeof (value as DeliveryToken).id === 'string')
  );
}

/** Marks the event of `token` finished. False when it was not in flight (already finished, or unknown). */
export function completeDelivery(token: DeliveryToken): boolean {
  return trackers.get(token.receiver)?.complete(token.id) ?? false;
}
