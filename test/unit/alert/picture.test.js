'use strict';
/** lib/alert/picture.ts: the first picked picture, decoded; none and unreadable are reasons, not errors. */
const assert = require('node:assert/strict');
const { alertPicture } = require('../../../dist/lib/alert');
const { DEFAULT_PICK_OPTIONS } = require('../../../dist/lib/image');
const ev = require('../../fixtures/events');

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7]);

describe('alert picture', function () {
  it('a plate: the first crop in the order asked for, decoded, with its file name and type', () => {
    const event = ev.fullLpr();
    event.payload.detectionImages = [
      { cropSizeName: 'FullFrame', image: PNG.toString('base64') },
      { cropSizeName: 'Close', image: JPEG.toString('base64') },
    ];
    const found = alertPicture(event, { ...DEFAULT_PICK_OPTIONS, plateMode: 'all' });
    assert.equal(found.ok, true);
    assert.deepEqual(found.picture.data, JPEG);
    assert.equal(found.picture.contentType, 'image/jpeg');
    assert.equal(found.picture.filename, 'lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_Close.jpg');
    const full = alertPicture(event, { ...DEFAULT_PICK_OPTIONS, crops: ['FullFrame', 'Close'] });
    assert.deepEqual(full.picture.data, PNG);
    assert.equal(full.picture.contentType, 'image/png');
  });

  it('a face: the chosen image, else the other', () => {
    const event = ev.fullFace();
    event.payload.detectionImage = { image: null };
    event.payload.defaultPhoto = { image: PNG.toString('base64') };
    assert.deepEqual(alertPicture(event, DEFAULT_PICK_OPTIONS).picture.data, PNG);
    assert.deepEqual(alertPicture(event, { ...DEFAULT_PICK_OPTIONS, faceFallback: false }), { ok: false, reason: 'none' });
  });

  it('none in the event, or one that does not decode: a reason with the path', () => {
    const event = ev.fullLpr();
    event.payload.detectionImages = [];
    assert.deepEqual(alertPicture(event, DEFAULT_PICK_OPTIONS), { ok: false, reason: 'none' });
    event.payload.detectionImages = [{ cropSizeName: 'Close', image: 'not base64!' }];
    assert.deepEqual(alertPicture(event, DEFAULT_PICK_OPTIONS), { ok: false, reason: 'unreadable', path: 'payload.detectionImages[0].image' });
  });
});
