/**
 * detection-dedupe's configuration as the node runs it: options with their
 * defaults, the window's size, how a message's key is read, and where the
 * window is kept and saved. A configuration that cannot run is a problem
 * (translated text) instead.
 */
import type { NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { z } from 'zod';
import { type CapSettings, choiceKey, isKeyChoice, KEY_CHOICE_TYPE, plateRead, type KeyChoice, type KeptWindowSettings } from '../../lib/dedupe';
import { type Clock, limitOption, parseOptions, type OptionProblem } from '../../lib/core';
import { nodeOptions, optionRule, type NodeOptionsTable } from '../../lib/config';
import { translate, type Vars } from '../shared/i18n';
import { propertyReader, type PropertyUtil } from '../shared/typed-property';

/** The dialog's choices, as lib/config/node-options.ts states them. */
type DedupeOptions = NodeOptionsTable['detection-dedupe'];

export interface DedupeDef extends NodeDef {
  mode: DedupeOptions['mode']['choices'][number];
  key: string;
  /** A key picked by name ('event': key is one of KEY_CHOICES), or a property or expression (msg, flow, global, env, jsonata). */
  keyType: string;
  /** Where a key picked by name reads the event (msg.payload by default). */
  property?: string;
  propertyType?: string;
  missingKey: DedupeOptions['missingKey']['choices'][number];
  ttl: number | string;
  ttlUnits: 's' | 'm' | 'h';
  /** Cooldown: counted from the last sighting (true, a sliding cooldown) or from the message that passed (false). */
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
  /** The cap: at most capCount messages per capPeriod capUnits, overall or per key; what it holds back goes into a digest. */
  cap?: boolean;
  capCount?: number | string;
  capPeriod?: number | string;
  capUnits?: DedupeOptions['capUnits']['choices'][number];
  capPer?: DedupeOptions['capPer']['choices'][number];
  /** Urgent messages (msg.priority urgent or high) pass the cap uncounted. */
  capUrgent?: boolean;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;
/** An option's default in lib's table. */
const optionDefault = (name: 'capCount' | 'capPeriod'): unknown => optionRule('detection-dedupe', name).default;
/** The window's size: a flow cannot run without them, so a bad value is an error, not a default. */
const WindowLimits = z.object({
  ttl: limitOption(optionRule('detection-dedupe', 'ttl')),
  maxKeys: limitOption(optionRule('detection-dedupe', 'maxKeys')),
});
/** The cap's size, when it is on: a wrong one stops the node rather than hold back alerts by a number nobody chose. */
const CapLimits = z.object({
  capCount: limitOption(optionRule('detection-dedupe', 'capCount')),
  capPeriod: limitOption(optionRule('detection-dedupe', 'capPeriod')),
});
/** The `store` value that persists to an append-only key log on disk instead of a context store. */
export const KEY_LOG_STORE = 'detection-bridge:key-log';

export interface DedupeSettings {
  missingKey: DedupeDef['missingKey'];
  whenUnreachable: NonNullable<DedupeDef['whenUnreachable']>;
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
  const options = nodeOptions('detection-dedupe', config);
  const shared = options.scope === 'redis';
  // Keys held bounds only the local window; a shared one is bounded by Redis's expiry.
  const limits = parseOptions(WindowLimits, { ttl: config.ttl, maxKeys: shared ? 1 : config.maxKeys });
  // A cap saved without its numbers (by hand) takes the dialog's; a wrong one stops the node.
  const capLimits = parseOptions(CapLimits, {
    capCount: config.capCount ?? optionDefault('capCount'),
    capPeriod: config.capPeriod ?? optionDefault('capPeriod'),
  });
  const configProblem = (problem: OptionProblem) =>
    ({ ok: false, problem: t('errors.config', { message: `${problem.option}: ${translate(RED, problem)}` }) }) as const;
  if (!limits.ok) return configProblem(limits.problems[0]);
  if (options.cap && !capLimits.ok) return configProblem(capLimits.problems[0]);
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
        ttlMs: limits.value.ttl * UNIT_MS[options.ttlUnits],
        maxKeys: Math.floor(limits.value.maxKeys),
        refreshOnRepeat: options.mode === 'cooldown' && options.refresh,
        // what a key is read from: keys of another definition mean something else
        keyDefinition: JSON.stringify(byName ? [keyType, keyValue, propertyType, property] : [keyType, keyValue]),
        // where the window is saved: the store of a kept window that changed is written afresh
        persistence: !persist ? '' : keyLog ? KEY_LOG_STORE : `context:${store ?? ''}`,
        clock,
      },
      shared: shared ? { redis: config.redis, name: (config.sharedName ?? '').trim() || node.id } : undefined,
      save: !persist ? undefined : keyLog ? { keyLog: true } : { keyLog: false, store },
      cap:
        options.cap && capLimits.ok
          ? {
              count: Math.floor(capLimits.value.capCount),
              periodMs: capLimits.value.capPeriod * UNIT_MS[options.capUnits],
              per: options.capPer,
              // per key: counted keys bounded as the window's keys are (a shared cap's live in Redis)
              maxKeys: Math.floor(limits.value.maxKeys),
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
