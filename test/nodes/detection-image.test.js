'use strict';
/**
 * detection-image inside the Node-RED runtime (node-red-node-test-helper),
 * and the example flow examples/plate-snapshot.json with the core nodes it uses.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, NODE_RED_DIR, getHelper, nodeModule, translatedModule, translate, collect, until } = require('../support');
const ev = require('../fixtures/events');
const { checkEvent } = require('../../dist/lib/events/schemas');

const TYPE = 'detection-image';
const detectionImage = nodeModule(TYPE);
const detectionSwitch = nodeModule('detection-switch');
const helper = getHelper();

/** The module with RED._ answering from the real en-US catalogs. */
function translated(_mod, type = TYPE) {
  return translatedModule(type);
}

const CATCH = [
  { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
  { id: 'caught', type: 'helper', z: 'f1' },
];

function flow(config = {}, extra = []) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    {
      id: 'img',
      type: TYPE,
      z: 'f1',
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
      wires: [['out'], ['none']],
      ...config,
    },
    { id: 'out', type: 'helper', z: 'f1' },
    { id: 'none', type: 'helper', z: 'f1' },
    ...CATCH,
    ...extra,
  ];
}

async function start(config, extra) {
  await helper.load(translated(detectionImage), flow(config, extra));
  const node = helper.getNode('img');
  const got = { out: [], none: [], caught: [] };
  for (const id of Object.keys(got)) helper.getNode(id).on('input', (msg) => got[id].push(msg));
  return { node, got };
}

const b64 = (bytes) => Buffer.from(bytes).toString('base64');
const JPEG = [0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4];
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 9];

/** A plate event with one distinct JPEG per crop, in the given array order. */
function plate(names) {
  const e = ev.fullLpr();
  e.payload.detectionImages = names.map((cropSizeName, i) => ({ image: b64([...JPEG, i, ...Buffer.from(cropSizeName)]), cropSizeName }));
  return e;
}
const bytesOf = (event, name) => Buffer.from(event.payload.detectionImages.find((i) => i.cropSizeName === name).image, 'base64');

const lastStatus = (node) => {
  const calls = node.status.getCalls();
  return calls.length ? calls[calls.length - 1].args[0] : undefined;
};

describe('detection-image node', function () {
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
  });

  it('decodes the preferred plate crop into msg.image, by name, with imageInfo and filename', async () => {
    const { node, got } = await start();
    const event = plate(['FullFrame', 'Car', 'Close', 'Medium']);
    const msg = { payload: event, topic: 'WebHookLprPayload' };
    node.receive(msg);
    await until(() => got.out.length === 1, 3000, 'an image');
    const [out] = got.out;
    assert.equal(out, msg, 'the message itself');
    assert.equal(out.payload, event, 'the event stays in msg.payload, not copied');
    assert.ok(Buffer.isBuffer(out.image));
    assert.deepEqual(out.image, bytesOf(event, 'Close'));
    assert.deepEqual(out.imageInfo, { source: 'Close', contentType: 'image/jpeg', bytes: out.image.length });
    assert.equal(out.filename, 'lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_Close.jpg');
    assert.equal(got.none.length + got.caught.length, 0);
  });

  it('follows the crop order of its configuration', async () => {
    const { node, got } = await start({ crops: 'Car,FullFrame' });
    const a = plate(['Close', 'FullFrame', 'Car']);
    const b = plate(['FullFrame', 'Close']);
    const c = plate(['Close', 'Medium']);
    for (const e of [a, b, c]) node.receive({ payload: e });
    await until(() => got.out.length === 2 && got.none.length === 1, 3000, 'two images and one without');
    assert.deepEqual(
      got.out.map((m) => m.imageInfo.source),
      ['Car', 'FullFrame'],
    );
    assert.deepEqual(got.out[0].image, bytesOf(a, 'Car'));
    assert.equal(got.none[0].payload, c, 'no listed crop: output 2, unchanged');
    assert.equal(got.none[0].image, undefined);
  });

  it('"all" sends one message per crop in a single send, sharing the event', async () => {
    const { node, got } = await start({ plateMode: 'all' });
    const event = plate(['FullFrame', 'Car', 'Close', 'Medium']);
    const msg = { payload: event, topic: 't' };
    node.receive(msg);
    await until(() => got.out.length === 4, 3000, 'four images');
    assert.deepEqual(
      got.out.map((m) => m.imageInfo.source),
      ['Close', 'Medium', 'Car', 'FullFrame'],
    );
    for (const m of got.out) {
      assert.deepEqual(m.image, bytesOf(event, m.imageInfo.source));
      assert.equal(m.filename, `lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_${m.imageInfo.source}.jpg`);
      assert.equal(m.topic, 't');
    }
    const sends = node.send.getCalls();
    assert.equal(sends.length, 1, 'one send call');
    const [images, second] = sends[0].args[0];
    assert.equal(second, null);
    assert.equal(images.length, 4);
    for (const m of images) assert.equal(m.payload, event, 'each message shares the event (Node-RED clones after the first)');
    assert.equal(new Set(images).size, 4, 'each message its own object');
    assert.equal(msg.image, undefined, 'the input message is not changed');
  });

  it('takes the live face capture, the enrolled photo, and falls back', async () => {
    const { node, got } = await start();
    const face = ev.fullFace();
    face.payload.detectionImage.image = b64(JPEG);
    face.payload.defaultPhoto.image = b64(PNG);
    const noLive = ev.fullFace();
    noLive.payload.detectionImage = null;
    noLive.payload.defaultPhoto.image = b64(PNG);
    node.receive({ payload: face });
    node.receive({ payload: noLive });
    await until(() => got.out.length === 2, 3000, 'two images');
    assert.deepEqual(
      got.out.map((m) => m.imageInfo),
      [
        { source: 'detection', contentType: 'image/jpeg', bytes: 8 },
        { source: 'photo', contentType: 'image/png', bytes: 10 },
      ],
    );
    assert.equal(got.out[0].filename, 'face_abc12345_Entrance-Cam-3_20261121T180405Z_detection.jpg');
    assert.equal(got.out[1].filename, 'face_abc12345_Entrance-Cam-3_20261121T180405Z_photo.png');
  });

  it('prefers the enrolled photo when set to, and can refuse to fall back', async () => {
    await helper.load(translated(detectionImage), [
      ...flow({ faceImage: 'photo' }),
      { id: 'img2', type: TYPE, z: 'f1', faceImage: 'photo', faceFallback: false, wires: [['out'], ['none']] },
    ]);
    const got = { out: [], none: [] };
    helper.getNode('out').on('input', (m) => got.out.push(m));
    helper.getNode('none').on('input', (m) => got.none.push(m));
    const face = ev.fullFace();
    face.payload.defaultPhoto.image = b64(PNG);
    const noPhoto = ev.fullFace();
    delete noPhoto.payload.defaultPhoto;
    helper.getNode('img').receive({ payload: face, n: 1 });
    helper.getNode('img').receive({ payload: noPhoto, n: 2 });
    helper.getNode('img2').receive({ payload: noPhoto, n: 3 });
    await until(() => got.out.length === 2 && got.none.length === 1, 3000, 'messages');
    assert.deepEqual(
      got.out.map((m) => [m.n, m.imageInfo.source]),
      [
        [1, 'photo'],
        [2, 'detection'],
      ],
    );
    assert.equal(got.none[0].n, 3);
  });

  it('outputs base64 or a data URL into the chosen property', async () => {
    await helper.load(translated(detectionImage), [
      ...flow({ format: 'base64', outputProperty: 'data.b64' }),
      { id: 'img2', type: TYPE, z: 'f1', format: 'dataurl', outputProperty: 'payload', wires: [['out'], ['none']] },
    ]);
    const got = [];
    helper.getNode('out').on('input', (m) => got.push(m));
    const event = plate(['Close']);
    const image = event.payload.detectionImages[0].image;
    helper.getNode('img').receive({ payload: event, data: { keep: true } });
    helper.getNode('img2').receive({ payload: plate(['Close']) });
    await until(() => got.length === 2, 3000, 'two images');
    const a = got.find((m) => m.data);
    const b = got.find((m) => !m.data);
    assert.equal(a.data.b64, image, 'the same base64 text');
    assert.equal(a.data.keep, true);
    assert.equal(a.payload, event);
    assert.deepEqual(a.imageInfo, { source: 'Close', contentType: 'image/jpeg', bytes: Buffer.from(image, 'base64').length });
    assert.equal(b.payload, `data:image/jpeg;base64,${image}`, 'the event replaced by the image');
    assert.equal(b.filename, 'lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_Close.jpg');
  });

  it('accepts images with a data URL prefix', async () => {
    const { node, got } = await start();
    const event = plate(['Close']);
    const raw = event.payload.detectionImages[0].image;
    event.payload.detectionImages[0].image = `data:image/jpeg;base64,${raw}`;
    node.receive({ payload: event });
    await until(() => got.out.length === 1, 3000, 'an image');
    assert.deepEqual(got.out[0].image, Buffer.from(raw, 'base64'));
  });

  it('sends invalid base64 to a Catch node with the path of the field, and nothing on', async () => {
    const { node, got } = await start();
    const event = plate(['Medium', 'FullFrame', 'Close']);
    event.payload.detectionImages[2].image = '/9j/4AAQ#kZJRg==';
    node.receive({ payload: event, _msgid: 'bad-1' });
    await until(() => got.caught.length === 1, 3000, 'the Catch node');
    const { error } = got.caught[0];
    assert.match(error.message, /payload\.detectionImages\[2\]\.image is not valid base64: invalid character # at position 8/);
    assert.equal(error.code, 'INVALID_BASE64');
    assert.equal(error.source.id, 'img');
    assert.equal(error.source.type, TYPE);
    assert.equal(got.caught[0]._msgid, 'bad-1');
    // The node handles messages in order: once a good one after it is out, the bad one is known to have sent nothing.
    node.receive({ payload: plate(['Close']), _msgid: 'good-1' });
    await until(() => got.out.length > 0, 3000, 'the next message');
    assert.deepEqual(
      got.out.map((m) => m._msgid),
      ['good-1'],
    );
    assert.equal(got.none.length, 0);
  });

  it('reports bad padding, bad length and non-strings with their paths', async () => {
    const { node, got } = await start({ plateMode: 'all' });
    const cases = [
      ['/9j/4', /payload\.detectionImages\[0\]\.image is not valid base64: its length/],
      ['/9g==', /payload\.detectionImages\[0\]\.image is not valid base64: misplaced '=' padding at position 3/],
      [42, /payload\.detectionImages\[0\]\.image is not a string/],
      ['data:image/jpeg,abc', /payload\.detectionImages\[0\]\.image is a data URL without ;base64/],
    ];
    for (const [image] of cases) {
      const e = plate(['Close', 'Car']);
      e.payload.detectionImages[0].image = image;
      node.receive({ payload: e });
    }
    const face = ev.fullFace();
    face.payload.detectionImage.image = 'ab cd';
    node.receive({ payload: face });
    await until(() => got.caught.length === 5, 3000, 'five errors');
    cases.forEach(([, re], i) => assert.match(got.caught[i].error.message, re));
    assert.match(got.caught[4].error.message, /payload\.detectionImage\.image is not valid base64: invalid character U\+0020 at position 2/);
    assert.equal(got.out.length, 0, '"all": nothing is sent when one crop is bad');
  });

  it('raises an error for no image when set to, with one output', async () => {
    const { node, got } = await start({ noImage: 'error', outputs: 1, wires: [['out']] });
    node.receive({ payload: ev.minimalLpr() });
    node.receive({ payload: ev.minimalFace() });
    await until(() => got.caught.length === 2, 3000, 'two errors');
    assert.equal(got.caught[0].error.code, 'NO_IMAGE');
    assert.equal(got.caught[0].error.message, 'Error: the lpr event has no image among: Close, Medium, Car, FullFrame, Other');
    assert.equal(got.caught[1].error.message, 'Error: the face event has no image among: detection, photo');
  });

  it('refuses messages without a face or plate event', async () => {
    const { node, got } = await start();
    node.receive({ payload: 'hello' });
    node.receive({ payload: { publishType: 'WebHookPosPayload', payload: {} } });
    node.receive({ topic: 'no payload' });
    await until(() => got.caught.length === 3, 3000, 'three errors');
    assert.deepEqual(
      got.caught.map((m) => m.error.code),
      ['NOT_A_DETECTION', 'NOT_A_DETECTION', 'NOT_A_DETECTION'],
    );
    assert.match(got.caught[0].error.message, /msg\.payload holds no detection event/);
    assert.match(got.caught[1].error.message, /a WebHookPosPayload event has no image/);
  });

  it('reads the event from another property or from JSONata', async () => {
    await helper.load(translated(detectionImage), [
      ...flow({ property: 'data.event' }),
      { id: 'img2', type: TYPE, z: 'f1', property: 'payload.event', propertyType: 'jsonata', wires: [['out'], ['none']] },
    ]);
    const got = [];
    helper.getNode('out').on('input', (m) => got.push(m));
    helper.getNode('img').receive({ data: { event: plate(['Car']) } });
    helper.getNode('img2').receive({ payload: { event: plate(['Medium']) } });
    await until(() => got.length === 2, 3000, 'two images');
    assert.deepEqual(got.map((m) => m.imageInfo.source).sort(), ['Car', 'Medium']);
  });

  it('shows images sent, messages without an image and errors in its status', async () => {
    const { node, got } = await start();
    node.receive({ payload: plate(['Close']) });
    node.receive({ payload: plate(['Car']) });
    node.receive({ payload: ev.minimalLpr() });
    const bad = plate(['Close']);
    bad.payload.detectionImages[0].image = '!!!!';
    node.receive({ payload: bad });
    await until(() => got.caught.length === 1 && got.out.length === 2, 3000, 'messages');
    const status = await until(
      () => {
        const s = lastStatus(node);
        return s && s.text === '2 sent · 1 no image · 1 failed' ? s : null;
      },
      3000,
      'status with counts',
    );
    assert.equal(status.fill, 'red', 'the last message failed');
  });

  it('refuses a bad crop list at deploy and fails every message', async () => {
    const { node, got } = await start({ crops: 'Close,Huge' });
    await until(() => node.error.called, 2000, 'an error');
    assert.match(node.error.firstCall.args[0], /crop order "Close,Huge"/);
    // without figures: the catalog key, for the editor to show in its language
    assert.equal(lastStatus(node).text, 'detection-image.status.config');
    assert.equal(translate(lastStatus(node).text), 'configuration error');
    node.receive({ payload: plate(['Close']) });
    await until(() => got.caught.length === 1, 2000, 'the Catch node');
    assert.equal(got.caught[0].error.code, 'CONFIG');
    assert.equal(got.out.length, 0);
  });

  it('uses the defaults for a node written with only its type', async () => {
    await helper.load(translated(detectionImage), [
      { id: 'f1', type: 'tab' },
      { id: 'img', type: TYPE, z: 'f1', wires: [['out'], ['none']] },
      { id: 'out', type: 'helper', z: 'f1' },
      { id: 'none', type: 'helper', z: 'f1' },
    ]);
    const got = collect(helper.getNode('out'), 1);
    helper.getNode('img').receive({ payload: plate(['Other', 'Medium']) });
    const [m] = await got;
    assert.ok(Buffer.isBuffer(m.image));
    assert.equal(m.imageInfo.source, 'Medium');
  });

  it('handles a 1 MB plate event without copying it', async () => {
    const { node, got } = await start();
    const event = ev.bigLpr(1024 * 1024);
    event.payload.detectionImages.reverse();
    const msg = { payload: event };
    node.receive(msg);
    await until(() => got.out.length === 1, 3000, 'an image');
    assert.equal(got.out[0], msg, 'the message itself');
    assert.equal(got.out[0].payload, event);
    assert.equal(got.out[0].imageInfo.source, 'Close');
    assert.deepEqual(got.out[0].image, Buffer.from(event.payload.detectionImages[3].image, 'base64'));
  });
});

describe('example flow plate-snapshot.json', function () {
  const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'plate-snapshot.json'), 'utf8'));
  const coreDir = path.dirname(require.resolve('@node-red/nodes/package.json', { paths: [NODE_RED_DIR] }));
  const core = (file) => require(path.join(coreDir, 'core', file));

  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
  });

  it('is importable: unique ids, x/y/wires on every node, no z, known types, valid events', () => {
    const ids = example.map((n) => n.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const n of example) {
      assert.equal(n.z, undefined, n.id);
      assert.ok(Number.isFinite(n.x) && Number.isFinite(n.y), n.id);
      assert.ok(Array.isArray(n.wires), n.id);
      for (const out of n.wires) for (const target of out) assert.ok(ids.includes(target), `${n.id} → ${target}`);
      assert.ok(['comment', 'inject', 'detection-switch', 'detection-image', 'file', 'debug'].includes(n.type), n.type);
    }
    for (const n of example) if (n.wires.some((out) => out.length > 1)) assert.fail(`${n.id} has two wires on one output`);
    const injects = example.filter((n) => n.type === 'inject');
    assert.equal(injects.length, 2);
    for (const inject of injects) {
      const result = checkEvent(JSON.parse(inject.payload));
      assert.equal(result.ok, true, JSON.stringify(result.errors));
    }
  });

  it('runs unchanged with core nodes: the plate crop lands in a file, the face image in the debug node', async () => {
    const tab = { id: 'ex0tab', type: 'tab', label: 'example' };
    const nodes = example.map((n) => ({ ...n, z: tab.id }));
    const byName = (type, name) => nodes.find((n) => n.type === type && n.name === name);
    // Probes listen on the example's own debug nodes (the debug node keeps working).
    await helper.load(
      [
        detectionSwitch,
        detectionImage,
        core('common/20-inject.js'),
        core('common/21-debug.js'),
        core('common/90-comment.js'),
        core('storage/10-file.js'),
      ],
      [tab, ...nodes],
    );
    const saved = collect(helper.getNode(byName('debug', 'saved').id), 1);
    const faceSeen = collect(helper.getNode(byName('debug', 'face image').id), 1);
    const plateEvent = JSON.parse(byName('inject', 'plate event').payload);
    const target = '/tmp/detection-bridge/lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_Close.bin';
    fs.rmSync(target, { force: true });
    helper.getNode(byName('inject', 'plate event').id).receive({});
    helper.getNode(byName('inject', 'face event').id).receive({});
    const [s] = await saved;
    const [f] = await faceSeen;
    try {
      assert.equal(s.filename, target, 'the file node sets the full path');
      assert.deepEqual(s.imageInfo, { source: 'Close', contentType: 'application/octet-stream', bytes: 2 });
      assert.deepEqual(
        fs.readFileSync(target),
        Buffer.from(plateEvent.payload.detectionImages.find((i) => i.cropSizeName === 'Close').image, 'base64'),
      );
      assert.deepEqual(f.imageInfo, { source: 'detection', contentType: 'application/octet-stream', bytes: 2 });
      assert.equal(f.filename, 'face_abc12345_Entrance-Cam-3_20261121T180405Z_detection.bin');
      for (const n of nodes) {
        const node = helper.getNode(n.id);
        if (node && node.error) assert.equal(node.error.callCount, 0, `${n.type} ${n.name} reported an error`);
      }
    } finally {
      fs.rmSync(target, { force: true });
    }
  });
});
