/**
 * Where a detection-alarm node keeps its book: in this process, written to
 * <userDir>/detection-bridge/alarm-<node id>.json (and its events beside
 * it, in alarm-<node id>.events/) before a change's messages are sent, so a
 * deploy or a restart, a SIGKILL included, finds every open alarm, snooze
 * and the armed state; or in Redis, shared by every instance (lib/alarm's
 * RedisAlarms), where nothing is kept in this process.
 */
import type { Node, NodeAPI } from 'node-red';
import { LocalAlarms, newLinkSecret, RedisAlarms, removeAlarmFiles, type AlarmStore } from '../../lib/alarm';
import type { RedisConnection } from '../../lib/redis';
import type { Vars } from '../shared/i18n';
import { redisOf } from '../shared/redis';
import { nodeFile } from '../shared/user-dir';
import type { AlarmSettings } from './settings';

export interface OpenedAlarms {
  /** The store, once its book is loaded (messages wait for it). */
  ready: Promise<AlarmStore>;
  /** Redis: the connection (its state is part of the status). */
  connection?: RedisConnection;
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
  const file = alarmFile(RED, node.id);
  const ownSecret = (node.credentials?.linkSecret ?? '').trim();
  let warned = false;
  if (settings.shared) {
    const connection = redisOf(RED, settings.shared.redis);
    if (!connection) return { ok: false, problem: t('errors.redis-missing') };
    // Redis is the book now: a book kept here before would be stale
    void removeAlarmFiles(file).catch(() => undefined);
    const store = new RedisAlarms(connection, {
      name: settings.shared.name,
      book: settings.book,
      secret: ownSecret.length >= 16 ? ownSecret : undefined,
      damaged(err) {
        // once per node: the next change replaces it
        if (warned) return;
        warned = true;
        node.warn(t('warn.load-shared', { key: store.redisKeys[0], message: err.message }));
      },
    });
    return { ok: true, opened: { ready: Promise.resolve(store), connection, close: () => store.close() } };
  }
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
