'use strict';
/**
 * lib/bridge/sample.ts against the six rules of the spec's sample endpoints
 * ("Events bridge sample endpoints", rules 1–6).
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT } = require('../../support');

const sample = require(path.join(ROOT, 'dist', 'lib', 'bridge', 'sample'));
const { checkEvent, CROP_SIZE_NAMES } = require(path.join(ROOT, 'dist', 'lib', 'events', 'schemas'));
const { decodeImage } = require(path.join(ROOT, 'dist', 'lib'));

const HOUR = 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Every [path, value] pair of a JSON tree, leaves and inner nodes alike. */
function walk(value, at = '', out = []) {
  out.push([at, value]);
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${at}[${i}]`, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, at ? `${at}.${k}` : k, out);
  return out;
}

/** The places that may differ between two calls (rule 1). */
const VARYING = /(^payload\.messageId$|\.dateTimeUtc$)/;

/** A deep copy with messageId and every dateTimeUtc blanked. */
function blanked(event) {
  const copy = JSON.parse(JSON.stringify(event));
  for (const [at] of walk(copy)) {
    if (!VARYING.test(at)) continue;
    const keys = at.replace(/\[(\d+)\]/g, '.$1').split('.');
    const last = keys.pop();
    keys.reduce((o, k) => o[k], copy)[last] = '<blank>';
  }
  return copy;
}

for (const kind of ['face', 'lpr']) {
  describe(`sample events: ${kind}`, () => {
    it('rule 1: two calls differ only in messageId and the timestamps', () => {
      const a = sample.buildSampleEvent(kind);
      const b = sample.buildSampleEvent(kind);
      assert.notEqual(a, b, 'a new object on every call');
      assert.notEqual(a.payload, b.payload);
      assert.match(a.payload.messageId, UUID);
      assert.match(b.payload.messageId, UUID);
      assert.notEqual(a.payload.messageId, b.payload.messageId);
      assert.deepEqual(blanked(a), blanked(b));
      // made 5 ms apart (rule 4: at call time), only the times differ
      const early = sample.buildSampleEvent(kind, { now: new Date('2026-03-01T12:00:00.000Z'), messageId: 'm-1' });
      const late = sample.buildSampleEvent(kind, { now: new Date('2026-03-01T12:00:00.005Z'), messageId: 'm-1' });
      assert.notEqual(early.payload.detectionInfo.dateTimeUtc, late.payload.detectionInfo.dateTimeUtc, 'timestamps follow the time');
      assert.deepEqual(blanked(early), blanked(late));
      // and with the same clock and id, nothing differs at all
      const now = new Date('2026-03-01T12:00:00.000Z');
      assert.deepEqual(sample.buildSampleEvent(kind, { now, messageId: 'm-1' }), sample.buildSampleEvent(kind, { now, messageId: 'm-1' }));
      // changing a returned sample does not change the next one
      a.payload.detectionInfo.detectorName = 'changed';
      a.fields.push({ fieldName: 'x', fieldValue: 'y' });
      assert.notEqual(sample.buildSampleEvent(kind).payload.detectionInfo.detectorName, 'changed');
      assert.equal(sample.buildSampleEvent(kind).fields.length, 1);
    });

    it('rule 2: serverContext is null', () => {
      const event = sample.buildSampleEvent(kind);
      assert.ok('serverContext' in event, 'present, not absent');
      assert.equal(event.serverContext, null);
    });

    it('rule 3: every image is a two-byte filler in base64', () => {
      const images = walk(sample.buildSampleEvent(kind)).filter(([at]) => /(^|\.)image$/.test(at));
      assert.equal(images.length, kind === 'face' ? 2 : CROP_SIZE_NAMES.length);
      for (const [at, image] of images) {
        assert.equal(typeof image, 'string', at);
        assert.match(image, /^[A-Za-z0-9+/]+={0,2}$/, `${at} is base64`);
        const bytes = Buffer.from(image, 'base64');
        assert.equal(bytes.length, 2, `${at} decodes to 2 bytes`);
        assert.equal(bytes.toString('base64'), image, `${at} is canonical base64`);
      }
      assert.equal(sample.SAMPLE_IMAGE, '/9g=');
    });

    it('rule 4: dateTimeUtc is now and history entries are one hour apart', () => {
      const before = Date.now();
      const event = sample.buildSampleEvent(kind);
      const after = Date.now();
      const at = Date.parse(event.payload.detectionInfo.dateTimeUtc);
      assert.match(event.payload.detectionInfo.dateTimeUtc, ISO);
      assert.ok(at >= before && at <= after, 'made at call time, in UTC');

      const now = new Date('2026-03-01T12:00:00.000Z');
      const fixed = sample.buildSampleEvent(kind, { now });
      assert.equal(fixed.payload.detectionInfo.dateTimeUtc, '2026-03-01T12:00:00.000Z');
      const history = fixed.payload.detectionHistory;
      const lists = kind === 'face' ? [history.visitHistory, history.printHistory] : [history.visitHistory];
      if (kind === 'lpr') assert.equal(history.printHistory, undefined, 'a plate has no print history');
      for (const list of lists) {
        assert.ok(list.length >= 2, 'at least two entries, so there is a gap to measure');
        list.forEach((entry, i) => {
          assert.match(entry.dateTimeUtc, ISO);
          assert.equal(Date.parse(entry.dateTimeUtc), now.getTime() - (i + 1) * HOUR, `entry ${i} is ${i + 1} h before now`);
        });
      }
      // every dateTimeUtc in the event is one of now, now-1h, now-2h, ...
      for (const [where, value] of walk(fixed).filter(([p]) => /dateTimeUtc$/.test(p))) {
        const hours = (now.getTime() - Date.parse(value)) / HOUR;
        assert.ok(Number.isInteger(hours) && hours >= 0, `${where} is a whole number of hours before now`);
      }
    });

    it('rule 5: a top-level fields entry, tags, and every nested object populated', () => {
      const event = sample.buildSampleEvent(kind);
      assert.ok(event.fields.length >= 1);
      for (const f of event.fields) {
        assert.equal(typeof f.fieldName, 'string');
        assert.equal(typeof f.fieldValue, 'string');
        assert.ok(f.fieldName && f.fieldValue);
      }
      assert.ok(event.sourceName && event.externalId, 'envelope strings set');
      const p = event.payload;
      const holder = kind === 'face' ? p.personInfo : p.lprPlateInfo;
      assert.ok(holder.tags.length >= 1 && holder.tags.every((tag) => tag.tagName));
      // typed fields: each carries exactly one value, and all four types appear
      const typed = ['stringValue', 'dateValue', 'numberValue', 'boolValue'];
      for (const field of holder.fields) {
        assert.equal(typed.filter((k) => field[k] !== null && field[k] !== undefined).length, 1, field.fieldName);
      }
      for (const k of typed)
        assert.ok(
          holder.fields.some((f) => f[k] !== null),
          `a field with ${k}`,
        );
      assert.equal(p.resentEvent, false);
      if (kind === 'face') {
        for (const k of ['faceId', 'firstName', 'middleName', 'lastName']) assert.ok(holder[k], `personInfo.${k}`);
        assert.ok(holder.notes.length >= 1 && holder.notes.every((n) => n.noteTitle && n.noteBody));
        for (const k of ['dateTimeUtc', 'timeZone', 'detectId', 'detectorName']) assert.ok(p.detectionInfo[k], `detectionInfo.${k}`);
        assert.ok(p.detectionInfo.confidence > 0 && p.detectionInfo.confidence <= 1, 'confidence is a fraction');
        assert.ok(p.detectionImage.image && p.defaultPhoto.image);
        assert.ok(p.detectionHistory.visitHistory.every((v) => v.detectorName));
        assert.ok(p.detectionHistory.printHistory.every((v) => v.printerName));
      } else {
        for (const k of ['plate', 'similar1Plate', 'vehicleMake', 'vehicleModel', 'vehicleColor', 'vehicleState'])
          assert.ok(holder[k], `lprPlateInfo.${k}`);
        for (const k of ['dateTimeUtc', 'timeZone', 'detectorName']) assert.ok(p.detectionInfo[k], `detectionInfo.${k}`);
        assert.equal(p.detectionInfo.confidence, undefined, 'a plate detection has no confidence');
        assert.deepEqual(
          p.detectionImages.map((i) => i.cropSizeName),
          [...CROP_SIZE_NAMES],
          'one image per crop size',
        );
        assert.ok(p.detectionHistory.visitHistory.every((v) => v.detectorName));
      }
      // nothing left empty anywhere, apart from the nulls the spec asks for
      for (const [at, value] of walk(event)) {
        if (value === null) {
          assert.ok(at === 'serverContext' || /\.(stringValue|dateValue|numberValue|boolValue|expires)$/.test(at), `${at} is null`);
        } else {
          assert.notEqual(value, '', `${at} is empty`);
          if (Array.isArray(value)) assert.ok(value.length > 0, `${at} is an empty array`);
        }
      }
    });

    it('rule 6: no failure path; and it passes the receiver schema', () => {
      const event = sample.buildSampleEvent(kind);
      const checked = checkEvent(event);
      assert.deepEqual(checked.ok ? [] : checked.errors, []);
      assert.equal(checked.event, event);
      assert.equal(event.publishType, kind === 'face' ? 'WebHookFaceRecPayload' : 'WebHookLprPayload');
      // a broken clock still gives a valid sample
      const odd = sample.buildSampleEvent(kind, { now: new Date(NaN) });
      assert.ok(checkEvent(odd).ok);
      // survives JSON, as it goes over HTTP from the simulator
      assert.ok(checkEvent(JSON.parse(JSON.stringify(event))).ok);
    });
  });
}

/** The image fields of an event: [path, base64, source] (source: the cropSizeName, or detection / photo). */
function imagesOf(event) {
  if (event.publishType === 'WebHookLprPayload')
    return event.payload.detectionImages.map((d, i) => [`payload.detectionImages[${i}].image`, d.image, d.cropSizeName]);
  return [
    ['payload.detectionImage.image', event.payload.detectionImage.image, 'detection'],
    ['payload.defaultPhoto.image', event.payload.defaultPhoto.image, 'photo'],
  ];
}

/** Width and height from a JPEG's start-of-frame marker (SOF0–SOF15 but DHT, JPG, DAC), walking the segments. */
function jpegSize(bytes) {
  let at = 2;
  while (at + 9 < bytes.length) {
    assert.equal(bytes[at], 0xff, `a marker at byte ${at}`);
    const marker = bytes[at + 1];
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    assert.notEqual(marker, 0xda, 'a frame header before the scan');
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  throw new Error('no start-of-frame marker');
}

describe('lib/bridge/sample: sample events with pictures (images: "pictures")', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');

  for (const kind of ['face', 'lpr']) {
    it(`${kind}: every image is a small real JPEG of sensible dimensions`, () => {
      const images = imagesOf(sample.buildSampleEvent(kind, { images: 'pictures' }));
      assert.equal(images.length, kind === 'face' ? 2 : CROP_SIZE_NAMES.length);
      for (const [at, text, source] of images) {
        const { value, info } = decodeImage({ source, path: at, text }, 'buffer');
        assert.equal(info.contentType, 'image/jpeg', `${at} is a JPEG`);
        assert.ok(value.length > 1024, `${at}: ${value.length} bytes is more than 1 KB: a picture, not a filler`);
        assert.ok(value.length <= 12 * 1024, `${at}: ${value.length} bytes is at most 12 KB: small enough for every sample`);
        assert.deepEqual([...value.subarray(0, 2)], [0xff, 0xd8], `${at} starts with SOI`);
        assert.deepEqual([...value.subarray(-2)], [0xff, 0xd9], `${at} ends with EOI`);
        const { width, height } = jpegSize(value);
        assert.ok(width >= 100 && width <= 320, `${at}: width ${width}`);
        assert.ok(height >= 80 && height <= 240, `${at}: height ${height}`);
        assert.equal(Buffer.from(text, 'base64').toString('base64'), text, `${at} is canonical base64`);
      }
      assert.equal(new Set(images.map(([, text]) => text)).size, images.length, 'each image is a different picture');
    });

    it(`${kind}: only the images differ from the fillers sample; it passes the receiver schema`, () => {
      const pictures = sample.buildSampleEvent(kind, { now, messageId: 'm-1', images: 'pictures' });
      const fillers = sample.buildSampleEvent(kind, { now, messageId: 'm-1', images: 'fillers' });
      const unimaged = (event) => {
        const copy = JSON.parse(JSON.stringify(event));
        for (const [, , source] of imagesOf(copy)) {
          if (source === 'detection') copy.payload.detectionImage.image = '<image>';
          else if (source === 'photo') copy.payload.defaultPhoto.image = '<image>';
          else copy.payload.detectionImages.find((d) => d.cropSizeName === source).image = '<image>';
        }
        return copy;
      };
      assert.deepEqual(unimaged(pictures), unimaged(fillers));
      assert.ok(checkEvent(pictures).ok);
      // a new object tree: changing one sample's image leaves the next one's alone
      if (kind === 'lpr') pictures.payload.detectionImages[0].image = '/9g=';
      else pictures.payload.detectionImage.image = '/9g=';
      assert.notEqual(imagesOf(sample.buildSampleEvent(kind, { images: 'pictures' }))[0][1], '/9g=');
    });

    it(`${kind}: fillers are the default, and exactly today's samples`, () => {
      const same = (options) => JSON.stringify(sample.buildSampleEvent(kind, { now, messageId: 'm-1', ...options }));
      const fillers = same({ images: 'fillers' });
      assert.equal(same({}), fillers, 'the default is fillers');
      assert.equal(same({ images: undefined }), fillers);
      assert.equal(same({ images: 'photos' }), fillers, 'an unknown mode keeps the fillers (no failure path)');
      for (const [at, text] of imagesOf(JSON.parse(fillers))) assert.equal(text, sample.SAMPLE_IMAGE, `${at} is the two-byte filler`);
    });
  }

  it('the plate sample has one picture per cropSizeName, from the plate alone to the whole frame', () => {
    const event = sample.buildSampleEvent('lpr', { images: 'pictures' });
    assert.deepEqual(
      event.payload.detectionImages.map((d) => d.cropSizeName),
      [...CROP_SIZE_NAMES],
    );
    const area = (name) => {
      const { width, height } = jpegSize(Buffer.from(event.payload.detectionImages.find((d) => d.cropSizeName === name).image, 'base64'));
      return width * height;
    };
    assert.ok(area('Close') < area('Medium') && area('Medium') < area('Car'), 'Close, Medium, Car: wider and wider crops');
    assert.ok(area('FullFrame') >= area('Car'), 'the full frame is the largest');
  });
});

describe('lib/bridge/sample: helpers', () => {
  it('names the sample endpoint paths and the kinds', () => {
    assert.equal(sample.sampleModelPath('face'), '/api/v1/webhook-models/face');
    assert.equal(sample.sampleModelPath('lpr'), '/api/v1/webhook-models/lpr');
    assert.deepEqual([...sample.EVENT_KINDS], ['face', 'lpr']);
    assert.equal(sample.isEventKind('lpr'), true);
    assert.equal(sample.isEventKind('plate'), false);
  });

  it('is free of Node-RED, for reuse by the bridge simulator', () => {
    const fs = require('node:fs');
    for (const file of ['bridge/sample.js', 'bridge/sample-images.js', 'bridge/client.js']) {
      const text = fs.readFileSync(path.join(ROOT, 'dist', 'lib', file), 'utf8');
      assert.doesNotMatch(text, /require\("(node-red|@node-red\/[^"]+)"\)/, `${file} does not require Node-RED`);
    }
  });
});
