'use strict';
/**
 * Backpressure: 64 connections post 1 MiB plate events (the simulator,
 * resilient) for about 10 s at a real Node-RED whose flow is slower than the
 * burst. detection-in holds at most its in-flight bound and answers 503 with
 * Retry-After past it; the simulator retries those; every event answered 200
 * reaches detection-done once, and Node-RED's RSS stays under the bound the
 * help states (measured, printed, and checked against that bound).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { nodeRedVersion, until } = require('../support');
const { NodeRedProcess, readProbeLines, functionNode, fileNode, runSimulator } = require('../support/nodered-process');

const TAB = 'e2eburstflowtab1';
const MiB = 1024 * 1024;
const IN_FLIGHT_MIB = 32;
const CONNECTIONS = 64;

function burstFlow(probeFile) {
  return [
    { id: TAB, type: 'tab', label: 'burst' },
    {
      id: 'b-in',
      type: 'detection-in',
      z: TAB,
      name: '',
      path: '/b/in',
      auth: 'none',
      headerName: '',
      maxBodyMiB: 16,
      validation: 'lenient',
      ackMode: 'memory',
      maxInFlight: 1000,
      maxInFlightMiB: IN_FLIGHT_MIB,
      wires: [['b-slow'], []],
    },
    // slower than the burst: 20 ms per event, one at a time
    {
      id: 'b-slow',
      type: 'delay',
      z: TAB,
      name: '',
      pauseType: 'rate',
      timeout: '5',
      timeoutUnits: 'seconds',
      rate: '50',
      nbRateUnits: '1',
      rateUnits: 'second',
      randomFirst: '1',
      randomLast: '5',
      randomUnits: 'seconds',
      drop: false,
      allowrate: false,
      outputs: 1,
      wires: [['b-probe']],
    },
    functionNode(
      'b-probe',
      TAB,
      'msg.payload = JSON.stringify({ messageId: msg.messageId, redelivered: msg.redelivered === true }); return msg;',
      'b-file',
    ),
    fileNode('b-file', TAB, probeFile, 'b-done'),
    { id: 'b-done', type: 'detection-done', z: TAB, name: '', passOn: false, outputs: 0, wires: [] },
  ];
}

/** Resident set size of `pid` in bytes; 0 once the process is gone. */
function rssOf(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

describe(`e2e: a burst against the in-flight bound, Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(180000);
  let nr;
  /** Samples Node-RED's RSS during the burst; stopped however the test ends. */
  let sampler;

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create();
    await nr.start();
  });

  afterEach(function () {
    clearInterval(sampler);
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (nr) await nr.cleanup();
  });

  it('64 connections of 1 MiB events: 503 past the bound, retried, every 200 emitted once, RSS bounded', async () => {
    const probeFile = path.join(nr.userDir, 'burst.jsonl');
    const summaryFile = path.join(nr.userDir, 'burst-summary.json');
    await nr.deploy(burstFlow(probeFile), { '/b/in': 405 });
    const pid = nr.child.pid;
    const idle = rssOf(pid);
    let peak = idle;
    sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid));
    }, 50);
    const count = 500;
    const result = await runSimulator(
      [
        'send',
        '--url',
        `${nr.url}/b/in`,
        '--count',
        String(count),
        '--rate',
        '0',
        '--concurrency',
        String(CONNECTIONS),
        '--realistic-images',
        '--mix',
        '1',
        '--resilient',
        '--retry-delay',
        '200',
        '--timeout',
        '30000',
        '--summary-json',
        summaryFile,
      ],
      150000,
    );
    assert.equal(result.code, 0, `simulator: ${result.stdout}\n${result.stderr}`);
    const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    assert.equal(summary.acknowledged, count);
    assert.ok(summary.statusCodes['503'] > 0, `some deliveries were refused with 503: ${JSON.stringify(summary.statusCodes)}`);
    assert.deepEqual(Object.keys(summary.statusCodes).sort(), ['200', '503'], 'answers were 200 or 503, nothing else');
    // The simulator logs every attempt not acknowledged (stderr); those without an answer say what and when.
    const unanswered = result.stderr.split('\n').filter((line) => /attempt \d+: (?!\d{3}\b)/.test(line));
    assert.deepEqual(
      summary.errors,
      {},
      `every attempt got an answer, not ${JSON.stringify(summary.errors)}:\n${unanswered.slice(0, 20).join('\n')}`,
    );
    const lines = await until(
      () => {
        const got = readProbeLines(probeFile);
        return new Set(got.map((l) => l.messageId)).size >= count && got;
      },
      60000,
      `all ${count} events at detection-done`,
    );
    clearInterval(sampler);
    assert.equal(lines.length, count, 'each once');
    // The bound the help states: events in flight (their parsed strings, about their body size)
    // plus bodies still arriving (one per connection at most), about three times over (the
    // body's chunks and joined copy, and what the garbage collector has not freed yet), on
    // top of idle Node-RED and its own working memory under load, up to about 192 MiB: V8 lets the
    // old space grow to a few times its live size before a full collection (--trace-gc on Node 22:
    // 83 MB live, collected at 300 MB), further when the machine is busy and marking falls behind.
    // A leak of what the burst carries (500 MiB accepted, 2 GiB refused) passes this by far.
    const bound = idle + 3 * (IN_FLIGHT_MIB + CONNECTIONS * 1.1) * MiB + 192 * MiB;
    console.log(
      `      burst: ${count} events, ${summary.retried} retries; RSS idle ${(idle / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB, bound ${(bound / MiB).toFixed(0)} MiB`,
    );
    assert.ok(peak < bound, `peak RSS ${(peak / MiB).toFixed(0)} MiB under ${(bound / MiB).toFixed(0)} MiB`);
    assert.deepEqual(nr.errorLines(), []);
  });
});
