'use strict';
/**
 * Each node type's editor definition as the editor registers it: the served
 * editor script (dist/nodes/shared/editor-script) and every node's editor
 * file (dist/nodes/<type>/<type>.html, as built) run in a context of their
 * own against a stub RED that records RED.nodes.registerType. Only what the
 * files do as they load is run (no dialog is opened), so the stub answers
 * the calls made then: the validators' factories and the events.
 *
 * `validating(nodes)` loads them again with Node-RED's own validators
 * (RED.validators and the typed-property checks, taken from the editor of
 * the Node-RED in use), `nodes` the ones RED.nodes.node() finds, for checking
 * a node's properties as the editor does (`verdicts`).
 *
 * `defaults(type)` is `{ property: value }` of the type's `defaults`, the
 * values a new node dropped from the palette gets (undefined where a
 * property has none); `addNode(node)` runs what the editor script does
 * when the editor adds a node to the workspace (its `nodes:add` listener).
 */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { ROOT, NODE_RED_DIR } = require('./index');

const TYPES = Object.keys(require(path.join(ROOT, 'package.json'))['node-red'].nodes);

let loaded;
let onAdd = [];
/** type → the definition given to RED.nodes.registerType (Node-RED's validators stubbed: every value passes them). */
function definitions() {
  if (loaded) return loaded;
  const factory = () =>
    function () {
      return true;
    };
  const registry = load({ validators: { number: factory, regex: factory, typedInput: factory }, $: () => ({}) });
  loaded = registry.registered;
  onAdd = registry.onAdd;
  return loaded;
}

/** Runs the editor script and every node's editor file against a stub RED with `validators`, `utils`, `nodes` and `$`. */
function load({ validators, utils = {}, nodes = {}, $ }) {
  const { editorScript } = require(path.join(ROOT, 'dist/nodes/shared/editor-script'));
  const registered = {};
  const handlers = [];
  const RED = {
    events: {
      on(event, handler) {
        if (event === 'nodes:add') handlers.push(handler);
      },
    },
    nodes: {
      registerType(type, definition) {
        registered[type] = definition;
      },
      node(id) {
        return nodes[id];
      },
      eachNode() {},
    },
    validators,
    utils,
    settings: {},
    _: (key) => key,
  };
  // URL: what every browser has, which the dialogs' URL check (lib/http/base-url.ts) uses
  const context = vm.createContext({ RED, $, URL });
  context.window = context;
  vm.runInContext(editorScript(), context);
  for (const type of TYPES) {
    const html = fs.readFileSync(path.join(ROOT, 'dist', 'nodes', type, `${type}.html`), 'utf8');
    const scripts = [...html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    if (scripts.length === 0) throw new Error(`${type}.html has no editor script`);
    for (const script of scripts) vm.runInContext(script, context, { filename: `${type}.html` });
    if (!registered[type]) throw new Error(`${type}.html did not register ${type}`);
  }
  return { registered, onAdd: handlers, RED };
}

/**
 * The source of `start` (`function name(`, `RED.validators = {`) in the editor's red.js, up to the brace
 * that closes it: the first one at the start of a line indented as `start` is (red.js is Node-RED's
 * source concatenated, not minified, so its indentation is its structure; regular expressions in it
 * hold braces that a count would miss).
 */
function editorSource(red, start) {
  const at = red.indexOf(start);
  if (at < 0) throw new Error(`Node-RED's editor (red.js) has no ${start}`);
  const indent = red.slice(red.lastIndexOf('\n', at) + 1, at);
  if (!/^\s*$/.test(indent)) throw new Error(`${start} in red.js does not start a line`);
  const end = red.indexOf(`\n${indent}}`, at);
  if (end < 0) throw new Error(`${start} in red.js does not close`);
  return red.slice(at, end + indent.length + 2);
}

/**
 * The definitions as the editor registers them with Node-RED's own
 * validators: RED.validators, and RED.utils' typed-property checks, as the
 * editor of the Node-RED in use (NODE_RED_PATH) has them. `nodes`: id → node,
 * what RED.nodes.node() finds (configuration nodes). A dialog's element read by
 * a validator (`$('#node-input-…').val()`) is not there: the validators then
 * read the node's property, as they do when no dialog is open.
 */
function validating(nodes = {}) {
  const client = path.dirname(require.resolve('@node-red/editor-client/package.json', { paths: [NODE_RED_DIR] }));
  const red = fs.readFileSync(path.join(client, 'public', 'red', 'red.js'), 'utf8');
  const jsonata = require(
    require.resolve('jsonata', { paths: [path.dirname(require.resolve('@node-red/util/package.json', { paths: [NODE_RED_DIR] }))] }),
  );
  const source = [
    editorSource(red, 'function createError('),
    editorSource(red, 'function normalisePropertyExpression('),
    editorSource(red, 'function validatePropertyExpression('),
    editorSource(red, 'function validateTypedProperty('),
    'RED.utils.validatePropertyExpression = validatePropertyExpression;',
    'RED.utils.validateTypedProperty = validateTypedProperty;',
    `RED.validators = ${editorSource(red, 'RED.validators = {').slice('RED.validators = '.length)};`,
  ].join('\n');
  const none = { length: 0, val: () => undefined, next: () => none, is: () => false };
  const RED = { utils: {}, _: (key, vars) => (vars ? `${key} ${JSON.stringify(vars)}` : key) };
  vm.runInContext(`(function () { ${source} })()`, vm.createContext({ RED, jsonata, $: () => none }));
  return load({ validators: RED.validators, utils: RED.utils, nodes, $: () => none }).registered;
}

/**
 * What the editor's validation says of `node` (its `type`, its properties):
 * property → the answer of its validator where it is not true (a reason, or
 * false), as Node-RED's editor checks each property of a node's defaults
 * (validateNodeProperty in @node-red/editor-client: `required` first, then
 * `validate` with the property's label, a 2-argument validator's string kept).
 * `definitions`: from `validating()`.
 */
function verdicts(definitions, node) {
  const defaults = definitions[node.type].defaults || {};
  const out = {};
  for (const [prop, def] of Object.entries(defaults)) {
    const value = node[prop];
    if (/^\$\([a-zA-Z_][a-zA-Z0-9_]*\)$/.test(value) || /^\$\{[a-zA-Z_][a-zA-Z0-9_]*\}$/.test(value)) continue;
    if (def.required && value === '') {
      out[prop] = false;
      continue;
    }
    if (typeof def.validate !== 'function') continue;
    if (def.required === false && value === '') continue;
    const said = def.validate.call(node, value, typeof def.label === 'string' ? { label: def.label } : {});
    if (def.validate.length === 2 && typeof said === 'string') out[prop] = said;
    else if (!said) out[prop] = false;
  }
  return out;
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

module.exports = { TYPES, definitions, defaults, addNode, validating, verdicts };
