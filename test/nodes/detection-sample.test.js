'use strict';
/**
 * detection-sample inside the Node-RED runtime (node-red-node-test-helper):
 * built-in samples (small real pictures or the bridge's two-byte fillers, and
 * through detection-image), samples fetched from a local fake bridge over
 * HTTP (by the node's own Bridge URL, as a flow saved before the events
 * bridge, version 2, has it; through an events-bridge node: see
 * detection-sample-bridge.test.js), and errors reaching a Catch node. The helper's RED._ returns keys, so
 * messages and statuses are asserted by key.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { ROOT, getHelper, nodeModule, collect, until } = require('../support');

const detectionSample = nodeModule('detection-sample');
const detectionImage = nodeModule('detection-image');
const { buildSampleEvent, SAMPLE_IMAGE } = require(path.join(ROOT, 'dist', 'lib', 'bridge', 'sample'));
const { checkEvent, CROP_SIZE_NAMES } = require(path.join(ROOT, 'dist', 'lib', 'events', 'schemas'));
const helper = getHelper();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The image fields of an event by source: `detection` and `photo` for a face, the cropSizeName for a plate. */
function imagesOf(event) {
  const p = event.payload;
  if (event.publishType === 'WebHookLprPayload') return Object.fromEntries(p.detectionImages.map((d) => [d.cropSizeName, d.image]));
  return { detection: p.detectionImage.image, photo: p.defaultPhoto.image };
}

/** Whether bytes are a whole JPEG: SOI and a JPEG marker at the start, EOI at the end. */
const isJpeg = (bytes) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff && bytes.at(-2) === 0xff && bytes.at(-1) === 0xd9;

/** Kind: the TypedInput's msg type, reading msg.kind. */
const FROM_MSG = { kind: 'kind', kindType: 'msg' };

function flow(config = {}) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    {
      id: 's1',
      type: 'detection-sample',
      z: 'f1',
      name: '',
      kind: 'face',
      kindType: 'kind',
      source: 'builtin',
      baseUrl: '',
      insecure: false,
      timeout: 10,
      configVersion: 2,
      wires: [['out']],
      ...config,
    },
    { id: 'out', type: 'helper', z: 'f1' },
    { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper', z: 'f1' },
  ];
}

/** A fake events bridge on 127.0.0.1: sample endpoints below /eventsbridge,
 *  /500 answers 500, /slow never answers (`held` lists its requests, each with a
 *  promise of the client going away), /newer answers a sample the schema refuses. */
async function fakeBridge() {
  const seen = [];
  const held = [];
  const answered = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url);
    const m = /^\/eventsbridge(?:\/(500|slow|newer))?\/api\/v1\/webhook-models\/(face|lpr)$/.exec(req.url);
    if (!m) {
      res.writeHead(404);
      return res.end();
    }
    if (m[1] === '500') {
      res.writeHead(500, { 'content-type': 'text/plain' });
      return res.end('boom');
    }
    if (m[1] === 'slow') {
      held.push({ res, gone: new Promise((resolve) => res.once('close', resolve)) });
      return undefined;
    }
    const event = buildSampleEvent(m[2], { messageId: `bridge-${m[2]}-${seen.length}` });
    if (m[1] === 'newer') {
      event.payload.detectionInfo.detectorName = 7;
      event.bridgeVersion = '12';
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    answered.push(JSON.stringify(event));
    return res.end(answered.at(-1));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    seen,
    held,
    /** The bodies of the samples answered, as sent. */
    answered,
    base: `http://127.0.0.1:${server.address().port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Status texts (keys) the node has shown so far. */
const statuses = (node) => node.status.getCalls().map((c) => c.args[0]);
const lastStatus = (node) => statuses(node).slice(-1)[0];

describe('detection-sample node', function () {
  let bridge;

  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    if (bridge) await bridge.close();
    bridge = undefined;
  });

  async function start(config) {
    await helper.load([detectionSample], flow(config));
    return { node: helper.getNode('s1'), out: helper.getNode('out'), caught: helper.getNode('caught') };
  }

  it('registers with a three-argument input handler and shows what it sends', async () => {
    const { node } = await start();
    assert.equal(node._inputCallback.length, 3, '(msg, send, done)');
    assert.deepEqual(statuses(node)[0], { fill: 'grey', shape: 'ring', text: 'detection-sample.status.idle' });
  });

  for (const kind of ['face', 'lpr']) {
    it(`built in: emits a ${kind} sample on the incoming msg, with the detection-in contract`, async () => {
      const { node, out } = await start({ kind });
      const got = collect(out, 2);
      const before = Date.now();
      node.receive({ _msgid: 'm-1', payload: 1234, topic: 'tick', keep: 'me', kind: kind === 'face' ? 'lpr' : 'face' });
      node.receive({ payload: 'again' });
      const [msg, second] = await got;
      assert.equal(msg._msgid, 'm-1', 'the same message, not a new one');
      assert.equal(msg.keep, 'me', 'other properties are kept');
      assert.ok(checkEvent(msg.payload).ok);
      assert.equal(msg.payload.publishType, kind === 'face' ? 'WebHookFaceRecPayload' : 'WebHookLprPayload');
      assert.equal(msg.topic, msg.payload.publishType);
      assert.equal(msg.kind, kind, 'the configured kind wins over msg.kind');
      assert.match(msg.messageId, UUID);
      assert.equal(msg.messageId, msg.payload.payload.messageId);
      assert.equal(msg.resent, false);
      const receivedAt = Date.parse(msg.receivedAt);
      assert.ok(receivedAt >= before && receivedAt <= Date.now(), `made at ${msg.receivedAt}, while the message was handled`);
      assert.equal(msg.receivedAt, msg.payload.payload.detectionInfo.dateTimeUtc, 'made at the time it was received');
      assert.equal(msg.req, undefined);
      assert.equal(msg.payload.serverContext, null);
      assert.notEqual(second.messageId, msg.messageId, 'a fresh messageId per sample');
      assert.deepEqual(lastStatus(node), { fill: 'green', shape: 'dot', text: 'detection-sample.status.sent' });
    });
  }

  it('from msg.kind: face or lpr as asked, face when not set, an error to Catch otherwise', async () => {
    const { node, out, caught } = await start(FROM_MSG);
    let sent = 0;
    out.on('input', () => sent++);
    const got = collect(out, 4);
    const errors = collect(caught, 2);
    for (const k of ['lpr', 'face', 'LPR ', undefined, 'plate', { kind: 'lpr' }])
      node.receive(k === undefined ? { payload: 1 } : { payload: 1, kind: k });
    const msgs = await got;
    assert.deepEqual(
      msgs.map((m) => m.kind),
      ['lpr', 'face', 'lpr', 'face'],
    );
    assert.deepEqual(
      msgs.map((m) => m.topic),
      ['WebHookLprPayload', 'WebHookFaceRecPayload', 'WebHookLprPayload', 'WebHookFaceRecPayload'],
    );
    const [e1, e2] = await errors;
    for (const e of [e1, e2]) {
      assert.equal(e.error.message, 'Error: detection-sample.errors.kind-value');
      assert.equal(e.error.code, 'ERR_SAMPLE_KIND');
      assert.equal(e.error.source.id, 's1');
    }
    assert.equal(e1.kind, 'plate', 'the failing msg is left as it came');
    assert.equal(e1.payload, 1);
    // every message is accounted for (4 outputs, 2 errors): each was done once, so no late output can follow
    assert.equal(sent, 4, 'nothing sent for the bad kinds');
    assert.equal(lastStatus(node).fill, 'red');
  });

  it('kind from flow context or an environment variable, read for each message', async () => {
    process.env.E2E_SAMPLE_KIND = 'lpr';
    try {
      await helper.load(
        [detectionSample],
        [...flow({ kind: 'sampleKind', kindType: 'flow' }), { ...flow()[1], id: 's2', kind: 'E2E_SAMPLE_KIND', kindType: 'env' }],
      );
      const out = helper.getNode('out');
      const s1 = helper.getNode('s1');
      let got = collect(out, 2);
      s1.context().flow.set('sampleKind', 'lpr');
      s1.receive({ payload: 1, kind: 'face' });
      s1.context().flow.set('sampleKind', 'face');
      s1.receive({ payload: 2, kind: 'lpr' });
      assert.deepEqual(
        (await got).map((m) => [m.kind, m.topic]),
        [
          ['lpr', 'WebHookLprPayload'],
          ['face', 'WebHookFaceRecPayload'],
        ],
        'flow.sampleKind, not msg.kind',
      );
      got = collect(out, 1);
      helper.getNode('s2').receive({ payload: 3 });
      assert.equal((await got)[0].kind, 'lpr', 'env.E2E_SAMPLE_KIND');
    } finally {
      delete process.env.E2E_SAMPLE_KIND;
    }
  });

  it('a msg property that does not parse is reported at deploy and on every input', async () => {
    const { node, caught } = await start({ kind: 'a..b', kindType: 'msg' });
    await until(() => node.error.called, 2000, 'the error at deploy');
    assert.equal(node.error.firstCall.args[0], 'detection-sample.errors.kind-property');
    assert.deepEqual(lastStatus(node), { fill: 'red', shape: 'ring', text: 'detection-sample.status.kind-invalid' });
    const got = collect(caught, 1);
    node.receive({ payload: 1 });
    assert.equal((await got)[0].error.code, 'ERR_SAMPLE_KIND');
  });

  it('built in: small real pictures by default, also in a flow saved before the Images option', async () => {
    // s1 as a flow saved before the option existed (no `images`), s2 as a new node saves it
    const saved = flow(FROM_MSG);
    delete saved[1].images;
    assert.equal('images' in saved[1], false);
    await helper.load([detectionSample], [...saved, { ...saved[1], id: 's2', images: 'pictures' }]);
    const got = collect(helper.getNode('out'), 4);
    for (const id of ['s1', 's2']) for (const kind of ['face', 'lpr']) helper.getNode(id).receive({ payload: 1, kind });
    const msgs = await got;
    for (const kind of ['face', 'lpr']) {
      const expected = imagesOf(buildSampleEvent(kind, { images: 'pictures' }));
      const sources = kind === 'face' ? ['detection', 'photo'] : [...CROP_SIZE_NAMES];
      assert.deepEqual(Object.keys(expected), sources);
      const ofKind = msgs.filter((m) => m.kind === kind);
      assert.equal(ofKind.length, 2, `a ${kind} sample from each node`);
      for (const msg of ofKind) {
        const images = imagesOf(msg.payload);
        assert.deepEqual(Object.keys(images), sources);
        for (const source of sources) {
          // compared, not diffed: a failure would print kilobytes of base64
          assert.ok(images[source] === expected[source], `${kind} ${source}: the picture of lib's sample`);
          const bytes = Buffer.from(images[source], 'base64');
          assert.ok(bytes.length > 1024 && isJpeg(bytes), `${kind} ${source}: a JPEG of ${bytes.length} bytes`);
        }
        assert.ok(checkEvent(msg.payload).ok);
      }
    }
  });

  it("built in, Images: two-byte fillers: the sample exactly as the bridge's sample endpoints make it", async () => {
    const { node, out } = await start({ ...FROM_MSG, images: 'fillers' });
    const got = collect(out, 2);
    node.receive({ payload: 1, kind: 'face' });
    node.receive({ payload: 2, kind: 'lpr' });
    for (const msg of await got) {
      for (const [source, image] of Object.entries(imagesOf(msg.payload))) assert.equal(image, SAMPLE_IMAGE, `${msg.kind} ${source}: /9g=`);
      // what the simulator's GET /api/v1/webhook-models/{kind} would answer at that moment, with that id
      const bridgeSample = buildSampleEvent(msg.kind, { now: new Date(msg.receivedAt), messageId: msg.messageId });
      assert.equal(JSON.stringify(msg.payload), JSON.stringify(bridgeSample));
    }
  });

  it('built in → detection image: a real .jpg Buffer for the face images and every plate crop', async () => {
    const image = (id, config) => ({
      id,
      type: 'detection-image',
      z: 'f1',
      property: 'payload',
      propertyType: 'msg',
      crops: CROP_SIZE_NAMES.join(','),
      faceFallback: false,
      format: 'buffer',
      outputProperty: 'image',
      noImage: 'output',
      outputs: 2,
      ...config,
    });
    // ids unlike any property value: Node-RED takes a value equal to a node's id for a reference to it
    await helper.load(
      [detectionSample, detectionImage],
      [
        ...flow({ ...FROM_MSG, wires: [['imageAll', 'imagePhoto']] }),
        image('imageAll', { plateMode: 'all', faceImage: 'detection', wires: [['toAll'], ['none']] }),
        image('imagePhoto', { plateMode: 'first', faceImage: 'photo', wires: [['toPhoto'], ['none']] }),
        { id: 'toAll', type: 'helper', z: 'f1' },
        { id: 'toPhoto', type: 'helper', z: 'f1' },
        { id: 'none', type: 'helper', z: 'f1' },
      ],
    );
    let none = 0;
    helper.getNode('none').on('input', () => none++);
    const all = collect(helper.getNode('toAll'), 1 + CROP_SIZE_NAMES.length);
    const photo = collect(helper.getNode('toPhoto'), 2);
    const sample = helper.getNode('s1');
    sample.receive({ payload: 1, kind: 'face' });
    sample.receive({ payload: 2, kind: 'lpr' });
    const msgs = [...(await all), ...(await photo)];
    assert.deepEqual(
      msgs.map((m) => `${m.kind} ${m.imageInfo.source}`).sort(),
      ['face detection', 'face photo', 'lpr Close', ...CROP_SIZE_NAMES.map((c) => `lpr ${c}`)].sort(),
      'the live capture, the enrolled photo and every crop (Close twice: the photo node takes the first crop)',
    );
    for (const msg of msgs) {
      const what = `${msg.kind} ${msg.imageInfo.source}`;
      assert.ok(Buffer.isBuffer(msg.image), `${what}: a Buffer`);
      assert.ok(msg.image.length > 1024 && isJpeg(msg.image), `${what}: a JPEG of ${msg.image.length} bytes, not a filler`);
      assert.equal(msg.imageInfo.contentType, 'image/jpeg');
      assert.equal(msg.imageInfo.bytes, msg.image.length);
      assert.match(msg.filename, /^[^/\\]+\.jpg$/, `${what}: ${msg.filename}`);
      assert.ok(msg.image.equals(Buffer.from(imagesOf(msg.payload)[msg.imageInfo.source], 'base64')), `${what}: the sample's own picture`);
    }
    const plates = msgs.filter((m) => m.kind === 'lpr' && m.imageInfo.source !== 'Close');
    assert.equal(new Set(plates.map((m) => m.image.toString('base64'))).size, plates.length, 'a different picture per crop');
    assert.equal(none, 0, 'no sample went out without an image');
  });

  it('bridge: fetches the sample from {base_url}/api/v1/webhook-models/{kind}, keeping the path prefix', async () => {
    bridge = await fakeBridge();
    const { node, out } = await start({ source: 'bridge', ...FROM_MSG, images: 'pictures', baseUrl: `${bridge.base}/eventsbridge/` });
    assert.deepEqual(statuses(node)[0].text, 'detection-sample.status.idle-bridge');
    const got = collect(out, 2);
    const before = Date.now();
    node.receive({ payload: 1, kind: 'lpr' });
    const [first] = await collect(out, 1);
    const firstOut = Date.now();
    node.receive({ payload: 2, kind: 'face' });
    const [lpr, face] = await got;
    assert.equal(first, lpr);
    assert.deepEqual(bridge.seen, ['/eventsbridge/api/v1/webhook-models/lpr', '/eventsbridge/api/v1/webhook-models/face']);
    assert.equal(lpr.messageId, 'bridge-lpr-1', 'the answer of the bridge, not a built-in sample');
    assert.equal(lpr.kind, 'lpr');
    assert.equal(lpr.topic, 'WebHookLprPayload');
    assert.equal(lpr.resent, false);
    assert.equal(lpr.payload.payload.messageId, 'bridge-lpr-1');
    const receivedAt = Date.parse(lpr.receivedAt);
    assert.ok(receivedAt >= before && receivedAt <= firstOut, `received at ${lpr.receivedAt}, while it was fetched`);
    assert.equal(face.messageId, 'bridge-face-2');
    assert.equal(face.kind, 'face');
    // sent as the bridge answered it, its two-byte fillers included: Images (pictures by default) is for built-in samples
    assert.deepEqual(
      [lpr.payload, face.payload],
      bridge.answered.map((body) => JSON.parse(body)),
    );
    for (const msg of [lpr, face]) for (const image of Object.values(imagesOf(msg.payload))) assert.equal(image, SAMPLE_IMAGE);
    assert.ok(statuses(node).some((s) => s.text === 'detection-sample.status.fetching'));
    assert.deepEqual(lastStatus(node), { fill: 'green', shape: 'dot', text: 'detection-sample.status.sent' });
    assert.equal(node.warn.callCount, 0);
  });

  it('bridge: a network error goes to the Catch node on the tab, and nothing is sent', async () => {
    bridge = await fakeBridge();
    const base = bridge.base;
    await bridge.close(); // nothing listens there any more
    bridge = undefined;
    const { node, out, caught } = await start({ source: 'bridge', baseUrl: `${base}/eventsbridge` });
    let sent = 0;
    out.on('input', () => sent++);
    const got = collect(caught, 1);
    node.receive({ payload: 'go', topic: 'keep' });
    const [msg] = await got;
    assert.equal(msg.error.message, 'Error: transport.bridge.network');
    assert.equal(msg.error.code, 'ERR_BRIDGE_NETWORK');
    assert.equal(msg.error.source.id, 's1');
    assert.equal(msg.error.source.type, 'detection-sample');
    assert.equal(msg.payload, 'go', 'the msg that failed, unchanged');
    assert.equal(msg.topic, 'keep');
    // the message was done with its error: a node sends or fails a message, never both
    assert.equal(sent, 0);
    assert.deepEqual(lastStatus(node), { fill: 'red', shape: 'ring', text: 'detection-sample.status.error' });
  });

  it('bridge: a 500 answer and a timeout go to Catch with their codes', async () => {
    bridge = await fakeBridge();
    await helper.load(
      [detectionSample],
      [
        ...flow({ source: 'bridge', baseUrl: `${bridge.base}/eventsbridge/500` }),
        {
          id: 's2',
          type: 'detection-sample',
          z: 'f1',
          kind: 'lpr',
          source: 'bridge',
          baseUrl: `${bridge.base}/eventsbridge/slow`,
          insecure: false,
          timeout: 0.3,
          wires: [['out']],
        },
      ],
    );
    const got = collect(helper.getNode('caught'), 2);
    helper.getNode('s1').receive({ payload: 1 });
    helper.getNode('s2').receive({ payload: 2 });
    const msgs = await got;
    const by = Object.fromEntries(msgs.map((m) => [m.error.source.id, m.error]));
    assert.equal(by.s1.message, 'Error: transport.bridge.status');
    assert.equal(by.s1.code, 'ERR_BRIDGE_STATUS');
    assert.equal(by.s2.message, 'Error: transport.bridge.timeout');
    assert.equal(by.s2.code, 'ERR_BRIDGE_TIMEOUT');
  });

  it('bridge: a sample that fails the schema is still sent, with one warning', async () => {
    bridge = await fakeBridge();
    const { node, out } = await start({ source: 'bridge', kind: 'lpr', baseUrl: `${bridge.base}/eventsbridge/newer` });
    const got = collect(out, 2);
    node.receive({ payload: 1 });
    await collect(out, 1);
    node.receive({ payload: 2 });
    const [msg] = await got;
    assert.equal(msg.kind, 'lpr');
    assert.equal(msg.topic, 'WebHookLprPayload');
    assert.equal(msg.payload.bridgeVersion, '12', 'kept as answered');
    assert.equal(node.warn.callCount, 1, 'warned once, not per sample');
    assert.equal(node.warn.firstCall.args[0], 'detection-sample.warnings.schema');
    assert.deepEqual(lastStatus(node), { fill: 'yellow', shape: 'dot', text: 'detection-sample.status.sent-invalid' });
  });

  it('bridge: an invalid URL is reported at deploy and on every input', async () => {
    const { node, caught } = await start({ source: 'bridge', baseUrl: 'bridge-host:5022' });
    await until(() => node.error.called, 2000, 'an error at deploy');
    assert.equal(node.error.firstCall.args[0], 'transport.bridge.url');
    assert.equal(lastStatus(node).text, 'detection-sample.status.config');
    const got = collect(caught, 1);
    node.receive({ payload: 1 });
    const [msg] = await got;
    assert.equal(msg.error.code, 'ERR_BRIDGE_URL');
    assert.equal(msg.error.message, 'Error: transport.bridge.url');
  });

  it('bridge: closing during a request cancels it quietly, without waiting for an answer', async () => {
    bridge = await fakeBridge();
    const { node, caught } = await start({ source: 'bridge', baseUrl: `${bridge.base}/eventsbridge/slow`, timeout: 30 });
    let errors = 0;
    caught.on('input', () => errors++);
    // The helper's spies are gone after unload: watch done() itself.
    const completions = [];
    const complete = node._complete;
    node._complete = function (msg, err) {
      completions.push(err);
      return complete.call(this, msg, err);
    };
    node.receive({ payload: 1 });
    await until(() => bridge.held.length === 1, 2000, 'the request');
    const [request] = bridge.held;
    await helper.unload();
    // the bridge never answered, and the node hung up on it: close cancelled the request
    await request.gone;
    assert.equal(request.res.headersSent, false, 'no answer was sent');
    await until(() => completions.length === 1, 2000, 'done() for the cancelled message');
    assert.deepEqual(completions, [undefined], 'done() without an error: a cancelled request is not an error');
    assert.equal(errors, 0);
  });
});
