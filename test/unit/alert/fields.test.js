'use strict';
/** lib/alert/fields.ts: the fields of an event's view; urgent. */
const assert = require('node:assert/strict');
const { alertValues, alertTags, isUrgent } = require('../../../dist/lib/alert');
const { viewOfEvent } = require('../../../dist/lib/events/detection-view');
const ev = require('../../fixtures/events');

describe('alert fields', function () {
  it('a plate: plate, vehicle, camera, site, local time with zone, tags without the prefix, ids', () => {
    const event = ev.fullLpr();
    event.payload.lprPlateInfo.tags = [{ tagName: 'acme-VIP' }, { tagName: 'acme-Banned' }, { tagName: 'old', expires: '2020-01-01T00:00:00Z' }];
    const values = alertValues(viewOfEvent(event), { tagPrefix: 'acme', why: ' plate XYZ987 on the list ', kindName: 'Kennzeichen' });
    assert.deepEqual(values, {
      plate: 'XYZ987',
      person: '',
      camera: 'Car Park Gate 2',
      site: 'eConnect Site 1 LPR',
      time: '2026-11-21 13:04:05 America/New_York',
      tags: 'VIP, Banned',
      why: 'plate XYZ987 on the list',
      confidence: '',
      vehicle: 'Toyota Camry Blue',
      kind: 'Kennzeichen',
      externalId: '98765',
      messageId: 'msg-lpr-0001',
    });
  });

  it('a face: full name, confidence in percent, no plate or vehicle; a missing part is empty', () => {
    const event = ev.fullFace();
    delete event.payload.lprPlateInfo;
    const values = alertValues(viewOfEvent(event), { tagPrefix: '', why: { not: 'text' }, kindName: 'face' });
    assert.equal(values.person, 'John Michael Doe');
    assert.equal(values.confidence, '93%');
    assert.equal(values.plate, '');
    assert.equal(values.vehicle, '');
    assert.equal(values.why, '', 'no text: no why');
    assert.equal(values.tags, 'acme-Banned', 'no prefix: as written; the expired tag is not shown');
    assert.equal(values.time, '2026-11-21 10:04:05 America/Los_Angeles');
    const bare = ev.fullLpr();
    bare.payload.lprPlateInfo = { plate: 'A1', vehicleMake: 'Ford' };
    delete bare.payload.detectionInfo.dateTimeUtc;
    const b = alertValues(viewOfEvent(bare), { tagPrefix: '', kindName: 'plate' });
    assert.equal(b.vehicle, 'Ford');
    assert.equal(b.time, '');
    assert.deepEqual(alertTags(viewOfEvent(ev.fullFace()), 'acme'), ['Banned']);
  });

  it('urgent: msg.priority urgent or high, any case', () => {
    for (const p of ['urgent', 'HIGH', ' High ', 'Urgent']) assert.equal(isUrgent(p), true, p);
    for (const p of ['low', 'normal', '', undefined, 1, null, 'highest']) assert.equal(isUrgent(p), false, String(p));
  });
});
