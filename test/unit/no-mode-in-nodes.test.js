'use strict';
/**
 * The receiver holds its store through its session and never asks which mode
 * it is (issue 41): no runtime file under nodes/ compares a delivery mode
 * (ackMode, a store's `mode`) or names one. The dialogs (editor.ts, .html)
 * offer the modes and are left out. Read from the sources, so it fails the
 * moment a check comes back.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const NODES = path.join(__dirname, '..', '..', 'nodes');
/** A comparison with a delivery mode, or a mode's name where one would be checked. */
const MODE_CHECK = [
  /\backMode\b\s*[!=]==/,
  /[!=]==\s*\w*\.?ackMode\b/,
  /\.mode\s*[!=]==\s*'(memory|disk|redis)'/,
  /'(memory|disk|redis)'\s*[!=]==\s*\w+\.mode\b/,
  /\bmode\s*===?\s*'(memory|disk)'/,
];

function runtimeFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...runtimeFiles(full));
    else if (entry.name.endsWith('.ts') && !/^editor/.test(entry.name)) out.push(full);
  }
  return out;
}

describe('no delivery mode check in nodes/', () => {
  it('finds the runtime files it reads (detection-in among them)', () => {
    const files = runtimeFiles(NODES).map((f) => path.relative(NODES, f));
    assert.ok(files.includes(path.join('detection-in', 'detection-in.ts')));
  });

  it("detection-in is a thin adapter: its runtime files together at most 400 lines (the session is lib's)", () => {
    const lines = runtimeFiles(path.join(NODES, 'detection-in')).reduce((n, f) => n + fs.readFileSync(f, 'utf8').split('\n').length - 1, 0);
    assert.ok(lines <= 400, `${lines} lines`);
  });

  it('no runtime file compares a delivery mode', () => {
    const found = [];
    for (const file of runtimeFiles(NODES)) {
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (MODE_CHECK.some((re) => re.test(line))) found.push(`${path.relative(NODES, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(found, []);
  });

  it('the check would catch the checks the node had before (detection-in/delivery.ts, status.ts)', () => {
    for (const line of [
      "if (settings.mode === 'redis') {",
      "tracker.mode === 'disk' ? tracker.journalBytes : undefined",
      "if (options.ackMode !== 'redis') return settings;",
    ]) {
      assert.ok(
        MODE_CHECK.some((re) => re.test(line)),
        line,
      );
    }
  });
});
