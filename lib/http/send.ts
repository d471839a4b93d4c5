/**
 * One outgoing HTTP call with undici, the way every client in lib/ makes it:
 * a deadline over the whole call, the caller's cancel signal, a cap on the
 * answer's size, and every failure as a TransportError naming the URL
 * (never its credentials).
 */
import { request, type Dispatcher } from 'undici';
import { failureOf } from './net-errors';
import { callParams, TransportError, type TransportService } from './transport-error';

export type AnswerHeaders = Dispatcher.ResponseData['headers'];

export interface OutgoingCall {
  service: TransportService;
  method: string;
  url: URL;
  /** The URL for messages, credentials removed. Default `url.href`. */
  display?: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  dispatcher: Dispatcher;
  /** Connect to end of body. */
  timeoutMs: number;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** An answer body larger than this fails with reason `too-large`. */
  maxBytes: number;
}

export interface Answer {
  statusCode: number;
  headers: AnswerHeaders;
  body: Buffer;
}

export async function send(call: OutgoingCall): Promise<Answer> {
  const { service, method, timeoutMs } = call;
  const url = call.display ?? call.url.href;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = call.signal ? AbortSignal.any([deadline, call.signal]) : deadline;
  try {
    const res = await request(call.url, {
      method: method as Dispatcher.HttpMethod,
      headers: call.headers,
      body: call.body,
      dispatcher: call.dispatcher,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const body = await readCapped(
      res.body,
      call.maxBytes,
      () => new TransportError(service, 'too-large', { ...callParams(service, method, url), limit: call.maxBytes }),
    );
    return { statusCode: res.statusCode, headers: res.headers, body };
  } catch (err) {
    throw failureOf(err, { service, method, url, timeoutMs, timedOut: deadline.aborted, cancelled: !!call.signal?.aborted });
  }
}

/** Reads a body to its end, or throws `tooLarge()` once it passes `maxBytes` (the rest is not read). */
export async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

/** A header's first value. */
export function firstHeader(headers: AnswerHeaders | Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
