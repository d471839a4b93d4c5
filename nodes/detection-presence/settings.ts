/**
 * detection-presence's configuration as the node runs it: the options with
 * their defaults (lib/config/node-options.ts), where the event is read, what
 * a key is, the times, and where the table is kept. A configuration that
 * cannot run is a problem (translated text) instead.
 */
import type { NodeAPI, NodeDef } from 'node-red';
import { durationMs, nodeOptions, type NodeOptionValues, type SavedOptions } from '../../lib/config';
import { DEFAULT_LOOKALIKE_CLASSES, parseLookalikeClasses } from '../../lib/plates';
import { keyDefinition, parseCameraList, type Keying, type PresenceOptions } from '../../lib/presence';
import { translate, type Vars } from '../shared/i18n';
import { propertyReader, typedLabel, type PropertyReader, type PropertyUtil } from '../shared/typed-property';

/** The saved configuration: the table's options (lib/config/node-options.ts) and the node's own fields. */
export interface PresenceDef extends NodeDef, SavedOptions<'detection-presence'> {
  /** Where the event is read (msg.payload by default). */
  property?: string;
  propertyType?: string;
  /** Look-alike classes as typed (`0ODQ 1I 2Z 5S 8B 6G`). */
  lookalikeClasses?: string;
  /** Exit cameras' names, separated by commas. */
  exitCameras?: string;
  /** scope redis: the detection-redis configuration node. */
  redis?: string;
  /** scope redis: the table's name in Redis; nodes with the same name share it (default: the node's id). */
  sharedName?: string;
}

export interface PresenceSettings {
  readEvent: PropertyReader;
  /** Where the event is read, as a person writes it (`msg.payload`). */
  eventName: string;
  keying: Keying;
  /** What keys mean: a kept or saved table of another definition is not used. */
  keys: string;
  table: PresenceOptions;
  whenUnreachable: NodeOptionValues<'detection-presence'>['whenUnreachable'];
  /** Redis: the configuration node and the table's name there. */
  shared?: { redis: string | undefined; name: string };
}

export function presenceSettings(
  RED: NodeAPI,
  node: { id: string },
  config: PresenceDef,
  t: (key: string, vars?: Vars) => string,
): { ok: true; settings: PresenceSettings } | { ok: false; problem: string } {
  const options = nodeOptions('detection-presence', config);
  const property = config.property || 'payload';
  const propertyType = config.propertyType || 'msg';
  let readEvent: PropertyReader;
  try {
    readEvent = propertyReader(RED.util as unknown as PropertyUtil, node, property, propertyType);
  } catch (err) {
    return { ok: false, problem: t('errors.property', { message: (err as Error).message }) };
  }
  let keying: Keying = { by: options.keyBy, exitCameras: parseCameraList(config.exitCameras) };
  // classes matter only where plates are a key: a face or externalId key never reads them
  if (options.lookalike && (options.keyBy === 'plateOrFace' || options.keyBy === 'plate')) {
    // a node saved without classes uses the default ones
    const classes = typeof config.lookalikeClasses === 'string' ? config.lookalikeClasses : DEFAULT_LOOKALIKE_CLASSES;
    const parsed = parseLookalikeClasses(classes);
    if (!parsed.ok) return { ok: false, problem: t('errors.lookalike', { message: translate(RED, parsed.problem) }) };
    keying = { ...keying, lookalikes: parsed.lookalikes };
  }
  const shared = options.scope === 'redis';
  return {
    ok: true,
    settings: {
      readEvent,
      eventName: typedLabel(propertyType, property),
      keying,
      keys: keyDefinition(keying),
      table: {
        awayMs: durationMs(options.away, options.awayUnits),
        stillHereMs: durationMs(options.stillHere, options.stillHereUnits),
        maxKeys: options.maxKeys,
      },
      whenUnreachable: options.whenUnreachable,
      shared: shared ? { redis: config.redis, name: (config.sharedName ?? '').trim() || node.id } : undefined,
    },
  };
}
