/**
 * The events bridge's client, with undici, on the one agent factory of
 * lib/http/agent.ts (CA, insecure, timeout):
 *
 * - the anonymous sample endpoints, GET {base_url}/api/v1/webhook-models/{face|lpr}
 *   (`fetchSample`, fetch-sample.ts, or `EventsBridgeClient.sample` through
 *   the client's pool):
 *   every failure is a TransportError of service `bridge` (ERR_BRIDGE_*);
 * - the enrollment endpoints (`EventsBridgeClient`): enroll, unenroll, check
 *   and list, for plates and faces, with the bearer JWT; failures are of
 *   service `enroll` (ERR_ENROLL_*).
 *
 * {base_url} is `https://<private_host>:5022` or `https://<tenant_host>/eventsbridge`:
 * a path prefix is kept. Errors name the URL, never its credentials.
 *
 * What is documented (research/econnect.md, section 2): every call but the
 * two sample endpoints needs `Authorization: Bearer <jwt>`; the login that
 * gives the JWT is not documented, so the token is configured, and a 401
 * says it must be renewed (nothing here can renew it). Answers are 200, 401,
 * or 500 with a reason; the reason is read from the answer (`reason`,
 * `message`, `detail`, `error` or `title`, or the text) into the error.
 *
 * Calls wait their turn (`maxConcurrent` at once, the deadline counted from
 * the start of each call), so a flow that enrolls a 10,000-line watch list
 * does not open 10,000 connections or time out in a queue. A list is read a
 * page at a time (see enroll-api.ts): each page is handed on before the next is
 * asked for, so no second copy of a large list is held. Node-RED-free.
 */
import type { Agent, Dispatcher } from 'undici';
import type { EventKind } from '../core/event-kinds';
import type { Message } from '../core/messages';
import { optionDefault, secondsMs } from '../config';
import {
  answerParams,
  bodyExcerpt,
  createServerAgent,
  firstHeader,
  isJsonContentType,
  parseBaseUrl,
  parseJsonBody,
  positive,
  redactUserInfo,
  send,
  TransportError,
  type BaseUrlProblem,
} from '../http';
import { monitorPath, pageQuery, resolveEnrollmentApi, type EnrollmentApi, type EnrollmentApiOptions } from './enroll-api';
import { EnrollmentStatus, MonitoredItem, type EnrollKind, type FaceEnrollment, type PlateEnrollment } from './enroll-schemas';
import { fetchSample, type FetchedSample } from './fetch-sample';

export {
  DEFAULT_SAMPLE_TIMEOUT_MS,
  MAX_SAMPLE_BYTES,
  bridgeTarget,
  fetchSample,
  sampleUrl,
  type BridgeTarget,
  type FetchSampleOptions,
  type FetchedSample,
} from './fetch-sample';

// -- enrollment (bearer JWT) ---------------------------------------------------

/** The events bridge's timeout, as the option table states it (lib/config/node-options.ts). */
export const DEFAULT_BRIDGE_TIMEOUT_MS = secondsMs(optionDefault('events-bridge', 'timeout'));
export const DEFAULT_MAX_CONCURRENT = 4;
/** A list of 100,000 items is about 10 MB; this only stops a runaway answer. */
export const DEFAULT_MAX_ANSWER_BYTES = 256 * 1024 * 1024;

export interface EventsBridgeClientOptions {
  /** {base_url}: `https://<private_host>:5022` or `https://<tenant_host>/eventsbridge` (the path is kept). */
  baseUrl: string;
  /** The JWT. Without one, enrollment calls fail before anything is sent. */
  token?: string;
  /** Accept any server certificate (self-signed, wrong name, expired). Default false. */
  insecure?: boolean;
  /** A PEM CA certificate (or bundle) to trust besides the public roots. */
  ca?: string;
  /** Per call, connect to end of body. Default 30000. */
  timeoutMs?: number;
  /** Calls under way at once; the rest wait their turn. Default 4. */
  maxConcurrent?: number;
  maxAnswerBytes?: number;
  /** Paths, paging and the face photo field (enroll-api.ts). */
  api?: EnrollmentApiOptions;
  /** Send through this dispatcher instead of an own Agent (tests). Not closed by close(). */
  dispatcher?: Dispatcher;
}

export interface BridgeBase {
  origin: string;
  /** The base's path without a trailing slash: '' or `/eventsbridge`. */
  prefix: string;
  /** origin + prefix, for messages. */
  display: string;
}

/** A 2xx answer. */
export interface BridgeAnswer {
  statusCode: number;
  /** Parsed JSON when the answer says JSON, else the text; null when empty. */
  body: unknown;
  method: string;
  url: string;
}

export interface CheckAnswer extends BridgeAnswer {
  enrolled: boolean;
}

export interface ListPage {
  items: MonitoredItem[];
  /** From 1. */
  page: number;
  /** No page follows. */
  last: boolean;
  /** The bridge answered more than a page, or the same page again: it does
   *  not take the paging query; what it answered is the whole list. */
  pagingIgnored?: boolean;
  url: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

const BASE_URL_DETAIL: Record<BaseUrlProblem, string> = {
  empty: 'transport.detail.bridge-url-empty',
  'not-absolute': 'transport.detail.bridge-url-not-absolute',
  protocol: 'transport.detail.bridge-url-protocol',
  query: 'transport.detail.url-query',
};

/** A trailing part a user may paste along with the base URL. */
const PASTED_SUFFIX = /\/api\/v1(?:\/.*)?$/i;

/** Parses {base_url}; user info is refused (the calls carry the JWT). */
export function parseBridgeBase(baseUrl: string): BridgeBase {
  const text = String(baseUrl ?? '').trim();
  const bad = (key: string): TransportError => new TransportError('enroll', 'url', { url: redactUserInfo(text), detail: { key } });
  const parsed = parseBaseUrl(text, PASTED_SUFFIX);
  if (!parsed.ok) throw bad(BASE_URL_DETAIL[parsed.problem]);
  const { url, prefix } = parsed.base;
  if (url.username || url.password) throw bad('enroll.url-user-info');
  return { origin: url.origin, prefix, display: `${url.origin}${prefix}` };
}

/** The reason a bridge gave in a failed answer, when it gave one. */
export function bridgeReason(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() || undefined;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const key of ['reason', 'message', 'detail', 'error', 'title']) {
      const value = (body as Record<string, unknown>)[key];
      if (typeof value === 'string' && value.trim()) return value.trim();
    }
  }
  return undefined;
}

export class EventsBridgeClient {
  readonly base: BridgeBase;
  readonly api: EnrollmentApi;
  /** The pool calls go through, samples and enrollment alike. */
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  private readonly token: string;
  private readonly maxConcurrent: number;
  private readonly maxAnswerBytes: number;
  private readonly ownAgent?: Agent;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private closed = false;

  /** Throws a TransportError (ERR_ENROLL_URL, ERR_ENROLL_PATH) on a configuration that cannot work. */
  constructor(options: EventsBridgeClientOptions) {
    this.base = parseBridgeBase(options.baseUrl);
    const api = resolveEnrollmentApi(options.api);
    if (!api.ok) {
      const [first] = api.problems;
      throw new TransportError('enroll', 'path', { path: first.option, detail: { key: first.key, params: first.params } });
    }
    this.api = api.api;
    this.token = String(options.token ?? '').trim();
    this.timeoutMs = positive(options.timeoutMs, DEFAULT_BRIDGE_TIMEOUT_MS);
    this.maxConcurrent = Math.floor(positive(options.maxConcurrent, DEFAULT_MAX_CONCURRENT));
    this.maxAnswerBytes = positive(options.maxAnswerBytes, DEFAULT_MAX_ANSWER_BYTES);
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
    } else {
      this.ownAgent = createServerAgent({ ca: options.ca, insecure: options.insecure, timeoutMs: this.timeoutMs, connections: this.maxConcurrent });
      this.dispatcher = this.ownAgent;
    }
  }

  /** True when a token is configured. */
  get hasToken(): boolean {
    return this.token !== '';
  }

  /** Calls waiting for their turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /** GET the bridge's sample event of `kind` (anonymous) through the client's pool, TLS and timeout; see fetchSample. */
  sample(kind: EventKind, options: CallOptions = {}): Promise<FetchedSample> {
    return fetchSample(this.base.display, kind, { dispatcher: this.dispatcher, timeoutMs: this.timeoutMs, signal: options.signal });
  }

  /** PUT {monitor path}: enrolls a plate (the documented body) or a face (the photo under `api.photoField`). */
  async enroll(kind: 'lpr', externalId: string, body: PlateEnrollment, options?: CallOptions): Promise<BridgeAnswer>;
  async enroll(kind: 'face', externalId: string, body: FaceEnrollment, options?: CallOptions): Promise<BridgeAnswer>;
  async enroll(kind: EnrollKind, externalId: string, body: PlateEnrollment | FaceEnrollment, options?: CallOptions): Promise<BridgeAnswer>;
  async enroll(kind: EnrollKind, externalId: string, body: PlateEnrollment | FaceEnrollment, options: CallOptions = {}): Promise<BridgeAnswer> {
    let sent: object = body;
    if (kind === 'face') {
      const { photo, ...rest } = body as FaceEnrollment;
      sent = { [this.api.photoField]: photo, ...rest };
    }
    return this.call('PUT', monitorPath(this.api, kind, externalId), { ...options, body: JSON.stringify(sent) });
  }

  /** DELETE {monitor path}. */
  unenroll(kind: EnrollKind, externalId: string, options: CallOptions = {}): Promise<BridgeAnswer> {
    return this.call('DELETE', monitorPath(this.api, kind, externalId), options);
  }

  /** GET {monitor path}: `{"enrolled": true|false}`. */
  async check(kind: EnrollKind, externalId: string, options: CallOptions = {}): Promise<CheckAnswer> {
    const answer = await this.call('GET', monitorPath(this.api, kind, externalId), options);
    const status = EnrollmentStatus.safeParse(answer.body);
    if (!status.success) throw this.answerError(answer, 'enroll.answer.no-enrolled', answer.body);
    return { ...answer, enrolled: status.data.enrolled };
  }

  /**
   * GET {list path}, page by page when paging is configured (else one answer
   * is the one page). The next page is asked for only when the consumer asks
   * for it; the last page is the first with fewer items than the page size.
   */
  async *list(kind: EnrollKind, options: CallOptions = {}): AsyncGenerator<ListPage, void, undefined> {
    const paging = this.api.paging;
    let previous: string | undefined;
    for (let page = 1; ; page++) {
      const answer = await this.call('GET', this.api.paths[kind].list, { ...options, query: paging ? pageQuery(paging, page) : undefined });
      const items = this.monitoredItems(answer);
      if (!paging) {
        yield { items, page, last: true, url: answer.url };
        return;
      }
      if (items.length > paging.size) {
        yield { items, page, last: true, pagingIgnored: true, url: answer.url };
        return;
      }
      const signature = items.length ? JSON.stringify([items.length, items[0].externalId, items[items.length - 1].externalId]) : '';
      if (page > 1 && signature && signature === previous) {
        yield { items: [], page, last: true, pagingIgnored: true, url: answer.url };
        return;
      }
      previous = signature;
      const last = items.length < paging.size;
      yield { items, page, last, url: answer.url };
      if (last) return;
    }
  }

  /** Destroys the pool (when it is the client's own). Calls waiting or under way fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const wake of this.waiting.splice(0)) wake();
    if (this.ownAgent) await this.ownAgent.destroy().catch(() => undefined);
  }

  /** One call with the JWT, through the queue (for the other APIs of the bridge: webhooks.ts);
   *  resolves with a 2xx answer, rejects with a TransportError for anything else. */
  request(method: string, path: string, options: CallOptions & { body?: string } = {}): Promise<BridgeAnswer> {
    return this.call(method, path, options);
  }

  /** The error of a 2xx answer that is not what was asked for: `key` says what is wrong, `shown` is quoted (JWT blanked). */
  answerError(answer: BridgeAnswer, key: string, shown: unknown, extra: Message['params'] = {}): TransportError {
    const detail = { key, params: { ...extra, excerpt: bodyExcerpt(shown, [this.token], 120) || '(empty)' } };
    return new TransportError(
      'enroll',
      'answer',
      { method: answer.method, url: answer.url, status: answer.statusCode, detail },
      { status: answer.statusCode, body: answer.body },
    );
  }

  // -- internals ------------------------------------------------------------

  /** The list's items: a JSON array (or one under items/data/results/value), each with an externalId. */
  private monitoredItems(answer: BridgeAnswer): MonitoredItem[] {
    const body = answer.body as Record<string, unknown> | unknown[] | null;
    const list = Array.isArray(body)
      ? body
      : body && typeof body === 'object'
        ? [body.items, body.data, body.results, body.value].find((v): v is unknown[] => Array.isArray(v))
        : undefined;
    if (!list) throw this.answerError(answer, 'enroll.answer.not-list', body);
    for (const [index, item] of list.entries()) {
      if (!MonitoredItem.safeParse(item).success) throw this.answerError(answer, 'enroll.answer.item', item, { index: index + 1 });
    }
    return list as MonitoredItem[];
  }

  private acquire(): Promise<void> {
    if (this.active < this.maxConcurrent) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the slot to the next call waiting, or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  private url(path: string, query?: Array<[string, string]>): URL {
    const url = new URL(`${this.base.origin}${this.base.prefix}/${path.replace(/^\/+/, '')}`);
    for (const [name, value] of query ?? []) url.searchParams.append(name, value);
    return url;
  }

  /** One call; resolves with a 2xx answer, rejects with a TransportError for anything else. */
  private async call(method: string, path: string, options: CallOptions & { body?: string; query?: Array<[string, string]> }): Promise<BridgeAnswer> {
    const url = this.url(path, options.query);
    const display = url.href;
    if (!this.token) throw new TransportError('enroll', 'credentials', { method, url: display });
    await this.acquire();
    try {
      if (this.closed) throw new TransportError('enroll', 'closed', { method, url: display });
      const headers: Record<string, string> = {
        accept: 'application/json',
        'user-agent': 'node-red-contrib-detection-bridge',
        authorization: `Bearer ${this.token}`,
      };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const res = await send({
        service: 'enroll',
        method,
        url,
        headers,
        body: options.body,
        dispatcher: this.dispatcher,
        timeoutMs: this.timeoutMs,
        signal: options.signal,
        maxBytes: this.maxAnswerBytes,
      });
      const contentType = firstHeader(res.headers, 'content-type');
      let body: unknown = null;
      if (res.body.length > 0) {
        const parsed = isJsonContentType(contentType) ? parseJsonBody(res.body) : undefined;
        body = parsed?.ok ? parsed.value : res.body.toString('utf8');
      }
      const status = res.statusCode;
      if (status >= 200 && status <= 299) return { statusCode: status, body, method, url: display };
      const reason = bridgeReason(body);
      const params = { method, url: display, ...answerParams(status, reason ?? body, [this.token]), ...(reason ? { reason } : {}) };
      throw new TransportError('enroll', status === 401 ? 'unauthorized' : 'status', params, { status, body });
    } finally {
      this.release();
    }
  }
}
