/**
 * What detection-in shows under itself: "listening" until there is something to count, then its session's
 * view (lib/delivery/session-view.ts) with what it turned away lately (lib/receiver/refusals.ts), and Redis's
 * state where it has a Redis; a listener that cannot open its port; and a path another receiver already has.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { type StoreSession, hasSomethingToShow, sessionView } from '../../lib/delivery';
import { refusalView, type FailureLog } from '../../lib/receiver';
import { describeNode, flowLabel, notifyEditors } from '../shared/notify';
import { withRedisState } from '../shared/redis';
import { throttledStatus } from '../shared/status';
import type { Throttled } from '../shared/throttle';

export interface ReceiverStatus {
  /** Redraws the counts (throttled). */
  readonly show: Throttled;
  /** After the delivery is (re)planned: the counts replace "listening" once there is something to show. */
  replanned(): void;
  /** "listening" (the receiver's own listener's state: "listening", "failed" (said in the log too), on its `port`). */
  listener(state: string, port?: number | string): void;
}

export function receiverStatus(
  RED: NodeAPI,
  node: Node,
  t: (key: string, vars?: Record<string, string | number>) => string,
  path: string,
  sessionOf: () => StoreSession,
  log: FailureLog,
): ReceiverStatus {
  let countsShown = false;
  const status: ReceiverStatus = {
    show: throttledStatus(node, () => {
      const { status: s, redis } = sessionOf();
      const view = sessionView(s, path, t, refusalView(log.refusals.recent(), t));
      if (!redis || view.fill === 'red') return view;
      const state = withRedisState(RED, redis, view.text, true);
      return view.fill === 'yellow' && state.fill === 'green' ? { ...state, fill: 'yellow' } : state;
    }),
    replanned() {
      if (countsShown || hasSomethingToShow(sessionOf().status)) {
        countsShown = true;
        status.show();
      }
    },
    listener(state, port) {
      if (state === 'failed') node.status({ fill: 'red', shape: 'ring', text: t('status.listener-failed', { port: port ?? '' }) });
      if (state === 'failed') log.listenerFailed(port);
      if (state === 'listening') node.status({ fill: 'green', shape: 'ring', text: t('status.listening', { path }) });
    },
  };
  return status;
}

/**
 * Receiver `node` cannot have `path`: receiver `owner` has it. Red under the
 * node, in the log, and in every editor at once (Deploy said "Successfully
 * deployed"), until the node is stopped.
 */
export function showPathInUse(
  RED: NodeAPI,
  node: Node,
  config: NodeDef,
  path: string,
  owner: string,
  t: (key: string, vars?: Record<string, string>) => string,
): void {
  const other = describeNode(RED, owner, 'detection-in');
  node.status({ fill: 'red', shape: 'ring', text: t('status.path-in-use', other) });
  node.error(t('errors.path-in-use', { path, ...other }));
  const self = { name: config.name || RED._('detection-in.paletteLabel'), flow: flowLabel(RED, config.z) };
  notifyEditors(RED, 'detection-in', node.id, { key: 'notify.path-in-use', vars: { path, ...self, other: other.name, otherFlow: other.flow } });
  node.on('close', () => notifyEditors(RED, 'detection-in', node.id, null));
}
