'use strict';
const assert = require('node:assert/strict');
const { validateEvent } = require('../../../dist/lib/receiver/validation');
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
