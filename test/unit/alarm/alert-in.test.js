'use strict';
/**
 * A detection event as the alarm book sees it (lib/alarm/alert-in.ts): the
 * key that joins its reads into one alarm, by each keyBy (the plate with
 * look-alikes folded as presence folds them, or the person; the camera;
 * both; the externalId), what people read, and the slim copy kept for
 * reminders: the one picture an alert shows, no other big string.
 */
const assert = require('node:assert/strict');
const { alertOf, slimEvent, ALARM_KEYS } = require('../../../dist/lib/alarm/alert-in');
const { AlarmBook, emptyBook } = require('../../../dist/lib/alarm/book');
const { readAction } = require('../../../dist/lib/alarm/action');
const { viewOfEvent } = require('../../../dist/lib/events');
const { parseLookalikeClasses, normalisePlate } = require('../../../dist/lib/plates');
const { NODE_OPTIONS } = require('../../../dist/lib/config/node-options');
const ev = require('../../fixtures/events');

const NOW = Date.parse('2026-11-21T18:10:00Z');
const classes = (text) => {
  const parsed = parseLookalikeClasses(text);
  assert.equal(parsed.ok, true);
  return parsed.lookalikes;
};
const ALIKE = classes('0ODQ 8B');
const alert = (event, by, lookalikes, urgent = false) => alertOf(viewOfEvent(event, NOW), event, by, lookalikes, urgent);
const lpr = (plate, camera = 'Car Park Gate 2', extra = {}) => {
  const e = ev.fullLpr(extra);
  e.payload.lprPlateInfo.plate = plate;
  if (camera === null) delete e.payload.detectionInfo.detectorName;
  else e.payload.detectionInfo.detectorName = camera;
  return e;
};

describe('alarm alerts from events', () => {
  it('offers the keys of the option table', () => {
    assert.deepEqual(NODE_OPTIONS['detection-alarm'].keyBy.choices, [...ALARM_KEYS]);
  });

  describe('keyed by subject', () => {
    it('a plate: normalised, labelled as read; the camera as sent', () => {
      assert.deepEqual(alert(lpr('xyz-987'), 'subject'), {
        ok: true,
        alert: { key: 'lpr:XYZ987', label: 'xyz-987', kind: 'lpr', camera: 'Car Park Gate 2', urgent: false },
      });
    });

    it('look-alikes folded by the classes the node was given: a misread is the same alarm', () => {
      const a = alert(lpr('BOB123'), 'subject', ALIKE).alert;
      const b = alert(lpr('8O8 123'), 'subject', ALIKE).alert;
      assert.deepEqual([a.key, b.key, b.label], ['lpr:808123', 'lpr:808123', '8O8 123']);
      assert.equal(alert(lpr('BOB123'), 'subject').alert.key, 'lpr:BOB123', 'no classes: as read');
      assert.equal(alert(lpr('5OB123'), 'subject', ALIKE).alert.key, 'lpr:508123', '5 and S are not a class here');
      assert.notEqual(alert(lpr('BOB123'), 'subject', classes('')).alert.key, b.key, 'empty classes fold nothing');
    });

    it('a face: by face id, labelled with the name; urgent as the node says', () => {
      assert.deepEqual(alert(ev.fullFace(), 'subject', ALIKE, true), {
        ok: true,
        alert: { key: 'face:abc12345', label: 'John Michael Doe', kind: 'face', camera: 'Entrance Cam 3', urgent: true },
      });
      assert.equal(alert(ev.minimalFace(), 'subject').alert.label, 'f1', 'no name: the face id');
    });

    it('no plate or face id: no key; one too long to be a key: says so', () => {
      assert.deepEqual(alert(lpr(' - '), 'subject'), { ok: false, reason: 'no-key' });
      assert.deepEqual(alert(lpr('A'.repeat(201)), 'subject'), { ok: false, reason: 'key-too-long' });
    });
  });

  describe('keyed by camera', () => {
    it('the camera trimmed and in lower case; its subject carried, so a snooze of the plate holds it', () => {
      const read = alert(lpr('BOB123', ' Car Park GATE 2 '), 'camera', ALIKE);
      assert.deepEqual(read, {
        ok: true,
        alert: {
          key: 'camera:car park gate 2',
          label: ' Car Park GATE 2 ',
          kind: 'lpr',
          camera: ' Car Park GATE 2 ',
          urgent: false,
          subject: 'lpr:808123',
        },
      });
      assert.equal(alert(ev.fullFace(), 'camera').alert.subject, 'face:abc12345');
    });

    it('an event without a plate still has its camera; without a camera there is no key', () => {
      const read = alert(lpr(''), 'camera');
      assert.deepEqual([read.ok, read.alert.key, 'subject' in read.alert], [true, 'camera:car park gate 2', false]);
      for (const camera of [null, '', '   ']) assert.deepEqual(alert(lpr('AB1', camera), 'camera'), { ok: false, reason: 'no-key' }, String(camera));
    });

    it('a camera name longer than the book keeps is cut', () => {
      const read = alert(lpr('AB1', 'C'.repeat(300)), 'camera');
      assert.deepEqual([read.alert.camera.length, read.alert.key], [200, `camera:${'c'.repeat(200)}`]);
    });
  });

  describe('keyed by subject at a camera', () => {
    it('both in the key, the subject alone beside it; the label says both', () => {
      assert.deepEqual(alert(lpr('BOB-123', 'Gate 2'), 'subjectCamera', ALIKE), {
        ok: true,
        alert: { key: 'lpr:808123@camera:gate 2', subject: 'lpr:808123', label: 'BOB-123 · Gate 2', kind: 'lpr', camera: 'Gate 2', urgent: false },
      });
      assert.equal(alert(ev.fullFace(), 'subjectCamera').alert.key, 'face:abc12345@camera:entrance cam 3');
    });

    it('without either there is no key', () => {
      assert.deepEqual(alert(lpr('AB1', ''), 'subjectCamera'), { ok: false, reason: 'no-key' });
      assert.deepEqual(alert(lpr('', 'Gate 2'), 'subjectCamera'), { ok: false, reason: 'no-key' });
    });
  });

  describe('keyed by externalId', () => {
    it('the integrator’s id, for plates and faces; none without one', () => {
      assert.deepEqual(alert(lpr('AB1'), 'externalId'), {
        ok: true,
        alert: { key: 'ext:98765', label: 'AB1', kind: 'lpr', camera: 'Car Park Gate 2', urgent: false },
      });
      assert.equal(alert(ev.fullFace(), 'externalId').alert.key, 'ext:12345');
      assert.equal(alert(ev.fullFace({ externalId: 4711 }), 'externalId').alert.key, 'ext:4711');
      assert.deepEqual(alert(ev.fullFace({ externalId: null }), 'externalId'), { ok: false, reason: 'no-key' });
      assert.deepEqual(alert(ev.minimalLpr(), 'externalId'), { ok: false, reason: 'no-key' });
    });
  });

  it('a snooze asked for by message holds the alerts of that plate, however they are keyed', () => {
    const plateKey = (plate) => ALIKE.fold(normalisePlate(plate));
    for (const by of ['subject', 'camera', 'subjectCamera']) {
      const book = new AlarmBook(emptyBook(), {
        remindMs: 0,
        maxReminders: 0,
        escalateMs: 0,
        quietMs: 0,
        maxOpen: 10,
        urgentPierces: false,
        historyMax: 10,
        historyMaxAgeMs: Infinity,
      });
      const { target } = readAction('snooze', { plate: 'bob 123' }, plateKey, 'x').request;
      book.snooze(target.scope, target.value, target.label, 60_000, { by: 'x', via: 'message' }, NOW);
      assert.equal(book.raise(alert(lpr('8O8123', 'Gate 2'), by, ALIKE).alert, NOW).outcome, 'held', by);
      assert.equal(book.raise(alert(lpr('XYZ987', 'Gate 2'), by, ALIKE).alert, NOW).outcome, 'opened', by);
    }
  });

  describe('the slim event', () => {
    const big = (tag, length = 6000) => `${tag}:`.padEnd(length, tag[0]);
    const withCrops = (names) => {
      const e = lpr('AB1');
      e.payload.detectionImages = names.map((cropSizeName) => ({ image: big(cropSizeName), cropSizeName }));
      return e;
    };
    const imagesOf = (slim) =>
      slim.payload.detectionImages.map((c) => [c.cropSizeName, c.image === undefined ? '-' : c.image.slice(0, c.image.indexOf(':'))]);

    it('keeps the crop an alert shows (Close, Medium, Car, FullFrame, Other, in that order), wherever it is; drops the others', () => {
      const order = ['Close', 'Medium', 'Car', 'FullFrame', 'Other'];
      for (let i = 0; i < order.length; i++) {
        const present = order.slice(i).reverse();
        const slim = slimEvent(withCrops(present));
        assert.deepEqual(
          imagesOf(slim),
          present.map((name) => [name, name === order[i] ? name : '-']),
          present.join(),
        );
      }
    });

    it('a crop of a name it does not know is never the one kept', () => {
      assert.deepEqual(imagesOf(slimEvent(withCrops(['Wide', 'Other']))), [
        ['Wide', '-'],
        ['Other', 'Other'],
      ]);
      assert.deepEqual(imagesOf(slimEvent(withCrops(['Wide']))), [['Wide', '-']]);
    });

    it('keeps only the picked field even when another picture is the same text', () => {
      const e = withCrops(['Medium', 'Close', 'FullFrame']);
      e.payload.detectionImages[2].image = e.payload.detectionImages[1].image;
      assert.deepEqual(imagesOf(slimEvent(e)), [
        ['Medium', '-'],
        ['Close', 'Close'],
        ['FullFrame', '-'],
      ]);
    });

    it('a face: the live capture, or the enrolled photo when there is none', () => {
      const face = ev.fullFace();
      face.payload.detectionImage.image = big('live');
      face.payload.defaultPhoto.image = big('photo');
      const slim = slimEvent(face);
      assert.deepEqual([slim.payload.detectionImage, slim.payload.defaultPhoto], [{ image: face.payload.detectionImage.image }, {}]);
      face.payload.detectionImage = null;
      const fallback = slimEvent(face);
      assert.deepEqual([fallback.payload.detectionImage, fallback.payload.defaultPhoto], [null, { image: face.payload.defaultPhoto.image }]);
    });

    it('drops any other big string, keeps small ones as they are, and leaves the event untouched', () => {
      const face = ev.fullFace();
      face.payload.personInfo.notes[0].noteBody = big('note', 4097);
      face.payload.personInfo.notes.push({ noteTitle: 'edge', noteBody: 'n'.repeat(4096) });
      const before = structuredClone(face);
      const slim = slimEvent(face);
      assert.deepEqual(face, before, 'the event is not changed');
      assert.deepEqual(slim.payload.personInfo.notes, [{ noteTitle: 'Monitor reason' }, { noteTitle: 'edge', noteBody: 'n'.repeat(4096) }]);
      const expected = structuredClone(before);
      expected.payload.personInfo.notes = slim.payload.personInfo.notes;
      assert.deepEqual(slim, expected, 'everything else as it was (the small pictures too)');
    });

    it('without an event to pick from, every big string goes', () => {
      const thing = { a: big('x'), b: [big('y'), 'small'], c: { d: 1, e: null, f: true } };
      assert.deepEqual(slimEvent(thing), { b: [undefined, 'small'], c: { d: 1, e: null, f: true } });
      assert.equal(slimEvent('text'), 'text');
      assert.equal(slimEvent(big('x')), undefined);
      assert.equal(slimEvent(null), null);
    });

    it('an event of megabytes keeps one picture’s worth', () => {
      const e = withCrops(['Close', 'Medium', 'Car', 'FullFrame']);
      for (const crop of e.payload.detectionImages) crop.image = crop.image.padEnd(500_000, 'z');
      assert.ok(JSON.stringify(e).length > 2_000_000);
      assert.ok(JSON.stringify(slimEvent(e)).length < 503_000);
    });
  });
});
