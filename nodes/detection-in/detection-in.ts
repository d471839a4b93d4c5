/**
 * detection-in: the HTTP endpoint the events bridge POSTs detections to.
 * A thin adapter: receiving is lib/receiver/receiver.ts, keeping events until
 * finished and building their messages lib/delivery/session.ts (it hears of
 * deploys through one watch for every receiver), the path and its hand-over
 * across deploys ../shared/routes.ts.
 */
import type { NodeAPI, NodeMessage } from 'node-red';
import { createFailureLog, createReceiver } from '../../lib/receiver';
import { lostAtRestart, sessionProblem, StoreSession, receiverMetrics, watchDeploys, type FlowNodeConfig } from '../../lib/delivery';
import { problem, sendProblem, discardRest, receiverLabel, type RouteHandler } from '../../lib/http';
import { nodeOptions } from '../../lib/config';
import { nodeText, statusText, translator } from '../shared/i18n';
import { registerNode } from '../shared/register';
import { mountReceiverRoute, receiverRouteKey, receiverRoutes } from '../shared/routes';
import { redisOf } from '../shared/redis';
import { nodeFile } from '../shared/user-dir';
import { serveAddresses } from './addresses';
import { listenSettings, type DetectionInCredentials, type DetectionInDef } from './settings';
import { receiverStatus, showPathInUse } from './status';
import { serveDeadLetters } from './dead-letters';

export = function register(RED: NodeAPI): void {
  serveAddresses(RED);
  serveDeadLetters(RED);
  // One listener of deploys for every receiver of this runtime; the sessions hear of them through it.
  const watch = watchDeploys(RED.events as unknown as Parameters<typeof watchDeploys>[0], () => {
    const flows: FlowNodeConfig[] = [];
    RED.nodes.eachNode((n) => void flows.push(n as unknown as FlowNodeConfig));
    return flows;
  });
  // Between two deploys the bridge's requests wait for the next receiver on their path (bounded),
  // rather than a 503 that makes it send the same event again later.
  const routes = receiverRoutes(RED, (req, res) => {
    sendProblem(res, problem('unavailable', nodeText(RED, 'detection-in')('errors.deploying')), { headers: { 'Retry-After': '1' } });
    discardRest(req);
  });

  registerNode<DetectionInDef>(
    RED,
    'detection-in',
    (node, config) => {
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
      const listen = listenSettings(RED, config, (node.credentials ?? {}) as DetectionInCredentials, options, t);
      if ('problem' in listen) return fail(listen.status, listen.problem);
      const { path, auth, maxBodyBytes, listener: door } = listen;
      const key = receiverRouteKey(RED, path, door && config.listener);
      const owner = routes.claim(key, node.id);
      if (owner) return showPathInUse(RED, node, config, path, owner, t);

      // An operator's view (detection-monitor), by the configured path (on a listener: its port too).
      const metrics = receiverMetrics(receiverLabel(path, door?.options.port));
      node.on('close', () => metrics.unregister());
      const place = { journalPath: nodeFile(RED, 'journal', node.id, '.log'), redis: () => redisOf(RED, config.redis), streamName: path };
      const why = sessionProblem(options, place);
      if (why) {
        metrics.problem = t(why.error);
        routes.unclaim(key, node.id);
        return fail(statusText(RED, 'detection-in')(why.status), t(why.error));
      }
      const log = createFailureLog({ path, t, log: node, memoryOnly: () => lostAtRestart(session.opened), changed: () => status.show() });
      const status = receiverStatus(RED, node, t, path, () => session, log);
      const session = new StoreSession(
        { id: node.id, z: node.z, alias: (node as { _alias?: string })._alias, key },
        options,
        place,
        {
          send: log.watching((output, msg) => node.send([0, 1, 2].map((i) => (i === output ? (msg as NodeMessage) : null)))),
          log: node,
          runtimeLog: RED.log,
          changed: (what) => (what === 'plan' ? status.replanned() : status.show()),
          t,
        },
        watch,
      );
      const unwatchRedis = session.redis?.use(() => status.show());
      metrics.attach({ session, listenerFailed: () => door?.state === 'failed' });
      status.listener('listening');

      const receive = session.track(
        createReceiver(
          { auth, maxBodyBytes, validation: options.validation, stallMs: options.stallSeconds * 1000, translate: translator(RED), refusals: log },
          session.receiverHooks,
        ),
      );
      // Errors here are bugs, never user input: answer 500 and report, never crash.
      const handler: RouteHandler = (req, res) => {
        const answered = metrics.time(res);
        receive(req, res)
          .catch((err: Error) => {
            node.error(t('errors.internal', { message: err.message }));
            sendProblem(res, problem('internal', err.message), { close: true });
          })
          .finally(answered);
      };

      // Once stopped, what arrives is held, unread, for the next receiver on this path. This one serves once
      // the flows have started (what it emits goes into running nodes, not into the deploy's redelivery) and,
      // with a Redis, once its first connect has ended (a connection a deploy has just made is no outage).
      const serveFrom = Promise.all([watch.next(), session.redis?.settled()]);
      const route = routes.serve(key, node.id, handler, (serving) => mountReceiverRoute(RED, path, serving, door), serveFrom);
      let closing = false;
      void serveFrom.then(() => (metrics.mounted = !closing));
      // A listener that cannot open its port: red under this receiver too (the listener logs why).
      const showDoor = (state: string): void => status.listener(state, door?.options.port);
      door?.on('state', showDoor);
      if (door?.state === 'failed') showDoor('failed');

      node.on('close', (removed: boolean, done: () => void) => {
        closing = true;
        log.close();
        unwatchRedis?.();
        door?.off('state', showDoor);
        route.stop(removed);
        node.status({});
        session.close(removed).then(done, (err: Error) => {
          node.error(t('errors.delivery', { message: err.message }));
          done();
        });
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
