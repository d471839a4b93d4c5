'use strict';
const assert = require('node:assert/strict');
const { completion } = require('../../../dist/lib/delivery/completion');
const { keepTracker, dropTracker } = require('../../../dist/lib/delivery/registry');
const { DeliveryTracker } = require('../../../dist/lib/delivery/tracker');

describe('lib/delivery/completion', () => {
  afterEach(() => dropTracker('in1'));

  it('names a delivery by its receiver and id, and nothing else', () => {
    assert.equal(completion.mark({ _delivery: { receiver: 'in1', id: 42 } }), 'in1/42');
    assert.equal(completion.mark({ _delivery: { receiver: 'in1', id: '1700000000000-0' } }), 'in1/1700000000000-0');
    for (const none of [undefined, null, 'in1/42', { receiver: 'in1' }, { id: 1 }, { receiver: 'in1', id: 1.5 }, { receiver: 7, id: 1 }])
      assert.equal(completion.mark({ _delivery: none }), undefined, JSON.stringify(none));
    assert.equal(completion.mark({}), undefined);
  });

  it('tells a redelivered message only by msg.redelivered === true', () => {
    assert.equal(completion.isRedelivered({ redelivered: true }), true);
    for (const value of [undefined, false, 'true', 1]) assert.equal(completion.isRedelivered({ redelivered: value }), false);
  });

  it('finishes the event of a message at its receiver, once; a message without a delivery is not tracked', async () => {
    const { tracker } = await DeliveryTracker.open({ mode: 'memory', maxEvents: 10, maxBytes: 1e6 });
    tracker.awaitCompletion = true;
    keepTracker('in1', tracker);
    const id = await tracker.take({}, Buffer.alloc(10), {});
    tracker.emitted(id);
    assert.deepEqual(tracker.pending, { events: 1, bytes: 10 });
    const msg = { payload: {}, _delivery: { receiver: 'in1', id } };
    assert.equal(completion.finish(msg), true);
    assert.deepEqual(tracker.pending, { events: 0, bytes: 0 });
    assert.equal(completion.finish({ ...msg }), true, 'another copy of the message (two wires): still a tracked message');
    assert.equal(completion.finish({ payload: {} }), false);
    assert.equal(completion.finish({ _delivery: { receiver: 'gone', id: 1 } }), true, 'a receiver that is gone: nothing to finish, no error');
  });
});
