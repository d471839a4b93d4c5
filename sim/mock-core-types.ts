/** What the mock v2 core takes, records and returns (mock-core.ts has the routes). */
import type http from 'node:http';
import type { Clock } from '../lib/core';

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
  /** Documents answered to a signed-in GET of their path below the prefix (an OpenAPI file, say). */
  documents?: Record<string, unknown>;
  /** Request body cap. Default 50 MiB (413 above). */
  maxBodyBytes?: number;
  /** The time tokens are issued and expire by, and requests are stamped with. Default the system clock;
   *  a test gives a fake one and moves it instead of waiting for a token to expire. */
  clock?: Clock;
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
