'use strict';
/**
 * End to end in a real Node-RED with the packed module:
 * detection-in → detection-dedupe → detection-switch → detection-image,
 * a resent event comes out once, also across a restart (file context store),
 * and the example flows run as imported.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { nodeRedVersion, request, postJson, until } = require('../support');
const { NodeRedProcess, probeFunction, readProbeLines } = require('../support/nodered-process');
const ev = require('../fixtures/events');

const TAB = 'e2eflowtab000001';
const TOKEN = 'e2e-bearer-token';

function pipeline(probeFile) {
  const probe = probeFunction(`{
    kind: msg.kind, messageId: msg.messageId, resent: msg.resent,
    isBuffer: Buffer.isBuffer(msg.image), imageBytes: msg.image && msg.image.length,
    imageInfo: msg.imageInfo, filename: msg.filename
  }`);
  return [
    { id: TAB, type: 'tab', label: 'pipeline' },
    {
      id: 'e2ein',
      type: 'detection-in',
      z: TAB,
      name: '',
      path: '/e2e/pipeline',
      auth: 'bearer',
      headerName: '',
      maxBodyMiB: 16,
      validation: 'lenient',
      credentials: { token: TOKEN },
      wires: [['e2edd'], []],
    },
    {
      id: 'e2edd',
      type: 'detection-dedupe',
      z: TAB,
      name: '',
      mode: 'id',
      key: 'messageId',
      keyType: 'msg',
      missingKey: 'pass',
      ttl: 1,
      ttlUnits: 'h',
      refresh: false,
      maxKeys: 100000,
      duplicatesOutput: false,
      persist: true,
      store: 'file',
      outputs: 1,
      wires: [['e2esw']],
    },
    {
      id: 'e2esw',
      type: 'detection-switch',
      z: TAB,
      name: '',
      property: 'payload',
      propertyType: 'msg',
      otherOutput: true,
      outputs: 3,
      wires: [['e2eimgface'], ['e2eimgplate'], []],
    },
    {
      id: 'e2eimgplate',
      type: 'detection-image',
      z: TAB,
      name: '',
      property: 'payload',
      propertyType: 'msg',
      crops: 'Close,Medium,Car,FullFrame,Other',
      plateMode: 'first',
      faceImage: 'detection',
      faceFallback: true,
      format: 'buffer',
      outputProperty: 'image',
      noImage: 'output',
      outputs: 2,
      wires: [['e2eprobe'], []],
    },
    {
      id: 'e2eimgface',
      type: 'detection-image',
      z: TAB,
      name: '',
      property: 'payload',
      propertyType: 'msg',
      crops: 'Close,Medium,Car,FullFrame,Other',
      plateMode: 'first',
      faceImage: 'detection',
      faceFallback: true,
      format: 'buffer',
      outputProperty: 'image',
      noImage: 'output',
      outputs: 2,
      wires: [['e2eprobe'], []],
    },
    {
      id: 'e2eprobe',
      type: 'function',
      z: TAB,
      name: 'probe',
      func: probe,
      outputs: 1,
      timeout: 0,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      wires: [['e2efile']],
    },
    {
      id: 'e2efile',
      type: 'file',
      z: TAB,
      name: '',
      filename: probeFile,
      filenameType: 'str',
      appendNewline: true,
      createDir: true,
      overwriteFile: 'false',
      encoding: 'utf8',
      wires: [[]],
    },
  ];
}

/** An example as imported, on a tab of its own. */
function onTab(nodes, tabId, label) {
  return [{ id: tabId, type: 'tab', label }, ...nodes.map((n) => ({ ...n, z: tabId }))];
}

describe(`e2e: detection pipeline in a real Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(30000);
  let nr;
  let probeFile;
  let endpoint;
  const auth = { authorization: `Bearer ${TOKEN}` };
  const probeLines = () => readProbeLines(probeFile);

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create({
      settings: { contextStorage: { default: { module: 'memory' }, file: { module: 'localfilesystem' } } },
    });
    probeFile = path.join(nr.userDir, 'probe.jsonl');
    endpoint = `${nr.url}/e2e/pipeline`;
    await nr.start();
    await nr.deploy(pipeline(probeFile));
    await nr.answers('/e2e/pipeline', 405); // the route is up
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (nr) await nr.cleanup();
  });

  it('a resent event (same messageId, resentEvent true) comes out once, with its best crop decoded', async () => {
    const event = ev.bigLpr(1024 * 1024, 'e2e-lpr-resent');
    // Crops in an order where array position would pick the wrong one.
    event.payload.detectionImages.reverse();
    const replay = JSON.parse(JSON.stringify(event));
    replay.payload.resentEvent = true;
    assert.equal((await postJson(endpoint, event, auth)).status, 200);
    assert.equal((await postJson(endpoint, replay, auth)).status, 200, 'the replay is acknowledged too, so the bridge stops');
    assert.equal((await postJson(endpoint, replay, auth)).status, 200);
    // A plate after them takes the same road, node by node in order: once it is written, the replays are known to be dropped, not late.
    const after = ev.fullLpr();
    after.payload.messageId = 'e2e-lpr-after-replays';
    assert.equal((await postJson(endpoint, after, auth)).status, 200);
    await until(() => probeLines().some((l) => l.messageId === 'e2e-lpr-after-replays'), 10000, 'the plate after the replays at the end of the flow');
    const plates = probeLines().filter((l) => l.messageId === 'e2e-lpr-resent');
    assert.equal(plates.length, 1, `came out ${plates.length} times`);
    const [plate] = plates;
    assert.equal(plate.resent, false, 'the first delivery is the one that passed');
    assert.equal(plate.isBuffer, true);
    const close = event.payload.detectionImages.find((i) => i.cropSizeName === 'Close');
    assert.equal(plate.imageBytes, Buffer.from(close.image, 'base64').length);
    assert.equal(plate.imageInfo.source, 'Close');
    assert.equal(plate.imageInfo.contentType, 'image/jpeg');
    assert.match(plate.filename, /XYZ987.*Close\.jpg$/);
  });

  it('a file-backed dedupe window survives a restart of Node-RED', async function () {
    this.timeout(60000);
    const event = ev.fullLpr();
    event.payload.messageId = 'e2e-lpr-restart';
    assert.equal((await postJson(endpoint, event, auth)).status, 200);
    await until(() => probeLines().some((l) => l.messageId === 'e2e-lpr-restart'), 10000, 'the first delivery');
    await nr.restart();
    await nr.answers('/e2e/pipeline', 405);
    const replay = JSON.parse(JSON.stringify(event));
    replay.payload.resentEvent = true;
    assert.equal((await postJson(endpoint, replay, auth)).status, 200);
    const fresh = ev.fullLpr();
    fresh.payload.messageId = 'e2e-lpr-after-restart';
    assert.equal((await postJson(endpoint, fresh, auth)).status, 200);
    // the new plate took the replay's road after it: once it is written, the replay is known to be dropped, not late
    await until(() => probeLines().some((l) => l.messageId === 'e2e-lpr-after-restart'), 10000, 'a new event after the restart');
    assert.equal(probeLines().filter((l) => l.messageId === 'e2e-lpr-restart').length, 1, 'the replay after the restart was dropped');
  });

  it('runs the dedupe-and-route and plate-snapshot examples as imported', async () => {
    const dedupeExample = await nr.example('dedupe-and-route');
    const snapshotExample = await nr.example('plate-snapshot');
    await nr.deploy([
      ...pipeline(probeFile),
      ...onTab(dedupeExample, 'e2eexampletab001', 'dedupe-and-route'),
      ...onTab(snapshotExample, 'e2eexampletab002', 'plate-snapshot'),
    ]);
    const comms = await nr.openComms();
    try {
      const press = async (name, nodes) => {
        const inject = nodes.find((n) => n.type === 'inject' && n.name === name);
        assert.ok(inject, `the example has an inject "${name}"`);
        // The deploy answers before the new flows have started: retry until the inject exists.
        await until(async () => (await request(`${nr.url}/inject/${inject.id}`, { method: 'POST' })).status === 200, 10000, `inject "${name}"`);
      };
      // dedupe-and-route: the same plate event twice, through a real POST too
      const plateDebug = dedupeExample.find((n) => n.type === 'debug' && n.name === 'plate');
      const dedupeNode = dedupeExample.find((n) => n.type === 'detection-dedupe');
      await press('same plate event (press twice)', dedupeExample);
      await until(() => comms.debug(plateDebug.id).length === 1, 10000, 'the plate in the debug sidebar');
      await press('same plate event (press twice)', dedupeExample);
      const posted = ev.fullLpr();
      posted.payload.messageId = 'demo-plate-0001';
      assert.equal((await postJson(`${nr.url}/detections/deduped`, posted)).status, 200);
      await until(() => /1 passed · 2 dropped/.test((comms.status(dedupeNode.id) || {}).text || ''), 10000, 'the dedupe status');
      assert.equal(comms.debug(plateDebug.id).length, 1);
      assert.equal(comms.debug(plateDebug.id)[0].msg, 'XYZ987 at Gate 2');

      // plate-snapshot: picks the Close crop by name and writes the file
      const savedDebug = snapshotExample.find((n) => n.type === 'debug' && n.name === 'saved');
      const faceDebug = snapshotExample.find((n) => n.type === 'debug' && n.name === 'face image');
      await press('plate event', snapshotExample);
      await press('face event', snapshotExample);
      await until(() => comms.debug(faceDebug.id).length === 1, 10000, 'the face image info in the debug sidebar');
      assert.equal(JSON.parse(comms.debug(faceDebug.id)[0].msg).source, 'detection');
      const [saved] = await until(
        () => comms.debug(savedDebug.id).length === 1 && comms.debug(savedDebug.id),
        10000,
        'the saved file in the debug sidebar',
      );
      const { file, imageInfo } = JSON.parse(saved.msg);
      assert.match(file, /^\/tmp\/detection-bridge\/.*XYZ987.*Close/);
      assert.equal(imageInfo.source, 'Close', 'picked by name although Close is the last crop');
      assert.deepEqual([...fs.readFileSync(file)], [0xff, 0xd8], 'the decoded 2-byte sample image');
      fs.rmSync(file);
      assert.deepEqual(nr.errorLines(), []);
    } finally {
      comms.close();
    }
  });
});
