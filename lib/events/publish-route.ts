/**
 * Routing of detection events by `publishType`, for detection-switch.
 * Node-RED-free: the node only reads the property and sends what this returns.
 */
import { PUBLISH_TYPE_FACE, PUBLISH_TYPE_LPR } from '../core/event-kinds';

/** Where an event goes: output 1, 2 or 3. */
export type Route = 'face' | 'plate' | 'other';
export const ROUTES: readonly Route[] = ['face', 'plate', 'other'];

/**
 * The route of a value: an event object (its `publishType` is read) or the
 * `publishType` string itself (so `msg.topic` of detection-in works too).
 * Anything else, including a missing or unknown `publishType`, is `other`.
 */
export function routeOf(value: unknown): Route {
  const type =
    typeof value === 'string' ? value : value !== null && typeof value === 'object' ? (value as { publishType?: unknown }).publishType : undefined;
  if (type === PUBLISH_TYPE_FACE) return 'face';
  if (type === PUBLISH_TYPE_LPR) return 'plate';
  return 'other';
}

/**
 * The argument for `send()`: the message itself (never a copy) in the slot of
 * its route and null elsewhere, or null when it is to be dropped (route
 * `other` while the third output is turned off).
 */
export function routeSlots<T>(msg: T, route: Route, otherOutput: boolean): Array<T | null> | null {
  if (route === 'face') return otherOutput ? [msg, null, null] : [msg, null];
  if (route === 'plate') return otherOutput ? [null, msg, null] : [null, msg];
  return otherOutput ? [null, null, msg] : null;
}
