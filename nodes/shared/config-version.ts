/**
 * Configuration versions in Node-RED (lib/config/migrate.ts has the versions
 * and the steps): the runtime brings a node's saved configuration up to date
 * before the node sees it, and the editor gets the same steps as a script.
 *
 * Why a script: the editor must migrate a node as it is loaded, imported or
 * pasted, before its dialog or its validators see it, and must not keep a
 * copy of the steps that could drift from the runtime's. So each node's
 * editor file loads `detection-bridge/config-version.js` (Node-RED loads a
 * node file's relative <script src> before the file's own scripts), and that
 * script is the compiled lib/config/migrate.js, wrapped, plus installInEditor
 * below. Node-RED's import does not give a missing property its default
 * (only dropping a new node from the palette does), so a node from a flow
 * saved before versions existed arrives without `configVersion` and is
 * migrated from version 1, while a new node gets the current version from
 * its defaults and is left alone.
 */
import fs from 'node:fs';
import type { Node, NodeAPI } from 'node-red';
import { currentVersion, isNewer, migrateConfig, versionOf, type Config } from '../../lib/config/migrate';

/** Where the editor script is served, relative to the editor (the node files' <script src>). */
export const EDITOR_SCRIPT = 'detection-bridge/config-version.js';

/**
 * The configuration a node of `type` runs with: `saved` brought up to date.
 * A configuration saved by a newer release of the package runs as it is,
 * with a warning (each option the node does not understand takes its
 * default, as for any configuration edited by hand).
 */
export function upToDate<T extends object>(RED: NodeAPI, node: Node, type: string, saved: T): T {
  if (isNewer(type, saved as Config)) {
    node.warn(RED._('config-version.newer', { saved: versionOf(saved as Config), current: currentVersion(type) }));
    return saved;
  }
  return migrateConfig(type, saved as Config) as T;
}

/** The parts of the editor's RED that installInEditor uses. */
interface EditorRED {
  events: { on(event: 'nodes:add', handler: (node: EditorNode) => void): void };
}
interface EditorNode {
  type: string;
  _def?: { defaults?: Record<string, unknown> };
  /** The node behind the editor's proxy (Node-RED 4+). */
  __node__?: EditorNode;
  [property: string]: unknown;
}
type Migration = Pick<typeof import('../../lib/config/migrate'), 'isVersioned' | 'migrateConfig'>;

/**
 * Runs in the editor, sent as its source text: it may use nothing but its
 * arguments. Migrates each node of the package as the editor adds it to the
 * workspace (loading the flows, an import, a paste, undo), before its
 * validators run. The changes go to the node behind the editor's proxy: the
 * proxy refuses them in a locked flow, and they are no edit of the user's
 * to undo or to mark as changed (the runtime runs the same steps; the next
 * deploy saves the new shape).
 */
function installInEditor(RED: EditorRED, migration: Migration): void {
  RED.events.on('nodes:add', (node) => {
    if (!migration.isVersioned(node.type) || !node._def || !node._def.defaults) return;
    const target = node.__node__ || node;
    const saved: Record<string, unknown> = {};
    for (const key of Object.keys(node._def.defaults)) saved[key] = target[key];
    const migrated = migration.migrateConfig(node.type, saved);
    if (migrated === saved) return;
    for (const key of Object.keys(migrated)) if (migrated[key] !== saved[key]) target[key] = migrated[key];
  });
}

let script: string | undefined;
/** The editor script: lib/config/migrate.js as `DetectionBridgeConfig`, and installInEditor run once. */
export function editorScript(): string {
  if (script !== undefined) return script;
  const migrate = fs.readFileSync(require.resolve('../../lib/config/migrate'), 'utf8');
  script = [
    '/* node-red-contrib-detection-bridge: configuration versions (lib/config/migrate.ts). Every node file of the package loads this. */',
    '(function () {',
    '  if (window.DetectionBridgeConfig) return;',
    '  var module = { exports: {} };',
    '  (function (exports, module) {',
    migrate,
    '  })(module.exports, module);',
    '  window.DetectionBridgeConfig = module.exports;',
    `  (${installInEditor.toString()})(RED, module.exports);`,
    '})();',
    '',
  ].join('\n');
  return script;
}

const serving = new WeakSet<object>();
/**
 * Serves the editor script on the admin app, once. Without an access check:
 * the editor loads it with a <script> element, which cannot send the
 * editor's token, and a node file whose script fails to load stops the
 * editor from loading at all. It is the package's code, as public as the
 * node files Node-RED serves (and its /icons and /resources) without one.
 */
export function serveEditorScript(RED: NodeAPI): void {
  const app = RED.httpAdmin;
  if (!app || serving.has(app)) return;
  serving.add(app);
  app.get(`/${EDITOR_SCRIPT}`, (_req, res) => {
    // Checked again on every editor load, so an updated package is never run with stale steps.
    res.set('Cache-Control', 'no-cache');
    res.type('application/javascript').send(editorScript());
  });
}
