'use strict';
/**
 * Tests mirror lib (issue 41): the unit tests of lib/<subsystem>/<file>.ts are
 * in test/unit/<subsystem>/<file>.test.js, so a reader finds a file's tests
 * without searching. A file tested elsewhere is listed in COVERED_BY with the
 * tests that exercise it, and the list is checked too, so that it cannot lie:
 * each named test exists, loads the file's compiled module (or its
 * subsystem's face, which must re-export the file) and names one of the
 * file's exports. A file that compiles to nothing (types only) has nothing
 * to run and needs no test; that is checked on its compiled module. The other
 * way round, a unit test of a lib subsystem is named after a file of it
 * (<file>.test.js, or <file>-<aspect>.test.js for a part of a large file's
 * tests), so a test does not outlive the file it tests under its old name.
 *
 * Not walked: the faces (index.ts: re-exports, held by architecture.test.js),
 * declarations (.d.ts) and the WebAssembly text (.wat, tested through
 * unescape-wasm.ts).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../support');

/**
 * lib file (without lib/ and .ts) → the tests (paths under test/) that cover
 * it where no mirrored test does. One line per file; a file that gets its own
 * mirrored test leaves the list (a stale entry fails).
 */
const COVERED_BY = {
  'alarm/types': ['unit/alarm/book.test.js'],
  'alert/text': ['unit/alert/senders.test.js'],
  'bridge/enroll-api': ['unit/bridge/client.test.js'],
  'bridge/enroll-schemas': ['unit/bridge/client.test.js'],
  'bridge/fetch-sample': ['unit/bridge/client-sample.test.js'],
  'bridge/sample-images': ['unit/sim/pictures.test.js'],
  'core/options': ['unit/core/option-rules.test.js'],
  'dedupe/redis-cap': ['unit/dedupe/cap.test.js'],
  'delivery/deploy-watch': ['unit/delivery/session.test.js'],
  'delivery/journal-records': ['unit/delivery/journal.test.js'],
  'delivery/keeper': ['unit/delivery/tracker.test.js'],
  'delivery/registry': ['unit/delivery/completion.test.js', 'unit/delivery/dead-letters.test.js'],
  'delivery/retry': ['unit/delivery/tracker-attempts.test.js', 'unit/delivery/stream-dead-letters.test.js'],
  'delivery/session-records': ['unit/delivery/session.test.js'],
  'delivery/store-open': ['unit/delivery/session.test.js'],
  'delivery/stream-claim': ['unit/delivery/stream.test.js'],
  'delivery/stream-held': ['unit/delivery/stream.test.js'],
  'delivery/stream-scripts': ['unit/delivery/stream-take.test.js'],
  'delivery/tracker-dead': ['unit/delivery/tracker.test.js'],
  'delivery/tracker-timers': ['unit/delivery/tracker.test.js'],
  'http/unescape': ['unit/http/unescape-wasm.test.js'],
  'metrics/histogram': ['unit/metrics/sources.test.js'],
  'openapi/document': ['unit/openapi/operations.test.js'],
  'openapi/load': ['unit/openapi/operations.test.js'],
  'plates/preview': ['unit/plates/plate-list.test.js'],
  'platform/plugins': ['unit/platform/client.test.js'],
  'platform/token-pair': ['unit/platform/client.test.js'],
  'platform/url': ['unit/platform/client.test.js'],
  'presence/report': ['unit/presence/sighting.test.js'],
  'presence/state-file': ['unit/presence/local-presence.test.js'],
  'redis/scripts': ['unit/delivery/stream.test.js'],
  'redis/settings': ['unit/redis/sentinel.test.js'],
};

/** lib's source files the mirror applies to, as '<subsystem>/<file>' (no lib/, no .ts). */
function libFiles(dir = 'lib') {
  const out = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...libFiles(rel));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && entry.name !== 'index.ts') {
      out.push(rel.slice('lib/'.length, -'.ts'.length));
    }
  }
  return out.sort();
}

const mirrored = (file) => path.join(ROOT, 'test', 'unit', `${file}.test.js`);
function compiled(file) {
  const module = path.join(ROOT, 'dist', 'lib', `${file}.js`);
  if (!fs.existsSync(module)) throw new Error(`${module} is missing: npm run build first`);
  return require(module);
}

/**
 * The test's source with the arguments of a path.join run together
 * ('dist', 'lib', 'http' → 'dist/lib/http'), so one pattern finds every way
 * the tests spell a module's path.
 */
const joined = (text) => text.replace(/(['"`])\s*,\s*(['"`])/g, '/');
const joinedSource = (test) => joined(fs.readFileSync(path.join(ROOT, 'test', test), 'utf8'));

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** Whether the test loads the compiled module `lib/<spec>` (a file or a face): 'dist/lib/<spec>', or 'lib/<spec>' joined to a dist directory. */
function loads(source, spec) {
  return new RegExp(`(dist/|['"\`])lib/${escape(spec)}(\\.js|/index(\\.js)?)?['"\`]`).test(source) && /\bdist\b/.test(source);
}

/** The lib files ('<subsystem>/<file>') whose source imports lib/<file>.ts by a relative path. */
function importersOf(file) {
  return libFiles().filter((other) => {
    if (other === file) return false;
    const text = fs.readFileSync(path.join(ROOT, 'lib', `${other}.ts`), 'utf8');
    let rel = path.posix.relative(path.posix.dirname(other), file);
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return new RegExp(`from '${escape(rel)}'`).test(text);
  });
}

/** Why `test` does not cover the lib file, or undefined when it does (`text`: the test's source, for the checker's own tests). */
function coverProblem(file, test, text) {
  if (text === undefined && (!test.endsWith('.test.js') || !fs.existsSync(path.join(ROOT, 'test', test)))) return `test/${test} does not exist`;
  const source = text === undefined ? joinedSource(test) : joined(text);
  const subsystem = path.posix.dirname(file);
  const face = path.join(ROOT, 'lib', subsystem, 'index.ts');
  const reexported = fs.existsSync(face) && new RegExp(`from '\\./${escape(path.posix.basename(file))}'`).test(fs.readFileSync(face, 'utf8'));
  if (!loads(source, file) && !(reexported && loads(source, subsystem))) {
    // A room split out of a bigger file (a base class, its scripts): covered by a test of the file that imports it.
    if (importersOf(file).some((importer) => loads(source, importer))) return undefined;
    return `test/${test} loads neither dist/lib/${file}, a face that re-exports it, nor a lib file that imports it`;
  }
  const names = Object.keys(compiled(file));
  if (!names.some((name) => new RegExp(`\\b${escape(name)}\\b`).test(source))) {
    return `test/${test} names none of lib/${file}.ts's exports (${names.join(', ')})`;
  }
  return undefined;
}

describe('tests mirror lib', () => {
  const files = libFiles();

  it('finds lib files to walk (and none of the faces)', () => {
    assert.ok(files.length > 50, `${files.length} files`);
    assert.ok(files.includes('core/clock'));
    assert.ok(!files.some((f) => f.endsWith('/index') || f === 'index'));
  });

  it('every lib file has its mirrored unit test, a listed cover, or nothing to run', () => {
    const missing = files.filter((file) => !fs.existsSync(mirrored(file)) && !COVERED_BY[file] && Object.keys(compiled(file)).length > 0);
    assert.deepEqual(missing, [], `without test/unit/<subsystem>/<file>.test.js or an entry in COVERED_BY (${__filename})`);
  });

  it('every COVERED_BY entry names a lib file without a mirrored test, and tests that really cover it', () => {
    const problems = [];
    for (const [file, tests] of Object.entries(COVERED_BY)) {
      if (!fs.existsSync(path.join(ROOT, 'lib', `${file}.ts`))) problems.push(`lib/${file}.ts does not exist`);
      else if (fs.existsSync(mirrored(file))) problems.push(`lib/${file}.ts has test/unit/${file}.test.js now: drop it from COVERED_BY`);
      else if (!Array.isArray(tests) || tests.length === 0) problems.push(`lib/${file}.ts: no test named`);
      else for (const test of tests) problems.push(coverProblem(file, test));
    }
    assert.deepEqual(problems.filter(Boolean), []);
  });

  it('a unit test of a lib subsystem names the lib file it tests (<file>.test.js, or <file>-<aspect>.test.js)', () => {
    const orphans = [];
    for (const subsystem of fs.readdirSync(path.join(ROOT, 'test', 'unit'), { withFileTypes: true })) {
      if (!subsystem.isDirectory() || !fs.existsSync(path.join(ROOT, 'lib', subsystem.name))) continue;
      for (const test of fs.readdirSync(path.join(ROOT, 'test', 'unit', subsystem.name)).filter((f) => f.endsWith('.test.js'))) {
        const name = test.slice(0, -'.test.js'.length);
        const prefixes = name.split('-').map((_, i, parts) => parts.slice(0, i + 1).join('-'));
        if (!prefixes.some((prefix) => files.includes(`${subsystem.name}/${prefix}`))) orphans.push(`test/unit/${subsystem.name}/${test}`);
      }
    }
    assert.deepEqual(orphans, [], 'tests named after no lib file (renamed or removed?)');
  });

  it('the cover check accepts a test that loads the file or its face and uses it, and rejects the others', () => {
    const ok = (file, text) => assert.equal(coverProblem(file, 'unit/x.test.js', text), undefined, text);
    ok('core/clock', "const { sleepOn } = require('../../../dist/lib/core/clock');");
    ok('core/clock', "const { sleepOn } = require(path.join(ROOT, 'dist', 'lib', 'core', 'clock'));");
    ok('core/clock', "const dist = (f) => require(path.join(ROOT, 'dist', f)); dist('lib/core/clock.js').sleepOn;");
    ok('alert/text', "const { cut } = require('../../../dist/lib/alert');");
    const fails = (file, text, why) => assert.match(coverProblem(file, 'unit/x.test.js', text) ?? 'covered', why, text);
    fails('alert/text', "const { renderTemplate } = require('../../../dist/lib/alert');", /names none/);
    fails('core/clock', "const { parseIsoDate, sleepOn } = require('../../../dist/lib/core/iso-date');", /loads neither/);
    ok('delivery/stream-held', "const { RedisStreamDelivery } = require('../../../dist/lib/delivery/stream');");
    fails('delivery/stream-held', "const { RedisStreamDelivery } = require('../../../dist/lib/delivery/tracker');", /loads neither/);
    fails('core/clock', "const { sleepOn } = require('../../../lib/core/clock');", /loads neither/);
    fails('alert/text', "const { cut } = require('../../../dist/lib/alert/template');", /loads neither/);
    assert.match(coverProblem('core/clock', 'unit/core/nope.test.js'), /does not exist/);
  });
});

module.exports = { COVERED_BY, coverProblem, libFiles };
