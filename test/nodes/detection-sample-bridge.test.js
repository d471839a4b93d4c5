'use strict';
/**
 * detection-sample fetching through an events-bridge configuration node
 * (issue 15), from the simulator's anonymous sample endpoints on 127.0.0.1
 * over real HTTP and HTTPS: the bridge's URL (with its path prefix), TLS
 * settings and timeout are used, its token is never sent; a self-signed
 * certificate is accepted only with the bridge's option or its CA; a node
 * without a usable bridge says why. And a flow saved before the events
 * bridge existed (version 2, the node's own Bridge URL) still fetches as it
 * did. Messages are the real en-US texts.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { ROOT, getHelper, translatedModule, translate, collect, until, selfSigned, ownStatus } = require('../support');
const { startSampleServer } = require(path.join(ROOT, 'dist', 'sim'));
const { checkEvent } = require(path.join(ROOT, 'dist', 'lib', 'events', 'schemas'));

const helper = getHelper();
const modules = ['events-bridge', 'detection-sample'].map(translatedModule);
/** A JWT-shaped token: the simulator's enrollment endpoints would take it, the sample endpoints must not get it. */
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZW1vIn0.c2lnbmF0dXJl';

function bridgeNode(url, fields = {}) {
  return { id: 'eb', type: 'events-bridge', name: '', url, insecure: false, ca: '', timeout: 10, pageQuery: '', pageSize: 500, ...fields };
}

/** A flow: the sample node `s1` (current version, fetched through bridge `eb` unless `sample` says otherwise), its output, a Catch node. */
function flow({ bridge, sample = {} } = {}) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    ...(bridge ? [bridge] : []),
    {
      id: 's1',
      type: 'detection-sample',
      z: 'f1',
      name: '',
      kind: 'kind',
      kindType: 'msg',
      source: 'bridge',
      images: 'pictures',
      bridge: 'eb',
      baseUrl: '',
      insecure: false,
      timeout: 10,
      configVersion: 3,
      wires: [['out']],
      ...sample,
    },
    { id: 'out', type: 'helper', z: 'f1' },
    { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper', z: 'f1' },
  ];
}

const statusTexts = (node) => node.status.getCalls().map((c) => c.args[0].text);

describe('detection-sample through an events bridge (simulated sample endpoints)', function () {
  this.timeout(20000);
  let sim;
  /** Each request the simulator got: method, path and headers. */
  let seen;
  let extra;

  /** The simulator (`tls`: HTTPS with this key and certificate) below /eventsbridge, recording what it gets. */
  async function simulator(tls) {
    sim = await startSampleServer({ port: 0, basePath: '/eventsbridge', tls });
    seen = [];
    sim.server.on('request', (req) => seen.push({ method: req.method, path: req.url, headers: req.headers }));
    return sim;
  }

  async function start(options, credentials = { eb: { token: TOKEN } }) {
    await helper.load(modules, flow(options), credentials);
    return { node: helper.getNode('s1'), out: helper.getNode('out'), caught: helper.getNode('caught') };
  }

  /** Sends `msg` to s1 and resolves with what came out of `probe` (one message). */
  async function call(msg, probe = 'out') {
    const got = collect(helper.getNode(probe), 1);
    helper.getNode('s1').receive(msg);
    return (await got)[0];
  }

  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    if (sim) await sim.close();
    if (extra) await new Promise((resolve) => (extra.closeAllConnections(), extra.close(resolve)));
    sim = undefined;
    extra = undefined;
  });

  it("fetches from the bridge's URL with its path prefix, and never sends the bridge's token", async () => {
    await simulator();
    const { node } = await start({ bridge: bridgeNode(`${sim.url}/`) });
    assert.equal(statusTexts(node)[0], 'msg.kind sample from bridge');
    const lpr = await call({ payload: 1, kind: 'lpr' });
    const face = await call({ payload: 2, kind: 'face' });
    assert.deepEqual(
      seen.map((r) => `${r.method} ${r.path}`),
      ['GET /eventsbridge/api/v1/webhook-models/lpr', 'GET /eventsbridge/api/v1/webhook-models/face'],
    );
    for (const r of seen) assert.equal(r.headers.authorization, undefined, 'no token to the anonymous sample endpoints');
    assert.equal(lpr.kind, 'lpr');
    assert.equal(lpr.topic, 'WebHookLprPayload');
    assert.equal(face.topic, 'WebHookFaceRecPayload');
    for (const msg of [lpr, face]) {
      assert.ok(checkEvent(msg.payload).ok, 'the simulator sample, a valid event');
      assert.equal(msg.messageId, msg.payload.payload.messageId);
    }
    assert.deepEqual(ownStatus(node), { fill: 'green', shape: 'dot', text: 'face sample · 2 sent' });
    assert.equal(node.warn.callCount, 0);
  });

  it('a chosen bridge replaces a Bridge URL the node still has', async () => {
    await simulator();
    // nothing listens on port 9 of 127.0.0.1 (discard): a fetch from there would fail
    const { node } = await start({ bridge: bridgeNode(sim.url), sample: { baseUrl: 'http://127.0.0.1:9/eventsbridge' } });
    const msg = await call({ payload: 1, kind: 'lpr' });
    assert.equal(msg.topic, 'WebHookLprPayload');
    assert.deepEqual(
      seen.map((r) => r.path),
      ['/eventsbridge/api/v1/webhook-models/lpr'],
    );
    assert.equal(node.error.callCount, 0);
  });

  it("a self-signed certificate is refused unless the bridge accepts it or has it as its CA; the node's own option does not count", async () => {
    const tls = selfSigned();
    await simulator(tls);
    assert.match(sim.url, /^https:/);
    // the node's own "accept a self-signed certificate" (saved before bridges) is not used with a bridge
    await start({ bridge: bridgeNode(sim.url), sample: { insecure: true } });
    const refused = await call({ payload: 1, kind: 'face' }, 'caught');
    assert.equal(refused.error.code, 'ERR_BRIDGE_CERTIFICATE');
    assert.match(refused.error.message, new RegExp(`${sim.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/api/v1/webhook-models/face`));
    assert.equal(seen.length, 0, 'no request got through');
    assert.equal(refused.payload, 1, 'the message as it came');
    for (const fields of [{ insecure: true }, { ca: tls.cert }]) {
      await helper.unload();
      await start({ bridge: bridgeNode(sim.url, fields) });
      const msg = await call({ payload: 2, kind: 'lpr' });
      assert.equal(msg.topic, 'WebHookLprPayload', JSON.stringify(Object.keys(fields)));
    }
    assert.equal(seen.length, 2);
  });

  it("uses the bridge's timeout", async () => {
    // a bridge that takes the request and never answers
    const held = [];
    extra = http.createServer((req, res) => held.push(res));
    await new Promise((resolve) => extra.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${extra.address().port}`;
    await start({ bridge: bridgeNode(url, { timeout: 0.3 }), sample: { timeout: 600 } });
    const caught = await call({ payload: 1 }, 'caught');
    assert.equal(caught.error.code, 'ERR_BRIDGE_TIMEOUT');
    assert.match(caught.error.message, /timed out after 0\.3 s/);
    assert.equal(held.length, 1);
  });

  it('without a usable bridge it says why at deploy and on every message', async () => {
    const cases = [
      // no bridge chosen, no URL of its own
      { options: { sample: { bridge: '' } }, status: 'no-bridge', text: 'no events bridge', message: translate('detection-sample.errors.no-bridge') },
      // the bridge chosen is not deployed
      {
        options: { sample: { bridge: 'gone' } },
        status: 'config-bridge',
        text: 'events bridge not valid',
        message: translate('detection-sample.errors.bridge-missing'),
      },
      // the bridge's URL is not valid
      {
        options: { bridge: bridgeNode('ftp://bridge-host') },
        status: 'config-bridge',
        text: 'events bridge not valid',
        message: /the events bridge URL "ftp:\/\/bridge-host" is not valid/,
      },
    ];
    for (const c of cases) {
      await helper.unload();
      const { node } = await start(c.options);
      await until(() => node.error.called, 2000, 'the error at deploy');
      const at = node.error.firstCall.args[0];
      if (typeof c.message === 'string') assert.equal(at, c.message);
      else assert.match(at, c.message);
      // without figures: the catalog key, for the editor to show in its language
      assert.deepEqual(ownStatus(node), { fill: 'red', shape: 'ring', text: `detection-sample.status.${c.status}` });
      assert.equal(translate(ownStatus(node).text), c.text);
      const caught = await call({ payload: 1 }, 'caught');
      assert.equal(caught.error.message, `Error: ${at}`, 'the same error for Catch');
      assert.match(caught.error.code, /^ERR_(SAMPLE_BRIDGE|ENROLL_URL)$/);
    }
  });

  it('built-in samples need no bridge', async () => {
    const { node } = await start({ sample: { source: 'builtin', bridge: '' } });
    const msg = await call({ payload: 1, kind: 'lpr' });
    assert.equal(msg.topic, 'WebHookLprPayload');
    assert.equal(node.error.callCount, 0);
  });

  describe('a flow saved before the events bridge (version 2: its own Bridge URL)', () => {
    /** The node as the editor of the previous version saved it. */
    const saved = (fields) => ({ bridge: undefined, configVersion: 2, ...fields });

    it('still fetches from its own URL', async () => {
      await simulator();
      const { node } = await start({ sample: saved({ baseUrl: `${sim.url}/api/v1/webhook-models` }) });
      const msg = await call({ payload: 1, kind: 'lpr' });
      assert.equal(msg.topic, 'WebHookLprPayload');
      assert.deepEqual(
        seen.map((r) => r.path),
        ['/eventsbridge/api/v1/webhook-models/lpr'],
      );
      assert.equal(statusTexts(node)[0], 'msg.kind sample from bridge');
    });

    it('still accepts a self-signed certificate when it did, and only then', async () => {
      await simulator(selfSigned());
      await start({ sample: saved({ baseUrl: sim.url, insecure: false }) });
      const refused = await call({ payload: 1 }, 'caught');
      assert.equal(refused.error.code, 'ERR_BRIDGE_CERTIFICATE');
      await helper.unload();
      await start({ sample: saved({ baseUrl: sim.url, insecure: true }) });
      const msg = await call({ payload: 2, kind: 'face' });
      assert.equal(msg.topic, 'WebHookFaceRecPayload');
      assert.equal(seen.length, 1);
    });

    it('still uses its own timeout', async () => {
      const held = [];
      extra = http.createServer((req, res) => held.push(res));
      await new Promise((resolve) => extra.listen(0, '127.0.0.1', resolve));
      await start({ sample: saved({ baseUrl: `http://127.0.0.1:${extra.address().port}`, timeout: 0.3 }) });
      const caught = await call({ payload: 1 }, 'caught');
      assert.equal(caught.error.code, 'ERR_BRIDGE_TIMEOUT');
      assert.match(caught.error.message, /timed out after 0\.3 s/);
    });
  });
});
