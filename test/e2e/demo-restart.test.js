'use strict';
/**
 * The demo survives its Node-RED (issue 42): scripts/start.js, as `npm start`
 * runs it (without its build: the suite's dist/ is built already and other
 * tests read it), on free ports of 127.0.0.1 with a temporary user directory.
 * An operator's change is deployed through the admin API (a probe on the live
 * demo tab), Node-RED is SIGKILLed, and then:
 * - Node-RED is back (within the test's 30 s bound), started by the script,
 *   which with the mock core and Redis kept running;
 * - its flows are the operator's, as deployed, and events flow through them;
 * - stopped as Ctrl-C stops it, the simulator's summary counts nothing lost:
 *   every event sent acknowledged, none failed, none abandoned.
 */
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { ROOT, nodeRedVersion, postJson, request, until } = require('../support');
const { freePort, npmEnv } = require('../support/nodered-launcher');
const { fileNode, functionNode, probeFunction, readProbeLines } = require('../support/nodered-process');
const { redisAvailable } = require('../support/redis-server');
const { DEMO_IN, DEMO_TAB } = require('../../scripts/demo-flows');

const PROBE = 'e2e-restart-probe';
const PROBE_FILE = 'e2e-restart-file';

/** GET `url`'s status, 0 while nothing listens. */
async function statusOf(url) {
  try {
    return (await request(url, { method: 'GET' })).status;
  } catch {
    return 0;
  }
}

/** Whether a Redis answers PING on `port`. */
function redisPongs(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(2000, () => socket.destroy());
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => {
      socket.destroy();
      resolve(String(d).startsWith('+PONG'));
    });
    socket.once('close', () => resolve(false));
    socket.once('error', () => resolve(false));
  });
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The process ids whose parent is `pid` (the script's Node-RED and Redis run in process groups of their own). */
function childrenOf(pid) {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // pid (comm) state ppid …: comm may hold spaces, so count from its closing parenthesis
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe(`e2e: npm start keeps its Node-RED (${nodeRedVersion()}) running, with the operator's flows, losing nothing`, function () {
  this.timeout(150000);
  let dir;
  let demo;
  let output = '';
  let exited;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'detection-bridge-demo-'));
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed')
      console.log(`\n---- npm start's output (last lines) ----\n${output.slice(-12000)}\n----`);
  });

  after(async function () {
    this.timeout(40000);
    if (demo && demo.exitCode === null && demo.signalCode === null) {
      // a failed test: stopped as it should be, else by force, with what it started
      const children = childrenOf(demo.pid);
      demo.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30000).unref())]);
      for (const pid of [demo.pid, ...children]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("SIGKILLed, Node-RED is back with the operator's flows while the rest ran on, and the simulator's summary counts nothing lost", async () => {
    const [port, corePort, redisPort, listenerPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const userDir = path.join(dir, 'user');
    const summaryFile = path.join(dir, 'summary.json');
    const pidFile = path.join(userDir, 'node-red.pid');
    const base = `http://127.0.0.1:${port}`;
    // prettier-ignore
    const args = ['--no-build', '--user-dir', userDir, '--port', port, '--core-port', corePort, '--redis-port', redisPort,
      '--listener-port', listenerPort, '--rate', '4', '--summary-json', summaryFile].map(String);
    demo = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js'), ...args], {
      cwd: ROOT,
      env: npmEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = new Promise((resolve) => demo.once('exit', (code, signal) => resolve({ code, signal })));
    demo.stdout.on('data', (d) => (output += d));
    demo.stderr.on('data', (d) => (output += d));
    const running = () => {
      if (demo.exitCode !== null || demo.signalCode !== null) throw new Error(`npm start exited (${demo.exitCode ?? demo.signalCode})`);
      return true;
    };
    await until(() => running() && output.includes('Where to look'), 90000, 'the demo to start (its "Where to look")');
    assert.match(output, /Flows: the demo’s flows \(first start\)/);

    // The operator's change: a probe on the live demo tab, after its receiver, deployed as the editor does.
    const probeLines = path.join(dir, 'probe.jsonl');
    const flows = (await request(`${base}/flows`, { method: 'GET' })).json;
    const receiver = flows.find((n) => n.id === DEMO_IN);
    assert.ok(receiver && receiver.z === DEMO_TAB, 'the live demo tab has its receiver');
    receiver.wires[0].push(PROBE);
    flows.push(
      { ...functionNode(PROBE, DEMO_TAB, probeFunction('{ messageId: msg.messageId }'), PROBE_FILE), x: 600, y: 600 },
      { ...fileNode(PROBE_FILE, DEMO_TAB, probeLines), x: 800, y: 600 },
    );
    const deployed = await postJson(`${base}/flows`, flows, { 'Node-RED-Deployment-Type': 'nodes' });
    assert.equal(deployed.status, 204, deployed.text);
    const asDeployed = (await request(`${base}/flows`, { method: 'GET' })).json;
    await until(() => running() && readProbeLines(probeLines).length >= 3, 30000, 'events through the changed flow');

    // SIGKILL Node-RED.
    const killed = Number(fs.readFileSync(pidFile, 'utf8'));
    process.kill(killed, 'SIGKILL');
    const seenBefore = readProbeLines(probeLines).length;
    const back = async () => {
      running();
      const pid = Number(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8') : 0);
      return pid !== killed && pid > 0 && (await statusOf(`${base}/flows`)) === 200;
    };
    await until(back, 30000, 'Node-RED to be back within 30 s');
    assert.match(output, /Node-RED stopped \(SIGKILL\) after \d+ (s|min)[^;]*; starting it again in 1 s/);
    assert.ok(!alive(killed), 'the killed Node-RED is gone');
    assert.deepEqual((await request(`${base}/flows`, { method: 'GET' })).json, asDeployed, "the flows are the operator's, as deployed");
    // The operator's flow runs again (its probe gets events), and what ran beside Node-RED still does.
    await until(() => running() && readProbeLines(probeLines).length >= seenBefore + 3, 30000, 'events through the changed flow after the restart');
    await until(() => output.includes('Node-RED is back'), 10000, 'the console to say Node-RED is back');
    assert.equal(await statusOf(`http://127.0.0.1:${corePort}/api/v1/webhook-models/face`), 200, 'the mock core ran on');
    if (redisAvailable()) assert.ok(await redisPongs(redisPort), 'Redis ran on');
    const restarted = Number(fs.readFileSync(pidFile, 'utf8'));

    // Stopped as Ctrl-C stops it.
    demo.kill('SIGTERM');
    const { code } = await exited;
    assert.equal(code, 0, 'npm start exits 0');
    const { total, byTab } = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    const tabs = byTab
      .map((t) => `${t.label}: ${t.sent} sent, ${t.acknowledged} acknowledged, ${t.failed} failed, ${t.abandoned} abandoned`)
      .join('; ');
    assert.ok(total.sent > 0, tabs);
    assert.equal(total.failed, 0, tabs);
    assert.equal(total.abandoned, 0, tabs);
    assert.equal(total.acknowledged, total.sent, `every event acknowledged: ${tabs}`);
    // Everything it started has stopped.
    assert.ok(!alive(restarted), 'Node-RED stopped');
    assert.ok(!fs.existsSync(pidFile), 'its pid file removed');
    if (redisAvailable()) assert.equal(await redisPongs(redisPort), false, 'Redis stopped');
  });
});
