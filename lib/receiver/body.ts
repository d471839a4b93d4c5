/**
 * Reads a request body with a byte cap, a stall timer and a shared memory
 * budget. A declared Content-Length above the cap is refused before reading;
 * a chunked body that passes the cap stops being read at that point. A body
 * that makes no progress for `stallMs` is given up (Node's own limit is 5
 * minutes for the whole request, then a bare 408), and the bytes all pending
 * bodies hold together never pass the budget, so stalled senders cannot pile
 * up memory.
 */
import type { IncomingMessage } from 'node:http';
import { systemClock, type Clock } from '../core/clock';
import type { Message } from '../core/messages';

export type BodyReadResult =
  | { ok: true; body: Buffer }
  /** Another middleware (for example a body parser in httpNodeMiddleware) already parsed the body. */
  | { ok: true; parsed: unknown }
  | { ok: false; reason: 'too-large'; declared?: number }
  /** No byte arrived for `stallMs`. */
  | { ok: false; reason: 'stalled' }
  /** Pending bodies hold the whole budget; the sender should retry. */
  | { ok: false; reason: 'busy' }
  | { ok: false; reason: 'aborted' | 'error'; message: Message };

/** Bytes held by bodies being read, shared by the requests of one receiver. */
export interface ByteBudget {
  readonly limit: number;
  readonly held: number;
  /** Takes `bytes` if they fit, else takes nothing and says false. */
  take(bytes: number): boolean;
  release(bytes: number): void;
}

export function createByteBudget(limit: number): ByteBudget {
  let held = 0;
  return {
    limit,
    get held() {
      return held;
    },
    take(bytes) {
      if (held + bytes > limit) return false;
      held += bytes;
      return true;
    },
    release(bytes) {
      held = Math.max(0, held - bytes);
    },
  };
}

export interface BodyReadOptions {
  maxBytes: number;
  /** Give up when no byte arrives for this long; 0 or absent: never. */
  stallMs?: number;
  budget?: ByteBudget;
  clock?: Clock;
}

type BodyCarrier = IncomingMessage & { body?: unknown; _body?: boolean };

export function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

function alreadyRead(carrier: BodyCarrier, maxBytes: number): BodyReadResult {
  const body = carrier.body;
  if (Buffer.isBuffer(body)) return body.length > maxBytes ? { ok: false, reason: 'too-large' } : { ok: true, body };
  if (typeof body === 'string') {
    if (Buffer.byteLength(body) > maxBytes) return { ok: false, reason: 'too-large' };
    return { ok: true, body: Buffer.from(body, 'utf8') };
  }
  if (body !== undefined) return { ok: true, parsed: body };
  // A stream somebody else read to the end, leaving nothing behind.
  return { ok: false, reason: 'error', message: { key: 'answer.body-consumed' } };
}

export function readBody(req: IncomingMessage, options: BodyReadOptions): Promise<BodyReadResult> {
  const { maxBytes, stallMs = 0, budget } = options;
  const clock = options.clock ?? systemClock;
  const carrier = req as BodyCarrier;
  if (carrier.readableEnded || carrier.body !== undefined) return Promise.resolve(alreadyRead(carrier, maxBytes));

  const declared = declaredLength(req);
  if (declared !== undefined && declared > maxBytes) {
    return Promise.resolve({ ok: false, reason: 'too-large', declared });
  }

  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    let lastProgress = clock.now();
    let stallTimer: unknown;
    const finish = (result: BodyReadResult): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (stallTimer !== undefined) clock.clearTimeout(stallTimer);
      budget?.release(received);
      if (!result.ok) chunks.length = 0;
      resolve(result);
    };
    // One timer for the whole read: a chunk only stamps the time, the timer
    // looks at the stamp when it fires and waits for the rest if there was progress.
    const armStall = (ms: number): void => {
      stallTimer = clock.setTimeout(() => {
        const idle = clock.now() - lastProgress;
        if (idle >= stallMs) {
          req.pause();
          finish({ ok: false, reason: 'stalled' });
        } else armStall(stallMs - idle);
      }, ms);
    };
    const onData = (chunk: Buffer): void => {
      lastProgress = clock.now();
      if (received + chunk.length > maxBytes) {
        // Stop reading: the caller answers 413.
        req.pause();
        finish({ ok: false, reason: 'too-large' });
        return;
      }
      if (budget && !budget.take(chunk.length)) {
        req.pause();
        finish({ ok: false, reason: 'busy' });
        return;
      }
      received += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      // Released by finish: from here the body belongs to the caller, not to a pending read.
      finish({ ok: true, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received) });
    };
    const onError = (err: Error): void =>
      finish({ ok: false, reason: 'error', message: { key: 'answer.body-error', params: { message: err.message } } });
    const onClose = (): void => finish({ ok: false, reason: 'aborted', message: { key: 'answer.body-aborted' } });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    if (stallMs > 0) armStall(stallMs);
  });
}
