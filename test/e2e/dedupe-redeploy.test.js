'use strict';
/**
 * A deploy never repeats an alert (issue 25): the alert-with-picture example,
 * as Import → Examples serves it, is deployed to a real Node-RED (the packed
 * module) through the admin API, then deployed again twice (full deploys)
 * with events in between. The dedupe's cooldown (plate or person at camera)
 * is kept across each deploy: the same plate at the same camera, and the
 * bridge's retry of an event, make no second alert; a new person does.
 *
 * One receiver emits in order and each node decides in order, so once the
 * alert of the last event of a round shows, every event before it has been
 * decided: no sleeping.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, nodeRedVersion, postJson, until } = require('../support');
const { NodeRedProcess } = require('../support/nodered-process');

const EXAMPLE = 'alert-with-picture';
const TAB = 'e2ededupedeploy1';
const EMAIL_DEBUG = 'e-mail (put an e-mail node here)';
const { buildSampleEvent } = require(path.join(ROOT, 'dist', 'lib'));

/** A small real JPEG (SOI, JFIF APP0, EOI): the image node only sniffs the format. */
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9,
]).toString('base64');

/** The example's VIP plate at its camera (an alert), with its own messageId. */
function vipPlate(messageId) {
  const event = buildSampleEvent('lpr', { messageId });
  for (const image of event.payload.detectionImages) image.image = JPEG;
  return event;
}

/** A person tagged Banned at the example's face camera (an alert), with its own messageId and face id. */
function bannedPerson(messageId, faceId) {
  const event = buildSampleEvent('face', { messageId });
  event.payload.detectionImage = { image: JPEG };
  event.payload.defaultPhoto = { image: JPEG };
  event.payload.personInfo.faceId = faceId;
  event.payload.personInfo.tags = [{ tagName: 'Banned', expires: null }];
  return event;
}

describe(`e2e: a deploy repeats no alert (dedupe window kept), Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(120000);
  let nr;
  let comms;

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create();
    await nr.start();
    comms = await nr.openComms();
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (comms) comms.close();
    if (nr) await nr.cleanup();
  });

  it('the alert example, deployed three times with events in between, sends each alert once', async () => {
    const imported = await nr.example(EXAMPLE);
    const flow = [{ id: TAB, type: 'tab', label: 'alerts' }, ...imported.map((n) => ({ ...n, z: TAB }))];
    const dedupe = flow.find((n) => n.type === 'detection-dedupe');
    assert.equal(dedupe.key, 'plateAtCamera', 'the example keys on the plate (or person) at the camera, picked by name');
    const email = flow.find((n) => n.type === 'debug' && n.name === EMAIL_DEBUG);
    const receiver = flow.find((n) => n.type === 'detection-in');
    const url = `${nr.url}${receiver.path}`;
    const alerts = () => comms.debug(email.id).map((d) => (typeof d.msg === 'string' ? JSON.parse(d.msg) : d.msg).detection.messageId);
    const post = async (event) => {
      const res = await postJson(url, event);
      assert.equal(res.status, 200, res.text);
    };

    await nr.deploy(flow, { [receiver.path]: 405 });
    const first = vipPlate('round1-plate');
    await post(first);
    await post(bannedPerson('round1-person', 'face-1'));
    await until(() => alerts().includes('round1-person'), 20000, 'the alerts of round 1');

    for (const round of [2, 3]) {
      await nr.deploy(flow, { [receiver.path]: 405 });
      // within the cooldown: the same plate at the same camera, and the bridge's retry of the first event
      await post(vipPlate(`round${round}-plate`));
      await post({ ...first, payload: { ...first.payload, resentEvent: true } });
      await post(bannedPerson(`round${round}-person`, `face-${round}`)); // a new person: an alert
      await until(() => alerts().includes(`round${round}-person`), 20000, `the alert of round ${round}`);
    }
    assert.deepEqual(alerts(), ['round1-plate', 'round1-person', 'round2-person', 'round3-person'], 'each alert once');
    assert.deepEqual(nr.errorLines(), []);
  });
});
