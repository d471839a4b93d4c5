'use strict';
/**
 * lib/config/migrate: each node type's configuration version and the steps
 * from an older one. The configurations below are written as the editor of
 * the release before versions saved them.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../../support');
const { currentVersion, isNewer, isVersioned, migrateConfig, versionOf, VERSION_PROPERTY } = require('../../../dist/lib/config/migrate');

const PKG = require(path.join(ROOT, 'package.json'));
const TYPES = Object.keys(PKG['node-red'].nodes);
/** The node types whose "from msg" choice became a TypedInput (version 2). */
const TYPED = ['detection-sample', 'platform-push', 'platform-request'];
/** Other versions: detection-sample fetches through an events bridge (3); detection-dedupe's keys picked by name (2). */
const LATER = { 'detection-sample': 3, 'detection-dedupe': 2 };

/** A deep copy that also freezes, so a step that changed its input would throw. */
function frozen(value) {
  const copy = structuredClone(value);
  const freeze = (v) => {
    if (v && typeof v === 'object') {
      Object.values(v).forEach(freeze);
      Object.freeze(v);
    }
    return v;
  };
  return freeze(copy);
}

const sample = (kind) => ({
  id: 's1',
  type: 'detection-sample',
  z: 'f1',
  name: '',
  kind,
  source: 'builtin',
  images: 'pictures',
  baseUrl: '',
  insecure: false,
  timeout: 10,
  wires: [[]],
});
const push = (posId, path = '') => ({
  id: 'p1',
  type: 'platform-push',
  z: 'f1',
  name: '',
  server: 'srv',
  operation: path ? 'tito' : 'pos',
  posId,
  path,
  batchSize: 100,
  batchMs: 1000,
  maxRetries: 5,
  wires: [[]],
});
const request = (method, path) => ({
  id: 'r1',
  type: 'platform-request',
  z: 'f1',
  name: '',
  server: 'srv',
  method,
  path,
  errors: 'catch',
  wires: [[]],
});

describe('lib/config/migrate', () => {
  it('knows every node type of the package: version 2 for the three with TypedInputs (3 for detection-sample), 1 for the others', () => {
    for (const type of TYPES) {
      assert.ok(isVersioned(type), type);
      assert.equal(currentVersion(type), LATER[type] ?? (TYPED.includes(type) ? 2 : 1), type);
    }
    assert.equal(isVersioned('inject'), false);
    assert.equal(isVersioned('constructor'), false, 'not a property of every object');
    assert.equal(currentVersion('inject'), 1);
  });

  it("every node type's editor file loads the editor script and saves its current version", () => {
    for (const type of TYPES) {
      // as built: its dialog script (nodes/<type>/editor.ts) compiled into it
      const html = fs.readFileSync(path.join(ROOT, 'dist', 'nodes', type, `${type}.html`), 'utf8');
      assert.ok(html.startsWith('<script src="detection-bridge/editor.js"></script>'), `${type}: loads the script before its own`);
      // the dialog as the editor registers it (DetectionBridgeEditor.define puts the version in every type's defaults)
      const { defaults } = require('../../support/editor-defaults').definitions()[type];
      assert.equal(defaults.configVersion && defaults.configVersion.value, currentVersion(type), `${type}: configVersion in defaults`);
    }
  });

  it('reads the saved version: none (saved before versions existed) or nonsense is 1', () => {
    assert.equal(versionOf({}), 1);
    assert.equal(versionOf({ [VERSION_PROPERTY]: 2 }), 2);
    assert.equal(versionOf({ [VERSION_PROPERTY]: '3' }), 3, 'a hand-edited flow may hold text');
    for (const nonsense of [null, '', 0, -1, 1.5, 'two', true, {}]) assert.equal(versionOf({ [VERSION_PROPERTY]: nonsense }), 1, String(nonsense));
  });

  it('detection-sample: "From msg.kind" becomes the msg type reading msg.kind; a fixed kind stays', () => {
    const v3 = { bridge: '', configVersion: 3 };
    assert.deepEqual(migrateConfig('detection-sample', frozen(sample('msg'))), { ...sample('kind'), kindType: 'msg', ...v3 });
    for (const kind of ['face', 'lpr']) {
      assert.deepEqual(migrateConfig('detection-sample', frozen(sample(kind))), { ...sample(kind), kindType: 'kind', ...v3 });
    }
  });

  it('detection-sample 2 → 3: no events bridge is chosen (a step cannot make one); its own Bridge URL, TLS option and timeout stay', () => {
    const fetched = { ...sample('lpr'), kindType: 'kind', source: 'bridge', baseUrl: 'https://bridge-host:5022', insecure: true, timeout: 20 };
    const v2 = frozen({ ...fetched, configVersion: 2 });
    assert.deepEqual(migrateConfig('detection-sample', v2), { ...fetched, bridge: '', configVersion: 3 });
    // a hand-edited version-2 node that names a bridge keeps it
    assert.equal(migrateConfig('detection-sample', frozen({ ...v2, bridge: 'eb' })).bridge, 'eb');
    // from version 1, both steps
    assert.deepEqual(migrateConfig('detection-sample', frozen({ ...fetched, kind: 'msg', kindType: undefined })), {
      ...fetched,
      kind: 'kind',
      kindType: 'msg',
      bridge: '',
      configVersion: 3,
    });
  });

  it('detection-dedupe: the old default cooldown expression becomes "plate at camera"; every other key stays; the event is msg.payload', () => {
    const OLD_KEY =
      '($p := payload.payload; ($p.lprPlateInfo.plate ? $p.lprPlateInfo.plate : $p.personInfo.faceId) & " @ " & $p.detectionInfo.detectorName)';
    const dedupe = (mode, key, keyType) => ({
      id: 'd1',
      type: 'detection-dedupe',
      z: 'f1',
      name: '',
      mode,
      key,
      keyType,
      missingKey: 'pass',
      ttl: 60,
      ttlUnits: 's',
      refresh: false,
      maxKeys: 100000,
      duplicatesOutput: false,
      persist: false,
      store: '',
      outputs: 1,
      wires: [[]],
    });
    const v2 = { property: 'payload', propertyType: 'msg', configVersion: 2 };
    assert.deepEqual(migrateConfig('detection-dedupe', frozen(dedupe('cooldown', OLD_KEY, 'jsonata'))), {
      ...dedupe('cooldown', 'plateAtCamera', 'event'),
      ...v2,
    });
    for (const [mode, key, keyType] of [
      ['id', 'messageId', 'msg'],
      ['cooldown', `${OLD_KEY} & "x"`, 'jsonata'],
      ['cooldown', 'payload.payload.lprPlateInfo.plate', 'msg'],
      ['cooldown', OLD_KEY, 'str'],
    ]) {
      assert.deepEqual(migrateConfig('detection-dedupe', frozen(dedupe(mode, key, keyType))), { ...dedupe(mode, key, keyType), ...v2 }, key);
    }
  });

  it('platform-push: an empty POS instance becomes msg.posId, a set one JSONata that lets msg.posId win as before', () => {
    assert.deepEqual(migrateConfig('platform-push', frozen(push(''))), { ...push('posId'), posIdType: 'msg', pathType: 'str', configVersion: 2 });
    assert.deepEqual(migrateConfig('platform-push', frozen(push(' pos-1 '))), {
      ...push('$exists(posId) ? posId : "pos-1"'),
      posIdType: 'jsonata',
      pathType: 'str',
      configVersion: 2,
    });
    // the id is a JSON string in the expression, whatever it holds
    const odd = migrateConfig('platform-push', frozen(push('a"b\\c')));
    assert.equal(odd.posId, '$exists(posId) ? posId : "a\\"b\\\\c"');
    assert.deepEqual(migrateConfig('platform-push', frozen(push('', '/api/v2/tito/{siteId}'))), {
      ...push('posId', '/api/v2/tito/{siteId}'),
      posIdType: 'msg',
      pathType: 'str',
      configVersion: 2,
    });
  });

  it('platform-request: "set by msg.method" and an empty path become msg.method and msg.path; fixed ones stay', () => {
    assert.deepEqual(migrateConfig('platform-request', frozen(request('msg', ''))), {
      ...request('method', 'path'),
      methodType: 'msg',
      pathType: 'msg',
      configVersion: 2,
    });
    assert.deepEqual(migrateConfig('platform-request', frozen(request('POST', '/api/v2/x/{id}'))), {
      ...request('POST', '/api/v2/x/{id}'),
      methodType: 'method',
      pathType: 'str',
      configVersion: 2,
    });
    assert.equal(migrateConfig('platform-request', frozen(request('GET', '   '))).pathType, 'msg', 'blank was empty');
  });

  it('returns a current configuration as it is, and stamps a version-1 type that had none', () => {
    for (const type of TYPES) {
      const current = frozen({ id: 'n1', type, name: 'x', [VERSION_PROPERTY]: currentVersion(type) });
      assert.equal(migrateConfig(type, current), current, type);
    }
    const old = frozen({ id: 'n1', type: 'detection-switch', property: 'payload', propertyType: 'msg' });
    const stamped = migrateConfig('detection-switch', old);
    assert.notEqual(stamped, old);
    assert.deepEqual(stamped, { ...old, configVersion: 1 });
  });

  it('leaves a configuration of a newer release, and of a type not of the package, as it is', () => {
    const newer = frozen({ ...sample('msg'), configVersion: 4 });
    assert.equal(isNewer('detection-sample', newer), true);
    assert.equal(migrateConfig('detection-sample', newer), newer, 'no step can undo what a newer release changed');
    assert.equal(isNewer('detection-sample', { configVersion: 3 }), false);
    assert.equal(isNewer('detection-sample', {}), false);
    const inject = frozen({ id: 'i1', type: 'inject' });
    assert.equal(migrateConfig('inject', inject), inject);
  });

  it('needs only the option table and its rules, which the editor script serves beside it (nodes/shared/editor-script.ts)', () => {
    const requires = (file) => [...fs.readFileSync(path.join(ROOT, 'dist', 'lib', file), 'utf8').matchAll(/\brequire\(([^)]*)\)/g)].map((m) => m[1]);
    assert.deepEqual(requires('config/migrate.js'), ['"./node-options"']);
    assert.deepEqual(requires('config/node-options.js'), ['"../core/option-rules"']);
    assert.deepEqual(requires('core/option-rules.js'), []);
  });
});
