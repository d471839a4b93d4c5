'use strict';
const assert = require('node:assert/strict');
const { choiceKey, KEY_CHOICES } = require('../../../dist/lib/dedupe/key');
const ev = require('../../fixtures/events');

describe('lib/dedupe/key: keys picked by name', () => {
  const lpr = () => {
    const e = ev.fullLpr();
    e.payload.lprPlateInfo.plate = 'XYZ987';
    e.payload.detectionInfo.detectorName = 'Gate 2';
    e.payload.messageId = 'm-1';
    return e;
  };
  const face = () => {
    const e = ev.fullFace();
    e.payload.personInfo.faceId = 'face-7';
    e.payload.detectionInfo.detectorName = 'Entrance Cam 3';
    return e;
  };

  it('makes the keys the list offers, from a plate event and from a face event', () => {
    assert.deepEqual(KEY_CHOICES, ['plateAtCamera', 'plate', 'person', 'camera', 'messageId']);
    assert.deepEqual(
      KEY_CHOICES.map((c) => choiceKey(c, lpr())),
      ['XYZ987 @ Gate 2', 'XYZ987', undefined, 'Gate 2', 'm-1'],
    );
    assert.deepEqual(
      KEY_CHOICES.map((c) => choiceKey(c, face())),
      ['face-7 @ Entrance Cam 3', undefined, 'face-7', 'Entrance Cam 3', face().payload.messageId],
    );
  });

  it('makes the keys the old default cooldown expression made (saved windows keep matching)', () => {
    const jsonata = require('jsonata');
    const old = jsonata(
      '($p := payload.payload; ($p.lprPlateInfo.plate ? $p.lprPlateInfo.plate : $p.personInfo.faceId) & " @ " & $p.detectionInfo.detectorName)',
    );
    return Promise.all([lpr(), face()].map(async (e) => assert.equal(choiceKey('plateAtCamera', e), await old.evaluate({ payload: e }))));
  });

  it('has no key where the event lacks what the choice needs', () => {
    const e = lpr();
    delete e.payload.detectionInfo.detectorName;
    assert.equal(choiceKey('plateAtCamera', e), undefined);
    assert.equal(choiceKey('plate', e), 'XYZ987');
    for (const c of KEY_CHOICES) {
      assert.equal(choiceKey(c, undefined), undefined, c);
      assert.equal(choiceKey(c, 'text'), undefined, c);
      assert.equal(choiceKey(c, { payload: { lprPlateInfo: { plate: '' }, messageId: null } }), undefined, c);
    }
  });
});
