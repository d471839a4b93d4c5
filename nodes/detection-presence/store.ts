/**
 * Where a detection-presence node keeps who is present: in Redis, shared by
 * every instance; or in this process (lib/presence/local-presence.ts),
 * carried over to the node's next instance at a deploy and saved to
 * <userDir>/detection-bridge/presence-<node id>.json, so a restart finds it.
 */
import type { Node, NodeAPI } from 'node-red';
import type { Clock } from '../../lib/core';
import { dropPresence, LocalPresence, RedisPresence, removePresenceFile, takeOverPresence, type PresenceStore } from '../../lib/presence';
import type { RedisConnection } from '../../lib/redis';
import type { Vars } from '../shared/i18n';
import { redisOf } from '../shared/redis';
import type { PresenceSettings } from './settings';
import { nodeFile } from '../shared/user-dir';

export interface OpenedStore {
  store: PresenceStore;
  /** Redis: the connection (its state is part of the status). */
  connection?: RedisConnection;
  /** Local: keys held now. */
  size(): number | undefined;
  /**
   * Resolves once a saved table is loaded (messages wait for it), with when
   * it was loaded from disk (a restart: what fell due before is late), or
   * undefined when nothing was loaded from disk.
   */
  ready: Promise<number | undefined>;
  /** Keeps the table for the node's next instance (unless it was removed) and saves it. */
  close(removed: boolean): Promise<void>;
}

/** Where node `nodeId` saves its table. */
export function presenceFile(RED: NodeAPI, nodeId: string): string {
  return nodeFile(RED, 'presence', nodeId, '.json');
}

export function openStore(
  RED: NodeAPI,
  node: Node,
  settings: PresenceSettings,
  clock: Clock,
  t: (key: string, vars?: Vars) => string,
): { ok: true; opened: OpenedStore } | { ok: false; problem: string } {
  const file = presenceFile(RED, node.id);
  if (settings.shared) {
    const connection = redisOf(RED, settings.shared.redis);
    if (!connection) return { ok: false, problem: t('errors.redis-missing') };
    // Redis is the table now: nothing kept here, and a table saved here before would be stale
    dropPresence(node.id);
    void removePresenceFile(file).catch(() => undefined);
    const store = new RedisPresence(connection, { ...settings.table, name: settings.shared.name });
    return {
      ok: true,
      opened: { store, connection, size: () => undefined, ready: Promise.resolve(undefined), close: async () => dropPresence(node.id) },
    };
  }

  const takeOver = takeOverPresence(node.id, settings.keys, settings.table);
  let warnedSave = false;
  const store = new LocalPresence(takeOver.table, {
    keys: settings.keys,
    file,
    clock,
    saveProblem(err) {
      // once until a save works again
      if (err && !warnedSave) node.warn(t('warn.save', { path: file, message: err.message }));
      else if (!err && warnedSave) node.log(t('warn.saved'));
      warnedSave = err !== undefined;
    },
  });
  if (takeOver.dropped > 0) node.warn(t('warn.smaller', { count: takeOver.dropped, max: settings.table.maxKeys }));
  // A table carried over from the previous instance (a deploy) is newer than the file.
  const ready = takeOver.carried
    ? Promise.resolve(undefined)
    : store.load().then(
        (loaded) => {
          if (!loaded) return undefined;
          if (loaded.otherKeys) node.log(t('warn.other-keys', { path: file }));
          if (loaded.damaged > 0) node.warn(t('warn.damaged', { path: file, count: loaded.damaged }));
          return clock.now();
        },
        (err: Error) => {
          // started empty; the file is written anew at the next change
          node.warn(t('warn.load', { path: file, message: err.message }));
          return undefined;
        },
      );
  return {
    ok: true,
    opened: { store, size: () => store.size, ready, close: (removed) => ready.then(() => store.close(node.id, removed)) },
  };
}
