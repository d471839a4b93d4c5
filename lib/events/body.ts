/**
 * Reads a request body with a byte cap. A declared Content-Length above the
 * cap is refused before reading; a chunked body that passes the cap stops
 * being read at that point.
 */
import type { IncomingMessage } from 'node:http';
import type { Message } from '../messages';

export type BodyReadResult =
  | { ok: true; body: Buffer }
  /** Another middleware (for example a body parser in httpNodeMiddleware) already parsed the body. */
  | { ok: true; parsed: unknown }
  | { ok: false; reason: 'too-large'; declared?: number }
  | { ok: false; reason: 'aborted' | 'error'; message: Message };

type BodyCarrier = IncomingMessage & { body?: unknown; _body?: boolean };

export function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyReadResult> {
  const carrier = req as BodyCarrier;
  if (carrier.readableEnded || carrier.body !== undefined) {
    const body = carrier.body;
    if (Buffer.isBuffer(body)) {
      return Promise.resolve(body.length > maxBytes ? { ok: false, reason: 'too-large' } : { ok: true, body });
    }
    if (typeof body === 'string') {
      if (Buffer.byteLength(body) > maxBytes) return Promise.resolve({ ok: false, reason: 'too-large' });
      return Promise.resolve({ ok: true, body: Buffer.from(body, 'utf8') });
    }
    if (body !== undefined) return Promise.resolve({ ok: true, parsed: body });
    // A stream somebody else read to the end, leaving nothing behind.
    return Promise.resolve({ ok: false, reason: 'error', message: { key: 'answer.body-consumed' } });
  }

  const declared = declaredLength(req);
  if (declared !== undefined && declared > maxBytes) {
    return Promise.resolve({ ok: false, reason: 'too-large', declared });
  }

  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (result: BodyReadResult): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes) {
        // Stop reading: the caller answers 413 and closes the connection.
        req.pause();
        chunks.length = 0;
        finish({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      finish({ ok: true, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received) });
    };
    const onError = (err: Error): void =>
      finish({ ok: false, reason: 'error', message: { key: 'answer.body-error', params: { message: err.message } } });
    const onClose = (): void => finish({ ok: false, reason: 'aborted', message: { key: 'answer.body-aborted' } });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
