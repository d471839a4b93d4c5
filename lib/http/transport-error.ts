/**
 * The one error of lib's outgoing calls: the bridge's sample endpoints, the
 * platform v2 API, the push queue and the bridge's enrollment endpoints. A stable `code` (ERR_BRIDGE_TIMEOUT,
 * ERR_PLATFORM_LOGIN, ERR_PUSH_STATUS, …) for flows and Catch nodes, a
 * `reason` and `params` for the text, which is not here but in the catalog
 * (lib/core/messages.ts): `message` is its en-US rendering, a node shows it in the
 * user's language with RED._.
 */
import { STATUS_CODES } from 'node:http';
import { MessageError, type MessageParams } from '../core/messages';

export type TransportService = 'bridge' | 'platform' | 'push' | 'enroll';

export type TransportReason =
  | 'url'
  | 'path'
  | 'credentials'
  | 'certificate'
  | 'timeout'
  | 'network'
  | 'aborted'
  | 'closed'
  | 'too-large'
  | 'status'
  | 'redirect'
  | 'not-json'
  | 'not-event'
  | 'login'
  | 'token-fields'
  | 'send'
  | 'queue-full'
  | 'unauthorized'
  | 'answer';

export interface TransportErrorOptions {
  /** The HTTP status, when the server answered. */
  status?: number;
  /** The answer's body, when there was one worth keeping (push failures). */
  body?: unknown;
  /** Sending attempts made (push batches). */
  attempts?: number;
  /** Default: network failures, time-outs and a status of 408, 429 or 5xx. */
  retryable?: boolean;
  /** A second text for the same code: the catalog key gets `-<variant>`. */
  variant?: string;
  cause?: unknown;
}

/** Statuses worth another try: 408, 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

export class TransportError extends MessageError {
  readonly service: TransportService;
  readonly reason: TransportReason;
  /** ERR_<SERVICE>_<REASON>, e.g. ERR_PLATFORM_TOKEN_FIELDS. */
  readonly code: string;
  readonly status?: number;
  readonly body?: unknown;
  readonly attempts?: number;
  /** True when sending the same request again later may succeed. */
  readonly retryable: boolean;

  constructor(service: TransportService, reason: TransportReason, params: MessageParams, options: TransportErrorOptions = {}) {
    const key = `transport.${service}.${reason}${options.variant ? `-${options.variant}` : ''}`;
    // params: url (never with credentials), method, status, detail, …
    super(key, params, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TransportError';
    this.service = service;
    this.reason = reason;
    this.code = `ERR_${service.toUpperCase()}_${reason.toUpperCase().replace(/-/g, '_')}`;
    this.status = options.status;
    this.body = options.body;
    this.attempts = options.attempts;
    const status = options.status;
    this.retryable =
      options.retryable ??
      (reason === 'network' ||
        reason === 'timeout' ||
        ((reason === 'status' || reason === 'login') && status !== undefined && isRetryableStatus(status)));
  }

  /** The URL asked for, when there was one (credentials removed). */
  get url(): string | undefined {
    const url = this.params.url;
    return typeof url === 'string' ? url : undefined;
  }
}

/** The parameters naming a call in a text: the bridge's texts say GET themselves. */
export function callParams(service: TransportService, method: string, url: string): MessageParams {
  return service === 'bridge' ? { url } : { method, url };
}

/** The reason phrase of a status (`Bad Gateway`), for messages. */
export function statusText(status: number): string {
  return STATUS_CODES[status] ?? 'unexpected status';
}

/** A short, single-line piece of an answer for an error message, with the
 *  given secrets blanked out. */
export function bodyExcerpt(body: unknown, secrets: ReadonlyArray<string | undefined> = [], max = 200): string {
  if (body === null || body === undefined || body === '') return '';
  let text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : safeStringify(body);
  for (const secret of secrets) if (secret && secret.length >= 3) text = text.split(secret).join('***');
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Params for a text about a non-2xx answer: status, its phrase and `: <excerpt>`. */
export function answerParams(status: number, body: unknown, secrets?: ReadonlyArray<string | undefined>, max?: number): MessageParams {
  const excerpt = bodyExcerpt(body, secrets, max);
  return { status, statusText: statusText(status), excerpt: excerpt ? `: ${excerpt}` : '' };
}
