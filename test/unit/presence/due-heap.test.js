'use strict';
/**
 * The due-time heap under the presence table: against a plain sorted list,
 * over thousands of random sets, moves and deletes.
 */
const assert = require('node:assert/strict');
const { DueHeap } = require('../../../dist/lib/presence/due-heap');

/** A small deterministic random generator (mulberry32). */
function random(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('presence: due heap', () => {
  it('gives the earliest, and moves or forgets a key without stale entries', () => {
    const heap = new DueHeap();
    heap.set('a', 30);
    heap.set('b', 10);
    heap.set('c', 20);
    assert.deepEqual(heap.peek(), { id: 'b', at: 10 });
    heap.set('b', 40);
    assert.deepEqual(heap.peek(), { id: 'c', at: 20 });
    assert.equal(heap.atOf('b'), 40);
    assert.equal(heap.delete('c'), true);
    assert.equal(heap.delete('c'), false);
    assert.deepEqual(heap.peek(), { id: 'a', at: 30 });
    assert.equal(heap.size, 2);
    heap.clear();
    assert.equal(heap.peek(), undefined);
    assert.equal(heap.atOf('a'), undefined);
  });

  it('agrees with a sorted list over random sets, moves and deletes', () => {
    const next = random(42);
    const heap = new DueHeap();
    const model = new Map();
    for (let step = 0; step < 20_000; step++) {
      const id = `k${Math.floor(next() * 500)}`;
      const roll = next();
      if (roll < 0.6) {
        const at = Math.floor(next() * 1_000_000);
        heap.set(id, at);
        model.set(id, at);
      } else if (roll < 0.85) {
        assert.equal(heap.delete(id), model.delete(id));
      } else {
        const first = heap.peek();
        if (model.size === 0) assert.equal(first, undefined);
        else {
          const least = Math.min(...model.values());
          assert.equal(first.at, least);
          assert.equal(model.get(first.id), least);
          heap.delete(first.id);
          model.delete(first.id);
        }
      }
      assert.equal(heap.size, model.size);
    }
    const drained = [];
    while (heap.peek()) {
      const { id, at } = heap.peek();
      drained.push(at);
      heap.delete(id);
    }
    assert.deepEqual(
      drained,
      [...model.values()].sort((a, b) => a - b),
    );
  });
});
