/**
 * detection-dedupe: drops repeats of the same key inside a window.
 * Mode "id": the bridge's messageId (stable across retries). Mode "cooldown":
 * a key such as plate + detector, dropped for N seconds after it passed.
 * The window itself is lib/dedupe/local-window.ts; a local one is kept across
 * deploys for the life of the process (takeOverWindow).
 */
import { completeDelivery, isDeliveryToken } from '../../lib/delivery/registry';
import type { NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from 'node-red';
import { z } from 'zod';
import { deliveryMark, dropWindow, keepWindow, passes, takeOverWindow, type KeptWindowSettings } from '../../lib/dedupe/local-window';
import { choiceKey, isKeyChoice, KEY_CHOICE_TYPE } from '../../lib/dedupe/key';
import { KeyLog } from '../../lib/dedupe/key-log';
import { join } from 'node:path';
import { eventHash } from '../../lib/events/event-hash';
import { limitOption, parseOptions } from '../../lib/core/options';
import { nodeOptions, optionRule, type NodeOptionsTable } from '../../lib/config/node-options';
import { flowError, nodeText, translate } from '../shared/i18n';
import { failConfig, throttledStatus } from '../shared/status';
import { propertyReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';
import { registerNode } from '../shared/register';
import { redisOf, withRedisState } from '../shared/redis';
import { RedisSeenKeys } from '../../lib/dedupe/redis-window';
import type { Sighting } from '../../lib/dedupe/local-window';

/** The dialog's choices, as lib/config/node-options.ts states them. */
type DedupeOptions = NodeOptionsTable['detection-dedupe'];
type Mode = DedupeOptions['mode']['choices'][number];
type MissingKey = DedupeOptions['missingKey']['choices'][number];

interface DedupeDef extends NodeDef {
  mode: Mode;
  key: string;
  /** A key picked by name ('event': key is one of KEY_CHOICES), or a property or expression (msg, flow, global, env, jsonata). */
  keyType: string;
  /** Where a key picked by name reads the event (msg.payload by default). */
  property?: string;
  propertyType?: string;
  missingKey: MissingKey;
  ttl: number | string;
  ttlUnits: 's' | 'm' | 'h';
  refresh: boolean;
  maxKeys: number | string;
  duplicatesOutput: boolean;
  persist: boolean;
  store: string;
  /** Where the window is kept: this Node-RED ('local') or Redis, shared by every instance ('redis'). */
  scope?: DedupeOptions['scope']['choices'][number];
  /** scope redis: the detection-redis configuration node. */
  redis?: string;
  /** scope redis: what a message does while Redis is unreachable. */
  whenUnreachable?: DedupeOptions['whenUnreachable']['choices'][number];
  /** scope redis: the window's name in Redis; instances with the same name share it (default: the node's id). */
  sharedName?: string;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;
/** The window's size: a flow cannot run without them, so a bad value is an error, not a default. */
const WindowLimits = z.object({
  ttl: limitOption(optionRule('detection-dedupe', 'ttl')),
  maxKeys: limitOption(optionRule('detection-dedupe', 'maxKeys')),
});
/** Context key under which a persisted window is kept. */
const CONTEXT_KEY = 'detection-dedupe-window';
/** The `store` value that persists to an append-only key log on disk instead of a context store. */
const KEY_LOG_STORE = 'detection-bridge:key-log';
const SAVE_DELAY_MS = 2000;

function keyLogPath(RED: NodeAPI, nodeId: string): string {
  const userDir = (RED.settings as unknown as { userDir?: string }).userDir ?? process.cwd();
  return join(userDir, 'detection-bridge', `dedupe-${nodeId.replace(/[^\w.-]/g, '_')}.keys`);
}

export = function register(RED: NodeAPI): void {
  registerNode<DedupeDef>(RED, 'detection-dedupe', (node, config) => {
    const t = nodeText(RED, 'detection-dedupe');
    const options = nodeOptions('detection-dedupe', config);
    const { mode, missingKey } = options;
    // Keys held bounds only the local window; a shared one is bounded by Redis's expiry.
    const limits = parseOptions(WindowLimits, { ttl: config.ttl, maxKeys: options.scope === 'redis' ? 1 : config.maxKeys });
    /** A configuration that cannot run: every message ends with the error (Catch nodes see it). */
    const fail = (problem: string): void => {
      failConfig(node, t('status.error'), problem, 'CONFIG');
      // a window kept from before stays for the next deploy, unless the node is gone
      node.on('close', (removed: boolean, done: () => void) => {
        if (removed) dropWindow(node.id);
        done();
      });
    };
    if (!limits.ok) {
      const [problem] = limits.problems;
      fail(t('errors.config', { message: `${problem.option}: ${translate(RED, problem)}` }));
      return;
    }
    const ttlMs = limits.value.ttl * UNIT_MS[options.ttlUnits];
    const refreshOnRepeat = mode === 'cooldown' && options.refresh;
    // Shared through Redis: the check and the set are one atomic command there.
    const connection = options.scope === 'redis' ? redisOf(RED, config.redis) : undefined;
    let shared: RedisSeenKeys | undefined;
    if (options.scope === 'redis') {
      if (!connection) {
        fail(t('errors.redis-missing'));
        return;
      }
      shared = new RedisSeenKeys(connection, {
        name: (config.sharedName ?? '').trim() || node.id,
        ttlMs,
        refreshOnRepeat,
      });
    }
    // No key saved (a hand-written node): this mode's key by name.
    const keyGiven = typeof config.key === 'string' && config.key.trim() !== '';
    const keyType = keyGiven ? config.keyType || 'msg' : KEY_CHOICE_TYPE;
    const keyValue = keyGiven ? config.key : mode === 'id' ? 'messageId' : 'plateAtCamera';
    const byName = keyType === KEY_CHOICE_TYPE;
    const property = config.property || 'payload';
    const propertyType = config.propertyType || 'msg';
    const withDuplicatesOutput = options.duplicatesOutput;
    // The old default key also finds the id inside an event from another source (MQTT, a file).
    const isDefaultIdKey = keyType === 'msg' && keyValue === 'messageId';

    let readKey: PropertyReader;
    try {
      if (byName && !isKeyChoice(keyValue)) throw new Error(t('errors.choice', { key: keyValue }));
      readKey = propertyReader(RED.util as unknown as PropertyUtil, node, byName ? property : keyValue, byName ? propertyType : keyType);
    } catch (err) {
      fail(t(byName ? 'errors.property' : 'errors.expression', { message: (err as Error).message }));
      return;
    }

    // Where the window is saved: the store of a kept window that changed is written afresh.
    const store = config.store || undefined;
    const persist = options.persist && !shared;
    const useKeyLog = persist && store === KEY_LOG_STORE;
    const windowSettings: KeptWindowSettings = {
      ttlMs,
      maxKeys: Math.floor(limits.value.maxKeys),
      refreshOnRepeat,
      // what a key is read from: keys of another definition mean something else
      keyDefinition: JSON.stringify(byName ? [keyType, keyValue, propertyType, property] : [keyType, keyValue]),
      persistence: !persist ? '' : useKeyLog ? KEY_LOG_STORE : `context:${store ?? ''}`,
    };
    // A deploy restarts the node: its previous instance's keys carry over (a local window; Redis keeps a shared one).
    if (shared) dropWindow(node.id);
    const takeOver = takeOverWindow(node.id, windowSettings);
    const window = takeOver.window;

    const counts = { passed: 0, dropped: 0 };
    const showStatus = throttledStatus(node, () => {
      if (connection) return withRedisState(RED, connection, t('status.shared', { passed: counts.passed, dropped: counts.dropped }));
      return {
        fill: 'green',
        shape: 'dot',
        text: t('status.counts', { passed: counts.passed, dropped: counts.dropped, keys: t('status.keys', { count: window.size }) }),
      };
    });
    // One warning per outage: a duplicate alert beats a lost one, but the user should know.
    let warnedUnreachable = false;
    const unwatch = connection?.use((state) => {
      if (state === 'connected') warnedUnreachable = false;
      showStatus();
    });

    /** Resolves the key of a message; undefined when it has none. */
    function keyOf(msg: NodeMessageInFlow): Promise<unknown> {
      return new Promise((resolve, reject) => {
        readKey(msg, (err, value) => {
          if (err) reject(err);
          else if (byName) resolve(choiceKey(keyValue as Parameters<typeof choiceKey>[0], value));
          else if (value === undefined && isDefaultIdKey) resolve(RED.util.getMessageProperty(msg, 'payload.payload.messageId'));
          else resolve(value);
        });
      });
    }

    // Persistence: load the saved window before handling the first message. Either
    // a context store (the window saved whole, every 2 s at most, then as often as
    // the store flushes) or the key log (each key on disk before its message goes on).
    // A window carried over from the previous instance (a deploy) is newer than any
    // store: it is used as it is, and written afresh where it was saved elsewhere.
    const context = node.context();
    let keyLog: KeyLog | undefined;
    let saveTimer: NodeJS.Timeout | undefined;
    const save = (): Promise<void> =>
      useKeyLog
        ? Promise.resolve(keyLog?.compact(window.snapshot())).then(
            () => undefined,
            (err: Error) => node.error(t('errors.persist', { message: err.message })),
          )
        : new Promise((resolve) => {
            context.set(CONTEXT_KEY, { v: 1, ttlMs, entries: window.snapshot() }, store as string, (err?: Error) => {
              if (err) node.error(t('errors.persist', { message: err.message }));
              resolve();
            });
          });
    const scheduleSave = (): void => {
      if (!persist || saveTimer) return;
      saveTimer = setTimeout(() => {
        saveTimer = undefined;
        void save();
      }, SAVE_DELAY_MS);
    };
    const ready: Promise<void> = !persist
      ? Promise.resolve()
      : useKeyLog
        ? KeyLog.open(keyLogPath(RED, node.id)).then(
            async (opened) => {
              keyLog = opened.log;
              if (!takeOver.carried) window.restore(opened.entries);
              else if (takeOver.persistenceChanged) await opened.log.rewrite(window.snapshot());
              if (opened.torn) node.warn(t('warn.key-log-torn'));
              showStatus();
            },
            (err: Error) => node.error(t('errors.persist', { message: err.message })),
          )
        : takeOver.carried
          ? Promise.resolve().then(() => {
              if (takeOver.persistenceChanged) scheduleSave();
              showStatus();
            })
          : new Promise((resolve) => {
              context.get(CONTEXT_KEY, store as string, (err: Error | undefined, saved: unknown) => {
                if (err) node.error(t('errors.persist', { message: err.message }));
                else if (saved && typeof saved === 'object') window.restore((saved as { entries?: unknown }).entries);
                showStatus();
                resolve();
              });
            });
    /** With the key log, a message goes on once its key is on disk; with Redis, once its check is
     *  answered. Either way the next message is checked meanwhile, and sends keep their order. */
    let lastSend: Promise<void> = Promise.resolve();
    const ordered = useKeyLog || shared !== undefined;
    const sendAfter = (written: Promise<unknown> | undefined, send: () => void): Promise<void> | undefined => {
      if (!ordered) {
        send();
        return undefined;
      }
      const sent = lastSend.then(() => written).then(send);
      lastSend = sent.catch(() => undefined);
      return sent;
    };
    if (!shared)
      node.status({
        fill: 'grey',
        shape: 'ring',
        text: t('status.counts', { passed: 0, dropped: 0, keys: t('status.keys', { count: window.size }) }),
      });

    let warnedNoKey = false;

    // Messages are handled strictly in arrival order (a reset must not overtake
    // the message before it), though key evaluation and loading are asynchronous.
    let queue: Promise<void> = Promise.resolve();
    node.on('input', (msg: NodeMessageInFlow, send: (m: Array<NodeMessage | null>) => void, done: (err?: Error) => void) => {
      // The next message is checked while this one's key is still being written:
      // keys written together share one sync, and sends keep their order.
      queue = queue.then(() =>
        handle(msg, send).then(
          ({ sending }) => {
            if (!sending) done();
            else
              sending.then(
                () => done(),
                (err: Error) => done(err),
              );
          },
          (err: unknown) => done(keyError(err)),
        ),
      );
    });

    /** JSONata throws plain objects; Catch nodes need an Error that says it was the key. */
    function keyError(err: unknown): Error {
      return err instanceof Error ? err : new Error(`${t('errors.key')}: ${flowError(RED, err).message}`);
    }

    /** Checks a message against the window; returns the send still under way (key log, Redis), wrapped:
     *  an async function returning a promise would make the queue wait for it, one message at a time. */
    async function handle(msg: NodeMessageInFlow, send: (m: Array<NodeMessage | null>) => void): Promise<{ sending?: Promise<void> }> {
      await ready;
      if (Object.prototype.hasOwnProperty.call(msg, 'reset')) {
        window.clear();
        counts.passed = 0;
        counts.dropped = 0;
        showStatus();
        scheduleSave();
        return { sending: sendAfter(shared ? shared.clear() : keyLog?.reset(), () => undefined) };
      }
      let key = await keyOf(msg);
      if (key === undefined || key === null || key === '') {
        if (missingKey === 'drop') {
          counts.dropped++;
          showStatus();
          finish(msg);
          return {};
        }
        if (missingKey === 'pass') {
          if (!warnedNoKey) {
            warnedNoKey = true;
            node.warn(t('warn.no-key', { key: `${keyType}.${keyValue}` }));
          }
          counts.passed++;
          showStatus();
          return { sending: sendAfter(undefined, () => send([msg, null])) };
        }
        key = `hash:${eventHash(msg.payload)}`;
      }
      const keyText = typeof key === 'string' ? key : JSON.stringify(key);
      const now = Date.now();
      // which delivery this is: kept with a key that passes, to know the same event emitted again
      const mark = deliveryMark((msg as { _delivery?: unknown })._delivery);
      if (shared) {
        // Sent now, answered with the next ones: one round trip per burst, not per message.
        const checked = shared.check(keyText, now, mark).catch((err: Error) => err);
        const decided = lastSend.then(() => checked).then((result) => void decide(msg, send, keyText, result, now, mark));
        lastSend = decided.catch(() => undefined);
        return { sending: decided };
      }
      const sighting = window.check(keyText, now, mark);
      scheduleSave();
      return { sending: decide(msg, send, keyText, sighting, now, mark) };
    }

    /** Passes, diverts or drops a message by its sighting (or the Redis failure in its place). */
    function decide(
      msg: NodeMessageInFlow,
      send: (m: Array<NodeMessage | null>) => void,
      keyText: string,
      sighting: Sighting | Error,
      now: number,
      mark: string | undefined,
    ): Promise<void> | undefined {
      if (sighting instanceof Error) {
        if (!warnedUnreachable) {
          warnedUnreachable = true;
          node.warn(t(options.whenUnreachable === 'drop' ? 'warn.redis-drop' : 'warn.redis-pass', { message: sighting.message }));
        }
        if (options.whenUnreachable === 'drop') {
          counts.dropped++;
          showStatus();
          finish(msg);
          return undefined;
        }
        counts.passed++;
        showStatus();
        send([msg, null]);
        return undefined;
      }
      // An event detection-in emits again (after a crash or a deploy) passes only when it is
      // the very event that let its key through (the flow never finished it); a repeat of
      // an event that passed, redelivered or not, is dropped: no alert goes out twice.
      const redelivered = (msg as { redelivered?: unknown }).redelivered === true;
      if (!sighting.duplicate || passes(sighting, redelivered, mark)) {
        counts.passed++;
        showStatus();
        if (shared) {
          send([msg, null]);
          return undefined;
        }
        return sendAfter(sighting.duplicate ? undefined : keyLog?.record(keyText, now, mark), () => send([msg, null]));
      }
      counts.dropped++;
      showStatus();
      // a sliding cooldown restarted the key's window: that is news for the log too (with the first message's mark)
      const written = refreshOnRepeat ? keyLog?.record(keyText, now, sighting.by) : undefined;
      if (withDuplicatesOutput) {
        (msg as NodeMessageInFlow & { duplicateOf: unknown }).duplicateOf = { key: keyText, firstSeen: new Date(sighting.since).toISOString() };
        if (shared) {
          send([null, msg]);
          return undefined;
        }
        return sendAfter(written, () => send([null, msg]));
      }
      finish(msg);
      return shared ? undefined : sendAfter(written, () => undefined);
    }

    /** Dropped here on purpose: finished, so its receiver does not emit it again. */
    function finish(msg: NodeMessageInFlow): void {
      const token = (msg as { _delivery?: unknown })._delivery;
      if (isDeliveryToken(token)) completeDelivery(token);
    }

    node.on('close', (removed: boolean, done: () => void) => {
      // the next instance (a deploy) takes the keys over; a removed node's are forgotten
      if (removed || shared) dropWindow(node.id);
      else keepWindow(node.id, window, windowSettings);
      unwatch?.();
      if (saveTimer) clearTimeout(saveTimer);
      saveTimer = undefined;
      // Wait for a load still under way, or an empty window would overwrite the saved one.
      if (persist)
        void ready.then(save).then(async () => {
          await lastSend;
          await keyLog?.close();
          done();
        });
      else done();
    });
  });
};
