'use strict';
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Journal, JournalFullError } = require('../../../dist/lib/delivery/journal');
const { isOutOfSpace } = require('../../../dist/lib/core/append-log');
const { mountTmpfs, fillUp } = require('../../support/tmpfs');

const body = (n, fill = 0x41) => Buffer.alloc(n, fill);

describe('lib/delivery/journal', () => {
  let dir;
  let file;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-test-'));
    file = path.join(dir, 'sub', 'journal.log');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('replays the unfinished events, bodies byte for byte, in order', async () => {
    const { journal } = await Journal.open(file, { maxBytes: 1e8 });
    const bodies = [body(10, 1), Buffer.from('{"plate":"ÄBC"}'), body(70000, 0xff)];
    const ids = [];
    for (const [i, b] of bodies.entries()) ids.push(await journal.append({ i }, b));
    journal.complete(ids[1]);
    await journal.close();
    const again = await Journal.open(file, { maxBytes: 1e8 });
    assert.deepEqual(again.problems, []);
    assert.deepEqual(
      again.entries.map((e) => [e.seq, e.meta.i]),
      [
        [ids[0], 0],
        [ids[2], 2],
      ],
    );
    assert.ok(again.entries[0].body.equals(bodies[0]));
    assert.ok(again.entries[1].body.equals(bodies[2]));
    // ids go on after the replayed ones
    assert.ok((await again.journal.append({}, body(1))) > ids[2]);
    await again.journal.close();
  });

  it('shares one sync among concurrent appends (group commit), each resolved once on disk', async () => {
    const { journal } = await Journal.open(file, { maxBytes: 1e8 });
    const ids = await Promise.all(Array.from({ length: 64 }, (_, i) => journal.append({ i }, body(1000, i))));
    assert.equal(new Set(ids).size, 64);
    assert.ok(journal.syncs >= 1 && journal.syncs < 64, `${journal.syncs} syncs for 64 appends`);
    // every record is in the file once its append resolved
    const size = fs.statSync(file).size;
    assert.ok(size >= 64 * 1000);
    await journal.close();
  });

  it('cuts off a torn last record, replays every whole one before it, and says so once', async () => {
    const { journal } = await Journal.open(file, { maxBytes: 1e8 });
    for (let i = 0; i < 3; i++) await journal.append({ i }, body(500, i));
    await journal.close();
    const full = fs.statSync(file).size;
    fs.truncateSync(file, full - 200); // the last record half written
    const again = await Journal.open(file, { maxBytes: 1e8 });
    assert.deepEqual(
      again.entries.map((e) => e.meta.i),
      [0, 1],
    );
    assert.equal(again.problems.length, 1);
    assert.equal(again.problems[0].kind, 'torn');
    assert.ok(fs.statSync(file).size < full - 200, 'the torn bytes are cut off');
    // and the journal goes on from there
    await again.journal.append({ i: 9 }, body(10));
    await again.journal.close();
    const third = await Journal.open(file, { maxBytes: 1e8 });
    assert.deepEqual(
      third.entries.map((e) => e.meta.i),
      [0, 1, 9],
    );
    assert.deepEqual(third.problems, []);
    await third.journal.close();
  });

  it('reports a damaged record and skips it, replaying the rest', async () => {
    const { journal } = await Journal.open(file, { maxBytes: 1e8 });
    for (let i = 0; i < 3; i++) await journal.append({ i }, body(500, 0x61 + i));
    await journal.close();
    const bytes = fs.readFileSync(file);
    const second = bytes.indexOf(Buffer.alloc(500, 0x62));
    bytes[second + 250] ^= 0x01;
    fs.writeFileSync(file, bytes);
    const again = await Journal.open(file, { maxBytes: 1e8 });
    assert.deepEqual(
      again.entries.map((e) => e.meta.i),
      [0, 2],
    );
    assert.deepEqual(
      again.problems.map((p) => p.kind),
      ['checksum'],
    );
    await again.journal.close();
  });

  it('refuses past its cap, and takes events again once finished ones are compacted away', async () => {
    const { journal } = await Journal.open(file, { maxBytes: 5000 });
    const a = await journal.append({}, body(2000));
    await journal.append({}, body(2000));
    await assert.rejects(journal.append({}, body(2000)), JournalFullError);
    journal.complete(a);
    const c = await journal.append({ c: true }, body(2000));
    assert.ok(fs.statSync(file).size <= 5000);
    await journal.close();
    const again = await Journal.open(file, { maxBytes: 5000 });
    assert.equal(again.entries.length, 2);
    assert.equal(again.entries[1].seq, c);
    await again.journal.close();
  });

  it('compacts once most of the file is finished', async () => {
    const { journal } = await Journal.open(file, { maxBytes: 1e8, compactMinBytes: 10_000, compactRatio: 2 });
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push(await journal.append({ i }, body(1000, i)));
    for (const id of ids.slice(0, 18)) journal.complete(id);
    await journal.close();
    assert.ok(fs.statSync(file).size < 10_000, `compacted to ${fs.statSync(file).size} bytes`);
    const again = await Journal.open(file, { maxBytes: 1e8 });
    assert.deepEqual(
      again.entries.map((e) => e.meta.i),
      [18, 19],
    );
    assert.ok(again.entries[1].body.equals(body(1000, 19)));
    await again.journal.close();
  });

  describe('opens whatever bytes the file holds, never throwing', () => {
    /** A journal of events {i} with bodies of 300 bytes; the file's size after each one. */
    async function written(count) {
      const { journal } = await Journal.open(file, { maxBytes: 1e8 });
      const ends = [];
      for (let i = 0; i < count; i++) {
        await journal.append({ i }, body(300, 0x61 + i));
        ends.push(journal.bytes);
      }
      await journal.close();
      return ends;
    }

    /** Opens, checks the replayed events and problems, appends one, and checks a reopen has them all. */
    async function opensTo(expected, problems) {
      const opened = await Journal.open(file, { maxBytes: 1e8 });
      assert.deepEqual(
        opened.entries.map((e) => e.meta.i),
        expected,
      );
      for (const e of opened.entries) assert.ok(e.body.equals(body(300, 0x61 + e.meta.i)), `body of ${e.meta.i}`);
      for (const e of opened.entries) assert.deepEqual((await opened.journal.read(e.seq)).meta, { i: e.meta.i });
      assert.deepEqual(
        opened.problems.map((p) => p.kind),
        problems,
      );
      const seq = await opened.journal.append({ i: 9 }, body(300, 0x61 + 9));
      assert.ok(opened.entries.every((e) => e.seq < seq));
      await opened.journal.close();
      const again = await Journal.open(file, { maxBytes: 1e8 });
      assert.deepEqual(
        again.entries.map((e) => e.meta.i),
        [...expected, 9],
      );
      assert.deepEqual(
        again.problems.map((p) => p.kind),
        problems.filter((k) => k !== 'torn'),
      );
      await again.journal.close();
    }

    for (const n of [1, 3, 4, 7, 4096]) {
      it(`cuts a zero-filled tail of ${n} byte(s), with one "torn"`, async () => {
        const ends = await written(2);
        fs.appendFileSync(file, Buffer.alloc(n));
        await opensTo([0, 1], ['torn']);
        assert.ok(fs.statSync(file).size > ends[1]);
      });
    }

    it('cuts a tail torn in the middle of a header, and in the middle of a body', async () => {
      const ends = await written(3);
      fs.truncateSync(file, ends[1] + 4);
      await opensTo([0, 1], ['torn']);
      const now = fs.statSync(file).size;
      fs.truncateSync(file, now - 100);
      await opensTo([0, 1], ['torn']);
    });

    for (const [name, length] of [
      ['0', 0],
      ['2^31', 2 ** 31],
    ]) {
      it(`takes a record whose length field is ${name} for torn at the end, and for damaged between records`, async () => {
        const ends = await written(3);
        const bytes = fs.readFileSync(file);
        bytes.writeUInt32LE(length, ends[1]);
        fs.writeFileSync(file, bytes);
        await opensTo([0, 1], ['torn']);
        // now the same damage in the middle: the second record of a fresh journal
        fs.rmSync(file);
        const again = await written(3);
        const middle = fs.readFileSync(file);
        middle.writeUInt32LE(length, again[0]);
        fs.writeFileSync(file, middle);
        await opensTo([0, 2], ['checksum']);
      });
    }

    it('cuts random garbage after the valid records', async () => {
      await written(2);
      fs.appendFileSync(file, crypto.randomBytes(20_000));
      await opensTo([0, 1], ['torn']);
    });

    it('skips garbage and zero bytes between valid records, keeping every record after them', async () => {
      const ends = await written(3);
      const bytes = fs.readFileSync(file);
      fs.writeFileSync(
        file,
        Buffer.concat([
          bytes.subarray(0, ends[0]),
          crypto.randomBytes(5000),
          bytes.subarray(ends[0], ends[1]),
          Buffer.alloc(4096),
          bytes.subarray(ends[1]),
        ]),
      );
      await opensTo([0, 1, 2], ['checksum', 'checksum']);
    });
  });

  it('reads an event back while a compaction moves it (its new place, never a stale one)', async () => {
    const { journal } = await Journal.open(file, { maxBytes: 1e8, compactMinBytes: 1000, compactRatio: 2 });
    const ids = [];
    for (let i = 0; i < 50; i++) ids.push(await journal.append({ i }, body(100, i)));
    // finishing most of them starts a compaction in the background; the rest are read meanwhile
    for (const id of ids.slice(0, 40)) journal.complete(id);
    const read = await Promise.all(ids.slice(40).map((id) => journal.read(id)));
    assert.deepEqual(
      read.map((e) => e && e.meta.i),
      [40, 41, 42, 43, 44, 45, 46, 47, 48, 49],
    );
    for (const e of read) assert.ok(e.body.equals(body(100, e.meta.i)));
    await journal.close();
    assert.ok(fs.statSync(file).size < 50 * 100, 'it did compact');
  });

  describe('on a full disk (a small tmpfs: root)', () => {
    let disk;
    let full;
    beforeEach(() => {
      disk = mountTmpfs('256k');
      full = path.join(disk.dir, 'detection-bridge', 'journal-x.log');
    });
    afterEach(() => disk.unmount());

    /** Opens a journal that reports running out of space into `said`. */
    async function openJournal(said) {
      const { journal } = await Journal.open(full, { maxBytes: 1e9 });
      journal.onOutOfSpace = (isFull) => said.push(isFull);
      return journal;
    }

    /** Appends held 8 KiB events until one is refused; answers their seqs and the refusal. */
    async function holdUntilFull(journal) {
      const held = [];
      for (let i = 0; ; i++) {
        try {
          held.push(await journal.append({ i }, body(8192, i % 256)));
        } catch (err) {
          return { held, err };
        }
      }
    }

    it('never refuses an event for finished ones filling the disk: the file is emptied in place', async () => {
      const said = [];
      const journal = await openJournal(said);
      // 800 KiB of events through a 256 KiB disk, each finished before the next; the journal's
      // own compaction (16 MiB at least) never comes into it.
      for (let i = 0; i < 100; i++) journal.complete(await journal.append({ i }, body(8192)));
      assert.deepEqual(said, []);
      assert.equal(journal.outOfSpace, false);
      await journal.close();
      assert.ok(fs.statSync(full).size < 256 * 1024);
      const again = await Journal.open(full, { maxBytes: 1e9 });
      assert.deepEqual(again.entries, []);
      assert.deepEqual(again.problems, []);
      // The numbering goes on: no finished event's seq is given to a new one.
      assert.equal(await again.journal.append({}, body(10)), 101);
      await again.journal.close();
    });

    it('refuses while held events fill the disk, and takes events again once they finish, without a restart, losing none', async () => {
      const said = [];
      const journal = await openJournal(said);
      const { held, err } = await holdUntilFull(journal);
      assert.ok(isOutOfSpace(err), `${err.code}: ${err.message}`);
      assert.ok(held.length > 5);
      assert.equal(journal.outOfSpace, true);
      await assert.rejects(journal.append({ late: true }, body(8192)), (e) => isOutOfSpace(e));
      assert.deepEqual(said, [true], 'said once per episode');
      // Every held event is whole and readable while the disk is full.
      for (const [i, seq] of held.entries()) assert.ok((await journal.read(seq)).body.equals(body(8192, i % 256)));

      for (const seq of held) journal.complete(seq);
      const next = await journal.append({ next: true }, body(8192));
      assert.equal(journal.outOfSpace, false);
      assert.deepEqual(said, [true, false]);
      await journal.close();
      const again = await Journal.open(full, { maxBytes: 1e9 });
      assert.deepEqual(
        again.entries.map((e) => [e.seq, e.meta]),
        [[next, { next: true }]],
      );
      await again.journal.close();
    });

    it('rewrites the file with the events still unfinished once they fit in the room left', async () => {
      const said = [];
      const journal = await openJournal(said);
      const filler = fillUp(disk.dir, 120 * 1024);
      const { held, err } = await holdUntilFull(journal);
      assert.ok(isOutOfSpace(err));
      // Another program frees some room; two events stay unfinished, the rest finish.
      fs.unlinkSync(filler);
      const kept = held.slice(-2);
      for (const seq of held.slice(0, -2)) journal.complete(seq);
      await journal.close();
      const again = await Journal.open(full, { maxBytes: 1e9 });
      assert.deepEqual(
        again.entries.map((e) => e.seq),
        kept,
      );
      // Compacted: nothing but the two unfinished events' records is left.
      const recordBytes = fs.statSync(full).size / 2;
      assert.ok(recordBytes > 8192 && recordBytes < 8192 + 100, `${fs.statSync(full).size} bytes for two events`);
      await again.journal.close();
    });
  });
});
