'use strict';
/**
 * Each option's rule is stated once, in lib/config/node-options.ts; the
 * editor's dialogs and the runtime both read it. This checks that they
 * still agree, from both ends: the editor as it registers each node type
 * (the built node files run against a stub RED, test/support/editor-defaults.js)
 * and the runtime as the nodes read their configuration (nodeOptions, and the
 * few options a node checks where a wrong value stops it).
 *
 * For every option of the table: the editor's default is the table's, and
 * its validator accepts exactly the values the runtime runs with as given,
 * on each rule's boundaries (and a few values around them).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../support');
const editor = require('../support/editor-defaults');

const dist = (file) => require(path.join(ROOT, 'dist', file));
const { NODE_OPTIONS, nodeOptions, optionRule } = dist('lib/config/node-options');
const { checkOption, optionValue, toNumber } = dist('lib/core/option-rules');
const { limitOption, parseOptions } = dist('lib/core/options');
const { RedisSettings } = dist('lib/redis/connection');

/**
 * What makes an option apply where its dialog checks it only in some
 * settings (a journal size only for disk acknowledgement, …).
 */
const APPLIES = {
  'detection-in': {
    journalMaxMiB: { ackMode: 'disk' },
    redeliverAfterSeconds: { ackMode: 'memory' },
    streamMaxEvents: { ackMode: 'redis' },
    streamMaxMiB: { ackMode: 'redis' },
    claimAfterSeconds: { ackMode: 'redis' },
  },
  // the timeout is the node's own only while it fetches from its own saved URL
  'detection-sample': { timeout: { source: 'bridge', bridge: '', baseUrl: 'https://bridge.example' } },
};

/** Choices that are a TypedInput's fixed type (the other types read the value from the message). */
const TYPED = { 'detection-sample': ['kind'], 'detection-enroll': ['action', 'kind'] };

/** A node as the editor's validators see it: translating to the key, with every credential set. */
function editorNode(type, extra = {}) {
  return {
    id: 'n1',
    type,
    z: '',
    _: (key) => key,
    credentials: { user: 'u', password: 'p', token: 't', headerValue: 'h', pushoverToken: 'a', pushoverUser: 'u' },
    ...extra,
  };
}

/** Whether the editor's validator of `type`.`name` accepts `value` (true; a string or false is its refusal). */
function editorAccepts(type, name, value, extra) {
  const def = editor.definitions()[type].defaults[name];
  if (typeof def.validate !== 'function') return true;
  return def.validate.call(editorNode(type, { ...(APPLIES[type] || {})[name], ...extra }), value, {}) === true;
}

/**
 * Whether the runtime runs `type` with `value` for `name` as given (not its
 * default, nor a value made to fit): the node's own reading of the option.
 */
function runtimeAccepts(type, name, value) {
  const rule = optionRule(type, name);
  const number = toNumber(value);
  // a number as given: its text read as a number; nothing else is one
  const expected = rule.kind !== 'number' ? value : typeof number === 'number' ? number : NaN;
  if (type === 'detection-redis' && name === 'database') {
    // detection-redis.ts: empty (or null) is no database (0); the rest through lib/redis's settings
    return parseOptions(RedisSettings, { url: 'redis://127.0.0.1', database: value === '' || value === null ? undefined : value }).ok;
  }
  if (type === 'detection-dedupe' && (name === 'ttl' || name === 'maxKeys')) {
    // detection-dedupe.ts: a wrong window stops the node; one above the maximum is the maximum
    const parsed = limitOption(rule).safeParse(value);
    return parsed.success && parsed.data === expected;
  }
  if (type === 'detection-listener' && name === 'port') {
    // detection-listener.ts: a listener without a valid port does not start
    return checkOption(rule, String(value ?? '').trim()).ok;
  }
  return nodeOptions(type, { [name]: value })[name] === expected;
}

/** Values on and around a number rule's bounds, and some that are no number at all. */
function numberCases(rule) {
  const step = rule.integer ? 1 : 0.5;
  const cases = ['abc', '1e', '5 5', 'Infinity', true, null, ' 7 ', '7', 7, 0, -1, 1.5, 1e9];
  for (const bound of [rule.min, rule.max, rule.above]) {
    if (bound === undefined) continue;
    cases.push(bound, bound - step, bound + step, String(bound), `${bound}.0`, bound + 0.25);
  }
  return cases;
}

const TABLE_TYPES = Object.keys(NODE_OPTIONS);

describe('option rules: the editor and the runtime read lib/config/node-options.ts alike', function () {
  it('has a table for every node type of the package, and every option of it is in the editor', () => {
    assert.deepEqual([...TABLE_TYPES].sort(), [...editor.TYPES].sort());
    for (const type of TABLE_TYPES) {
      const defaults = editor.definitions()[type].defaults;
      for (const name of Object.keys(NODE_OPTIONS[type])) assert.ok(defaults[name], `${type}.${name} is in the editor's defaults`);
    }
  });

  for (const type of TABLE_TYPES) {
    describe(type, function () {
      const names = Object.keys(NODE_OPTIONS[type]);
      if (names.length === 0) return;

      it("the editor's defaults are the table's, and a new node runs with them", () => {
        const defaults = editor.defaults(type);
        for (const name of names) {
          const rule = NODE_OPTIONS[type][name];
          assert.deepEqual(defaults[name], rule.default, `${type}.${name}: the editor's default`);
          // a new node saves the editor's default: the runtime reads it as it is
          if (rule.default !== '') assert.ok(runtimeAccepts(type, name, rule.default), `${type}.${name}: the runtime runs its default`);
        }
      });

      it("a saved node without the option runs as it always did: the table's absent value (else its default), which the editor's import fills in", () => {
        for (const name of names) {
          const rule = NODE_OPTIONS[type][name];
          const expected = rule.absent !== undefined ? rule.absent : rule.default === '' ? undefined : rule.default;
          if (!(type === 'detection-listener' && name === 'port')) assert.deepEqual(nodeOptions(type, {})[name], expected, `${type}.${name}`);
          const added = editor.addNode({ id: 'old', type, z: '', configVersion: undefined });
          if (rule.default !== '')
            assert.deepEqual(added[name], rule.absent !== undefined ? rule.absent : rule.default, `${type}.${name} as imported`);
        }
      });

      for (const name of names) {
        const rule = NODE_OPTIONS[type][name];
        if (rule.kind === 'flag') {
          it(`${name}: a flag, true/false or their text`, () => {
            for (const [value, read] of [
              [true, true],
              [false, false],
              ['true', true],
              ['false', false],
            ])
              assert.equal(nodeOptions(type, { [name]: value })[name], read);
            assert.equal(nodeOptions(type, { [name]: 'yes' })[name], rule.absent ?? rule.default, 'anything else: its default');
          });
          continue;
        }
        it(`${name}: the editor's validator accepts what the runtime runs with as given, no more`, () => {
          const cases = rule.kind === 'choice' ? [...rule.choices, 'nonsense', rule.choices[0].toUpperCase(), 7, null] : numberCases(rule);
          for (const value of cases) {
            assert.equal(
              editorAccepts(type, name, value),
              runtimeAccepts(type, name, value),
              `${type}.${name} = ${JSON.stringify(value)}: editor ${editorAccepts(type, name, value)}, runtime ${runtimeAccepts(type, name, value)}`,
            );
          }
          // saved before the option existed: valid, it takes its default (a TypedInput's fixed choice is checked as the TypedInput)
          if (!(TYPED[type] || []).includes(name)) assert.equal(editorAccepts(type, name, undefined), true);
          if (rule.kind === 'number') {
            // an empty field is no value: refused by the dialog unless the option may be left empty; the runtime takes the default
            assert.equal(editorAccepts(type, name, ''), !!rule.optional, `${type}.${name} = ''`);
            if (!(type === 'detection-listener' && name === 'port'))
              assert.equal(optionValue(rule, ''), rule.default === '' ? undefined : (rule.absent ?? rule.default));
          }
        });
        if (rule.kind === 'number' && rule.message !== undefined) {
          it(`${name}: a refusal says the range, in the node's catalog`, () => {
            assert.equal(
              editor.definitions()[type].defaults[name].validate.call(editorNode(type, (APPLIES[type] || {})[name]), 'abc', {}),
              `${type}.validators.${rule.message}`,
            );
          });
        }
      }

      const applies = APPLIES[type] || {};
      for (const name of Object.keys(applies)) {
        it(`${name}: not checked where it does not apply`, () => {
          const elsewhere = type === 'detection-in' ? { ackMode: applies[name].ackMode === 'redis' ? 'memory' : 'redis' } : { source: 'builtin' };
          assert.equal(editor.definitions()[type].defaults[name].validate.call(editorNode(type, elsewhere), 'abc', {}), true);
        });
      }
    });
  }

  it('every number option has its message in the catalog of every language', () => {
    for (const lang of fs.readdirSync(path.join(ROOT, 'locales'))) {
      for (const type of TABLE_TYPES) {
        const file = path.join(ROOT, 'locales', lang, `${type}.json`);
        const catalog = JSON.parse(fs.readFileSync(file, 'utf8'))[type];
        // detection-redis words its validators under errors
        const where = (type === 'detection-redis' ? catalog.errors : catalog.validators) || {};
        for (const [name, rule] of Object.entries(NODE_OPTIONS[type])) {
          if (rule.kind !== 'number') continue;
          const key = rule.message || name;
          assert.equal(typeof where[key], 'string', `locales/${lang}/${type}.json: the message of ${name} (${key})`);
        }
      }
    }
  });

  it("the dialogs' number fields hint at the table's bounds (min, max, step) and no others", () => {
    for (const type of TABLE_TYPES) {
      const html = fs.readFileSync(path.join(ROOT, 'dist', 'nodes', type, `${type}.html`), 'utf8');
      for (const [, name, attrs] of html.matchAll(/<input type="number" id="node-(?:config-)?input-([A-Za-z]+)"([^>]*)>/g)) {
        const rule = NODE_OPTIONS[type][name];
        assert.ok(rule && rule.kind === 'number', `${type}: a number field ${name} without a rule`);
        const attr = (key) => {
          const m = new RegExp(`\\b${key}="([^"]*)"`).exec(attrs);
          return m ? m[1] : undefined;
        };
        const max = attr('max');
        assert.equal(max === undefined ? undefined : Number(max), rule.max, `${type}.${name}: max`);
        const min = attr('min');
        if (min !== undefined) assert.ok(checkOption(rule, min).ok, `${type}.${name}: min="${min}" is allowed`);
        if (rule.integer) assert.equal(attr('step'), '1', `${type}.${name}: whole numbers`);
      }
    }
  });

  it('each node reads its options through the table', () => {
    for (const type of TABLE_TYPES) {
      const names = Object.keys(NODE_OPTIONS[type]);
      if (names.length === 0 || type === 'detection-redis') continue;
      // the node's runtime files (its adapter and what sits beside it, such as settings.ts), not its dialog
      const dir = path.join(ROOT, 'nodes', type);
      const source = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.ts') && f !== 'editor.ts')
        .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
        .join('\n');
      assert.match(source, new RegExp(`(nodeOptions|readNodeOptions|optionRule)\\(\\s*'${type}'`), `nodes/${type}/`);
      assert.doesNotMatch(source, /dialogOptions\(/, `nodes/${type}/: no rules of its own`);
    }
  });
});

describe('options lib checks outside the table: the dialog agrees', function () {
  it("events-bridge's page size: lib/bridge/enroll-api.ts's bounds", () => {
    const { resolveEnrollmentApi, MAX_PAGE_SIZE } = dist('lib/bridge/enroll-api');
    const validate = editor.definitions()['events-bridge'].defaults.pageSize.validate;
    assert.equal(editor.defaults('events-bridge').pageSize, dist('lib/bridge/enroll-api').DEFAULT_PAGE_SIZE);
    for (const value of [0, 1, 2, 1.5, MAX_PAGE_SIZE, MAX_PAGE_SIZE + 1, '500', 'abc', -1]) {
      const runtime = resolveEnrollmentApi({ pageQuery: 'page={page}', pageSize: value }).ok;
      assert.equal(validate.call(editorNode('events-bridge'), value, {}) === true, runtime, `pageSize ${JSON.stringify(value)}`);
    }
  });

  it("detection-redis's key prefix and instance name: lib/redis/connection.ts's lengths", () => {
    const defaults = editor.definitions()['detection-redis'].defaults;
    for (const name of ['prefix', 'instance']) {
      for (const value of ['', 'x'.repeat(200), 'x'.repeat(201), ` ${'x'.repeat(199)} `]) {
        const runtime = parseOptions(RedisSettings, { url: 'redis://127.0.0.1', [name]: value }).ok;
        assert.equal(defaults[name].validate.call(editorNode('detection-redis'), value, {}) === true, runtime, `${name} of ${value.length}`);
      }
    }
  });
});

describe("option rules: the table's lists and defaults are lib's", function () {
  const choices = (type, name) => [...optionRule(type, name).choices].sort();
  const sorted = (list) => [...list].sort();

  it('lists of allowed values', () => {
    assert.deepEqual(choices('detection-in', 'auth'), sorted(dist('lib/receiver/auth').AUTH_MODES));
    assert.deepEqual(choices('detection-in', 'validation'), sorted(dist('lib/receiver/validation').VALIDATION_MODES));
    assert.deepEqual(choices('detection-in', 'ackMode'), sorted(dist('lib/delivery/tracker').ACK_MODES));
    assert.deepEqual(choices('detection-in', 'finishedWhen'), sorted(dist('lib/delivery/downstream').FINISHED_WHEN));
    assert.deepEqual(choices('detection-filter', 'combine'), sorted(dist('lib/events/filter').COMBINES));
    const pick = dist('lib/image/pick');
    assert.deepEqual(choices('detection-image', 'plateMode'), sorted(pick.PLATE_MODES));
    assert.deepEqual(choices('detection-image', 'faceImage'), sorted(pick.FACE_CHOICES));
    assert.deepEqual(choices('detection-image', 'noImage'), sorted(pick.NO_IMAGE_POLICIES));
    assert.deepEqual(choices('detection-image', 'format'), sorted(dist('lib/image/decode').IMAGE_FORMATS));
    assert.deepEqual(choices('detection-sample', 'images'), sorted(dist('lib/bridge/sample').SAMPLE_IMAGE_MODES));
    assert.deepEqual(choices('detection-sample', 'kind'), sorted(dist('lib/bridge/sample').EVENT_KINDS));
    assert.deepEqual(choices('detection-enroll', 'action'), sorted(dist('lib/bridge/enroll-schemas').ENROLL_ACTIONS));
    assert.deepEqual(choices('detection-redis', 'confirmAof'), sorted(dist('lib/redis/confirm').CONFIRM_AOF));
  });

  it('defaults lib states as constants', () => {
    const { DEFAULT_MAX_BODY_BYTES, DEFAULT_STALL_MS, MiB } = dist('lib/receiver/receiver');
    assert.equal(optionRule('detection-in', 'maxBodyMiB').default, DEFAULT_MAX_BODY_BYTES / MiB);
    assert.equal(optionRule('detection-in', 'stallSeconds').default, DEFAULT_STALL_MS / 1000);
    assert.equal(optionRule('detection-sample', 'timeout').default, dist('lib/bridge/client').DEFAULT_SAMPLE_TIMEOUT_MS / 1000);
    assert.equal(optionRule('platform-server', 'timeout').default, dist('lib/platform/client').DEFAULT_PLATFORM_TIMEOUT_MS / 1000);
    assert.equal(optionRule('detection-redis', 'confirmTimeoutMs').default, dist('lib/redis/connection').DEFAULT_CONFIRM_TIMEOUT_MS);
  });

  it('the servers a node talks to share one timeout and one TLS rule', () => {
    assert.equal(optionRule('platform-server', 'timeout'), optionRule('events-bridge', 'timeout'));
    assert.equal(optionRule('platform-server', 'insecure'), optionRule('events-bridge', 'insecure'));
    assert.equal(optionRule('detection-sample', 'insecure'), optionRule('events-bridge', 'insecure'));
  });
});

describe('option rules: what the issue settled', function () {
  it("a new receiver asks for a token; one saved without `auth` takes none, in the runtime and in the editor's import", () => {
    assert.equal(editor.defaults('detection-in').auth, 'bearer');
    assert.equal(nodeOptions('detection-in', {}).auth, 'none');
    assert.equal(editor.addNode({ id: 'r', type: 'detection-in', z: '' }).auth, 'none');
  });

  it('the stalled-body time is at most an hour in the dialog and at run time (more, from a hand-edited flow, is an hour)', () => {
    assert.equal(editorAccepts('detection-in', 'stallSeconds', 3600), true);
    assert.equal(editorAccepts('detection-in', 'stallSeconds', 3601), false);
    assert.equal(nodeOptions('detection-in', { stallSeconds: 3600 }).stallSeconds, 3600);
    assert.equal(nodeOptions('detection-in', { stallSeconds: 7200 }).stallSeconds, 3600);
  });

  it('both server configurations read TLS and timeout alike: "false" is off, a timeout above 600 s is 600 s, none is 30 s', () => {
    for (const type of ['platform-server', 'events-bridge']) {
      assert.deepEqual(nodeOptions(type, { insecure: 'false', timeout: '900' }), { insecure: false, timeout: 600 }, type);
      assert.deepEqual(nodeOptions(type, { insecure: true, timeout: ' 12.5 ' }), { insecure: true, timeout: 12.5 }, type);
      assert.deepEqual(nodeOptions(type, {}), { insecure: false, timeout: 30 }, type);
      assert.equal(editorAccepts(type, 'timeout', 600), true, type);
      assert.equal(editorAccepts(type, 'timeout', 601), false, type);
      assert.equal(editorAccepts(type, 'timeout', 0), false, type);
    }
  });
});
