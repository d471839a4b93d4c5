'use strict';
/**
 * A detection event as a sighting: the key by each setting (plates folded
 * by look-alike classes), the label, the camera and exit cameras, the time;
 * and what presence tells flows (msg.presence, the "present now" rows).
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT } = require('../../support');
const { viewOfEvent } = require(path.join(ROOT, 'dist/lib/events'));
const { DEFAULT_LOOKALIKES } = require(path.join(ROOT, 'dist/lib/plates'));
const { NODE_OPTIONS } = require(path.join(ROOT, 'dist/lib/config/node-options'));
const { sightingOf, parseCameraList, keyDefinition, PRESENCE_KEYS } = require(path.join(ROOT, 'dist/lib/presence/sighting'));
const { presenceReport, presentRows, isLate, LATE_AFTER_MS } = require(path.join(ROOT, 'dist/lib/presence/report'));
const ev = require('../../fixtures/events');

const NOW = Date.parse('2026-11-21T18:10:00Z');
const keying = (by, extra = {}) => ({ by, exitCameras: new Set(), ...extra });
const read = (event, k, now = NOW) => sightingOf(viewOfEvent(event, now), event, k, now);

describe('presence: sightings from events', () => {
  it('offers the keys of the option table', () => {
    assert.deepEqual(NODE_OPTIONS['detection-presence'].keyBy.choices, [...PRESENCE_KEYS]);
  });

  it('plate for plates and face id for faces by default; the plate normalised, folded by look-alikes when asked', () => {
    const lpr = ev.fullLpr();
    lpr.payload.lprPlateInfo.plate = 'bob-123';
    const exact = read(lpr, keying('plateOrFace'));
    assert.equal(exact.ok, true);
    assert.deepEqual(
      { id: exact.sighting.id, key: exact.sighting.key, kind: exact.sighting.kind, label: exact.sighting.label },
      { id: 'lpr:BOB123', key: 'BOB123', kind: 'lpr', label: 'bob-123' },
    );
    const folded = read(lpr, keying('plateOrFace', { lookalikes: DEFAULT_LOOKALIKES }));
    const misread = ev.fullLpr();
    misread.payload.lprPlateInfo.plate = '8OB123';
    const other = read(misread, keying('plateOrFace', { lookalikes: DEFAULT_LOOKALIKES }));
    assert.equal(folded.sighting.id, other.sighting.id, '8OB123 and BOB123 are one car');
    assert.equal(other.sighting.label, '8OB123', 'the label is the plate as read');

    const face = read(ev.fullFace(), keying('plateOrFace'));
    assert.deepEqual([face.sighting.id, face.sighting.label, face.sighting.kind], ['face:abc12345', 'John Michael Doe', 'face']);
  });

  it('plate only, face only, externalId: an event without that key has none', () => {
    assert.deepEqual(read(ev.fullFace(), keying('plate')), { ok: false, reason: 'no-key' });
    assert.deepEqual(read(ev.fullLpr(), keying('face')), { ok: false, reason: 'no-key' });
    const face = read(ev.fullFace(), keying('externalId'));
    assert.deepEqual([face.sighting.id, face.sighting.key], ['ext:12345', '12345']);
    const unenrolled = ev.fullLpr();
    unenrolled.externalId = null;
    assert.deepEqual(read(unenrolled, keying('externalId')), { ok: false, reason: 'no-key' });
    const noPlate = ev.fullLpr();
    noPlate.payload.lprPlateInfo.plate = ' - ';
    assert.deepEqual(read(noPlate, keying('plateOrFace')), { ok: false, reason: 'no-key' });
  });

  it('takes a face id a lenient receiver let through as a number; refuses a key too long to be one', () => {
    const face = ev.fullFace();
    face.payload.personInfo.faceId = 4711;
    assert.equal(read(face, keying('face')).sighting.id, 'face:4711');
    face.payload.personInfo.faceId = 'x'.repeat(201);
    assert.deepEqual(read(face, keying('face')), { ok: false, reason: 'key-too-long' });
  });

  it('the detection time, never after now; now when the event has none', () => {
    const lpr = ev.fullLpr();
    lpr.payload.detectionInfo.dateTimeUtc = '2026-11-21T18:04:05.1234567Z';
    assert.equal(read(lpr, keying('plate')).sighting.time, Date.parse('2026-11-21T18:04:05.123Z'));
    lpr.payload.detectionInfo.dateTimeUtc = '2026-11-21T19:00:00Z';
    assert.equal(read(lpr, keying('plate')).sighting.time, NOW);
    lpr.payload.detectionInfo.dateTimeUtc = 'yesterday';
    assert.equal(read(lpr, keying('plate')).sighting.time, NOW);
  });

  it('exit cameras by name, trimmed, in any case', () => {
    const exits = parseCameraList(' Gate 2 LPR, exit cam\nBack Door ,,');
    assert.deepEqual([...exits], ['gate 2 lpr', 'exit cam', 'back door']);
    const lpr = ev.fullLpr();
    lpr.payload.detectionInfo.detectorName = 'EXIT CAM ';
    assert.equal(read(lpr, keying('plate', { exitCameras: exits })).sighting.exit, true);
    lpr.payload.detectionInfo.detectorName = 'Entry cam';
    assert.equal(read(lpr, keying('plate', { exitCameras: exits })).sighting.exit, false);
    assert.deepEqual([...parseCameraList(undefined)], []);
  });

  it('a key definition changes with what keys mean, not with exit cameras', () => {
    const a = keyDefinition(keying('plate', { lookalikes: DEFAULT_LOOKALIKES }));
    assert.equal(keyDefinition(keying('plate', { lookalikes: DEFAULT_LOOKALIKES, exitCameras: new Set(['x']) })), a);
    assert.notEqual(keyDefinition(keying('plate')), a);
    assert.notEqual(keyDefinition(keying('face', { lookalikes: DEFAULT_LOOKALIKES })), a);
  });
});

describe('presence: what flows see', () => {
  const entry = {
    id: 'lpr:AB1',
    key: 'AB1',
    kind: 'lpr',
    label: 'AB 1',
    firstSeen: NOW - 3600_000,
    lastSeen: NOW - 600_000,
    cameras: ['Gate 1'],
    sightings: 4,
    stillHereSent: false,
  };

  it('msg.presence: ISO times, the dwell to the last sighting (left) or to now (still here)', () => {
    const left = presenceReport(entry, 'left', NOW, { reason: 'away', late: true });
    assert.deepEqual(left, {
      key: 'AB1',
      kind: 'lpr',
      label: 'AB 1',
      state: 'left',
      firstSeen: new Date(NOW - 3600_000).toISOString(),
      lastSeen: new Date(NOW - 600_000).toISOString(),
      dwellSeconds: 3000,
      cameras: ['Gate 1'],
      sightings: 4,
      reason: 'away',
      late: true,
    });
    assert.notEqual(left.cameras, entry.cameras, 'a copy: a flow changing it does not change the state');
    assert.equal(presenceReport(entry, 'still-here', NOW).dwellSeconds, 3600);
    assert.equal('late' in presenceReport(entry, 'left', NOW, { late: false }), false);
  });

  it('late: a minute or more after its time, or due before the node took its state back after a restart', () => {
    assert.equal(isLate(NOW - LATE_AFTER_MS + 1, NOW), false);
    assert.equal(isLate(NOW - LATE_AFTER_MS, NOW), true);
    assert.equal(isLate(NOW - 1000, NOW, NOW - 500), true);
    assert.equal(isLate(NOW - 1000, NOW, NOW - 2000), false);
  });

  it('present now: longest present first, then by key', () => {
    const rows = presentRows(
      [
        { ...entry, id: 'lpr:B', key: 'B', firstSeen: NOW - 60_000 },
        { ...entry, id: 'lpr:C', key: 'C', firstSeen: NOW - 120_000 },
        { ...entry, id: 'lpr:A', key: 'A', firstSeen: NOW - 60_000 },
      ],
      NOW,
    );
    assert.deepEqual(
      rows.map((r) => [r.key, r.dwellSeconds]),
      [
        ['C', 120],
        ['A', 60],
        ['B', 60],
      ],
    );
    assert.deepEqual(Object.keys(rows[0]), ['key', 'kind', 'label', 'firstSeen', 'lastSeen', 'dwellSeconds', 'cameras', 'sightings']);
  });
});
