'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { KeyLog } = require('../../../dist/lib/dedupe/key-log');

describe('lib/dedupe/key-log', () => {
  let dir;
  let file;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'key-log-'));
    file = path.join(dir, 'sub', 'dedupe.keys');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('replays the keys in the order written, forgetting those before a reset', async () => {
    const { log, entries } = await KeyLog.open(file);
    assert.deepEqual(entries, []);
    await log.record('a', 1);
    await log.reset();
    await Promise.all([log.record('b', 2), log.record('c"\n', 3)]);
    await log.close();
    const again = await KeyLog.open(file);
    assert.deepEqual(again.entries, [
      ['b', 2],
      ['c"\n', 3],
    ]);
    assert.equal(again.torn, false);
    await again.log.close();
  });

  it('keeps the delivery mark of each key, and reads a log written without marks', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '["old",1]\n');
    const { log, entries } = await KeyLog.open(file);
    assert.deepEqual(entries, [['old', 1]]);
    await log.record('a', 2, 'in1/7');
    await log.close();
    const again = await KeyLog.open(file);
    assert.deepEqual(again.entries, [
      ['old', 1],
      ['a', 2, 'in1/7'],
    ]);
    // a window carried over from elsewhere replaces the file whatever its size
    await again.log.rewrite([['b', 3, 'in1/8']]);
    await again.log.close();
    const third = await KeyLog.open(file);
    assert.deepEqual(third.entries, [['b', 3, 'in1/8']]);
    await third.log.close();
  });

  it('shares one sync among keys recorded together', async () => {
    const { log } = await KeyLog.open(file);
    await Promise.all(Array.from({ length: 100 }, (_, i) => log.record(`k${i}`, i)));
    assert.ok(log.syncs >= 1 && log.syncs < 100, `${log.syncs} syncs for 100 keys`);
    await log.close();
    const again = await KeyLog.open(file);
    assert.equal(again.entries.length, 100);
    await again.log.close();
  });

  it('drops a line cut off by a crash, keeps every whole one, and goes on after it', async () => {
    const { log } = await KeyLog.open(file);
    await log.record('a', 1);
    await log.record('b', 2);
    await log.close();
    fs.appendFileSync(file, '["c", 3'); // torn
    const again = await KeyLog.open(file);
    assert.deepEqual(again.entries, [
      ['a', 1],
      ['b', 2],
    ]);
    assert.equal(again.torn, true);
    await again.log.record('d', 4);
    await again.log.close();
    const third = await KeyLog.open(file);
    assert.deepEqual(
      third.entries.map((e) => e[0]),
      ['a', 'b', 'd'],
    );
    assert.equal(third.torn, false);
    await third.log.close();
  });

  it('rewrites itself from the window once it holds many more lines than keys', async () => {
    const { log } = await KeyLog.open(file);
    for (let i = 0; i < 50; i++) await log.record(`k${i % 5}`, i);
    assert.equal(await log.compact([['k4', 49]], 4, 10), true);
    assert.equal(log.lineCount, 1);
    await log.record('k5', 50);
    await log.close();
    const again = await KeyLog.open(file);
    assert.deepEqual(again.entries, [
      ['k4', 49],
      ['k5', 50],
    ]);
    assert.equal(await again.log.compact([['k4', 49]], 4, 10), false, 'not worth it for 2 lines');
    await again.log.close();
  });

  it('opens whole after a crash in the middle of a compaction (the half-made copy is removed)', async () => {
    const { log } = await KeyLog.open(file);
    await log.record('a', 1);
    await log.close();
    fs.writeFileSync(`${file}.compact`, '["half"');
    const again = await KeyLog.open(file);
    assert.deepEqual(again.entries, [['a', 1]]);
    assert.equal(fs.existsSync(`${file}.compact`), false);
    await again.log.close();
  });
});
