/**
 * What detection-in shows under itself: "listening" until there is something
 * to count, then what it received, warned about and rejected; what it keeps
 * until finished (pending events, the journal's size, dead letters); in yellow, a receiver
 * waiting for a detection-done that none downstream will ever send; Redis's
 * state in redis mode; a listener that cannot open its port; in red, a
 * receiver refusing events because its journal's disk is full. And a path
 * another receiver already has, in the editor too.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import type { StoreSession } from '../../lib/delivery/session';
import { describeNode, flowLabel, notifyEditors } from '../shared/notify';
import { withRedisState } from '../shared/redis';
import { throttledStatus } from '../shared/status';
import type { Throttled } from '../shared/throttle';

export interface ReceiverStatus {
  /** Redraws the counts (throttled). */
  readonly show: Throttled;
  /** After the delivery is (re)planned: counts replace "listening" once there is something to count, or a warning to show. */
  replanned(): void;
  /** "listening" (the receiver's own listener's state: "listening", "failed", on its `port`). */
  listener(state: string, port?: number | string): void;
}

/** The status under a receiver, drawn from its session's one status object. */
export function receiverStatus(
  RED: NodeAPI,
  node: Node,
  t: (key: string, vars?: Record<string, string | number>) => string,
  path: string,
  sessionOf: () => StoreSession,
): ReceiverStatus {
  let countsShown = false;
  const status: ReceiverStatus = {
    show: throttledStatus(node, () => {
      const session = sessionOf();
      const s = session.status;
      const counts = s.counts;
      if (s.failed !== undefined) return { fill: 'red', shape: 'ring', text: t('status.delivery-failed', { message: s.failed }) };
      const problems = counts.rejected + counts.invalid;
      const params = { path, received: counts.received, warned: counts.warned, rejected: problems };
      // Every event answered 503 until the journal has room again (it heals as events finish): red, first.
      let text = s.outOfSpace ? t('status.disk-full', { path }) : t(counts.warned > 0 ? 'status.counts-warned' : 'status.counts', params);
      // Held for a detection-done that none downstream will ever send: say so, in yellow.
      if (s.noDoneWired) text += t('status.no-done');
      if (s.pending !== undefined) text += t('status.pending', { pending: s.pending });
      if (s.journalBytes !== undefined) text += t('status.journal', { size: +(s.journalBytes / 1048576).toFixed(1) });
      // Kept aside after their last attempt: shown, not red (the receiver still takes events).
      if (s.deadLetters > 0) text += t('status.dead', { count: s.deadLetters });
      if (s.outOfSpace) return { fill: 'red', shape: 'dot', text };
      if (session.redis) {
        const state = withRedisState(RED, session.redis, text, true);
        return s.noDoneWired && state.fill === 'green' ? { ...state, fill: 'yellow' } : state;
      }
      return { fill: s.noDoneWired || (problems > 0 && counts.received === 0) ? 'yellow' : 'green', shape: 'dot', text };
    }),
    replanned() {
      const s = sessionOf().status;
      const counts = s.counts;
      if (s.noDoneWired || countsShown || counts.received + counts.rejected + counts.invalid > 0) {
        countsShown = true;
        status.show();
      }
    },
    listener(state, port) {
      if (state === 'failed') node.status({ fill: 'red', shape: 'ring', text: t('status.listener-failed', { port: port ?? '' }) });
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
