'use strict';
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { AppendLog, frame, readFrames, isOutOfSpace, FRAME_HEADER_BYTES } = require('../../../dist/lib/core/append-log');
const { mountTmpfs, fillUp } = require('../../support/tmpfs');

/** Replays a log of type-1 frames: their payloads as text, and what was skipped. */
async function texts(file) {
  const found = [];
  const { end, problems } = await readFrames(file, [1], ({ payload, offset }) => {
    found.push({ text: payload.toString(), offset });
  });
  return { end, value: { found, problems } };
}

const record = (text) => frame(1, [Buffer.from(text)]);
const recordBytes = (text) => FRAME_HEADER_BYTES + Buffer.byteLength(text);

describe('lib/core/append-log', () => {
  let dir;
  let file;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'append-log-'));
    file = path.join(dir, 'sub', 'test.log');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('appends records, answers where each one sits, and replays them in order', async () => {
    const { log, value, cut } = await AppendLog.open(file, texts);
    assert.deepEqual(value.found, []);
    assert.equal(cut, 0);
    const first = await log.append(record('one'));
    const second = await log.append(record('two'));
    assert.equal(first, 0);
    assert.equal(second, recordBytes('one'));
    assert.equal(log.size, recordBytes('one') + recordBytes('two'));
    const back = await log.read(second, recordBytes('two'));
    assert.equal(back.subarray(FRAME_HEADER_BYTES).toString(), 'two');
    await log.close();
    await assert.rejects(log.append(record('late')), /closed/);

    const again = await AppendLog.open(file, texts);
    assert.deepEqual(
      again.value.found.map((f) => [f.text, f.offset]),
      [
        ['one', 0],
        ['two', second],
      ],
    );
    await again.log.close();
  });

  it('writes appends issued together with one sync, and those issued during it with the next one', async () => {
    const { log } = await AppendLog.open(file, texts);
    const placed = [];
    const firstWave = Array.from({ length: 20 }, (_, i) => log.append(record(`a${i}`), (offset) => placed.push(offset)));
    // The log waits one turn of the event loop before writing: by the next turn its
    // first write is under way, and what comes now queues for the sync after it.
    await new Promise((resolve) => setImmediate(resolve));
    const secondWave = Array.from({ length: 20 }, (_, i) => log.append(record(`b${i}`), (offset) => placed.push(offset)));
    const offsets = await Promise.all([...firstWave, ...secondWave]);
    assert.equal(log.syncs, 2, '40 appends in two waves: two syncs');
    assert.deepEqual(placed, offsets, 'each record placed, in the order appended, before its append resolved');
    const texts40 = [...Array.from({ length: 20 }, (_, i) => `a${i}`), ...Array.from({ length: 20 }, (_, i) => `b${i}`)];
    let at = 0;
    const expected = texts40.map((text) => {
      const offset = at;
      at += recordBytes(text);
      return offset;
    });
    assert.deepEqual(offsets, expected, 'records back to back, in the order appended');
    await log.close();
    const again = await AppendLog.open(file, texts);
    assert.deepEqual(
      again.value.found.map((f) => f.text),
      texts40,
    );
    await again.log.close();
  });

  it('syncs every write with the file itself (Linux: O_DSYNC on its descriptor, and again after a compaction)', async function () {
    if (process.platform !== 'linux') this.skip(); // /proc/self/fdinfo says how a file is open
    /** The open flags of each descriptor this process holds on `target`. */
    const flagsOf = (target) =>
      fs
        .readdirSync('/proc/self/fd')
        .filter((fd) => {
          try {
            return fs.readlinkSync(`/proc/self/fd/${fd}`) === target;
          } catch {
            return false; // closed meanwhile (the readdir's own descriptor)
          }
        })
        .map((fd) => parseInt(/^flags:\s+([0-7]+)/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))[1], 8));
    const { log } = await AppendLog.open(file, texts);
    await log.append(record('one'));
    const opened = flagsOf(file);
    assert.equal(opened.length, 1, 'one descriptor on the log');
    assert.ok(opened[0] & fs.constants.O_DSYNC, 'the log is written O_DSYNC: a write returns once its data is synced');
    assert.ok(
      await log.rewrite(async (out) => {
        await out.write(record('two'));
      }),
    );
    await log.append(record('three'));
    const swapped = flagsOf(file);
    assert.equal(swapped.length, 1, 'the old file closed after the swap');
    assert.ok(swapped[0] & fs.constants.O_DSYNC, 'the new file is written O_DSYNC too');
    await log.close();
    const again = await AppendLog.open(file, texts);
    assert.deepEqual(
      again.value.found.map((f) => f.text),
      ['two', 'three'],
    );
    await again.log.close();
  });

  it('cuts a torn tail on open, once, and appends after the last whole record', async () => {
    const { log } = await AppendLog.open(file, texts);
    await log.append(record('whole'));
    await log.close();
    const whole = fs.statSync(file).size;
    // a crash in the middle of the next record: its header and part of its payload
    fs.appendFileSync(file, record('cut off by a crash')[0]);
    fs.appendFileSync(file, 'cut off');

    const torn = await AppendLog.open(file, texts);
    assert.equal(torn.cut, FRAME_HEADER_BYTES + 'cut off'.length);
    assert.deepEqual(torn.value.problems, [{ kind: 'torn', offset: whole }]);
    assert.equal(fs.statSync(file).size, whole, 'the torn tail is gone from the file');
    assert.equal(await torn.log.append(record('next')), whole);
    await torn.log.close();

    const again = await AppendLog.open(file, texts);
    assert.equal(again.cut, 0);
    assert.deepEqual(again.value.problems, []);
    assert.deepEqual(
      again.value.found.map((f) => f.text),
      ['whole', 'next'],
    );
    await again.log.close();
  });

  it('skips a record whose checksum fails, and one its reader cannot use, keeping the rest', async () => {
    const { log } = await AppendLog.open(file, texts);
    await log.append(record('first'));
    const damaged = await log.append(record('damaged'));
    await log.append(record('unusable'));
    await log.append(record('last'));
    await log.close();
    const bytes = fs.readFileSync(file);
    bytes[damaged + FRAME_HEADER_BYTES] ^= 0xff;
    fs.writeFileSync(file, bytes);
    const picky = async (reader) => {
      const found = [];
      const { end, problems } = await readFrames(reader, [1], ({ payload }) => {
        if (payload.toString() === 'unusable') return 'unusable';
        found.push(payload.toString());
        return undefined;
      });
      return { end, value: { found, problems } };
    };
    const again = await AppendLog.open(file, picky);
    assert.deepEqual(again.value.found, ['first', 'last']);
    assert.deepEqual(
      again.value.problems.map((p) => p.kind),
      ['checksum', 'unusable'],
    );
    assert.equal(again.cut, 0, 'a damaged record in the middle is skipped, not cut');
    await again.log.close();
  });

  it('compacts by writing a new file and renaming it over the old one; appends during it land in the new file', async () => {
    const { log } = await AppendLog.open(file, texts);
    for (let i = 0; i < 10; i++) await log.append(record(`old${i}`));
    let release;
    const copying = new Promise((resolve) => (release = resolve));
    let started;
    const fillStarted = new Promise((resolve) => (started = resolve));
    const rewriting = log.rewrite(async (out, old) => {
      started();
      // keep the last old record, read from the old file while the new one is written
      const kept = await old.read(9 * recordBytes('old0'), recordBytes('old9'));
      assert.equal(await out.write([kept]), 0);
      await copying;
      assert.ok(fs.existsSync(`${file}.compact`), 'the new contents go to <file>.compact first');
    });
    await fillStarted;
    const during = log.append(record('during'));
    release();
    assert.equal(await rewriting, true);
    assert.equal(await during, recordBytes('old9'), 'appended after the new contents');
    assert.equal(fs.existsSync(`${file}.compact`), false);
    assert.equal(log.size, recordBytes('old9') + recordBytes('during'));
    await log.close();
    const again = await AppendLog.open(file, texts);
    assert.deepEqual(
      again.value.found.map((f) => f.text),
      ['old9', 'during'],
    );
    await again.log.close();
  });

  it('after a crash between compaction steps, opens the old file whole and removes the half-made copy', async () => {
    const { log } = await AppendLog.open(file, texts);
    await log.append(record('kept'));
    await log.close();
    // the crash: the new contents were being written, the rename never happened
    fs.writeFileSync(`${file}.compact`, Buffer.concat(record('half')).subarray(0, 5));
    const again = await AppendLog.open(file, texts);
    assert.equal(fs.existsSync(`${file}.compact`), false, 'the stale .compact file is removed');
    assert.deepEqual(
      again.value.found.map((f) => f.text),
      ['kept'],
    );
    // compaction works again afterwards (the name is free)
    assert.equal(
      await again.log.rewrite(async (out) => {
        await out.write(record('fresh'));
      }),
      true,
    );
    await again.log.close();
    const third = await AppendLog.open(file, texts);
    assert.deepEqual(
      third.value.found.map((f) => f.text),
      ['fresh'],
    );
    await third.log.close();
  });

  it('keeps the old file when a compaction fails, and goes on appending to it', async () => {
    const { log } = await AppendLog.open(file, texts);
    await log.append(record('one'));
    await assert.rejects(
      log.rewrite(async (out) => {
        await out.write(record('never'));
        throw new Error('copy failed');
      }),
      /copy failed/,
    );
    assert.equal(fs.existsSync(`${file}.compact`), false);
    await log.append(record('two'));
    await log.close();
    const again = await AppendLog.open(file, texts);
    assert.deepEqual(
      again.value.found.map((f) => f.text),
      ['one', 'two'],
    );
    await again.log.close();
  });

  describe('opens whatever bytes the file holds, never throwing', () => {
    /** A log of `texts` on disk, its size after each record. */
    async function written(list) {
      const { log } = await AppendLog.open(file, texts);
      const ends = [];
      for (const text of list) {
        await log.append(record(text));
        ends.push(log.size);
      }
      await log.close();
      return ends;
    }

    /** Opens, checks what was replayed, appends, and checks that a reopen has it all. */
    async function opensTo(expected, { cut, problems }) {
      const opened = await AppendLog.open(file, texts);
      assert.deepEqual(
        opened.value.found.map((f) => f.text),
        expected,
      );
      assert.deepEqual(
        opened.value.problems.map((p) => p.kind),
        problems,
      );
      if (cut !== undefined) assert.equal(opened.cut, cut);
      const size = fs.statSync(file).size;
      assert.equal(await opened.log.append(record('after')), size, 'appended right after what was kept');
      await opened.log.close();
      const again = await AppendLog.open(file, texts);
      assert.deepEqual(
        again.value.found.map((f) => f.text),
        [...expected, 'after'],
      );
      assert.deepEqual(
        again.value.problems.map((p) => p.kind),
        problems.filter((k) => k !== 'torn'),
        'the torn tail is gone; damage in the middle stays (reported again)',
      );
      assert.equal(again.cut, 0);
      await again.log.close();
    }

    for (const n of [1, 3, 4, 7, 9, 4096]) {
      it(`cuts a zero-filled tail of ${n} byte(s) as torn`, async () => {
        const ends = await written(['one', 'two']);
        fs.appendFileSync(file, Buffer.alloc(n));
        await opensTo(['one', 'two'], { cut: n, problems: ['torn'] });
        assert.equal(fs.statSync(file).size, ends[1] + FRAME_HEADER_BYTES + 'after'.length);
      });
    }

    it('cuts a tail torn in the middle of a header, and in the middle of a payload', async () => {
      await written(['one']);
      fs.appendFileSync(file, Buffer.concat(record('two')).subarray(0, 5));
      await opensTo(['one'], { cut: 5, problems: ['torn'] });
      fs.appendFileSync(file, Buffer.concat(record('three is long')).subarray(0, FRAME_HEADER_BYTES + 4));
      await opensTo(['one', 'after'], { cut: FRAME_HEADER_BYTES + 4, problems: ['torn'] });
    });

    for (const [name, length] of [
      ['0', 0],
      ['2^31', 2 ** 31],
      ['past the end', 1000],
    ]) {
      it(`treats a last record whose length field is ${name} as torn`, async () => {
        await written(['one']);
        const bad = Buffer.concat(record('xyz'));
        bad.writeUInt32LE(length, 0);
        fs.appendFileSync(file, bad);
        await opensTo(['one'], { cut: bad.length, problems: ['torn'] });
      });
    }

    it('cuts random bytes after the valid records', async () => {
      await written(['one', 'two']);
      // no byte 1 in it: nothing in the garbage can pass for a frame of type 1
      const garbage = crypto.randomBytes(10_000).map((b) => (b === 1 ? 2 : b));
      fs.appendFileSync(file, garbage);
      await opensTo(['one', 'two'], { cut: garbage.length, problems: ['torn'] });
    });

    for (const [name, damage] of [
      ['zero bytes', () => Buffer.alloc(4096)],
      ['random bytes', () => crypto.randomBytes(3000).map((b) => (b === 1 ? 2 : b))],
      ['a record whose length field is 0', () => Buffer.from([0, 0, 0, 0, 1, 0, 0, 0, 0])],
      ['a record whose length field is 2^31', () => Buffer.from([0, 0, 0, 0x80, 1, 0, 0, 0, 0, 0x41, 0x42])],
    ]) {
      it(`skips ${name} between valid records, reports them once, and keeps every record after`, async () => {
        const ends = await written(['one', 'two']);
        const whole = fs.readFileSync(file);
        fs.writeFileSync(file, Buffer.concat([whole.subarray(0, ends[0]), damage(), whole.subarray(ends[0])]));
        await opensTo(['one', 'two'], { cut: 0, problems: ['checksum'] });
      });
    }
  });

  describe('on a full disk (a small tmpfs: root)', () => {
    let disk;
    let full;
    beforeEach(() => {
      disk = mountTmpfs('256k');
      full = path.join(disk.dir, 'log', 'full.log');
    });
    afterEach(() => disk.unmount());

    /** Appends 8 KiB records until one finds no room; answers the offsets of those that went in. */
    async function appendUntilFull(log) {
      const offsets = [];
      for (let i = 0; ; i++) {
        try {
          offsets.push(await log.append(record(`${i}:`.padEnd(8192, 'x'))));
        } catch (err) {
          return { offsets, err };
        }
      }
    }

    it('rejects a write that finds no room, keeps no part of it, and appends again once there is room', async () => {
      const { log } = await AppendLog.open(full, texts);
      const filler = fillUp(disk.dir, 40 * 1024);
      const { offsets, err } = await appendUntilFull(log);
      assert.ok(isOutOfSpace(err), `${err.code}: ${err.message}`);
      assert.ok(offsets.length > 0);
      // Part of the last write reached the file before the disk was full: it is cut off.
      const sizeBefore = log.size;
      assert.equal(fs.statSync(full).size, sizeBefore);
      await assert.rejects(log.append(record('still no room'.padEnd(8192, 'y'))), (e) => isOutOfSpace(e));
      assert.equal(fs.statSync(full).size, sizeBefore);

      // Another program frees space: the log goes on right after its last whole record.
      fs.unlinkSync(filler);
      assert.equal(await log.append(record('after')), sizeBefore);
      await log.close();
      const again = await AppendLog.open(full, texts);
      assert.equal(again.cut, 0);
      assert.deepEqual(again.value.problems, []);
      assert.equal(again.value.found.length, offsets.length + 1);
      assert.equal(again.value.found.at(-1).text, 'after');
      await again.log.close();
    });

    it('empties its file in place when nothing in it is live (no room needed), and appends go to the emptied file', async () => {
      const { log } = await AppendLog.open(full, texts);
      fillUp(disk.dir, 40 * 1024);
      const { err } = await appendUntilFull(log);
      assert.ok(isOutOfSpace(err));
      // A rewrite needs room for its new file; there is none.
      await assert.rejects(
        log.rewrite(async (out) => void (await out.write(record('x'.repeat(64 * 1024))))),
        (e) => isOutOfSpace(e),
      );
      assert.equal(await log.clear(() => false), false, 'something live: kept');
      assert.ok(log.size > 0);
      // Queued while the file is being emptied: written to the emptied file, at its start.
      const cleared = log.clear(() => true);
      const next = log.append(record('next'));
      assert.equal(await cleared, true);
      assert.equal(await next, 0);
      assert.equal(fs.statSync(full).size, recordBytes('next'));
      await log.close();
      const again = await AppendLog.open(full, texts);
      assert.deepEqual(
        again.value.found.map((f) => f.text),
        ['next'],
      );
      await again.log.close();
    });
  });
});
