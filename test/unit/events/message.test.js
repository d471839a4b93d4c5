'use strict';
/**
 * lib/events/message.ts: the message contract, built in one function for
 * detection-in and detection-sample.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT } = require('../../support');
const ev = require('../../fixtures/events');

const { eventMessage, invalidEventMessage } = require(path.join(ROOT, 'dist', 'lib', 'events', 'message'));
const { detectionView } = require(path.join(ROOT, 'dist', 'lib', 'events', 'detection-view'));

const RECEIVED_AT = '2026-11-21T18:04:06.000Z';

describe('lib/events/message (the message contract)', function () {
  it('a face event: payload as parsed, topic, kind, messageId, resent, receivedAt, detection', function () {
    const event = ev.fullFace();
    const msg = eventMessage(event, 'face', { receivedAt: RECEIVED_AT });
    assert.equal(msg.payload, event, 'the event itself, not a copy');
    assert.deepEqual(Object.keys(msg).sort(), ['detection', 'kind', 'messageId', 'payload', 'receivedAt', 'resent', 'topic']);
    assert.equal(msg.topic, 'WebHookFaceRecPayload');
    assert.equal(msg.kind, 'face');
    assert.equal(msg.messageId, 'msg-face-0001');
    assert.equal(msg.resent, false);
    assert.equal(msg.receivedAt, RECEIVED_AT);
    assert.deepEqual(msg.detection, detectionView(event, 'face', Date.parse(RECEIVED_AT)));
    assert.equal(msg.req, undefined, 'no request: no req (a sample)');
  });

  it('a plate event sent again, received over HTTP: resent and req', function () {
    const event = ev.fullLpr({ payload: { ...ev.fullLpr().payload, resentEvent: true } });
    const req = { ip: '127.0.0.1', headers: { 'x-request-id': 'r-1' } };
    const msg = eventMessage(event, 'lpr', { receivedAt: RECEIVED_AT, req });
    assert.equal(msg.topic, 'WebHookLprPayload');
    assert.equal(msg.kind, 'lpr');
    assert.equal(msg.messageId, 'msg-lpr-0001');
    assert.equal(msg.resent, true);
    assert.equal(msg.req, req);
    assert.equal(msg.detection.plate, msg.payload.payload.lprPlateInfo.plate);
  });

  it('messageId and resent are the event’s own values: null becomes undefined, nothing else is coerced', function () {
    const nulls = ev.nullsFace();
    assert.equal(nulls.payload.messageId, null);
    assert.equal(eventMessage(nulls, 'face', { receivedAt: RECEIVED_AT }).messageId, undefined);

    // What a lenient receiver lets through with a warning reaches the flow as sent.
    const deviating = ev.fullFace();
    deviating.payload.messageId = 42;
    delete deviating.payload.resentEvent;
    const msg = eventMessage(deviating, 'face', { receivedAt: RECEIVED_AT });
    assert.equal(msg.messageId, 42);
    assert.equal(msg.resent, undefined);
    assert.equal(msg.detection.messageId, null, 'the typed view reads only text');
    assert.equal(msg.detection.resent, false);
  });

  it('never throws on a body that is no event object', function () {
    for (const value of [null, 'text', 7, [], { payload: null }, { publishType: 5, payload: 'x' }]) {
      const msg = eventMessage(value, 'face', { receivedAt: RECEIVED_AT });
      assert.equal(msg.payload, value);
      assert.equal(msg.topic, undefined);
      assert.equal(msg.messageId, undefined);
      assert.equal(msg.resent, undefined);
      assert.equal(msg.detection.kind, 'face');
    }
  });

  it('an invalid body: payload, topic when it is text, errors, receivedAt, req', function () {
    const errors = [{ path: 'payload', message: 'Required' }];
    const req = { ip: '127.0.0.1', headers: {} };
    const body = { publishType: 'WebHookFaceRecPayload' };
    const msg = invalidEventMessage(body, errors, { receivedAt: RECEIVED_AT, req });
    assert.deepEqual(msg, { payload: body, topic: 'WebHookFaceRecPayload', errors, receivedAt: RECEIVED_AT, req });
    assert.equal(invalidEventMessage({ publishType: 3 }, errors, { receivedAt: RECEIVED_AT }).topic, undefined);
  });
});
