#!/usr/bin/env node
/**
 * `npm start`: the live demo on a fresh clone.
 *
 * Builds the package, prepares a Node-RED user directory in .demo/
 * (git-ignored) with this package installed, deploys the demo flow and every
 * example on tabs of their own, starts the events-bridge sample endpoints and
 * the mock platform v2 core, starts Node-RED (the dev dependency) on
 * 127.0.0.1, and runs the events-bridge simulator against the demo flow, the
 * alert-with-picture example, the enroll-and-detect example and the live-dashboard
 * example (round robin). The simulator also serves the enrollment endpoints:
 * plates and faces enrolled from a flow show up in its detections with their externalId.
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
const DASHBOARD = '@flowfuse/node-red-dashboard';
const dashboardDir = path.join(root, 'node_modules', DASHBOARD);
const haveDashboard = fs.existsSync(path.join(dashboardDir, 'package.json'));

console.log('Building…');
execFileSync(process.execPath, [path.join(root, 'scripts', 'build.js')], { stdio: 'inherit', cwd: root });
const { startSampleServer, startDelivery, formatSummary, createMockCore, EnrollmentStore } = require(path.join(root, 'dist', 'sim'));

const DEMO_TOKEN = 'demo-token';
// The bridge's JWT for the enrollment endpoints: fixed, so flows kept with --keep-flows still work.
const DEMO_BRIDGE_JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJkZW1vIn0.ZGVtby1icmlkZ2Utc2lnbmF0dXJl';
const DEMO_IN = 'de30de30de300002';
const CORE_USER = 'admin';
const CORE_PASSWORD = 'secret';
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
  const flows = [];
  const credentials = { [DEMO_IN]: { token: DEMO_TOKEN } };
  const addTab = (id, label, info, nodes) => {
    flows.push({ id, type: 'tab', label, info });
    for (const node of nodes) {
      if (node.type === 'detection-redis') flows.push({ ...node, url: `redis://127.0.0.1:${redisPort}` });
      else if (node.type === 'platform-server') {
        // Examples point at the demo core; give it the demo credentials.
        flows.push({ ...node, url: coreUrl });
        credentials[node.id] = { userName: CORE_USER, password: CORE_PASSWORD };
      } else if (node.type === 'events-bridge') {
        // Examples point at the simulated bridge; give it the demo JWT.
        flows.push({ ...node, url: coreUrl });
        credentials[node.id] = { token: DEMO_BRIDGE_JWT };
      } else if (node.x === undefined) {
        // other configuration nodes (the dashboard's): global, as an import makes them
        flows.push(node);
      } else flows.push({ ...node, z: id });
    }
  };
  addTab(
    'demo-tab-live',
    'live demo',
    'The events-bridge simulator posts here.',
    JSON.parse(fs.readFileSync(path.join(__dirname, 'demo-flow.json'), 'utf8')),
  );
  const examples = fs
    .readdirSync(path.join(root, 'examples'))
    .filter((f) => f.endsWith('.json'))
    .filter((f) => {
      const nodes = JSON.parse(fs.readFileSync(path.join(root, 'examples', f), 'utf8'));
      return (haveRedis || !nodes.some((n) => n.type === 'detection-redis')) && (haveDashboard || !nodes.some((n) => n.type.startsWith('ui-')));
    })
    .sort();
  examples.forEach((file, i) => {
    addTab(
      `demo-tab-${i}`,
      path.basename(file, '.json'),
      `Example flow examples/${file}`,
      JSON.parse(fs.readFileSync(path.join(root, 'examples', file), 'utf8')),
    );
  });
  fs.writeFileSync(flowFile, JSON.stringify(flows, null, 2));
  // With credentialSecret false, Node-RED reads credentials as plain JSON.
  fs.writeFileSync(path.join(userDir, 'flows_cred.json'), JSON.stringify(credentials, null, 2));
}

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
    console.log(`
  Node-RED editor:   ${base}/          (tab "live demo": watch the node status and the debug sidebar)
  ${haveDashboard ? `Dashboard:         ${base}/dashboard/live     (tab "live-dashboard": the latest plates and faces for a wall screen; receiver ${base}/detections/dashboard)` : `Dashboard:         ${DASHBOARD} is not installed (npm install): the "live-dashboard" tab is left out`}
  Demo receiver:     ${base}/demo/detections   (Bearer ${DEMO_TOKEN})
  Example receiver:  ${base}/detections        (tab "receive-detections", no credentials)
  Alert example:     ${base}/detections/alerts (tab "alert-with-picture", no credentials; messages for e-mail and Telegram in the debug sidebar)
  Bridge samples:    ${coreUrl}/api/v1/webhook-models/face  and  /lpr
  Bridge enrollment: ${coreUrl}/api/v1/lpr/monitor/{externalId}, …/faces/… (JWT ${DEMO_BRIDGE_JWT.slice(0, 16)}…; tabs
                     "enroll-and-detect" and "sync-watch-list": what you enroll shows up in detections at /detections/enrolled)
  Mock platform v2:  ${coreUrl}/api/v2/        (user ${CORE_USER}, password ${CORE_PASSWORD}; POS pushes from tab "push-pos-transactions")
  ${haveRedis ? `Redis:             redis://127.0.0.1:${redisPort}   (tab "several-instances"; files in .demo/redis)` : 'Redis:             redis-server is not installed: the "several-instances" tab is left out'}

  ${rate > 0 ? `The simulator posts ${rate} detection(s) per second with realistic image sizes, resiliently, ${haveDashboard ? 'two in seven to the live demo, two in seven to the enroll example, two in seven to the dashboard, one in seven to the alert example' : 'two in five to the live demo, two in five to the enroll example, one in five to the alert example'}.` : 'The simulator is off (--rate 0).'}
  Post one yourself:
    curl -X POST ${base}/detections -H 'Content-Type: application/json' -d @- < <(curl -s ${coreUrl}/api/v1/webhook-models/lpr)

  The user directory is .demo/ (flows are reset on every start; --keep-flows keeps yours).
  Ctrl-C stops everything.
`);
    if (rate > 0) startSimulator();
  });
}

function startSimulator() {
  delivery = startDelivery({
    // Round robin: one event in five (seven with the dashboard) goes to the alert-with-picture
    // example (its receiver takes any credentials: none are set; the samples are VIP at its
    // cameras), two to the enroll-and-detect example, two to the live-dashboard example. An odd
    // number of receivers: faces and plates alternate, so each receiver gets both.
    url: [
      `${base}/demo/detections`,
      `${base}/detections/enrolled`,
      ...(haveDashboard ? [`${base}/detections/dashboard`] : []),
      `${base}/detections/alerts`,
      `${base}/demo/detections`,
      `${base}/detections/enrolled`,
      ...(haveDashboard ? [`${base}/detections/dashboard`] : []),
    ],
    forever: true,
    rate,
    mix: 0.5,
    auth: { mode: 'bearer', token: DEMO_TOKEN },
    realisticImages: true,
    resilient: true,
    timeoutMs: 10000,
    concurrency: 4,
    // Plates and faces enrolled from a flow show up in some of the detections, with their externalId.
    enrollments,
  });
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
    const summary = await delivery.done.catch(() => undefined);
    if (summary) console.log(`\nSimulator summary:\n${formatSummary(summary)}`);
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
