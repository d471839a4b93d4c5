'use strict';
/**
 * lib/plates/plate-index.ts, the machines under the watch list's index: the
 * folder maps each look-alike class to one character; the key hasher's
 * hash of a key with one or two characters deleted equals the hash of that
 * shorter key loaded whole (what makes the deletion table find a read with
 * extra characters); the pair table keeps each (hash, id) once and finds
 * every id stored under a hash, past collisions and wrap-around.
 */
const assert = require('node:assert/strict');
const { Folder, KeyHasher, PairTable } = require('../../../dist/lib/plates/plate-index');
const { DEFAULT_LOOKALIKES } = require('../../../dist/lib/plates');

const codes = (text) => Uint16Array.from([...text].map((c) => c.charCodeAt(0)));

function hashOf(text) {
  const hasher = new KeyHasher();
  hasher.load(codes(text), 0, text.length);
  return hasher.whole();
}

describe('lib/plates/plate-index', () => {
  it('Folder: the characters of a look-alike class fold to one, others stay as they are', () => {
    const folder = new Folder(DEFAULT_LOOKALIKES);
    const o = folder.code('O'.charCodeAt(0));
    assert.equal(folder.code('0'.charCodeAt(0)), o, 'O and 0 are one class');
    assert.equal(folder.code('X'.charCodeAt(0)), 'X'.charCodeAt(0));
    assert.equal(new Folder(undefined).code('0'.charCodeAt(0)), '0'.charCodeAt(0), 'no classes: nothing folds');
  });

  it('KeyHasher: the key without one or two characters hashes as that shorter key does', () => {
    const key = 'AB12CDE9';
    const hasher = new KeyHasher();
    hasher.load(codes(`xx${key}yy`), 2, 2 + key.length);
    assert.equal(hasher.whole(), hashOf(key), 'a key inside a longer array');
    for (let a = 0; a < key.length; a++) {
      assert.equal(hasher.without(a), hashOf(key.slice(0, a) + key.slice(a + 1)), `without ${a}`);
      for (let b = a + 1; b < key.length; b++) {
        const shorter = key.slice(0, a) + key.slice(a + 1, b) + key.slice(b + 1);
        assert.equal(hasher.withoutTwo(a, b), hashOf(shorter), `without ${a} and ${b}`);
      }
    }
    assert.notEqual(hashOf('AB12'), hashOf('AB21'), 'the order counts');
    assert.notEqual(hashOf('A'), hashOf('AA'), 'the length counts');
  });

  it('KeyHasher: keys longer than its first tables (64 characters) hash the same way', () => {
    const key = 'K'.repeat(70) + 'Z9';
    const hasher = new KeyHasher();
    hasher.load(codes(key), 0, key.length);
    assert.equal(hasher.without(71), hashOf(key.slice(0, 71)));
  });

  it('PairTable: keeps a pair once, and collects every id under a hash, colliding slots included', () => {
    const table = new PairTable(4);
    const top = 0xffffffff; // the last slot: probing wraps to the first
    table.add(top, 1);
    table.add(top, 2);
    table.add(top, 1);
    table.add(7, 3);
    table.add(top, 0);
    const under = (hash) => {
      const out = [];
      table.collect(hash, out);
      return out.sort();
    };
    assert.deepEqual(under(top), [0, 1, 2]);
    assert.deepEqual(under(7), [3]);
    assert.deepEqual(under(8), []);
  });
});
