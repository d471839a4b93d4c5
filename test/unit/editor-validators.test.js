'use strict';
/**
 * Every invalid case the editor test drives a dialog with (CASES in
 * test/support/editor-cases.js), checked against the dialogs' validators
 * without a browser: the built editor files run in a VM with Node-RED's own
 * validators (test/support/editor-defaults.js `validating`), and a node's
 * properties are checked as Node-RED's editor checks them (`verdicts`).
 *
 * Each case starts from the node the dialog saved valid (its defaults, the
 * valid steps, the properties the browser test found saved) and goes on from
 * the last, as in the browser: after its steps the node is invalid, the field
 * the dialog marks is the property whose validator refuses, with the reason
 * (the catalog key, its placeholders); after its restore steps it is valid
 * again. test/browser/editor.test.js makes the first case of each dialog in
 * Chromium (Node-RED marking the field, the reason in the node's errors, the
 * red triangle), and the cases this VM cannot make (madeInVm: a credential's
 * own field, a filter rule row, an element of the dialog shown).
 */
const assert = require('node:assert/strict');
const { CASES, PROPERTY_STEPS, madeInVm } = require('../support/editor-cases');
const editor = require('../support/editor-defaults');

/** The crop names in the dialog's order (nodes/shared/editor-helpers.ts CROPS). */
const CROPS = ['Close', 'Medium', 'Car', 'FullFrame', 'Other'];
/** What the VM's translator answers: the key, and the placeholders' values after it as JSON. */
const translator = (key, vars) => (vars ? `${key} ${JSON.stringify(vars)}` : key);

describe("editor: every invalid case of the dialogs, by their validators (Node-RED's own around them)", function () {
  /** A valid configuration node of each configuration type, for the lists a node chooses from. */
  const configs = {};
  let definitions;

  before(function () {
    const types = Object.keys(editor.definitions());
    for (const type of types.filter((t) => editor.definitions()[t].category === 'config')) {
      configs[type] = { id: `vm-${type}`, type, valid: true };
    }
    definitions = editor.validating(Object.fromEntries(Object.values(configs).map((c) => [c.id, c])));
  });

  /** Sets what step `s` sets on `node`: a property, a credential, a configuration node, the crop list. */
  function apply(type, node, s) {
    const def = definitions[type];
    const kind = PROPERTY_STEPS.find((k) => k in s);
    assert.ok(kind, `a step the VM makes: ${JSON.stringify(s)}`);
    const name = s[kind];
    if (kind === 'crop') {
      const on = new Set(
        String(node.crops || '')
          .split(',')
          .filter(Boolean),
      );
      if (s.value) on.add(name);
      else on.delete(name);
      node.crops = CROPS.filter((c) => on.has(c)).join(',');
    } else if (kind === 'config') {
      const ref = (def.defaults || {})[name];
      assert.ok(ref && configs[ref.type], `${type}.${name} is a list of configuration nodes`);
      node[name] = s.value === 'none' ? '' : configs[ref.type].id;
    } else if (def.credentials && name in def.credentials) {
      node.credentials[name] = s.value;
    } else {
      assert.ok(name in (def.defaults || {}), `${type}.${name} is a property of the node`);
      node[name] = kind === 'check' ? Boolean(s.value) : s.value;
      if (kind === 'typed') node[`${name}Type`] = s.type;
    }
  }

  /** The node `type`'s dialog saves valid in the editor test: its own id, translator and credentials. */
  function validNode(type) {
    const c = CASES[type];
    const def = definitions[type];
    const node = { id: `vm-node-${type}`, type, z: '', _: translator, _def: def, credentials: {}, ...editor.defaults(type) };
    // the configuration nodes the browser test chooses (those the dialog needs) and those the steps choose
    for (const [prop, d] of Object.entries(def.defaults || {})) if (d.type && configs[d.type]) node[prop] = configs[d.type].id;
    for (const s of [...(c.valid.before || []), ...c.valid.steps]) {
      if (
        PROPERTY_STEPS.some((k) => k in s) &&
        (s.crop || s.config || (def.credentials || {})[s.fill] || s[PROPERTY_STEPS.find((k) => k in s)] in (def.defaults || {}))
      )
        apply(type, node, s);
    }
    return Object.assign(node, c.valid.expect || {}, { name: `vm ${type}` });
  }

  for (const type of Object.keys(CASES)) {
    it(`${type}: each invalid case the VM can make is refused for its reason, on its field, and valid once restored`, function () {
      const node = validNode(type);
      assert.deepEqual(editor.verdicts(definitions, node), {}, `${type} as its dialog saved it is valid`);
      const made = CASES[type].invalid.filter((c) => madeInVm(type, c));
      // every case is made somewhere: here, or in Chromium (browserCases)
      if (CASES[type].invalid.length > 1) assert.ok(made.length > 0, `${type}: no case for the VM`);
      for (const c of CASES[type].invalid) {
        const what = `${type} (${JSON.stringify(c.steps)})`;
        if (!madeInVm(type, c)) continue;
        for (const s of c.steps) apply(type, node, s);
        const said = editor.verdicts(definitions, node);
        assert.notDeepEqual(said, {}, `${what}: the node is invalid`);
        if (c.error) assert.ok(c.error in said, `${what}: ${c.error} is refused (the field marked): ${JSON.stringify(said)}`);
        assert.ok(c.reason, `${what}: give the reason (the catalog key of the message its validator returns)`);
        const key = `${type}.${c.reason}`;
        const reasons = Object.values(said).filter((r) => typeof r === 'string' && (r === key || r.startsWith(`${key} {`)));
        assert.ok(reasons.length, `${what}: the reason ${key} in ${JSON.stringify(said)}`);
        if (c.reasonVars) {
          const vars = reasons.map((r) => JSON.parse(r.slice(key.length + 1) || '{}'));
          assert.ok(
            vars.some((v) => Object.entries(c.reasonVars).every(([k, x]) => String(v[k]) === String(x))),
            `${what}: ${key} with ${JSON.stringify(c.reasonVars)}: ${reasons}`,
          );
        }
        for (const s of c.restore) apply(type, node, s);
        assert.deepEqual(editor.verdicts(definitions, node), {}, `${what}: valid again after ${JSON.stringify(c.restore)}`);
      }
    });
  }
});
