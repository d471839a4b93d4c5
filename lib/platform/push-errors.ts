/**
 * The push queue's failures, one factory each: their texts are the catalog's
 * transport.push.* keys, their codes ERR_PUSH_STATUS, ERR_PUSH_SEND,
 * ERR_PUSH_CLOSED and ERR_PUSH_QUEUE_FULL.
 */
import { answerParams, TransportError } from '../http';
import type { Message } from '../core/messages';

/** "1 attempt", "3 attempts": a nested Message, so each language words its plural. */
function attemptsText(count: number): Message {
  return { key: 'transport.push.attempts', params: { count } };
}

export const pushErrors = {
  /** add() after close(). */
  refused: (path: string) => new TransportError('push', 'closed', { path }, { attempts: 0, retryable: false }),

  queueFull: (path: string, queued: number, count: number, limit: number) =>
    new TransportError('push', 'queue-full', { path, queued, count, limit }, { attempts: 0, retryable: true }),

  /** send() threw (network, time-out, a bug in a custom sender). */
  send: (path: string, count: number, attempts: number, thrown: unknown, retryable: boolean) =>
    new TransportError(
      'push',
      'send',
      { count, path, attempts: attemptsText(attempts), reason: (thrown as Error)?.message || String(thrown) },
      { attempts, cause: thrown, retryable },
    ),

  /** The last answer was not 2xx. */
  status: (path: string, count: number, attempts: number, status: number, body: unknown) =>
    new TransportError(
      'push',
      'status',
      { count, path, attempts: attemptsText(attempts), ...answerParams(status, body, [], 300) },
      { status, body, attempts },
    ),

  /** A batch under way when close() gave up. */
  closedInFlight: (path: string, count: number, attempts: number) =>
    new TransportError('push', 'closed', { count, path, attempts: attemptsText(attempts) }, { variant: 'in-flight', attempts, retryable: false }),

  /** Items still waiting when close() gave up. */
  closedUnsent: (path: string, count: number) =>
    new TransportError('push', 'closed', { count, path }, { variant: 'unsent', attempts: 0, retryable: false }),
};
