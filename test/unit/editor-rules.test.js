'use strict';
/**
 * The dialogs run lib's rules; they do not restate them (DESIGN.md: option
 * rules come from lib). Two ways to catch a dialog that restates one:
 *
 * - its text: every node's editor.ts and .html, and the dialogs' shared
 *   helpers, are searched for a literal copy of what the browser-safe lib
 *   files served to the editor export (a list of names, a map of lists, a
 *   pattern) and of the regular expressions those files hold;
 * - its verdicts: each dialog's validator, run as the editor runs it
 *   (test/support/editor-defaults.js), must agree with lib's rule on values
 *   around each rule's edges, so a copy that drifts fails too.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../support');
const editor = require('../support/editor-defaults');

const dist = (file) => require(path.join(ROOT, 'dist', file));
const { editorScript } = dist('nodes/shared/editor-script');

/** The lib files the editor script serves for rules the dialogs share (their source, and their compiled exports). */
const RULE_FILES = [
  'lib/events/filter-rules',
  'lib/events/filter-lists',
  'lib/events/tag-prefix',
  'lib/core/crop-sizes',
  'lib/receiver/auth-config',
  'lib/http/route-path',
  'lib/http/base-url',
  'lib/alert/template',
  'lib/bridge/enroll-api',
];

/** The text a dialog is made of: each node's editor.ts and .html, and the helpers every dialog uses. */
function dialogSources() {
  const out = [];
  for (const type of fs.readdirSync(path.join(ROOT, 'nodes'))) {
    const dir = path.join(ROOT, 'nodes', type);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const file of fs.readdirSync(dir)) {
      if (file === 'editor.ts' || file.endsWith('.html')) out.push(path.join('nodes', type, file));
    }
  }
  out.push('nodes/shared/editor-helpers.ts');
  return out.map((file) => ({ file, text: fs.readFileSync(path.join(ROOT, file), 'utf8') }));
}

/** Comments left out: a dialog may name the lib rule it runs. */
function code(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"\\])\/\/.*$/gm, '$1')
    .replace(/<!--[\s\S]*?-->/g, '');
}

/** The string-array literals of a text, each as its sorted items (`['a', "b"]`). */
function arrayLiterals(text) {
  const found = [];
  for (const m of text.matchAll(/\[\s*((?:'[^'\n]*'|"[^"\n]*")(?:\s*,\s*(?:'[^'\n]*'|"[^"\n]*"))*)\s*,?\s*\]/g)) {
    found.push(m[1].split(/\s*,\s*/).map((s) => s.slice(1, -1)));
  }
  return found;
}

const sameSet = (a, b) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** What lib states in those files: its lists (two names or more), maps of lists, pattern texts and regular expressions. */
function libRules() {
  const lists = [];
  const maps = [];
  const patterns = [];
  for (const file of RULE_FILES) {
    const exports = dist(file);
    for (const [name, value] of Object.entries(exports)) {
      const where = `${file}.ts ${name}`;
      if (Array.isArray(value) && value.length >= 2 && value.every((v) => typeof v === 'string')) lists.push({ where, items: value });
      else if (value instanceof RegExp) patterns.push({ where, source: value.source });
      else if (typeof value === 'string' && /^\^.*\$$/.test(value)) patterns.push({ where, source: value });
      else if (value && typeof value === 'object' && Object.values(value).every(Array.isArray)) maps.push({ where, map: value });
    }
    // the regular expressions written in the file (a rule's pattern need not be exported to be restated)
    const source = fs.readFileSync(path.join(ROOT, `${file}.ts`), 'utf8');
    for (const m of code(source).matchAll(/(?<=[(=,:!&|?]\s*|\breturn\s+)\/((?:\\.|\[(?:\\.|[^\]])*\]|[^/\n\\[])+)\/[a-z]*/g)) {
      if (m[1].length >= 6) patterns.push({ where: `${file}.ts /${m[1]}/`, source: m[1] });
    }
  }
  return { lists, maps, patterns };
}

/** Where a dialog's text restates one of lib's rules: `file: what`. */
function restatements(sources, rules) {
  const found = [];
  for (const { file, text } of sources) {
    const body = code(text);
    for (const items of arrayLiterals(body)) {
      for (const list of rules.lists) if (sameSet(items, list.items)) found.push(`${file}: [${items.join(', ')}] is ${list.where}`);
    }
    for (const { where, map } of rules.maps) {
      for (const [key, items] of Object.entries(map)) {
        if (items.length === 0) continue;
        const literal = new RegExp(`['"]?${escape(key)}['"]?\\s*:\\s*\\[\\s*${items.map((i) => `['"]${escape(i)}['"]`).join('\\s*,\\s*')}\\s*\\]`);
        if (literal.test(body)) found.push(`${file}: ${key}: [${items.join(', ')}] is ${where}`);
      }
    }
    for (const { where, source } of rules.patterns) {
      // as a regex literal, or as the text of one (new RegExp('…'))
      if (body.includes(`/${source}/`) || body.includes(`'${source}'`)) found.push(`${file}: /${source}/ is ${where}`);
    }
  }
  return found;
}

describe('the dialogs run lib rules, they do not restate them', () => {
  it('no dialog holds a copy of a list, a map of lists or a pattern of the lib files served to the editor', () => {
    const rules = libRules();
    // the scan sees lib's rules at all: the lists and patterns the dialogs once restated are among them
    const seen = (where) =>
      assert.ok(
        [...rules.lists, ...rules.maps, ...rules.patterns].some((r) => r.where.includes(where)),
        where,
      );
    for (const where of [
      'ALERT_FIELDS',
      'RULE_TYPES',
      'LIST_SOURCES',
      'TIME_SOURCES',
      'TIME_KINDS',
      'RULE_KINDS',
      'CROP_SIZE_NAMES',
      'AUTH_CREDENTIALS',
      'HEADER_NAME',
      'TAG_PREFIX_SOURCE',
    ])
      seen(where);
    seen('route-path.ts /\\/{2,}/');
    assert.deepEqual(restatements(dialogSources(), rules), []);
  });

  it('the scan finds the copies the dialogs held before they ran lib (so it can fail)', () => {
    const before = [
      "const TYPES = ['tag', 'camera', 'camera-match', 'site', 'plate', 'enrolled', 'name', 'confidence', 'context', 'kind', 'time'];",
      "const SOURCES = ['list', 'msg', 'flow', 'global'];",
      "['face', 'lpr'].forEach(function (k) {});",
      "const CROPS = ['Close', 'Medium', 'Car', 'FullFrame', 'Other'];",
      "const FIELDS = ['plate', 'person', 'camera', 'site', 'time', 'tags', 'why', 'confidence', 'vehicle', 'kind', 'externalId', 'messageId'];",
      'const TAG_PREFIX = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9_])?$/;',
      "const NEEDED = { basic: ['user', 'password'], bearer: ['token'], header: ['headerValue'] };",
      "const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;",
      "p = p.replace(/\\/{2,}/g, '/');",
      "if (/^[a-z][a-z0-9+.-]*:/i.test(p) || p.indexOf('//') === 0) return 'path-absolute';",
      "return /^\\/?[^\\s?#]+$/.test(p) ? null : 'path';",
    ];
    const found = restatements(
      before.map((text, i) => ({ file: `before-${i}`, text })),
      libRules(),
    );
    for (let i = 0; i < before.length; i++)
      assert.ok(
        found.some((f) => f.startsWith(`before-${i}:`)),
        `${before[i]} found: ${found.join('; ')}`,
      );
  });
});

describe("the dialogs' verdicts are lib's", () => {
  const defs = editor.definitions();
  /** A node as validators see it: its catalog answers with the key, every credential set. */
  const node = (type, extra = {}) => ({ id: 'n1', type, z: '', _: (key) => key, credentials: {}, ...extra });
  const accepts = (type, name, value, extra) => defs[type].defaults[name].validate.call(node(type, extra), value, {}) === true;

  it('detection filter: a rule passes the dialog exactly when lib compiles it, and is labelled as the runtime says it', () => {
    const { ruleConfigProblem, ruleSummary, summaryLine, RULE_TYPES } = dist('lib/events/filter-rules');
    const { translateEnglish } = dist('lib/core/messages');
    const rules = [
      ...RULE_TYPES.flatMap((t) => [{ t }, { t, v: '' }, { t, v: 'VIP, Gate 2' }, { t, v: '0.5' }, { t, v: 'face' }, { t, v: 'lpr', k: 'x' }]),
      { t: 'tag', v: ' , ', vt: 'list' },
      { t: 'tag', v: 'vip', vt: 'msg' },
      { t: 'tag', v: '', vt: 'flow' },
      { t: 'tag', v: 'a', vt: 'env' },
      { t: 'confidence', v: '80' },
      { t: 'confidence', v: '1' },
      { t: 'confidence', v: '-0.1' },
      { t: 'context', k: ' ', v: 'x' },
      { t: 'time', v: 'Mon-Fri 22:00-06:00' },
      { t: 'time', v: '25:00-06:00' },
      { t: 'time', v: 'Mon 22:00-06:00', k: 'outside' },
      { t: 'time', v: 'Mon 22:00-06:00', k: 'sometimes' },
      { t: 'time', v: 'NIGHT', vt: 'env' },
      { t: 'time', v: '', vt: 'env' },
      { t: 'time', v: 'w', vt: 'context' },
      { t: 'nope', v: 'x' },
      {},
    ];
    const validate = defs['detection-filter'].defaults.rules.validate;
    for (const rule of rules) {
      const verdict = validate.call(node('detection-filter'), [rule], {});
      assert.equal(verdict === true, ruleConfigProblem(rule) === undefined, `${JSON.stringify(rule)}: ${verdict}`);
    }
    const label = defs['detection-filter'].label;
    const good = rules.filter((r) => ruleConfigProblem(r) === undefined);
    for (const combine of ['all', 'any']) {
      for (let i = 0; i < good.length; i += 2) {
        const some = good.slice(i, i + 2);
        const plates = { lookalikes: 1, extraMissing: 0 };
        const expected = summaryLine(
          some.map((r) => ruleSummary(r, plates)),
          combine,
          translateEnglish,
        );
        const shown = label.call({
          ...node('detection-filter'),
          combine,
          rules: some,
          plateLookalikes: '1',
          plateExtraMissing: '0',
          _: translateEnglish,
        });
        assert.equal(shown, expected, JSON.stringify(some));
      }
    }
  });

  it('detection image and alert: a crop list passes exactly when lib reads it', () => {
    const { parseCropList } = dist('lib/core/crop-sizes');
    for (const value of [
      'Close',
      'Close,Medium',
      ' Car , Other ',
      'Close,Close',
      'close',
      '',
      'Close,,Medium',
      'Close,Wide',
      'FullFrame,Other,Car,Medium,Close',
    ]) {
      for (const type of ['detection-image', 'detection-alert']) {
        assert.equal(
          accepts(type, 'crops', value, { picture: true, image: true }),
          parseCropList(value) !== null,
          `${type}: ${JSON.stringify(value)}`,
        );
      }
    }
  });

  it('events bridge and platform server: a URL passes exactly when lib takes it as a base URL', () => {
    const { baseUrlProblem } = dist('lib/http/base-url');
    const urls = [
      '',
      ' ',
      'https://bridge-host:5022',
      'http://h/core/',
      'bridge-host:5022',
      'ftp://h',
      'https://h?x=1',
      'https://h#a',
      'https://u:p@h',
      'https://h h',
      'https://',
    ];
    for (const url of urls) {
      for (const type of ['events-bridge', 'platform-server'])
        assert.equal(accepts(type, 'url', url), baseUrlProblem(url) === undefined, `${type}: ${JSON.stringify(url)}`);
      // detection sample's own saved URL: its client sends a user name in it as Basic credentials
      const own = { source: 'bridge', bridge: '', baseUrl: 'https://bridge.example' };
      const sampleOk = baseUrlProblem(url) === undefined || baseUrlProblem(url) === 'user-info';
      assert.equal(accepts('detection-sample', 'baseUrl', url, own), sampleOk, `detection-sample: ${JSON.stringify(url)}`);
    }
  });

  it("events bridge: the enrollment paths, paging and photo field pass exactly when lib's resolveEnrollmentApi takes them", () => {
    const { resolveEnrollmentApi } = dist('lib/bridge/enroll-api');
    const OPTION = { lprMonitorPath: 'lpr.monitor', lprListPath: 'lpr.list', faceMonitorPath: 'face.monitor', faceListPath: 'face.list' };
    const paths = [
      '',
      '/api/v1/lpr/monitor/{externalId}',
      '/a/{externalId}/{x}',
      '/a/b',
      'https://h/a/{externalId}',
      '//h/{externalId}',
      '/a?x={externalId}',
      '/a {externalId}',
    ];
    for (const [field, option] of Object.entries(OPTION)) {
      const [kind, which] = option.split('.');
      for (const p of paths) {
        const libOk = !(resolveEnrollmentApi({ paths: { [kind]: { [which]: p } } }).problems || []).some((x) => x.option === option);
        assert.equal(accepts('events-bridge', field, p), libOk, `${field}: ${JSON.stringify(p)}`);
      }
    }
    for (const q of ['', 'page={page}&pageSize={size}', '?offset={offset}', 'page={page', 'size={size}', 'p={pages}', 'a=b=c', 'p={page}#x']) {
      const libOk = !(resolveEnrollmentApi({ pageQuery: q }).problems || []).some((x) => x.option === 'pageQuery');
      assert.equal(accepts('events-bridge', 'pageQuery', q), libOk, `pageQuery: ${JSON.stringify(q)}`);
    }
    for (const size of ['', '1', '100000', '100001', '0', '2.5', 'many', 500]) {
      const libOk = !(resolveEnrollmentApi({ pageSize: size }).problems || []).some((x) => x.option === 'pageSize');
      assert.equal(accepts('events-bridge', 'pageSize', size), libOk, `pageSize: ${JSON.stringify(size)}`);
    }
    for (const field of ['', 'faceImage', 'photo_1', '1photo', 'a b']) {
      const libOk = !(resolveEnrollmentApi({ photoField: field }).problems || []).some((x) => x.option === 'photoField');
      assert.equal(accepts('events-bridge', 'photoField', field), libOk, `photoField: ${JSON.stringify(field)}`);
    }
  });

  it('detection in and monitor: a path passes exactly when lib takes it as a route', () => {
    const { routePathProblem } = dist('lib/http/route-path');
    for (const p of ['/detections', 'hooks/a', '', '/', ' / ', '/a b', '/a?b', '/a#b', '//a//', '/ä']) {
      assert.equal(accepts('detection-in', 'path', p), routePathProblem(p) === undefined, `detection-in: ${JSON.stringify(p)}`);
      assert.equal(accepts('detection-monitor', 'metricsPath', p), routePathProblem(p) === undefined, `detection-monitor: ${JSON.stringify(p)}`);
    }
  });

  it('detection in: each authentication asks for exactly the credentials lib needs, and its header name is an HTTP token', () => {
    const { AUTH_CREDENTIALS, AUTH_MODES, authConfigProblem, HEADER_NAME } = dist('lib/receiver/auth-config');
    const all = { user: 'u', password: 'p', token: 't', headerValue: 'v' };
    for (const mode of AUTH_MODES) {
      const config = { mode, headerName: 'X-Key', ...all };
      assert.equal(authConfigProblem(config), null, `${mode}: every credential set runs`);
      assert.equal(accepts('detection-in', 'auth', mode, { credentials: all, changed: true }), true, mode);
      for (const name of Object.keys(all)) {
        const without = { ...all, [name]: '' };
        const needed = AUTH_CREDENTIALS[mode].includes(name);
        assert.equal(authConfigProblem({ ...config, [name]: '' }) !== null, needed, `${mode} without ${name}: lib`);
        assert.equal(accepts('detection-in', 'auth', mode, { credentials: without, changed: true }), !needed, `${mode} without ${name}: the dialog`);
      }
    }
    for (const name of ['X-Key', 'x_key', 'X Key', 'X:Key', '', 'Ä']) {
      assert.equal(accepts('detection-in', 'headerName', name, { auth: 'header' }), HEADER_NAME.test(name), JSON.stringify(name));
    }
  });

  it('the editor script serves each of these lib files', () => {
    const script = editorScript();
    for (const file of RULE_FILES) {
      const compiled = fs.readFileSync(path.join(ROOT, 'dist', `${file}.js`), 'utf8');
      assert.ok(script.includes(compiled), `${file} is served as built`);
    }
  });
});
