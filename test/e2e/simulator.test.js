'use strict';
/**
 * The events-bridge simulator (its command-line program) against a real
 * Node-RED running the demo flow of `npm start`, through a proxy that makes
 * the receiver slow for a while: the simulator times out and replays events
 * Node-RED already took, and dedupe must let each event reach the end of the
 * flow exactly once.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { ROOT, nodeRedVersion, request, postJson, until } = require('../support');
const ev = require('../fixtures/events');
const { NodeRedProcess, probeFunction, readProbeLines, runSimulator } = require('../support/nodered-process');

const TOKEN = 'e2e-demo-token';
const DEMO_IN = 'de30de30de300002';

/** The demo flow on a tab, with a probe after both image pickers. */
function demoFlow(probeFile) {
  const tab = 'e2esimtab0000001';
  const nodes = JSON.parse(fs.readFileSync(path.join(ROOT, 'scripts', 'demo-flow.json'), 'utf8')).map((n) => ({ ...n, z: tab }));
  const probe = {
    id: 'e2esimprobe00001',
    type: 'function',
    z: tab,
    name: 'probe',
    outputs: 1,
    timeout: 0,
    noerr: 0,
    initialize: '',
    finalize: '',
    libs: [],
    func: probeFunction('{ messageId: msg.messageId, kind: msg.kind, resent: msg.resent, source: msg.imageInfo && msg.imageInfo.source }'),
    wires: [['e2esimfile000001']],
  };
  const file = {
    id: 'e2esimfile000001',
    type: 'file',
    z: tab,
    name: '',
    filename: probeFile,
    filenameType: 'str',
    appendNewline: true,
    createDir: true,
    overwriteFile: 'false',
    encoding: 'utf8',
    wires: [[]],
  };
  for (const node of nodes) {
    if (node.type === 'detection-image') node.wires[0].push(probe.id);
    if (node.id === DEMO_IN) node.credentials = { token: TOKEN };
  }
  return [{ id: tab, type: 'tab', label: 'live demo' }, ...nodes, probe, file];
}

/** A proxy in front of Node-RED that holds answers back while `slowMs` > 0. */
async function slowProxy(target) {
  const state = { slowMs: 0, forwarded: 0, answered: 0 };
  const server = http.createServer((req, res) => {
    state.forwarded++;
    const upstream = http.request({ host: '127.0.0.1', port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      state.answered++;
      const parts = [];
      answer.on('data', (c) => parts.push(c));
      answer.on('end', () => {
        const reply = () => {
          if (res.destroyed) return;
          res.writeHead(answer.statusCode, answer.headers);
          res.end(Buffer.concat(parts));
        };
        if (state.slowMs > 0) setTimeout(reply, state.slowMs);
        else reply();
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${server.address().port}`;
  state.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return state;
}

describe(`e2e: the bridge simulator against the demo flow in Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(90000);
  let nr;
  let proxy;
  let probeFile;

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create();
    probeFile = path.join(nr.userDir, 'probe.jsonl');
    await nr.start();
    await nr.deploy(demoFlow(probeFile));
    await until(async () => (await request(`${nr.url}/demo/detections`, { method: 'GET' })).status === 405, 15000, 'the demo receiver');
    proxy = await slowProxy({ port: nr.port });
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (proxy) await proxy.close();
    if (nr) await nr.cleanup();
  });

  it('N events sent resiliently through a receiver slow for a while arrive exactly N times after dedupe', async () => {
    const N = 30;
    const summaryFile = path.join(nr.userDir, 'summary.json');
    // Slow for the first seconds: answers come after the simulator's timeout.
    proxy.slowMs = 1500;
    setTimeout(() => {
      proxy.slowMs = 0;
    }, 2500).unref();
    const run = await runSimulator([
      'send',
      '--url',
      `${proxy.url}/demo/detections`,
      '--count',
      String(N),
      '--rate',
      '20',
      '--mix',
      '0.5',
      '--auth',
      'bearer',
      '--token',
      TOKEN,
      '--resilient',
      '--retry-delay',
      '200',
      '--timeout',
      '700',
      '--concurrency',
      '4',
      '--summary-json',
      summaryFile,
      '--quiet',
    ]);
    assert.equal(run.code, 0, `simulator exit ${run.code}\n${run.stdout}\n${run.stderr}`);
    const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    assert.equal(summary.sent, N);
    assert.equal(summary.acknowledged, N);
    assert.equal(summary.failed, 0);
    assert.ok(summary.retried > 0, `the slow phase made the simulator replay events (retried ${summary.retried})`);
    assert.ok(proxy.forwarded > N, `Node-RED received ${proxy.forwarded} deliveries for ${N} events`);

    // Every delivery Node-RED took has been answered (so emitted); a last event
    // sent after them reaches the end of the same road after all of them.
    await until(() => proxy.answered === proxy.forwarded, 15000, 'Node-RED answered every delivery the proxy forwarded');
    const last = ev.fullLpr();
    last.payload.messageId = 'e2e-sim-last-event';
    last.payload.lprPlateInfo.plate = 'LAST0001';
    const lastAnswer = await postJson(`${nr.url}/demo/detections`, last, { Authorization: `Bearer ${TOKEN}` });
    assert.equal(lastAnswer.status, 200);
    await until(() => readProbeLines(probeFile).some((l) => l.messageId === last.payload.messageId), 15000, 'the last event at the end of the flow');
    const lines = readProbeLines(probeFile).filter((l) => l.messageId !== last.payload.messageId);
    const ids = lines.map((l) => l.messageId);
    assert.equal(lines.length, N, `${lines.length} messages reached the end of the flow`);
    assert.equal(new Set(ids).size, N, 'each event exactly once');
    assert.ok(
      lines.every((l) => l.resent === false),
      'the first delivery of each passed',
    );
    const kinds = lines.reduce((c, l) => ({ ...c, [l.kind]: (c[l.kind] || 0) + 1 }), {});
    assert.deepEqual(kinds, { face: N / 2, lpr: N / 2 });
    assert.ok(
      lines.filter((l) => l.kind === 'lpr').every((l) => l.source === 'Close'),
      'plates: the Close crop, picked by name',
    );
    assert.deepEqual(nr.errorLines(), []);
  });
});
