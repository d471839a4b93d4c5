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
 * saves it). Both run this very file: nodes/shared/config-version.ts serves
 * its compiled text to the editor, so it imports nothing and uses nothing a
 * browser lacks.
 *
 * Writing a step: it gets a copy it may change and returns it. The editor
 * keeps only the properties a type declares in its `defaults`, so a property
 * a step reads must stay declared there (even if no dialog shows it any more).
 */

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

/** Every node type of the package; steps[0] goes from version 1 to 2, steps[1] from 2 to 3, … */
const STEPS: Readonly<Record<string, readonly Step[]>> = {
  'detection-in': [],
  'detection-switch': [],
  'detection-filter': [],
  'detection-dedupe': [],
  'detection-image': [],
  'detection-sample': [sampleKindTyped, sampleBridge],
  'detection-done': [],
  'detection-redis': [],
  'detection-listener': [],
  'platform-server': [],
  'platform-push': [pushTyped],
  'platform-request': [requestTyped],
  'events-bridge': [],
  'detection-enroll': [],
};

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
