'use strict';
/**
 * Tests mirror lib (issue 41): the unit tests of lib/<subsystem>/<file>.ts are
 * in test/unit/<subsystem>/<file>.test.js, so a reader finds a file's tests
 * without searching. A file tested elsewhere is listed in COVERED_BY with the
 * tests that exercise it, and the list is checked too, so that it cannot lie:
 * each named test exists, loads the file's compiled module (or its
 * subsystem's face, which must re-export the file) and names one of the
 * file's exports. A file that compiles to nothing (types only) has nothing
 * to run and needs no test; that is checked on its compiled module.
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
const COVERED_BY = {};

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
const compiled = (file) => require(path.join(ROOT, 'dist', 'lib', file));

/**
 * The test's source with the arguments of a path.join run together
 * ('dist', 'lib', 'http' → 'dist/lib/http'), so one pattern finds every way
 * the tests spell a module's path.
 */
function joinedSource(test) {
  return fs.readFileSync(path.join(ROOT, 'test', test), 'utf8').replace(/(['"`])\s*,\s*(['"`])/g, '/');
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** Whether the test loads the compiled module `lib/<spec>` (a file or a face): 'dist/lib/<spec>', or 'lib/<spec>' joined to a dist directory. */
function loads(source, spec) {
  return new RegExp(`(dist/|['"\`])lib/${escape(spec)}(\\.js|/index(\\.js)?)?['"\`]`).test(source) && /\bdist\b/.test(source);
}

/** Why `test` does not cover the lib file, or undefined when it does. */
function coverProblem(file, test) {
  if (!test.endsWith('.test.js') || !fs.existsSync(path.join(ROOT, 'test', test))) return `test/${test} does not exist`;
  const source = joinedSource(test);
  const subsystem = path.posix.dirname(file);
  const face = path.join(ROOT, 'lib', subsystem, 'index.ts');
  const reexported = fs.existsSync(face) && new RegExp(`from '\\./${escape(path.posix.basename(file))}'`).test(fs.readFileSync(face, 'utf8'));
  if (!loads(source, file) && !(reexported && loads(source, subsystem))) {
    return `test/${test} loads neither dist/lib/${file} nor a face that re-exports it`;
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

  it('the cover check rejects a test that does not load the file, and one that loads it without using it', () => {
    assert.match(coverProblem('core/clock', 'unit/core/iso-date.test.js'), /loads neither/);
    assert.match(coverProblem('core/clock', 'unit/nope.test.js'), /does not exist/);
    // The alert face re-exports text.ts; a test loading the face but using none of text.ts's exports covers nothing.
    const usesFaceOnly = Object.keys(compiled('alert/text')).every((name) => !joinedSource('unit/alert/picture.test.js').includes(name));
    if (usesFaceOnly) assert.match(coverProblem('alert/text', 'unit/alert/picture.test.js') ?? '', /names none|loads neither/);
  });
});

module.exports = { COVERED_BY, coverProblem, libFiles };
