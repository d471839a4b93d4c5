'use strict';
/**
 * The crash test of "nothing lost": the simulator delivers 2,000 events
 * resiliently to a real Node-RED (the packed module) with the disk journal,
 * a persistent detection-dedupe (key log) and detection-done; Node-RED is
 * killed with SIGKILL twice during the run and started again on the same user
 * directory. Every event the simulator got a 200 for reaches the end of the
 * flow; each at most once unflagged, any repeat flagged msg.redelivered (the
 * documented window).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { nodeRedVersion, until } = require('../support');
const { NodeRedProcess, functionNode, fileNode, runSimulator } = require('../support/nodered-process');

const TAB = 'e2ecrashtab00001';
const N = 2000;

/**
 * The probe's records. A SIGKILL can cut the file node's write of a line short,
 * and the next line then follows the fragment on the same line: whole records
 * are read wherever they are. (The event of a cut record was not finished, so it
 * comes again, flagged.)
 */
function readRecords(file) {
  if (!fs.existsSync(file)) return [];
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/\{"messageId":"([^"]*)","redelivered":(true|false)\}/g)].map((m) => ({ messageId: m[1], redelivered: m[2] === 'true' }));
}

function crashFlow(probeFile) {
  return [
    { id: TAB, type: 'tab', label: 'crash' },
    {
      id: 'c-in',
      type: 'detection-in',
      z: TAB,
      name: '',
      path: '/c/in',
      auth: 'none',
      headerName: '',
      maxBodyMiB: 16,
      validation: 'lenient',
      ackMode: 'disk',
      wires: [['c-dedupe'], []],
    },
    {
      id: 'c-dedupe',
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
      store: 'detection-bridge:key-log',
      outputs: 1,
      wires: [['c-line']],
    },
    functionNode(
      'c-line',
      TAB,
      'msg.payload = JSON.stringify({ messageId: msg.messageId, redelivered: msg.redelivered === true }); return msg;',
      'c-file',
    ),
    fileNode('c-file', TAB, probeFile, 'c-done'),
    { id: 'c-done', type: 'detection-done', z: TAB, name: '', passOn: false, outputs: 0, wires: [] },
  ];
}

describe(`e2e: 2,000 events through two SIGKILLs, Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(240000);
  let nr;

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create();
    await nr.start();
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (nr) await nr.cleanup();
  });

  it('every event answered 200 reaches the end; repeats only flagged redelivered', async () => {
    const probeFile = path.join(nr.userDir, 'crash.jsonl');
    const summaryFile = path.join(nr.userDir, 'crash-summary.json');
    await nr.deploy(crashFlow(probeFile), { '/c/in': 405 });
    const lines = () => readRecords(probeFile);
    const run = runSimulator(
      [
        'send',
        '--url',
        `${nr.url}/c/in`,
        '--count',
        String(N),
        '--rate',
        '250',
        '--concurrency',
        '8',
        '--resilient',
        '--retry-delay',
        '100',
        '--timeout',
        '5000',
        '--summary-json',
        summaryFile,
        '--quiet',
      ],
      200000,
    );
    for (const share of [3, 1.5]) {
      await until(() => lines().length >= N / share, 60000, `${Math.round(N / share)} events through`);
      await nr.stop('SIGKILL');
      await nr.start();
    }
    const result = await run;
    assert.equal(result.code, 0, `simulator: ${result.stdout}\n${result.stderr}`);
    const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    assert.equal(summary.acknowledged, N);
    const got = await until(
      () => {
        const all = lines();
        return new Set(all.map((l) => l.messageId)).size >= N && all;
      },
      60000,
      `all ${N} events at the end of the flow`,
    ).catch((err) => {
      throw new Error(`${err.message}: ${new Set(lines().map((l) => l.messageId)).size} arrived`);
    });
    const byId = new Map();
    for (const l of got) byId.set(l.messageId, [...(byId.get(l.messageId) || []), l]);
    assert.equal(byId.size, N, 'every event the simulator got a 200 for, and no other');
    let repeats = 0;
    for (const [id, copies] of byId) {
      assert.ok(copies.filter((c) => !c.redelivered).length <= 1, `${id}: at most once unflagged ${JSON.stringify(copies)}`);
      repeats += copies.length - 1;
    }
    console.log(`      crash: ${N} events, 2 SIGKILLs, ${summary.retried} retries by the simulator, ${repeats} flagged repeats at the end`);
    assert.deepEqual(nr.errorLines(), []);
  });
});
