'use strict';
/**
 * lib/delivery/journal-compaction.ts: when the journal drops its finished
 * records. An idle journal (nothing unfinished, no dead letter) is emptied in
 * place once over 1 MiB, not at 16 MiB; a busy one is rewritten once over
 * 16 MiB and 4 times its live records; and a finished event's body leaves the
 * file within `eraseAfterMs` (an hour) whatever the size, on an injected
 * clock. Each case waits for the journal to close (which waits for a
 * compaction under way), never for time to pass.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Journal } = require('../../../dist/lib/delivery/journal');
const { CLEAR_MIN_BYTES, COMPACT_MIN_BYTES, COMPACT_RATIO, ERASE_AFTER_MS, compactionDue } = require('../../../dist/lib/delivery/journal-compaction');
const { HEAD_BYTES } = require('../../../dist/lib/delivery/journal-records');
const { FakeClock } = require('../../support/fake-clock');

const MiB = 1024 * 1024;
const has = (file, text) => fs.readFileSync(file).includes(Buffer.from(text));

describe('lib/delivery/journal-compaction', () => {
  let dir;
  let file;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-compaction-'));
    file = path.join(dir, 'journal-in1.log');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the thresholds: 1 MiB when idle, 16 MiB and 4 times the live records when busy, an hour at most', () => {
    assert.deepEqual([CLEAR_MIN_BYTES, COMPACT_MIN_BYTES, COMPACT_RATIO, ERASE_AFTER_MS], [MiB, 16 * MiB, 4, 3_600_000]);
    const options = { maxBytes: 512 * MiB };
    // idle: emptied once over 1 MiB (the 6.7 MB an operator saw would have been emptied at 1 MiB)
    assert.equal(compactionDue({ size: MiB, liveBytes: 0, nothingLive: true }, options), false);
    assert.equal(compactionDue({ size: MiB + 1, liveBytes: 0, nothingLive: true }, options), true);
    // something live: only past 16 MiB and 4 times the live records
    assert.equal(compactionDue({ size: 15 * MiB, liveBytes: 1000, nothingLive: false }, options), false);
    assert.equal(compactionDue({ size: 16 * MiB + 1, liveBytes: 1000, nothingLive: false }, options), true);
    assert.equal(compactionDue({ size: 16 * MiB + 1, liveBytes: 5 * MiB, nothingLive: false }, options), false);
    // each can be set
    assert.equal(compactionDue({ size: 2000, liveBytes: 0, nothingLive: true }, { ...options, clearMinBytes: 1000 }), true);
    assert.equal(compactionDue({ size: 2000, liveBytes: 900, nothingLive: false }, { ...options, compactMinBytes: 1000, compactRatio: 2 }), true);
  });

  it('an idle journal over the threshold is emptied in place, keeping its stamp and numbering; not while a dead letter is kept', async () => {
    const options = { maxBytes: 1e8, clearMinBytes: 1000 };
    const { journal } = await Journal.open(file, options);
    const a = await journal.append({ i: 1 }, Buffer.from('PLATE-A'.padEnd(600, '.')));
    const b = await journal.append({ i: 2 }, Buffer.from('PLATE-B'.padEnd(600, '.')));
    await journal.dead(b, 5, 'failed', 1);
    journal.complete(a);
    await journal.close();
    assert.ok(has(file, 'PLATE-B'), 'the dead letter is kept');
    assert.ok(has(file, 'PLATE-A'), 'with a dead letter in it the file is not idle: a finished record waits for the size rules or the hour');

    const again = await Journal.open(file, options);
    assert.deepEqual(
      again.entries.map((e) => e.seq),
      [b],
    );
    again.journal.complete(b);
    await again.journal.close();
    assert.equal(fs.statSync(file).size, HEAD_BYTES, 'emptied to its head: the stamp and the last seq');
    const third = await Journal.open(file, options);
    assert.deepEqual(third.entries, []);
    assert.equal(await third.journal.append({}, Buffer.alloc(1)), b + 1);
    await third.journal.close();
  });

  it('a finished event leaves the file within the erase time, whatever the size; its timer goes with the journal', async () => {
    const clock = new FakeClock(0);
    const { journal } = await Journal.open(file, { maxBytes: 1e8, eraseAfterMs: 60_000, clock });
    const done = await journal.append({ i: 1 }, Buffer.from('{"plate":"FINISHED-1"}'));
    const open = await journal.append({ i: 2 }, Buffer.from('{"plate":"STILL-OPEN"}'));
    journal.complete(done);
    await clock.advance(59_999);
    assert.ok(has(file, 'FINISHED-1'), 'small, and not an hour old: still there');
    await clock.advance(1);
    await journal.close();
    assert.ok(!has(file, 'FINISHED-1'), 'erased');
    assert.ok(has(file, 'STILL-OPEN'));
    assert.equal(clock.pending, 0, 'no timer left behind');
    const again = await Journal.open(file, { maxBytes: 1e8, clock });
    assert.deepEqual(
      again.entries.map((e) => e.seq),
      [open],
    );
    await again.journal.close();
  });
});
