'use strict';
/**
 * Redeploy without loss: the simulator delivers resiliently to a real
 * Node-RED (the packed module) while a full deploy and a modified-nodes
 * deploy restart the flow; every event answered 200 reaches detection-done,
 * in memory mode and in disk mode. Repeats are allowed only flagged
 * msg.redelivered.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { nodeRedVersion, until } = require('../support');
const { NodeRedProcess, readProbeLines, fileNode, simulateIn } = require('../support/nodered-process');

const TAB = 'e2eredeploytab01';
const N = 300;

function redeployFlow(ackMode, probeFile, probeName) {
  return [
    { id: TAB, type: 'tab', label: 'redeploy' },
    {
      id: 'rd-in',
      type: 'detection-in',
      z: TAB,
      name: '',
      path: '/rd/in',
      auth: 'none',
      headerName: '',
      maxBodyMiB: 16,
      validation: 'lenient',
      ackMode,
      wires: [['rd-probe'], []],
    },
    {
      id: 'rd-probe',
      type: 'function',
      z: TAB,
      name: probeName,
      outputs: 1,
      timeout: 0,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      func: 'msg.payload = JSON.stringify({ messageId: msg.messageId, redelivered: msg.redelivered === true }); return msg;',
      wires: [['rd-file']],
    },
    fileNode('rd-file', TAB, probeFile, 'rd-done'),
    { id: 'rd-done', type: 'detection-done', z: TAB, name: '', passOn: false, outputs: 0, wires: [] },
  ];
}

describe(`e2e: redeploy without loss, Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(120000);
  let nr;

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create();
    await nr.start();
  });

  /** Run after each test, last first: the simulator is stopped, so a failed test's run cannot post into the next one's flow. */
  let cleanups = [];

  afterEach(async function () {
    const failed = this.currentTest && this.currentTest.state === 'failed';
    if (failed && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
    for (const cleanup of cleanups.reverse()) await cleanup(failed).catch(() => undefined);
    cleanups = [];
  });

  after(async function () {
    this.timeout(30000);
    if (nr) await nr.cleanup();
  });

  for (const ackMode of ['memory', 'disk']) {
    it(`${ackMode}: a full deploy and a modified-nodes deploy during a run lose nothing`, async () => {
      const probeFile = path.join(nr.userDir, `redeploy-${ackMode}.jsonl`);
      const summaryFile = path.join(nr.userDir, `summary-${ackMode}.json`);
      await nr.deploy(redeployFlow(ackMode, probeFile, 'probe'), { '/rd/in': 405 });
      const lines = () => readProbeLines(probeFile);
      const run = simulateIn(cleanups, [
        'send',
        '--url',
        `${nr.url}/rd/in`,
        '--count',
        String(N),
        '--rate',
        '100',
        '--resilient',
        '--retry-delay',
        '100',
        '--concurrency',
        '8',
        '--summary-json',
        summaryFile,
        '--quiet',
      ]);
      await until(() => lines().length >= N / 4, 30000, 'a quarter of the events through');
      await nr.deploy(redeployFlow(ackMode, probeFile, 'probe'));
      await until(() => lines().length >= N / 2, 30000, 'half of the events through');
      // the probe changed: a "modified nodes" deploy restarts it alone
      const res = await nr.deployAs(redeployFlow(ackMode, probeFile, 'probe, renamed'), 'nodes');
      assert.ok(res.status === 200 || res.status === 204, `nodes deploy: ${res.status}`);
      const done = await run;
      assert.equal(done.code, 0, `simulator: ${done.stdout}\n${done.stderr}`);
      const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
      assert.equal(summary.acknowledged, N);
      const ids = await until(
        () => {
          const unique = new Set(lines().map((l) => l.messageId));
          return unique.size >= N ? unique : null;
        },
        30000,
        `all ${N} events at detection-done`,
      ).catch((err) => {
        throw new Error(`${err.message}: ${new Set(lines().map((l) => l.messageId)).size} arrived, ${lines().length} lines`);
      });
      assert.equal(ids.size, N, 'every event answered 200, and nothing else');
      const byId = new Map();
      for (const l of lines()) byId.set(l.messageId, [...(byId.get(l.messageId) || []), l]);
      for (const [id, copies] of byId) {
        if (copies.length > 1)
          assert.ok(
            copies.filter((c) => c.redelivered).length >= copies.length - 1,
            `${id}: repeats are flagged redelivered ${JSON.stringify(copies)}`,
          );
      }
      assert.deepEqual(nr.errorLines(), []);
    });
  }
});
