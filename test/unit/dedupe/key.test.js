'use strict';
const assert = require('node:assert/strict');
const { choiceKey, KEY_CHOICES, plateRead, isLookalikeRead } = require('../../../dist/lib/dedupe/key');
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
    assert.deepEqual(KEY_CHOICES, ['plateAtCamera', 'plate', 'plateLookalikeAtCamera', 'plateLookalike', 'person', 'camera', 'messageId']);
    assert.deepEqual(
      KEY_CHOICES.map((c) => choiceKey(c, lpr())),
      // XYZ987: Z and 2 look alike, so folded it reads XY2987
      ['XYZ987 @ Gate 2', 'XYZ987', 'XY2987 @ Gate 2', 'XY2987', undefined, 'Gate 2', 'm-1'],
    );
    assert.deepEqual(
      KEY_CHOICES.map((c) => choiceKey(c, face())),
      ['face-7 @ Entrance Cam 3', undefined, 'face-7 @ Entrance Cam 3', undefined, 'face-7', 'Entrance Cam 3', face().payload.messageId],
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

  it('plate, look-alikes as one: a misread of a plate is the same key, another plate is not', () => {
    const read = (plate, camera = 'Gate 2') => {
      const e = lpr();
      e.payload.lprPlateInfo.plate = plate;
      e.payload.detectionInfo.detectorName = camera;
      return e;
    };
    // each default class (0ODQ 1I 2Z 5S 8B 6G), both ways, with spaces, dashes and lower case as read
    for (const [a, b] of [
      ['8OB123', '80B123'],
      ['8OB123', 'BOB123'],
      ['D0Q-771', '00O 771'],
      ['AB1', 'A8I'],
      ['Z5', '2S'],
      ['GG6', '666'],
      ['xyz 987', 'XY2-987'],
    ]) {
      assert.equal(choiceKey('plateLookalike', read(a)), choiceKey('plateLookalike', read(b)), `${a} = ${b}`);
      assert.equal(choiceKey('plateLookalikeAtCamera', read(a)), choiceKey('plateLookalikeAtCamera', read(b)), `${a} = ${b} at a camera`);
      assert.notEqual(choiceKey('plate', read(a)), choiceKey('plate', read(b)), `${a} and ${b} differ as plates`);
    }
    assert.equal(choiceKey('plateLookalike', read('8OB123')), '808123');
    assert.notEqual(choiceKey('plateLookalike', read('8OB123')), choiceKey('plateLookalike', read('8OB124')), 'another character is another plate');
    assert.notEqual(choiceKey('plateLookalike', read('8OB123')), choiceKey('plateLookalike', read('8OB1234')), 'a character more is another plate');
    assert.notEqual(
      choiceKey('plateLookalikeAtCamera', read('8OB123', 'Gate 1')),
      choiceKey('plateLookalikeAtCamera', read('80B123', 'Gate 2')),
      'at another camera: another key',
    );
    assert.equal(choiceKey('plateLookalike', read(' - ')), undefined, 'a plate of spaces and dashes only is no key');
  });

  it('gives the plate as read only for the keys that fold look-alikes, and only for plate events', () => {
    assert.deepEqual(
      KEY_CHOICES.map((c) => plateRead(c, lpr())),
      [undefined, undefined, 'XYZ987', 'XYZ987', undefined, undefined, undefined],
    );
    assert.deepEqual(
      KEY_CHOICES.map((c) => plateRead(c, face())),
      KEY_CHOICES.map(() => undefined),
    );
    assert.equal(plateRead('plateLookalike', {}), undefined);
  });

  it('tells a look-alike reading from the same plate written otherwise', () => {
    assert.equal(isLookalikeRead('ABC123', 'A8C123'), true);
    assert.equal(isLookalikeRead('8OB123', '80B123'), true);
    assert.equal(isLookalikeRead('ABC123', 'ABC123'), false);
    assert.equal(isLookalikeRead('ABC 123', 'abc-123'), false, 'spaces, dashes and case alone are no look-alike');
  });
});
