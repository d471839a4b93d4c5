'use strict';
/**
 * DetectionBridgeEditor.define (nodes/shared/editor-helpers.ts), run from the
 * served editor script in a context of its own: what it fills in every
 * dialog's definition, and the dialog steps it runs before the dialog's own.
 */
const assert = require('node:assert/strict');
const vm = require('node:vm');
const { editorScript } = require('../../dist/nodes/shared/editor-script');
const { NODE_OPTIONS } = require('../../dist/lib/config/node-options');
const { currentVersion } = require('../../dist/lib/config/migrate');

/** The editor script with a RED that records registrations, and a jQuery over `fields` (selector → {value, checked, handlers, typed}). */
function load(fields = {}) {
  const registered = {};
  const field = (selector) => {
    const f = (fields[selector] ||= { value: '', handlers: [] });
    return {
      typedInput(options) {
        f.typed = options;
      },
      on(_events, handler) {
        f.handlers.push(handler);
      },
      is: (what) => what === ':checkbox' && 'checked' in f,
      prop: () => f.checked,
      val(value) {
        if (arguments.length === 0) return f.value;
        f.value = value;
      },
    };
  };
  const RED = {
    events: { on() {} },
    nodes: {
      node: () => undefined,
      registerType(type, definition) {
        registered[type] = definition;
      },
    },
    validators: { typedInput: () => () => true },
  };
  const context = vm.createContext({ RED, $: field });
  context.window = context;
  vm.runInContext(editorScript(), context);
  return { editor: context.DetectionBridgeEditor, registered, fields };
}

const catalog = (key, vars) => (vars ? `${key} ${JSON.stringify(vars)}` : key);

describe('DetectionBridgeEditor.define', () => {
  it("fills a palette node's definition: category, color, name, every option of lib's table, the version, labels", () => {
    const { editor, registered } = load();
    editor.define('detection-done', { icon: 'detection-done.svg', defaults: { outputs: { value: 0 } }, inputs: 1, align: 'right' });
    const def = registered['detection-done'];
    assert.equal(def.category, 'detection bridge');
    assert.equal(def.color, '#87C4E6');
    assert.equal(def.icon, 'detection-done.svg');
    assert.equal(def.inputs, 1);
    assert.equal(def.outputs, 0, 'no ports unless the dialog says');
    assert.equal(def.align, 'right', 'the rest goes to Node-RED as it is');
    const names = Object.keys(def.defaults);
    assert.deepEqual(names, ['name', ...Object.keys(NODE_OPTIONS['detection-done']), 'outputs', 'configVersion']);
    assert.equal(def.defaults.name.value, '');
    for (const [name, rule] of Object.entries(NODE_OPTIONS['detection-done'])) assert.equal(def.defaults[name].value, rule.default, name);
    assert.equal(def.defaults.configVersion.value, currentVersion('detection-done'));
    assert.equal(def.label.call({ name: 'mine', _: catalog }), 'mine');
    assert.equal(def.label.call({ name: '', _: catalog }), 'detection-done.paletteLabel');
    assert.equal(def.labelStyle.call({ name: 'mine' }), 'node_label_italic');
    assert.equal(def.labelStyle.call({ name: '' }), '');
    assert.equal(def.paletteLabel.call({ _: catalog }), 'detection-done.paletteLabel');
  });

  it("keeps the dialog's own properties and labels; an option it checks its own way, and where one applies", () => {
    const { editor, registered } = load();
    const own = { value: 'x', validate: () => 'own' };
    editor.define('detection-in', {
      icon: 'detection-in.svg',
      defaults: { path: { value: '/detections' }, auth: own },
      appliesTo: { journalMaxMiB: (node) => node.ackMode === 'disk' },
      label: function () {
        return `in ${this.path}`;
      },
    });
    const def = registered['detection-in'];
    assert.equal(def.defaults.auth, own);
    assert.equal(def.defaults.path.value, '/detections');
    const journal = def.defaults.journalMaxMiB.validate;
    assert.equal(journal.call({ ackMode: 'memory', _: catalog }, 'nonsense'), true, 'not in disk mode: any value passes');
    assert.notEqual(journal.call({ ackMode: 'disk', _: catalog }, 'nonsense'), true, 'in disk mode: the table rule');
    assert.equal(def.label.call({ name: '', path: '/a', _: catalog }), 'in /a');
    assert.equal(def.label.call({ name: 'n', path: '/a', _: catalog }), 'n', 'the name first');
  });

  it('a configuration node: category config, no color, ports or label style; its label falls back to the palette label', () => {
    const { editor, registered } = load();
    editor.define('events-bridge', {
      category: 'config',
      label: function () {
        return this.url;
      },
    });
    const def = registered['events-bridge'];
    assert.equal(def.category, 'config');
    for (const absent of ['color', 'icon', 'inputs', 'outputs', 'labelStyle']) assert.equal(def[absent], undefined, absent);
    assert.equal(def.label.call({ name: '', url: 'https://b', _: catalog }), 'https://b');
    assert.equal(def.label.call({ name: '', url: '', _: catalog }), 'events-bridge.paletteLabel');
  });

  it("before the dialog's own steps: the event property's TypedInput, and the output count kept in step with its field", () => {
    const fields = { '#node-input-otherOutput': { checked: true, handlers: [] } };
    const { editor, registered } = load(fields);
    const order = [];
    editor.define('detection-switch', {
      icon: 'detection-switch.svg',
      property: ['msg', 'env'],
      outputsBy: { field: 'otherOutput', count: (other) => (other ? 3 : 2) },
      oneditprepare: function () {
        order.push(['own', this.id, fields['#node-input-outputs'].value]);
      },
    });
    registered['detection-switch'].oneditprepare.call({ id: 'n1' });
    assert.deepEqual(
      { ...fields['#node-input-property'].typed, types: [...fields['#node-input-property'].typed.types] },
      {
        default: 'msg',
        types: ['msg', 'env'],
        typeField: '#node-input-propertyType',
      },
    );
    assert.deepEqual(order, [['own', 'n1', '3']], 'the count set before the own steps run, with the node as this');
    fields['#node-input-otherOutput'].checked = false;
    for (const handler of fields['#node-input-otherOutput'].handlers) handler();
    assert.equal(fields['#node-input-outputs'].value, '2', 'changed with the field');

    // a field that is no checkbox: its value
    const image = load({ '#node-input-noImage': { value: 'error', handlers: [] } });
    image.editor.define('detection-image', { icon: 'detection-image.svg', outputsBy: { field: 'noImage', count: (v) => (v === 'error' ? 1 : 2) } });
    image.registered['detection-image'].oneditprepare.call({});
    assert.equal(image.fields['#node-input-outputs'].value, '1');
  });
});
