/**
 * What the flow's nodes know of a message's delivery, in one place: the
 * token detection-in puts on it (`msg._delivery`: its receiver and the
 * event's id there) and the `msg.redelivered` flag. detection-done finishes
 * the event; dedupe and filter finish what they drop on purpose (so the
 * receiver does not emit it again) and dedupe tells a redelivery of the very
 * event that passed from another one with the same key.
 */
import { trackerOf } from './registry';
import type { DeliveryToken } from './types';

export interface Completion {
  /** Marks the message's event finished at its receiver. False when the message carries no
   *  delivery; true otherwise, even when another copy of it (two wires) finished it already. */
  finish(msg: object): boolean;
  /** Marks the message's attempt failed at its receiver, with `error` (tried again after a pause,
   *  or dead-lettered). False when the message carries no delivery, or its event is not in flight
   *  there (finished, failed already, or its receiver finishes events once handed to the flow). */
  fail(msg: object, error: string): boolean;
  /** Whether detection-in emitted the message's event again (after a restart, a deploy or its time limit). */
  isRedelivered(msg: object): boolean;
  /** Names the message's delivery (`receiver/id`, stable across restarts in the disk and Redis
   *  modes); undefined when it carries none. */
  mark(msg: object): string | undefined;
}

/** The delivery a message carries, if it carries a well-formed one. */
function tokenOf(msg: object): DeliveryToken | undefined {
  const value = (msg as { _delivery?: unknown })._delivery;
  if (value === null || typeof value !== 'object') return undefined;
  const { receiver, id } = value as Partial<DeliveryToken>;
  return typeof receiver === 'string' && (Number.isInteger(id) || typeof id === 'string') ? (value as DeliveryToken) : undefined;
}

export const completion: Completion = {
  finish(msg) {
    const token = tokenOf(msg);
    if (!token) return false;
    trackerOf(token.receiver)?.complete(token.id);
    return true;
  },
  fail(msg, error) {
    const token = tokenOf(msg);
    if (!token) return false;
    return trackerOf(token.receiver)?.fail(token.id, error) ?? false;
  },
  isRedelivered(msg) {
    return (msg as { redelivered?: unknown }).redelivered === true;
  },
  mark(msg) {
    const token = tokenOf(msg);
    return token ? `${token.receiver}/${String(token.id)}` : undefined;
  },
};

/** The error a message carries, as a Catch node puts it (msg.error: message, source), in one line. */
export function errorText(msg: object): string {
  const error = (msg as { error?: unknown }).error;
  if (error === undefined || error === null) return 'the flow marked the event failed';
  if (typeof error !== 'object') return String(error).slice(0, 1000);
  const { message, source } = error as { message?: unknown; source?: { type?: unknown; name?: unknown; id?: unknown } };
  const text = typeof message === 'string' && message !== '' ? message : 'the flow marked the event failed';
  const from = source && (source.name || source.type || source.id);
  return (from ? `${text} (${String(from)})` : text).slice(0, 1000);
}
