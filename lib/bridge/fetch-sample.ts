/**
 * The events bridge's anonymous sample endpoints,
 * GET {base_url}/api/v1/webhook-models/{face|lpr}, with undici on the agent
 * factory of lib/http/agent.ts: `fetchSample` (the editor's "fetch a sample",
 * detection-sample), also called by `EventsBridgeClient.sample` (client.ts)
 * through the client's pool. Every failure is a TransportError of service
 * `bridge` (ERR_BRIDGE_*); errors name the URL, never its credentials.
 */
import type { Dispatcher } from 'undici';
import { PUBLISH_TYPE_FACE, PUBLISH_TYPE_LPR, type EventKind } from '../core/event-kinds';
import type { SchemaError } from '../core/schema-error';
import { checkEvent, kindOf } from '../events';
import {
  createServerAgent,
  firstHeader,
  parseBaseUrl,
  parseJsonBody,
  positive,
  redactUserInfo,
  send,
  statusText,
  TransportError,
  type BaseUrlProblem,
} from '../http';
import { sampleModelPath } from './sample';
import { optionDefault, secondsMs } from '../config';

/** A sample's timeout, as the option table states it (lib/config/node-options.ts). */
export const DEFAULT_SAMPLE_TIMEOUT_MS = secondsMs(optionDefault('detection-sample', 'timeout'));
/** A sample is a few kilobytes; this only stops a runaway answer. */
export const MAX_SAMPLE_BYTES = 16 * 1024 * 1024;

export interface BridgeTarget {
  /** What to request: credentials removed. */
  url: URL;
  /** The URL for messages: credentials removed. */
  display: string;
  /** `Basic …` when the base URL carried `user:password@`. */
  authorization?: string;
}

const SAMPLE_BASE_URL_DETAIL: Record<BaseUrlProblem, string> = {
  empty: 'bridge-url-empty',
  'not-absolute': 'bridge-url-not-absolute',
  protocol: 'bridge-url-protocol',
  query: 'url-query',
};

/** A trailing part a user may paste along with the base URL of a sample. */
const SAMPLE_PASTED_SUFFIX = /\/api\/v1(?:\/webhook-models(?:\/(?:face|lpr))?)?\/*$/i;

/**
 * Joins {base_url} and a path, keeping the base's path prefix:
 * `https://host/eventsbridge/` + `/api/v1/webhook-models/lpr` →
 * `https://host/eventsbridge/api/v1/webhook-models/lpr`. A pasted
 * `/api/v1/webhook-models[/face|/lpr]` at the end of the base is dropped.
 */
export function bridgeTarget(baseUrl: string, path: string): BridgeTarget {
  const text = String(baseUrl ?? '').trim();
  const bad = (detail: string): TransportError =>
    new TransportError('bridge', 'url', { url: redactUserInfo(text), detail: { key: `transport.detail.${detail}` } });
  const parsed = parseBaseUrl(text, SAMPLE_PASTED_SUFFIX);
  if (!parsed.ok) throw bad(SAMPLE_BASE_URL_DETAIL[parsed.problem]);
  const { url: base, prefix } = parsed.base;
  let authorization: string | undefined;
  if (base.username || base.password) {
    const user = decodeURIComponent(base.username);
    const password = decodeURIComponent(base.password);
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  const url = new URL(`${base.origin}${prefix}/${path.replace(/^\/+/, '')}`);
  return { url, display: url.href, authorization };
}

/** The sample endpoint of a kind below a base URL. */
export function sampleUrl(baseUrl: string, kind: EventKind): BridgeTarget {
  return bridgeTarget(baseUrl, sampleModelPath(kind));
}

export interface FetchSampleOptions {
  /** Accept any server certificate (self-signed, wrong name, expired). Default false. */
  insecure?: boolean;
  /** A PEM CA certificate (or bundle) to trust besides the public roots. */
  ca?: string;
  /** Connect to end of body. Default 10000. */
  timeoutMs?: number;
  /** A dispatcher to send through (keep one per user). Its TLS settings win
   *  over `insecure` and `ca`. Without one, a pool is made for this call and destroyed after. */
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

function kindOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'a string' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * GET {base_url}/api/v1/webhook-models/{kind}. Resolves with the sample when
 * the bridge answers 2xx with a JSON object, even if that object fails the
 * schema (`errors` lists why: a newer bridge may differ); rejects with a
 * TransportError on a bad URL, network or TLS failure, timeout, non-2xx
 * answer, a body that is not JSON, or JSON that is not an object.
 */
export async function fetchSample(baseUrl: string, kind: EventKind, options: FetchSampleOptions = {}): Promise<FetchedSample> {
  const target = sampleUrl(baseUrl, kind);
  const url = target.display;
  const timeoutMs = positive(options.timeoutMs, DEFAULT_SAMPLE_TIMEOUT_MS);
  const own = options.dispatcher ? undefined : createServerAgent({ ca: options.ca, insecure: options.insecure, timeoutMs });
  try {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'node-red-contrib-detection-bridge' };
    if (target.authorization) headers.authorization = target.authorization;
    const res = await send({
      service: 'bridge',
      method: 'GET',
      url: target.url,
      headers,
      dispatcher: options.dispatcher ?? own!,
      timeoutMs,
      signal: options.signal,
      maxBytes: MAX_SAMPLE_BYTES,
    });
    const status = res.statusCode;
    if (status < 200 || status > 299) {
      const location = firstHeader(res.headers, 'location');
      const params = { url, status, statusText: statusText(status) };
      if (location && status >= 300 && status < 400) {
        throw new TransportError('bridge', 'redirect', { ...params, location: redactUserInfo(location) }, { status });
      }
      throw new TransportError('bridge', 'status', params, { status });
    }
    const contentType = firstHeader(res.headers, 'content-type') ?? '(none)';
    const parsed = parseJsonBody(res.body);
    if (!parsed.ok) {
      const detail = parsed.reason === 'empty' ? { key: 'transport.detail.empty-body' } : parsed.message;
      throw new TransportError('bridge', 'not-json', { url, status, contentType, detail }, { status });
    }
    const value = parsed.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new TransportError(
        'bridge',
        'not-event',
        { url, detail: { key: 'transport.detail.not-object', params: { got: kindOfValue(value) } } },
        { status },
      );
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
    return { event, kind: answeredKind, errors, url, status };
  } finally {
    if (own) await own.destroy().catch(() => undefined);
  }
}
