/**
 * The version of each node type's saved configuration, and the steps that
 * bring an older one up to date.
 *
 * Every node saves its version in `configVersion`. A flow saved before
 * versions existed has none: that is version 1. A step turns the
 * configuration of version N into that of N + 1; the steps of a type are run
 * in order, so a flow saved several releases ago is brought up to date one
 * step at a time. The runtime runs them when a node is created (a flow runs
 * as intended without being opened), and the editor when a node is loaded,
 * imported or pasted (its dialog shows the current shape, and the next deploy
 * saves it). Both run this very file: nodes/shared/editor-script.ts serves
 * its compiled text to the editor, so it imports only the option table
 * (served beside it) and uses nothing a browser lacks.
 *
 * Writing a step: it gets a copy it may change and returns it. The editor
 * keeps only the properties a type declares in its `defaults`, so a property
 * a step reads must stay declared there (even if no dialog shows it any more).
 */

import { NODE_OPTIONS } from './node-options';

/** Where a node's configuration version is saved. */
export const VERSION_PROPERTY = 'configVersion';

export type Config = Record<string, unknown>;
/** From version N to N + 1, on a copy it may change. */
type Step = (config: Config) => Config;

/** detection-sample 1 → 2: Kind's "From msg.kind" option became the TypedInput's msg type. */
function sampleKindTyped(config: Config): Config {
  if (config.kind === 'msg') return { ...config, kind: 'kind', kindType: 'msg' };
  return { ...config, kindType: 'kind' };
}

/**
 * detection-sample 2 → 3: a fetched sample comes through an events-bridge
 * configuration node (\`bridge\`). A step cannot create one, so none is
 * chosen; the node's own Bridge URL, TLS option and timeout stay, and it
 * keeps fetching from them until a bridge is chosen (the dialog says so).
 */
function sampleBridge(config: Config): Config {
  return { ...config, bridge: typeof config.bridge === 'string' ? config.bridge : '' };
}

/**
 * platform-push 1 → 2: POS instance and path became TypedInputs. An empty
 * POS instance meant msg.posId; a set one was the fallback of msg.posId,
 * which won when a message carried it. JSONata says exactly that, so a
 * saved flow sends every transaction where it did before.
 */
function pushTyped(config: Config): Config {
  const posId = typeof config.posId === 'string' ? config.posId.trim() : '';
  const pos =
    posId === '' ? { posId: 'posId', posIdType: 'msg' } : { posId: `$exists(posId) ? posId : ${JSON.stringify(posId)}`, posIdType: 'jsonata' };
  return { ...config, ...pos, pathType: 'str' };
}

/** platform-request 1 → 2: Method's "set by msg.method" and an empty path (msg.path) became the TypedInputs' msg type. */
function requestTyped(config: Config): Config {
  const method = config.method === 'msg' ? { method: 'method', methodType: 'msg' } : { methodType: 'method' };
  const empty = typeof config.path !== 'string' || config.path.trim() === '';
  const path = empty ? { path: 'path', pathType: 'msg' } : { pathType: 'str' };
  return { ...config, ...method, ...path };
}

/** The cooldown's default key before keys could be picked by name (detection-dedupe 1 → 2). */
const DEDUPE_OLD_COOLDOWN_KEY =
  '($p := payload.payload; ($p.lprPlateInfo.plate ? $p.lprPlateInfo.plate : $p.personInfo.faceId) & " @ " & $p.detectionInfo.detectorName)';

/**
 * detection-dedupe 1 → 2: keys can be picked by name (keyType "event"), read
 * from the event at \`property\` (msg.payload). A node that kept the old
 * cooldown expression gets "plate at camera", which makes the same keys;
 * every other key stays as it was.
 */
function dedupeKeyByName(config: Config): Config {
  const out: Config = {
    ...config,
    property: typeof config.property === 'string' && config.property !== '' ? config.property : 'payload',
    propertyType: typeof config.propertyType === 'string' && config.propertyType !== '' ? config.propertyType : 'msg',
  };
  if (config.keyType === 'jsonata' && typeof config.key === 'string' && config.key.trim() === DEDUPE_OLD_COOLDOWN_KEY) {
    out.key = 'plateAtCamera';
    out.keyType = 'event';
  }
  return out;
}

/** Every node type of the package; steps[0] goes from version 1 to 2, steps[1] from 2 to 3, … */
const STEPS: Readonly<Record<string, readonly Step[]>> = {
  'detection-in': [],
  'detection-switch': [],
  'detection-filter': [],
  'detection-dedupe': [dedupeKeyByName],
  'detection-image': [],
  'detection-alert': [],
  'detection-sample': [sampleKindTyped, sampleBridge],
  'detection-done': [],
  'detection-redis': [],
  'detection-listener': [],
  'platform-server': [],
  'platform-push': [pushTyped],
  'platform-request': [requestTyped],
  'events-bridge': [],
  'detection-enroll': [],
  'detection-monitor': [],
  'detection-presence': [],
  'detection-alarm': [],
};

/**
 * What a property a saved node lacks has always meant where that is not what
 * a new node gets (the editor's default): the `absent` of its rule in
 * lib/config/node-options.ts, the runtime's fallback for it. An old receiver
 * without `auth` took no credentials; a cooldown without `ttlUnits` counted seconds.
 */
function absentValues(type: string): Config {
  const rules: Readonly<Record<string, { absent?: unknown }>> = (NODE_OPTIONS as Record<string, Record<string, { absent?: unknown }>>)[type] ?? {};
  const out: Config = {};
  for (const name of Object.keys(rules)) if (rules[name].absent !== undefined) out[name] = rules[name].absent;
  return out;
}

/** Properties Node-RED's editor sets itself on import (from the wires), never filled here. */
const EDITOR_OWNED = new Set(['inputs', 'outputs']);

/**
 * `config` with every property it lacks (undefined) filled: with what the
 * lack has always meant (ABSENT), else with `defaults` (a new node's values,
 * the editor's `defaults` of the type). Node-RED's import keeps a missing
 * property missing, so an example or a flow saved before an option existed
 * would show that option empty, and invalid, in its dialog; the runtime
 * already runs such a node with the same values. Returned as it is when
 * nothing is missing; the values are copies (a default list is not shared).
 */
export function completeConfig(type: string, config: Readonly<Config>, defaults: Readonly<Config>): Config {
  const absent = isVersioned(type) ? absentValues(type) : {};
  let out: Config | undefined;
  for (const key of Object.keys(defaults)) {
    if (config[key] !== undefined || EDITOR_OWNED.has(key)) continue;
    const value = Object.prototype.hasOwnProperty.call(absent, key) ? absent[key] : defaults[key];
    if (value === undefined) continue;
    out = out ?? { ...config };
    out[key] = value !== null && typeof value === 'object' ? JSON.parse(JSON.stringify(value)) : value;
  }
  return out ?? (config as Config);
}

/** Whether `type` is a node type of this package. */
export function isVersioned(type: string): boolean {
  return Object.prototype.hasOwnProperty.call(STEPS, type);
}

/** The version a node of `type` saves now (1 for a type with no steps yet, and for a type not of this package). */
export function currentVersion(type: string): number {
  return isVersioned(type) ? STEPS[type].length + 1 : 1;
}

/** The version a configuration was saved with: 1 when it has none (saved before versions existed) or none that makes sense. */
export function versionOf(config: Readonly<Config>): number {
  const saved = config[VERSION_PROPERTY];
  const version = typeof saved === 'number' || typeof saved === 'string' ? Number(saved) : NaN;
  return Number.isInteger(version) && version >= 1 ? version : 1;
}

/** Whether a configuration was saved by a newer release of the package than this one (it has versions this one does not know). */
export function isNewer(type: string, config: Readonly<Config>): boolean {
  return versionOf(config) > currentVersion(type);
}

/**
 * The configuration of a node of `type` in the current shape, with the
 * current version. The input is never changed: an up-to-date configuration
 * is returned as it is, anything older as a new object. A configuration from
 * a newer release is returned as it is too (no step can undo what a newer
 * release changed; the caller says so), and so is one of a type this package
 * does not know.
 */
export function migrateConfig(type: string, config: Readonly<Config>): Config {
  if (!isVersioned(type)) return config;
  const current = currentVersion(type);
  const from = versionOf(config);
  if (from > current || config[VERSION_PROPERTY] === current) return config;
  let out: Config = { ...config };
  for (let version = from; version < current; version++) out = STEPS[type][version - 1]({ ...out });
  out[VERSION_PROPERTY] = current;
  return out;
}
