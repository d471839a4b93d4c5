'use strict';
/**
 * Examples open valid (issue 25, point 3) and run as they show: every node
 * of the package in every example carries every property its type's editor
 * declares in `defaults` (read from the editor files themselves,
 * test/support/editor-defaults.js), but an option of lib's table
 * (lib/config/node-options.ts) added later: the editor completes a node it
 * adds (an example, an old saved flow, an import, a paste) with the value
 * the runtime already runs it with, and that is checked here for every
 * option of every example node. So a new option touches the table, the
 * session and the dialog, not every example (issue 41).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../support');
const { TYPES, definitions, defaults, addNode } = require('../support/editor-defaults');
const { completeConfig, currentVersion, migrateConfig } = require('../../dist/lib/config/migrate');
const { NODE_OPTIONS, readNodeOptions } = require('../../dist/lib/config/node-options');

const EXAMPLES = path.join(ROOT, 'examples');
const files = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));

/** A node's own properties, without what the editor adds beside them. */
const propsOf = ({ _def, ...props }) => props;

describe('examples carry every current property', () => {
  it('reads each type’s editor defaults from its editor file', () => {
    for (const type of TYPES) assert.ok(Object.keys(defaults(type)).length > 1, type);
    assert.equal(defaults('detection-in').maxInFlight, 1000);
    assert.equal(defaults('detection-in').configVersion, currentVersion('detection-in'));
  });

  for (const file of files) {
    it(file, () => {
      const flow = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
      const ours = flow.filter((n) => TYPES.includes(n.type));
      for (const node of ours) {
        const where = `${file}: ${node.type} ${node.id}${node.name ? ` "${node.name}"` : ''}`;
        const options = NODE_OPTIONS[node.type] || {};
        const missing = Object.keys(defaults(node.type)).filter((key) => !(key in node) && !(key in options));
        assert.deepEqual(missing, [], `${where} lacks properties of its editor defaults that are not options of lib's table`);
        assert.equal(node.configVersion, currentVersion(node.type), `${where}: saved in the current version`);
        assert.equal(migrateConfig(node.type, node), node, `${where}: already in the current shape`);
        if (!NODE_OPTIONS[node.type]) continue;
        // what the dialog shows of the example is what the runtime runs, and the runtime can use every value
        const runs = readNodeOptions(node.type, node);
        const shown = readNodeOptions(node.type, propsOf(addNode({ ...node })));
        assert.deepEqual(runs.wrong, [], `${where}: values the runtime cannot use`);
        assert.deepEqual(shown.values, runs.values, `${where}: the editor completes it with what the runtime runs`);
      }
    });
  }

  it('an option left out of an example is completed by the editor as the runtime reads it (an option added later)', () => {
    const receiver = JSON.parse(fs.readFileSync(path.join(EXAMPLES, files[0]), 'utf8')).find((n) => n.type === 'detection-in');
    assert.ok(receiver, `${files[0]} has a receiver`);
    const { maxInFlight: _maxInFlight, auth: _auth, ...without } = receiver;
    const shown = propsOf(addNode({ ...without }));
    assert.equal(shown.maxInFlight, readNodeOptions('detection-in', without).values.maxInFlight);
    assert.equal(shown.auth, 'none', 'a receiver saved without auth took no credentials, and still does');
    assert.equal(readNodeOptions('detection-in', without).values.auth, 'none');
  });
});

describe('the editor completes the nodes it adds', () => {
  /** A receiver as the README's first release saved it: no delivery options, no version. */
  const OLD_RECEIVER = {
    id: 'r1',
    type: 'detection-in',
    name: '',
    path: '/detections',
    auth: 'none',
    headerName: '',
    maxBodyMiB: 16,
    validation: 'lenient',
    stallSeconds: 30,
  };

  it('gives an old receiver each option it lacks, with its default, and the current version', () => {
    const node = propsOf(addNode({ ...OLD_RECEIVER }));
    const d = defaults('detection-in');
    assert.deepEqual(node, { ...d, ...OLD_RECEIVER });
    assert.equal(node.maxInFlight, 1000);
    assert.equal(node.redeliverAfterSeconds, 0);
  });

  it('keeps what a lacking property always meant: a receiver without auth took no credentials; a cooldown without units counted seconds', () => {
    const { auth, ...noAuth } = OLD_RECEIVER;
    assert.equal(auth, 'none');
    assert.equal(addNode({ ...noAuth }).auth, 'none', 'not the bearer token a new receiver asks for');
    assert.equal(defaults('detection-in').auth, 'bearer');
    const dedupe = addNode({ id: 'd1', type: 'detection-dedupe', mode: 'cooldown', key: 'messageId', keyType: 'msg', ttl: 30 });
    assert.equal(dedupe.ttlUnits, 's');
    assert.equal(dedupe.ttl, 30);
  });

  it('migrates first, then fills: a sample from msg.kind keeps its meaning', () => {
    const node = addNode({ id: 's1', type: 'detection-sample', kind: 'msg', source: 'builtin' });
    assert.equal(node.kind, 'kind');
    assert.equal(node.kindType, 'msg');
    assert.equal(node.configVersion, currentVersion('detection-sample'));
    assert.equal(node.images, defaults('detection-sample').images);
  });

  it('changes nothing on a complete node, and writes behind the proxy of a locked flow', () => {
    const complete = { id: 'c1', type: 'detection-filter', ...defaults('detection-filter'), rules: [{ t: 'tag', v: 'VIP', vt: 'list' }] };
    const target = { ...complete, _def: definitions()['detection-filter'] };
    const locked = new Proxy(target, {
      get: (t, prop) => (prop === '__node__' ? t : t[prop]),
      set: () => {
        throw new Error('locked');
      },
    });
    addNode(locked);
    assert.deepEqual(propsOf(target), complete);

    const lacking = { id: 'c2', type: 'detection-filter', property: 'payload', _def: definitions()['detection-filter'] };
    const behind = new Proxy(lacking, {
      get: (t, prop) => (prop === '__node__' ? t : t[prop]),
      set: () => {
        throw new Error('locked');
      },
    });
    addNode(behind);
    assert.equal(JSON.stringify(lacking.rules), '[]', 'a list of its own (made in the editor script)');
    assert.equal(lacking.combine, 'all');
  });

  it('completeConfig: copies default lists, leaves inputs/outputs to Node-RED, returns a complete configuration as it is', () => {
    const list = [];
    const filled = completeConfig('detection-filter', { combine: 'any' }, { combine: 'all', rules: list, outputs: 1, none: undefined });
    assert.deepEqual(filled, { combine: 'any', rules: [] });
    assert.notEqual(filled.rules, list);
    const whole = { combine: 'any', rules: [] };
    assert.equal(completeConfig('detection-filter', whole, { combine: 'all', rules: [] }), whole);
    assert.deepEqual(completeConfig('inject', {}, { repeat: '' }), { repeat: '' }, 'a type of another package: its defaults only');
  });
});
