/**
 * A mock of the platform v2 core, on node:http or node:https, for the test
 * suite, the events-bridge simulator and `npm start`. Pure Node, no Node-RED.
 *
 * Routes (below an optional path prefix):
 * - POST /api/v2/auth/login: checks `{userName, password}`; answers
 *   `{accessToken, refreshToken, expiresIn}` (the access token is a real-looking
 *   HS256 JWT with `exp`), or 401 with a problem body. The answer's shape can be
 *   changed with `loginBody` to try other spellings of the token pair.
 * - GET /api/v2/portal/installed-plugins (bearer): a few modules, two of them
 *   POS instances (or `plugins` as given).
 * - POST /api/v2/pos/plugins/{pos_id}/events/batch (bearer): a JSON array, or
 *   `{events: [...]}` / `{transactions: [...]}`; recorded; 200 `{accepted: n}`.
 * - any other /api/v2/... (bearer): echoes `{method, path, query, body}`.
 * An expired or unknown token gets 401 with an application/problem+json body.
 *
 * Recordings are bounded: counts are always kept, bodies only of the last
 * `maxRecorded` batches and requests.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { PROBLEM_CONTENT_TYPE } from '../lib/http/problem';

export interface MockPlugin {
  id: string;
  name: string;
  type: string;
  [extra: string]: unknown;
}

export const DEFAULT_MOCK_PLUGINS: MockPlugin[] = [
  { id: 'portal', name: 'Portal', type: 'portal', version: '11.0.0' },
  { id: 'pos-main-bar', name: 'POS Main Bar', type: 'pos', version: '11.0.0' },
  { id: 'pos-restaurant', name: 'POS Restaurant', type: 'pos', version: '11.0.0' },
  { id: 'lpr', name: 'License Plate Recognition', type: 'lpr', version: '11.0.0' },
  { id: 'casino-ratings', name: 'Casino Ratings', type: 'ratings', version: '11.0.0' },
];

export interface MockTokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds. */
  expiresIn: number;
  /** ISO time. */
  expiresAt: string;
}

export interface MockCoreOptions {
  /** Default `admin`. */
  userName?: string;
  /** Default `secret`. */
  password?: string;
  /** Access token lifetime. Default 3600000 (one hour). */
  tokenTtlMs?: number;
  /** Serve HTTPS with this key and certificate (PEM). */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** The installed-plugins answer: an array of plugins is wrapped as
   *  `{plugins: [...]}`; anything else is answered as is. */
  plugins?: unknown;
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Path prefix the core is served under, e.g. `/core`. Default none. */
  prefix?: string;
  /** Shapes the login answer (default `{accessToken, refreshToken, expiresIn}`). */
  loginBody?: (tokens: MockTokens) => unknown;
  /** Bodies of the last this many batches and requests are kept. Default 100. */
  maxRecorded?: number;
  /** Request body cap. Default 50 MiB (413 above). */
  maxBodyBytes?: number;
}

export interface MockBatch {
  posId: string;
  items: unknown[];
  headers: http.IncomingHttpHeaders;
  at: string;
}

export interface MockRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  body: unknown;
  headers: http.IncomingHttpHeaders;
  status: number;
  at: string;
}

export interface MockReceived {
  /** Successful logins. */
  logins: number;
  /** Refused logins (wrong credentials or malformed). */
  failedLogins: number;
  /** The last `maxRecorded` POS batches. */
  batches: MockBatch[];
  /** POS batches received in all (also those no longer kept). */
  batchCount: number;
  /** Items in all POS batches received. */
  itemCount: number;
  /** The last `maxRecorded` requests of any route (logins without their body). */
  requests: MockRequest[];
  /** Requests received in all. */
  requestCount: number;
  /** 401 answers for a missing, unknown or expired token. */
  unauthorized: number;
}

export interface MockFailure {
  /** HTTP status to answer. */
  status?: number;
  /** Sets Retry-After (seconds as a number, or the header text). */
  retryAfter?: number | string;
  /** Body to answer (JSON-encoded unless a string). Default a problem body. */
  body?: unknown;
  /** Destroy the connection instead of answering (a network error). */
  drop?: boolean;
  /** Which requests fail: `api` (everything but login; default), `login`, or `all`. */
  match?: 'api' | 'login' | 'all';
}

/** The mock's routes and controls without a server of its own: mount
 *  `handler` on any node:http(s) server (e.g. beside other routes). */
export interface MockCoreRoutes {
  /** A request listener for the routes above (answers 404 outside prefix/api/v2). */
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  /** The path prefix, normalised: '' or `/core`. */
  prefix: string;
  received: MockReceived;
  /** The next `n` matching requests get this answer instead. Replaces any queued failures. */
  failNext(n: number, failure?: MockFailure): void;
  /** Every token issued so far stops working. */
  expireTokens(): void;
  setTokenTtl(ms: number): void;
  setLoginBody(shape: ((tokens: MockTokens) => unknown) | undefined): void;
  /** Replaces the installed-plugins answer. */
  setPlugins(plugins: unknown): void;
  /** Clears recordings, counts and queued failures. */
  reset(): void;
}

export interface MockCore extends Omit<MockCoreRoutes, 'handler'> {
  /** Base URL, prefix included: `http://127.0.0.1:PORT[/prefix]`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const V2 = '/api/v2';
const LOGIN = '/api/v2/auth/login';
const PLUGINS = '/api/v2/portal/installed-plugins';
const POS_BATCH = /^\/api\/v2\/pos\/plugins\/([^/]+)\/events\/batch$/;

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function problemBody(status: number, title: string, detail: string): Record<string, unknown> {
  return { type: `urn:mock-core:problem:${title.toLowerCase().replace(/\W+/g, '-')}`, title, status, detail };
}

function sendJson(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function sendProblem(res: http.ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(problemBody(status, title, detail));
  res.writeHead(status, { 'content-type': PROBLEM_CONTENT_TYPE, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function readRaw(req: http.IncomingMessage, max: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) over = true;
      if (!over) chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function redactHeaders(headers: http.IncomingHttpHeaders): http.IncomingHttpHeaders {
  const copy = { ...headers };
  if (copy.authorization) copy.authorization = copy.authorization.replace(/^(\w+)\s.*$/, '$1 <redacted>');
  return copy;
}

function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length === 1 ? all[0] : all;
  }
  return out;
}

/** The mock core's routes and controls, to mount on a server of the caller's
 *  (`tls`, `port` and `host` of the options are not used here). */
export function createMockCore(options: MockCoreOptions = {}): MockCoreRoutes {
  const userName = options.userName ?? 'admin';
  const password = options.password ?? 'secret';
  let tokenTtlMs = options.tokenTtlMs ?? 3_600_000;
  let loginShape = options.loginBody;
  let plugins: unknown = options.plugins ?? DEFAULT_MOCK_PLUGINS;
  const maxRecorded = Math.max(0, options.maxRecorded ?? 100);
  const maxBodyBytes = options.maxBodyBytes ?? 50 * 1024 * 1024;
  const prefix = (options.prefix ?? '').replace(/\/+$/, '').replace(/^(?=[^/])/, '/');
  const secret = randomBytes(32);
  /** access token → expiry (epoch ms); bounded. */
  const tokens = new Map<string, number>();
  const MAX_TOKENS = 1000;
  let failures: { left: number; failure: MockFailure } | undefined;

  const received: MockReceived = {
    logins: 0, failedLogins: 0, batches: [], batchCount: 0, itemCount: 0, requests: [], requestCount: 0, unauthorized: 0,
  };
  const keep = <X>(list: X[], value: X): void => {
    if (maxRecorded === 0) return;
    list.push(value);
    if (list.length > maxRecorded) list.splice(0, list.length - maxRecorded);
  };

  const issue = (): MockTokens => {
    const now = Date.now();
    const exp = now + tokenTtlMs;
    const header = base64url({ alg: 'HS256', typ: 'JWT' });
    const payload = base64url({ sub: userName, iat: Math.floor(now / 1000), exp: Math.floor(exp / 1000), jti: randomUUID() });
    const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
    const accessToken = `${header}.${payload}.${signature}`;
    for (const [token, until] of tokens) if (until <= now) tokens.delete(token);
    while (tokens.size >= MAX_TOKENS) tokens.delete(tokens.keys().next().value as string);
    tokens.set(accessToken, exp);
    return { accessToken, refreshToken: randomBytes(24).toString('base64url'), expiresIn: Math.max(1, Math.round(tokenTtlMs / 1000)), expiresAt: new Date(exp).toISOString() };
  };

  /** A failure to answer with, when one is queued for this kind of request. */
  const takeFailure = (isLogin: boolean): MockFailure | undefined => {
    if (!failures || failures.left <= 0) return undefined;
    const match = failures.failure.match ?? 'api';
    if (match === 'all' || (match === 'login') === isLogin) {
      failures.left--;
      const failure = failures.failure;
      if (failures.left <= 0) failures = undefined;
      return failure;
    }
    return undefined;
  };

  const answerFailure = (req: http.IncomingMessage, res: http.ServerResponse, failure: MockFailure): number => {
    if (failure.drop) {
      req.socket.destroy();
      return 0;
    }
    const status = failure.status ?? 503;
    const headers: Record<string, string> = {};
    if (failure.retryAfter !== undefined) headers['retry-after'] = String(failure.retryAfter);
    if (failure.body === undefined) {
      sendProblem(res, status, http.STATUS_CODES[status] ?? 'Error', 'failure injected by the mock core', headers);
    } else if (typeof failure.body === 'string') {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
      res.end(failure.body);
    } else {
      sendJson(res, status, failure.body, headers);
    }
    return status;
  };

  /** null when the bearer token is good, else the 401 detail. */
  const bearerProblem = (req: http.IncomingMessage): string | null => {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) return 'an Authorization: Bearer <token> header is required';
    const until = tokens.get(m[1]);
    if (until === undefined) return 'the access token is unknown or was revoked';
    if (until <= Date.now()) return 'the access token has expired';
    return null;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://mock-core');
    const method = (req.method ?? 'GET').toUpperCase();
    let path = url.pathname;
    received.requestCount++;
    const record: MockRequest = {
      method, path, query: queryObject(url.searchParams), body: undefined, headers: redactHeaders(req.headers), status: 0, at: new Date().toISOString(),
    };
    keep(received.requests, record);
    const answer = (status: number): void => {
      record.status = status;
    };

    if (prefix) {
      if (path !== prefix && !path.startsWith(`${prefix}/`)) {
        answer(404);
        return sendProblem(res, 404, 'Not Found', `this core is served under ${prefix}`);
      }
      path = path.slice(prefix.length) || '/';
      record.path = path;
    }
    if (path !== V2 && !path.startsWith(`${V2}/`)) {
      answer(404);
      return sendProblem(res, 404, 'Not Found', `no route for ${path}`);
    }

    const raw = await readRaw(req, maxBodyBytes);
    if (raw === 'too-large') {
      answer(413);
      return sendProblem(res, 413, 'Payload Too Large', `the body is larger than ${maxBodyBytes} bytes`, { connection: 'close' });
    }
    let body: unknown = null;
    if (raw.length > 0) {
      const text = raw.toString('utf8');
      const type = req.headers['content-type'] ?? '';
      if (/json/i.test(type) || type === '') {
        try {
          body = JSON.parse(text);
        } catch {
          if (/json/i.test(type)) {
            answer(400);
            return sendProblem(res, 400, 'Bad Request', 'the body is not valid JSON');
          }
          body = text;
        }
      } else {
        body = text;
      }
    }

    const isLogin = path === LOGIN;
    record.body = isLogin ? '(login body not recorded)' : body;
    const failure = takeFailure(isLogin);
    if (failure) return answer(answerFailure(req, res, failure));

    if (isLogin) {
      if (method !== 'POST') {
        answer(405);
        return sendProblem(res, 405, 'Method Not Allowed', 'sign in with POST', { allow: 'POST' });
      }
      const creds = body as { userName?: unknown; password?: unknown } | null;
      if (!creds || typeof creds !== 'object' || creds.userName !== userName || creds.password !== password) {
        received.failedLogins++;
        answer(401);
        return sendProblem(res, 401, 'Unauthorized', 'the user name or password is wrong');
      }
      received.logins++;
      const issued = issue();
      answer(200);
      return sendJson(res, 200, loginShape ? loginShape(issued) : { accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresIn: issued.expiresIn });
    }

    const denied = bearerProblem(req);
    if (denied) {
      received.unauthorized++;
      answer(401);
      return sendProblem(res, 401, 'Unauthorized', denied, { 'www-authenticate': 'Bearer error="invalid_token"' });
    }

    if (path === PLUGINS) {
      if (method !== 'GET') {
        answer(405);
        return sendProblem(res, 405, 'Method Not Allowed', 'use GET', { allow: 'GET' });
      }
      answer(200);
      return sendJson(res, 200, Array.isArray(plugins) ? { plugins } : plugins);
    }

    const pos = POS_BATCH.exec(path);
    if (pos) {
      if (method !== 'POST') {
        answer(405);
        return sendProblem(res, 405, 'Method Not Allowed', 'use POST', { allow: 'POST' });
      }
      const wrapped = body as { events?: unknown; transactions?: unknown } | null;
      const items = Array.isArray(body)
        ? body
        : wrapped && typeof wrapped === 'object' && Array.isArray(wrapped.events)
          ? wrapped.events
          : wrapped && typeof wrapped === 'object' && Array.isArray(wrapped.transactions)
            ? wrapped.transactions
            : undefined;
      if (!items) {
        answer(400);
        return sendProblem(res, 400, 'Bad Request', 'send a JSON array of POS transactions, or {"events": [...]} or {"transactions": [...]}');
      }
      received.batchCount++;
      received.itemCount += items.length;
      keep(received.batches, { posId: decodeURIComponent(pos[1]), items, headers: redactHeaders(req.headers), at: record.at });
      answer(200);
      return sendJson(res, 200, { accepted: items.length });
    }

    answer(200);
    return sendJson(res, 200, { method, path, query: record.query, body });
  };

  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendProblem(res, 500, 'Internal Server Error', (err as Error)?.message ?? String(err));
      else res.destroy();
    });
  };
  return {
    handler: listener,
    prefix,
    received,
    failNext(n: number, failure: MockFailure = {}) {
      failures = n > 0 ? { left: n, failure } : undefined;
    },
    expireTokens() {
      tokens.clear();
    },
    setTokenTtl(ms: number) {
      tokenTtlMs = ms;
    },
    setLoginBody(shape) {
      loginShape = shape;
    },
    setPlugins(value: unknown) {
      plugins = value;
    },
    reset() {
      Object.assign(received, { logins: 0, failedLogins: 0, batchCount: 0, itemCount: 0, requestCount: 0, unauthorized: 0 });
      received.batches.length = 0;
      received.requests.length = 0;
      failures = undefined;
    },
  };
}

/** Starts the mock core on a server of its own (HTTPS when `tls` is given).
 *  Resolves once it listens. */
export async function startMockCore(options: MockCoreOptions = {}): Promise<MockCore> {
  const { handler, ...controls } = createMockCore(options);
  const server: http.Server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler) : http.createServer(handler);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  let closed = false;
  return {
    ...controls,
    url: `${options.tls ? 'https' : 'http'}://${hostInUrl}:${port}${controls.prefix}`,
    port,
    async close() {
      if (closed) return;
      closed = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
