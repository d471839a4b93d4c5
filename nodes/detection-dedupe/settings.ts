/**
 * detection-dedupe's configuration as the node runs it: options with their
 * defaults, the window's size, how a message's key is read, and where the
 * window is kept and saved. A configuration that cannot run is a problem
 * (translated text) instead.
 */
import type { NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { type CapSettings, choiceKey, isKeyChoice, KEY_CHOICE_TYPE, plateRead, type KeyChoice, type KeptWindowSettings } from '../../lib/dedupe';
import type { Clock } from '../../lib/core';
import { durationMs, readNodeOptions, type NodeOptionValues, type SavedOptions, type WrongOption } from '../../lib/config';
import { translate, type Vars } from '../shared/i18n';
import { propertyReader, type PropertyUtil } from '../shared/typed-property';

/** The saved configuration: the table's options (lib/config/node-options.ts) and the node's own fields. */
export interface DedupeDef extends NodeDef, SavedOptions<'detection-dedupe'> {
  key: string;
  /** A key picked by name ('event': key is one of KEY_CHOICES), or a property or expression (msg, flow, global, env, jsonata). */
  keyType: string;
  /** Where a key picked by name reads the event (msg.payload by default). */
  property?: string;
  propertyType?: string;
  store: string;
  /** scope redis: the detection-redis configuration node. */
  redis?: string;
  /** scope redis: the window's name in Redis; instances with the same name share it (default: the node's id). */
  sharedName?: string;
}

type DedupeOptions = NodeOptionValues<'detection-dedupe'>;

/** The `store` value that persists to an append-only key log on disk instead of a context store. */
export const KEY_LOG_STORE = 'detection-bridge:key-log';

export interface DedupeSettings {
  missingKey: DedupeOptions['missingKey'];
  whenUnreachable: DedupeOptions['whenUnreachable'];
  duplicatesOutput: boolean;
  /** What the key was read from, for the warning about messages without one. */
  keyName: string;
  /** A message's key (undefined, null or '' when it has none), and the plate as read for a key that folds look-alikes. */
  keyOf(msg: NodeMessageInFlow): Promise<{ key: unknown; read?: string }>;
  /** The local window (its size, and what its keys mean). */
  window: KeptWindowSettings;
  /** Redis: the configuration node and the window's name there. */
  shared?: { redis: string | undefined; name: string };
  /** Local: saved to the key log, a context store (its name; undefined: the default), or not at all. */
  save?: { keyLog: true } | { keyLog: false; store: string | undefined };
  /** The cap, when it is on. */
  cap?: CapSettings;
  /** With the cap: urgent messages pass it uncounted. */
  capUrgent: boolean;
}

/** The node's settings, or the problem that keeps it from running. */
export function dedupeSettings(
  RED: NodeAPI,
  node: { id: string },
  config: DedupeDef,
  t: (key: string, vars?: Vars) => string,
  clock: Clock,
): { ok: true; settings: DedupeSettings } | { ok: false; problem: string } {
  const read = readNodeOptions('detection-dedupe', config);
  const options = read.values;
  const shared = options.scope === 'redis';
  // The window's and the cap's sizes: a number out of range stops the node rather than drop or
  // hold back alerts by a number nobody chose (a value that is no number runs with the default, with a warning).
  // Keys held bound only the local window (a shared one is bounded by Redis's expiry, and keeps none here); the cap's, only when it is on.
  const stopping = (name: string) =>
    name === 'ttl' || (name === 'maxKeys' && !shared) || (options.cap && (name === 'capCount' || name === 'capPeriod'));
  const stop: WrongOption | undefined = read.stops.find((wrong) => stopping(wrong.option));
  const maxKeys = shared ? 1 : Math.floor(options.maxKeys);
  if (stop) {
    const message = translate(RED, { key: `options.${stop.problem.key}`, params: stop.problem.params });
    return { ok: false, problem: t('errors.config', { message: `${stop.option}: ${message}` }) };
  }
  // No key saved (a hand-written node): this mode's key by name.
  const keyGiven = typeof config.key === 'string' && config.key.trim() !== '';
  const keyType = keyGiven ? config.keyType || 'msg' : KEY_CHOICE_TYPE;
  const keyValue = keyGiven ? config.key : options.mode === 'id' ? 'messageId' : 'plateAtCamera';
  const byName = keyType === KEY_CHOICE_TYPE;
  const property = config.property || 'payload';
  const propertyType = config.propertyType || 'msg';
  // The old default key also finds the id inside an event from another source (MQTT, a file).
  const isDefaultIdKey = keyType === 'msg' && keyValue === 'messageId';
  let readKey: ReturnType<typeof propertyReader>;
  try {
    if (byName && !isKeyChoice(keyValue)) throw new Error(t('errors.choice', { key: keyValue }));
    readKey = propertyReader(RED.util as unknown as PropertyUtil, node, byName ? property : keyValue, byName ? propertyType : keyType);
  } catch (err) {
    return { ok: false, problem: t(byName ? 'errors.property' : 'errors.expression', { message: (err as Error).message }) };
  }
  const keyOf = (msg: NodeMessageInFlow): Promise<{ key: unknown; read?: string }> =>
    new Promise((resolve, reject) => {
      readKey(msg, (err, value) => {
        if (err) reject(err);
        else if (byName) {
          const choice = keyValue as KeyChoice;
          resolve({ key: choiceKey(choice, value), read: plateRead(choice, value) });
        } else if (value === undefined && isDefaultIdKey) resolve({ key: innerMessageId(msg) });
        else resolve({ key: value });
      });
    });

  const store = config.store || undefined;
  const persist = options.persist && !shared;
  const keyLog = persist && store === KEY_LOG_STORE;
  return {
    ok: true,
    settings: {
      missingKey: options.missingKey,
      whenUnreachable: options.whenUnreachable,
      duplicatesOutput: options.duplicatesOutput,
      keyName: `${keyType}.${keyValue}`,
      keyOf,
      window: {
        ttlMs: durationMs(options.ttl, options.ttlUnits),
        maxKeys,
        refreshOnRepeat: options.mode === 'cooldown' && options.refresh,
        // what a key is read from: keys of another definition mean something else
        keyDefinition: JSON.stringify(byName ? [keyType, keyValue, propertyType, property] : [keyType, keyValue]),
        // where the window is saved: the store of a kept window that changed is written afresh
        persistence: !persist ? '' : keyLog ? KEY_LOG_STORE : `context:${store ?? ''}`,
        clock,
      },
      shared: shared ? { redis: config.redis, name: (config.sharedName ?? '').trim() || node.id } : undefined,
      save: !persist ? undefined : keyLog ? { keyLog: true } : { keyLog: false, store },
      cap: options.cap
        ? {
            count: Math.floor(options.capCount),
            periodMs: durationMs(options.capPeriod, options.capUnits),
            per: options.capPer,
            // per key: counted keys bounded as the window's keys are (a shared cap's live in Redis)
            maxKeys,
          }
        : undefined,
      capUrgent: options.capUrgent,
    },
  };
}

/** The bridge's id inside an event (msg.payload.payload.messageId), or undefined where a level is missing (a message of another shape has no key, rather than an error). */
function innerMessageId(msg: NodeMessageInFlow): unknown {
  const event = (msg as { payload?: unknown }).payload;
  const inner = event !== null && typeof event === 'object' ? (event as { payload?: unknown }).payload : undefined;
  return inner !== null && typeof inner === 'object' ? (inner as { messageId?: unknown }).messageId : undefined;
}
