'use strict';
const assert = require('node:assert/strict');
const { InFlightBudget, BusyError } = require('../../../dist/lib/delivery/budget');

describe('lib/delivery InFlightBudget', () => {
  it('counts an event from staging until it is held, given back on abandon or a failed write', async () => {
    const held = new Set();
    const budget = new InFlightBudget(2, 100, () => held.size);
    let finishWrite;
    const a = budget.stage(40, (meta) => new Promise((resolve) => (finishWrite = () => resolve(held.add(meta) && 1))));
    const b = budget.stage(40, () => Promise.reject(new Error('disk full')));
    assert.throws(
      () => budget.check(),
      (err) => err instanceof BusyError && err.reason === 'events',
      'two staged: full',
    );
    const committing = a.commit('a', {});
    assert.throws(() => budget.check(), BusyError, 'still counted while it is written');
    await assert.rejects(b.commit('b', {}), /disk full/);
    assert.equal(budget.bytes, 40, 'the failed write gave its bytes back');
    finishWrite();
    assert.equal(await committing, 1);
    assert.equal(budget.room, 1);
    assert.throws(
      () => budget.check(61),
      (err) => err.reason === 'bytes',
      '40 held + 61 > 100',
    );
    let abandoned = 0;
    const c = budget.stage(
      30,
      () => Promise.resolve(2),
      () => abandoned++,
    );
    assert.equal(budget.room, 0);
    c.abandon();
    c.abandon();
    assert.equal(abandoned, 1, 'given back once');
    assert.equal(budget.bytes, 40);
    assert.equal(budget.room, 1);
    await assert.rejects(c.commit('c', {}), /already settled/);
  });
});
