/**
 * The flows `npm start` deploys, and the simulator's feed of each tab: one
 * place, so that an end-to-end test deploys the very same flows and sends
 * the very same events as the demo.
 *
 *   buildDemoFlows(options)  the demo tab (scripts/demo-flow.json) and every example
 *                            the machine can run (not those that need an MQTT broker), each on a tab of its own, pointed at
 *                            the demo's core, bridge and Redis, with their credentials
 *   demoFeeds(base, options) which receiver of which tab gets which events, and how many
 *   startDemoFeeds(sim, …)   one simulator delivery run per feed, at the demo's rate
 *   placeDemoFlows(dir, …)   the demo's flows into Node-RED's user directory, unless the operator's are there
 *
 * The examples stay as they are on disk; only their servers' URLs and
 * credentials are set here, in memory.
 */
'use strict';
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

const DEMO_TOKEN = 'demo-token';
// The bridge's JWT for the enrollment endpoints: fixed, so the operator's flows, kept across starts, still work.
const DEMO_BRIDGE_JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJkZW1vIn0.ZGVtby1icmlkZ2Utc2lnbmF0dXJl';
const DEMO_IN = 'de30de30de300002';
const DEMO_TAB = 'demo-tab-live';
const CORE_USER = 'admin';
const CORE_PASSWORD = 'secret';
const DASHBOARD = '@flowfuse/node-red-dashboard';

/** The tab id of an example: stable, whatever else is installed. */
const exampleTabId = (name) => `demo-tab-${name}`;

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/**
 * The demo's flows. Options: `coreUrl` (the mock core and the simulated
 * bridge, e.g. http://127.0.0.1:5023), `redisUrl`, `haveRedis`,
 * `haveDashboard` (tabs that need them are left out without), `token` (the
 * demo receiver's Bearer token), `listenerPort` (the listener example's own port, on
 * 127.0.0.1; default 8443), `nodeRedUrl` (where the demo's Node-RED answers: the
 * alarm example's mail links point there). Returns `{ flows, credentials, tabs }`:
 * credentials by node id, as Node-RED's flows_cred.json holds them (see
 * withCredentials for the admin API), tabs as `{ id, label, file }`.
 */
function buildDemoFlows({
  coreUrl,
  redisUrl,
  haveRedis = false,
  haveDashboard = false,
  token = DEMO_TOKEN,
  listenerPort = 8443,
  nodeRedUrl,
  root = ROOT,
} = {}) {
  const flows = [];
  const credentials = { [DEMO_IN]: { token } };
  const tabs = [];
  const addTab = (id, label, info, file, nodes) => {
    tabs.push({ id, label, file });
    flows.push({ id, type: 'tab', label, info });
    for (const node of nodes) {
      if (node.type === 'detection-redis') flows.push({ ...node, ...(redisUrl ? { url: redisUrl } : {}) });
      // A receiver's own port (the listener example): on this machine only, like the demo's Node-RED.
      else if (node.type === 'detection-listener') flows.push({ ...node, host: '127.0.0.1', port: listenerPort });
      // the alarm's mail links open the demo's own Node-RED
      else if (node.type === 'detection-alarm' && nodeRedUrl) flows.push({ ...node, z: id, linkBase: nodeRedUrl });
      else if (node.type === 'platform-server') {
        // Examples point at the demo core; give it the demo credentials.
        flows.push({ ...node, ...(coreUrl ? { url: coreUrl } : {}) });
        credentials[node.id] = { userName: CORE_USER, password: CORE_PASSWORD };
      } else if (node.type === 'events-bridge') {
        // Examples point at the simulated bridge; give it the demo JWT.
        flows.push({ ...node, ...(coreUrl ? { url: coreUrl } : {}) });
        credentials[node.id] = { token: DEMO_BRIDGE_JWT };
      } else if (node.x === undefined) {
        // other configuration nodes (the dashboard's): global, as an import makes them
        flows.push(node);
      } else flows.push({ ...node, z: id });
    }
  };
  addTab(
    DEMO_TAB,
    'live demo',
    'The events-bridge simulator posts here.',
    'scripts/demo-flow.json',
    readJson(path.join(root, 'scripts', 'demo-flow.json')),
  );
  const examples = fs
    .readdirSync(path.join(root, 'examples'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, nodes: readJson(path.join(root, 'examples', file)) }))
    .filter(
      ({ nodes }) =>
        (haveRedis || !nodes.some((n) => n.type === 'detection-redis')) &&
        (haveDashboard || !nodes.some((n) => n.type.startsWith('ui-'))) &&
        // an MQTT broker and a relay are the site's own (gate-light): the demo has neither
        !nodes.some((n) => n.type === 'mqtt-broker'),
    );
  for (const { file, nodes } of examples) {
    const name = path.basename(file, '.json');
    addTab(exampleTabId(name), name, `Example flow examples/${file}`, `examples/${file}`, nodes);
  }
  return { flows, credentials, tabs };
}

/** The flows with each node's credentials inline, as Node-RED's admin API (POST /flows) takes them. */
function withCredentials(flows, credentials) {
  return flows.map((node) => (credentials[node.id] ? { ...node, credentials: { ...credentials[node.id] } } : node));
}

/**
 * What the alert example needs to show its worth: a Banned plate at night at
 * one of its cameras (Gate 2 LPR), VIP and Banned people at Entrance Cam 3,
 * and others its filter drops (untagged, other cameras, an expired VIP tag).
 * Seed 817: the first face is Jane Roe (VIP) at Entrance Cam 3, the first
 * plate ABC123 (Banned) at Gate 2 LPR at about 2 a.m. New York time.
 */
const ALERT_SCENARIO = {
  description: 'the alert example: Banned and VIP at its cameras, by night and by day, among others it drops',
  seed: 817,
  plates: ['ABC123:Banned', 'XYZ987:VIP@2030-12-31', 'KLM456', 'JKR777:Staff Parking', 'OLD001:VIP@2020-01-01'],
  faces: ['Ricardo Alvarez:Banned', 'Jane Roe:VIP', 'Mei Lin Chen', 'Amara Okafor'],
  cameras: [
    { name: 'Gate 2 LPR', kind: 'plate', site: 'eConnect Site 1', timeZone: 'America/New_York' },
    { name: 'Garage Exit LPR', kind: 'plate', site: 'eConnect Site 1', timeZone: 'America/New_York' },
    { name: 'Entrance Cam 3', kind: 'face', site: 'eConnect Site 1', timeZone: 'America/New_York' },
    { name: 'Lobby Cam', kind: 'face', site: 'eConnect Site 1', timeZone: 'America/New_York' },
  ],
  sites: [{ name: 'eConnect Site 1', serverContext: { SiteId: '1', PropertyName: 'eConnect Site 1', Region: 'East' } }],
  timesOfDay: ['night', 'night', 'day', 'evening'],
};

/**
 * The feeds: for each tab with a receiver, its URL, its share of the demo's
 * rate, and what it gets. `base` is Node-RED's URL; `flows` the deployed
 * flows (default: buildDemoFlows with the same options). Tabs left out of the
 * flows (no Redis, no dashboard) are left out here too; a receiver not listed
 * below (a new example) gets the mixed scenario, unless it listens on a
 * port of its own (a listener), which the demo does not know.
 */
function demoFeeds(base, { haveRedis = false, haveDashboard = false, token = DEMO_TOKEN, flows } = {}) {
  const deployed = flows ?? buildDemoFlows({ haveRedis, haveDashboard, token }).flows;
  const disabledTabs = new Set(deployed.filter((n) => n.type === 'tab' && n.disabled).map((t) => t.id));
  const receivers = deployed.filter((n) => n.type === 'detection-in' && n.path && !n.listener && !n.d && !disabledTabs.has(n.z));
  const listed = [
    // the demo's own tab: everything, at the bridge's real image sizes
    { tab: DEMO_TAB, path: '/demo/detections', share: 3, scenario: 'mixed', seed: 1, images: 'realistic', enrolled: true },
    // enrolled plates and faces (enroll from the tab) among others
    {
      tab: exampleTabId('enroll-and-detect'),
      path: '/detections/enrolled',
      share: 2,
      scenario: 'mixed',
      seed: 2,
      images: 'pictures',
      enrolled: true,
    },
    // names, sites and time zones that vary, for the cards
    { tab: exampleTabId('live-dashboard'), path: '/detections/dashboard', share: 2, scenario: 'mixed', seed: 3, images: 'realistic', enrolled: true },
    { tab: exampleTabId('alert-with-picture'), path: '/detections/alerts', share: 2, scenario: ALERT_SCENARIO, images: 'realistic' },
    // banned plates at Gate 2 LPR at night: alarms that remind and escalate until someone answers
    { tab: exampleTabId('alarm-acknowledge-escalate'), path: '/detections/alarms', share: 1, scenario: ALERT_SCENARIO, images: 'realistic' },
    { tab: exampleTabId('receive-detections'), path: '/detections', share: 1, scenario: 'mixed', seed: 4, images: 'pictures' },
    { tab: exampleTabId('dedupe-and-route'), path: '/detections/deduped', share: 1, scenario: 'mixed', seed: 5, images: 'pictures' },
    { tab: exampleTabId('durable-receive'), path: '/durable/detections', share: 1, scenario: 'mixed', seed: 6, images: 'pictures' },
    { tab: exampleTabId('several-instances'), path: '/shared/detections', share: 1, scenario: 'mixed', seed: 7, images: 'pictures' },
  ];
  const tabLabel = new Map(deployed.filter((n) => n.type === 'tab').map((t) => [t.id, t.label]));
  const feeds = receivers.map((receiver, i) => {
    const known = listed.find((f) => f.tab === receiver.z && f.path === receiver.path);
    return {
      ...(known ?? { tab: receiver.z, path: receiver.path, share: 1, scenario: 'mixed', seed: 100 + i, images: 'pictures' }),
      label: tabLabel.get(receiver.z) ?? receiver.z,
    };
  });
  const total = feeds.reduce((sum, f) => sum + f.share, 0);
  return feeds.map((f) => ({ ...f, url: `${base}${f.path}`, fraction: f.share / total, auth: { mode: 'bearer', token } }));
}

/**
 * Starts one delivery run per feed, together `rate` events per second
 * (resilient: the bridge retries until a 200). `sim` is the simulator's
 * module (dist/sim); `enrollments` its EnrollmentStore, drawn from by the
 * feeds marked `enrolled`; `flows` the deployed flows (see demoFeeds). Returns `{ runs, snapshot(), stop(),
 * finish(withinMs), done }`: stop() abandons the events in delivery, finish() lets them be acknowledged first (finishRun).
 */
function startDemoFeeds(sim, { base, rate, enrollments, haveRedis, haveDashboard, token, flows, forever = true, count } = {}) {
  const runs = demoFeeds(base, { haveRedis, haveDashboard, token, flows }).map((feed) => {
    const scenario = typeof feed.scenario === 'string' ? sim.BUILT_IN_SCENARIOS[feed.scenario] : feed.scenario;
    const run = sim.startDelivery({
      url: feed.url,
      ...(forever ? { forever: true } : { count: Math.max(1, Math.round((count ?? 1) * feed.fraction)) }),
      rate: rate * feed.fraction,
      mix: 0.5,
      auth: feed.auth,
      images: feed.images,
      scenario,
      seed: feed.seed,
      resilient: true,
      retryDelayMs: 1000,
      timeoutMs: 10000,
      concurrency: 2,
      ...(feed.enrolled && enrollments ? { enrollments } : {}),
    });
    return { feed, run };
  });
  const snapshot = () => {
    const total = { sent: 0, acknowledged: 0, retried: 0, failed: 0, abandoned: 0 };
    for (const { run } of runs) {
      const s = run.snapshot();
      for (const key of Object.keys(total)) total[key] += s[key];
    }
    return total;
  };
  return {
    runs,
    snapshot,
    stop: () => runs.forEach(({ run }) => run.stop()),
    finish: (withinMs) => runs.forEach(({ run }) => finishRun(run, withinMs)),
    done: Promise.all(runs.map(({ run }) => run.done)),
  };
}

/**
 * Stops a delivery run without losing what is in delivery: the run is
 * stopped the moment none of its events is (the simulator's stop() abandons
 * events in delivery), so no new one is sent and none is cut off; what is
 * still in delivery after `withinMs` (a receiver that never answers) is
 * abandoned, and counted so. `clock`: setTimeout and clearTimeout (a test's).
 */
function finishRun(run, withinMs, clock = { setTimeout, clearTimeout }) {
  const inDelivery = () => {
    const s = run.snapshot();
    return s.sent - s.acknowledged - s.failed - s.abandoned;
  };
  if (run.stopped) return;
  if (inDelivery() === 0) return run.stop();
  let timer;
  const onSettled = () => {
    if (inDelivery() > 0) return;
    // Synchronously, in the settling event's turn: the run's loop is waiting
    // (its pace, a free slot), so it stops before sending another.
    run.off('settled', onSettled);
    clock.clearTimeout(timer);
    run.stop();
  };
  timer = clock.setTimeout(() => {
    run.off('settled', onSettled);
    run.stop();
  }, withinMs);
  run.on('settled', onSettled);
}

/** The flows file's content, comparable whatever its layout (Node-RED writes it pretty or not). */
function fingerprint(file) {
  const text = fs.readFileSync(file, 'utf8');
  let canonical = text;
  try {
    canonical = JSON.stringify(JSON.parse(text));
  } catch {
    // not JSON: compared as it is
  }
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Writes the demo's flows (`{ flows, credentials }` from buildDemoFlows) into
 * Node-RED's user directory `userDir`, unless the operator's are there: the
 * flows the operator deployed are kept. Written are the demo's on a first
 * start, with `reset`, and over the demo's own flows left as a previous start
 * wrote them (a record of what was written, `.demo-flows.json`, tells): so a
 * pull that brings a new example, or other ports, reaches them. `keep`
 * keeps even those. Returns `{ written, why }` for the console.
 */
function placeDemoFlows(userDir, { flows, credentials }, { reset = false, keep = false } = {}) {
  const flowFile = path.join(userDir, 'flows.json');
  const credFile = path.join(userDir, 'flows_cred.json');
  const recordFile = path.join(userDir, '.demo-flows.json');
  const write = (why) => {
    fs.writeFileSync(flowFile, JSON.stringify(flows, null, 2));
    // With credentialSecret false, Node-RED reads credentials as plain JSON.
    fs.writeFileSync(credFile, JSON.stringify(credentials, null, 2));
    fs.writeFileSync(recordFile, JSON.stringify({ flows: fingerprint(flowFile), credentials: fingerprint(credFile) }, null, 2));
    return { written: true, why };
  };
  if (reset) return write('the demo’s flows, written anew (--reset-flows)');
  if (!fs.existsSync(flowFile)) return write('the demo’s flows (first start)');
  if (keep) return { written: false, why: 'the flows as last deployed, kept (--keep-flows)' };
  let record;
  try {
    record = JSON.parse(fs.readFileSync(recordFile, 'utf8'));
  } catch {
    // no record: flows this script did not write, or from before it kept one
  }
  const untouched = record && record.flows === fingerprint(flowFile) && fs.existsSync(credFile) && record.credentials === fingerprint(credFile);
  if (untouched) return write('the demo’s flows, refreshed (you had not deployed changes)');
  return { written: false, why: 'yours, as last deployed, kept (--reset-flows puts the demo’s back)' };
}

/**
 * Node-RED's per-user editor settings for the demo: the debug sidebar shows
 * the messages of the tab on screen ("current flow"), so a dozen busy tabs
 * do not bury the one you look at. A choice the user made is kept.
 */
function demoUserSettings(existing = {}) {
  const user = existing._ ?? {};
  if (user.debug?.filter) return existing;
  return { ...existing, _: { ...user, debug: { ...(user.debug ?? {}), filter: 'filterCurrent' } } };
}

module.exports = {
  ALERT_SCENARIO,
  CORE_PASSWORD,
  CORE_USER,
  DASHBOARD,
  DEMO_BRIDGE_JWT,
  DEMO_IN,
  DEMO_TAB,
  DEMO_TOKEN,
  buildDemoFlows,
  demoFeeds,
  demoUserSettings,
  exampleTabId,
  finishRun,
  placeDemoFlows,
  startDemoFeeds,
  withCredentials,
};
