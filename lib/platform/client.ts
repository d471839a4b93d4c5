/**
 * Client for the platform REST API v2, with undici: sign-in, the bearer
 * token, and any call below {core_base_url}/api/v2/.
 *
 * What the spec fixes: `POST {core_base_url}/api/v2/auth/login` with JSON
 * `{userName, password}` answers "a token pair"; later calls send
 * `Authorization: Bearer <ACCESS_TOKEN>`. What it does not fix (Authentication
 * 6): the token pair's field names, the lifetime, and any refresh endpoint.
 * So this client
 * - reads the access token from the usual spellings (see `extractTokenPair`),
 * - learns the expiry from the answer or from the JWT `exp` claim,
 * - renews by signing in again shortly before a known expiry and, once, after
 *   a 401 (no refresh call is made: none is documented; the refresh token is
 *   kept but unused).
 *
 * Secrets: the password and the tokens never appear in an error message or a
 * log line; this module does not log at all. Node-RED-free.
 */
import { EventEmitter } from 'node:events';
import { rootCertificates } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import { isJsonContentType } from '../http/content-type';
import { parseJsonBody } from '../http/json';
import { redactUserInfo } from '../http/net-errors';
import { send } from '../http/send';
import { answerParams, TransportError } from '../http/transport-error';

export const DEFAULT_PLATFORM_TIMEOUT_MS = 30_000;
export const DEFAULT_RENEW_BEFORE_MS = 60_000;
/** A v2 answer larger than this is cut off with ERR_PLATFORM_TOO_LARGE. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export const PLATFORM_LOGIN_PATH = '/api/v2/auth/login';
export const PLATFORM_INSTALLED_PLUGINS_PATH = '/api/v2/portal/installed-plugins';

/** The path of the POS batch endpoint of one POS module instance. */
export function posBatchPath(posId: string | number): string {
  return `/api/v2/pos/plugins/${encodeURIComponent(String(posId))}/events/batch`;
}

// ---------------------------------------------------------------------------
// URLs

/** What a user may paste along with the core base URL: `/api/v2` or a whole v2 call. */
const PASTED_V2_SUFFIX = /\/api\/v2(?:\/.*)?$/i;

export interface PlatformBase {
  /** `https://host:port` */
  origin: string;
  /** The base's path prefix without a trailing slash: '' or `/core`. */
  prefix: string;
  /** origin + prefix, for messages. */
  display: string;
}

/**
 * Parses {core_base_url}. A path prefix is kept (`https://host/core` →
 * prefix `/core`); a pasted `/api/v2…` at the end is dropped. User info in
 * the URL is refused: the user name and password are credentials of their own.
 */
export function parsePlatformBase(baseUrl: string): PlatformBase {
  const text = String(baseUrl ?? '').trim();
  const bad = (detail: string): TransportError =>
    new TransportError('platform', 'url', { url: redactUserInfo(text), detail: { key: `transport.detail.${detail}` } });
  if (!text) throw bad('platform-url-empty');
  let base: URL;
  try {
    base = new URL(text);
  } catch {
    throw bad('platform-url-not-absolute');
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw bad('url-protocol');
  if (base.username || base.password) throw bad('url-user-info');
  if (base.search || base.hash) throw bad('url-query');
  const prefix = base.pathname.replace(/\/+$/, '').replace(PASTED_V2_SUFFIX, '').replace(/\/+$/, '');
  return { origin: base.origin, prefix, display: `${base.origin}${prefix}` };
}

export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>;
export type PlatformQuery = Record<string, QueryValue> | URLSearchParams;

/**
 * Joins the base and a path relative to it, keeping the base's prefix:
 * `https://h/core` + `api/v2/x?a=1` + `{b: 2}` → `https://h/core/api/v2/x?a=1&b=2`.
 * An absolute URL as path is refused, so the bearer token never goes to
 * another host. null/undefined query values are left out; arrays repeat the key.
 */
export function platformUrl(base: PlatformBase, path: string, query?: PlatformQuery): URL {
  const raw = String(path ?? '').trim();
  const bad = (detail: string): TransportError => new TransportError('platform', 'path', { path: raw, detail: { key: `transport.detail.${detail}` } });
  if (!raw) throw bad('path-empty');
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('//')) throw bad('path-absolute');
  if (raw.includes('#')) throw bad('path-fragment');
  const url = new URL(`${base.origin}${base.prefix}/${raw.replace(/^\/+/, '')}`);
  if (url.origin !== base.origin) throw bad('path-escapes');
  if (query) {
    const entries = query instanceof URLSearchParams ? [...query.entries()] : Object.entries(query);
    for (const [key, value] of entries) {
      if (value === null || value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else url.searchParams.append(key, String(value));
    }
  }
  return url;
}

// ---------------------------------------------------------------------------
// Token pair

export interface TokenPair {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms when the access token expires, when known. */
  expiresAt?: number;
  /** Where the expiry came from. */
  expirySource?: 'expiresIn' | 'expiresAt' | 'jwt';
  /** The field the access token was read from, e.g. `accessToken` or `data.token`. */
  accessField: string;
}

export type TokenPairResult = { ok: true; pair: TokenPair } | { ok: false; fields: string[] };

const ACCESS_KEYS = ['accessToken', 'access_token', 'token', 'jwt'] as const;
const REFRESH_KEYS = ['refreshToken', 'refresh_token'] as const;
const EXPIRES_IN_KEYS = ['expiresIn', 'expires_in'] as const;
const EXPIRES_AT_KEYS = ['expiresAt', 'expires_at', 'expiration'] as const;
const WRAPPER_KEYS = ['data', 'result', 'token', 'tokens'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function finiteNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

/** Epoch ms from an ISO string or an epoch in seconds or milliseconds. */
function parseInstant(value: unknown): number | undefined {
  const n = finiteNumber(value);
  if (n !== undefined) return n > 1e11 ? n : n * 1000; // 1e11 s is year 5138; 1e11 ms is 1973
  if (typeof value === 'string') {
    const t = Date.parse(value);
    if (Number.isFinite(t)) return t;
  }
  return undefined;
}

/** The payload of a JWT, decoded without verification; undefined when not a JWT. */
export function decodeJwtPayload(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
    return isRecord(payload) ? payload : undefined;
  } catch {
    return undefined;
  }
}

function pick(holder: Record<string, unknown>, keys: readonly string[], accept: (v: unknown) => unknown): [string, unknown] | undefined {
  for (const key of keys) {
    const value = accept(holder[key]);
    if (value !== undefined) return [key, value];
  }
  return undefined;
}

/** Names of the fields of an answer, one level into wrappers (`data.user`), never values. */
function fieldNames(body: unknown): string[] {
  if (!isRecord(body)) return [Array.isArray(body) ? '(an array)' : body === null ? '(null)' : `(${typeof body})`];
  const names: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    names.push(key);
    if (isRecord(value)) for (const inner of Object.keys(value)) names.push(`${key}.${inner}`);
  }
  return names.length ? names : ['(an empty object)'];
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Finds the token pair in a sign-in answer. The field names are not in the
 * spec, so the usual spellings are accepted:
 * - access token: `accessToken` | `access_token` | `token` | `jwt`, at the top
 *   or one level down in a `data` / `result` / `token` / `tokens` wrapper;
 *   a bare JWT string as the whole answer too;
 * - refresh token: `refreshToken` | `refresh_token`, beside it or at the top;
 * - expiry: `expiresIn` / `expires_in` (seconds), or `expiresAt` / `expires_at`
 *   / `expiration` (ISO string or epoch seconds or ms), beside it or at the
 *   top; else the JWT `exp` claim (read without verification).
 * When no access token fits, the result names the fields that came back (names only).
 */
export function extractTokenPair(body: unknown, nowMs: number = Date.now()): TokenPairResult {
  if (typeof body === 'string' && JWT_SHAPE.test(body.trim())) {
    return { ok: true, pair: withJwtExpiry({ accessToken: body.trim(), accessField: '(the whole answer)' }) };
  }
  if (!isRecord(body)) return { ok: false, fields: fieldNames(body) };
  const holders: Array<[string, Record<string, unknown>]> = [['', body]];
  for (const key of WRAPPER_KEYS) {
    const inner = body[key];
    if (isRecord(inner)) holders.push([`${key}.`, inner]);
  }
  for (const [prefix, holder] of holders) {
    const access = pick(holder, ACCESS_KEYS, nonEmptyString);
    if (!access) continue;
    const near = holder === body ? [body] : [holder, body];
    const pair: TokenPair = { accessToken: access[1] as string, accessField: `${prefix}${access[0]}` };
    for (const h of near) {
      const refresh = pick(h, REFRESH_KEYS, nonEmptyString);
      if (refresh) {
        pair.refreshToken = refresh[1] as string;
        break;
      }
    }
    for (const h of near) {
      const expiresIn = pick(h, EXPIRES_IN_KEYS, finiteNumber);
      if (expiresIn) {
        pair.expiresAt = nowMs + (expiresIn[1] as number) * 1000;
        pair.expirySource = 'expiresIn';
        break;
      }
      const expiresAt = pick(h, EXPIRES_AT_KEYS, parseInstant);
      if (expiresAt) {
        pair.expiresAt = expiresAt[1] as number;
        pair.expirySource = 'expiresAt';
        break;
      }
    }
    return { ok: true, pair: pair.expiresAt === undefined ? withJwtExpiry(pair) : pair };
  }
  return { ok: false, fields: fieldNames(body) };
}

function withJwtExpiry(pair: TokenPair): TokenPair {
  const exp = finiteNumber(decodeJwtPayload(pair.accessToken)?.exp);
  if (exp !== undefined) {
    pair.expiresAt = exp * 1000;
    pair.expirySource = 'jwt';
  }
  return pair;
}

// ---------------------------------------------------------------------------
// The client

export interface PlatformClientOptions {
  /** {core_base_url}; a path prefix is kept (`https://tenant-host/core`). */
  baseUrl: string;
  userName: string;
  password: string;
  /** Accept any server certificate (self-signed, wrong name, expired). Default false. */
  insecure?: boolean;
  /** A PEM CA certificate (or bundle) to trust besides the public roots. */
  ca?: string;
  /** Per call, connect to end of body. Default 30000. */
  timeoutMs?: number;
  /** Sign in again this long before a known expiry. Default 60000 (capped at
   *  half the token's lifetime, so a short-lived token is still used). */
  renewBeforeMs?: number;
  /** Cap on an answer's body. Default 64 MiB. */
  maxResponseBytes?: number;
  /** Send through this dispatcher instead of an own Agent (tests). It is not
   *  closed by `close()`; its TLS settings win over `insecure` and `ca`. */
  dispatcher?: Dispatcher;
  /** Clock, injectable for tests. */
  now?: () => number;
}

export interface PlatformRequestOptions {
  /** Default GET. */
  method?: string;
  /** Relative to the base: `/api/v2/...` or `api/v2/...`; may carry a query. */
  path: string;
  query?: PlatformQuery;
  /** JSON-encoded unless a Buffer or a string (sent as is: a string defaults
   *  to Content-Type application/json, a Buffer to application/octet-stream).
   *  null/undefined: no body. Ignored for GET and HEAD. */
  body?: unknown;
  /** Extra headers. An `authorization` header here is replaced by the bearer token. */
  headers?: Record<string, string | number | undefined>;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Per call override of the client's timeoutMs. */
  timeoutMs?: number;
}

export type PlatformHeaders = Record<string, string | string[] | undefined>;

export interface PlatformResponse {
  statusCode: number;
  headers: PlatformHeaders;
  /** Parsed JSON when the answer's Content-Type is JSON (the text when it does
   *  not parse), else the text; null when empty. */
  body: unknown;
}

export interface PluginInfo {
  id: string;
  name: string;
  type?: string;
  /** The object the entry was read from. */
  raw: Record<string, unknown>;
}

export interface InstalledPlugins {
  statusCode: number;
  /** The answer as parsed. */
  body: unknown;
  /** Best-effort list found in the answer (see `normalizePlugins`). */
  plugins: PluginInfo[];
}

export interface SignInInfo {
  /** Logins made so far by this client, this one included. */
  logins: number;
  expiresAt?: number;
  expirySource?: TokenPair['expirySource'];
  accessField: string;
}

interface Session {
  accessToken: string;
  refreshToken?: string;
  expiresAt?: number;
  obtainedAt: number;
}

/**
 * One platform login shared by every caller. Emits `signedIn` (SignInInfo)
 * after each successful login and `signInFailed` (TransportError) after a
 * failed one; never emits `error`.
 */
export class PlatformClient extends EventEmitter {
  readonly base: PlatformBase;
  private readonly userName: string;
  private readonly password: string;
  private readonly timeoutMs: number;
  private readonly renewBeforeMs: number;
  private readonly maxResponseBytes: number;
  private readonly now: () => number;
  private readonly dispatcher: Dispatcher;
  private readonly ownAgent?: Agent;
  private session?: Session;
  private signingIn?: Promise<Session>;
  private closed = false;
  private _logins = 0;
  private _requests = 0;
  private _lastError?: TransportError;

  constructor(options: PlatformClientOptions) {
    super();
    this.base = parsePlatformBase(options.baseUrl);
    this.userName = String(options.userName ?? '');
    this.password = String(options.password ?? '');
    this.timeoutMs = positive(options.timeoutMs, DEFAULT_PLATFORM_TIMEOUT_MS);
    this.renewBeforeMs = nonNegative(options.renewBeforeMs, DEFAULT_RENEW_BEFORE_MS);
    this.maxResponseBytes = positive(options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
    this.now = options.now ?? Date.now;
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
    } else {
      const ca = options.ca && options.ca.trim() ? [...rootCertificates, options.ca] : undefined;
      this.ownAgent = new Agent({
        connect: { rejectUnauthorized: !options.insecure, ...(ca ? { ca } : {}), timeout: this.timeoutMs },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        keepAliveTimeout: 30_000,
      });
      this.dispatcher = this.ownAgent;
    }
  }

  /** True while a token is held that is not known to have expired. */
  get signedIn(): boolean {
    const s = this.session;
    return !!s && (s.expiresAt === undefined || s.expiresAt > this.now());
  }

  /** Successful logins so far. */
  get loginCount(): number {
    return this._logins;
  }

  /** HTTP requests sent so far (logins included). */
  get requestCount(): number {
    return this._requests;
  }

  /** Epoch ms when the held access token expires, when known. */
  get tokenExpiresAt(): number | undefined {
    return this.session?.expiresAt;
  }

  /** The last sign-in or transport failure (cleared by a successful login). */
  get lastError(): TransportError | undefined {
    return this._lastError;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The full URL a call would go to (for status and error messages). Throws ERR_PLATFORM_PATH. */
  urlFor(path: string, query?: PlatformQuery): string {
    return platformUrl(this.base, path, query).href;
  }

  /** Signs in now (or joins a sign-in under way). Resolves when a token is held. */
  async signIn(): Promise<void> {
    await this.token(true);
  }

  /** Forgets the token: the next call signs in again. */
  signOut(): void {
    this.session = undefined;
  }

  /**
   * One v2 call with the shared login. Signs in on first use, renews before a
   * known expiry, and after a 401 signs in again once and repeats the call (a
   * second 401 is returned). Resolves with any HTTP answer, 2xx or not;
   * rejects with a TransportError on network, TLS, time-out or sign-in failures.
   */
  async request(options: PlatformRequestOptions): Promise<PlatformResponse> {
    if (this.closed) throw new TransportError('platform', 'closed', {});
    const method = String(options.method || 'GET').toUpperCase();
    const url = platformUrl(this.base, options.path, options.query);
    const prepared = prepareBody(method, options.body);
    let session = await this.token(false);
    let res = await this.send(method, url, session.accessToken, prepared, options);
    if (res.statusCode === 401) {
      session = await this.renewAfter401(session);
      res = await this.send(method, url, session.accessToken, prepared, options);
    }
    return res;
  }

  /** GET /api/v2/portal/installed-plugins. Rejects with ERR_PLATFORM_STATUS on a non-2xx answer. */
  async installedPlugins(options: { signal?: AbortSignal } = {}): Promise<InstalledPlugins> {
    const res = await this.request({ method: 'GET', path: PLATFORM_INSTALLED_PLUGINS_PATH, signal: options.signal });
    if (res.statusCode < 200 || res.statusCode > 299) {
      throw statusError('GET', platformUrl(this.base, PLATFORM_INSTALLED_PLUGINS_PATH).href, res, [this.password, this.session?.accessToken]);
    }
    return { statusCode: res.statusCode, body: res.body, plugins: normalizePlugins(res.body) };
  }

  /** Destroys the keep-alive pool (when it is the client's own). Calls under way fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.session = undefined;
    if (this.ownAgent) await this.ownAgent.destroy().catch(() => undefined);
  }

  // -- internals ------------------------------------------------------------

  /** A usable session: the held one, the sign-in under way, or a new sign-in. */
  private token(force: boolean): Promise<Session> {
    if (this.signingIn) return this.signingIn;
    const s = this.session;
    if (!force && s && !this.dueForRenewal(s)) return Promise.resolve(s);
    return this.startSignIn();
  }

  private dueForRenewal(s: Session): boolean {
    if (s.expiresAt === undefined) return false;
    const lifetime = s.expiresAt - s.obtainedAt;
    const margin = Math.min(this.renewBeforeMs, Math.max(0, lifetime / 2));
    return this.now() >= s.expiresAt - margin;
  }

  /** After a 401 with `used`: sign in again unless somebody already did. */
  private renewAfter401(used: Session): Promise<Session> {
    if (this.signingIn) return this.signingIn;
    if (this.session && this.session !== used && !this.dueForRenewal(this.session)) return Promise.resolve(this.session);
    this.session = undefined;
    return this.startSignIn();
  }

  private startSignIn(): Promise<Session> {
    const pending = this.login().then(
      (session) => {
        if (this.signingIn === pending) this.signingIn = undefined;
        return session;
      },
      (err: unknown) => {
        if (this.signingIn === pending) this.signingIn = undefined;
        throw err;
      },
    );
    this.signingIn = pending;
    return pending;
  }

  private async login(): Promise<Session> {
    try {
      if (!this.userName) throw new TransportError('platform', 'credentials', { missing: { key: 'transport.detail.user-name' } });
      if (!this.password) throw new TransportError('platform', 'credentials', { missing: { key: 'transport.detail.password' } });
      const url = platformUrl(this.base, PLATFORM_LOGIN_PATH);
      const body = JSON.stringify({ userName: this.userName, password: this.password });
      const res = await this.send('POST', url, undefined, { body, contentType: 'application/json' }, {});
      const display = url.href;
      if (res.statusCode < 200 || res.statusCode > 299) {
        throw new TransportError('platform', 'login', { url: display, ...answerParams(res.statusCode, res.body, [this.password]) }, { status: res.statusCode });
      }
      const obtainedAt = this.now();
      const found = extractTokenPair(res.body, obtainedAt);
      if (!found.ok) {
        throw new TransportError('platform', 'token-fields', { url: display, status: res.statusCode, fields: found.fields.join(', ') }, { status: res.statusCode });
      }
      const { pair } = found;
      const session: Session = { accessToken: pair.accessToken, refreshToken: pair.refreshToken, expiresAt: pair.expiresAt, obtainedAt };
      if (this.closed) throw new TransportError('platform', 'closed', {});
      this.session = session;
      this._logins++;
      this._lastError = undefined;
      this.emit('signedIn', {
        logins: this._logins,
        expiresAt: pair.expiresAt,
        expirySource: pair.expirySource,
        accessField: pair.accessField,
      } satisfies SignInInfo);
      return session;
    } catch (err) {
      const failure =
        err instanceof TransportError ? err : new TransportError('platform', 'network', { method: 'POST', url: this.base.display, detail: String(err) }, { cause: err });
      this._lastError = failure;
      this.emit('signInFailed', failure);
      throw failure;
    }
  }

  private async send(
    method: string,
    url: URL,
    accessToken: string | undefined,
    prepared: PreparedBody,
    options: { headers?: PlatformRequestOptions['headers']; signal?: AbortSignal; timeoutMs?: number },
  ): Promise<PlatformResponse> {
    if (this.closed) throw new TransportError('platform', 'closed', {});
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'node-red-contrib-detection-bridge' };
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
    }
    delete headers.authorization;
    delete headers.host;
    delete headers['content-length'];
    if (prepared.body !== undefined && !headers['content-type'] && prepared.contentType) headers['content-type'] = prepared.contentType;
    if (accessToken) headers.authorization = `Bearer ${accessToken}`;
    this._requests++;
    try {
      const res = await send({
        service: 'platform',
        method,
        url,
        headers,
        body: prepared.body,
        dispatcher: this.dispatcher,
        timeoutMs: positive(options.timeoutMs, this.timeoutMs),
        signal: options.signal,
        maxBytes: this.maxResponseBytes,
      });
      return { statusCode: res.statusCode, headers: res.headers as PlatformHeaders, body: decodeBody(res.body, res.headers['content-type']) };
    } catch (err) {
      this._lastError = err as TransportError;
      throw err;
    }
  }
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

function nonNegative(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

interface PreparedBody {
  body?: string | Buffer;
  contentType?: string;
}

function prepareBody(method: string, body: unknown): PreparedBody {
  if (body === undefined || body === null || method === 'GET' || method === 'HEAD') return {};
  if (Buffer.isBuffer(body)) return { body, contentType: 'application/octet-stream' };
  if (typeof body === 'string') return { body, contentType: 'application/json' };
  if (body instanceof Uint8Array) return { body: Buffer.from(body), contentType: 'application/octet-stream' };
  return { body: JSON.stringify(body), contentType: 'application/json' };
}

function decodeBody(raw: Buffer, contentType: string | string[] | undefined): unknown {
  if (raw.length === 0) return null;
  if (isJsonContentType(contentType)) {
    const parsed = parseJsonBody(raw);
    if (parsed.ok) return parsed.value;
  }
  const text = raw.toString('utf8');
  return text.trim() === '' ? null : text;
}

/** A TransportError (ERR_PLATFORM_STATUS) for a non-2xx answer: status and a
 *  short body excerpt with the given secrets blanked out. For callers that
 *  want to turn an answer into an error (the request node, for example). */
export function statusError(
  method: string,
  url: string,
  res: Pick<PlatformResponse, 'statusCode' | 'body'>,
  secrets: ReadonlyArray<string | undefined> = [],
): TransportError {
  return new TransportError('platform', 'status', { method, url, ...answerParams(res.statusCode, res.body, secrets) }, { status: res.statusCode });
}

// ---------------------------------------------------------------------------
// Installed plugins

const ID_KEYS = ['id', 'pluginId', 'instanceId'] as const;
const NAME_KEYS = ['name', 'displayName', 'title'] as const;
const TYPE_KEYS = ['type', 'module', 'kind'] as const;
/** Keys of arrays that say nothing about what the entries are. */
const GENERIC_KEYS = new Set([
  'data', 'result', 'results', 'items', 'value', 'values', 'list', 'content', 'records',
  'plugins', 'installedplugins', 'modules', 'instances', 'entries',
]);
const MAX_PLUGIN_DEPTH = 8;

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Best-effort list of plugins (module instances) in an installed-plugins
 * answer, whose shape the spec does not give. Every object inside an array
 * that has an id-like field (`id` | `pluginId` | `instanceId`) becomes an
 * entry: name from `name` | `displayName` | `title` (else the id), type from
 * `type` | `module` | `kind`, else inherited from the enclosing object (its
 * type or name, as in `{module: "pos", instances: [...]}`) or from a telling
 * array key (`{pos: [...]}`). Duplicates (same id and type) are dropped.
 */
export function normalizePlugins(body: unknown): PluginInfo[] {
  const out: PluginInfo[] = [];
  const seen = new Set<string>();
  const walk = (value: unknown, hint: string | undefined, depth: number): void => {
    if (depth > MAX_PLUGIN_DEPTH || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) {
        if (!isRecord(item)) continue;
        const id = pick(item, ID_KEYS, scalarText)?.[1] as string | undefined;
        const ownType = pick(item, TYPE_KEYS, scalarText)?.[1] as string | undefined;
        const name = pick(item, NAME_KEYS, scalarText)?.[1] as string | undefined;
        if (id !== undefined) {
          const type = ownType ?? hint;
          const key = `${type ?? ''}\u0000${id}`;
          if (!seen.has(key)) {
            seen.add(key);
            out.push({ id, name: name ?? id, ...(type !== undefined ? { type } : {}), raw: item });
          }
        }
        walkChildren(item, ownType ?? (id === undefined ? name : undefined) ?? hint, depth + 1);
      }
      return;
    }
    walkChildren(value as Record<string, unknown>, hint, depth + 1);
  };
  const walkChildren = (holder: Record<string, unknown>, hint: string | undefined, depth: number): void => {
    for (const [key, child] of Object.entries(holder)) {
      if (child === null || typeof child !== 'object') continue;
      const keyHint = Array.isArray(child) && !GENERIC_KEYS.has(key.toLowerCase()) ? key : undefined;
      walk(child, keyHint ?? hint, depth);
    }
  };
  walk(body, undefined, 0);
  return out;
}

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** True when the plugin's type or name mentions POS (`pos`, `POS Bar`, `PosPlugin`, `point of sale`). */
export function isPosPlugin(plugin: Pick<PluginInfo, 'name' | 'type'>): boolean {
  for (const text of [plugin.type, plugin.name]) {
    if (!text) continue;
    const w = words(text);
    if (w.includes('pos')) return true;
    if (w.join(' ').includes('point of sale')) return true;
  }
  return false;
}

/** The POS instances among the plugins (their ids go into `posBatchPath`). */
export function posPlugins(plugins: ReadonlyArray<PluginInfo>): PluginInfo[] {
  return plugins.filter(isPosPlugin);
}
