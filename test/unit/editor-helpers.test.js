'use strict';
/**
 * The dialogs' shared helpers (nodes/shared/editor-helpers.ts), run as the
 * editor runs them: from the served script's text, in a context of their own,
 * against a RED whose typedInput validator answers as Node-RED's does (true,
 * or a reason).
 */
const assert = require('node:assert/strict');
const vm = require('node:vm');
const { editorScript } = require('../../dist/nodes/shared/editor-script');

function load(configNodes = {}) {
  const asked = [];
  const RED = {
    events: { on() {} },
    nodes: { node: (id) => configNodes[id] },
    validators: {
      typedInput: (options) => {
        asked.push(options);
        return function (v) {
          const type = options.type || (this && this[options.typeField]);
          return type === 'msg' && /\s/.test(String(v)) ? `invalid property expression: ${v}` : true;
        };
      },
    },
  };
  const context = { window: {}, RED };
  vm.runInNewContext(editorScript(), context);
  return { helpers: context.window.DetectionBridgeEditor, asked };
}

/** A node as validators see it: `_` renders the key and its values. */
const node = (props = {}) => ({ ...props, _: (key, vars) => (vars ? `${key} ${JSON.stringify(vars)}` : key) });

describe('editor helpers (DetectionBridgeEditor)', () => {
  it("words a validator's answer from the node's catalog, and says false where no node can word it", () => {
    const { helpers } = load();
    const { check } = helpers.validators('platform-push');
    assert.equal(check(node(), true, 'x'), true);
    assert.equal(check(node(), false, 'path-empty'), 'platform-push.validators.path-empty');
    assert.equal(check(node(), false, 'posId', { error: 'e' }), 'platform-push.validators.posId {"error":"e"}');
    assert.equal(check(undefined, false, 'path-empty'), false);
  });

  it('checks a configuration node: none, gone, with errors, fine; each declared with two arguments', () => {
    const { helpers } = load({ good: { valid: true }, bad: { valid: false }, fresh: {} });
    const v = helpers.validators('detection-in');
    const redis = v.config('redis', 'redis-gone');
    assert.equal(redis.length, 2, 'Node-RED shows the reason only from a validator with two arguments');
    const n = node();
    assert.equal(redis.call(n, '', {}), 'detection-in.validators.redis');
    assert.equal(redis.call(n, '_ADD_', {}), 'detection-in.validators.redis');
    assert.equal(redis.call(n, 'deleted', {}), 'detection-in.validators.redis-gone');
    assert.equal(redis.call(n, 'bad', {}), 'detection-in.validators.redis-invalid');
    assert.equal(redis.call(n, 'good', {}), true);
    assert.equal(redis.call(n, 'fresh', {}), true, 'not validated yet is not invalid');
    assert.equal(v.config('server').call(n, 'deleted', {}), 'detection-in.validators.server', 'gone: the key itself unless told');
  });

  it("checks a property with Node-RED's validator, its reason in our sentence; empty has its own key", () => {
    const { helpers, asked } = load();
    const { property } = helpers.validators('platform-request');
    assert.equal(property(node(), '  ', 'msg', 'method'), 'platform-request.validators.method-empty');
    assert.equal(property(node(), 'method', 'msg', 'method'), true);
    assert.equal(property(node(), 'a b', 'msg', 'method'), 'platform-request.validators.method {"error":"invalid property expression: a b"}');
    assert.deepEqual({ ...asked.at(-1) }, { type: 'msg' });
  });

  it('checks a TypedInput by its type field; required refuses empty, optional lets it through', () => {
    const { helpers, asked } = load();
    const { typed } = helpers.validators('detection-switch');
    const required = typed('propertyType', 'property', true);
    const optional = typed('propertyType', 'property');
    assert.deepEqual({ ...asked.at(-1) }, { typeField: 'propertyType' });
    assert.equal(required.length, 2);
    const n = node({ propertyType: 'msg' });
    assert.equal(required.call(n, '', {}), 'detection-switch.validators.property-empty');
    assert.equal(optional.call(n, '', {}), true);
    assert.equal(required.call(n, 'payload', {}), true);
    assert.equal(required.call(n, 'a b', {}), 'detection-switch.validators.property {"error":"invalid property expression: a b"}');
  });

  it('finds what is wrong with a platform API path', () => {
    const { apiPathProblem } = load().helpers;
    assert.equal(apiPathProblem(''), 'path-empty');
    assert.equal(apiPathProblem('/api/v2/a b'), 'path-spaces');
    assert.equal(apiPathProblem('/api/v2/x?y=1'), 'path');
    assert.equal(apiPathProblem(' /api/v2/pos/plugins/{pos_id}/events '), null);
  });

  it('names msg.<name> when a TypedInput is switched to msg with nothing named, and only then', () => {
    const { msgByDefault, PROPERTY_TYPES } = load().helpers;
    assert.deepEqual([...PROPERTY_TYPES], ['msg', 'flow', 'global', 'env']);
    const input = (type, value) => ({
      type,
      value,
      typedInput(what, set) {
        if (set === undefined) return this[what];
        this[what] = set;
      },
    });
    const fresh = input('str', '');
    const changed = msgByDefault(fresh, 'posId');
    changed();
    assert.equal(fresh.value, '', 'no switch yet');
    fresh.type = 'msg';
    changed();
    assert.equal(fresh.value, 'posId');
    const named = input('str', '');
    const namedChanged = msgByDefault(named, 'posId');
    named.type = 'msg';
    named.value = 'payload.pos';
    namedChanged();
    assert.equal(named.value, 'payload.pos', 'a property already named stays');
    const opened = input('msg', '');
    const openedChanged = msgByDefault(opened, 'path');
    openedChanged();
    assert.equal(opened.value, '', 'a dialog opened on msg with nothing named is not filled in behind the user');
  });
});
