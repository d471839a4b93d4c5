'use strict';
const assert = require('node:assert/strict');
const { eventHash } = require('../../../dist/lib/events/event-hash');
const ev = require('../../fixtures/events');

describe('lib/events/event-hash', () => {
  it('is stable across key order and ignores resentEvent', () => {
    const a = ev.fullLpr();
    delete a.payload.messageId;
    const b = JSON.parse(JSON.stringify(a));
    b.payload.resentEvent = true;
    const reordered = Object.fromEntries(Object.entries(b).reverse());
    reordered.payload = Object.fromEntries(Object.entries(b.payload).reverse());
    assert.equal(eventHash(a), eventHash(reordered));
  });

  it('changes with any other content', () => {
    const a = ev.fullLpr();
    const base = eventHash(a);
    const plate = ev.fullLpr();
    plate.payload.lprPlateInfo.plate = 'XYZ988';
    const image = ev.fullLpr();
    image.payload.detectionImages[0].image += 'A';
    const typed = ev.fullLpr();
    typed.payload.lprPlateInfo.fields[1].boolValue = 'true';
    const moved = ev.fullLpr();
    moved.sourceName = 'eConnect Site 1 LP';
    moved.externalId = 'R98765';
    for (const other of [plate, image, typed, moved]) assert.notEqual(eventHash(other), base);
    assert.notEqual(eventHash({ a: 'bc' }), eventHash({ ab: 'c' }), 'unambiguous encoding');
    assert.notEqual(eventHash({ a: [1, 2] }), eventHash({ a: ['1', '2'] }));
    assert.notEqual(eventHash(null), eventHash({}));
  });

  it('hashes a 1 MB event', () => {
    const big = ev.bigLpr(1024 * 1024);
    assert.equal(eventHash(big), eventHash(JSON.parse(JSON.stringify(big))));
    assert.match(eventHash(big), /^[A-Za-z0-9_-]{43}$/);
  });
});
