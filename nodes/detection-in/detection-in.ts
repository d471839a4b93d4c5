/**
 * detection-in: the HTTP endpoint the events bridge POSTs detections to.
 * A thin adapter: receiving is lib/receiver/receiver.ts, the message
 * lib/events/message.ts, keeping events until finished ./delivery.ts, the
 * path and its hand-over across deploys ../shared/routes.ts.
 */
import type { NodeAPI, NodeMessage } from 'node-red';
import { createReceiver, type AcceptedDelivery, type DeliveryMeta, createWarningGate } from '../../lib/receiver';
import { eventMessage, invalidEventMessage, type EventMessage, type Receipt } from '../../lib/events';
import { type FailureNotice, trackerOf } from '../../lib/delivery';
import { problem, sendProblem, discardRest, type RouteHandler } from '../../lib/http';
import { nodeOptions } from '../../lib/config';
import { nodeText, translator } from '../shared/i18n';
import { registerNode } from '../shared/register';
import { mountReceiverRoute, receiverRouteKey, receiverRoutes } from '../shared/routes';
import { serveAddresses } from './addresses';
import { journalPath, openDelivery, type EmitMeta, type ReceiverDelivery, type StoredMeta } from './delivery';
import { deliverySettings, listenSettings, type DetectionInCredentials, type DetectionInDef } from './settings';
import { receiverStatus, showPathInUse } from './status';
import { serveDeadLetters } from './dead-letters';
import { receiverMetrics } from './metrics';

/** How long a closing receiver waits for requests under way. */
const CLOSE_WAIT_MS = 10_000;
/** A receiver whose disk is full warns at most this often. */
const DISK_FULL_WARN_MS = 60_000;

export = function register(RED: NodeAPI): void {
  serveAddresses(RED);
  serveDeadLetters(RED);
  // Between two deploys the bridge's requests wait for the next receiver on their path (bounded),
  // rather than a 503 that makes it send the same event again later.
  const routes = receiverRoutes(RED, (req, res) => {
    sendProblem(res, problem('unavailable', nodeText(RED, 'detection-in')('errors.deploying')), { headers: { 'Retry-After': '1' } });
    discardRest(req);
  });

  /** Resolves at the next `flows:started`: every deploy, and Node-RED's start, ends in one. */
  const flowsStarted = (red: NodeAPI): Promise<void> =>
    new Promise((resolve) => (red.events as unknown as { once(name: string, fn: () => void): void }).once('flows:started', () => resolve()));

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

      const listen = listenSettings(RED, config, creds, options, t);
      if ('problem' in listen) {
        fail(listen.status, listen.problem);
        return;
      }
      const { path, auth, maxBodyBytes, listener: door } = listen;
      const key = receiverRouteKey(RED, path, door && config.listener);
      const owner = routes.claim(key, node.id);
      if (owner) {
        showPathInUse(RED, node, config, path, owner, t);
        return;
      }
      // An operator's view (detection-monitor), by the configured path (on a listener: its port too).
      const metrics = receiverMetrics(node, door ? `:${door.options.port}${path}` : path, trackerOf(node.id));
      const settings = deliverySettings(RED, config, options, path, t);
      if ('problem' in settings) {
        metrics.problem = settings.problem;
        fail(settings.status, settings.problem);
        routes.unclaim(key, node.id);
        return;
      }
      const redis = settings.redis;

      let delivery: ReceiverDelivery | undefined;
      const status = receiverStatus(RED, node, t, path, redis?.connection);
      const { counts, show: showStatus } = status;
      const unwatchRedis = redis?.connection.use(() => showStatus());
      const warningGate = createWarningGate();
      metrics.attach({ status, redis: redis?.connection, listenerFailed: () => door?.state === 'failed' });
      status.listener('listening');

      /** The meta kept with an accepted event; its messageId lets a resend of it be absorbed. */
      const storedMeta = (accepted: AcceptedDelivery): StoredMeta => {
        const messageId = accepted.event.payload.messageId;
        return { ...accepted.meta, kind: accepted.kind, warnings: accepted.warnings, ...(messageId ? { messageId } : {}) };
      };
      const receipt = (meta: DeliveryMeta): Receipt => ({ receivedAt: meta.receivedAt, req: { ip: meta.ip, headers: meta.headers } });

      let closing = false;
      /** Set once the store of events in flight is closed: nothing more can be taken. */
      let deliveryClosed = false;
      /** Sends an event on output 1 (again, when `redelivered`; `attempt`: which emission), tracked until finished. */
      const emitEvent = (eventValue: unknown, stored: EmitMeta, id: number | string | undefined, redelivered: boolean, attempt: number): void => {
        const tracker = delivery?.tracker;
        if (closing) {
          // The flow is being stopped: the next instance emits it.
          if (id !== undefined) tracker?.park(id);
          return;
        }
        const { kind, warnings, ...meta } = stored;
        if (redelivered) showStatus();
        else {
          counts.received++;
          if (warnings.length > 0) counts.warned++;
          showStatus();
        }
        const msg: EventMessage & { redelivered?: true; attempt?: number; _delivery?: unknown; warnings?: unknown } = eventMessage(
          eventValue,
          kind,
          receipt(meta),
        );
        msg.attempt = attempt;
        if (redelivered) msg.redelivered = true;
        if (id !== undefined) msg._delivery = { receiver: node.id, id };
        if (warnings.length > 0) {
          msg.warnings = warnings;
          // Once per place per minute in the debug sidebar, not once per event.
          for (const warning of warningGate.pass(warnings)) {
            node.warn(t('warnings.deviation', { path: warning.path, message: warning.message, messageId: String(msg.messageId ?? '-') }));
          }
        }
        node.send([msg as NodeMessage, null, null]);
        if (id !== undefined) tracker?.emitted(id);
      };

      /** Output 3: an event's first failure ('failed'), and its dead-lettering ('dead-letter'). */
      const emitFailure = (notice: FailureNotice<StoredMeta>, eventValue: unknown, stored: EmitMeta): void => {
        showStatus();
        if (closing) return;
        const { kind, ...meta } = stored;
        const msg = {
          ...eventMessage(eventValue, kind, receipt(meta)),
          topic: notice.stage,
          attempt: notice.attempts,
          error: notice.error,
        };
        node.send([null, null, msg as unknown as NodeMessage]);
      };

      let active = 0;
      let diskFullWarnedAt = -Infinity;
      let diskFullSaid = false;
      const ready = openDelivery(RED, node, settings, emitEvent, t, () => status.replanned(), emitFailure).then(
        (opened) => {
          delivery = opened;
          status.delivery = opened;
          opened.tracker.onComplete = showStatus;
          // A full disk: said when it starts refusing and when it has room again, at most once a
          // minute (a disk that another program keeps full refuses again after each freed event).
          opened.tracker.onOutOfSpace = (full) => {
            if (full && Date.now() - diskFullWarnedAt > DISK_FULL_WARN_MS) {
              diskFullWarnedAt = Date.now();
              diskFullSaid = true;
              node.warn(t('warnings.disk-full', { path: journalPath(RED, node.id) }));
            } else if (!full && diskFullSaid) {
              diskFullSaid = false;
              node.log(t('delivery.disk-room'));
            }
            showStatus();
          };
          status.replanned();
          return opened;
        },
        (err: Error) => {
          // Closed meanwhile: the next instance opens its own store and says what it finds.
          if (closing) return undefined;
          // No store for events (an I/O error opening the journal, say): red with the
          // reason, and every request answered 503 with Retry-After (enqueue below).
          status.failed = err.message;
          showStatus();
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
                accepted.deliveryId = await staged.commit(storedMeta(accepted), accepted.event);
                // A resend of an event held unfinished: answered 200, not emitted (the held copy is).
                accepted.absorbed = staged.absorbed === true;
              },
              abandon: staged.abandon,
            };
          },
          async enqueue(accepted) {
            const opened = delivery ?? (await ready);
            if (!opened && status.failed !== undefined) throw new Error(t('errors.delivery', { message: status.failed }));
            if (!opened || deliveryClosed) throw new Error(t('errors.not-ready'));
            const stored = storedMeta(accepted);
            const staged = opened.tracker.stage(stored, accepted.body);
            accepted.deliveryId = await staged.commit(stored, accepted.event);
            accepted.absorbed = staged.absorbed === true;
          },
          emit({ event, kind, warnings, meta, deliveryId }) {
            emitEvent(event, { ...meta, kind, warnings }, deliveryId, false, 1);
          },
          onInvalid({ value, errors, meta }) {
            counts.invalid++;
            showStatus();
            node.send([null, invalidEventMessage(value, errors, receipt(meta)), null]);
          },
          onRejected(answer) {
            if (answer.status !== 422) counts.rejected++;
            showStatus();
            node.debug(`${answer.status} ${answer.title}: ${answer.detail}`);
          },
        },
      );

      // Errors here are bugs, never user input: answer 500 and report, never crash.
      const handler: RouteHandler = (req, res) => {
        active++;
        const answered = metrics.time(res);
        receive(req, res)
          .catch((err: Error) => {
            node.error(t('errors.internal', { message: err.message }));
            sendProblem(res, problem('internal', err.message), { close: true });
          })
          .finally(() => {
            active--;
            answered();
          });
      };

      // Once stopped, what arrives is held, unread, for the next receiver on this path. This one
      // serves once the flows have started (what it emits goes into running nodes, not into the
      // redelivery of the deploy) and, in Redis mode, once its connection's first connect has
      // ended: a connection a deploy has just made is no outage (bounded by the connect timeout).
      const serveFrom = Promise.all([flowsStarted(RED), redis?.connection.settled()]);
      const route = routes.serve(key, node.id, handler, (serving) => mountReceiverRoute(RED, path, serving, door), serveFrom);
      // The hand-over above goes live once serveFrom settles (it was told first).
      void serveFrom.then(() => (metrics.mounted = !closing));
      // A listener that cannot open its port: red under this receiver too (the listener logs why).
      const showDoor = (state: string): void => status.listener(state, door?.options.port);
      door?.on('state', showDoor);
      if (door?.state === 'failed') showDoor('failed');

      node.on('close', (removed: boolean, done: () => void) => {
        // Take no new requests; let those under way finish (bounded), their events kept for the next instance.
        closing = true;
        unwatchRedis?.();
        door?.off('state', showDoor);
        route.stop(removed);
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
