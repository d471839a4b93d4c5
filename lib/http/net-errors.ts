/**
 * Telling outgoing-call failures apart (undici and Node's TLS and socket
 * errors), for every client in lib/: a certificate the peer would not accept,
 * a timeout, a cancelled call, or a network failure, each as a TransportError
 * whose text names it in words a person understands.
 */
import type { Message } from '../core/messages';
import { callParams, TransportError, type TransportService } from './transport-error';

/** TLS verification failures: accept-self-signed or a CA certificate fixes them. */
export const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** Failures of the network (not of the request): sending again later may work. */
export const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  ...TIMEOUT_CODES,
]);

/** Codes with words of their own in the catalog (transport.net.<code>). */
const WORDED_CODES: ReadonlySet<string> = new Set([...NETWORK_CODES, 'EPROTO']);

/** The dispatcher (connection pool) was closed under the call. */
const CLOSED_CODES: ReadonlySet<string> = new Set(['UND_ERR_DESTROYED', 'UND_ERR_CLOSED']);

/** The first `code` along an error's cause chain (undici wraps socket errors). */
export function errorCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}

/** Hides `user:password@` in a string that may not even parse as a URL. */
export function redactUserInfo(text: string): string {
  return text.replace(/\/\/[^/?#@\s]*@/, '//');
}

/** A network failure in words: `connection refused (ECONNREFUSED)`, else Node's own message. */
export function networkDetail(err: unknown): Message | string {
  const code = errorCode(err);
  if (code && WORDED_CODES.has(code) && !TIMEOUT_CODES.has(code)) return { key: `transport.net.${code}`, params: { code } };
  const message = redactUserInfo((err as Error)?.message || String(err));
  return code ? { key: 'transport.net.other', params: { message, code } } : message;
}

/** What went wrong with one call, as the caller knows it. */
export interface FailedCall {
  service: TransportService;
  method: string;
  /** For messages: credentials removed. */
  url: string;
  timeoutMs: number;
  /** The call's own deadline fired. */
  timedOut: boolean;
  /** The caller cancelled. */
  cancelled: boolean;
}

/**
 * Any error thrown while calling (undici, TLS, sockets) as a TransportError:
 * timeout, aborted (cancelled by the caller), certificate, closed (the pool
 * was destroyed) or network. A TransportError passes through unchanged.
 */
export function failureOf(err: unknown, call: FailedCall): TransportError {
  if (err instanceof TransportError) return err;
  const { service, method, url } = call;
  const code = errorCode(err);
  const where = callParams(service, method, url);
  if (call.timedOut || (code && TIMEOUT_CODES.has(code))) {
    return new TransportError(service, 'timeout', { ...where, seconds: +(call.timeoutMs / 1000).toFixed(3) }, { cause: err });
  }
  if (call.cancelled) return new TransportError(service, 'aborted', where, { cause: err });
  if (code && CERTIFICATE_CODES.has(code)) return new TransportError(service, 'certificate', { ...where, code }, { cause: err });
  if (code && CLOSED_CODES.has(code)) return new TransportError(service, 'closed', where, { cause: err });
  return new TransportError(service, 'network', { ...where, detail: networkDetail(err) }, { cause: err });
}

/** Whether an error thrown by a send is worth another try: its own
 *  `retryable` when it has one, else a network-looking `code`. */
export function isRetryableError(err: unknown): boolean {
  const e = err as { retryable?: unknown; code?: unknown; cause?: unknown } | undefined;
  if (e && typeof e.retryable === 'boolean') return e.retryable;
  for (let c = e, depth = 0; c && depth < 4; c = c.cause as typeof c, depth++) {
    if (typeof c.code === 'string' && NETWORK_CODES.has(c.code)) return true;
  }
  return false;
}
