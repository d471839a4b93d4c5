/**
 * detection-monitor: the operator's view, turned on from the editor. While
 * deployed it serves, on Node-RED's own server (httpNode), Prometheus
 * metrics of every receiver, dedupe and push node of the process
 * (lib/metrics/prometheus.ts, a private registry) behind a credential, and
 * the health answers a load balancer or a probe asks: liveness and
 * readiness, for one receiver or overall by the policy set here (any, all,
 * or the receivers named: lib/metrics/health.ts). One monitor per path: a
 * second one on the same path stays red.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeAPI, NodeDef } from 'node-red';
import { nodeOptions, type SavedOptions } from '../../lib/config';
import {
  checkCredential,
  createMetricsExporter,
  hasCredential,
  liveness,
  metricSources,
  readiness,
  readinessPolicy,
  type HealthAnswer,
  type MonitorCredential,
} from '../../lib/metrics';
import { problem, sendProblem } from '../../lib/http';
import { nodeText, statusText } from '../shared/i18n';
import { describeNode } from '../shared/notify';
import { registerNode } from '../shared/register';
import { normalizeNodePath, routeKey, type ExpressApp } from '../shared/routes';

interface DetectionMonitorDef extends NodeDef, SavedOptions<'detection-monitor'> {
  metricsPath?: string;
  healthPath?: string;
  /** Ready when "named": the receivers' paths (text: new lines, commas or spaces between them). */
  readyPaths?: string;
}

type Next = (err?: unknown) => void;
type Middleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/** A path the dialog accepts: one segment at least, no spaces, query or fragment. */
function pathProblem(path: string): boolean {
  return path === '/' || !/^\/[^\s?#]+$/.test(path);
}

/** Puts `fn` on `app` below `path` (any method; it calls next() for what is not its own); returns its removal. */
function mount(app: ExpressApp, path: string, fn: Middleware): () => void {
  (app as unknown as { use(path: string, fn: Middleware): void }).use(path, fn);
  return () => {
    const router = app._router ?? app.router;
    if (!router) return;
    const index = router.stack.findIndex((layer) => layer.handle === fn);
    if (index >= 0) router.stack.splice(index, 1);
  };
}

/** The part of the URL below the mount path, without the query: '' or '/' is the path itself. */
function restOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rest = q < 0 ? url : url.slice(0, q);
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

function sendJson(res: ServerResponse, answer: HealthAnswer, head: boolean): void {
  const body = JSON.stringify(answer.body);
  res.statusCode = answer.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(head ? undefined : body);
}

export = function register(RED: NodeAPI): void {
  /** Path key → the monitor that serves it (one per path, across every flow). */
  const owners = new Map<string, string>();
  const app = RED.httpNode as unknown as ExpressApp;

  registerNode<DetectionMonitorDef, MonitorCredential>(
    RED,
    'detection-monitor',
    (node, config) => {
      const t = nodeText(RED, 'detection-monitor');
      const s = statusText(RED, 'detection-monitor');
      const options = nodeOptions('detection-monitor', config);
      const credential: MonitorCredential = { ...(node.credentials ?? {}) };
      const protectedBy = hasCredential(credential);
      const metricsPath = normalizeNodePath(config.metricsPath ?? '/detection-bridge/metrics');
      const healthPath = normalizeNodePath(config.healthPath ?? '/detection-bridge/health').replace(/\/+$/, '');
      const removals: Array<() => void> = [];
      const claimed: string[] = [];
      const stop = (): void => {
        for (const remove of removals.splice(0)) remove();
        for (const key of claimed.splice(0)) if (owners.get(key) === node.id) owners.delete(key);
      };
      node.on('close', stop);

      /** Cannot serve: why in a few words under the node, in full in the log. */
      const fail = (status: string, message: string): void => {
        stop();
        node.status({ fill: 'red', shape: 'ring', text: status });
        node.error(message);
      };
      if (!options.metrics && !options.health) {
        node.status({ fill: 'grey', shape: 'ring', text: s('status.off') });
        return;
      }
      if (options.metrics && pathProblem(metricsPath)) return fail(s('status.bad-path'), t('errors.path', { path: metricsPath }));
      if (options.health && pathProblem(healthPath)) return fail(s('status.bad-path'), t('errors.path', { path: healthPath }));
      if (options.metrics && options.health && routeKey(metricsPath).startsWith(`${routeKey(healthPath)}/`)) {
        return fail(s('status.bad-path'), t('errors.overlap', { metrics: metricsPath, health: healthPath }));
      }
      // Metrics say how busy a site is and what fails there: never to anyone, unless the user ticked it.
      if (options.metrics && !protectedBy && !options.metricsOpen) return fail(s('status.no-credential'), t('errors.no-credential'));
      if (options.healthAuth && !protectedBy) return fail(s('status.no-credential'), t('errors.no-health-credential'));
      // A named list the dialog marks (none, or an entry that is no path) would answer for receivers nobody meant.
      const policy = readinessPolicy(options.readyWhen, config.readyPaths);
      if (options.health && 'problem' in policy) {
        const { problem } = policy;
        const message = 'entry' in problem ? t('errors.ready-path', { path: problem.entry }) : t('errors.ready-paths-empty');
        return fail(s('status.bad-ready-paths'), message);
      }

      const full = (path: string): string => routeKey(`${app.path()}${path}`);
      for (const path of [options.metrics ? metricsPath : undefined, options.health ? healthPath : undefined]) {
        if (path === undefined) continue;
        const key = full(path);
        const owner = owners.get(key);
        if (owner !== undefined && owner !== node.id) {
          const other = describeNode(RED, owner, 'detection-monitor');
          return fail(s('status.path-in-use', other), t('errors.path-in-use', { path, ...other }));
        }
        owners.set(key, node.id);
        claimed.push(key);
      }

      /** Whether the request may be answered; when not, answered 401 here. */
      const allowed = (req: IncomingMessage, res: ServerResponse, realm: string): boolean => {
        const checked = checkCredential(credential, req.headers, realm);
        if (checked.ok) return true;
        sendProblem(res, problem('unauthorized', t('errors.unauthorized')), { headers: { 'WWW-Authenticate': checked.challenge } });
        return false;
      };
      /** GET and HEAD only; others answered 405 here. */
      const readOnly = (req: IncomingMessage, res: ServerResponse): boolean => {
        if (req.method === 'GET' || req.method === 'HEAD') return true;
        sendProblem(res, problem('methodNotAllowed', t('errors.method', { method: String(req.method) })), { headers: { Allow: 'GET, HEAD' } });
        return false;
      };
      const served: string[] = [];

      if (options.metrics) {
        // RED.version: a function in Node-RED, absent in node-red-node-test-helper's RED.
        const exporter = createMetricsExporter(metricSources, { nodeRedVersion: typeof RED.version === 'function' ? RED.version() : undefined });
        removals.push(
          mount(app, metricsPath, (req, res, next) => {
            const rest = restOf(req);
            if (rest !== '/' && rest !== '') return next();
            if (!readOnly(req, res)) return;
            if (protectedBy && !allowed(req, res, 'detection-bridge metrics')) return;
            exporter.scrape().then(
              ({ contentType, body }) => {
                res.statusCode = 200;
                res.setHeader('Content-Type', contentType);
                res.setHeader('Cache-Control', 'no-store');
                res.end(req.method === 'HEAD' ? undefined : body);
              },
              (err: Error) => {
                node.error(t('errors.internal', { message: err.message }));
                sendProblem(res, problem('internal', err.message));
              },
            );
          }),
        );
        served.push(t(protectedBy ? 'status.metrics' : 'status.metrics-open', { path: metricsPath }));
      }

      if (options.health) {
        const texts = {
          describe: (p: { code: string; detail?: string }) => t(`problems.${p.code}`, { detail: p.detail ?? '' }),
          none: t('problems.none'),
          unknown: t('problems.unknown'),
          missing: (path: string) => t('problems.missing', { path }),
        };
        const overall = 'policy' in policy ? policy.policy : undefined;
        removals.push(
          mount(app, healthPath, (req, res, next) => {
            const rest = restOf(req).replace(/\/+$/, '');
            const ready = rest === '/ready' ? '' : rest.startsWith('/ready/') ? rest.slice('/ready'.length) : undefined;
            if (rest !== '/live' && ready === undefined) return next();
            if (!readOnly(req, res)) return;
            if (options.healthAuth && !allowed(req, res, 'detection-bridge health')) return;
            const head = req.method === 'HEAD';
            if (rest === '/live') sendJson(res, liveness(), head);
            else sendJson(res, readiness(metricSources, ready === '' ? undefined : ready, texts, overall), head);
          }),
        );
        served.push(t('status.health', { path: healthPath, when: t(`status.ready-${options.readyWhen}`) }));
      }
      node.status({ fill: 'green', shape: 'dot', text: served.join(' · ') });
    },
    {
      credentials: {
        token: { type: 'password' },
        user: { type: 'text' },
        password: { type: 'password' },
      },
    },
  );
};
