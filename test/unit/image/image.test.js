'use strict';
const assert = require('node:assert/strict');
const {
  pickImages,
  checkBase64,
  decodeImage,
  sniffContentType,
  extensionFor,
  safeFilenamePart,
  compactTime,
  filenameBase,
  imageFilename,
  parseCropList,
  withProperty,
  ImageError,
  DEFAULT_CROP_ORDER,
  DEFAULT_PICK_OPTIONS,
} = require('../../../dist/lib/image');
const { checkEvent } = require('../../../dist/lib/events/schemas');
const ev = require('../../fixtures/events');

const CROPS = ['Close', 'Medium', 'Car', 'FullFrame', 'Other'];
const opts = (o = {}) => ({ ...DEFAULT_PICK_OPTIONS, ...o });

/** Deterministic PRNG (xorshift32) so a failing shuffle can be replayed. */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}
function shuffle(array, random) {
  const a = array.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}
/** A distinct, valid base64 image per crop name, so picks can be told apart. */
const imageOf = (name) => Buffer.from(`\xff\xd8\xff${name}`, 'latin1').toString('base64');

function lprWith(names) {
  const e = ev.fullLpr();
  e.payload.detectionImages = names.map((cropSizeName) => ({ image: imageOf(cropSizeName), cropSizeName }));
  return e;
}

describe('lib/image', () => {
  describe('pickImages: plates', () => {
    it('picks by cropSizeName in preference order, whatever the array order (many shuffles)', () => {
      const random = rng(20261121);
      let cases = 0;
      for (let round = 0; round < 300; round++) {
        // A random subset of crops, shuffled, and a random preference list.
        const present = shuffle(CROPS, random).slice(0, 1 + Math.floor(random() * CROPS.length));
        const prefs = shuffle(CROPS, random).slice(0, 1 + Math.floor(random() * CROPS.length));
        const event = lprWith(present);
        const result = pickImages(event, opts({ crops: prefs }));
        assert.equal(result.ok, true);
        assert.equal(result.kind, 'lpr');
        const expected = prefs.find((p) => present.includes(p));
        const label = `present ${present} prefs ${prefs}`;
        if (!expected) {
          assert.deepEqual(result.images, [], label);
          continue;
        }
        cases++;
        assert.equal(result.images.length, 1, label);
        const [found] = result.images;
        assert.equal(found.source, expected, label);
        const index = present.indexOf(expected);
        assert.equal(found.path, `payload.detectionImages[${index}].image`, label);
        assert.equal(found.text, event.payload.detectionImages[index].image, 'the string itself');
      }
      assert.ok(cases > 200, `${cases} rounds had a match`);
    });

    it('uses the default order Close, Medium, Car, FullFrame, Other', () => {
      assert.deepEqual([...DEFAULT_CROP_ORDER], CROPS);
      const random = rng(7);
      for (let round = 0; round < 20; round++) {
        const names = shuffle(CROPS, random);
        assert.equal(pickImages(lprWith(names), opts()).images[0].source, 'Close', String(names));
        assert.equal(pickImages(lprWith(names.filter((n) => n !== 'Close')), opts()).images[0].source, 'Medium');
        assert.equal(pickImages(lprWith(['Other', 'FullFrame'].sort(() => random() - 0.5)), opts()).images[0].source, 'FullFrame');
      }
    });

    it('"all" sends every listed crop present, in preference order (many shuffles)', () => {
      const random = rng(99);
      for (let round = 0; round < 100; round++) {
        const present = shuffle(CROPS, random).slice(0, 1 + Math.floor(random() * 5));
        const prefs = shuffle(CROPS, random).slice(0, 1 + Math.floor(random() * 5));
        const event = lprWith(present);
        const { images } = pickImages(event, opts({ crops: prefs, plateMode: 'all' }));
        const label = `present ${present} prefs ${prefs}`;
        assert.deepEqual(
          images.map((i) => i.source),
          prefs.filter((p) => present.includes(p)),
          label,
        );
        for (const image of images) {
          const index = present.indexOf(image.source);
          assert.equal(image.path, `payload.detectionImages[${index}].image`);
          assert.equal(image.text, event.payload.detectionImages[index].image);
        }
      }
    });

    it('"all" keeps repeated crops in array order', () => {
      const event = lprWith(['Car', 'Close', 'Car']);
      const { images } = pickImages(event, opts({ plateMode: 'all' }));
      assert.deepEqual(
        images.map((i) => i.path),
        ['payload.detectionImages[1].image', 'payload.detectionImages[0].image', 'payload.detectionImages[2].image'],
      );
    });

    it('skips entries without an image, unknown crop names and non-objects', () => {
      const event = ev.fullLpr();
      event.payload.detectionImages = [
        null,
        'Close',
        { cropSizeName: 'Close' },
        { cropSizeName: 'Close', image: null },
        { cropSizeName: 'Close', image: '' },
        { cropSizeName: 'Huge', image: '/9j/' },
        { cropSizeName: 'Medium', image: '/9j/' },
      ];
      const { images } = pickImages(event, opts());
      assert.deepEqual(
        images.map((i) => i.path),
        ['payload.detectionImages[6].image'],
      );
    });

    it('finds no image when there are none', () => {
      for (const e of [ev.minimalLpr(), ev.nullsLpr(), lprWith([])]) {
        const result = pickImages(e, opts());
        assert.equal(result.ok, true);
        assert.deepEqual(result.images, []);
      }
      assert.deepEqual(pickImages(lprWith(['FullFrame']), opts({ crops: ['Close', 'Car'] })).images, []);
    });
  });

  describe('pickImages: faces', () => {
    const face = (detection, photo) => {
      const e = ev.fullFace();
      e.payload.detectionImage = detection === undefined ? undefined : detection === null ? null : { image: detection };
      e.payload.defaultPhoto = photo === undefined ? undefined : photo === null ? null : { image: photo };
      return e;
    };

    it('takes the live capture or the enrolled photo as chosen', () => {
      const e = face('AAAA', 'BBBB');
      assert.deepEqual(pickImages(e, opts()).images, [{ source: 'detection', path: 'payload.detectionImage.image', text: 'AAAA' }]);
      assert.deepEqual(pickImages(e, opts({ face: 'photo' })).images, [{ source: 'photo', path: 'payload.defaultPhoto.image', text: 'BBBB' }]);
      assert.equal(pickImages(e, opts()).kind, 'face');
    });

    it('falls back to the other image when the chosen one is missing', () => {
      for (const missing of [undefined, null, '']) {
        assert.equal(pickImages(face(missing, 'BBBB'), opts()).images[0].source, 'photo');
        assert.equal(pickImages(face('AAAA', missing), opts({ face: 'photo' })).images[0].source, 'detection');
      }
      const e = face(undefined, 'BBBB');
      e.payload.detectionImage = {};
      assert.equal(pickImages(e, opts()).images[0].source, 'photo', 'holder without image');
    });

    it('does not fall back when fallback is off', () => {
      assert.deepEqual(pickImages(face(null, 'BBBB'), opts({ faceFallback: false })).images, []);
      assert.deepEqual(pickImages(face('AAAA', null), opts({ face: 'photo', faceFallback: false })).images, []);
    });

    it('finds no image in a face event without images', () => {
      assert.deepEqual(pickImages(ev.minimalFace(), opts()).images, []);
      assert.deepEqual(pickImages(ev.nullsFace(), opts()).images, []);
    });

    it('ignores plateMode for faces: one image', () => {
      assert.equal(pickImages(face('AAAA', 'BBBB'), opts({ plateMode: 'all' })).images.length, 1);
    });
  });

  it('pickImages refuses values that are not face or plate events', () => {
    for (const value of [undefined, null, 'WebHookLprPayload', 42, {}, { payload: {} }]) {
      assert.deepEqual(pickImages(value, opts()), { ok: false, problem: 'not-an-event' }, JSON.stringify(value));
    }
    assert.deepEqual(pickImages({ publishType: 'WebHookPosPayload', payload: {} }, opts()), {
      ok: false,
      problem: 'unknown-kind',
      publishType: 'WebHookPosPayload',
    });
  });

  describe('checkBase64', () => {
    it('accepts standard base64 with and without padding', () => {
      assert.deepEqual(checkBase64('/9j/'), { ok: true, start: 0, bytes: 3 });
      assert.deepEqual(checkBase64('/9g='), { ok: true, start: 0, bytes: 2 });
      assert.deepEqual(checkBase64('/9g'), { ok: true, start: 0, bytes: 2 });
      assert.deepEqual(checkBase64('/w=='), { ok: true, start: 0, bytes: 1 });
      assert.deepEqual(checkBase64('/w'), { ok: true, start: 0, bytes: 1 });
      const big = ev.jpegBase64(300000, 3);
      assert.deepEqual(checkBase64(big), { ok: true, start: 0, bytes: 300000 });
      for (let n = 1; n < 40; n++) {
        const b64 = Buffer.alloc(n, n).toString('base64');
        assert.deepEqual(checkBase64(b64), { ok: true, start: 0, bytes: n }, b64);
        assert.deepEqual(checkBase64(b64.replace(/=+$/, '')), { ok: true, start: 0, bytes: n }, `${b64} unpadded`);
      }
    });

    it('tolerates a data URL prefix', () => {
      assert.deepEqual(checkBase64('data:image/jpeg;base64,/9j/'), { ok: true, start: 23, bytes: 3 });
      assert.deepEqual(checkBase64('DATA:image/png;charset=x;BASE64,iVBORw=='), { ok: true, start: 32, bytes: 4 });
      assert.deepEqual(checkBase64('data:;base64,/9j/'), { ok: true, start: 13, bytes: 3 });
    });

    it('refuses invalid characters and says where', () => {
      assert.deepEqual(checkBase64('/9j/4AAQ!kZJRg=='), { ok: false, reason: 'char', position: 8, char: '!' });
      assert.deepEqual(checkBase64('/9j/4AAQ\nSkZJRg=='), { ok: false, reason: 'char', position: 8, char: 'U+000A' });
      assert.deepEqual(checkBase64('/9j/ 4AA'), { ok: false, reason: 'char', position: 4, char: 'U+0020' });
      assert.deepEqual(checkBase64('/9j-_w'), { ok: false, reason: 'char', position: 3, char: '-' }, 'URL-safe alphabet');
      assert.deepEqual(checkBase64('data:image/jpeg;base64,/9j*'), { ok: false, reason: 'char', position: 26, char: '*' }, 'position in the field');
      assert.deepEqual(checkBase64('/9jé'), { ok: false, reason: 'char', position: 3, char: 'U+00E9' });
      // One bad character deep inside a big image.
      const big = ev.jpegBase64(300000, 5);
      const bad = `${big.slice(0, 250000)}%${big.slice(250001)}`;
      assert.deepEqual(checkBase64(bad), { ok: false, reason: 'char', position: 250000, char: '%' });
    });

    it('refuses bad lengths and misplaced padding', () => {
      assert.deepEqual(checkBase64('/9j/4'), { ok: false, reason: 'length', position: 5 });
      assert.deepEqual(checkBase64('A'), { ok: false, reason: 'length', position: 1 });
      assert.deepEqual(checkBase64('/9g=='), { ok: false, reason: 'padding', position: 3 }, 'padding past a multiple of 4');
      assert.deepEqual(checkBase64('/9='), { ok: false, reason: 'padding', position: 2 });
      assert.deepEqual(checkBase64('/9j/4A=Q'), { ok: false, reason: 'padding', position: 6 });
      assert.deepEqual(checkBase64('/w==/9j/'), { ok: false, reason: 'padding', position: 2 });
      assert.deepEqual(checkBase64('/w==='), { ok: false, reason: 'padding', position: 2 });
      assert.deepEqual(checkBase64('===='), { ok: false, reason: 'padding', position: 0 });
    });

    it('refuses empty data, a data URL that is not base64, and non-strings', () => {
      assert.deepEqual(checkBase64(''), { ok: false, reason: 'empty', position: 0 });
      assert.deepEqual(checkBase64('data:image/jpeg;base64,'), { ok: false, reason: 'empty', position: 23 });
      assert.deepEqual(checkBase64('data:text/plain,hello'), { ok: false, reason: 'data-url', position: 0 });
      assert.deepEqual(checkBase64('data:image/jpeg;base64'), { ok: false, reason: 'data-url', position: 0 });
      for (const v of [null, undefined, 42, {}, Buffer.from('/9j/')]) {
        assert.deepEqual(checkBase64(v), { ok: false, reason: 'not-a-string', position: 0 });
      }
    });

    // How fast is the benchmark's business, not a test's: here, that 1 MB is read to its end.
    it('checks 1 MB to its last character', () => {
      const big = ev.jpegBase64(768 * 1024, 9);
      assert.equal(big.length, 1024 * 1024);
      assert.deepEqual(checkBase64(big), { ok: true, start: 0, bytes: 768 * 1024 });
      const flawed = `${big.slice(0, -5)}#${big.slice(-4)}`;
      assert.deepEqual(checkBase64(flawed), { ok: false, reason: 'char', position: 1024 * 1024 - 5, char: '#' });
    });
  });

  describe('sniffContentType', () => {
    it('recognises JPEG, PNG, GIF and WebP from the first bytes', () => {
      assert.equal(sniffContentType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])), 'image/jpeg');
      assert.equal(sniffContentType(Buffer.from([0xff, 0xd8, 0xff])), 'image/jpeg');
      assert.equal(sniffContentType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])), 'image/png');
      assert.equal(sniffContentType(Buffer.from('GIF89a\x01\x00', 'latin1')), 'image/gif');
      assert.equal(sniffContentType(Buffer.from('GIF87a', 'latin1')), 'image/gif');
      assert.equal(sniffContentType(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1')), 'image/webp');
    });

    it('falls back to application/octet-stream', () => {
      for (const bytes of [
        [],
        [0xff, 0xd8],
        [0xff, 0xd8, 0xfe],
        [0x89, 0x50, 0x4e, 0x47],
        [0x25, 0x50, 0x44, 0x46],
        [0x47, 0x49, 0x46, 0x38, 0x38, 0x61],
      ]) {
        assert.equal(sniffContentType(Buffer.from(bytes)), 'application/octet-stream', JSON.stringify(bytes));
      }
      assert.equal(sniffContentType(Buffer.from('RIFF\x10\x00\x00\x00WAVE', 'latin1')), 'application/octet-stream');
    });

    it('gives extensions', () => {
      assert.equal(extensionFor('image/jpeg'), 'jpg');
      assert.equal(extensionFor('image/png'), 'png');
      assert.equal(extensionFor('image/gif'), 'gif');
      assert.equal(extensionFor('image/webp'), 'webp');
      assert.equal(extensionFor('application/octet-stream'), 'bin');
    });
  });

  describe('decodeImage', () => {
    const jpeg = ev.jpegBase64(1000, 4);
    const found = (text) => ({ source: 'Close', path: 'payload.detectionImages[0].image', text });

    it('decodes to a Buffer with its info', () => {
      const { value, info } = decodeImage(found(jpeg), 'buffer');
      assert.ok(Buffer.isBuffer(value));
      assert.deepEqual(value, Buffer.from(jpeg, 'base64'));
      assert.deepEqual(info, { source: 'Close', contentType: 'image/jpeg', bytes: 1000 });
    });

    it('passes base64 on as the same string, without decoding it', () => {
      const { value, info } = decodeImage(found(jpeg), 'base64');
      assert.equal(value, jpeg);
      assert.deepEqual(info, { source: 'Close', contentType: 'image/jpeg', bytes: 1000 });
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('base64');
      assert.equal(decodeImage(found(`data:image/jpeg;base64,${png}`), 'base64').value, png, 'prefix dropped');
      assert.equal(decodeImage(found(png), 'base64').info.contentType, 'image/png', 'sniffed, not taken from the prefix');
    });

    it('builds a data URL with the sniffed type', () => {
      const { value, info } = decodeImage(found(jpeg), 'dataurl');
      assert.equal(value, `data:image/jpeg;base64,${jpeg}`);
      assert.equal(info.bytes, 1000);
      const two = decodeImage(found('/9g='), 'dataurl');
      assert.equal(two.value, 'data:application/octet-stream;base64,/9g=');
      assert.deepEqual(two.info, { source: 'Close', contentType: 'application/octet-stream', bytes: 2 });
      assert.equal(decodeImage(found(`data:image/png;base64,${jpeg}`), 'dataurl').value, `data:image/jpeg;base64,${jpeg}`);
    });

    it('gives the same bytes count in every format', () => {
      for (let n = 1; n < 30; n++) {
        const text = Buffer.alloc(n, 0xff)
          .toString('base64')
          .replace(/=+$/, n % 2 ? '' : '$&');
        const counts = ['buffer', 'base64', 'dataurl'].map((f) => decodeImage(found(text), f).info.bytes);
        assert.deepEqual(counts, [n, n, n], text);
      }
    });

    it('throws an ImageError naming the field', () => {
      for (const format of ['buffer', 'base64', 'dataurl']) {
        assert.throws(
          () => decodeImage({ source: 'Car', path: 'payload.detectionImages[2].image', text: '/9j/!!!!' }, format),
          (err) => {
            assert.ok(err instanceof ImageError);
            assert.equal(err.code, 'INVALID_BASE64');
            assert.equal(err.path, 'payload.detectionImages[2].image');
            assert.equal(err.reason, 'char');
            assert.equal(err.position, 4);
            assert.match(err.message, /^payload\.detectionImages\[2\]\.image /);
            return true;
          },
        );
      }
    });
  });

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

  describe('parseCropList', () => {
    it('accepts arrays and comma lists of known names', () => {
      assert.deepEqual(parseCropList(['Car', 'Close']), ['Car', 'Close']);
      assert.deepEqual(parseCropList('Car, Close ,FullFrame'), ['Car', 'Close', 'FullFrame']);
      assert.deepEqual(parseCropList(CROPS.join(',')), CROPS);
    });

    it('refuses unknown names, repeats and empty lists', () => {
      for (const bad of ['', [], 'Car,Car', 'close', 'Close,Huge', ['Close', 3], 42, null, {}]) {
        assert.equal(parseCropList(bad), null, JSON.stringify(bad));
      }
    });
  });

  describe('withProperty', () => {
    it('copies only the objects along the path', () => {
      const event = ev.fullLpr();
      const msg = { payload: event, topic: 't', data: { keep: 1, nested: { a: 1 } } };
      const a = withProperty(msg, ['image'], 'A');
      assert.notEqual(a, msg);
      assert.equal(a.payload, event, 'event shared, not cloned');
      assert.equal(a.image, 'A');
      assert.equal(msg.image, undefined, 'input untouched');
      const b = withProperty(msg, ['data', 'nested', 'image'], 'B');
      assert.equal(b.data.nested.image, 'B');
      assert.equal(b.data.keep, 1);
      assert.equal(msg.data.nested.image, undefined, 'shared nested object untouched');
      assert.equal(b.payload, event);
      const c = withProperty(msg, ['out', 'image'], 'C');
      assert.deepEqual(c.out, { image: 'C' });
      assert.equal(msg.out, undefined);
    });
  });

  it('decodes the fixture events end to end: the picked crop of a 1 MB event', () => {
    const event = ev.bigLpr(1024 * 1024);
    assert.equal(checkEvent(event).ok, true);
    event.payload.detectionImages.reverse();
    const result = pickImages(event, opts({ crops: ['Car', 'Close'] }));
    const [found] = result.images;
    assert.equal(found.source, 'Car');
    assert.equal(found.path, 'payload.detectionImages[1].image');
    const { value, info } = decodeImage(found, 'buffer');
    assert.equal(info.contentType, 'image/jpeg');
    assert.equal(value.length, info.bytes);
    assert.deepEqual(value.subarray(0, 3), Buffer.from([0xff, 0xd8, 0xff]));
  });
});
