'use strict';
/**
 * The crash test of "nothing lost" and "exactly once across the crash window"
 * (issue 27): the simulator delivers 2,000 events resiliently (each sent again
 * until it gets a 200, like the bridge) to a real Node-RED (the packed module)
 * with the disk journal, a persistent detection-dedupe (key log) and
 * detection-done; Node-RED is killed with SIGKILL twice during the run and
 * started again on the same user directory. Every event the simulator got a
 * 200 for reaches the end of the flow exactly once; a repeat only as the
 * documented one (the same journal record again, flagged msg.redelivered). At
 * the receiver, the bridge's resend of an event whose earlier copy the journal
 * holds unfinished is never emitted (absorbed).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { randomUUID } = require('node:crypto');
const { nodeRedVersion, postJson, until } = require('../support');
const { NodeRedProcess, functionNode, fileNode, runSimulator } = require('../support/nodered-process');
const { exactlyOnceProblems, probeRecord, readProbe } = require('../support/exactly-once');
const ev = require('../fixtures/events');

const TAB = 'e2ecrashtab00001';
const N = 2000;

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
      wires: [['c-seen'], []],
    },
    // what the receiver emits: a probe record to the file, the event on to the dedupe
    { ...functionNode('c-seen', TAB, `return [{ payload: ${probeRecord('in')} }, msg];`), outputs: 2, wires: [['c-file'], ['c-dedupe']] },
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
    functionNode('c-line', TAB, `msg.payload = ${probeRecord('end')}; return msg;`, 'c-file'),
    // one file node for both probes: its records are in the order the process wrote them
    fileNode('c-file', TAB, probeFile, 'c-event'),
    functionNode('c-event', TAB, 'return msg._delivery ? msg : null;', 'c-done'),
    { id: 'c-done', type: 'detection-done', z: TAB, name: '', passOn: false, outputs: 0, wires: [] },
  ];
}

/** Two receivers (disk, memory) into a flow that holds each event 2 s (a slow mail server, say), probed as they are emitted and at the end. */
function heldFlow(probeFile) {
  const receiver = (id, urlPath, ackMode) => ({
    id,
    type: 'detection-in',
    z: TAB,
    name: '',
    path: urlPath,
    auth: 'none',
    headerName: '',
    maxBodyMiB: 16,
    validation: 'lenient',
    ackMode,
    wires: [['h-seen'], []],
  });
  return [
    { id: TAB, type: 'tab', label: 'held' },
    receiver('h-disk', '/h/disk', 'disk'),
    receiver('h-mem', '/h/mem', 'memory'),
    { ...functionNode('h-seen', TAB, `return [{ payload: ${probeRecord('in')} }, msg];`), outputs: 2, wires: [['h-file'], ['h-hold']] },
    {
      id: 'h-hold',
      type: 'delay',
      z: TAB,
      name: '',
      pauseType: 'delay',
      timeout: '2',
      timeoutUnits: 'seconds',
      rate: '1',
      nbRateUnits: '1',
      rateUnits: 'second',
      randomFirst: '1',
      randomLast: '5',
      randomUnits: 'seconds',
      drop: false,
      allowrate: false,
      outputs: 1,
      wires: [['h-line']],
    },
    functionNode('h-line', TAB, `msg.payload = ${probeRecord('end')}; return msg;`, 'h-file'),
    fileNode('h-file', TAB, probeFile, 'h-event'),
    functionNode('h-event', TAB, 'return msg._delivery ? msg : null;', 'h-done'),
    { id: 'h-done', type: 'detection-done', z: TAB, name: '', passOn: false, outputs: 0, wires: [] },
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

  it('every event answered 200 reaches the end exactly once (repeats only the documented one); resends of held events absorbed', async () => {
    const probeFile = path.join(nr.userDir, 'crash.jsonl');
    const summaryFile = path.join(nr.userDir, 'crash-summary.json');
    await nr.deploy(crashFlow(probeFile), { '/c/in': 405 });
    const lines = () => readProbe(probeFile).filter((r) => r.at === 'end');
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
    assert.equal(new Set(got.map((l) => l.messageId)).size, N, 'every event the simulator got a 200 for, and no other');
    const records = readProbe(probeFile);
    const { problems, documented, ids } = exactlyOnceProblems(records);
    assert.deepEqual(problems, [], 'exactly once');
    assert.equal(ids, N, 'nothing emitted that the simulator did not send');
    // Events taken from the journal only (their first emission flagged): the copy written before a kill whose request was never answered.
    const first = new Map();
    for (const r of records) if (r.at === 'in' && !first.has(r.messageId)) first.set(r.messageId, r);
    const fromJournal = [...first.values()].filter((r) => r.redelivered).length;
    console.log(
      `      crash: ${N} events, 2 SIGKILLs, ${summary.retried} retries by the simulator, ${fromJournal} first emitted from the journal after a kill, ` +
        `${documented} documented repeats at the end`,
    );
    assert.deepEqual(nr.errorLines(), []);
  });

  it("the bridge's resend of an event held unfinished is answered 200 and not emitted: disk after a SIGKILL, memory after a deploy", async () => {
    const probeFile = path.join(nr.userDir, 'held.jsonl');
    const ready = { '/h/disk': 405, '/h/mem': 405 };
    await nr.deploy(heldFlow(probeFile), ready);
    const post = async (urlPath, messageId) => {
      const event = ev.fullLpr();
      event.payload.messageId = messageId;
      const res = await postJson(`${nr.url}${urlPath}`, event);
      assert.equal(res.status, 200, res.text);
    };
    const of = (messageId) => readProbe(probeFile).filter((r) => r.messageId === messageId);
    const seen = (messageId, at, redelivered) =>
      until(
        () => of(messageId).some((r) => r.at === at && r.redelivered === redelivered),
        20000,
        `${messageId} ${at}${redelivered ? ', redelivered' : ''}`,
      );

    /** Sent, emitted, then emitted again by `restart` (still held); its resend now must not come out. */
    const resendWhileHeld = async (urlPath, restart) => {
      const messageId = randomUUID();
      await post(urlPath, messageId);
      await seen(messageId, 'in', false);
      await restart();
      await seen(messageId, 'in', true);
      await post(urlPath, messageId); // as if its 200 had been lost: the bridge sends it again
      await seen(messageId, 'end', true);
      const records = of(messageId);
      assert.equal(new Set(records.map((r) => r.delivery)).size, 1, `one delivery: ${JSON.stringify(records)}`);
      assert.deepEqual(
        records.map((r) => `${r.at}${r.redelivered ? ' again' : ''}`),
        ['in', 'in again', 'end again'],
      );
    };
    // disk: the journal's copy (written, its answer lost in the crash) and the resend
    await resendWhileHeld('/h/disk', async () => {
      await nr.stop('SIGKILL');
      await nr.start();
    });
    // memory: the copy kept across a deploy and the resend
    await resendWhileHeld('/h/mem', () => nr.deploy(heldFlow(probeFile), ready));
    assert.deepEqual(nr.errorLines(), []);
  });
});
