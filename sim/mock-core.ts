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
 * - GET of a path in `documents` (bearer): that document.
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
import { systemClock } from '../lib/core';
import { problem, sendJson, sendProblem } from '../lib/http';

import {
  DEFAULT_MOCK_PLUGINS,
  type MockTokens,
  type MockCore,
  type MockCoreOptions,
  type MockCoreRoutes,
  type MockFailure,
  type MockReceived,
  type MockRequest,
} from './mock-core-types';

export { DEFAULT_MOCK_PLUGINS };
export type {
  MockBatch,
  MockCore,
  MockCoreOptions,
  MockCoreRoutes,
  MockFailure,
  MockPlugin,
  MockReceived,
  MockRequest,
  MockTokens,
} from './mock-core-types';

const V2 = '/api/v2';
const LOGIN = '/api/v2/auth/login';
const PLUGINS = '/api/v2/portal/installed-plugins';
const POS_BATCH = /^\/api\/v2\/pos\/plugins\/([^/]+)\/events\/batch$/;

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
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
  const clock = options.clock ?? systemClock;
  const secret = randomBytes(32);
  /** access token → expiry (epoch ms); bounded. */
  const tokens = new Map<string, number>();
  const MAX_TOKENS = 1000;
  let failures: { left: number; failure: MockFailure } | undefined;

  const received: MockReceived = {
    logins: 0,
    failedLogins: 0,
    batches: [],
    batchCount: 0,
    itemCount: 0,
    requests: [],
    requestCount: 0,
    unauthorized: 0,
  };
  const keep = <X>(list: X[], value: X): void => {
    if (maxRecorded === 0) return;
    list.push(value);
    if (list.length > maxRecorded) list.splice(0, list.length - maxRecorded);
  };

  const issue = (): MockTokens => {
    const now = clock.now();
    const exp = now + tokenTtlMs;
    const header = base64url({ alg: 'HS256', typ: 'JWT' });
    const payload = base64url({ sub: userName, iat: Math.floor(now / 1000), exp: Math.floor(exp / 1000), jti: randomUUID() });
    const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
    const accessToken = `${header}.${payload}.${signature}`;
    for (const [token, until] of tokens) if (until <= now) tokens.delete(token);
    while (tokens.size >= MAX_TOKENS) tokens.delete(tokens.keys().next().value as string);
    tokens.set(accessToken, exp);
    return {
      accessToken,
      refreshToken: randomBytes(24).toString('base64url'),
      expiresIn: Math.max(1, Math.round(tokenTtlMs / 1000)),
      expiresAt: new Date(exp).toISOString(),
    };
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
      const title = http.STATUS_CODES[status] ?? 'Error';
      sendProblem(res, { type: 'urn:detection-bridge:problem:injected', title, status, detail: 'failure injected by the mock core' }, { headers });
    } else if (typeof failure.body === 'string') {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
      res.end(failure.body);
    } else {
      sendJson(res, status, failure.body, { headers });
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
    if (until <= clock.now()) return 'the access token has expired';
    return null;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://mock-core');
    const method = (req.method ?? 'GET').toUpperCase();
    let path = url.pathname;
    received.requestCount++;
    const record: MockRequest = {
      method,
      path,
      query: queryObject(url.searchParams),
      body: undefined,
      headers: redactHeaders(req.headers),
      status: 0,
      at: new Date(clock.now()).toISOString(),
    };
    keep(received.requests, record);
    const answer = (status: number): void => {
      record.status = status;
    };

    if (prefix) {
      if (path !== prefix && !path.startsWith(`${prefix}/`)) {
        answer(404);
        return sendProblem(res, problem('notFound', `this core is served under ${prefix}`));
      }
      path = path.slice(prefix.length) || '/';
      record.path = path;
    }
    if (path !== V2 && !path.startsWith(`${V2}/`)) {
      answer(404);
      return sendProblem(res, problem('notFound', `no route for ${path}`));
    }

    const raw = await readRaw(req, maxBodyBytes);
    if (raw === 'too-large') {
      answer(413);
      return sendProblem(res, problem('payloadTooLarge', `the body is larger than ${maxBodyBytes} bytes`), { close: true });
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
            return sendProblem(res, problem('badRequest', 'the body is not valid JSON'));
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
        return sendProblem(res, problem('methodNotAllowed', 'sign in with POST'), { headers: { allow: 'POST' } });
      }
      const creds = body as { userName?: unknown; password?: unknown } | null;
      if (!creds || typeof creds !== 'object' || creds.userName !== userName || creds.password !== password) {
        received.failedLogins++;
        answer(401);
        return sendProblem(res, problem('unauthorized', 'the user name or password is wrong'));
      }
      received.logins++;
      const issued = issue();
      answer(200);
      return sendJson(
        res,
        200,
        loginShape ? loginShape(issued) : { accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresIn: issued.expiresIn },
      );
    }

    const denied = bearerProblem(req);
    if (denied) {
      received.unauthorized++;
      answer(401);
      return sendProblem(res, problem('unauthorized', denied), { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
    }

    const document = method === 'GET' && options.documents ? options.documents[path] : undefined;
    if (document !== undefined) {
      answer(200);
      return sendJson(res, 200, document);
    }

    if (path === PLUGINS) {
      if (method !== 'GET') {
        answer(405);
        return sendProblem(res, problem('methodNotAllowed', 'use GET'), { headers: { allow: 'GET' } });
      }
      answer(200);
      return sendJson(res, 200, Array.isArray(plugins) ? { plugins } : plugins);
    }

    const pos = POS_BATCH.exec(path);
    if (pos) {
      if (method !== 'POST') {
        answer(405);
        return sendProblem(res, problem('methodNotAllowed', 'use POST'), { headers: { allow: 'POST' } });
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
        return sendProblem(res, problem('badRequest', 'send a JSON array of POS transactions, or {"events": [...]} or {"transactions": [...]}'));
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
      if (!res.headersSent) sendProblem(res, problem('internal', (err as Error)?.message ?? String(err)));
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
  const server: http.Server = options.tls
    ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler)
    : http.createServer(handler);
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
