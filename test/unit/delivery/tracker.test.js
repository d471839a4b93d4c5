'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { DeliveryTracker, BusyError } = require('../../../dist/lib/delivery/tracker');
const { FakeClock } = require('../../support/fake-clock');
const { mountTmpfs } = require('../../support/tmpfs');

const body = (n, fill = 0x41) => Buffer.alloc(n, fill);

describe('lib/delivery/tracker', () => {
  it('bounds events in flight in count and bytes: past either, BusyError', async () => {
    const { tracker } = await DeliveryTracker.open({ mode: 'memory', maxEvents: 2, maxBytes: 1500 });
    tracker.awaitCompletion = true;
    const a = await tracker.take({}, body(1000), { a: 1 });
    await assert.rejects(tracker.take({}, body(1000), {}), (err) => err instanceof BusyError && err.reason === 'bytes');
    await tracker.take({}, body(100), {});
    await assert.rejects(tracker.take({}, body(1), {}), (err) => err instanceof BusyError && err.reason === 'events');
    tracker.emitted(a);
    assert.equal(tracker.complete(a), true);
    assert.equal(tracker.complete(a), false, 'once');
    await tracker.take({}, body(1000), {});
    assert.deepEqual(tracker.pending, { events: 2, bytes: 1100 });
  });

  it('finishes an event once emitted when no completion is awaited', async () => {
    const { tracker } = await DeliveryTracker.open({ mode: 'memory', maxEvents: 10, maxBytes: 1e6 });
    const id = await tracker.take({}, body(10), {});
    tracker.emitted(id);
    assert.deepEqual(tracker.pending, { events: 0, bytes: 0 });
  });

  it('lists the unfinished events emitted before a time, and the overdue ones on its clock', async () => {
    const clock = new FakeClock(1000);
    const { tracker } = await DeliveryTracker.open({ mode: 'memory', maxEvents: 10, maxBytes: 1e6, redeliverAfterMs: 5000, clock });
    tracker.awaitCompletion = true;
    let overdueCalls = 0;
    tracker.onOverdue = () => overdueCalls++;
    const first = await tracker.take({ n: 1 }, body(1), { e: 1 });
    tracker.emitted(first);
    await clock.advance(3000);
    const second = await tracker.take({ n: 2 }, body(1), { e: 2 });
    tracker.emitted(second);
    const notEmitted = await tracker.take({ n: 3 }, body(1), { e: 3 });
    assert.deepEqual(
      (await tracker.unfinished(2000)).map((r) => [r.meta.n, r.attempt]),
      [[1, 2]],
      'listed to go out again: its second attempt',
    );
    assert.deepEqual(
      (await tracker.unfinished()).map((r) => r.event.e),
      [2],
      'an event not emitted yet is not due, nor one listed and not emitted since',
    );
    tracker.emitted(first);
    tracker.emitted(second);
    await clock.advance(2000);
    assert.equal(overdueCalls, 1);
    assert.deepEqual(await tracker.overdue(), [], 'emitted again at 4000: not overdue at 6000');
    await clock.advance(3000);
    assert.deepEqual(
      (await tracker.overdue()).map((r) => [r.meta.n, r.attempt]),
      [
        [1, 3],
        [2, 3],
      ],
    );
    tracker.complete(first);
    tracker.complete(second);
    tracker.complete(notEmitted);
    await tracker.close();
  });

  it('disk mode: an event is taken only once on disk, and comes back after a reopen with its body', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracker-test-'));
    try {
      const journalPath = path.join(dir, 'j.log');
      const opened = await DeliveryTracker.open({ mode: 'disk', journalPath, maxEvents: 10, maxBytes: 1e6 });
      opened.tracker.awaitCompletion = true;
      const id = await opened.tracker.take({ kind: 'lpr' }, Buffer.from('{"x":1}'), { x: 1 });
      opened.tracker.emitted(id);
      const done = await opened.tracker.take({ kind: 'face' }, Buffer.from('{"y":2}'), { y: 2 });
      opened.tracker.emitted(done);
      opened.tracker.complete(done);
      await opened.tracker.close();
      const again = await DeliveryTracker.open({ mode: 'disk', journalPath, maxEvents: 10, maxBytes: 1e6 });
      assert.deepEqual(
        again.recovered.map((r) => [r.id, r.meta.kind, r.body.toString()]),
        [[id, 'lpr', '{"x":1}']],
      );
      assert.deepEqual(
        (await again.tracker.unfinished()).map((r) => r.body.toString()),
        ['{"x":1}'],
      );
      await again.tracker.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('disk mode on a full disk: refuses with BusyError (503 + Retry-After) while it is full, says so, and takes events again once they finish', async () => {
    const disk = mountTmpfs('128k');
    try {
      const { tracker } = await DeliveryTracker.open({
        mode: 'disk',
        journalPath: path.join(disk.dir, 'journal.log'),
        maxEvents: 1000,
        maxBytes: 1e9,
      });
      tracker.awaitCompletion = true;
      const said = [];
      tracker.onOutOfSpace = (full) => said.push(full);
      const held = [];
      let refusal;
      while (!refusal) {
        await tracker.take({ n: held.length }, Buffer.alloc(8192, 7), undefined).then(
          (id) => held.push(id),
          (err) => (refusal = err),
        );
      }
      assert.ok(refusal instanceof BusyError, String(refusal));
      assert.equal(refusal.reason, 'journal');
      assert.equal(tracker.outOfSpace, true);
      assert.deepEqual(tracker.pending, { events: held.length, bytes: held.length * 8192 });
      for (const id of held) {
        tracker.emitted(id);
        tracker.complete(id);
      }
      await tracker.take({ again: true }, Buffer.alloc(8192, 8), undefined);
      assert.equal(tracker.outOfSpace, false);
      assert.deepEqual(said, [true, false]);
      await tracker.close();
    } finally {
      disk.unmount();
    }
  });
});
