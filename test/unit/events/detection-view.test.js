'use strict';
/**
 * lib/events/detection-view.ts: msg.detection, the flat view of an event.
 * Events from test/fixtures (written from the spec's tables).
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT } = require('../../support');
const ev = require('../../fixtures/events');

const { detectionView, viewOfEvent, validTagNames, localTimeIn } = require(path.join(ROOT, 'dist', 'lib', 'events', 'detection-view'));

describe('lib/events/detection-view (msg.detection)', function () {
  it('a full face event: every field where the field reference says', function () {
    const event = ev.fullFace();
    event.payload.personInfo.tags[0].expires = '2030-01-01T00:00:00Z';
    assert.deepEqual(detectionView(event, 'face'), {
      kind: 'face',
      site: 'eConnect Site 1 FR',
      camera: 'Entrance Cam 3',
      time: '2026-11-21T18:04:05.123Z',
      localTime: '2026-11-21 10:04:05',
      timeZone: 'America/Los_Angeles',
      externalId: '12345',
      enrolled: true,
      serverContext: { SiteId: 'S-01', PropertyName: 'Riverside Casino', Region: 'West', TenantId: 'T-9' },
      messageId: 'msg-face-0001',
      resent: false,
      tags: ['acme-VIP', 'acme-Banned'],
      confidence: 0.93,
      faceId: 'abc12345',
      firstName: 'John',
      lastName: 'Doe',
      fullName: 'John Michael Doe',
    });
  });

  it('a full plate event: plate, similar1Plate and the vehicle; no confidence', function () {
    const event = ev.fullLpr({ payload: { ...ev.fullLpr().payload, resentEvent: true } });
    event.payload.lprPlateInfo.similar1Plate = 'XYZ9B7';
    assert.deepEqual(detectionView(event, 'lpr'), {
      kind: 'lpr',
      site: 'eConnect Site 1 LPR',
      camera: 'Car Park Gate 2',
      time: '2026-11-21T18:04:05.000Z',
      localTime: '2026-11-21 13:04:05',
      timeZone: 'America/New_York',
      externalId: '98765',
      enrolled: true,
      serverContext: { SiteId: 'S-02', Region: 'East' },
      messageId: 'msg-lpr-0001',
      resent: true,
      tags: [],
      confidence: null,
      plate: 'XYZ987',
      similar1Plate: 'XYZ9B7',
      vehicleMake: 'Toyota',
      vehicleModel: 'Camry',
      vehicleColor: 'Blue',
      vehicleState: 'CA',
    });
  });

  it('the serverContext is the event’s own object, not a copy', function () {
    const event = ev.fullLpr();
    assert.equal(detectionView(event, 'lpr').serverContext, event.serverContext);
  });

  describe('tags valid at the detection time', function () {
    const at = Date.parse('2026-11-21T18:04:05Z');
    it('a tag past its expires does not count; one without expires, or expiring later, does', function () {
      const tags = [
        { tagName: 'expired', expires: '2026-11-21T18:04:04Z' },
        { tagName: 'later', expires: '2026-11-21T18:04:06Z' },
        { tagName: 'never', expires: null },
        { tagName: 'absent' },
      ];
      assert.deepEqual(validTagNames(tags, at), ['later', 'never', 'absent']);
    });
    it('checks against the detection time, not the clock: a tag valid then counts even if expired now', function () {
      const event = ev.fullFace(); // acme-VIP expired 2024-12-31, detected 2026: out; acme-Banned has no expiry
      assert.deepEqual(detectionView(event, 'face').tags, ['acme-Banned']);
      event.payload.detectionInfo.dateTimeUtc = '2024-06-01T00:00:00Z';
      assert.deepEqual(detectionView(event, 'face').tags, ['acme-VIP', 'acme-Banned']);
    });
    it('.NET dates: an expires without zone or time is read as UTC', function () {
      assert.deepEqual(validTagNames([{ tagName: 'day', expires: '2026-11-21' }], at), [], 'midnight UTC on the 21st is before 18:04');
      assert.deepEqual(validTagNames([{ tagName: 'day', expires: '2026-11-22' }], at), ['day']);
      assert.deepEqual(validTagNames([{ tagName: 'ticks', expires: '2026-11-21T18:04:05.1234567' }], at), ['ticks']);
    });
    it('an unreadable expires keeps the tag (a typo does not silence an alert); entries without a name are skipped', function () {
      assert.deepEqual(validTagNames([{ tagName: 'odd', expires: 'soon' }, { expires: null }, { tagName: '' }, null, 'VIP'], at), ['odd']);
    });
    it("names as the event spells them: the account's prefix is kept (tag rules take it off, not the view)", function () {
      const tags = [{ tagName: 'partner-Banned', expires: null }, { tagName: 'VIP' }];
      assert.deepEqual(validTagNames(tags, at), ['partner-Banned', 'VIP']);
      const event = ev.fullFace();
      event.payload.personInfo.tags = tags;
      assert.deepEqual(detectionView(event, 'face').tags, ['partner-Banned', 'VIP']);
    });
    it('tags that are not a list give no tags', function () {
      assert.deepEqual(validTagNames({ tagName: 'VIP' }, at), []);
      assert.deepEqual(validTagNames(null, at), []);
    });
    it('an event whose time cannot be read checks tags against the time given (receipt)', function () {
      const event = ev.fullFace();
      event.payload.detectionInfo.dateTimeUtc = 'yesterday';
      assert.deepEqual(detectionView(event, 'face', Date.parse('2024-06-01T00:00:00Z')).tags, ['acme-VIP', 'acme-Banned']);
      assert.deepEqual(detectionView(event, 'face', Date.parse('2026-06-01T00:00:00Z')).tags, ['acme-Banned']);
    });
  });

  describe('time zones', function () {
    const utc = Date.parse('2026-07-01T12:00:00Z');
    it('renders the local time in the event’s zone, with daylight saving', function () {
      assert.equal(localTimeIn(utc, 'Europe/Berlin'), '2026-07-01 14:00:00');
      assert.equal(localTimeIn(Date.parse('2026-01-01T12:00:00Z'), 'Europe/Berlin'), '2026-01-01 13:00:00');
      assert.equal(localTimeIn(utc, 'Asia/Kolkata'), '2026-07-01 17:30:00');
      assert.equal(localTimeIn(Date.parse('2026-07-01T23:30:00Z'), 'Asia/Tokyo'), '2026-07-02 08:30:00', 'the next day');
      assert.equal(localTimeIn(Date.parse('2026-07-01T00:00:00Z'), 'America/New_York'), '2026-06-30 20:00:00', 'midnight is 00, not 24');
    });
    it('agrees with Intl through a whole year of daylight-saving changes, half-hour and 45-minute zones included', function () {
      const zones = ['America/New_York', 'America/St_Johns', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham', 'Europe/London'];
      for (const zone of zones) {
        // sv-SE writes YYYY-MM-DD HH:mm:ss
        const intl = new Intl.DateTimeFormat('sv-SE', {
          timeZone: zone,
          hourCycle: 'h23',
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
        });
        for (let t = Date.parse('2026-01-01T00:00:00Z'); t < Date.parse('2027-01-01T00:00:00Z'); t += 37 * 60_000 + 13_001) {
          const expected = intl.format(t);
          if (localTimeIn(t, zone) !== expected) assert.equal(localTimeIn(t, zone), expected, `${zone} at ${new Date(t).toISOString()}`);
        }
      }
    });
    it('no zone, or one not known here: UTC, and timeZone says so', function () {
      for (const zone of [undefined, null, '', 'Mars/Olympus_Mons']) {
        const event = ev.fullLpr();
        event.payload.detectionInfo.timeZone = zone;
        const view = detectionView(event, 'lpr');
        assert.equal(view.timeZone, 'UTC', `zone ${zone}`);
        assert.equal(view.localTime, '2026-11-21 18:04:05', `zone ${zone}`);
      }
    });
    it('a time without zone (.NET Unspecified) is UTC, a time with an offset is converted', function () {
      const face = ev.dotnetDates();
      assert.equal(detectionView(face, 'face').time, '2026-11-21T18:04:05.123Z');
      face.payload.detectionInfo.dateTimeUtc = '2026-11-21T19:04:05+01:00';
      assert.equal(detectionView(face, 'face').time, '2026-11-21T18:04:05.000Z');
      assert.equal(detectionView(face, 'face').localTime, '2026-11-21 10:04:05');
    });
  });

  describe('missing optional fields', function () {
    it('only the required fields: null where the event does not say', function () {
      const face = detectionView(ev.minimalFace(), 'face');
      assert.equal(face.externalId, null);
      assert.equal(face.enrolled, false);
      assert.equal(face.serverContext, null);
      assert.deepEqual(face.tags, []);
      assert.equal(face.messageId, null);
      assert.equal(face.firstName, null);
      assert.equal(face.fullName, null);
      assert.equal(face.faceId, 'f1');
      assert.equal(face.confidence, 0.5);
      assert.equal(face.timeZone, 'UTC');
      const plate = detectionView(ev.nullsLpr(), 'lpr');
      for (const key of [
        'similar1Plate',
        'vehicleMake',
        'vehicleModel',
        'vehicleColor',
        'vehicleState',
        'externalId',
        'messageId',
        'serverContext',
      ]) {
        assert.equal(plate[key], null, key);
      }
      assert.equal(plate.plate, 'ABC123');
    });
    it('a full name from the names there are; an empty externalId is not enrolled', function () {
      const event = ev.minimalFace();
      event.payload.personInfo.lastName = 'Doe';
      event.externalId = '';
      const view = detectionView(event, 'face');
      assert.equal(view.fullName, 'Doe');
      assert.equal(view.enrolled, false);
    });
  });

  describe('events a lenient receiver lets through', function () {
    it('a confidence sent in percent reads as a fraction; nonsense reads as null', function () {
      const event = ev.fullFace();
      event.payload.detectionInfo.confidence = 93;
      assert.equal(detectionView(event, 'face').confidence, 0.93);
      event.payload.detectionInfo.confidence = '0.9';
      assert.equal(detectionView(event, 'face').confidence, null);
      event.payload.detectionInfo.confidence = 250;
      assert.equal(detectionView(event, 'face').confidence, null);
    });
    it('never throws, whatever the shape', function () {
      const shapes = [
        null,
        42,
        'text',
        [],
        { payload: null },
        { payload: { personInfo: 'x', detectionInfo: [] } },
        { payload: { lprPlateInfo: { plate: 7, tags: 'VIP' } } },
      ];
      for (const shape of shapes) {
        for (const kind of ['face', 'lpr']) {
          const view = detectionView(shape, kind);
          assert.equal(view.kind, kind);
          assert.equal(view.camera, null);
          assert.deepEqual(view.tags, []);
        }
      }
    });
  });

  it('viewOfEvent tells the kind by publishType, and is undefined for anything else', function () {
    assert.equal(viewOfEvent(ev.fullFace()).kind, 'face');
    assert.equal(viewOfEvent(ev.fullLpr()).kind, 'lpr');
    assert.equal(viewOfEvent({ publishType: 'WebHookBadgePayload' }), undefined);
    assert.equal(viewOfEvent('WebHookLprPayload'), undefined);
    assert.equal(viewOfEvent(undefined), undefined);
  });
});
