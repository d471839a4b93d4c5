'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Journal, JournalFullError } = require('../../../dist/lib/delivery/journal');

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
});
