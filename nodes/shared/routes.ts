/**
 * Route bookkeeping on Node-RED's `httpNode` Express app, for receivers that
 * read the request stream themselves.
 *
 * With Node-RED's default settings the editor/admin app and httpNode are both
 * mounted at `/`, and the admin app runs a JSON body parser (capped at
 * `apiMaxLength`, 5 MB) on every request before any node route sees it. That
 * parser would consume our stream (or refuse large bodies with its own error
 * page). The body guard is a middleware put at the top of the root app's stack
 * that marks requests to our paths as already parsed (`req._body`, which
 * body-parser honours) without reading them, so authentication still runs
 * before a byte of the body is read. Core `http in` solves the same problem
 * with its `rawBodyCapture` middleware.
 *
 * `Expect: 100-continue` on our paths is held back for the receiver, which
 * invites the body once the credentials are right (lib/http/continue.ts).
 * Node sends 100 Continue itself unless the server has a `checkContinue`
 * listener; ours does exactly what Node does for every other path, and is not
 * added when another package already listens.
 *
 * Receivers (detection-in) mount through mountReceiverRoute, on httpNode or
 * on a listener's own port, and hand a path over across a deploy through
 * receiverRoutes (lib/http/route-handover.ts).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { NodeAPI } from 'node-red';
import { deferContinue, type Listener, normalizeNodePath, pathnameOf, RouteHandover, routeKey, type RouteHandler } from '../../lib/http';

type Next = (err?: unknown) => void;
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

interface Layer {
  handle: unknown;
  route?: { path: string; stack: Array<{ handle: unknown }> };
}
interface Router {
  stack: Layer[];
}
/** The parts of an Express 4/5 application used here. */
export interface ExpressApp {
  (req: IncomingMessage, res: ServerResponse, next?: Next): void;
  use(fn: Middleware): unknown;
  all(path: string, ...handlers: Middleware[]): unknown;
  path(): string;
  parent?: ExpressApp;
  _router?: Router;
  router?: Router;
  lazyrouter?: () => void;
}

function routerOf(app: ExpressApp): Router | undefined {
  if (!app._router && typeof app.lazyrouter === 'function') app.lazyrouter();
  return app._router ?? app.router;
}

function rootOf(app: ExpressApp): ExpressApp {
  let root = app;
  while (root.parent) root = root.parent;
  return root;
}

// The route key, a typed path's normal form and a request's path are lib's (the dialogs run the same file).
export { normalizeNodePath, routeKey };

const guardedPaths = new WeakMap<ExpressApp, Set<string>>();

function guardFor(root: ExpressApp): Set<string> {
  const existing = guardedPaths.get(root);
  if (existing) return existing;
  const guarded = new Set<string>();
  guardedPaths.set(root, guarded);
  const bodyGuard: Middleware = (req, _res, next) => {
    if (guarded.size > 0 && req.method === 'POST' && guarded.has(routeKey(pathnameOf(req.url)))) {
      // body-parser skips a request whose body is marked as read; core http-in's
      // raw parser does the same with skipRawBodyParser.
      const marked = req as IncomingMessage & { _body?: boolean; skipRawBodyParser?: boolean };
      marked._body = true;
      marked.skipRawBodyParser = true;
    }
    next();
  };
  root.use(bodyGuard);
  const router = routerOf(root);
  if (router) {
    const index = router.stack.findIndex((layer) => layer.handle === bodyGuard);
    if (index > 0) router.stack.unshift(router.stack.splice(index, 1)[0]);
  }
  return guarded;
}

const continueServers = new WeakSet<Server>();

function holdContinue(server: Server | undefined, root: ExpressApp): void {
  if (!server || typeof server.listenerCount !== 'function' || continueServers.has(server)) return;
  if (server.listenerCount('checkContinue') > 0) return;
  continueServers.add(server);
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const guarded = guardedPaths.get(root);
    if (guarded && req.method === 'POST' && guarded.has(routeKey(pathnameOf(req.url)))) deferContinue(req);
    else res.writeContinue();
    server.emit('request', req, res);
  });
}

export interface MountedRoute {
  /** The full path on the server, including httpNodeRoot. */
  fullPath: string;
  remove(): void;
}

/**
 * Mounts `handler` (after `middlewares`) for every method on `path` of the
 * httpNode app, and protects POST bodies on it from earlier body parsers;
 * `server` (RED.server) lets the receiver answer `Expect: 100-continue`.
 * `remove()` takes both away again, so a redeploy leaves no stale route.
 */
export function mountRoute(app: ExpressApp, path: string, middlewares: Middleware[], handler: Middleware, server?: Server): MountedRoute {
  const root = rootOf(app);
  holdContinue(server, root);
  const fullPath = `${app.path()}${path}`.replace(/\/{2,}/g, '/');
  const key = routeKey(fullPath);
  const guarded = guardFor(root);
  guarded.add(key);
  app.all(path, ...middlewares, handler);
  let removed = false;
  return {
    fullPath,
    remove() {
      if (removed) return;
      removed = true;
      guarded.delete(key);
      removeRoutes(app, handler);
    },
  };
}

/** Takes the routes that end in `handler` off `app`. */
function removeRoutes(app: ExpressApp, handler: Middleware): void {
  const router = routerOf(app);
  if (!router) return;
  for (let i = router.stack.length - 1; i >= 0; i--) {
    const route = router.stack[i].route;
    if (route && route.stack.some((layer) => layer.handle === handler)) router.stack.splice(i, 1);
  }
}

/** Node-RED's httpNodeMiddleware, as a list. */
function nodeMiddlewares(RED: NodeAPI): Middleware[] {
  const configured = (RED.settings as unknown as Record<string, unknown>).httpNodeMiddleware;
  return (Array.isArray(configured) ? configured : configured ? [configured] : []) as Middleware[];
}

/** How long a request that arrives during a deploy waits for the receiver's successor, and how many may. */
const HOLD_MS = 10_000;
const HOLD_MAX = 64;

/**
 * The paths of one runtime's receivers and their hand-over across deploys;
 * `refuse` answers a request given up (too many held, waited too long, no
 * successor came). Paths no receiver came back to are let go once the flows
 * have started.
 */
export function receiverRoutes(RED: NodeAPI, refuse: RouteHandler): RouteHandover {
  const events = RED.events as unknown as { once(name: string, fn: () => void): void };
  return new RouteHandover({ maxPerKey: HOLD_MAX, maxWaitMs: HOLD_MS, refuse, afterStart: (sweep) => events.once('flows:started', sweep) });
}

/** A receiver's path as its key: unique on its listener (`listenerId`), else on httpNode, below httpNodeRoot. */
export function receiverRouteKey(RED: NodeAPI, path: string, listenerId?: string): string {
  if (listenerId) return `listener:${listenerId}:${routeKey(path)}`;
  return routeKey(`${(RED.httpNode as unknown as ExpressApp).path()}${path}`);
}

/** Mounts a receiver's `handler` on `path`: on `listener`'s own port, else on httpNode after Node-RED's httpNodeMiddleware. */
export function mountReceiverRoute(RED: NodeAPI, path: string, handler: RouteHandler, listener?: Listener): MountedRoute {
  if (listener) return { fullPath: path, ...listener.mount(path, handler) };
  const server = (RED as unknown as { server?: Server }).server;
  return mountRoute(RED.httpNode as unknown as ExpressApp, path, nodeMiddlewares(RED), (req, res) => handler(req, res), server);
}

/**
 * Mounts a page's `handler` on `<path>/<one segment>` (the segment a token
 * it reads from req.url): on `listener`'s own port, else on httpNode after
 * httpNodeMiddleware. Its POST bodies are small forms and not guarded from
 * the admin app's parsers: with both apps at `/`, the handler finds the form
 * already parsed in req.body.
 */
export function mountPageRoute(RED: NodeAPI, path: string, handler: RouteHandler, listener?: Listener): MountedRoute {
  if (listener) return { fullPath: path, ...listener.mount(path, handler, { below: true }) };
  const app = RED.httpNode as unknown as ExpressApp;
  const serve: Middleware = (req, res) => handler(req, res);
  app.all(`${path === '/' ? '' : path}/:token`, ...nodeMiddlewares(RED), serve);
  return { fullPath: `${app.path()}${path}`.replace(/\/{2,}/g, '/'), remove: () => removeRoutes(app, serve) };
}
