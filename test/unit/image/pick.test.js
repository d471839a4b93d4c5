'use strict';
/** lib/image/pick.ts: which crops of a face or plate event are picked, in which order, and the crop list option. */
const assert = require('node:assert/strict');
const { pickImages, parseCropList, decodeImage, DEFAULT_CROP_ORDER, DEFAULT_PICK_OPTIONS } = require('../../../dist/lib/image');
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

describe('lib/image/pick', () => {
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
