/**
 * Client for the events bridge's anonymous sample endpoints,
 * GET {base_url}/api/v1/webhook-models/{face|lpr}, with undici.
 *
 * {base_url} is `https://<private_host>:5022` or `https://<tenant_host>/eventsbridge`:
 * a path prefix is kept. Every failure is a BridgeError whose message names
 * the URL (never its credentials) and, for an HTTP answer, the status; its
 * `reason` and `params` let a caller show the message in its own language.
 * Node-RED-free.
 */
import { STATUS_CODES } from 'node:http';
import { Agent, request, type Dispatcher } from 'undici';
import { parseJsonBody } from '../http/json';
import { sampleModelPath } from './sample';
import { checkEvent, kindOf, PUBLISH_TYPE_FACE, PUBLISH_TYPE_LPR, type EventKind, type SchemaError } from './schemas';
import { CERTIFICATE_CODES, errorCode, NETWORK_WORDS, TIMEOUT_CODES } from '../http/net-errors';

export const DEFAULT_SAMPLE_TIMEOUT_MS = 10_000;
/** A sample is a few kilobytes; this only stops a runaway answer. */
export const MAX_SAMPLE_BYTES = 16 * 1024 * 1024;

export type BridgeErrorReason =
  | 'url'
  | 'certificate'
  | 'timeout'
  | 'network'
  | 'aborted'
  | 'status'
  | 'redirect'
  | 'too-large'
  | 'not-json'
  | 'not-event';

export type BridgeErrorParams = Record<string, string | number>;

const ERROR_CODES: Record<BridgeErrorReason, string> = {
  url: 'ERR_BRIDGE_URL',
  certificate: 'ERR_BRIDGE_CERTIFICATE',
  timeout: 'ERR_BRIDGE_TIMEOUT',
  network: 'ERR_BRIDGE_NETWORK',
  aborted: 'ERR_BRIDGE_ABORTED',
  status: 'ERR_BRIDGE_STATUS',
  redirect: 'ERR_BRIDGE_REDIRECT',
  'too-large': 'ERR_BRIDGE_TOO_LARGE',
  'not-json': 'ERR_BRIDGE_NOT_JSON',
  'not-event': 'ERR_BRIDGE_NOT_EVENT',
};

/** English text per reason; `__name__` placeholders are filled from params
 *  (the same placeholders a Node-RED message catalog uses). */
const MESSAGES: Record<BridgeErrorReason, string> = {
  url: 'the bridge base URL "__url__" is not valid: __detail__',
  certificate:
    'GET __url__ failed: the server certificate is not trusted (__code__); if the bridge uses a self-signed certificate, turn on "accept a self-signed certificate"',
  timeout: 'GET __url__ timed out after __seconds__ s',
  network: 'GET __url__ failed: __detail__',
  aborted: 'GET __url__ was cancelled',
  status: 'GET __url__ answered __status__ (__statusText__)',
  redirect: 'GET __url__ answered __status__ (__statusText__), a redirect to __location__: use that address as the base URL',
  'too-large': 'GET __url__ answered a body larger than __limit__ bytes',
  'not-json': 'GET __url__ answered __status__ with a body that is not JSON (Content-Type __contentType__): __detail__',
  'not-event': 'GET __url__ answered JSON that is not a detection event: __detail__',
};

export function fillTemplate(template: string, params: BridgeErrorParams): string {
  return template.replace(/__(\w+)__/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

export class BridgeError extends Error {
  readonly reason: BridgeErrorReason;
  readonly code: string;
  /** The URL asked for, credentials removed. */
  readonly url: string;
  /** The HTTP status, when the bridge answered. */
  readonly status?: number;
  /** Values for the message template: url, status, statusText, detail, code, seconds, … */
  readonly params: BridgeErrorParams;

  constructor(reason: BridgeErrorReason, params: BridgeErrorParams, options: { status?: number; cause?: unknown } = {}) {
    super(fillTemplate(MESSAGES[reason], params), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BridgeError';
    this.reason = reason;
    this.code = ERROR_CODES[reason];
    this.url = String(params.url ?? '');
    this.status = options.status;
    this.params = params;
  }
}

export interface BridgeTarget {
  /** What to request: credentials removed. */
  url: URL;
  /** The URL for messages: credentials removed. */
  display: string;
  /** `Basic …` when the base URL carried `user:password@`. */
  authorization?: string;
}

/** Hides `user:password@` in a string that may not even parse as a URL. */
function redact(text: string): string {
  return text.replace(/\/\/[^/?#@\s]*@/, '//');
}

/** A trailing part a user may paste along with the base URL. */
const PASTED_SUFFIX = /\/api\/v1(?:\/webhook-models(?:\/(?:face|lpr))?)?\/*$/i;

/**
 * Joins {base_url} and a path, keeping the base's path prefix:
 * `https://host/eventsbridge/` + `/api/v1/webhook-models/lpr` →
 * `https://host/eventsbridge/api/v1/webhook-models/lpr`. A pasted
 * `/api/v1/webhook-models[/face|/lpr]` at the end of the base is dropped.
 */
export function bridgeTarget(baseUrl: string, path: string): BridgeTarget {
  const text = String(baseUrl ?? '').trim();
  const bad = (detail: string): BridgeError => new BridgeError('url', { url: redact(text), detail });
  if (!text) throw bad('it is empty; enter the address of the events bridge, for example https://bridge-host:5022');
  let base: URL;
  try {
    base = new URL(text);
  } catch {
    throw bad('enter an absolute address such as https://bridge-host:5022 or https://tenant-host/eventsbridge');
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw bad('it must start with https:// (or http://), for example https://bridge-host:5022');
  if (base.search || base.hash) throw bad('it must not carry a query (?) or a fragment (#)');
  let authorization: string | undefined;
  if (base.username || base.password) {
    const user = decodeURIComponent(base.username);
    const password = decodeURIComponent(base.password);
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    base.username = '';
    base.password = '';
  }
  const prefix = base.pathname.replace(/\/+$/, '').replace(PASTED_SUFFIX, '').replace(/\/+$/, '');
  const url = new URL(`${base.origin}${prefix}/${path.replace(/^\/+/, '')}`);
  return { url, display: url.href, authorization };
}

/** The sample endpoint of a kind below a base URL. */
export function sampleUrl(baseUrl: string, kind: EventKind): BridgeTarget {
  return bridgeTarget(baseUrl, sampleModelPath(kind));
}

export interface BridgeAgentOptions {
  /** Accept any server certificate (self-signed, wrong name, expired). Default false. */
  insecure?: boolean;
  timeoutMs?: number;
}

/** One keep-alive pool for talking to a bridge; close or destroy it when done. */
export function createBridgeAgent(options: BridgeAgentOptions = {}): Agent {
  const timeoutMs = validTimeout(options.timeoutMs);
  return new Agent({
    connect: { rejectUnauthorized: !options.insecure, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}

export interface FetchSampleOptions extends BridgeAgentOptions {
  /** A dispatcher to send through (keep one per user). Its TLS settings win
   *  over `insecure`. Without one, a pool is made for this call and destroyed after. */
  dispatcher?: Dispatcher;
  /** Cancels the request (a node closing, for example). */
  signal?: AbortSignal;
}

export interface FetchedSample {
  /** The sample as parsed: a JSON object, kept exactly as answered. */
  event: Record<string, unknown>;
  /** What kind the answer is: from its publishType, else the kind asked for. */
  kind: EventKind;
  /** Schema problems, empty when the sample is a valid event of the kind asked
   *  for. Extra fields are never a problem. */
  errors: SchemaError[];
  url: string;
  status: number;
}

function validTimeout(timeoutMs: number | undefined): number {
  return typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : DEFAULT_SAMPLE_TIMEOUT_MS;
}



function translateFailure(err: unknown, url: string, timeoutMs: number, timedOut: boolean, aborted: boolean): BridgeError {
  if (err instanceof BridgeError) return err;
  const code = errorCode(err);
  if (timedOut || (code && TIMEOUT_CODES.has(code))) {
    return new BridgeError('timeout', { url, seconds: +(timeoutMs / 1000).toFixed(3) }, { cause: err });
  }
  if (aborted) return new BridgeError('aborted', { url }, { cause: err });
  if (code && CERTIFICATE_CODES.has(code)) return new BridgeError('certificate', { url, code }, { cause: err });
  const words = code && NETWORK_WORDS[code];
  const message = (err as Error)?.message || String(err);
  const detail = words ? `${words} (${code})` : code ? `${message} (${code})` : message;
  return new BridgeError('network', { url, detail: redact(detail) }, { cause: err });
}

async function readCapped(body: Dispatcher.ResponseData['body'], url: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_SAMPLE_BYTES) {
      body.destroy();
      throw new BridgeError('too-large', { url, limit: MAX_SAMPLE_BYTES });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'a string' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * GET {base_url}/api/v1/webhook-models/{kind}. Resolves with the sample when
 * the bridge answers 2xx with a JSON object, even if that object fails the
 * schema (`errors` lists why: a newer bridge may differ); rejects with a
 * BridgeError on a bad URL, network or TLS failure, timeout, non-2xx answer,
 * a body that is not JSON, or JSON that is not an object.
 */
export async function fetchSample(baseUrl: string, kind: EventKind, options: FetchSampleOptions = {}): Promise<FetchedSample> {
  const target = sampleUrl(baseUrl, kind);
  const url = target.display;
  const timeoutMs = validTimeout(options.timeoutMs);
  const own = options.dispatcher ? undefined : createBridgeAgent({ insecure: options.insecure, timeoutMs });
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  try {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'node-red-contrib-detection-bridge' };
    if (target.authorization) headers.authorization = target.authorization;
    let res: Dispatcher.ResponseData;
    let raw: Buffer;
    try {
      res = await request(target.url, {
        method: 'GET',
        headers,
        dispatcher: options.dispatcher ?? own,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      if (res.statusCode < 200 || res.statusCode > 299) {
        await res.body.dump().catch(() => undefined);
        const location = header(res.headers, 'location');
        const params = { url, status: res.statusCode, statusText: STATUS_CODES[res.statusCode] ?? 'unexpected status' };
        if (location && res.statusCode >= 300 && res.statusCode < 400) {
          throw new BridgeError('redirect', { ...params, location: redact(location) }, { status: res.statusCode });
        }
        throw new BridgeError('status', params, { status: res.statusCode });
      }
      raw = await readCapped(res.body, url);
    } catch (err) {
      throw translateFailure(err, url, timeoutMs, deadline.aborted, !!options.signal?.aborted);
    }
    const contentType = header(res.headers, 'content-type') ?? '(none)';
    const parsed = parseJsonBody(raw);
    if (!parsed.ok) {
      const detail = parsed.reason === 'empty' ? 'the body is empty' : parsed.detail;
      throw new BridgeError('not-json', { url, status: res.statusCode, contentType, detail }, { status: res.statusCode });
    }
    const value = parsed.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new BridgeError('not-event', { url, detail: `expected a JSON object, got ${describe(value)}` }, { status: res.statusCode });
    }
    const event = value as Record<string, unknown>;
    const checked = checkEvent(event);
    const expected = kind === 'lpr' ? PUBLISH_TYPE_LPR : PUBLISH_TYPE_FACE;
    const errors: SchemaError[] = checked.ok ? [] : [...checked.errors];
    let answeredKind = kind;
    if (checked.ok) {
      answeredKind = kindOf(checked.event);
      if (checked.event.publishType !== expected) {
        errors.push({ path: 'publishType', message: `expected ${expected} from ${sampleModelPath(kind)}, got ${checked.event.publishType}` });
      }
    }
    return { event, kind: answeredKind, errors, url, status: res.statusCode };
  } finally {
    if (own) await own.destroy().catch(() => undefined);
  }
}
