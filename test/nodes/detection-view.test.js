'use strict';
/**
 * msg.detection on the messages of detection in (through real HTTP) and
 * detection sample, as a flow sees them: lenient and strict receivers, both
 * kinds, tags expired before the detection, time zones, missing fields.
 */
const assert = require('node:assert/strict');
const { getHelper, nodeModule, loadWithHttp, closeServers, postJson, collect } = require('../support');
const ev = require('../fixtures/events');

const detectionIn = nodeModule('detection-in');
const detectionSample = nodeModule('detection-sample');
const helper = getHelper();

describe('msg.detection in flows', function () {
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
  });

  async function receiver(validation) {
    const base = await loadWithHttp(
      [detectionIn],
      [
        { id: 'f1', type: 'tab', label: 'test' },
        {
          id: 'in1',
          type: 'detection-in',
          z: 'f1',
          path: '/hooks/view',
          auth: 'none',
          headerName: '',
          maxBodyMiB: 16,
          validation,
          wires: [['ok'], []],
        },
        { id: 'ok', type: 'helper', z: 'f1' },
      ],
      {},
    );
    return { url: `${base}/hooks/view`, ok: helper.getNode('ok') };
  }

  for (const validation of ['lenient', 'strict']) {
    it(`detection in (${validation}): a face and a plate event carry their view, next to the event as sent`, async function () {
      const { url, ok } = await receiver(validation);
      const got = collect(ok, 2);
      const face = ev.fullFace();
      face.payload.personInfo.tags[0].expires = '2026-11-21T18:04:06Z'; // one second after the detection
      const plate = ev.fullLpr(); // its only tag expired in 2024, before the detection
      plate.payload.detectionInfo.timeZone = 'Europe/Berlin';
      assert.equal((await postJson(url, face)).status, 200);
      assert.equal((await postJson(url, plate)).status, 200);
      const [m1, m2] = await got;
      assert.deepEqual(m1.payload, face, 'the event itself is unchanged');
      assert.equal(m1.detection.kind, 'face');
      assert.equal(m1.detection.camera, 'Entrance Cam 3');
      assert.equal(m1.detection.site, 'eConnect Site 1 FR');
      assert.deepEqual(m1.detection.tags, ['acme-VIP', 'acme-Banned'], 'a tag expiring after the detection counts');
      assert.equal(m1.detection.fullName, 'John Michael Doe');
      assert.equal(m1.detection.localTime, '2026-11-21 10:04:05');
      assert.equal(m1.detection.confidence, 0.93);
      assert.equal(m1.detection.messageId, m1.messageId);
      assert.ok(!JSON.stringify(m1.detection).includes('/9j/'), 'no image in the view');
      assert.equal(m2.detection.kind, 'lpr');
      assert.equal(m2.detection.plate, 'XYZ987');
      assert.deepEqual(m2.detection.tags, [], 'a tag that expired before the detection does not count');
      assert.equal(m2.detection.timeZone, 'Europe/Berlin');
      assert.equal(m2.detection.localTime, '2026-11-21 19:04:05');
      assert.equal(m2.detection.confidence, null);
    });
  }

  it('detection in: events with only the required fields, and nulls, have a view with nulls', async function () {
    const { url, ok } = await receiver('lenient');
    const got = collect(ok, 4);
    for (const event of [ev.minimalFace(), ev.minimalLpr(), ev.nullsFace(), ev.nullsLpr()]) assert.equal((await postJson(url, event)).status, 200);
    const msgs = await got;
    assert.deepEqual(
      msgs.map((m) => [m.detection.kind, m.detection.camera, m.detection.enrolled, m.detection.messageId, m.detection.timeZone]),
      [
        ['face', 'Cam', false, null, 'UTC'],
        ['lpr', 'Gate', false, null, 'UTC'],
        ['face', 'Cam', false, null, 'UTC'],
        ['lpr', 'Gate', false, null, 'UTC'],
      ],
    );
    assert.equal(msgs[3].detection.vehicleMake, null);
    assert.equal(msgs[1].detection.plate, 'ABC123');
  });

  it('detection in (lenient): a deviating event still gets its view (confidence in percent read as a fraction)', async function () {
    const { url, ok } = await receiver('lenient');
    const got = collect(ok, 1);
    const event = ev.fullFace();
    event.payload.detectionInfo.confidence = 93;
    assert.equal((await postJson(url, event)).status, 200);
    const [msg] = await got;
    assert.ok(msg.warnings.length > 0, 'the deviation is reported');
    assert.equal(msg.detection.confidence, 0.93);
  });

  it('detection sample: built-in face and plate samples carry their view', async function () {
    await helper.load(detectionSample, [
      { id: 'f1', type: 'tab', label: 'test' },
      { id: 's1', type: 'detection-sample', z: 'f1', kind: 'msg', source: 'builtin', baseUrl: '', timeout: 10, wires: [['out']] },
      { id: 'out', type: 'helper', z: 'f1' },
    ]);
    const got = collect(helper.getNode('out'), 2);
    helper.getNode('s1').receive({ kind: 'face' });
    helper.getNode('s1').receive({ kind: 'lpr' });
    const [face, plate] = await got;
    assert.equal(face.detection.camera, face.payload.payload.detectionInfo.detectorName);
    assert.equal(face.detection.faceId, face.payload.payload.personInfo.faceId);
    assert.ok(face.detection.tags.includes('VIP'), 'the sample’s VIP tag expires in 2030');
    assert.equal(face.detection.time, face.payload.payload.detectionInfo.dateTimeUtc);
    assert.equal(plate.detection.plate, plate.payload.payload.lprPlateInfo.plate);
    assert.equal(plate.detection.vehicleColor, 'Blue');
    assert.equal(plate.detection.messageId, plate.messageId);
  });
});
