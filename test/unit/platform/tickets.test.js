'use strict';
/** lib/platform/tickets.ts: one add() to the push queue, its items in several batches, settled once when the last is finished. */
const assert = require('node:assert/strict');
const { openTicket, chargeTicket, ticketOutcome } = require('../../../dist/lib/platform/tickets');
const { TransportError } = require('../../../dist/lib/http/transport-error');

const failure = () => new TransportError('push', 'send', { count: 1, path: '/p', attempts: 1, reason: 'x' });

describe('lib/platform/tickets', () => {
  it('finished when every item is charged; ok when no batch failed', () => {
    const ticket = openTicket('msg-1', 5, () => {});
    assert.equal(chargeTicket(ticket, 2), false);
    assert.equal(chargeTicket(ticket, 3), true);
    assert.deepEqual(ticketOutcome(ticket), { ticket: 'msg-1', ok: true, items: 5, failedItems: 0, batches: 2, error: undefined, errors: [] });
  });

  it('counts the failed items and each error once, the first as the error', () => {
    const ticket = openTicket('msg-2', 6, () => {});
    const first = failure();
    const second = failure();
    chargeTicket(ticket, 2, first);
    chargeTicket(ticket, 1, first);
    chargeTicket(ticket, 1);
    assert.equal(chargeTicket(ticket, 2, second), true);
    const outcome = ticketOutcome(ticket);
    assert.equal(outcome.ok, false);
    assert.equal(outcome.failedItems, 5);
    assert.equal(outcome.batches, 4);
    assert.equal(outcome.error, first);
    assert.deepEqual(outcome.errors, [first, second]);
    outcome.errors.pop();
    assert.equal(ticketOutcome(ticket).errors.length, 2, 'the outcome holds a copy');
  });
});
