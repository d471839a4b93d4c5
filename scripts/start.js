#!/usr/bin/env node
/**
 * `npm start`: the live demo on a fresh clone.
 *
 * Builds the package, prepares a Node-RED user directory in .demo/
 * (git-ignored) with this package installed, deploys the demo flow and every
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
 * Where Debian's redis-server is installed, a Redis for the several-instances
 * example is started too (its files in .demo/redis); otherwise that tab is left out.
 * The live-dashboard example needs FlowFuse Dashboard 2.0, a dev dependency:
 * where it is not installed, that tab is left out too.
 * Ctrl-C stops everything and prints the simulator's summary.
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
  startDemoFeeds,
} = require('./demo-flows');

const root = path.resolve(__dirname, '..');
const USAGE = `usage: npm start [-- options]

  --port N         Node-RED's port (env PORT; default 1880)
  --core-port N    port of the mock platform core and the bridge's sample endpoints
                   (env DEMO_CORE_PORT; default 5023)
  --redis-port N   port of the demo's own redis-server, when installed (env DEMO_REDIS_PORT; default 5024)
  --rate R         simulated detections per second (env DEMO_RATE; default 1; 0 = no simulator)
  --keep-flows     keep the flows you changed in the demo (env DEMO_KEEP_FLOWS=1)
                   instead of resetting them on every start
  --help           this text
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
      rate: { type: 'string' },
      'keep-flows': { type: 'boolean' },
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
// The several-instances example needs a Redis: the demo runs its own where redis-server is installed.
const haveRedis = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
const rate = Number(values.rate ?? process.env.DEMO_RATE ?? '1');
if (!Number.isFinite(rate) || rate < 0 || rate > 1000)
  fail(`--rate must be a number of events per second from 0 to 1000, got "${values.rate ?? process.env.DEMO_RATE}"`);
const keepFlows = values['keep-flows'] || process.env.DEMO_KEEP_FLOWS === '1';
// The live-dashboard example needs the dashboard (a dev dependency): linked into the demo where installed.
const dashboardDir = path.join(root, 'node_modules', DASHBOARD);
const haveDashboard = fs.existsSync(path.join(dashboardDir, 'package.json'));

console.log('Building…');
execFileSync(process.execPath, [path.join(root, 'scripts', 'build.js')], { stdio: 'inherit', cwd: root });
const sim = require(path.join(root, 'dist', 'sim'));
const { startSampleServer, formatSummary, createMockCore, EnrollmentStore } = sim;

const coreUrl = `http://127.0.0.1:${corePort}`;
const base = `http://127.0.0.1:${port}`;

// The user directory: this package linked in, Node-RED's defaults on 127.0.0.1.
const userDir = path.join(root, '.demo');
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
if (!keepFlows || !fs.existsSync(flowFile)) {
  const { flows, credentials } = buildDemoFlows({ coreUrl, redisUrl: `redis://127.0.0.1:${redisPort}`, haveRedis, haveDashboard, token: DEMO_TOKEN });
  fs.writeFileSync(flowFile, JSON.stringify(flows, null, 2));
  // With credentialSecret false, Node-RED reads credentials as plain JSON.
  fs.writeFileSync(path.join(userDir, 'flows_cred.json'), JSON.stringify(credentials, null, 2));
}
// What is deployed (yours with --keep-flows): each receiver in it gets its feed.
const deployedFlows = JSON.parse(fs.readFileSync(flowFile, 'utf8'));
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
  sampleServer = await startSampleServer({ port: corePort, host: '127.0.0.1', fallback: core.handler, enrollments });
  if (haveRedis) {
    const dir = path.join(userDir, 'redis');
    fs.mkdirSync(dir, { recursive: true });
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--appendonly', 'yes', '--save', '', '--dir', dir], {
      stdio: 'ignore',
    });
  }

  const redJs = path.join(path.dirname(require.resolve('node-red/package.json')), 'red.js');
  nodeRed = spawn(process.execPath, [redJs, '--userDir', userDir, '--settings', path.join(userDir, 'settings.js')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: root,
  });
  nodeRed.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`Node-RED stopped (${signal || code}); stopping the demo.`);
      void stop(1);
    }
  });

  let announced = false;
  nodeRed.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    if (announced || !/Started flows/.test(String(chunk))) return;
    announced = true;
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
  ${haveRedis ? `Redis:             redis://127.0.0.1:${redisPort}   (tab "several-instances"; files in .demo/redis)` : 'Redis:             redis-server is not installed: the "several-instances" tab is left out'}

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

  The user directory is .demo/ (flows are reset on every start; --keep-flows keeps yours).
  Ctrl-C stops everything.
`);
    if (rate > 0) startSimulator();
  });
}

function startSimulator() {
  // One delivery run per tab with a receiver (scripts/demo-flows.js): each gets events that
  // exercise it; the feeds marked there draw plates and faces enrolled from a flow too.
  delivery = startDemoFeeds(sim, { base, rate, enrollments, haveRedis, haveDashboard, token: DEMO_TOKEN, flows: deployedFlows });
  const timer = setInterval(() => {
    const s = delivery.snapshot();
    console.log(`  simulator: ${s.sent} sent · ${s.acknowledged} acknowledged · ${s.retried} retried · ${s.failed} failed`);
  }, 15000);
  timer.unref();
  delivery.done.finally(() => clearInterval(timer));
}

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  if (delivery) {
    delivery.stop();
    await delivery.done.catch(() => undefined);
    console.log('\nSimulator summary, by tab:');
    for (const { feed, run } of delivery.runs) {
      const s = run.snapshot();
      console.log(`  ${feed.label.padEnd(20)} ${s.sent} sent · ${s.acknowledged} acknowledged · ${s.retried} retried · ${s.failed} failed`);
    }
    const live = delivery.runs.find(({ feed }) => feed.tab === DEMO_TAB);
    if (live) console.log(`\nThe live demo's receiver in detail:\n${formatSummary(live.run.snapshot())}`);
  }
  if (nodeRed && nodeRed.exitCode === null && nodeRed.signalCode === null) {
    const exited = new Promise((resolve) => nodeRed.once('exit', resolve));
    nodeRed.kill('SIGINT');
    const timer = setTimeout(() => nodeRed.kill('SIGKILL'), 10000);
    await exited;
    clearTimeout(timer);
  }
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

main().catch((err) => {
  console.error(`npm start: ${err.message}`);
  void stop(1);
});
