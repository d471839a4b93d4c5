/**
 * The package's editor script, `detection-bridge/editor.js`: every node's
 * editor file loads it first (Node-RED loads a node file's relative
 * <script src> before the file's own scripts). It defines
 * `DetectionBridgeConfig` (the configuration versions of
 * lib/config/migrate.ts, and their migration as the editor adds nodes),
 * `DetectionBridgeOptions` (each node's option rules, lib/config/node-options.ts),
 * `DetectionBridgeEditor` (what the dialogs share, editor-helpers.ts),
 * `DetectionBridgeDownstream` (lib/delivery/downstream.ts: whether a
 * detection-done is wired downstream of a receiver, as the runtime decides it),
 * `DetectionBridgeTimeWindows` (lib/events/time-window.ts: detection
 * filter's time windows and zones, read as the runtime reads them), and
 * `DetectionBridgePlates` (lib/plates/lookalike.ts: look-alike classes,
 * checked as the runtime checks them), `DetectionBridgeFilter`
 * (lib/events/filter-rules.ts: detection filter's rule checks and summaries),
 * `DetectionBridgeAuth`
 * (lib/receiver/auth-config.ts: the credentials each authentication needs),
 * `DetectionBridgeRoutes` (lib/http/route-path.ts: a path's route key and
 * check), `DetectionBridgeUrls` (lib/http/base-url.ts: a base URL's check)
 * `DetectionBridgeAlert` (lib/alert/template.ts: the fields an alert's templates name)
 * and `DetectionBridgeEnrollment` (lib/bridge/enroll-api.ts: the events
 * bridge's enrollment paths and paging, checked as the runtime reads them).
 * The crop names (lib/core/crop-sizes.ts) and the tag prefix
 * (lib/events/tag-prefix.ts) reach the dialogs through DetectionBridgeEditor. Each of these lib files is browser-safe, and a
 * dialog restating what one of them says fails test/unit/editor-rules.test.js.
 */
import fs from 'node:fs';
import type { NodeAPI } from 'node-red';
import { installInEditor } from './config-version';
import { editorHelpers } from './editor-helpers';

/** Where the editor script is served, relative to the editor (the node files' <script src>). */
export const EDITOR_SCRIPT = 'detection-bridge/editor.js';

/** The lib modules the editor runs as they are, in the order they need each other (each requires only those before it, by file name). */
const LIB_MODULES: Readonly<Record<string, string>> = {
  'option-rules': '../../lib/core/option-rules',
  'node-options': '../../lib/config/node-options',
  migrate: '../../lib/config/migrate',
  downstream: '../../lib/delivery/downstream',
  'time-zone': '../../lib/core/time-zone',
  'time-window': '../../lib/events/time-window',
  lookalike: '../../lib/plates/lookalike',
  'tag-prefix': '../../lib/events/tag-prefix',
  'crop-sizes': '../../lib/core/crop-sizes',
  'auth-config': '../../lib/receiver/auth-config',
  'route-path': '../../lib/http/route-path',
  'base-url': '../../lib/http/base-url',
  template: '../../lib/alert/template',
  'enroll-api': '../../lib/bridge/enroll-api',
  'filter-lists': '../../lib/events/filter-lists',
  'filter-rules': '../../lib/events/filter-rules',
};

let script: string | undefined;
/**
 * The script: lib's modules above (compiled CommonJS, each in a function of
 * its own with a `require` that finds the ones before it), then
 * `DetectionBridgeConfig` (migrate) with installInEditor run once,
 * `DetectionBridgeOptions` (the option table and its checks),
 * `DetectionBridgeEditor` (the helpers) and `DetectionBridgeDownstream`.
 */
export function editorScript(): string {
  if (script !== undefined) return script;
  const parts = [
    '/* node-red-contrib-detection-bridge: configuration versions (lib/config/migrate.ts), option rules (lib/config/node-options.ts) and what the dialogs share. Every node file of the package loads this. */',
    '(function () {',
    '  if (window.DetectionBridgeConfig) return;',
    '  var modules = {};',
    '  function require(id) {',
    "    var name = String(id).split('/').pop();",
    "    if (!modules[name]) throw new Error('detection-bridge/editor.js: no module ' + id);",
    '    return modules[name];',
    '  }',
  ];
  for (const [name, file] of Object.entries(LIB_MODULES)) {
    parts.push(
      '  (function () {',
      '    var module = { exports: {} };',
      '    (function (exports, module, require) {',
      fs.readFileSync(require.resolve(file), 'utf8'),
      '    })(module.exports, module, require);',
      `    modules[${JSON.stringify(name)}] = module.exports;`,
      '  })();',
    );
  }
  parts.push(
    '  window.DetectionBridgeConfig = modules.migrate;',
    `  (${installInEditor.toString()})(RED, modules.migrate);`,
    "  window.DetectionBridgeOptions = { NODE_OPTIONS: modules['node-options'].NODE_OPTIONS, checkOption: modules['option-rules'].checkOption };",
    '  window.DetectionBridgeEditor = (' +
      editorHelpers.toString() +
      ")(RED, window.DetectionBridgeOptions, { crops: modules['crop-sizes'], tagPrefix: modules['tag-prefix'], config: modules.migrate });",
    '  window.DetectionBridgeDownstream = modules.downstream;',
    "  window.DetectionBridgeTimeWindows = modules['time-window'];",
    '  window.DetectionBridgePlates = modules.lookalike;',
    "  window.DetectionBridgeFilter = modules['filter-rules'];",
    "  window.DetectionBridgeAuth = modules['auth-config'];",
    "  window.DetectionBridgeRoutes = modules['route-path'];",
    "  window.DetectionBridgeUrls = modules['base-url'];",
    '  window.DetectionBridgeAlert = modules.template;',
    "  window.DetectionBridgeEnrollment = modules['enroll-api'];",
    '})();',
    '',
  );
  script = parts.join('\n');
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
