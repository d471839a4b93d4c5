'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Journal } = require('../../../dist/lib/delivery/journal');
const { DeliveryTracker } = require('../../../dist/lib/delivery/tracker');
const { FakeClock } = require('../../support/fake-clock');

const body = (n, fill = 0x41) => Buffer.alloc(n, fill);

describe('lib/delivery/journal: attempts and dead letters', () => {
  let dir;
  let file;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-dead-'));
    file = path.join(dir, 'journal.log');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('replays attempts, last errors and dead letters; a done record ends a dead letter; an event without a mark was tried once', async () => {
    const { journal } = await Journal.open(file, { maxBytes: 1e8 });
    const plain = await journal.append({ n: 1 }, body(3, 1));
    const tried = await journal.append({ n: 2 }, body(3, 2));
    const dead = await journal.append({ n: 3 }, body(3, 3));
    const discarded = await journal.append({ n: 4 }, body(3, 4));
    const revived = await journal.append({ n: 5 }, body(3, 5));
    await journal.attempt(tried, 3, 'timeout ü');
    await journal.dead(dead, 5, 'bad plate', 1234.5);
    await journal.dead(discarded, 5, 'x', 1);
    journal.complete(discarded);
    await journal.dead(revived, 5, 'fixed since', 2);
    await journal.attempt(revived, 0, 'fixed since');
    assert.equal(journal.unfinished, 3);
    assert.equal(journal.deadLetters, 1);
    await journal.close();
    const again = await Journal.open(file, { maxBytes: 1e8 });
    assert.deepEqual(again.problems, []);
    assert.deepEqual(
      again.entries.map((e) => [e.seq, e.meta.n, e.attempts, e.lastError, e.deadAt, e.body[0]]),
      [
        [plain, 1, 1, undefined, undefined, 1],
        [tried, 2, 3, 'timeout ü', undefined, 2],
        [dead, 3, 5, 'bad plate', 1234.5, 3],
        [revived, 5, 0, 'fixed since', undefined, 5],
      ],
    );
    assert.equal(again.journal.deadLetters, 1);
    assert.equal((await again.journal.read(dead)).body[0], 3, 'a dead letter keeps its body');
    await again.journal.close();
  });

  it('compaction keeps dead letters and attempt counts, and drops what is finished', async () => {
    const { journal } = await Journal.open(file, { maxBytes: 1e8, compactMinBytes: 1, compactRatio: 2 });
    const dead = await journal.append({ n: 'dead' }, body(100, 7));
    const tried = await journal.append({ n: 'tried' }, body(100, 8));
    await journal.dead(dead, 4, 'gone', 99);
    await journal.attempt(tried, 2, 'slow');
    for (let i = 0; i < 20; i++) journal.complete(await journal.append({ i }, body(1000)));
    await journal.close();
    const size = fs.statSync(file).size;
    assert.ok(size < 1000, `compacted to ${size} bytes`);
    const again = await Journal.open(file, { maxBytes: 1e8 });
    assert.deepEqual(
      again.entries.map((e) => [e.meta.n, e.attempts, e.lastError, e.deadAt, e.body.length]),
      [
        ['dead', 4, 'gone', 99, 100],
        ['tried', 2, 'slow', undefined, 100],
      ],
    );
    await again.journal.close();
  });

  it('a disk tracker keeps at most maxDeadLetters across a restart: the oldest is dropped for good', async () => {
    const clock = new FakeClock(10_000);
    const options = {
      mode: 'disk',
      journalPath: file,
      maxEvents: 10,
      maxBytes: 1e6,
      retry: { maxAttempts: 1, firstPauseMs: 1, maxPauseMs: 1, maxDeadLetters: 2 },
      clock,
    };
    let { tracker } = await DeliveryTracker.open(options);
    tracker.awaitCompletion = true;
    for (const n of [1, 2, 3]) {
      const id = await tracker.take({ n }, Buffer.from(`{"n":${n}}`), undefined);
      tracker.emitted(id);
      tracker.fail(id, `bad ${n}`);
    }
    assert.equal(tracker.stats.deadLettersDropped, 1);
    await tracker.close();
    ({ tracker } = await DeliveryTracker.open(options));
    assert.deepEqual(
      (await tracker.deadLetters()).map((d) => d.lastError),
      ['bad 2', 'bad 3'],
    );
    assert.deepEqual(tracker.pending, { events: 0, bytes: 0 });
    await tracker.close();
  });
});
