/**
 * Lingering close for answers given before the body was read (401, 413, 415,
 * 405, 503). Closing a socket with unread bytes in it makes the kernel reset
 * the connection, and a client that writes its whole body before reading
 * (Python's http.client, many .NET and shell tools) then sees EPIPE or
 * ECONNRESET instead of the status. So the rest of the body is read and
 * dropped, up to a bound of bytes and time like a web server's lingering
 * close; past the bound the socket is closed after all.
 */
import type { IncomingMessage } from 'node:http';
import { systemClock, type Clock } from '../core/clock';

export interface LingerBounds {
  /** Bytes read and dropped at most before the socket is closed. */
  maxBytes: number;
  /** Time spent at most before the socket is closed. */
  maxMs: number;
}

export const DEFAULT_LINGER: LingerBounds = { maxBytes: 8 * 1024 * 1024, maxMs: 5000 };

/**
 * Reads and drops what is left of `req`'s body. The answer must already be
 * written or under way, and not with `Connection: close` (Node would close the
 * socket as soon as the answer is out). When the body ends within the bounds
 * the connection stays open for the sender's next request.
 */
export function discardRest(req: IncomingMessage, bounds: LingerBounds = DEFAULT_LINGER, clock: Clock = systemClock): void {
  if (req.readableEnded || req.destroyed) return;
  let dropped = 0;
  const stop = (): void => {
    cleanup();
    req.socket?.destroy();
  };
  const timer = clock.setTimeout(stop, bounds.maxMs);
  const onData = (chunk: Buffer): void => {
    dropped += chunk.length;
    if (dropped > bounds.maxBytes) stop();
  };
  const cleanup = (): void => {
    clock.clearTimeout(timer);
    req.off('data', onData);
    req.off('end', cleanup);
    req.off('close', cleanup);
  };
  req.on('data', onData);
  req.on('end', cleanup);
  req.on('close', cleanup);
  req.resume();
}
