/**
 * `Expect: 100-continue` answered by the receiver instead of by Node. A
 * client that sends it (curl for large bodies, .NET's HttpClient when told)
 * waits for `100 Continue` before writing the body. Node sends it at once by
 * default, before any route has looked at the credentials; a request deferred
 * here is invited only once the receiver has accepted its headers, so a
 * wrong token costs a 401 and no megabytes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const deferred = new WeakSet<IncomingMessage>();

/** Marks a request whose `100 Continue` was held back for the receiver. */
export function deferContinue(req: IncomingMessage): void {
  deferred.add(req);
}

/** Sends a held-back `100 Continue`, once; does nothing for other requests. */
export function inviteBody(req: IncomingMessage, res: ServerResponse): void {
  if (!deferred.delete(req)) return;
  if (!res.headersSent && !res.writableEnded) res.writeContinue();
}

/** Whether `100 Continue` is still held back: the client has not sent its body. */
export function bodyNotInvited(req: IncomingMessage): boolean {
  return deferred.has(req);
}
