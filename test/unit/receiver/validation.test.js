'use strict';
const assert = require('node:assert/strict');
const { validateEvent } = require('../../../dist/lib/receiver/validation');
const { parseIsoDate, isIsoDate } = require('../../../dist/lib/core/iso-date');
const { createWarningGate, warningPlace } = require('../../../dist/lib/receiver/warning-gate');
const { FakeClock } = require('../../support/fake-clock');
const ev = require('../../fixtures/events');

const paths = (list) => list.map((e) => e.path);

describe('lib/receiver/validation', () => {
  it('lenient: delivers each deviating event as it is, its deviations as warnings', () => {
    for (const { name, event, paths: expected } of ev.deviatingEvents()) {
      const before = JSON.stringify(event);
      const result = validateEvent(event, 'lenient');
      assert.equal(result.ok, true, `${name}: ${JSON.stringify(result.errors)}`);
      assert.equal(result.event, event, `${name}: the object passed in, not a copy`);
      assert.deepEqual(paths(result.warnings), expected, name);
      assert.equal(JSON.stringify(event), before, `${name}: nothing changed or dropped`);
    }
  });

  it('strict and accept: the same deviations are errors', () => {
    for (const mode of ['strict', 'accept']) {
      for (const { name, event, paths: expected } of ev.deviatingEvents()) {
        const result = validateEvent(event, mode);
        assert.equal(result.ok, false, `${mode}, ${name}`);
        assert.deepEqual(paths(result.errors), expected, `${mode}, ${name}`);
      }
    }
  });

  it('lenient: refuses what a flow cannot use, at the place that makes it unusable', () => {
    for (const { name, event, path } of ev.unusableEvents()) {
      const result = validateEvent(event, 'lenient');
      assert.equal(result.ok, false, name);
      assert.ok(paths(result.errors).includes(path), `${name}: ${JSON.stringify(result.errors)}`);
    }
  });

  it('lenient: an unusable event lists its other deviations among the errors too', () => {
    const event = ev.fullFace();
    delete event.payload.personInfo.faceId;
    event.serverContext.Region = null;
    const result = validateEvent(event, 'lenient');
    assert.equal(result.ok, false);
    assert.deepEqual(paths(result.errors).sort(), ['payload.personInfo.faceId', 'serverContext.Region']);
  });

  it('a valid event has no warnings in any mode', () => {
    for (const mode of ['lenient', 'strict', 'accept']) {
      for (const event of [ev.fullFace(), ev.fullLpr(), ev.nullsFace(), ev.nullsLpr()]) {
        const result = validateEvent(event, mode);
        assert.equal(result.ok, true, mode);
        assert.deepEqual(result.warnings, []);
      }
    }
  });

  it('names a property sent in another case, and says the bridge sends camelCase', () => {
    const event = ev.minimalLpr();
    event.PublishType = event.publishType;
    event.Payload = event.payload;
    delete event.publishType;
    delete event.payload;
    const result = validateEvent(event, 'lenient');
    assert.equal(result.ok, false);
    assert.deepEqual(result.wrongCase, [{ path: 'publishType', found: 'PublishType', expected: 'publishType' }]);
    assert.match(result.errors[0].message, /"PublishType" is present in another case: the events bridge sends camelCase names \("publishType"\)/);

    const nested = ev.minimalFace();
    nested.payload.personInfo = { FaceId: 'f1' };
    const inner = validateEvent(nested, 'strict');
    assert.deepEqual(inner.wrongCase, [{ path: 'payload.personInfo.faceId', found: 'FaceId', expected: 'faceId' }]);
  });

  it('no wrong-case note for a property that is simply missing', () => {
    const event = ev.minimalFace();
    delete event.payload.personInfo.faceId;
    const result = validateEvent(event, 'lenient');
    assert.deepEqual(result.wrongCase, []);
    assert.doesNotMatch(result.errors[0].message, /case/);
  });
});

describe('lib/core/iso-date', () => {
  it('reads ISO 8601 the way .NET and others write it', () => {
    for (const [text, iso] of [
      ['2026-11-21T18:04:05Z', '2026-11-21T18:04:05.000Z'],
      ['2026-11-21T18:04:05.1234567Z', '2026-11-21T18:04:05.123Z'],
      ['2026-11-21T18:04:05.1234567', '2026-11-21T18:04:05.123Z'],
      ['2026-11-21T18:04:05', '2026-11-21T18:04:05.000Z'],
      ['2026-11-21T18:04', '2026-11-21T18:04:00.000Z'],
      ['2026-11-21T18:04:05+02:00', '2026-11-21T16:04:05.000Z'],
      ['2026-11-21T18:04:05.5+0200', '2026-11-21T16:04:05.500Z'],
      ['2026-11-21T18:04:05-05', '2026-11-21T23:04:05.000Z'],
      ['2026-11-21 18:04:05Z', '2026-11-21T18:04:05.000Z'],
      ['2024-12-31', '2024-12-31T00:00:00.000Z'],
      ['2024-02-29', '2024-02-29T00:00:00.000Z'],
      ['0001-01-01T00:00:00', '0001-01-01T00:00:00.000Z'],
    ]) {
      assert.equal(new Date(parseIsoDate(text)).toISOString(), iso, text);
    }
  });

  it('refuses what is not a calendar date or not ISO 8601', () => {
    for (const text of [
      '',
      'yesterday',
      '21/11/2026 18:04',
      '2026-13-01',
      '2023-02-29',
      '2026-04-31',
      '2026-11-21T24:00:00Z',
      '2026-11-21T18:60:00Z',
      '2026-11-21T18:04:05+25:00',
      '2026-11-21T18:04:05.Z',
      '2026-11-21Z',
      '/Date(1732212245000)/',
      '2026-11-21T18:04:05Zjunk',
    ]) {
      assert.equal(isIsoDate(text), false, text);
      assert.ok(Number.isNaN(parseIsoDate(text)), text);
    }
  });
});

describe('lib/receiver/warning-gate', () => {
  it('lets a place through once per period, array indexes aside', async () => {
    const clock = new FakeClock(1_000_000);
    const gate = createWarningGate(60_000, clock);
    const w = (path) => ({ path, message: 'm' });
    assert.deepEqual(paths(gate.pass([w('serverContext.Region'), w('payload.detectionImages[1].cropSizeName')])), [
      'serverContext.Region',
      'payload.detectionImages[1].cropSizeName',
    ]);
    await clock.advance(59_999);
    assert.deepEqual(paths(gate.pass([w('serverContext.Region'), w('payload.detectionImages[3].cropSizeName'), w('payload.defaultPhoto.image')])), [
      'payload.defaultPhoto.image',
    ]);
    await clock.advance(1);
    assert.deepEqual(paths(gate.pass([w('serverContext.Region'), w('payload.detectionImages[0].cropSizeName')])), [
      'serverContext.Region',
      'payload.detectionImages[0].cropSizeName',
    ]);
    assert.equal(warningPlace('a[12].b[3]'), 'a[].b[]');
  });
});
