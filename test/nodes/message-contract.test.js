'use strict';
/**
 * The message contract is one (lib/events/message.ts): for the same event,
 * detection-sample's message and detection-in's have the same properties
 * with the same values, but for what only a receiver knows (`req`, the
 * delivery token, `warnings`) and the time of receipt. The event goes from
 * the sample node to the receiver over real HTTP, as the bridge would send it.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { ROOT, getHelper, nodeModule, loadWithHttp, closeServers, postJson, collect } = require('../support');

const detectionIn = nodeModule('detection-in');
const detectionSample = nodeModule('detection-sample');
const { buildSampleEvent } = require(path.join(ROOT, 'dist', 'lib', 'bridge', 'sample'));
const helper = getHelper();

/** Properties only a receiver sets: the request, the delivery token, deviations found. */
const RECEIVER_ONLY = new Set(['req', '_delivery', 'warnings', '_msgid', 'attempt']);
const CONTRACT = ['payload', 'topic', 'kind', 'messageId', 'resent', 'detection'];

function flow(sample) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    { id: 'in1', type: 'detection-in', z: 'f1', path: '/hooks/contract', auth: 'none', headerName: '', maxBodyMiB: 16, wires: [['received'], []] },
    { id: 'received', type: 'helper', z: 'f1' },
    {
      id: 's1',
      type: 'detection-sample',
      z: 'f1',
      kind: 'face',
      kindType: 'kind',
      source: 'builtin',
      baseUrl: '',
      insecure: false,
      timeout: 10,
      configVersion: 2,
      wires: [['sampled']],
      ...sample,
    },
    { id: 'sampled', type: 'helper', z: 'f1' },
  ];
}

/** A bridge whose sample endpoints answer `event(kind)`. */
async function fakeBridge(event) {
  const server = http.createServer((req, res) => {
    const m = /\/api\/v1\/webhook-models\/(face|lpr)$/.exec(req.url);
    res.writeHead(m ? 200 : 404, { 'content-type': 'application/json' });
    res.end(m ? JSON.stringify(event(m[1])) : '{}');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('the message contract: detection-sample and detection-in', function () {
  let bridge;
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
    if (bridge) await bridge.close();
    bridge = undefined;
  });

  /** The sample node's message for `kind`, then the receiver's for the same event posted to it. */
  async function bothMessages(sample, kind) {
    const base = await loadWithHttp([detectionIn, detectionSample], flow(sample));
    const sampled = collect(helper.getNode('sampled'), 1);
    helper.getNode('s1').receive({ kind });
    const [fromSample] = await sampled;
    const received = collect(helper.getNode('received'), 1);
    const answer = await postJson(`${base}/hooks/contract`, fromSample.payload);
    assert.equal(answer.status, 200, answer.text);
    const [fromReceiver] = await received;
    return { fromSample, fromReceiver };
  }

  function assertSameShape(fromSample, fromReceiver) {
    const keys = (msg) =>
      Object.keys(msg)
        .filter((k) => !RECEIVER_ONLY.has(k))
        .sort();
    assert.deepEqual(keys(fromSample), keys(fromReceiver));
    for (const name of CONTRACT) assert.deepEqual(fromSample[name], fromReceiver[name], `msg.${name}`);
    assert.equal(typeof fromSample.receivedAt, 'string');
    assert.ok(Number.isFinite(Date.parse(fromSample.receivedAt)));
    assert.equal(fromSample.req, undefined, 'a sample came in no request');
    assert.equal(fromReceiver.req.ip, '127.0.0.1');
  }

  for (const kind of ['face', 'lpr']) {
    it(`a built-in ${kind} sample: the same properties and values as the receiver's message`, async () => {
      const { fromSample, fromReceiver } = await bothMessages({ kind, images: 'fillers' }, kind);
      assert.equal(fromReceiver.kind, kind);
      assert.equal(typeof fromReceiver.messageId, 'string');
      assertSameShape(fromSample, fromReceiver);
    });
  }

  it('a fetched sample that deviates (no resentEvent, a number for messageId): both pass the values as sent', async () => {
    bridge = await fakeBridge((kind) => {
      const event = buildSampleEvent(kind, { images: 'fillers' });
      delete event.payload.resentEvent;
      event.payload.messageId = 42;
      return event;
    });
    const { fromSample, fromReceiver } = await bothMessages({ source: 'bridge', baseUrl: bridge.base }, 'lpr');
    assert.equal(fromReceiver.messageId, 42);
    assert.equal(fromReceiver.resent, undefined);
    assert.ok(fromReceiver.warnings.length > 0, 'the receiver lists the deviations');
    assertSameShape(fromSample, fromReceiver);
  });
});
