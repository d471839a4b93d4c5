'use strict';
/**
 * lib/delivery/stranded.ts: a removed receiver's store that holds answered
 * events is kept by its path and handed over: its unfinished events become
 * the new store's (due to be emitted there), its dead letters stay dead
 * letters (memory to disk here, so through the new journal), and a journal
 * handed everything is deleted.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { DeliveryTracker } = require('../../../dist/lib/delivery/tracker');
const { strand, strandedList, strandedOn, handOver, holdsAnything } = require('../../../dist/lib/delivery/stranded');
const { FakeClock } = require('../../support/fake-clock');
const ev = require('../../fixtures/events');

const retry = { maxAttempts: 2, firstPauseMs: 1000, maxPauseMs: 1000, maxDeadLetters: 10 };
const meta = (messageId) => ({ ip: '127.0.0.1', headers: {}, receivedAt: new Date(0).toISOString(), kind: 'lpr', warnings: [], messageId });

function lpr(messageId) {
  const event = ev.fullLpr();
  event.payload.messageId = messageId;
  return event;
}

async function take(tracker, messageId) {
  const event = lpr(messageId);
  const id = await tracker.take(meta(messageId), Buffer.from(JSON.stringify(event)), event);
  tracker.emitted(id);
  return id;
}

describe('lib/delivery stranded stores', () => {
  let dir;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stranded-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a disk store left on a path: its unfinished event and its dead letter go to the next store there; its journal is deleted', async () => {
    const clock = new FakeClock(1000);
    const file = path.join(dir, 'journal-gone.log');
    const options = { maxEvents: 10, maxBytes: 1e6, retry, clock };
    const { tracker: gone } = await DeliveryTracker.open({ ...options, mode: 'disk', journalPath: file });
    gone.awaitCompletion = true;
    const poison = await take(gone, 'poison');
    assert.equal(gone.fail(poison, 'bad plate'), true);
    await clock.advance(1000);
    assert.deepEqual(
      (await gone.overdue()).map((r) => [r.id, r.attempt]),
      [[poison, 2]],
    );
    gone.emitted(poison);
    assert.equal(gone.fail(poison, 'bad plate'), true);
    await take(gone, 'held');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([gone.pending.events, gone.stats.deadLetters], [1, 1]);
    assert.equal(holdsAnything(gone), true);

    strand({ receiver: 'gone', key: '/p', path: '/p', store: gone, file });
    assert.deepEqual(
      strandedOn('/p', 'other').map((s) => s.receiver),
      ['gone'],
    );
    assert.deepEqual(strandedOn('/p', 'gone'), [], 'not its own');
    assert.deepEqual(
      strandedList().map((s) => [s.receiver, s.mode, s.events, s.deadLetters, s.file]),
      [['gone', 'disk', 1, 1, file]],
    );

    const { tracker: next } = await DeliveryTracker.open({ ...options, mode: 'memory' });
    next.awaitCompletion = true;
    const handed = await handOver(strandedOn('/p', 'next')[0], next);
    assert.deepEqual(handed, { events: 1, deadLetters: 1 });
    const due = await next.unfinished();
    assert.deepEqual(
      due.map((r) => [r.meta.messageId, r.event.payload.messageId, r.attempt]),
      [['held', 'held', 2]],
    );
    assert.deepEqual(
      (await next.deadLetters()).map((d) => [d.messageId, d.kind, d.lastError]),
      [['poison', 'lpr', 'bad plate']],
    );
    assert.deepEqual(strandedList(), []);
    assert.equal(fs.existsSync(file), false, 'the emptied journal is deleted');
    await next.close();
  });
});
