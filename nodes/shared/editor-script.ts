/**
 * The package's editor script, `detection-bridge/editor.js`: every node's
 * editor file loads it first (Node-RED loads a node file's relative
 * <script src> before the file's own scripts). It defines
 * `DetectionBridgeConfig` (the configuration versions of
 * lib/config/migrate.ts, and their migration as the editor adds nodes) and
 * `DetectionBridgeEditor` (what the dialogs share, editor-helpers.ts), and
 * `DetectionBridgeDownstream` (lib/delivery/downstream.ts: whether a
 * detection-done is wired downstream of a receiver, as the runtime decides it).
 */
import fs from 'node:fs';
import type { NodeAPI } from 'node-red';
import { installInEditor } from './config-version';
import { editorHelpers } from './editor-helpers';

/** Where the editor script is served, relative to the editor (the node files' <script src>). */
export const EDITOR_SCRIPT = 'detection-bridge/editor.js';

let script: string | undefined;
/** The script: lib/config/migrate.js as `DetectionBridgeConfig` with installInEditor run once, and the helpers. */
export function editorScript(): string {
  if (script !== undefined) return script;
  const migrate = fs.readFileSync(require.resolve('../../lib/config/migrate'), 'utf8');
  const downstream = fs.readFileSync(require.resolve('../../lib/delivery/downstream'), 'utf8');
  script = [
    '/* node-red-contrib-detection-bridge: configuration versions (lib/config/migrate.ts) and what the dialogs share. Every node file of the package loads this. */',
    '(function () {',
    '  if (window.DetectionBridgeConfig) return;',
    '  var module = { exports: {} };',
    '  (function (exports, module) {',
    migrate,
    '  })(module.exports, module);',
    '  window.DetectionBridgeConfig = module.exports;',
    `  (${installInEditor.toString()})(RED, module.exports);`,
    `  window.DetectionBridgeEditor = (${editorHelpers.toString()})(RED);`,
    '  window.DetectionBridgeDownstream = (function () {',
    '    var module = { exports: {} };',
    '    (function (exports, module) {',
    downstream,
    '    })(module.exports, module);',
    '    return module.exports;',
    '  })();',
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
