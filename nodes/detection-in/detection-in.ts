/**
 * detection-in: the HTTP endpoint the events bridge POSTs detections to.
 * A thin adapter: the receiving logic is lib/receiver.ts.
 */
import type { Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { reachableAddresses, webhookBase } from '../../lib/http/addresses';
import { authConfigProblem, type AuthConfig, type AuthMode } from '../../lib/receiver/auth';
import { createReceiver, MiB, type DeliveryMeta } from '../../lib/receiver/receiver';
import type { DetectionEvent } from '../../lib/events/schemas';
import { detectionView } from '../../lib/events/detection-view';
import { type ValidationMode } from '../../lib/receiver/validation';
import { createWarningGate } from '../../lib/receiver/warning-gate';
import { type AckMode } from '../../lib/delivery/tracker';
import { type FinishedWhen } from '../../lib/delivery/downstream';
import { openDelivery, type DeliverySettings, type ReceiverDelivery, type StoredMeta } from './delivery';
import { redisOf, withRedisState } from '../shared/redis';
import { problem, sendProblem } from '../../lib/http/problem';
import { HeldRequests } from '../../lib/http/held-requests';
import { discardRest } from '../../lib/http/linger';
import { nodeOptions } from '../../lib/config/node-options';
import { nodeText, translate, translator } from '../shared/i18n';
import { mountRoute, normalizeNodePath, routeKey, type ExpressApp, type MountedRoute, type Middleware } from '../shared/routes';
import { throttledStatus } from '../shared/status';
import { registerNode } from '../shared/register';
import { listenerOf } from '../detection-listener/listener-node';

interface DetectionInDef extends NodeDef {
  ackMode?: AckMode;
  maxInFlight?: number | string;
  maxInFlightMiB?: number | string;
  journalMaxMiB?: number | string;
  redeliverAfterSeconds?: number | string;
  /** When an event is finished: auto (a detection-done downstream marks it, else once emitted), handed, done. */
  finishedWhen?: FinishedWhen;
  /** redis mode: the detection-redis configuration node, the stream's caps, when to claim. */
  redis?: string;
  streamMaxEvents?: number | string;
  streamMaxMiB?: number | string;
  claimAfterSeconds?: number | string;
  path: string;
  /** The detection-listener configuration node whose port serves this receiver; none: Node-RED's own server. */
  listener?: string;
  auth: AuthMode;
  headerName: string;
  maxBodyMiB: number | string;
  validation?: ValidationMode;
  /** Before 0.2: 'reject' (the default then, now lenient) or 'accept'. */
  invalidEvents?: 'reject' | 'accept';
  stallSeconds?: number | string;
}

interface DetectionInCredentials {
  user?: string;
  password?: string;
  token?: string;
  headerValue?: string;
}

/** The namespace of this node's catalog in the editor: the package's name and the node set's. */
const CATALOG = 'node-red-contrib-detection-bridge/detection-in';

/** How long the editor shows a receiver's problem after a deploy. */
const NOTIFY_MS = 20_000;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** How long a request that arrives during a deploy waits for the receiver's successor, and how many may. */
const HOLD_MS = 10_000;
const HOLD_MAX = 64;

/** How long a closing receiver waits for requests under way. */
const CLOSE_WAIT_MS = 10_000;

/** Largest limit the dialog accepts; well above any detection event. */
const MAX_LIMIT_MIB = 512;

/** The status of a receiver whose credentials are incomplete, by the problem's key (lib/receiver/auth.ts). */
const AUTH_STATUS: Record<string, string> = {
  'auth.basic-user': 'status.needs-user',
  'auth.basic-password': 'status.needs-user',
  'auth.basic-colon': 'status.user-colon',
  'auth.bearer-token': 'status.needs-token',
  'auth.header-name': 'status.needs-header-name',
  'auth.header-value': 'status.needs-header-value',
};

export = function register(RED: NodeAPI): void {
  /** The label of flow (or subflow) `z`, as the editor shows it. */
  const flowLabel = (z: string | undefined): string => {
    let flow = z ?? '';
    RED.nodes.eachNode((n) => {
      const tab = n as NodeDef & { label?: string };
      if (tab.id === z && (tab.type === 'tab' || tab.type === 'subflow')) flow = tab.label || tab.name || tab.id;
    });
    return flow;
  };
  /** A node as the user knows it: its name (else its palette label) and its flow's label, never its id. */
  const describeNode = (id: string): { name: string; flow: string } => {
    const found = RED.nodes.getNode(id) as (Node & { name?: string; z?: string }) | null;
    return { name: found?.name || RED._('detection-in.paletteLabel'), flow: flowLabel(found?.z) };
  };

  /**
   * A problem the user must see after a deploy, not only as a red status: an
   * error notification in every open editor (and in one opened later: kept by
   * the runtime until the node is stopped), as Node-RED shows its own
   * runtime problems. It closes after a while or on a click (a notification
   * without a time cannot be closed, and the status and the log keep saying it). Sent as a key of this node's catalog, so each editor
   * shows it in its own language; the values are escaped, as the editor
   * shows the notification as HTML. `problem` null takes it away.
   */
  const notifyEditors = (nodeId: string, problem: { key: string; vars: Record<string, string> } | null): void => {
    const topic = `notification/detection-in-${nodeId}`;
    if (!problem) {
      RED.comms.publish(topic, {}, false);
      return;
    }
    const vars = Object.fromEntries(Object.entries(problem.vars).map(([k, v]) => [k, escapeHtml(v)]));
    RED.comms.publish(topic, { ...vars, text: `${CATALOG}:detection-in.${problem.key}`, type: 'error', timeout: NOTIFY_MS }, true);
  };

  // The WebHook address the dialog suggests: addresses of this machine another one
  // (the bridge) can use, not the host the browser happened to use.
  RED.httpAdmin.get('/detection-in/addresses', RED.auth.needsPermission('detection-in.read'), (_req, res) => {
    const settings = RED.settings as unknown as Record<string, unknown>;
    const server = (RED as unknown as { server?: Server }).server;
    const bound = server?.address();
    const listen = bound && typeof bound === 'object' ? bound : undefined;
    // A receiver on a listener: that port, scheme and address (?port=&https=&host= from its dialog).
    const own = Number(_req.query.port);
    const onListener = Number.isInteger(own) && own > 0 && own < 65536;
    const port = onListener ? own : (listen?.port ?? Number(settings.uiPort ?? 1880));
    const https = onListener ? _req.query.https === 'true' : Boolean(settings.https);
    const host = onListener ? String(_req.query.host ?? '') : (listen?.address ?? (settings.uiHost as string | undefined));
    const found = reachableAddresses(networkInterfaces(), host);
    res.json({
      bases: found.addresses.map((address) => webhookBase({ https, address, port })),
      loopbackOnly: found.loopbackOnly,
      localOnly: found.localOnly,
      https,
      root: settings.httpNodeRoot === false ? false : typeof settings.httpNodeRoot === 'string' ? settings.httpNodeRoot : '/',
    });
  });

  /** routeKey → id of the node that owns it, for this runtime. */
  const owners = new Map<string, string>();
  /** routeKey → the route of a receiver stopped by a deploy, holding requests until its successor mounts. */
  const standby = new Map<string, MountedRoute>();
  // Between two deploys the bridge's requests wait for the next receiver on their path (bounded),
  // rather than a 503 that makes it send the same event again later.
  const held = new HeldRequests({
    maxPerKey: HOLD_MAX,
    maxWaitMs: HOLD_MS,
    refuse(req, res) {
      sendProblem(res, problem('unavailable', nodeText(RED, 'detection-in')('errors.deploying')), { headers: { 'Retry-After': '1' } });
      discardRest(req);
    },
  });
  // A path whose receiver did not come back (deleted, or moved to another path) is let
  // go once the flows have started; listened for only while a route is on standby.
  let cleanupArmed = false;
  const armStandbyCleanup = (): void => {
    if (cleanupArmed) return;
    cleanupArmed = true;
    (RED.events as unknown as { once(name: string, fn: () => void): void }).once('flows:started', () => {
      cleanupArmed = false;
      for (const [key, route] of standby) {
        if (!owners.has(key)) route.remove();
        standby.delete(key);
      }
      // No receiver came back on these paths (deleted, moved, or it could not start).
      for (const key of held.keys()) if (!owners.has(key)) held.refuseAll(key);
    });
  };

  registerNode<DetectionInDef>(
    RED,
    'detection-in',
    (node, config) => {
      const creds = (node.credentials ?? {}) as DetectionInCredentials;
      const t = nodeText(RED, 'detection-in');
      const options = nodeOptions(
        'detection-in',
        // A flow saved before validation modes keeps "accept"; its "reject" was the
        // default then and becomes today's default, lenient.
        { ...config, validation: config.validation ?? (config.invalidEvents === 'accept' ? 'accept' : undefined) },
      );

      /** Cannot start: why in a few words under the node, the whole reason in the log. */
      const fail = (status: string, message: string): void => {
        node.status({ fill: 'red', shape: 'ring', text: status });
        node.error(message);
      };

      const settings = RED.settings as unknown as Record<string, unknown>;
      // Node-RED's HTTP nodes switched off: a receiver on its own listener still works.
      if (settings.httpNodeRoot === false && !config.listener) {
        fail(t('status.http-disabled'), t('errors.http-disabled'));
        return;
      }

      const path = normalizeNodePath(config.path);
      if (path === '/') {
        fail(t('status.no-path'), t('errors.path-missing'));
        return;
      }
      const auth: AuthConfig = {
        mode: options.auth,
        user: creds.user,
        password: creds.password,
        token: creds.token,
        headerName: (config.headerName || '').trim(),
        headerValue: creds.headerValue,
      };
      const authProblem = authConfigProblem(auth);
      if (authProblem) {
        fail(t(AUTH_STATUS[authProblem.key] ?? 'status.credentials'), t('errors.auth-config', { problem: translate(RED, authProblem) }));
        return;
      }
      const maxBodyBytes = Math.round(Math.min(options.maxBodyMiB, MAX_LIMIT_MIB) * MiB);

      const app = RED.httpNode as unknown as ExpressApp;
      // On a listener the path is its own (no httpNodeRoot), and unique on that listener only.
      const chosen = config.listener ? listenerOf(RED, config.listener) : undefined;
      if (config.listener && (chosen === undefined || typeof chosen === 'string')) {
        fail(t('status.no-listener'), chosen ?? t('errors.listener-missing'));
        return;
      }
      const door = typeof chosen === 'object' ? chosen : undefined;
      const key = door ? `listener:${config.listener}:${routeKey(path)}` : routeKey(`${app.path()}${path}`);
      const owner = owners.get(key);
      if (owner && owner !== node.id) {
        const other = describeNode(owner);
        fail(t('status.path-in-use', other), t('errors.path-in-use', { path, ...other }));
        // Deploy says "Successfully deployed": say at once that this receiver is not listening.
        const self = { name: config.name || RED._('detection-in.paletteLabel'), flow: flowLabel(config.z) };
        notifyEditors(node.id, { key: 'notify.path-in-use', vars: { path, ...self, other: other.name, otherFlow: other.flow } });
        node.on('close', () => notifyEditors(node.id, null));
        return;
      }
      owners.set(key, node.id);

      // redis mode: the shared connection of the chosen configuration node.
      let redis: DeliverySettings['redis'];
      if (options.ackMode === 'redis') {
        const connection = redisOf(RED, config.redis);
        if (!connection) {
          fail(t('status.no-redis'), t('errors.redis-missing'));
          owners.delete(key);
          return;
        }
        redis = {
          connection,
          name: path,
          streamMaxEvents: options.streamMaxEvents,
          streamMaxBytes: options.streamMaxMiB * MiB,
          claimAfterMs: options.claimAfterSeconds * 1000,
        };
      }

      const counts = { received: 0, warned: 0, rejected: 0, invalid: 0 };
      let delivery: ReceiverDelivery | undefined;
      const showStatus = throttledStatus(node, () => {
        const problems = counts.rejected + counts.invalid;
        const params = { path, received: counts.received, warned: counts.warned, rejected: problems };
        let text = t(counts.warned > 0 ? 'status.counts-warned' : 'status.counts', params);
        const tracker = delivery?.tracker;
        // Held for a detection-done that none downstream will ever send: say so, in yellow.
        const noDone = delivery?.completion.noDoneWired === true;
        if (noDone) text += t('status.no-done');
        if (tracker && (tracker.awaitCompletion || tracker.mode === 'disk')) text += t('status.pending', { pending: tracker.pending.events });
        if (tracker?.mode === 'disk') text += t('status.journal', { size: +(tracker.journalBytes / MiB).toFixed(1) });
        if (redis) {
          const state = withRedisState(RED, redis.connection, text);
          return noDone && state.fill === 'green' ? { ...state, fill: 'yellow' } : state;
        }
        return {
          fill: noDone || (problems > 0 && counts.received === 0) ? 'yellow' : 'green',
          shape: 'dot',
          text,
        };
      });
      const unwatchRedis = redis?.connection.use(() => showStatus());
      const warningGate = createWarningGate();
      node.status({ fill: 'green', shape: 'ring', text: t('status.listening', { path }) });

      const contract = (meta: DeliveryMeta): Pick<NodeMessage, never> & Record<string, unknown> => ({
        receivedAt: meta.receivedAt,
        req: { ip: meta.ip, headers: meta.headers },
      });

      let closing = false;
      /** Set once the store of events in flight is closed: nothing more can be taken. */
      let deliveryClosed = false;
      /** Sends an event on output 1 (again, when `redelivered`), tracked until finished. */
      const emitEvent = (eventValue: unknown, stored: Required<StoredMeta>, id: number | string | undefined, redelivered: boolean): void => {
        const tracker = delivery?.tracker;
        if (closing) {
          // The flow is being stopped: the next instance emits it.
          if (id !== undefined) tracker?.park(id);
          return;
        }
        const event = eventValue as DetectionEvent;
        const { kind, warnings, ...meta } = stored;
        if (redelivered) showStatus();
        else {
          counts.received++;
          if (warnings.length > 0) counts.warned++;
          showStatus();
        }
        const msg: Record<string, unknown> = {
          payload: event,
          topic: event.publishType,
          kind,
          messageId: event.payload?.messageId ?? undefined,
          resent: event.payload?.resentEvent,
          detection: detectionView(event, kind, Date.parse(meta.receivedAt)),
          ...contract(meta),
        };
        if (redelivered) msg.redelivered = true;
        if (id !== undefined) msg._delivery = { receiver: node.id, id };
        if (warnings.length > 0) {
          msg.warnings = warnings;
          // Once per place per minute in the debug sidebar, not once per event.
          for (const warning of warningGate.pass(warnings)) {
            node.warn(t('warnings.deviation', { path: warning.path, message: warning.message, messageId: String(msg.messageId ?? '-') }));
          }
        }
        node.send([msg as NodeMessage, null]);
        if (id !== undefined) tracker?.emitted(id);
      };

      // The counts replace "listening" once there is something to count, or a warning to show.
      let countsShown = false;
      const replanned = (): void => {
        const noDone = delivery?.completion.noDoneWired === true;
        if (noDone || countsShown || counts.received + counts.rejected + counts.invalid > 0) {
          countsShown = true;
          showStatus();
        }
      };

      let active = 0;
      const ready = openDelivery(
        RED,
        node,
        {
          mode: options.ackMode,
          maxEvents: options.maxInFlight,
          maxBytes: options.maxInFlightMiB * MiB,
          journalMaxBytes: options.journalMaxMiB * MiB,
          redeliverAfterMs: options.redeliverAfterSeconds * 1000,
          finishedWhen: options.finishedWhen,
          redis,
        },
        emitEvent,
        t,
        () => replanned(),
      ).then(
        (opened) => {
          delivery = opened;
          opened.tracker.onComplete = showStatus;
          replanned();
          return opened;
        },
        (err: Error) => {
          node.error(t('errors.delivery', { message: err.message }));
          return undefined;
        },
      );

      const receive = createReceiver(
        { auth, maxBodyBytes, validation: options.validation, stallMs: options.stallSeconds * 1000, translate: translator(RED) },
        {
          admit(declaredBytes) {
            delivery?.tracker.checkRoom(declaredBytes);
          },
          stage(body, meta) {
            // Not open yet (Node-RED starting): enqueue waits for it instead.
            if (!delivery) return undefined;
            // A request under way when a deploy began is still taken: close waits for it, and
            // what it emits meanwhile is parked for the next instance (emitEvent).
            if (deliveryClosed) throw new Error(t('errors.not-ready'));
            const staged = delivery.tracker.stage(meta, body);
            return {
              async commit(accepted) {
                accepted.deliveryId = await staged.commit({ ...accepted.meta, kind: accepted.kind, warnings: accepted.warnings }, accepted.event);
              },
              abandon: staged.abandon,
            };
          },
          async enqueue(accepted) {
            const opened = delivery ?? (await ready);
            if (!opened || deliveryClosed) throw new Error(t('errors.not-ready'));
            const stored: StoredMeta = { ...accepted.meta, kind: accepted.kind, warnings: accepted.warnings };
            accepted.deliveryId = await opened.tracker.take(stored, accepted.body, accepted.event);
          },
          emit({ event, kind, warnings, meta, deliveryId }) {
            emitEvent(event, { ...meta, kind, warnings }, deliveryId, false);
          },
          onInvalid({ value, errors, meta }) {
            counts.invalid++;
            showStatus();
            const publishType = (value as { publishType?: unknown } | null)?.publishType;
            const msg = {
              payload: value,
              topic: typeof publishType === 'string' ? publishType : undefined,
              errors,
              ...contract(meta),
            };
            node.send([null, msg as NodeMessage]);
          },
          onRejected(answer) {
            if (answer.status !== 422) counts.rejected++;
            showStatus();
            node.debug(`${answer.status} ${answer.title}: ${answer.detail}`);
          },
        },
      );

      // Errors here are bugs, never user input: answer 500 and report, never crash.
      const handler: Middleware = (req, res) => {
        if (closing) {
          // Between two deploys: held, unread, for the next receiver on this path.
          held.hold(key, req, res);
          return;
        }
        active++;
        receive(req, res)
          .catch((err: Error) => {
            node.error(t('errors.internal', { message: err.message }));
            sendProblem(res, problem('internal', err.message), { close: true });
          })
          .finally(() => active--);
      };

      const configured = settings.httpNodeMiddleware;
      const middlewares = (Array.isArray(configured) ? configured : configured ? [configured] : []) as Middleware[];
      standby.get(key)?.remove();
      standby.delete(key);
      held.release(key, (req, res) => handler(req, res, () => undefined));
      let route: MountedRoute | undefined = door
        ? { fullPath: path, ...door.mount(path, (req, res) => handler(req, res, () => undefined)) }
        : mountRoute(app, path, middlewares, handler, (RED as unknown as { server?: Server }).server);
      // A listener that cannot open its port: red under this receiver too (the listener logs why).
      const showDoor = (state: string): void => {
        if (state === 'failed') node.status({ fill: 'red', shape: 'ring', text: t('status.listener-failed', { port: door?.options.port ?? '' }) });
        if (state === 'listening') node.status({ fill: 'green', shape: 'ring', text: t('status.listening', { path }) });
      };
      door?.on('state', showDoor);
      if (door?.state === 'failed') showDoor('failed');

      node.on('close', (removed: boolean, done: () => void) => {
        // Take no new requests; let those under way finish (bounded), their events kept for the next instance.
        closing = true;
        unwatchRedis?.();
        door?.off('state', showDoor);
        if (removed || !route) route?.remove();
        else {
          standby.set(key, route);
          armStandbyCleanup();
        }
        route = undefined;
        if (owners.get(key) === node.id) owners.delete(key);
        node.status({});
        const started = Date.now();
        const finish = async (): Promise<void> => {
          while (active > 0 && Date.now() - started < CLOSE_WAIT_MS) await new Promise((resolve) => setTimeout(resolve, 20));
          const opened = delivery ?? (await ready);
          deliveryClosed = true;
          await opened?.close(removed);
        };
        finish().then(
          () => done(),
          (err: Error) => {
            node.error(t('errors.delivery', { message: err.message }));
            done();
          },
        );
      });
    },
    {
      credentials: {
        user: { type: 'text' },
        password: { type: 'password' },
        token: { type: 'password' },
        headerValue: { type: 'password' },
      },
    },
  );
};
