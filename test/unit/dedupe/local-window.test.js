'use strict';
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const v8 = require('node:v8');
const vm = require('node:vm');
const { DedupeWindow, passes, takeOverWindow, keepWindow, dropWindow } = require('../../../dist/lib/dedupe/local-window');

describe('lib/dedupe DedupeWindow', () => {
  it('passes the first sighting and drops repeats inside the window', () => {
    const w = new DedupeWindow({ ttlMs: 1000, maxKeys: 10 });
    assert.deepEqual(w.check('a', 0), { duplicate: false });
    assert.deepEqual(w.check('a', 500), { duplicate: true, since: 0 });
    assert.deepEqual(w.check('b', 600), { duplicate: false });
    assert.deepEqual(w.check('a', 999), { duplicate: true, since: 0 });
    assert.equal(w.size, 2);
  });

  it('forgets keys by age', () => {
    const w = new DedupeWindow({ ttlMs: 1000, maxKeys: 10 });
    w.check('a', 0);
    w.check('b', 400);
    w.check('c', 800);
    w.expire(1000);
    assert.equal(w.size, 2, 'a expired at exactly ttl');
    assert.equal(w.has('a', 1000), false);
    assert.equal(w.has('b', 1000), true);
    assert.deepEqual(w.check('a', 1000), { duplicate: false }, 'a passes again once its window ended');
    w.expire(1401);
    assert.equal(w.has('b', 1401), false);
    assert.equal(w.size, 2, 'c and the new a');
  });

  it('forgets the oldest key first when full', () => {
    const w = new DedupeWindow({ ttlMs: 1e9, maxKeys: 3 });
    for (const [k, t] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ])
      w.check(k, t);
    w.check('a', 4); // a repeat does not move a in fixed mode
    w.check('d', 5);
    assert.equal(w.size, 3);
    assert.equal(w.has('a', 6), false, 'a was the oldest');
    assert.deepEqual(
      ['b', 'c', 'd'].map((k) => w.has(k, 6)),
      [true, true, true],
    );
    w.check('e', 7);
    assert.equal(w.has('b', 8), false);
    assert.equal(w.evictedBySize, 2);
  });

  it('stays bounded however many keys arrive', () => {
    const w = new DedupeWindow({ ttlMs: 1e9, maxKeys: 1000 });
    for (let i = 0; i < 50000; i++) w.check(`k${i}`, i);
    assert.equal(w.size, 1000);
    assert.equal(w.has('k49999', 50000), true);
    assert.equal(w.has('k49000', 50000), true);
    assert.equal(w.has('k48999', 50000), false);
    assert.equal(w.evictedBySize, 49000);
  });

  it('restarts a key on every repeat in sliding mode', () => {
    const w = new DedupeWindow({ ttlMs: 1000, maxKeys: 10, refreshOnRepeat: true });
    w.check('plate@gate', 0);
    assert.deepEqual(w.check('plate@gate', 900), { duplicate: true, since: 0 });
    assert.deepEqual(w.check('plate@gate', 1800), { duplicate: true, since: 900 }, 'still quiet: seen 900 ms ago');
    assert.deepEqual(w.check('plate@gate', 2900), { duplicate: false }, 'passes after a quiet window');
  });

  it('keeps expiry in order when repeats refresh keys', () => {
    const w = new DedupeWindow({ ttlMs: 1000, maxKeys: 10, refreshOnRepeat: true });
    w.check('a', 0);
    w.check('b', 100);
    w.check('a', 500); // a moves behind b
    w.expire(1150);
    assert.equal(w.has('b', 1150), false);
    assert.equal(w.has('a', 1150), true);
  });

  it('saves and restores, dropping what expired meanwhile', () => {
    const w = new DedupeWindow({ ttlMs: 1000, maxKeys: 10 });
    w.check('a', 0);
    w.check('b', 500);
    const saved = JSON.parse(JSON.stringify(w.snapshot(600)));
    const again = new DedupeWindow({ ttlMs: 1000, maxKeys: 10 });
    assert.equal(again.restore(saved, 1200), 1, 'a expired while stopped');
    assert.deepEqual(again.check('b', 1300), { duplicate: true, since: 500 });
    assert.equal(again.restore('garbage', 0), 1);
    assert.equal(new DedupeWindow({ ttlMs: 1000, maxKeys: 1 }).restore(saved, 600), 1, 'restore respects maxKeys');
  });

  it('refuses settings that cannot work', () => {
    assert.throws(() => new DedupeWindow({ ttlMs: 0, maxKeys: 10 }), /ttlMs/);
    assert.throws(() => new DedupeWindow({ ttlMs: NaN, maxKeys: 10 }), /ttlMs/);
    assert.throws(() => new DedupeWindow({ ttlMs: 10, maxKeys: 0 }), /maxKeys/);
    assert.throws(() => new DedupeWindow({ ttlMs: 10, maxKeys: 1.5 }), /maxKeys/);
  });

  it('behaves like a simple reference model over many random operations', () => {
    // The reference: a plain list of [key, since], oldest first.
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (const refreshOnRepeat of [false, true]) {
      const ttlMs = 50;
      const maxKeys = 20;
      const w = new DedupeWindow({ ttlMs, maxKeys, refreshOnRepeat });
      let model = [];
      let now = 0;
      for (let op = 0; op < 20000; op++) {
        now += Math.floor(random() * 3);
        const key = `k${Math.floor(random() * 40)}`;
        if (random() < 0.002) {
          w.clear();
          model = [];
          continue;
        }
        model = model.filter(([, since]) => now - since < ttlMs);
        const found = model.find(([k]) => k === key);
        let expected;
        if (found) {
          expected = { duplicate: true, since: found[1] };
          if (refreshOnRepeat) model = [...model.filter(([k]) => k !== key), [key, now]];
        } else {
          if (model.length >= maxKeys) model.shift();
          model.push([key, now]);
          expected = { duplicate: false };
        }
        assert.deepEqual(w.check(key, now), expected, `op ${op} (${refreshOnRepeat ? 'sliding' : 'fixed'})`);
        assert.equal(w.size, model.length);
      }
      assert.deepEqual(
        w.snapshot(now),
        model.filter(([, since]) => now - since < ttlMs),
      );
    }
  });

  it('holds 100,000 message ids in under 30 MB of heap', function () {
    this.timeout(60000);
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc');
    // Ids as the receiver's JSON parse makes them: flat 36-character strings.
    // randomUUID() returns a rope of pieces; copying through latin1 flattens it,
    // so the measurement does not count a rope being flattened as savings.
    const flatId = () => Buffer.from(crypto.randomUUID(), 'latin1').toString('latin1');
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    const w = new DedupeWindow({ ttlMs: 3600000, maxKeys: 100000 });
    const start = Date.parse('2026-03-01T12:00:00.000Z');
    let probe;
    for (let i = 0; i < 100000; i++) {
      const id = flatId();
      if (i === 12345) probe = id;
      w.check(id, start + i);
    }
    gc();
    gc();
    // The window is the only holder of the keys: this is keys plus structure.
    const bytes = process.memoryUsage().heapUsed - before;
    assert.equal(w.size, 100000);
    assert.ok(bytes > 100000 * 36, `measured ${bytes} bytes: too little to hold the keys, the measurement is broken`);
    assert.ok(bytes < 30 * 1024 * 1024, `window holds ${(bytes / 1048576).toFixed(1)} MB for 100,000 keys`);
    assert.deepEqual(w.check(probe, start + 200000), { duplicate: true, since: start + 12345 });
  });
});

describe('lib/dedupe: which delivery let a key through', () => {
  it('keeps the mark of the message that passed with its key, through repeats, restarts of the window, rebuilds and snapshots', () => {
    for (const refreshOnRepeat of [false, true]) {
      const w = new DedupeWindow({ ttlMs: 1000, maxKeys: 100, refreshOnRepeat });
      assert.deepEqual(w.check('a', 0, 'rx/1'), { duplicate: false });
      assert.deepEqual(w.check('a', 10, 'rx/2'), { duplicate: true, since: 0, by: 'rx/1' }, 'the repeat does not replace the mark');
      assert.deepEqual(w.check('b', 20), { duplicate: false });
      assert.deepEqual(w.check('b', 30, 'rx/3'), { duplicate: true, since: 20 }, 'no mark: none is made up');
      // enough keys to grow and renumber the ring
      for (let i = 0; i < 60; i++) w.check(`k${i}`, 40 + i, `rx/k${i}`);
      assert.equal(w.check('a', 200, 'rx/9').by, 'rx/1', refreshOnRepeat ? 'sliding' : 'fixed');
      const snapshot = w.snapshot(300);
      assert.deepEqual(snapshot.find((e) => e[0] === 'a').slice(2), ['rx/1']);
      assert.equal(snapshot.find((e) => e[0] === 'b').length, 2);
      const again = new DedupeWindow({ ttlMs: 1000, maxKeys: 100, refreshOnRepeat });
      again.restore(snapshot, 300);
      assert.equal(again.check('a', 310).by, 'rx/1');
      assert.equal(again.check('k59', 310).by, 'rx/k59');
    }
  });

  it('keeps the plate as read by the message that passed, through repeats, restarts, rebuilds, snapshots and restores; old snapshots still load', () => {
    for (const refreshOnRepeat of [false, true]) {
      const w = new DedupeWindow({ ttlMs: 1000, maxKeys: 100, refreshOnRepeat });
      assert.deepEqual(w.check('A8C123', 0, 'rx/1', 'ABC123'), { duplicate: false });
      assert.deepEqual(w.check('A8C123', 10, 'rx/2', 'A8C123'), { duplicate: true, since: 0, by: 'rx/1', read: 'ABC123' });
      assert.deepEqual(w.check('808123', 20, undefined, '8OB123'), { duplicate: false });
      assert.deepEqual(w.check('808123', 30, 'rx/3', '80B123'), { duplicate: true, since: 20, read: '8OB123' }, 'a read without a mark');
      for (let i = 0; i < 60; i++) w.check(`k${i}`, 40 + i, `rx/k${i}`);
      assert.equal(w.check('A8C123', 200, 'rx/9', 'A8C-123').read, 'ABC123', refreshOnRepeat ? 'sliding' : 'fixed');
      const snapshot = w.snapshot(300);
      assert.deepEqual(snapshot.find((e) => e[0] === 'A8C123').slice(2), ['rx/1', 'ABC123']);
      assert.deepEqual(snapshot.find((e) => e[0] === '808123').slice(2), [null, '8OB123']);
      assert.equal(snapshot.find((e) => e[0] === 'k0').length, 3, 'keys without a read are saved as before');
      // through JSON, as a context store and the key log keep it
      const again = new DedupeWindow({ ttlMs: 1000, maxKeys: 100, refreshOnRepeat });
      again.restore(JSON.parse(JSON.stringify(snapshot)), 300);
      assert.deepEqual(again.check('A8C123', 310), { duplicate: true, since: refreshOnRepeat ? 200 : 0, by: 'rx/1', read: 'ABC123' });
      assert.deepEqual(again.check('808123', 310), { duplicate: true, since: refreshOnRepeat ? 30 : 20, read: '8OB123' });
    }
    // a window saved before reads were kept
    const old = new DedupeWindow({ ttlMs: 1000, maxKeys: 10 });
    old.restore(
      [
        ['a', 0],
        ['b', 0, 'rx/1'],
      ],
      1,
    );
    assert.deepEqual(old.check('a', 2), { duplicate: true, since: 0 });
    assert.deepEqual(old.check('b', 2), { duplicate: true, since: 0, by: 'rx/1' });
  });

  it('keeps no read that is not a short string (the window stays bounded)', () => {
    const w = new DedupeWindow({ ttlMs: 1000, maxKeys: 10 });
    w.check('long', 0, undefined, 'X'.repeat(33));
    w.check('number', 0, undefined, 5);
    w.restore([['restored', 0, null, 'Y'.repeat(33)]], 0);
    assert.deepEqual(w.snapshot(1), [
      ['long', 0],
      ['number', 0],
      ['restored', 0],
    ]);
  });

  it('keeps no mark that is not a short string', () => {
    const w = new DedupeWindow({ ttlMs: 1000, maxKeys: 10 });
    w.restore(
      [
        ['long', 0, 'x'.repeat(201)],
        ['number', 0, 5],
        ['ok', 0, 'rx/1'],
      ],
      1,
    );
    assert.deepEqual(
      w.snapshot(2).map((e) => e.length),
      [2, 2, 3],
    );
  });

  it('passes a first sighting, and a repeat only when it is the same delivery emitted again', () => {
    const repeat = { duplicate: true, since: 0, by: 'in1/7' };
    assert.equal(passes({ duplicate: false }, false, undefined), true);
    assert.equal(passes({ duplicate: false }, true, 'in1/8'), true);
    assert.equal(passes(repeat, true, 'in1/7'), true, 'the event that let the key through, never finished: emitted again');
    assert.equal(passes(repeat, true, 'in1/8'), false, 'another event with the same key, emitted again: a repeat');
    assert.equal(passes(repeat, false, 'in1/7'), false, 'not redelivered');
    assert.equal(passes({ duplicate: true, since: 0 }, true, undefined), false, 'cannot tell: a repeat');
    assert.equal(passes({ duplicate: true, since: 0 }, true, 'in1/7'), false, 'the key passed without a mark');
  });
});

describe('lib/dedupe: windows kept across deploys', () => {
  const settings = (over = {}) => ({ ttlMs: 60_000, maxKeys: 100, refreshOnRepeat: false, keyDefinition: 'k', persistence: '', ...over });
  afterEach(() => dropWindow('n1'));

  it('gives a redeployed node the window of its previous instance, once', () => {
    const first = takeOverWindow('n1', settings());
    assert.equal(first.carried, false);
    first.window.check('a', Date.now(), 'rx/1');
    keepWindow('n1', first.window, settings());
    const second = takeOverWindow('n1', settings());
    assert.equal(second.carried, true);
    assert.equal(second.window, first.window, 'the same window, as it was');
    assert.equal(second.persistenceChanged, false);
    assert.equal(takeOverWindow('n1', settings()).carried, false, 'taken: a second instance gets none');
  });

  it('carries the keys into a window of the new size and time, the newest first; none when the key changed', () => {
    const now = Date.now();
    const old = new DedupeWindow({ ttlMs: 60_000, maxKeys: 100 });
    for (const [key, age] of [
      ['old', 50_000],
      ['mid', 20_000],
      ['new', 1_000],
    ])
      old.check(key, now - age, `rx/${key}`);
    keepWindow('n1', old, settings());
    const shorter = takeOverWindow('n1', settings({ ttlMs: 30_000, maxKeys: 1, persistence: 'detection-bridge:key-log' }));
    assert.equal(shorter.carried, true);
    assert.equal(shorter.persistenceChanged, true);
    assert.deepEqual(
      shorter.window.snapshot(now).map((e) => [e[0], e[2]]),
      [['new', 'rx/new']],
      'inside 30 s and at most 1 key',
    );
    assert.equal(shorter.window.ttlMs, 30_000);
    keepWindow('n1', shorter.window, settings({ ttlMs: 30_000, maxKeys: 1 }));
    const otherKey = takeOverWindow('n1', settings({ keyDefinition: 'other' }));
    assert.equal(otherKey.carried, false);
    assert.equal(otherKey.window.size, 0);
  });

  it('forgets the window of a removed node', () => {
    const w = new DedupeWindow({ ttlMs: 60_000, maxKeys: 10 });
    w.check('a');
    keepWindow('n1', w, settings());
    dropWindow('n1');
    assert.equal(takeOverWindow('n1', settings()).window.size, 0);
  });
});
