'use strict';
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { KeyLog, KEY_LOG_VERSION } = require('../../../dist/lib/dedupe/key-log');
const { FormatTooNewError } = require('../../../dist/lib/core/file-format');

/** A key log as the package wrote it before its files had a format stamp (made by a5f34bc: test/fixtures/formats/make.js). */
const UNVERSIONED = path.join(__dirname, '..', '..', 'fixtures', 'formats', 'dedupe-unversioned.keys');
const firstLine = (file) => fs.readFileSync(file, 'utf8').split('\n')[0];

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

  it('keeps the plate as read with a key, with a mark or without', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '["old",1,"in1/1"]\n');
    const { log } = await KeyLog.open(file);
    await log.record('A8C123', 2, 'in1/7', 'ABC123');
    await log.record('808123', 3, undefined, '8OB 123');
    await log.close();
    const again = await KeyLog.open(file);
    assert.deepEqual(again.entries, [
      ['old', 1, 'in1/1'],
      ['A8C123', 2, 'in1/7', 'ABC123'],
      ['808123', 3, null, '8OB 123'],
    ]);
    await again.log.close();
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

  describe('opens whatever bytes the file holds, never throwing', () => {
    async function written() {
      const { log } = await KeyLog.open(file);
      await log.record('a', 1);
      await log.record('b', 2, 'm');
      await log.close();
      return fs.readFileSync(file);
    }

    /** Opens, checks the keys, records one, and checks that a reopen has them all. */
    async function opensTo(keys, { torn, damaged }) {
      const opened = await KeyLog.open(file);
      assert.deepEqual(
        opened.entries.map((e) => e[0]),
        keys,
      );
      assert.equal(opened.torn, torn);
      assert.equal(opened.damaged, damaged);
      await opened.log.record('z', 9);
      await opened.log.close();
      const again = await KeyLog.open(file);
      assert.deepEqual(
        again.entries.map((e) => e[0]),
        [...keys, 'z'],
      );
      assert.equal(again.torn, false);
      await again.log.close();
    }

    for (const n of [1, 3, 4, 7, 4096]) {
      it(`cuts a zero-filled tail of ${n} byte(s)`, async () => {
        await written();
        fs.appendFileSync(file, Buffer.alloc(n));
        await opensTo(['a', 'b'], { torn: true, damaged: 0 });
      });
    }

    it('cuts random garbage after the valid lines, newlines in it or not', async () => {
      await written();
      // its newlines replaced: a stray "\n7\n" in it would be a whole line
      const garbage = (n) => crypto.randomBytes(n).map((b) => (b === 0x0a ? 0x0b : b));
      fs.appendFileSync(file, Buffer.concat([garbage(3000), Buffer.from('\n{"x'), garbage(100)]));
      await opensTo(['a', 'b'], { torn: true, damaged: 0 });
    });

    it('skips a damaged line between whole ones, and passes over zero bytes before a line', async () => {
      const whole = await written();
      const first = whole.indexOf(0x0a) + 1;
      fs.writeFileSync(
        file,
        Buffer.concat([whole.subarray(0, first), Buffer.from('["c", 3\x00\x00garbage\n'), Buffer.alloc(4096), whole.subarray(first)]),
      );
      await opensTo(['a', 'b'], { torn: false, damaged: 1 });
    });
  });

  describe('format stamp', () => {
    it('a key log written before stamps opens with its keys, and is stamped with this version', async () => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.copyFileSync(UNVERSIONED, file);
      assert.ok(firstLine(file).startsWith('['), 'the fixture has no stamp');
      const expected = [
        ['plate:AB1', 2000],
        ['plate:AB2', 3000, 'in1:2'],
        ['plate:AB3', 4000, 'in1:3', 'AB3'],
      ];
      const { log, entries, torn, damaged } = await KeyLog.open(file);
      assert.deepEqual([entries, torn, damaged], [expected, false, 0]);
      assert.deepEqual(JSON.parse(firstLine(file)), { format: 'detection-bridge dedupe keys', version: KEY_LOG_VERSION });
      assert.equal(log.lineCount, 3, 'the stamp is no line of keys');
      await log.record('plate:AB4', 5000);
      await log.close();
      const again = await KeyLog.open(file);
      assert.deepEqual(again.entries, [...expected, ['plate:AB4', 5000]]);
      assert.equal(again.log.lineCount, 4);
      await again.log.close();
    });

    it('a new key log starts with its stamp, and keeps it through a rewrite', async () => {
      const { log } = await KeyLog.open(file);
      assert.deepEqual(JSON.parse(firstLine(file)), { format: 'detection-bridge dedupe keys', version: KEY_LOG_VERSION });
      await log.record('a', 1);
      await log.rewrite([['b', 2]]);
      await log.close();
      assert.deepEqual(JSON.parse(firstLine(file)).version, KEY_LOG_VERSION);
      const again = await KeyLog.open(file);
      assert.deepEqual([again.entries, again.torn, again.damaged, again.log.lineCount], [[['b', 2]], false, 0, 1]);
      await again.log.close();
    });

    it('a key log of a newer version is refused, naming both versions, and left byte for byte', async () => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const text = `{"format":"detection-bridge dedupe keys","version":${KEY_LOG_VERSION + 1}}\n{"k":"a later release's line"}\n`;
      fs.writeFileSync(file, text);
      await assert.rejects(KeyLog.open(file), (err) => {
        assert.ok(err instanceof FormatTooNewError, err.stack);
        assert.ok(err.message.startsWith(`${file} is in detection-bridge dedupe keys format version ${KEY_LOG_VERSION + 1}`), err.message);
        assert.ok(err.message.includes(`(version ${KEY_LOG_VERSION})`), err.message);
        return true;
      });
      assert.equal(fs.readFileSync(file, 'utf8'), text);
    });
  });
});
