'use strict';
/**
 * lib/delivery/journal.ts and journal-records.ts: the journal's format stamp.
 * A journal written before there were stamps (test/fixtures/formats/
 * journal-unversioned.log, made by the package at a5f34bc with
 * test/fixtures/formats/make.js) opens with every unfinished event, dead
 * letter and attempt, and is stamped; one stamped with a newer version is
 * refused, untouched, with both versions named, and a receiver's session
 * then refuses every event with that reason (the 503 of a store that cannot
 * open, test/nodes/detection-in.test.js). A rewritten or emptied file keeps
 * its stamp and the numbering of events.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Journal } = require('../../../dist/lib/delivery/journal');
const { JOURNAL_VERSION, TYPE_FORMAT } = require('../../../dist/lib/delivery/journal-records');
const { frame } = require('../../../dist/lib/core/append-log');
const { FormatTooNewError } = require('../../../dist/lib/core/file-format');
const { StoreSession } = require('../../../dist/lib/delivery/session');
const { DeployWatch } = require('../../../dist/lib/delivery/deploy-watch');
const { FakeClock } = require('../../support/fake-clock');

const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'formats', 'journal-unversioned.log');

/** The stamp at the head of `file`, parsed; undefined when the first record is not one. */
function stampOf(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.length < 9 || bytes[4] !== TYPE_FORMAT) return undefined;
  return JSON.parse(bytes.toString('utf8', 9, 9 + bytes.readUInt32LE(0)));
}

/** A journal file stamped with `version`, followed by `records` (frames). */
function stampedFile(file, version, records = []) {
  const stamp = frame(TYPE_FORMAT, [Buffer.from(JSON.stringify({ format: 'detection-bridge journal', version }))]);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.concat([...stamp, ...records.flat()]));
}

describe('lib/delivery/journal format', () => {
  let dir;
  let file;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-format-'));
    file = path.join(dir, 'journal-in1.log');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a journal written before stamps opens with all it held, and is stamped with this version', async () => {
    fs.copyFileSync(FIXTURE, file);
    assert.equal(stampOf(file), undefined, 'the fixture has no stamp');
    const { journal, entries, problems } = await Journal.open(file, { maxBytes: 1e8 });
    assert.deepEqual(problems, []);
    const seen = entries.map((e) => [e.seq, e.meta.messageId, JSON.parse(e.body).payload.plate, e.attempts, e.lastError, e.deadAt]);
    assert.deepEqual(seen, [
      [2, 'm2', 'AB2', 2, 'flow error: timeout', undefined],
      [3, 'm3', 'AB3', 5, 'flow error: bad plate', Date.UTC(2026, 11, 1, 10, 5)],
      [4, 'm4', 'AB4', 1, undefined, undefined],
    ]);
    assert.deepEqual(stampOf(file), { format: 'detection-bridge journal', version: JOURNAL_VERSION });
    // the numbering goes on after the events it held, and the stamped file reads the same
    assert.equal(await journal.append({ messageId: 'm5' }, Buffer.from('{}')), 5);
    await journal.close();
    const again = await Journal.open(file, { maxBytes: 1e8 });
    assert.deepEqual(again.problems, []);
    assert.deepEqual(
      again.entries.map((e) => [e.seq, e.attempts, e.deadAt !== undefined]),
      [
        [2, 2, false],
        [3, 5, true],
        [4, 1, false],
        [5, 1, false],
      ],
    );
    assert.equal(stampOf(file).version, JOURNAL_VERSION);
    await again.journal.close();
  });

  it('a new journal starts with its stamp', async () => {
    const { journal } = await Journal.open(file, { maxBytes: 1e8 });
    assert.deepEqual(stampOf(file), { format: 'detection-bridge journal', version: JOURNAL_VERSION });
    await journal.close();
  });

  it('a journal of a newer version is refused, naming both versions, and left byte for byte', async () => {
    const event = Buffer.alloc(12);
    event.writeBigUInt64LE(1n, 0);
    event.writeUInt32LE(2, 8);
    stampedFile(file, JOURNAL_VERSION + 1, [
      frame(1, [event, Buffer.from('{}'), Buffer.from('body')]),
      frame(9, [Buffer.from('a record of a later release')]),
    ]);
    const before = fs.readFileSync(file);
    await assert.rejects(Journal.open(file, { maxBytes: 1e8 }), (err) => {
      assert.ok(err instanceof FormatTooNewError, err.stack);
      assert.equal(err.code, 'ERR_FORMAT_TOO_NEW');
      assert.ok(err.message.includes(`format version ${JOURNAL_VERSION + 1}`), err.message);
      assert.ok(err.message.includes(`(version ${JOURNAL_VERSION})`), err.message);
      assert.ok(err.message.includes(file), err.message);
      return true;
    });
    assert.ok(fs.readFileSync(file).equals(before), 'nothing cut, nothing stamped');
  });

  it('a receiver whose journal is newer: the session says why, with both versions, and refuses every event', async () => {
    stampedFile(file, JOURNAL_VERSION + 1);
    const notes = [];
    const session = new StoreSession(
      { id: 'in1', z: 'tab' },
      {
        ackMode: 'disk',
        maxInFlight: 10,
        maxInFlightMiB: 16,
        journalMaxMiB: 16,
        redeliverAfterSeconds: 0,
        finishedWhen: 'auto',
        streamMaxEvents: 10,
        streamMaxMiB: 16,
        claimAfterSeconds: 3600,
        maxAttempts: 5,
        firstPauseSeconds: 10,
        maxPauseSeconds: 3600,
        maxDeadLetters: 10,
      },
      { journalPath: file, streamName: '/format', clock: new FakeClock(0) },
      {
        send: () => undefined,
        log: { log: () => undefined, warn: () => undefined, error: (text) => notes.push(text), debug: () => undefined },
        changed: () => undefined,
        t: (key, params) => `${key} ${params?.message ?? ''}`,
      },
      new DeployWatch(() => []),
    );
    assert.equal(await session.ready, undefined, 'no store');
    assert.equal(notes.length, 1);
    assert.match(
      notes[0],
      new RegExp(`^errors.delivery .*format version ${JOURNAL_VERSION + 1}, newer than this package reads \\(version ${JOURNAL_VERSION}\\)`),
    );
    const meta = { ip: '127.0.0.1', headers: {}, receivedAt: new Date(0).toISOString() };
    await assert.rejects(
      session.enqueue({ event: {}, body: Buffer.from('{}'), kind: 'lpr', warnings: [], meta }),
      /^Error: errors.delivery .*format version 2/,
    );
    await session.close(false);
  });

  it('a rewrite keeps the stamp and the numbering, though the last events given out were finished', async () => {
    const { journal } = await Journal.open(file, { maxBytes: 1e8, compactMinBytes: 1000, compactRatio: 2 });
    const kept = await journal.append({ i: 0 }, Buffer.alloc(100));
    let last = kept;
    for (let i = 1; i <= 40; i++) {
      last = await journal.append({ i }, Buffer.alloc(100));
      journal.complete(last);
    }
    await journal.close();
    assert.ok(fs.statSync(file).size < 1000, `rewritten to ${fs.statSync(file).size} bytes`);
    assert.equal(stampOf(file).version, JOURNAL_VERSION);
    const again = await Journal.open(file, { maxBytes: 1e8 });
    assert.deepEqual(
      again.entries.map((e) => e.seq),
      [kept],
    );
    assert.equal(await again.journal.append({}, Buffer.alloc(1)), last + 1, 'no seq given out twice');
    await again.journal.close();
  });
});
