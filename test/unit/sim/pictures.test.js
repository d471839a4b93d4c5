'use strict';
/**
 * The simulator's pictures show what its events say (sim/pictures.ts,
 * sim/font.ts, sim/events.ts): the plate on each plate crop, the name on a
 * face's pictures, read back from the JPEGs by test/support/plate-reader.js;
 * the image modes' event shapes (none: no image fields at all) and a
 * scenario's plate or person without pictures; the caches' bounds.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT } = require('../../support');
const { readPictureText, readPictureTexts } = require('../../support/plate-reader');

const dist = path.join(ROOT, 'dist');
let sim;
let pictures;
let images;
let BoundedCache;
let checkEvent;
let SAMPLE_PLATE_PICTURES;
let SAMPLE_FACE_PICTURES;

const PLATE_CROPS = ['Close', 'Medium', 'Car', 'FullFrame', 'Other'];
const read = (base64) => readPictureText(Buffer.from(base64, 'base64'));

describe('sim: pictures that show the plate and the name', function () {
  before(function () {
    sim = require(path.join(dist, 'sim'));
    pictures = require(path.join(dist, 'sim', 'pictures.js'));
    images = require(path.join(dist, 'sim', 'images.js'));
    ({ BoundedCache } = require(path.join(dist, 'sim', 'bounded-cache.js')));
    ({ checkEvent } = require(path.join(dist, 'lib', 'events', 'schemas')));
    ({ SAMPLE_PLATE_PICTURES, SAMPLE_FACE_PICTURES } = require(path.join(dist, 'lib', 'bridge', 'sample-images.js')));
  });

  describe('the font', function () {
    it('tells every two characters apart by at least 3 of their 35 dots, the fallback box too', function () {
      const glyphs = [...sim.fontGlyphs()];
      assert.ok(glyphs.length >= 26 + 10 + 3 + 1, `${glyphs.length} glyphs`);
      for (const [char, glyph] of glyphs) assert.equal(glyph.length, sim.GLYPH_COLUMNS * sim.GLYPH_ROWS, char);
      for (let i = 0; i < glyphs.length; i++)
        for (let j = i + 1; j < glyphs.length; j++) {
          let distance = 0;
          for (let k = 0; k < glyphs[i][1].length; k++) if (glyphs[i][1][k] !== glyphs[j][1][k]) distance++;
          assert.ok(distance >= 3, `${glyphs[i][0]} and ${glyphs[j][0]} differ in ${distance} dots`);
        }
      assert.equal(sim.glyphOf('#'), sim.glyphOf(sim.FALLBACK_CHAR), 'a character without a glyph: the box');
    });

    it('draws capitals, accents folded, blanks as one space', function () {
      assert.equal(sim.foldForFont('  Zoë   Ångström-Núñez '), 'ZOE ANGSTROM-NUNEZ');
    });
  });

  describe('drawn pictures read back', function () {
    it('a plate reads back as itself on every crop, for several plates', function () {
      for (const plate of ['KLM456', 'ABC123', 'XYZ987', 'JKR777', 'OLD001', 'B8O0D1']) {
        for (const crop of PLATE_CROPS) assert.equal(read(pictures.drawnPicture(crop, plate)), plate, `${plate} on ${crop}`);
      }
      // longer plates, with a space and a dash: large on the close crops; too long for the far one, whose plate stays blank
      for (const plate of ['AB 1234', 'NY-5521K']) {
        for (const crop of ['Close', 'Medium', 'Car', 'Other']) assert.equal(read(pictures.drawnPicture(crop, plate)), plate, `${plate} on ${crop}`);
        assert.equal(read(pictures.drawnPicture('FullFrame', plate)), null, `${plate}: too long for the far crop, whose plate stays blank`);
      }
    });

    it('large and clear on the Close crop: characters of 28 pixels or more in a 100-pixel picture', function () {
      const [close] = readPictureTexts(Buffer.from(pictures.drawnPicture('Close', 'KLM456'), 'base64'));
      assert.ok(close.scale >= 4, `scale ${close.scale}`);
      assert.equal(close.distance, 0, 'every dot as the font has it, through the JPEG');
    });

    it('a picture of another plate reads differently, and a picture without a drawn plate reads nothing', function () {
      assert.equal(read(pictures.drawnPicture('Close', 'ABC123')), 'ABC123');
      assert.notEqual(read(pictures.drawnPicture('Close', 'ABC123')), 'ABC128');
      assert.notEqual(pictures.drawnPicture('Close', 'ABC123'), pictures.drawnPicture('Close', 'ABC128'));
      for (const crop of PLATE_CROPS) assert.equal(read(SAMPLE_PLATE_PICTURES[crop]), null, `the sample's ${crop} picture`);
      for (const name of ['detectionImage', 'defaultPhoto']) assert.equal(read(SAMPLE_FACE_PICTURES[name]), null, `the sample's ${name}`);
    });

    it("a person's name, in capitals, on the live capture and the enrolled photo; a name too long for the bar is cut", function () {
      for (const name of ['detectionImage', 'defaultPhoto']) {
        assert.equal(read(pictures.drawnPicture(name, 'Jane Roe')), 'JANE ROE', name);
        assert.equal(read(pictures.drawnPicture(name, 'Ricardo Álvarez')), 'RICARDO ALVAREZ', name);
        assert.equal(read(pictures.drawnPicture(name, 'Zoë Øster')), `ZOE ${sim.FALLBACK_CHAR}STER`, `${name}: Ø has no glyph`);
      }
      const long = 'Maximilian Alexander Konstantin von Hohenberg-Wittelsbach';
      const shown = read(pictures.drawnPicture('defaultPhoto', long));
      assert.ok(shown.length >= 20 && sim.foldForFont(long).startsWith(shown), shown);
    });

    it("one kept encoder gives jpeg-js's own bytes, picture after picture", function () {
      const jpeg = require('jpeg-js');
      const { encodeJpeg } = require(path.join(dist, 'sim', 'jpeg-encoder.js'));
      const [car, close] = ['Car', 'Close'].map((crop) => jpeg.decode(Buffer.from(SAMPLE_PLATE_PICTURES[crop], 'base64'), { useTArray: true }));
      for (const raw of [car, close, car]) assert.ok(encodeJpeg(raw, 80).equals(jpeg.encode(raw, 80).data));
    });

    it('the same text and picture, the same string (drawn once)', function () {
      assert.equal(pictures.drawnPicture('Car', 'klm456'), pictures.drawnPicture('Car', 'KLM456'));
      const sizes = PLATE_CROPS.map((crop) => Buffer.from(pictures.drawnPicture(crop, 'KLM456'), 'base64').length);
      assert.ok(
        sizes.every((n) => n > 3000 && n < 20000),
        `small JPEGs: ${sizes}`,
      );
    });
  });

  describe('events', function () {
    it("pictures: every crop shows the scene's plate; a face's pictures show the person", function () {
      const scenario = sim.parseScenario({ plates: ['KLM456:Banned'], faces: ['Mei Lin Chen'] });
      const draw = new sim.ScenarioDraw(scenario, 1);
      const plate = sim.buildDeliveryEvent('lpr', { images: 'pictures', scene: draw.next('lpr'), scenario });
      assert.ok(checkEvent(plate).ok);
      assert.deepEqual(
        plate.payload.detectionImages.map((i) => i.cropSizeName),
        PLATE_CROPS,
      );
      for (const { image, cropSizeName } of plate.payload.detectionImages) assert.equal(read(image), 'KLM456', cropSizeName);
      const face = sim.buildDeliveryEvent('face', { images: 'pictures', scene: draw.next('face'), scenario });
      assert.ok(checkEvent(face).ok);
      assert.equal(read(face.payload.detectionImage.image), 'MEI LIN CHEN');
      assert.equal(read(face.payload.defaultPhoto.image), 'MEI LIN CHEN');
    });

    it('realistic: a plate event still about 1 MiB, its four crops showing the plate under their padding', function () {
      const scenario = sim.parseScenario({ plates: ['TSL300'] });
      const event = sim.buildDeliveryEvent('lpr', { images: 'realistic', scene: new sim.ScenarioDraw(scenario, 1).next('lpr'), scenario });
      const size = Buffer.byteLength(JSON.stringify(event));
      assert.ok(Math.abs(size - sim.REALISTIC_EVENT_BYTES.lpr) < 0.02 * sim.REALISTIC_EVENT_BYTES.lpr, `${size} bytes`);
      assert.deepEqual(
        event.payload.detectionImages.map((i) => i.cropSizeName),
        ['Close', 'Medium', 'Car', 'FullFrame'],
      );
      for (const { image, cropSizeName } of event.payload.detectionImages) {
        assert.ok(image.length > 50 * 1024, `${cropSizeName}: grown`);
        assert.equal(read(image), 'TSL300', cropSizeName);
      }
      const face = sim.buildDeliveryEvent('face', { images: 'realistic' });
      const faceSize = Buffer.byteLength(JSON.stringify(face));
      assert.ok(Math.abs(faceSize - sim.REALISTIC_EVENT_BYTES.face) < 0.02 * sim.REALISTIC_EVENT_BYTES.face, `${faceSize} bytes`);
      assert.equal(read(face.payload.detectionImage.image), 'JOHN MICHAEL DOE');
    });

    it('fillers: the two-byte images of the sample endpoints', function () {
      const plate = sim.buildDeliveryEvent('lpr', { images: 'fillers' });
      assert.ok(plate.payload.detectionImages.every((i) => i.image === '/9g='));
      const face = sim.buildDeliveryEvent('face', { images: 'fillers' });
      assert.deepEqual([face.payload.detectionImage, face.payload.defaultPhoto], [{ image: '/9g=' }, { image: '/9g=' }]);
    });

    it('none: no image fields at all, and still a valid event', function () {
      assert.ok(sim.IMAGE_MODES.includes('none'));
      const plate = sim.buildDeliveryEvent('lpr', { images: 'none' });
      assert.ok(!('detectionImages' in plate.payload), Object.keys(plate.payload).join(', '));
      assert.ok(checkEvent(plate).ok);
      const face = sim.buildDeliveryEvent('face', { images: 'none' });
      assert.ok(!('detectionImage' in face.payload) && !('defaultPhoto' in face.payload), Object.keys(face.payload).join(', '));
      assert.ok(checkEvent(face).ok);
      assert.ok(!/"image"/.test(JSON.stringify([plate, face])));
    });

    it('a scenario plate or person with "images": false has no pictures, the others have theirs, in one run', function () {
      const scenario = sim.parseScenario({
        plates: [{ plate: 'NOPIC1', images: false }, 'PIC001'],
        faces: [{ name: 'Ann Lee', images: false }, 'Bo Li'],
      });
      const draw = new sim.ScenarioDraw(scenario, 3);
      const seen = new Map();
      for (let i = 0; i < 24; i++) {
        const kind = i % 2 ? 'lpr' : 'face';
        const event = sim.buildDeliveryEvent(kind, { images: 'realistic', scene: draw.next(kind), scenario });
        const who = kind === 'lpr' ? event.payload.lprPlateInfo.plate : event.payload.personInfo.firstName;
        const shown =
          kind === 'lpr'
            ? (event.payload.detectionImages ?? []).map((i) => read(i.image))
            : [event.payload.detectionImage, event.payload.defaultPhoto].filter(Boolean).map((i) => read(i.image));
        seen.set(who, shown);
      }
      assert.deepEqual(seen.get('NOPIC1'), []);
      assert.deepEqual(seen.get('PIC001'), ['PIC001', 'PIC001', 'PIC001', 'PIC001']);
      assert.deepEqual(seen.get('Ann'), []);
      assert.deepEqual(seen.get('Bo'), ['BO LI', 'BO LI']);
      assert.throws(
        () => sim.parseScenario({ plates: [{ plate: 'A1', images: 'no' }] }),
        (e) => /plates\[0\]\.images: expected false/.test(e.message),
      );
    });

    it('an edit before the pictures (an enrolled plate) shows on them; an enrolled photo is kept, but not sent without pictures', function () {
      const store = new sim.EnrollmentStore();
      store.put({ kind: 'lpr', externalId: 'g-1', plate: 'ENR777', tags: [], additionalFields: [] });
      store.put({ kind: 'face', externalId: 'f-1', photo: '/9j/4A==', firstName: 'Ann', lastName: 'Lee', tags: [], additionalFields: [] });
      const enrolled = (kind) => (event) => sim.applyEnrollment(event, store.list(kind)[0], store);
      const plate = sim.buildDeliveryEvent('lpr', { images: 'pictures', edit: enrolled('lpr') });
      assert.equal(plate.payload.lprPlateInfo.plate, 'ENR777');
      for (const { image, cropSizeName } of plate.payload.detectionImages) assert.equal(read(image), 'ENR777', cropSizeName);
      const face = sim.buildDeliveryEvent('face', { images: 'pictures', edit: enrolled('face') });
      assert.equal(read(face.payload.detectionImage.image), 'ANN LEE');
      assert.deepEqual(face.payload.defaultPhoto, { image: '/9j/4A==' }, 'the photo given at enrollment');
      const bare = sim.buildDeliveryEvent('face', { images: 'none', edit: enrolled('face') });
      assert.ok(!('defaultPhoto' in bare.payload));
    });
  });

  describe('bounded caches', function () {
    it('BoundedCache evicts the least recently used past its entries or its weight', function () {
      const byCount = new BoundedCache(3);
      for (const k of ['a', 'b', 'c']) byCount.set(k, k);
      byCount.get('a'); // now the most recently used
      byCount.set('d', 'd');
      assert.deepEqual(
        ['a', 'b', 'c', 'd'].filter((k) => byCount.has(k)),
        ['a', 'c', 'd'],
      );
      const byWeight = new BoundedCache(100, 10, (v) => v.length);
      byWeight.set('x', 'xxxx');
      byWeight.set('y', 'yyyy');
      byWeight.set('z', 'zzzz');
      assert.deepEqual([byWeight.has('x'), byWeight.has('y'), byWeight.has('z'), byWeight.weight], [false, true, true, 8]);
      byWeight.set('big', 'b'.repeat(50));
      assert.deepEqual([byWeight.size, byWeight.weight], [1, 50], 'one value over the bound is kept alone');
    });

    it(`drawn pictures: at most ${256} kept, the oldest drawn again when asked for`, function () {
      const cache = pictures.drawnPictureCache();
      assert.equal(cache.maxEntries, 256);
      cache.clear();
      const first = pictures.drawnPicture('FullFrame', 'AAA000');
      for (let i = 1; i <= 260; i++) pictures.drawnPicture('FullFrame', `P${String(i).padStart(5, '0')}`);
      assert.equal(cache.size, 256);
      assert.equal(pictures.drawnPicture('FullFrame', 'AAA000'), first, 'drawn again, the same picture');
      assert.equal(cache.size, 256);
    });

    it('realistic images: kept up to 64 Mi characters in all', function () {
      const cache = images.fillerCache();
      assert.equal(cache.maxWeight, 64 * 1024 * 1024);
      cache.clear();
      // 70 images of the largest size (1 Mi characters each): past the bound
      for (let variant = 0; variant < 70; variant++) images.fillerJpegBase64(images.MAX_FILLER_CHARS, variant);
      assert.ok(cache.weight <= cache.maxWeight, `${cache.weight} characters`);
      assert.equal(cache.size, 64);
      cache.clear();
    });
  });
});
