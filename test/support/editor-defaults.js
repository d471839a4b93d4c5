'use strict';
/**
 * Each node type's editor definition as the editor registers it: the served
 * editor script (dist/nodes/shared/editor-script) and every node's editor
 * file (dist/nodes/<type>/<type>.html, as built) run in a context of their
 * own against a stub RED that records RED.nodes.registerType. Only what the
 * files do as they load is run (no dialog is opened), so the stub answers
 * the calls made then: the validators' factories and the events.
 *
 * `defaults(type)` is `{ property: value }` of the type's `defaults`, the
 * values a new node dropped from the palette gets (undefined where a
 * property has none); `addNode(node)` runs what the editor script does
 * when the editor adds a node to the workspace (its `nodes:add` listener).
 */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { ROOT } = require('./index');

const TYPES = Object.keys(require(path.join(ROOT, 'package.json'))['node-red'].nodes);

let loaded;
const onAdd = [];
/** type → the definition given to RED.nodes.registerType. */
function definitions() {
  if (loaded) return loaded;
  const { editorScript } = require(path.join(ROOT, 'dist/nodes/shared/editor-script'));
  const registered = {};
  const factory = () =>
    function () {
      return true;
    };
  const RED = {
    events: {
      on(event, handler) {
        if (event === 'nodes:add') onAdd.push(handler);
      },
    },
    nodes: {
      registerType(type, definition) {
        registered[type] = definition;
      },
      node() {
        return undefined;
      },
      eachNode() {},
    },
    validators: { number: factory, regex: factory, typedInput: factory },
    settings: {},
    _: (key) => key,
  };
  // URL: what every browser has, which the dialogs' URL check (lib/http/base-url.ts) uses
  const context = vm.createContext({ RED, $: () => ({}), URL });
  context.window = context;
  vm.runInContext(editorScript(), context);
  for (const type of TYPES) {
    const html = fs.readFileSync(path.join(ROOT, 'dist', 'nodes', type, `${type}.html`), 'utf8');
    const scripts = [...html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    if (scripts.length === 0) throw new Error(`${type}.html has no editor script`);
    for (const script of scripts) vm.runInContext(script, context, { filename: `${type}.html` });
    if (!registered[type]) throw new Error(`${type}.html did not register ${type}`);
  }
  loaded = registered;
  return loaded;
}

/** The values of `type`'s editor defaults: property → value (undefined where none is given). */
function defaults(type) {
  const definition = definitions()[type];
  if (!definition) throw new Error(`no editor definition of ${type}`);
  return Object.fromEntries(Object.entries(definition.defaults || {}).map(([key, d]) => [key, d ? d.value : undefined]));
}

/** What the editor does with `node` as it adds it: `node` as the editor holds it (its `_def` is set here from its type). */
function addNode(node) {
  const definition = definitions()[node.type];
  if (definition && !node._def) node._def = definition;
  for (const handler of onAdd) handler(node);
  return node;
}

module.exports = { TYPES, definitions, defaults, addNode };
