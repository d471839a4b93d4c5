/**
 * A receiver's own door: an HTTP or HTTPS server that serves the paths of the
 * receivers mounted on it and nothing else (no editor, no admin API), to
 * the client addresses of its allow-list only. Several receivers share one.
 *
 * A request from an address outside the allow-list gets 403, a path no
 * receiver has 404, both as problem answers, before a byte of the body is
 * read (and without `100 Continue`). A receiver's handler is called with the
 * request as Node gives it, its `Expect: 100-continue` held back for the
 * receiver (lib/http/continue.ts), as on Node-RED's own server.
 */
import { EventEmitter } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { deferContinue } from './continue';
import { discardRest } from './linger';
import type { AllowList } from './listener-allow';
import { problem, sendProblem } from './problem';
import { pathnameOf, routeKey } from './route-path';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ListenerTls {
  cert: string | Buffer;
  key: string | Buffer;
  /** PEM of the CAs client certificates must be signed by; with it, clients must present one. */
  clientCa?: string;
}

export interface ListenerOptions {
  /** Address to bind; empty: every interface (IPv6 and IPv4 where the system allows). */
  host?: string;
  /** 0 for any free port. */
  port: number;
  /** HTTPS with this certificate; plain HTTP without. */
  tls?: ListenerTls;
  /** Who may connect; every address when absent. */
  allow?: AllowList;
}

export type ListenerState = 'idle' | 'starting' | 'listening' | 'failed' | 'closed';

/** `/Hooks//a/` and `/hooks/a` name one route (case-insensitive, no trailing slash), as Express does (./route-path.ts). */
export const listenerRouteKey = routeKey;

export interface ListenerRoute {
  /** The path as mounted. */
  path: string;
  remove(): void;
}

/** How long closing waits for requests under way before cutting their connections. */
export const LISTENER_CLOSE_WAIT_MS = 10_000;

export class Listener extends EventEmitter {
  readonly server: Server;
  private readonly routes = new Map<string, RouteHandler>();
  /** Routes that serve one segment below their path (a page whose last segment is a token). */
  private readonly below = new Map<string, RouteHandler>();
  private stateNow: ListenerState = 'idle';
  private errorNow: (Error & { code?: string }) | undefined;
  private starting: Promise<void> | undefined;

  constructor(readonly options: ListenerOptions) {
    super();
    const tls = options.tls;
    this.server = tls
      ? createHttpsServer({
          cert: tls.cert,
          key: tls.key,
          ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
        })
      : createHttpServer();
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => this.handle(req, res, false));
    // Node would answer `100 Continue` to every request; here only one a receiver will read gets it, from the receiver.
    this.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => this.handle(req, res, true));
    // A failed TLS handshake (no or a wrong client certificate) is the client's problem, not ours.
    this.server.on('tlsClientError', () => undefined);
    this.server.on('clientError', (_err: Error, socket: { destroy(): void }) => socket.destroy());
  }

  get state(): ListenerState {
    return this.stateNow;
  }

  /** Why it could not listen (`code` EADDRINUSE, EACCES, …), when `state` is failed. */
  get error(): (Error & { code?: string }) | undefined {
    return this.errorNow;
  }

  get https(): boolean {
    return Boolean(this.options.tls);
  }

  /** The port it listens on (the one given, or the one the system chose for 0). */
  get port(): number | undefined {
    const address = this.server.address() as AddressInfo | null;
    return address?.port;
  }

  /** The receivers' paths, as mounted. */
  get paths(): string[] {
    return [...this.routes.keys()];
  }

  /** Whether a receiver serves `path` here. */
  has(path: string): boolean {
    return this.routes.has(listenerRouteKey(path));
  }

  /**
   * Serves `path` with `handler` (with `below`: every `<path>/<segment>`
   * instead, one segment deeper); throws when another receiver already serves it.
   */
  mount(path: string, handler: RouteHandler, options: { below?: boolean } = {}): ListenerRoute {
    const key = listenerRouteKey(path);
    const routes = options.below ? this.below : this.routes;
    if (routes.has(key)) throw Object.assign(new Error(`${path} is already served on this listener`), { code: 'ERR_PATH_IN_USE' });
    routes.set(key, handler);
    return {
      path,
      remove: () => {
        if (routes.get(key) === handler) routes.delete(key);
      },
    };
  }

  /** Starts listening (once); resolves when it listens, rejects with the system's error. */
  start(): Promise<void> {
    if (this.starting) return this.starting;
    this.stateNow = 'starting';
    this.emit('state', this.stateNow);
    this.starting = new Promise<void>((resolve, reject) => {
      const onError = (err: Error & { code?: string }): void => {
        this.server.off('listening', onListening);
        this.errorNow = err;
        this.stateNow = 'failed';
        this.emit('state', this.stateNow);
        reject(err);
      };
      const onListening = (): void => {
        this.server.off('error', onError);
        this.stateNow = 'listening';
        this.emit('state', this.stateNow);
        resolve();
      };
      this.server.once('error', onError);
      this.server.once('listening', onListening);
      const host = (this.options.host ?? '').trim();
      this.server.listen({ port: this.options.port, ...(host ? { host } : {}) });
    });
    // The state event carries the failure; a caller that does not wait must not crash the process.
    this.starting.catch(() => undefined);
    return this.starting;
  }

  /** Stops taking connections; requests under way get `waitMs` to finish, then are cut. */
  async close(waitMs = LISTENER_CLOSE_WAIT_MS): Promise<void> {
    this.stateNow = 'closed';
    this.emit('state', this.stateNow);
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.server.closeAllConnections(), waitMs);
      timer.unref();
      this.server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      this.server.closeIdleConnections();
    });
  }

  /** A refusal before the body: a client waiting for `100 Continue` never sends it, so the connection closes; another's body is read and dropped (lib/http/linger.ts). */
  private refuse(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean, answer: ReturnType<typeof problem>): void {
    sendProblem(res, answer, { close: expectsContinue, head: req.method === 'HEAD' });
    if (!expectsContinue) discardRest(req);
  }

  private handle(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void {
    const allow = this.options.allow;
    if (allow && !allow.allows(req.socket.remoteAddress)) {
      this.refuse(req, res, expectsContinue, problem('forbidden', `${req.socket.remoteAddress ?? 'this address'} may not send to this receiver`));
      return;
    }
    const key = listenerRouteKey(pathnameOf(req.url));
    const handler = this.routes.get(key) ?? this.below.get(key.slice(0, key.lastIndexOf('/')) || '/');
    if (!handler) {
      this.refuse(req, res, expectsContinue, problem('notFound', 'no receiver at this path'));
      return;
    }
    if (expectsContinue) deferContinue(req);
    handler(req, res);
  }
}
