#!/usr/bin/env node
/**
 * `npm start`: the live demo on a fresh clone.
 *
 * Builds the package, prepares a Node-RED user directory (.demo/ by default,
 * git-ignored) with this package installed, writes the demo flow and every
 * example on tabs of their own (the flow set is built by scripts/demo-flows.js,
 * which an end-to-end test deploys too), starts the events-bridge sample
 * endpoints and the mock platform v2 core, starts Node-RED (the dev
 * dependency) on 127.0.0.1, and feeds every tab with a receiver from the
 * events-bridge simulator: each its share of the rate, with events that
 * exercise it (the alert example a Banned plate at night among others, the
 * dashboard varied names, sites and time zones). The simulator also serves
 * the enrollment endpoints: plates and faces enrolled from a flow show up in
 * its detections with their externalId. The editor's debug sidebar shows the
 * tab on screen only (Node-RED's "current flow" filter, a user setting the
 * demo presets unless one was chosen).
 * Node-RED is kept running (scripts/supervisor.js): when it dies it alone is
 * started again, with the flows as last deployed, while the simulator, the
 * mock core and Redis go on; the demo's flows are written on a first start,
 * over the demo's own flows left untouched, or with --reset-flows, never over
 * flows the operator deployed (placeDemoFlows in scripts/demo-flows.js).
 * Where Debian's redis-server is installed, a Redis for the several-instances
 * example is started too (its files in .demo/redis); otherwise that tab is left out.
 * The live-dashboard example needs FlowFuse Dashboard 2.0, a dev dependency:
 * where it is not installed, that tab is left out too.
 * Ctrl-C (or SIGTERM) stops everything it started and prints the simulator's
 * summary, once the events in delivery are acknowledged (at most 15 s).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync, execFileSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const {
  CORE_PASSWORD,
  CORE_USER,
  DASHBOARD,
  DEMO_BRIDGE_JWT,
  DEMO_TAB,
  DEMO_TOKEN,
  buildDemoFlows,
  demoFeeds,
  demoUserSettings,
  placeDemoFlows,
  startDemoFeeds,
} = require('./demo-flows');
const { ChildSupervisor } = require('./supervisor');

const root = path.resolve(__dirname, '..');
const USAGE = `usage: npm start [-- options]

  --port N         Node-RED's port (env PORT; default 1880)
  --core-port N    port of the mock platform core and the bridge's sample endpoints
                   (env DEMO_CORE_PORT; default 5023)
  --redis-port N   port of the demo's own redis-server, when installed (env DEMO_REDIS_PORT; default 5024)
  --listener-port N  the listener example's own port (env DEMO_LISTENER_PORT; default 8443)
  --rate R         simulated detections per second (env DEMO_RATE; default 1; 0 = no simulator)
  --user-dir DIR   Node-RED's user directory (env DEMO_USER_DIR; default .demo in the clone)
  --reset-flows    write the demo's flows over the ones you deployed (env DEMO_RESET_FLOWS=1);
                   without it, flows you deployed are kept from one start to the next
  --keep-flows     keep the flows there even when they are the demo's, untouched (env DEMO_KEEP_FLOWS=1);
                   without it, untouched demo flows are refreshed (new examples, other ports)
  --summary-json FILE  also write the simulator's summary as JSON when stopped
  --no-build       use dist/ as it is (tests that run the demo beside others)
  --help           this text

  Node-RED is started again when it dies (the rest keeps running), with the flows as last deployed.
`;

function fail(message) {
  console.error(`npm start: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string' },
      'core-port': { type: 'string' },
      'redis-port': { type: 'string' },
      'listener-port': { type: 'string' },
      rate: { type: 'string' },
      'user-dir': { type: 'string' },
      'reset-flows': { type: 'boolean' },
      'keep-flows': { type: 'boolean' },
      'summary-json': { type: 'string' },
      'no-build': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }));
} catch (err) {
  fail(err.message);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
function portOption(value, name) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) fail(`${name} must be a port number, got "${value}"`);
  return n;
}
const port = portOption(values.port ?? process.env.PORT ?? '1880', '--port');
const corePort = portOption(values['core-port'] ?? process.env.DEMO_CORE_PORT ?? '5023', '--core-port');
const redisPort = portOption(values['redis-port'] ?? process.env.DEMO_REDIS_PORT ?? '5024', '--redis-port');
const listenerPort = portOption(values['listener-port'] ?? process.env.DEMO_LISTENER_PORT ?? '8443', '--listener-port');
// The several-instances example needs a Redis: the demo runs its own where redis-server is installed.
const haveRedis = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
const rate = Number(values.rate ?? process.env.DEMO_RATE ?? '1');
if (!Number.isFinite(rate) || rate < 0 || rate > 1000)
  fail(`--rate must be a number of events per second from 0 to 1000, got "${values.rate ?? process.env.DEMO_RATE}"`);
const resetFlows = values['reset-flows'] || process.env.DEMO_RESET_FLOWS === '1';
const keepFlows = values['keep-flows'] || process.env.DEMO_KEEP_FLOWS === '1';
if (resetFlows && keepFlows) fail('--reset-flows and --keep-flows contradict each other');
const summaryJson = values['summary-json'] && path.resolve(values['summary-json']);
// The live-dashboard example needs the dashboard (a dev dependency): linked into the demo where installed.
const dashboardDir = path.join(root, 'node_modules', DASHBOARD);
const haveDashboard = fs.existsSync(path.join(dashboardDir, 'package.json'));

if (!values['no-build']) {
  console.log('Building…');
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.js')], { stdio: 'inherit', cwd: root });
}
const sim = require(path.join(root, 'dist', 'sim'));
const { startSampleServer, formatSummary, createMockCore, EnrollmentStore, WebHookStore } = sim;

const coreUrl = `http://127.0.0.1:${corePort}`;
const base = `http://127.0.0.1:${port}`;

// The user directory: this package linked in, Node-RED's defaults on 127.0.0.1.
const userDir = path.resolve(values['user-dir'] ?? process.env.DEMO_USER_DIR ?? path.join(root, '.demo'));
/** A path as the console shows it: relative to where npm start runs, unless outside. */
const shown = (file) => (path.relative(process.cwd(), file).startsWith('..') ? file : path.relative(process.cwd(), file));
const userDirShown = shown(userDir);
fs.mkdirSync(path.join(userDir, 'node_modules'), { recursive: true });
const link = path.join(userDir, 'node_modules', 'node-red-contrib-detection-bridge');
fs.rmSync(link, { recursive: true, force: true });
fs.symlinkSync(root, link, 'dir');
const dashboardLink = path.join(userDir, 'node_modules', DASHBOARD);
fs.rmSync(dashboardLink, { recursive: true, force: true });
if (haveDashboard) {
  fs.mkdirSync(path.dirname(dashboardLink), { recursive: true });
  fs.symlinkSync(dashboardDir, dashboardLink, 'dir');
}
const demoDependencies = { 'node-red-contrib-detection-bridge': '*', ...(haveDashboard ? { [DASHBOARD]: '*' } : {}) };
fs.writeFileSync(
  path.join(userDir, 'package.json'),
  JSON.stringify({ name: 'detection-bridge-demo', private: true, dependencies: demoDependencies }, null, 2),
);
fs.writeFileSync(
  path.join(userDir, 'settings.js'),
  `// Written by npm start. Node-RED's defaults, listening on 127.0.0.1 only.
module.exports = {
  uiHost: '127.0.0.1',
  uiPort: ${port},
  flowFile: 'flows.json',
  credentialSecret: false,
  editorTheme: { projects: { enabled: false }, tours: false },
  logging: { console: { level: 'info' } },
};
`,
);

const flowFile = path.join(userDir, 'flows.json');
const placed = placeDemoFlows(
  userDir,
  buildDemoFlows({
    coreUrl,
    redisUrl: `redis://127.0.0.1:${redisPort}`,
    haveRedis,
    haveDashboard,
    token: DEMO_TOKEN,
    listenerPort,
    nodeRedUrl: base,
  }),
  { reset: resetFlows, keep: keepFlows },
);
console.log(`Flows: ${placed.why}.`);
// What is deployed (the demo's, or yours): each receiver in it gets its feed.
const deployedFlows = JSON.parse(fs.readFileSync(flowFile, 'utf8'));
// Node-RED's process id, for whoever wants to try the restart (kill -9 $(cat .demo/node-red.pid)).
const pidFile = path.join(userDir, 'node-red.pid');
// The debug sidebar shows the tab on screen only (its filter "current flow"), unless the user chose otherwise.
const userSettingsFile = path.join(userDir, '.config.users.json');
let userSettings = {};
try {
  userSettings = JSON.parse(fs.readFileSync(userSettingsFile, 'utf8'));
} catch {
  // none yet (or unreadable: written anew)
}
fs.writeFileSync(userSettingsFile, JSON.stringify(demoUserSettings(userSettings), null, 4));

let sampleServer;
let enrollments;
let redis;
let nodeRed;
let delivery;
let stopping = false;

async function main() {
  // The bridge's sample endpoints, and the mock platform core under /api/v2/, on one port.
  const core = createMockCore({ userName: CORE_USER, password: CORE_PASSWORD });
  enrollments = new EnrollmentStore({ token: DEMO_BRIDGE_JWT });
  // The WebHooks controller shares the enrollment endpoints' JWT, as on the real bridge.
  const webhooks = new WebHookStore({ token: () => enrollments.token });
  sampleServer = await startSampleServer({ port: corePort, host: '127.0.0.1', fallback: core.handler, enrollments, webhooks });
  if (haveRedis) {
    const dir = path.join(userDir, 'redis');
    fs.mkdirSync(dir, { recursive: true });
    // appendfsync always, as docs/operations.md advises: an event answered 200 is on disk before the answer
    redis = spawn(
      'redis-server',
      ['--port', String(redisPort), '--bind', '127.0.0.1', '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--dir', dir],
      {
        stdio: 'ignore',
        detached: true, // see Node-RED's below
      },
    );
  }

  // Node-RED, kept running: when it dies, it alone is started again (the flows as last deployed).
  // In a process group of its own, like Redis: a Ctrl-C in the terminal reaches this script only,
  // which stops them in order (the simulator's events in delivery acknowledged first).
  const redJs = path.join(path.dirname(require.resolve('node-red/package.json')), 'red.js');
  nodeRed = new ChildSupervisor({
    name: 'Node-RED',
    say: (line) => console.error(`npm start: ${line}`),
    start: () =>
      spawn(process.execPath, [redJs, '--userDir', userDir, '--settings', path.join(userDir, 'settings.js')], {
        stdio: ['ignore', 'pipe', 'inherit'],
        cwd: root,
        detached: true,
      }),
  });
  let announced = false;
  nodeRed.on('started', (child, n) => {
    fs.writeFileSync(pidFile, `${child.pid}\n`);
    console.log(`npm start: Node-RED ${n === 1 ? 'starting' : 'starting again'} (pid ${child.pid}; in ${shown(pidFile)})`);
    let back = false;
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      if (back || !/Started flows/.test(String(chunk))) return;
      back = true;
      if (announced) {
        console.log(
          `npm start: Node-RED is back (pid ${child.pid}), with the flows as last deployed; the simulator, the mock core and Redis ran on.`,
        );
        return;
      }
      announced = true;
      announce();
    });
  });
  nodeRed.on('gave-up', () => {
    console.error('npm start: stopping the demo: Node-RED does not stay up.');
    void stop(1);
  });
  nodeRed.start();
}

/** The addresses and what to look at, once Node-RED has started its flows; then the simulator. */
function announce() {
  const feeds = demoFeeds(base, { haveRedis, haveDashboard, flows: deployedFlows });
  const share = (f) => `${Math.round(f.fraction * 100)}%`;
  console.log(`
  Where to look
  Node-RED editor:   ${base}/#flow/${DEMO_TAB}   (tab "live demo": the node status under each node, and the
                     debug sidebar, the bug icon at the right; it shows the messages of the tab on screen
                     only: open another tab to see its own, or pick "all nodes" in the sidebar's filter)
  ${haveDashboard ? `Dashboard:         ${base}/dashboard/live     (tab "live-dashboard": the latest plates and faces for a wall screen; receiver ${base}/detections/dashboard)` : `Dashboard:         ${DASHBOARD} is not installed (npm install): the "live-dashboard" tab is left out`}
  Demo receiver:     ${base}/demo/detections   (Bearer ${DEMO_TOKEN})
  Example receiver:  ${base}/detections        (tab "receive-detections", no credentials)
  Alert example:     ${base}/#flow/demo-tab-alert-with-picture   (receiver ${base}/detections/alerts; a Banned plate at
                     night, VIP and Banned people: the messages for e-mail and Telegram in its debug sidebar)
  Bridge samples:    ${coreUrl}/api/v1/webhook-models/face  and  /lpr
  Bridge enrollment: ${coreUrl}/api/v1/lpr/monitor/{externalId}, …/faces/… (JWT ${DEMO_BRIDGE_JWT.slice(0, 16)}…; tabs
                     "enroll-and-detect" and "sync-watch-list": what you enroll shows up in detections at /detections/enrolled)
  Mock platform v2:  ${coreUrl}/api/v2/        (user ${CORE_USER}, password ${CORE_PASSWORD}; POS pushes from tab "push-pos-transactions")
  ${haveRedis ? `Redis:             redis://127.0.0.1:${redisPort}   (tab "several-instances"; files in ${path.join(userDirShown, 'redis')})` : 'Redis:             redis-server is not installed: the "several-instances" tab is left out'}

  ${
    rate > 0
      ? `The simulator posts ${rate} detection(s) per second, resiliently: plates and faces, VIP, Banned and untagged,
  by day and by night, at several cameras, sites and time zones. Each tab with a receiver gets its share:
    ${feeds.map((f) => `${f.label} ${share(f)}`).join(', ')}`
      : 'The simulator is off (--rate 0).'
  }
  Send your own (e.g. a Banned plate at night):
    node dist/bin/detection-bridge-sim.js send --url ${base}/detections/alerts --plates ABC123:Banned \\
      --time-of-day night --time-zone America/New_York --cameras "Gate 2 LPR" --count 1

  The user directory is ${userDirShown}: the flows you deploy are kept (from one start to the next too; --reset-flows
  puts the demo's back). Node-RED is started again when it dies (try kill -9 $(cat ${shown(pidFile)})):
  the simulator, the mock core and Redis run on. Ctrl-C stops everything.
`);
  if (rate > 0) startSimulator();
}

function startSimulator() {
  // One delivery run per tab with a receiver (scripts/demo-flows.js): each gets events that
  // exercise it; the feeds marked there draw plates and faces enrolled from a flow too.
  delivery = startDemoFeeds(sim, { base, rate, enrollments, haveRedis, haveDashboard, token: DEMO_TOKEN, flows: deployedFlows });
  const timer = setInterval(() => {
    const s = delivery.snapshot();
    console.log(
      `  simulator: ${s.sent} sent · ${s.acknowledged} acknowledged · ${s.retried} retried · ${s.failed} failed · ${inDelivery(s)} in delivery`,
    );
  }, 15000);
  timer.unref();
  delivery.done.finally(() => clearInterval(timer));
}

const inDelivery = (s) => s.sent - s.acknowledged - s.failed - s.abandoned;
/** The events in delivery get this long to be acknowledged when the demo stops (Node-RED still kept running meanwhile). */
const DRAIN_MS = 15000;

async function stop(code = 0) {
  if (stopping) {
    // Again while the simulator finishes: at once (what is in delivery is counted abandoned). Not the
    // same Ctrl-C twice: the terminal sends it to npm and to this script, and npm passes it on.
    if (delivery && !stopping.drained && Date.now() - stopping.at > 1000) delivery.stop();
    return;
  }
  stopping = { drained: false, at: Date.now() };
  if (delivery) {
    const waiting = inDelivery(delivery.snapshot());
    if (waiting > 0)
      console.log(
        `\nnpm start: stopping; ${waiting} event(s) in delivery get up to ${DRAIN_MS / 1000} s to be acknowledged (Ctrl-C again: at once).`,
      );
    delivery.finish(DRAIN_MS);
    const summaries = await delivery.done.catch(() => []);
    stopping.drained = true;
    console.log('\nSimulator summary, by tab:');
    const byTab = delivery.runs.map(({ feed, run }) => ({ tab: feed.tab, label: feed.label, ...run.snapshot() }));
    for (const s of byTab) {
      console.log(
        `  ${s.label.padEnd(20)} ${s.sent} sent · ${s.acknowledged} acknowledged · ${s.retried} retried · ${s.failed} failed · ${s.abandoned} abandoned`,
      );
    }
    const live = delivery.runs.find(({ feed }) => feed.tab === DEMO_TAB);
    if (live) console.log(`\nThe live demo's receiver in detail:\n${formatSummary(live.run.snapshot())}`);
    if (summaryJson) fs.writeFileSync(summaryJson, JSON.stringify({ total: delivery.snapshot(), byTab, summaries }, null, 2));
  }
  if (nodeRed) await nodeRed.stop({ signal: 'SIGINT', killAfterMs: 10000 });
  fs.rmSync(pidFile, { force: true });
  if (sampleServer) await sampleServer.close().catch(() => undefined);
  if (redis && redis.exitCode === null) {
    const exited = new Promise((resolve) => redis.once('exit', resolve));
    redis.kill('SIGTERM');
    await exited;
  }
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
process.on('SIGHUP', () => void stop(0)); // the terminal closed: its signals no longer reach our children
// Last resort (this script failed): the children in their own process groups are not left behind.
process.on('exit', () => {
  for (const child of [nodeRed?.child, redis]) if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

main().catch((err) => {
  console.error(`npm start: ${err.message}`);
  void stop(1);
});
