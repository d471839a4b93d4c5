'use strict';
/** lib/events/filter-time: when detection filter's time rules judge an event, and in which zone. */
const assert = require('node:assert/strict');
const { detectionTime, inside } = require('../../../dist/lib/events/filter-time');
const { parseWindows } = require('../../../dist/lib/events/time-window');

const event = (detectionInfo) => ({ payload: { detectionInfo } });
const NOW = Date.parse('2026-12-03T12:00:00Z');

describe('lib/events/filter-time', () => {
  it("the event's detection time and its own zone when it has them, else the time handled", () => {
    assert.deepEqual(detectionTime(event({ dateTimeUtc: '2026-12-01T23:30:00Z', timeZone: 'Europe/Berlin' }), NOW), {
      millis: Date.parse('2026-12-01T23:30:00Z'),
      fromEvent: true,
      zone: 'Europe/Berlin',
    });
    assert.deepEqual(detectionTime(event({ dateTimeUtc: 'yesterday', timeZone: 'Mars/Base' }), NOW), { millis: NOW, fromEvent: false, zone: null });
    assert.deepEqual(detectionTime(undefined, NOW), { millis: NOW, fromEvent: false, zone: null });
  });

  it("judged in the event's zone, else the node's; without a detection time, in the view's", () => {
    const night = parseWindows('22:00-06:00');
    assert.ok(night.ok);
    const at = (iso, zone) => ({ millis: Date.parse(iso), fromEvent: true, zone });
    // 23:30 UTC is 00:30 in Berlin and 18:30 in New York
    assert.equal(inside(night.windows, {}, at('2026-12-01T23:30:00Z', null), 'Europe/Berlin'), true);
    assert.equal(inside(night.windows, {}, at('2026-12-01T23:30:00Z', 'America/New_York'), 'Europe/Berlin'), false, "the event's own zone first");
    const view = { time: '2026-12-01T23:30:00Z', timeZone: 'UTC' };
    assert.equal(inside(night.windows, view, undefined, 'America/New_York'), false, 'a view in UTC: the node zone');
  });
});
