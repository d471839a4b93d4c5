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
import { MiB } from '../../lib/receiver';
import type { RedisConnection } from '../../lib/redis';
import { describeNode, flowLabel, notifyEditors } from '../shared/notify';
import { withRedisState } from '../shared/redis';
import { throttledStatus } from '../shared/status';
import type { Throttled } from '../shared/throttle';
import type { ReceiverDelivery } from './delivery';

export interface ReceiverStatus {
  readonly counts: { received: number; warned: number; rejected: number; invalid: number };
  /** The delivery once open: what it keeps is shown too. */
  delivery: ReceiverDelivery | undefined;
  /** Why the delivery could not be opened (its journal, say): red, whatever else happens. */
  failed: string | undefined;
  /** Redraws the counts (throttled). */
  readonly show: Throttled;
  /** After the delivery is (re)planned: counts replace "listening" once there is something to count, or a warning to show. */
  replanned(): void;
  /** "listening" (the receiver's own listener's state: "listening", "failed", on its `port`). */
  listener(state: string, port?: number | string): void;
}

export function receiverStatus(
  RED: NodeAPI,
  node: Node,
  t: (key: string, vars?: Record<string, string | number>) => string,
  path: string,
  redis: RedisConnection | undefined,
): ReceiverStatus {
  const counts = { received: 0, warned: 0, rejected: 0, invalid: 0 };
  let countsShown = false;
  const status: ReceiverStatus = {
    counts,
    delivery: undefined,
    failed: undefined,
    show: throttledStatus(node, () => {
      if (status.failed !== undefined) return { fill: 'red', shape: 'ring', text: t('status.delivery-failed', { message: status.failed }) };
      const problems = counts.rejected + counts.invalid;
      const params = { path, received: counts.received, warned: counts.warned, rejected: problems };
      const delivery = status.delivery;
      const tracker = delivery?.tracker;
      // Every event answered 503 until the journal has room again (it heals as events finish): red, first.
      const refusing = tracker?.outOfSpace === true;
      let text = refusing ? t('status.disk-full', { path }) : t(counts.warned > 0 ? 'status.counts-warned' : 'status.counts', params);
      // Held for a detection-done that none downstream will ever send: say so, in yellow.
      const noDone = delivery?.completion.noDoneWired === true;
      if (noDone) text += t('status.no-done');
      if (tracker && (tracker.awaitCompletion || tracker.mode === 'disk')) text += t('status.pending', { pending: tracker.pending.events });
      if (tracker?.mode === 'disk') text += t('status.journal', { size: +(tracker.journalBytes / MiB).toFixed(1) });
      // Kept aside after their last attempt: shown, not red (the receiver still takes events).
      const dead = tracker?.stats.deadLetters ?? 0;
      if (dead > 0) text += t('status.dead', { count: dead });
      if (refusing) return { fill: 'red', shape: 'dot', text };
      if (redis) {
        const state = withRedisState(RED, redis, text, true);
        return noDone && state.fill === 'green' ? { ...state, fill: 'yellow' } : state;
      }
      return { fill: noDone || (problems > 0 && counts.received === 0) ? 'yellow' : 'green', shape: 'dot', text };
    }),
    replanned() {
      const noDone = status.delivery?.completion.noDoneWired === true;
      if (noDone || countsShown || counts.received + counts.rejected + counts.invalid > 0) {
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
