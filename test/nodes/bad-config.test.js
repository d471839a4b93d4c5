'use strict';
/**
 * Every node with an input whose configuration cannot run (an expression that
 * is not JSONata, a configuration node missing or itself not valid, an option
 * out of range...) still takes each message and ends it with done(err): a
 * Catch node sees why, in the words of the node's catalog (en-US here, as
 * users read it), and nothing is sent on. One case per way a node's
 * configuration can fail at deploy. detection-done has no option that can be
 * wrong (an unreadable `passOn` is off); detection-in and the configuration
 * nodes take no messages.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, getHelper, translatedModule, collect, ownStatus, translate } = require('../support');

const { currentVersion } = require(path.join(ROOT, 'dist', 'lib', 'config', 'migrate'));
const helper = getHelper();

const TYPES = [
  'detection-switch',
  'detection-filter',
  'detection-dedupe',
  'detection-image',
  'detection-sample',
  'detection-done',
  'detection-enroll',
  'detection-redis',
  'events-bridge',
  'platform-server',
  'platform-push',
  'platform-request',
];
const MODULES = TYPES.map((type) => translatedModule(type));

const NOT_JSONATA = '$$$(';
/** An events-bridge whose URL is no address: present, but its client cannot be made. */
const BRIDGE_BAD_URL = { id: 'eb', type: 'events-bridge', name: '', url: 'not an address', insecure: false, ca: '', timeout: 10 };
/** A platform server without user name and password. */
const SERVER_NO_CREDENTIALS = { id: 'srv', type: 'platform-server', name: '', url: 'http://127.0.0.1:9', insecure: false, ca: '', timeout: 10 };

/** [node type, what is wrong, its configuration, configuration nodes beside it, what the error says]. */
const CASES = [
  [
    'detection-switch',
    'an event property that is not JSONata',
    { property: NOT_JSONATA, propertyType: 'jsonata' },
    [],
    /detection switch cannot use the event property jsonata:/,
  ],
  [
    'detection-filter',
    'a rule out of range',
    { rules: [{ t: 'confidence', v: '85' }] },
    [],
    /detection filter cannot run: rule 1: enter a confidence from 0 to 1/,
  ],
  ['detection-filter', 'a tag prefix that cannot be one', { rules: [], tagPrefix: 'not a prefix!' }, [], /cannot use the tag prefix "not a prefix!"/],
  [
    'detection-filter',
    'an events bridge that is not deployed',
    { rules: [], bridge: 'gone' },
    [],
    /cannot find the events bridge chosen for its tag prefix/,
  ],
  [
    'detection-filter',
    'an event property that is not JSONata',
    { rules: [], property: NOT_JSONATA, propertyType: 'jsonata' },
    [],
    /cannot use the event property/,
  ],
  [
    'detection-filter',
    'a rule list read from a property that cannot be one',
    { rules: [{ t: 'plate', v: 'watch..list', vt: 'msg' }] },
    [],
    /detection filter cannot use rule 1's list msg\.watch\.\.list/,
  ],
  ['detection-dedupe', 'a time window out of range', { mode: 'cooldown', ttl: -5, ttlUnits: 's' }, [], /dedupe settings are not valid: ttl/],
  ['detection-dedupe', 'a Redis window without a Redis server', { scope: 'redis', redis: '', ttl: 60 }, [], /choose a Redis server/],
  [
    'detection-dedupe',
    'a key expression that is not JSONata',
    { mode: 'cooldown', key: NOT_JSONATA, keyType: 'jsonata', ttl: 60, maxKeys: 100 },
    [],
    /the key expression is not valid JSONata/,
  ],
  [
    'detection-dedupe',
    'a key name it does not offer',
    { mode: 'cooldown', key: 'shoeSize', keyType: 'event', ttl: 60, maxKeys: 100 },
    [],
    /"shoeSize" is not one of the keys offered/,
  ],
  ['detection-image', 'a crop order with an unknown size', { crops: 'Close,Tiny' }, [], /the crop order "Close,Tiny" is not a list of/],
  ['detection-image', 'an output property that is not one', { outputProperty: 'a..b' }, [], /detection image cannot write to msg\.a\.\.b/],
  [
    'detection-image',
    'an event property that is not JSONata',
    { property: NOT_JSONATA, propertyType: 'jsonata' },
    [],
    /detection image cannot use the event property/,
  ],
  ['detection-sample', 'a kind expression that is not JSONata', { kind: NOT_JSONATA, kindType: 'jsonata' }, [], /the kind cannot be read from/],
  ['detection-sample', 'no events bridge chosen', { source: 'bridge', bridge: '', baseUrl: '' }, [], /no events bridge is chosen/],
  [
    'detection-sample',
    'an events bridge that is not deployed',
    { source: 'bridge', bridge: 'gone' },
    [],
    /the chosen events bridge cannot be found: open the node/,
  ],
  [
    'detection-sample',
    'an events bridge that is not valid',
    { source: 'bridge', bridge: 'eb' },
    [BRIDGE_BAD_URL],
    /the events bridge URL "not an address" is not valid/,
  ],
  ['detection-enroll', 'no events bridge', { bridge: '' }, [], /choose an events bridge/],
  [
    'detection-enroll',
    'an events bridge that is not valid',
    { bridge: 'eb' },
    [BRIDGE_BAD_URL],
    /the events bridge URL "not an address" is not valid/,
  ],
  [
    'detection-enroll',
    'a value property that is not JSONata',
    { bridge: 'eb', plate: NOT_JSONATA, plateType: 'jsonata' },
    [{ ...BRIDGE_BAD_URL, url: 'http://127.0.0.1:9' }],
    /cannot be read/,
  ],
  ['platform-push', 'no platform server', { server: '', operation: 'pos', posId: '7', posIdType: 'str' }, [], /choose a platform server/],
  [
    'platform-push',
    'a platform server without credentials',
    { server: 'srv', operation: 'pos', posId: '7', posIdType: 'str' },
    [SERVER_NO_CREDENTIALS],
    /needs a user name and a password/,
  ],
  [
    'platform-push',
    'no POS instance',
    { server: 'srv', operation: 'pos', posId: ' ', posIdType: 'str' },
    ['credentials'],
    /no POS instance: choose one in the node/,
  ],
  ['platform-request', 'no platform server', { server: '', method: 'GET', path: '/api/v2/x' }, [], /choose a platform server/],
  [
    'platform-request',
    'a platform server without credentials',
    { server: 'srv', method: 'GET', path: '/api/v2/x' },
    [SERVER_NO_CREDENTIALS],
    /needs a user name and a password/,
  ],
  [
    'platform-request',
    'a path expression that is not JSONata',
    { server: 'srv', method: 'GET', path: NOT_JSONATA, pathType: 'jsonata' },
    ['credentials'],
    /cannot be read/,
  ],
  [
    'detection-filter',
    'rules that are no list (a flow edited by hand)',
    { rules: 'tag:VIP' },
    [],
    /detection filter cannot run: the rules are not a list/,
  ],
  ['detection-image', 'a crop order that is a number (a flow edited by hand)', { crops: 5 }, [], /the crop order "5" is not a list of/],
  // A setup that throws: the node is kept, and says it cannot start (its status: shared.json's key, for the editor's language).
  [
    'detection-image',
    'an output property that is a number (a flow edited by hand)',
    { outputProperty: 5 },
    [],
    /detection image cannot start with these settings \(.+\): open the node/,
    'setup.status',
  ],
  [
    'platform-request',
    'a path that is a number (a flow edited by hand)',
    { server: 'srv', method: 'GET', path: 5, pathType: 'str' },
    ['credentials'],
    /platform request cannot start with these settings/,
    'setup.status',
  ],
  ['platform-request', 'no path', { server: 'srv', method: 'GET', path: '  ', pathType: 'str' }, ['credentials'], /no path: enter one in the node/],
];

/** Their configuration statuses are checked in their own tests (detection filter's name a rule by its number). */
const OWN_STATUS_TESTS = ['detection-filter', 'detection-dedupe'];

/** A platform server that can make its client (credentials given), for cases about the node's own options. */
const SERVER = { id: 'srv', type: 'platform-server', name: '', url: 'http://127.0.0.1:9', insecure: false, ca: '', timeout: 10 };

describe('a node whose configuration cannot run still ends every message with done(err)', function () {
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
  });

  for (const [type, what, config, beside, says, statusKey] of CASES) {
    it(`${type}: ${what}`, async () => {
      const withCredentials = beside.includes('credentials');
      const configNodes = withCredentials ? [SERVER] : beside;
      await helper.load(
        MODULES,
        [
          { id: 'f1', type: 'tab', label: 'bad configuration' },
          ...configNodes,
          { id: 'n1', type, z: 'f1', name: '', configVersion: currentVersion(type), wires: [['out']], ...config },
          { id: 'out', type: 'helper', z: 'f1' },
          { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
          { id: 'caught', type: 'helper', z: 'f1' },
        ],
        withCredentials ? { srv: { userName: 'operator', password: 'secret' } } : {},
      );
      const node = helper.getNode('n1');
      assert.ok(node, 'the node is created');
      const sent = [];
      helper.getNode('out').on('input', (msg) => sent.push(msg));
      const caught = collect(helper.getNode('caught'), 2);
      node.receive({ payload: { publishType: 'WebHookLprPayload' }, mark: 1 });
      node.receive({ payload: { publishType: 'WebHookLprPayload' }, mark: 2 });
      const got = await caught;
      assert.deepEqual(
        got.map((msg) => msg.mark),
        [1, 2],
        'each message reaches the Catch node',
      );
      for (const msg of got) {
        assert.equal(msg.error.source.id, 'n1');
        assert.equal(msg.error.source.type, type);
        assert.match(msg.error.message, says);
        assert.doesNotMatch(msg.error.message, /\b[a-z-]+\.(errors|status|options)\.[a-z-]+/, 'a text of the catalog, not a key');
      }
      assert.deepEqual(sent, [], 'nothing sent on');
      const status = node.status.getCalls().map((c) => c.args[0]);
      assert.ok(
        status.some((s) => s.fill === 'red'),
        `a red status: ${JSON.stringify(status)}`,
      );
      // A status without figures is sent as its catalog key, which the editor shows in its language.
      const shown = ownStatus(node).text;
      if (statusKey) assert.equal(shown, statusKey);
      else if (!OWN_STATUS_TESTS.includes(type)) assert.match(shown, new RegExp(`^${type}\\.status\\.[a-z-]+$`), `${type}: a key of its catalog`);
      if (!OWN_STATUS_TESTS.includes(type)) translate(shown); // in the catalog (setup.status: shared.json's, merged into every node's)
    });
  }

  it('detection-done: no option can stop it; one it cannot read is off, and each message is still done', async () => {
    await helper.load(MODULES, [
      { id: 'f1', type: 'tab', label: 'bad configuration' },
      { id: 'n1', type: 'detection-done', z: 'f1', name: '', passOn: 'perhaps', configVersion: currentVersion('detection-done'), wires: [['out']] },
      { id: 'out', type: 'helper', z: 'f1' },
      { id: 'k1', type: 'complete', z: 'f1', scope: ['n1'], uncaught: false, wires: [['completed']] },
      { id: 'completed', type: 'helper', z: 'f1' },
      { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper', z: 'f1' },
    ]);
    const caught = [];
    helper.getNode('caught').on('input', (msg) => caught.push(msg));
    const sent = [];
    helper.getNode('out').on('input', (msg) => sent.push(msg));
    const completed = collect(helper.getNode('completed'), 2);
    helper.getNode('n1').receive({ mark: 1 });
    helper.getNode('n1').receive({ mark: 2 });
    assert.deepEqual(
      (await completed).map((msg) => msg.mark),
      [1, 2],
    );
    assert.deepEqual(caught, [], 'done() without an error');
    assert.deepEqual(sent, [], 'passOn unreadable: off');
  });
});
