'use strict';
/** lib/image/filename.ts: the file name of a saved image, from the event's kind, plate or name, camera and time. */
const assert = require('node:assert/strict');
const { compactTime, filenameBase, imageFilename, safeFilenamePart } = require('../../../dist/lib/image');
const ev = require('../../fixtures/events');

describe('lib/image/filename', () => {
  describe('file names', () => {
    it('names a plate image as in the docs', () => {
      const base = filenameBase(ev.fullLpr(), 'lpr');
      assert.equal(base, 'lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z');
      assert.equal(imageFilename(base, 'Close', 'image/jpeg'), 'lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_Close.jpg');
      assert.equal(imageFilename(base, 'FullFrame', 'application/octet-stream'), 'lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_FullFrame.bin');
    });

    it('names a face image with the faceId and 7-digit fractions dropped', () => {
      const base = filenameBase(ev.fullFace(), 'face');
      assert.equal(base, 'face_abc12345_Entrance-Cam-3_20261121T180405Z');
      assert.equal(imageFilename(base, 'photo', 'image/png'), 'face_abc12345_Entrance-Cam-3_20261121T180405Z_photo.png');
    });

    it('keeps only safe characters', () => {
      const e = ev.fullLpr();
      e.payload.lprPlateInfo.plate = '../../etc/passwd';
      e.payload.detectionInfo.detectorName = 'Café Gate #2 / Nord\\Süd <x> "q" \u0000';
      const name = imageFilename(filenameBase(e, 'lpr'), 'Close', 'image/jpeg');
      assert.equal(name, 'lpr_etc-passwd_Cafe-Gate-2-Nord-Sud-x-q_20261121T180405Z_Close.jpg');
      assert.match(name, /^[A-Za-z0-9_.-]+$/);
      assert.equal(safeFilenamePart('  AB 123  '), 'AB-123');
      assert.equal(safeFilenamePart('株式会社'), '');
      assert.equal(safeFilenamePart('x'.repeat(500)).length, 48);
      assert.equal(safeFilenamePart(null), '');
      assert.equal(safeFilenamePart({ toString: () => 'x' }), '');
    });

    it('leaves out parts the event lacks', () => {
      const e = ev.minimalLpr();
      delete e.payload.detectionInfo;
      assert.equal(filenameBase(e, 'lpr'), 'lpr_ABC123');
      assert.equal(filenameBase({}, 'face'), 'face');
      assert.equal(imageFilename('face', 'detection', 'image/jpeg'), 'face_detection.jpg');
    });

    it('writes times in UTC', () => {
      assert.equal(compactTime('2026-11-21T18:04:05Z'), '20261121T180405Z');
      assert.equal(compactTime('2026-11-21T18:04:05.1234567Z'), '20261121T180405Z');
      assert.equal(compactTime('2026-11-21T18:04:05+02:00'), '20261121T160405Z');
      assert.equal(compactTime('2026-11-21T23:30:00-05:00'), '20261122T043000Z');
      assert.equal(compactTime('2026-11-21T18:04:05.123'), '20261121T180405', 'no zone: kept as written, without Z');
      assert.equal(compactTime('2026-11-21T18:04Z'), '20261121T180400Z');
      for (const bad of ['yesterday', '', null, 1732212245, '2026-11-21']) assert.equal(compactTime(bad), '');
    });
  });
});
