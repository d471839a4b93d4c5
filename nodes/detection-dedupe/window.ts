/**
 * Where a detection-dedupe node's window lives and is saved: in Redis,
 * shared by every instance; or in this process, carried over to the node's
 * next instance at a deploy (lib/dedupe/local-window.ts) and saved, if asked,
 * to the key log (each key on disk before its message goes on) or to a
 * context store (the window saved whole, every 2 s at most, and on close).
 * Either way the node asks it through lib's SeenKeys.
 *
 * A key log on a full disk: the window in memory decides (no repeat passes
 * while Node-RED runs), the node warns once, and the whole window is written
 * again every 2 s until there is room (lib/dedupe/seen-keys.ts).
 */
import type { Node, NodeAPI } from 'node-red';
import { isOutOfSpace } from '../../lib/core';
import { KeyLog, dropWindow, keepWindow, takeOverWindow, RedisSeenKeys, LocalSeenKeys, type SeenKeys } from '../../lib/dedupe';
import type { RedisConnection } from '../../lib/redis';
import type { Vars } from '../shared/i18n';
import { redisOf } from '../shared/redis';
import type { DedupeSettings } from './settings';
import { nodeFile } from '../shared/user-dir';

/** Context key under which a persisted window is kept. */
const CONTEXT_KEY = 'detection-dedupe-window';
const SAVE_DELAY_MS = 2000;
/** Nodes whose key log still lacked keys when their last instance closed (a full disk): the next one saves them. */
const unsavedAtClose = new Map<string, Error>();

export interface OpenedWindow {
  seen: SeenKeys;
  /** Redis: the connection (its state is part of the status). */
  connection?: RedisConnection;
  /** Resolves once a saved window is loaded: messages wait for it. */
  ready: Promise<void>;
  /** Keeps a local window for the node's next instance (unless it was removed), saves it and closes its log. */
  close(removed: boolean): Promise<void>;
  /** Keys the key log lacks (its disk was full) until the window is saved whole again. */
  unsaved(): boolean;
}

function keyLogPath(RED: NodeAPI, nodeId: string): string {
  return nodeFile(RED, 'dedupe', nodeId, '.keys');
}

/** Opens the node's window; a problem (translated) when its Redis configuration is missing. */
export function openWindow(
  RED: NodeAPI,
  node: Node,
  settings: DedupeSettings,
  t: (key: string, vars?: Vars) => string,
  /** Called once a saved window is loaded, and when its key log runs out of room or has all keys again (a status to redraw). */
  loaded: () => void,
): { ok: true; window: OpenedWindow } | { ok: false; problem: string } {
  if (settings.shared) {
    const connection = redisOf(RED, settings.shared.redis);
    if (!connection) return { ok: false, problem: t('errors.redis-missing') };
    // Redis keeps a shared window across deploys: nothing kept here.
    dropWindow(node.id);
    const seen = new RedisSeenKeys(connection, {
      name: settings.shared.name,
      ttlMs: settings.window.ttlMs,
      refreshOnRepeat: settings.window.refreshOnRepeat,
    });
    return { ok: true, window: { seen, connection, ready: Promise.resolve(), close: async () => dropWindow(node.id), unsaved: () => false } };
  }

  // A deploy restarts the node: its previous instance's keys carry over.
  const takeOver = takeOverWindow(node.id, settings.window);
  const window = takeOver.window;
  const save = settings.save;
  const persistError = (err: Error): void => node.error(t('errors.persist', { message: err.message }));
  const context = node.context();
  let keyLog: KeyLog | undefined;
  let saveTimer: NodeJS.Timeout | undefined;
  let closed = false;
  const saveKeyLog = async (): Promise<void> => {
    try {
      // Keys missing from the log (a full disk): the whole window again, and again in 2 s while there is no room.
      if (seen.unsaved) {
        if (!(await seen.resave())) scheduleSave();
      } else await keyLog?.compact(window.snapshot());
    } catch (err) {
      // A compaction that finds no room keeps the old file whole: nothing lost, tried again later.
      if (!isOutOfSpace(err)) persistError(err as Error);
    }
  };
  const saveNow = (): Promise<void> =>
    save?.keyLog
      ? saveKeyLog()
      : new Promise((resolve) => {
          context.set(CONTEXT_KEY, { v: 1, ttlMs: settings.window.ttlMs, entries: window.snapshot() }, save?.store as string, (err?: Error) => {
            if (err) persistError(err);
            resolve();
          });
        });
  const scheduleSave = (): void => {
    if (!save || saveTimer || closed) return;
    saveTimer = setTimeout(() => {
      saveTimer = undefined;
      void saveNow();
    }, SAVE_DELAY_MS);
  };
  const seen = new LocalSeenKeys(window, {
    changed: scheduleSave,
    unsaved(err) {
      if (err) node.warn(t('warn.key-log-full', { path: keyLogPath(RED, node.id), message: err.message }));
      else node.log(t('warn.key-log-saved'));
      loaded();
    },
  });

  // A window carried over from the previous instance (a deploy) is newer than any
  // store: it is used as it is, and written afresh where it was saved elsewhere.
  let ready: Promise<void>;
  if (!save) ready = Promise.resolve();
  else if (save.keyLog)
    ready = KeyLog.open(keyLogPath(RED, node.id)).then(async (opened) => {
      keyLog = opened.log;
      seen.persistence.log = opened.log;
      const missing = unsavedAtClose.get(node.id);
      unsavedAtClose.delete(node.id);
      if (!takeOver.carried) window.restore(opened.entries);
      else if (missing) {
        // The previous instance's keys did not all reach the log: saved whole as soon as there is room.
        seen.unsaved = missing;
        scheduleSave();
      } else if (takeOver.persistenceChanged) await opened.log.rewrite(window.snapshot());
      if (opened.torn) node.warn(t('warn.key-log-torn'));
      if (opened.damaged > 0) node.warn(t('warn.key-log-damaged', { count: opened.damaged }));
    }, persistError);
  else if (takeOver.carried)
    ready = Promise.resolve().then(() => {
      if (takeOver.persistenceChanged) scheduleSave();
    });
  else
    ready = new Promise((resolve) => {
      context.get(CONTEXT_KEY, save.store as string, (err: Error | undefined, saved: unknown) => {
        if (err) persistError(err);
        else if (saved && typeof saved === 'object') window.restore((saved as { entries?: unknown }).entries);
        resolve();
      });
    });
  if (save) ready = ready.then(loaded);

  return {
    ok: true,
    window: {
      seen,
      ready,
      async close(removed) {
        // the next instance (a deploy) takes the keys over; a removed node's are forgotten
        if (removed) dropWindow(node.id);
        else keepWindow(node.id, window, settings.window);
        closed = true;
        if (saveTimer) clearTimeout(saveTimer);
        saveTimer = undefined;
        // Wait for a load still under way, or an empty window would overwrite the saved one.
        if (!save) return;
        await ready;
        await saveNow();
        if (seen.unsaved && !removed) unsavedAtClose.set(node.id, seen.unsaved);
        else unsavedAtClose.delete(node.id);
        await keyLog?.close();
      },
      unsaved: () => seen.unsaved !== undefined,
    },
  };
}
