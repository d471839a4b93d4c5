'use strict';
const assert = require('node:assert/strict');
const { routeOf, routeSlots, ROUTES } = require('../../../dist/lib/events/publish-route');
const ev = require('../../fixtures/events');

describe('lib/events/publish-route', () => {
  it('routes face and plate events by publishType', () => {
    assert.equal(routeOf(ev.fullFace()), 'face');
    assert.equal(routeOf(ev.minimalFace()), 'face');
    assert.equal(routeOf(ev.fullLpr()), 'plate');
    assert.equal(routeOf(ev.nullsLpr()), 'plate');
  });

  it('takes the publishType string itself (msg.topic of detection-in)', () => {
    assert.equal(routeOf('WebHookFaceRecPayload'), 'face');
    assert.equal(routeOf('WebHookLprPayload'), 'plate');
    assert.equal(routeOf('webhooklprpayload'), 'other', 'exact match only');
  });

  it('sends everything else to other', () => {
    for (const value of [
      undefined,
      null,
      0,
      true,
      '',
      'WebHookPosPayload',
      {},
      [],
      { publishType: 'Other' },
      { publishType: 42 },
      { payload: ev.fullLpr() },
    ]) {
      assert.equal(routeOf(value), 'other', JSON.stringify(value));
    }
  });

  it('puts the message itself, not a copy, in the slot of its route', () => {
    const msg = { payload: ev.fullLpr() };
    const expected = { face: [msg, null, null], plate: [null, msg, null], other: [null, null, msg] };
    for (const route of ROUTES) {
      const slots = routeSlots(msg, route, true);
      assert.deepEqual(slots, expected[route]);
      assert.equal(
        slots.find((s) => s !== null),
        msg,
        'same object',
      );
    }
  });

  it('has two slots and drops other when the third output is off', () => {
    const msg = {};
    assert.deepEqual(routeSlots(msg, 'face', false), [msg, null]);
    assert.deepEqual(routeSlots(msg, 'plate', false), [null, msg]);
    assert.equal(routeSlots(msg, 'other', false), null);
  });
});
