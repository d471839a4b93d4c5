/**
 * The events bridge's anonymous sample endpoints, served for real over HTTP(S):
 *
 *   GET {base}/api/v1/webhook-models/face   → 200, a WebHookFaceRecPayload example
 *   GET {base}/api/v1/webhook-models/lpr    → 200, a WebHookLprPayload example
 *
 * following the spec's six rules (see lib/bridge/sample.ts, which builds the bodies):
 * static but for `messageId` and timestamps, `serverContext` null, two-byte
 * filler images, `dateTimeUtc` now and history one hour apart, everything
 * populated, and no failure path: query strings, credentials and Accept
 * headers are ignored, the answer is always 200.
 *
 * With `enrollments` (enroll-server.ts), the enrollment endpoints are served
 * too, behind that store's JWT; with `webhooks` (webhooks-server.ts), the
 * WebHooks controller, behind its store's JWT. Every other `/api/v1/` path requires a JWT, as
 * the real bridge does: without `Authorization: Bearer <header.payload.signature>`
 * it answers 401 with a problem body; with one, 404 (not simulated).
 * Paths outside `/api/v1/` go to `fallback` when given (the hook where a mock
 * v2 core can share the port), else 404. Node-RED-free.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { problem, sendJson, sendProblem } from '../lib/http';
import { buildSampleEvent, sampleModelPath } from '../lib/bridge';
import type { EventKind } from '../lib/events';
import type { EnrollmentStore } from './enroll-server';
import type { WebHookStore } from './webhooks-server';
import { createSelfSignedCertificate } from './tls';

export const DEFAULT_SAMPLE_PORT = 5022;
export const DEFAULT_SAMPLE_HOST = '127.0.0.1';

export interface SampleServerTls {
  key: string | Buffer;
  cert: string | Buffer;
}

export interface SampleServerOptions {
  /** Default 5022 (the private bridge's port); 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Serve HTTPS: a key and certificate, or `'self-signed'` to make a
   *  throw-away certificate for the host, localhost, 127.0.0.1 and ::1. */
  tls?: SampleServerTls | 'self-signed';
  /** A path prefix, as the cloud bridge has (`/eventsbridge`). Default none. */
  basePath?: string;
  /** Handles requests outside `{basePath}/api/v1/` (hook for a mock v2 core). */
  fallback?: http.RequestListener;
  /** Serve the enrollment endpoints from this store (enroll-server.ts). */
  enrollments?: EnrollmentStore;
  /** Serve the WebHooks controller from this store (webhooks-server.ts). */
  webhooks?: WebHookStore;
  /** Called after each answered request (for logs). */
  onRequest?: (info: SampleRequestInfo) => void;
}

export interface SampleRequestInfo {
  method: string;
  path: string;
  status: number;
}

export interface SampleServer {
  /** `http(s)://host:port{basePath}`: the bridge's {base_url}. */
  url: string;
  port: number;
  host: string;
  server: http.Server | https.Server;
  /** SHA-256 fingerprint when serving a self-signed certificate made here. */
  fingerprint256?: string;
  /** The PEM certificate when made here (clients may pin it). */
  cert?: string;
  /** The store behind the enrollment endpoints, when served. */
  enrollments?: EnrollmentStore;
  /** The store behind the WebHooks controller, when served. */
  webhooks?: WebHookStore;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** `Bearer <something JWT-shaped>`: three base64url parts, the last may be
 *  empty (an unsigned token). Nothing is verified: the simulator has no keys. */
export function hasJwt(authorization: string | string[] | undefined): boolean {
  const value = Array.isArray(authorization) ? authorization[0] : authorization;
  if (!value) return false;
  const m = /^bearer\s+(\S+)\s*$/i.exec(value);
  return !!m && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(m[1]);
}

function normalizeBase(basePath: string | undefined): string {
  const trimmed = (basePath ?? '').trim().replace(/\/+$/, '');
  if (!trimmed) return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

const SAMPLE_ROUTE = /^\/api\/v1\/webhook-models\/(face|lpr)\/?$/i;

/** The request handler alone, for mounting in another server. */
export function sampleRequestHandler(
  options: Pick<SampleServerOptions, 'basePath' | 'fallback' | 'onRequest' | 'enrollments' | 'webhooks'> = {},
): http.RequestListener {
  const base = normalizeBase(options.basePath);
  return (req, res) => {
    const method = (req.method ?? 'GET').toUpperCase();
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://sim.invalid').pathname;
    } catch {
      path = '/';
    }
    if (options.onRequest) {
      res.once('finish', () => options.onRequest?.({ method, path, status: res.statusCode }));
    }
    // Sample endpoints and JWT-guarded bridge APIs live below {base}/api/v1/.
    const inBase = base === '' || path === base || path.startsWith(`${base}/`);
    const local = inBase ? path.slice(base.length) || '/' : path;
    const isApi = inBase && (local === '/api/v1' || local.toLowerCase().startsWith('/api/v1/'));
    if (!isApi) {
      if (options.fallback) {
        options.fallback(req, res);
        return;
      }
      if (inBase && local === '/' && (method === 'GET' || method === 'HEAD')) {
        const endpoints = (['face', 'lpr'] as EventKind[]).map((k) => `${base}${sampleModelPath(k)}`);
        sendJson(res, 200, { service: 'detection-bridge-sim (events bridge sample endpoints)', endpoints }, { head: method === 'HEAD' });
        return;
      }
      const detail = `nothing at ${path}; the sample endpoints are ${base}${sampleModelPath('face')} and ${base}${sampleModelPath('lpr')}`;
      sendProblem(res, problem('notFound', detail), { head: method === 'HEAD' });
      return;
    }
    const sample = SAMPLE_ROUTE.exec(local);
    if (sample) {
      if (method !== 'GET' && method !== 'HEAD') {
        const detail = `${base}${sampleModelPath(sample[1].toLowerCase() as EventKind)} answers GET only`;
        sendProblem(res, problem('methodNotAllowed', detail), { headers: { allow: 'GET, HEAD' } });
        return;
      }
      // Anonymous: credentials, query and Accept are ignored; always 200.
      const kind = sample[1].toLowerCase() as EventKind;
      sendJson(res, 200, buildSampleEvent(kind), { head: method === 'HEAD' });
      return;
    }
    if (options.enrollments?.handle(req, res, local)) return;
    if (options.webhooks?.handle(req, res, local)) return;
    if (!hasJwt(req.headers.authorization)) {
      const detail = `${path} requires a JWT: send "Authorization: Bearer <token>". Only ${base}/api/v1/webhook-models/{face,lpr} are anonymous.`;
      sendProblem(res, problem('unauthorized', detail), { headers: { 'www-authenticate': 'Bearer realm="events-bridge"' }, head: method === 'HEAD' });
      return;
    }
    const served = [options.enrollments && 'enrollment endpoints', options.webhooks && 'WebHooks controller'].filter(Boolean).join(' and ');
    const what = served ? `the sample endpoints and the ${served}` : 'the sample endpoints';
    sendProblem(res, problem('notFound', `${path} is not simulated; detection-bridge-sim serves only ${what}`), {
      head: method === 'HEAD',
    });
  };
}

/** Starts the sample endpoints on host:port and resolves once listening. */
export async function startSampleServer(options: SampleServerOptions = {}): Promise<SampleServer> {
  const host = options.host ?? DEFAULT_SAMPLE_HOST;
  const port = options.port ?? DEFAULT_SAMPLE_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`port must be an integer from 0 to 65535, got ${port}`);
  const handler = sampleRequestHandler(options);
  let server: http.Server | https.Server;
  let fingerprint256: string | undefined;
  let cert: string | undefined;
  if (options.tls) {
    let material: SampleServerTls;
    if (options.tls === 'self-signed') {
      const names = [...new Set([host, 'localhost', '127.0.0.1', '::1'].filter((n) => n && n !== '0.0.0.0' && n !== '::'))];
      const made = createSelfSignedCertificate({ names });
      material = made;
      fingerprint256 = made.fingerprint256;
      cert = made.cert;
    } else {
      material = options.tls;
    }
    server = https.createServer({ key: material.key, cert: material.cert }, handler);
  } else {
    server = http.createServer(handler);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' || host.includes(':') ? `[${address.address}]` : host;
  const url = `${options.tls ? 'https' : 'http'}://${urlHost}:${address.port}${normalizeBase(options.basePath)}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    host,
    server,
    fingerprint256,
    cert,
    enrollments: options.enrollments,
    webhooks: options.webhooks,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
