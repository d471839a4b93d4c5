'use strict';
const assert = require('node:assert/strict');
const { checkEvent, kindOf, formatPath } = require('../../../dist/lib/events/schemas');
const ev = require('../../fixtures/events');

const clone = (v) => JSON.parse(JSON.stringify(v));
const paths = (result) => result.errors.map((e) => e.path);

describe('lib/events/schemas', () => {
  it('accepts face and LPR events with every field of the spec', () => {
    for (const event of [ev.fullFace(), ev.fullLpr()]) {
      const result = checkEvent(event);
      assert.equal(result.ok, true, JSON.stringify(result.errors));
      assert.equal(result.event, event, 'the event is the object passed in, not a copy');
    }
  });

  it('accepts events with only the required fields', () => {
    assert.equal(checkEvent(ev.minimalFace()).ok, true);
    assert.equal(checkEvent(ev.minimalLpr()).ok, true);
  });

  it('accepts null in every optional field', () => {
    const face = checkEvent(ev.nullsFace());
    const lpr = checkEvent(ev.nullsLpr());
    assert.equal(face.ok, true, JSON.stringify(face.errors));
    assert.equal(lpr.ok, true, JSON.stringify(lpr.errors));
  });

  it('keeps unknown extra properties at every level', () => {
    const event = ev.fullLpr({ futureEnvelopeField: { a: 1 } });
    event.payload.lprPlateInfo.direction = 2;
    event.payload.detectionImages[0].width = 640;
    const result = checkEvent(event);
    assert.equal(result.ok, true);
    assert.deepEqual(result.event.futureEnvelopeField, { a: 1 });
    assert.equal(result.event.payload.lprPlateInfo.direction, 2);
    assert.equal(result.event.payload.detectionImages[0].width, 640);
  });

  it('tells the kinds apart by publishType', () => {
    assert.equal(kindOf(ev.fullFace()), 'face');
    assert.equal(kindOf(ev.fullLpr()), 'lpr');
    const result = checkEvent({ ...ev.minimalLpr(), publishType: 'WebHookSomethingElse' });
    assert.equal(result.ok, false);
    assert.deepEqual(paths(result), ['publishType']);
  });

  it('requires every R field', () => {
    const face = ev.minimalFace();
    delete face.sourceName;
    delete face.payload.personInfo.faceId;
    delete face.payload.detectionInfo.detectId;
    delete face.payload.resentEvent;
    const result = checkEvent(face);
    assert.equal(result.ok, false);
    assert.deepEqual(paths(result).sort(), ['payload.detectionInfo.detectId', 'payload.personInfo.faceId', 'payload.resentEvent', 'sourceName']);

    const lpr = ev.minimalLpr();
    lpr.payload.lprPlateInfo.plate = null;
    lpr.payload.detectionInfo.detectorName = null;
    assert.deepEqual(paths(checkEvent(lpr)).sort(), ['payload.detectionInfo.detectorName', 'payload.lprPlateInfo.plate']);
  });

  it('checks confidence is a fraction from 0 to 1', () => {
    for (const [confidence, ok] of [
      [0, true],
      [1, true],
      [0.5, true],
      [93, false],
      [-0.1, false],
      ['0.9', false],
    ]) {
      const face = ev.minimalFace();
      face.payload.detectionInfo.confidence = confidence;
      assert.equal(checkEvent(face).ok, ok, `confidence ${confidence}`);
    }
  });

  it('checks timestamps are ISO 8601', () => {
    for (const [value, ok] of [
      ['2026-11-21T18:04:05Z', true],
      ['2026-11-21T18:04:05.1234567Z', true],
      ['2026-11-21T18:04:05+02:00', true],
      ['2026-11-21T18:04:05', true],
      ['21/11/2026 18:04', false],
      ['yesterday', false],
    ]) {
      const face = ev.minimalFace();
      face.payload.detectionInfo.dateTimeUtc = value;
      assert.equal(checkEvent(face).ok, ok, value);
    }
    const tagged = ev.fullFace();
    tagged.payload.personInfo.tags[0].expires = 'never';
    assert.deepEqual(paths(checkEvent(tagged)), ['payload.personInfo.tags[0].expires']);
  });

  it('allows only the five crop size names', () => {
    const lpr = ev.fullLpr();
    lpr.payload.detectionImages[2].cropSizeName = 'Tiny';
    lpr.payload.detectionImages[3].cropSizeName = 'close';
    assert.deepEqual(paths(checkEvent(lpr)), ['payload.detectionImages[2].cropSizeName', 'payload.detectionImages[3].cropSizeName']);
    const noName = ev.fullLpr();
    delete noName.payload.detectionImages[0].cropSizeName;
    assert.deepEqual(paths(checkEvent(noName)), ['payload.detectionImages[0].cropSizeName']);
  });

  it('requires exactly one typed value in a TypedField', () => {
    const none = ev.fullFace();
    none.payload.personInfo.fields[0] = { fieldName: 'Empty', stringValue: null, dateValue: null, numberValue: null, boolValue: null };
    const two = ev.fullLpr();
    two.payload.lprPlateInfo.fields[1] = { fieldName: 'Both', stringValue: 'x', boolValue: true };
    const r1 = checkEvent(none);
    const r2 = checkEvent(two);
    assert.deepEqual(paths(r1), ['payload.personInfo.fields[0]']);
    assert.deepEqual(paths(r2), ['payload.lprPlateInfo.fields[1]']);
    assert.match(r2.errors[0].message, /stringValue, boolValue/);
    const absent = ev.minimalFace();
    absent.payload.personInfo.fields = [{ fieldName: 'OnlyNumber', numberValue: 0 }];
    assert.equal(checkEvent(absent).ok, true, 'other typed properties may be absent; 0 is a value');
    const falsy = ev.minimalFace();
    falsy.payload.personInfo.fields = [{ fieldName: 'Flag', boolValue: false }];
    assert.equal(checkEvent(falsy).ok, true, 'false is a value');
  });

  it('uses fieldName/fieldValue at the top level, typed values inside', () => {
    const wrongTop = ev.fullFace();
    wrongTop.fields = [{ fieldName: 'TenantID', stringValue: 'X' }];
    assert.deepEqual(paths(checkEvent(wrongTop)), ['fields[0].fieldValue']);
  });

  it('checks tags, notes, visits and prints', () => {
    const face = ev.fullFace();
    face.payload.personInfo.tags.push({ expires: null });
    face.payload.personInfo.notes.push({ noteTitle: 'only a title' });
    face.payload.detectionHistory.visitHistory.push({ dateTimeUtc: '2026-11-21T10:00:00Z' });
    face.payload.detectionHistory.printHistory.push({ printerName: 'P' });
    assert.deepEqual(paths(checkEvent(face)), [
      'payload.personInfo.tags[2].tagName',
      'payload.personInfo.notes[1].noteBody',
      'payload.detectionHistory.visitHistory[2].detectorName',
      'payload.detectionHistory.printHistory[1].dateTimeUtc',
    ]);
  });

  it('requires serverContext values to be strings', () => {
    const face = ev.fullFace();
    face.serverContext.SiteId = 7;
    assert.deepEqual(paths(checkEvent(face)), ['serverContext.SiteId']);
  });

  it('requires resentEvent to be a boolean and messageId a string', () => {
    const lpr = ev.minimalLpr();
    lpr.payload.resentEvent = 'true';
    lpr.payload.messageId = 42;
    assert.deepEqual(paths(checkEvent(lpr)).sort(), ['payload.messageId', 'payload.resentEvent']);
  });

  it('reports every failure, not only the first', () => {
    const result = checkEvent({ publishType: 'WebHookLprPayload', payload: {} });
    assert.equal(result.ok, false);
    assert.deepEqual(paths(result).sort(), ['payload.detectionInfo', 'payload.lprPlateInfo', 'payload.resentEvent', 'sourceName']);
  });

  it('rejects non-objects', () => {
    for (const value of [null, 42, 'event', [], [ev.fullFace()]]) assert.equal(checkEvent(value).ok, false);
  });

  it('formats paths with dots and indexes', () => {
    assert.equal(formatPath(['payload', 'detectionImages', 2, 'cropSizeName']), 'payload.detectionImages[2].cropSizeName');
    assert.equal(formatPath([]), '(root)');
    assert.equal(formatPath([0, 'a']), '[0].a');
  });

  it('does not modify the event it checks', () => {
    const event = ev.fullLpr();
    const before = clone(event);
    checkEvent(event);
    assert.deepEqual(event, before);
  });
});
