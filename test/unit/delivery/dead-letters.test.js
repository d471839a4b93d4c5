'use strict';
const assert = require('node:assert/strict');
const { deadLetterAction, requestedIds } = require('../../../dist/lib/delivery/dead-letters');
const { completion, errorText } = require('../../../dist/lib/delivery/completion');
const { keepTracker, dropTracker } = require('../../../dist/lib/delivery/registry');
const { DeliveryTracker } = require('../../../dist/lib/delivery/tracker');

describe('lib/delivery/dead-letters and completion.fail', () => {
  afterEach(() => dropTracker('dl1'));

  it('requestedIds: none or an empty body means all; a list of ids (numbers taken as text); anything else a 400 problem', () => {
    for (const all of [undefined, null, {}, { ids: undefined }]) assert.equal(requestedIds(all), undefined);
    assert.deepEqual(requestedIds({ ids: ['3', 4] }), ['3', '4']);
    for (const bad of [{ ids: 'all' }, { ids: [{}] }, { ids: [Number.NaN] }]) assert.equal(requestedIds(bad).status, 400, JSON.stringify(bad));
  });

  it('lists, replays and discards the dead letters of a registered receiver; an unknown one is a 404 problem', async () => {
    const { tracker } = await DeliveryTracker.open({
      mode: 'memory',
      maxEvents: 10,
      maxBytes: 1e6,
      retry: { maxAttempts: 1, firstPauseMs: 1, maxPauseMs: 1, maxDeadLetters: 10 },
    });
    tracker.awaitCompletion = true;
    keepTracker('dl1', tracker);
    const ids = [];
    for (const m of ['a', 'b', 'c']) {
      const id = await tracker.take({}, Buffer.alloc(1), { payload: { messageId: m } });
      tracker.emitted(id);
      assert.equal(completion.fail({ _delivery: { receiver: 'dl1', id } }, `bad ${m}`), true);
      ids.push(String(id));
    }
    assert.equal(completion.fail({ _delivery: { receiver: 'dl1', id: Number(ids[0]) } }, 'again'), false, 'a dead letter is not in flight');
    assert.equal(completion.fail({}, 'x'), false);
    const listed = await deadLetterAction('dl1', 'list');
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.items.map((d) => [d.messageId, d.lastError]),
      [
        ['a', 'bad a'],
        ['b', 'bad b'],
        ['c', 'bad c'],
      ],
    );
    assert.deepEqual(await deadLetterAction('dl1', 'replay', { ids: [ids[0]] }), { status: 200, body: { replayed: 1 } });
    assert.deepEqual(await deadLetterAction('dl1', 'discard', { ids: [ids[1]] }), { status: 200, body: { discarded: 1 } });
    assert.equal((await deadLetterAction('dl1', 'replay', { ids: 7 })).status, 400);
    assert.deepEqual(await deadLetterAction('dl1', 'discard'), { status: 200, body: { discarded: 1 } });
    assert.equal(tracker.pending.events, 1, 'the replayed one is in flight');
    await tracker.close();
    for (const action of ['list', 'replay', 'discard']) {
      const closed = await deadLetterAction('dl1', action);
      assert.equal(closed.status, 503, `${action} on a closed receiver (a deploy under way): ask again`);
    }
    assert.deepEqual(await deadLetterAction('nope', 'list', undefined, undefined, true), {
      status: 200,
      body: { count: 0, items: [], deployed: false },
    });
    assert.equal((await deadLetterAction('nope', 'replay', undefined, undefined, true)).status, 404, 'only a list is optional');
    const unknown = await deadLetterAction('nope', 'list');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.detail, /nope/);
  });

  it('errorText: what a Catch node caught, in one line; a text error as it is; none: a plain sentence', () => {
    assert.equal(errorText({ error: { message: 'boom', source: { id: 'f1', type: 'function', name: 'alert' } } }), 'boom (alert)');
    assert.equal(errorText({ error: { message: 'boom', source: { id: 'f1', type: 'function' } } }), 'boom (function)');
    assert.equal(errorText({ error: 'mail server down' }), 'mail server down');
    assert.equal(errorText({}), 'the flow marked the event failed');
    assert.equal(errorText({ error: { message: 'x'.repeat(5000) } }).length, 1000);
  });
});
