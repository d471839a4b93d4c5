/**
 * Client for the platform REST API v2, with undici: sign-in, the bearer
 * token, and any call below {core_base_url}/api/v2/.
 *
 * What the spec fixes: `POST {core_base_url}/api/v2/auth/login` with JSON
 * `{userName, password}` answers "a token pair"; later calls send
 * `Authorization: Bearer <ACCESS_TOKEN>`. What it does not fix (Authentication
 * 6): the token pair's field names, the lifetime, and any refresh endpoint.
 * So this client
 * - reads the access token from the usual spellings (token-pair.ts),
 * - learns the expiry from the answer or from the JWT `exp` claim,
 * - renews by signing in again shortly before a known expiry and, once, after
 *   a 401 (no refresh call is made: none is documented; the refresh token is
 *   kept but unused).
 *
 * Secrets: the password and the tokens never appear in an error message or a
 * log line; this module does not log at all. Node-RED-free.
 */
import { EventEmitter } from 'node:events';
import type { Agent, Dispatcher } from 'undici';
import { answerParams, createServerAgent, isJsonContentType, parseJsonBody, positive, send, TransportError } from '../http';
import { optionDefault, secondsMs } from '../config';
import { normalizePlugins, type PluginInfo } from './plugins';
import { extractTokenPair, type TokenPair } from './token-pair';
import { PLATFORM_INSTALLED_PLUGINS_PATH, PLATFORM_LOGIN_PATH, parsePlatformBase, platformUrl, type PlatformBase, type PlatformQuery } from './url';

/** The platform server's timeout, as the option table states it (lib/config/node-options.ts). */
export const DEFAULT_PLATFORM_TIMEOUT_MS = secondsMs(optionDefault('platform-server', 'timeout'));
export const DEFAULT_RENEW_BEFORE_MS = 60_000;
/** A v2 answer larger than this is cut off with ERR_PLATFORM_TOO_LARGE. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

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
      this.ownAgent = createServerAgent({ ca: options.ca, insecure: options.insecure, timeoutMs: this.timeoutMs, keepAliveTimeout: 30_000 });
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
        throw new TransportError(
          'platform',
          'login',
          { url: display, ...answerParams(res.statusCode, res.body, [this.password]) },
          { status: res.statusCode },
        );
      }
      const obtainedAt = this.now();
      const found = extractTokenPair(res.body, obtainedAt);
      if (!found.ok) {
        throw new TransportError(
          'platform',
          'token-fields',
          { url: display, status: res.statusCode, fields: found.fields.join(', ') },
          { status: res.statusCode },
        );
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
        err instanceof TransportError
          ? err
          : new TransportError('platform', 'network', { method: 'POST', url: this.base.display, detail: String(err) }, { cause: err });
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
