/**
 * Where a detection-alarm node keeps its book: in this process, written to
 * <userDir>/detection-bridge/alarm-<node id>.json (and its events beside
 * it, in alarm-<node id>.events/) before a change's messages are sent, so a
 * deploy or a restart, a SIGKILL included, finds every open alarm, snooze
 * and the armed state; or in Redis, shared by every instance.
 */
import type { Node, NodeAPI } from 'node-red';
import { LocalAlarms, newLinkSecret, type AlarmStore } from '../../lib/alarm';
import type { Vars } from '../shared/i18n';
import { nodeFile } from '../shared/user-dir';
import type { AlarmSettings } from './settings';

export interface OpenedAlarms {
  /** The store, once its book is loaded (messages wait for it). */
  ready: Promise<AlarmStore>;
  close(removed: boolean): Promise<void>;
}

/** Where node `nodeId` keeps its book. */
export function alarmFile(RED: NodeAPI, nodeId: string): string {
  return nodeFile(RED, 'alarm', nodeId, '.json');
}

export function openAlarmStore(
  RED: NodeAPI,
  node: Node<{ linkSecret?: string }>,
  settings: AlarmSettings,
  t: (key: string, vars?: Vars) => string,
): { ok: true; opened: OpenedAlarms } | { ok: false; problem: string } {
  if (settings.shared) return { ok: false, problem: t('errors.redis-later') };
  const file = alarmFile(RED, node.id);
  const ownSecret = (node.credentials?.linkSecret ?? '').trim();
  let warned = false;
  const ready = LocalAlarms.open({
    file,
    book: settings.book,
    newSecret: newLinkSecret,
    secret: ownSecret.length >= 16 ? ownSecret : undefined,
    saveProblem(err) {
      // once until a save works again
      if (err && !warned) node.warn(t('warn.save', { path: file, message: err.message }));
      else if (!err && warned) node.log(t('warn.saved'));
      warned = err !== undefined;
    },
  }).then(({ store, damaged }) => {
    if (damaged) node.warn(t('warn.load', { path: file, message: damaged.message }));
    void store.sweepEvents().catch(() => undefined);
    return store;
  });
  return {
    ok: true,
    opened: {
      ready,
      close: async () => {
        const store = await ready.catch(() => undefined);
        await store?.close();
      },
    },
  };
}
