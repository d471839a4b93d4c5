'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { LocalSeenKeys } = require('../../../dist/lib/dedupe/seen-keys');
const { DedupeWindow } = require('../../../dist/lib/dedupe/local-window');
const { KeyLog } = require('../../../dist/lib/dedupe/key-log');
const { mountTmpfs, fillUp } = require('../../support/tmpfs');

/** The keys on disk in `file`, as another opener finds them. */
async function onDisk(file) {
  const { log, entries } = await KeyLog.open(file);
  await log.close();
  return entries;
}

describe('lib/dedupe/seen-keys: the local window behind SeenKeys', () => {
  let dir;
  let file;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seen-keys-'));
    file = path.join(dir, 'dedupe.keys');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is local, counts its keys, and uses a window it is given as it is', async () => {
    const window = new DedupeWindow({ ttlMs: 1000, maxKeys: 10 });
    window.check('carried', 0);
    const seen = new LocalSeenKeys(window);
    assert.equal(seen.shared, false);
    assert.equal(seen.window, window);
    assert.deepEqual(await seen.check('carried', 1), { duplicate: true, since: 0 });
    assert.deepEqual(await seen.check('new', 1, 'in1/1'), { duplicate: false });
    assert.equal(seen.size, 2);
  });

  it('has each key that passes on disk once its check resolves; a repeat writes nothing', async () => {
    const { log } = await KeyLog.open(file);
    const seen = new LocalSeenKeys({ ttlMs: 60_000, maxKeys: 10 }, { log });
    // checked together: one sync for both (after the one of the new file's stamp)
    const opened = log.syncs;
    const [a, b] = await Promise.all([seen.check('a', 1, 'in1/1'), seen.check('b', 2)]);
    assert.deepEqual([a, b], [{ duplicate: false }, { duplicate: false }]);
    assert.equal(log.syncs - opened, 1);
    assert.deepEqual(
      await onDisk(file),
      [
        ['a', 1, 'in1/1'],
        ['b', 2],
      ],
      'on disk already, read by another opener',
    );
    assert.deepEqual(await seen.check('a', 3), { duplicate: true, since: 1, by: 'in1/1' });
    assert.equal(log.lineCount, 2, 'a repeat in a fixed window is no news for the log');
    await log.close();
  });

  it('writes a repeat that restarts its window, with the mark of the message that passed, and a reset', async () => {
    const { log } = await KeyLog.open(file);
    const changes = [];
    const seen = new LocalSeenKeys({ ttlMs: 60_000, maxKeys: 10, refreshOnRepeat: true }, { log, changed: () => changes.push(seen.size) });
    await seen.check('parked', 1, 'in1/1');
    await seen.check('parked', 5, 'in1/2');
    await log.close();
    const reopened = await KeyLog.open(file);
    assert.deepEqual(reopened.entries, [
      ['parked', 1, 'in1/1'],
      ['parked', 5, 'in1/1'],
    ]);
    const again = new LocalSeenKeys({ ttlMs: 60_000, maxKeys: 10 }, { log: reopened.log, changed: () => changes.push(again.size) });
    await again.clear();
    await reopened.log.close();
    assert.deepEqual(await onDisk(file), [], 'the reset is on disk');
    assert.deepEqual(changes, [1, 1, 0], 'told of every change (to save the window elsewhere)');
  });

  it('writes the plate as read with a key that passes, and with a repeat that restarts its window the first one', async () => {
    const { log } = await KeyLog.open(file);
    const seen = new LocalSeenKeys({ ttlMs: 60_000, maxKeys: 10, refreshOnRepeat: true }, { log });
    await seen.check('A8C123', 1, 'in1/1', 'ABC123');
    assert.deepEqual(await seen.check('A8C123', 5, 'in1/2', 'A8C123'), { duplicate: true, since: 1, by: 'in1/1', read: 'ABC123' });
    await seen.check('long', 6, undefined, 'X'.repeat(33));
    await log.close();
    const reopened = await KeyLog.open(file);
    assert.deepEqual(reopened.entries, [
      ['A8C123', 1, 'in1/1', 'ABC123'],
      ['A8C123', 5, 'in1/1', 'ABC123'],
      ['long', 6],
    ]);
    await reopened.log.close();
  });

  it('fails the check when its key cannot be written (the caller answers the message with the error)', async () => {
    const { log } = await KeyLog.open(file);
    await log.close();
    const seen = new LocalSeenKeys({ ttlMs: 60_000, maxKeys: 10 }, { log });
    await assert.rejects(seen.check('a', 1), /closed/);
  });

  it('on a full disk (a small tmpfs: root): keeps deciding in memory, passes no repeat, says so once, and saves every key once there is room', async () => {
    const disk = mountTmpfs('128k');
    let log;
    try {
      const full = path.join(disk.dir, 'dedupe.keys');
      ({ log } = await KeyLog.open(full));
      const now = Date.now(); // the window's snapshot keeps the keys still inside it by the clock
      const said = [];
      const seen = new LocalSeenKeys({ ttlMs: 600_000, maxKeys: 10_000 }, { log, unsaved: (err) => said.push(err?.code) });
      assert.deepEqual(await seen.check('before', now, 'in1/1'), { duplicate: false });
      const filler = fillUp(disk.dir, 0);
      // Long keys: the disk has no room left for any of them.
      const keys = Array.from({ length: 50 }, (_, i) => `plate-${i}-`.padEnd(2000, 'k'));
      for (const key of keys) assert.deepEqual(await seen.check(key, now + 1), { duplicate: false });
      assert.deepEqual(said, ['ENOSPC'], 'said once, not once per key');
      assert.ok(seen.unsaved);
      // Repeats are still caught: the window in memory decides.
      for (const key of [...keys, 'before']) assert.equal((await seen.check(key, now + 2)).duplicate, true);
      assert.equal(await seen.resave(), false, 'still no room');

      fs.unlinkSync(filler);
      assert.equal(await seen.resave(), true);
      assert.deepEqual(said, ['ENOSPC', undefined]);
      assert.equal(seen.unsaved, undefined);
      assert.deepEqual(await seen.check('after', now + 3), { duplicate: false });
      await log.close();
      const saved = (await onDisk(full)).map((e) => e[0]);
      assert.deepEqual(saved.sort(), ['after', 'before', ...keys].sort());
    } finally {
      await log?.close();
      disk.unmount();
    }
  });
});
