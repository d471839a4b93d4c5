/**
 * Receivers' trackers by node id, for the life of the process (not of one
 * deploy): a receiver restarted by a deploy takes over the events its
 * previous instance left unfinished, and `detection-done` nodes find the
 * tracker of the receiver a message came from.
 */
import type { DeliveryId, EventDelivery } from './tracker';

/** What a message carries to be marked finished: `msg._delivery`. */
export interface DeliveryToken {
  receiver: string;
  id: DeliveryId;
}

const trackers = new Map<string, EventDelivery<unknown>>();
let doneNodes = 0;

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

/** A detection-done node is running; the returned function says it stopped. */
export function registerDoneNode(): () => void {
  doneNodes++;
  let registered = true;
  return () => {
    if (registered) doneNodes--;
    registered = false;
  };
}

/** Whether completion waits for a detection-done node (there is one in the flows). */
export function completionAwaited(): boolean {
  return doneNodes > 0;
}
