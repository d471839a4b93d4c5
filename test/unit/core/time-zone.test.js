'use strict';
const assert = require('node:assert/strict');
const { isTimeZone, knownTimeZone, systemTimeZone, wallClock, zoneOffset } = require('../../../dist/lib/core/time-zone');

const HOUR = 3_600_000;

describe('lib/core/time-zone', () => {
  it('knows the zones Intl knows, by the name Intl writes', () => {
    assert.equal(knownTimeZone(' europe/berlin '), 'Europe/Berlin');
    assert.equal(knownTimeZone('Mars/Base'), undefined);
    assert.equal(knownTimeZone(''), undefined);
    assert.equal(knownTimeZone(42), undefined);
    assert.ok(isTimeZone('America/New_York'));
    assert.ok(!isTimeZone('Berlin'));
    assert.ok(isTimeZone(systemTimeZone()));
  });

  it('offsets follow daylight saving on both sides of a change, quarter hour by quarter hour', () => {
    // Berlin goes from +1 h to +2 h at 01:00 UTC on 29 March 2026
    const change = Date.parse('2026-03-29T01:00:00Z');
    assert.equal(zoneOffset(change - 1, 'Europe/Berlin'), HOUR);
    assert.equal(zoneOffset(change, 'Europe/Berlin'), 2 * HOUR);
    assert.equal(zoneOffset(change - 1, 'Europe/Berlin'), HOUR, 'read again from the cache: the same');
    // New York from -4 h back to -5 h at 06:00 UTC on 1 November 2026
    const back = Date.parse('2026-11-01T06:00:00Z');
    assert.equal(zoneOffset(back - 1, 'America/New_York'), -4 * HOUR);
    assert.equal(zoneOffset(back, 'America/New_York'), -5 * HOUR);
    assert.equal(zoneOffset(Date.parse('2026-07-01T00:00:00Z'), 'Asia/Kolkata'), 5.5 * HOUR);
    assert.equal(zoneOffset(change, 'Mars/Base'), null);
    assert.equal(zoneOffset(NaN, 'Europe/Berlin'), null);
  });

  it('gives the wall clock as a Date whose UTC fields are the local ones', () => {
    const wall = wallClock(Date.parse('2026-07-01T23:30:00Z'), 'Asia/Tokyo');
    assert.equal(wall.toISOString(), '2026-07-02T08:30:00.000Z');
    assert.equal(wallClock(Date.parse('2026-07-01T23:30:12.345Z'), 'UTC').toISOString(), '2026-07-01T23:30:12.345Z');
    assert.equal(wallClock(0, 'Mars/Base'), null);
  });
});
