#!/usr/bin/env node
'use strict';
/**
 * What .ci/run does after `npm ci`: build, lint, the bench smoke, and the
 * tests on every Node.js / Node-RED pair the package supports, as jobs run
 * side by side on one worker more than the machine has cores (CI_JOBS to
 * change it). The installs of Node 22, the oldest Node-RED and Node-RED 5
 * (into .ci/cache/, git-ignored) run beside the build and the first tests.
 * `node .ci/pipeline.js --plan` prints the jobs and the run the estimates
 * below predict (the same scheduler, nothing run).
 *
 * The suites are folders (SUITES): moving a test file between folders is
 * the only change a move needs. What runs where (a "phase" is one Node.js +
 * Node-RED pair), and why:
 *
 *   node20 · Node-RED dev (4.1.x): unit, nodes, e2e, load, browser (but languages)
 *   node20 · Node-RED 4.1.0 (the oldest claimed): nodes, e2e (but ONE_VERSION)
 *   node22 · Node-RED 5: nodes, e2e (but ONE_VERSION), browser (EVERY_EDITOR), unit/editor-validators
 *
 * Every assertion runs once; the dev phase runs all but one file. The other
 * two phases are there to catch what differs between versions, so they run
 * what touches what differs:
 * - the runtime API (registering nodes, httpNode and httpAdmin routes and
 *   Node-RED's HTTP stack, flows:started, full and modified-nodes deploys,
 *   credentials, context stores, core nodes in our examples, loading the
 *   packed package, the runtime's i18n): test/nodes and test/e2e, on every
 *   phase;
 * - the editor (palette, trays, sidebars, TypedInputs, the import menu, its
 *   i18n), which changed between 4 and 5: on Node-RED 5 too, each of our
 *   dialogs opened, saved and refusing an invalid value once (editor.test.js;
 *   every other invalid value is test/unit/editor-validators.test.js, by the
 *   same validators with Node-RED's own around them), every example imported
 *   through the menu, valid and deployed (examples-valid, no dialog opened:
 *   editor.test.js has opened each of ours on that version), flows of the release before config versions loaded and
 *   pasted (migration). The other browser files are scenarios built from
 *   those same dialogs on the same runtime API (alerts, palette-built flows,
 *   the dashboard, dead letters, the OpenAPI picker): once;
 * - one language end to end, once: languages.test.js in Japanese on
 *   Node-RED 5 (that every language has every text is the unit test
 *   test/unit/locales.test.js; the German editor and runtime of Node-RED 4
 *   are alert-from-palette's German half, on the dev phase).
 * Once, on the dev phase only:
 * - test/unit: Node-RED-free, so nothing in it differs between Node-RED
 *   versions; lib on Node 22 runs through test/nodes and test/e2e there. But
 *   editor-validators.test.js, which runs our dialogs' validators inside
 *   the Node-RED editor's own (RED.validators): on Node-RED 5 too;
 * - ONE_VERSION: end-to-end tests of the package's own machinery (the journal
 *   across SIGKILLs, dead letters, a full disk, Prometheus, Redis and
 *   Sentinel, the simulator's replays): what they prove is lib's and does not
 *   change with Node-RED;
 * - test/load, after every other job and beside no other (the workers drain
 *   once): beside the browser tests on 2 cores their load generator stalled
 *   (the burst took 110 s instead of 19, and Node's 5 s keep-alive bound then
 *   closed its idle connections: an ECONNRESET no sender on a machine of its
 *   own would see). The three load files run together: on 2 cores all three
 *   passed in 85 s, the burst in 24 s, against 190 s one after another (issue 41); the hostile
 *   corpus's client sends a request again when the server closed its kept-alive connection as
 *   idle under it (it once met that beside the other two, at load 9).
 *
 * The unit and nodes directories run as one mocha each; every other file as
 * a mocha of its own, longest first, so the workers finish together. The
 * run fails when a job fails, when any test is pending (skipped), or when a
 * test file is in no suite; each phase's passed / failed / pending tally
 * and wall time are printed at the end, and each job's output as it ends.
 */
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const CACHE = path.join(ROOT, '.ci', 'cache');
const MOCHA = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
const REPORTER = path.join(ROOT, 'test', 'support', 'summary-reporter.js');
const MOCHA_TIMEOUT = String(JSON.parse(fs.readFileSync(path.join(ROOT, '.mocharc.json'), 'utf8')).timeout ?? 20000);
const OLDEST = require(path.join(ROOT, 'package.json'))['node-red'].version.replace(/^>=\s*/, '');
const PLAN = process.argv.includes('--plan');
if (process.argv.includes('--help')) {
  console.log('node .ci/pipeline.js [--plan]\n  --plan  list the jobs and the run the estimates predict; run nothing');
  process.exit(0);
}
/**
 * Jobs at once: one more than the cores. The end-to-end and browser tests
 * wait on timers, sockets, trays sliding in and child processes as much as
 * they compute, so a third job keeps two cores busy.
 */
const WORKERS = Math.max(1, Number(process.env.CI_JOBS) || os.availableParallelism() + 1);
/**
 * The test suites: their folders under test/ (every *.test.js below them). A
 * file under test/ in none of them fails the run (a folder moved or added
 * without a line here would otherwise not run).
 */
const SUITES = {
  /** Node-RED-free (the package's own checks too): one mocha. */
  unit: ['unit', 'package'],
  /** The runtime through the test helper: one mocha. */
  nodes: ['nodes'],
  /** A real Node-RED with the packed package, a mocha per file. */
  e2e: ['e2e'],
  /** Load on a real Node-RED, asserting what it does under it: a mocha per file, together and apart from the rest (exclusive). */
  load: ['load'],
  /** The editor in Chromium, a mocha per file. */
  browser: ['browser'],
};
/**
 * End-to-end tests of the package's own machinery, run on the dev phase only (see the header):
 * the journal across SIGKILLs, dead letters, a full disk, Prometheus, Redis, Sentinel, the
 * simulator's replays into a slow receiver taken once, npm start's supervisor (our script, run
 * with the dev dependency's Node-RED whatever the phase).
 */
const ONE_VERSION = new Set([
  'alarm.test.js',
  'crash.test.js',
  'dead-letters-across-kill.test.js',
  'demo-restart.test.js',
  'disk-full.test.js',
  'durable.test.js',
  'monitor.test.js',
  'redis.test.js',
  'sentinel-failover.test.js',
  'simulator.test.js',
]);
/** The browser files that run on Node-RED 5 too: what of the editor differs between versions (see the header). */
const EVERY_EDITOR = new Set(['editor.test.js', 'examples-valid.test.js', 'languages.test.js', 'migration.test.js']);
/**
 * A job running longer than this is stopped and counted failed (a hung child must not hold CI).
 * The longest job, the examples in the editor on Node-RED 5, took up to 11.4 minutes on a slow 2-core machine.
 */
const JOB_LIMIT_MS = 20 * 60 * 1000;
const started = performance.now();
const LOGS = PLAN ? os.tmpdir() : fs.mkdtempSync(path.join(os.tmpdir(), 'detection-bridge-ci-'));
const TEST_CACHE = path.join(LOGS, 'test-cache');
/** Process groups of the jobs running now. */
const groups = new Set();

const NODE22_BIN = path.join(CACHE, 'node22', 'node_modules', '.bin');
const NR = {
  dev: undefined, // the dev dependency
  oldest: path.join(CACHE, 'nr-oldest', 'node_modules', 'node-red'),
  nr5: path.join(CACHE, 'nr5', 'node_modules', 'node-red'),
};

/** Test files of `suite`, sorted (a folder may have subfolders). */
function testFiles(suite) {
  return SUITES[suite]
    .flatMap((dir) =>
      fs
        .readdirSync(path.join(ROOT, 'test', dir), { recursive: true })
        .filter((f) => f.endsWith('.test.js'))
        .map((f) => path.join('test', dir, f)),
    )
    .sort();
}

/** Test files under test/ that no suite runs. */
function orphans() {
  const inSuites = new Set(Object.keys(SUITES).flatMap(testFiles));
  return fs
    .readdirSync(path.join(ROOT, 'test'), { recursive: true })
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => path.join('test', f))
    .filter((f) => !inSuites.has(f));
}

/**
 * Seconds per job on the 2-core CI machine with the other workers busy, to
 * start the long ones first and for --plan; not judged. From the fresh-clone
 * CI of 2026-12-04 (dev phase; Node-RED 5 below where it differs); an unknown
 * file counts as 14 s. The load files as they ran side by side.
 */
const ESTIMATE_S = {
  unit: 200,
  nodes: 110,
  'editor.test.js': 160,
  'examples-valid.test.js': 135,
  'languages.test.js': 60,
  'sentinel-failover.test.js': 100,
  'redis.test.js': 65,
  'burst.test.js': 42,
  'demo-soak.test.js': 63,
  'crash.test.js': 64,
  'alarm.test.js': 55,
  'hostile.test.js': 33,
  'dashboard.test.js': 55,
  'banned-at-night.test.js': 43,
  'alert.test.js': 34,
  'alert-from-palette.test.js': 72,
  'alert-delivery.test.js': 43,
  'completion.test.js': 26,
  'migration.test.js': 40,
  'openapi.test.js': 32,
  'durable.test.js': 30,
  'dead-letters-across-kill.test.js': 15,
  'monitor.test.js': 18,
  'demo-restart.test.js': 18,
  'dead-letters-dialog.test.js': 22,
  'stranded-dialog.test.js': 24,
};
/** Estimates of a job that a phase runs in part (its env below): file → phase name → seconds. */
const ESTIMATE_PART_S = {
  unit: { 'node22 · Node-RED 5': 5 },
  nodes: { 'node22 · Node-RED 5': 100 },
  'editor.test.js': { 'node22 · Node-RED 5': 156 },
  'examples-valid.test.js': { 'node22 · Node-RED 5': 95 },
  'alert-delivery.test.js': { 'node22 · Node-RED 5': 18, 'node20 · Node-RED 4.1.0': 40 },
};

/**
 * The jobs. `needs`: ids that must have passed first; `groups`: at most one job of each group at a time;
 * `exclusive`: runs after, and beside none of, the jobs that take the CPU and are not exclusive.
 */
function jobs() {
  const all = [];
  const add = (job) => all.push({ needs: [], groups: [], cpu: true, exclusive: false, estimate: 20, env: {}, ...job });
  // Installs wait on the network more than on the cores: they run beside the workers.
  add({
    id: 'install node@22',
    step: 'setup',
    cmd: 'bash',
    args: [
      '-c',
      // The node package's preinstall fetches the binary; make sure it did.
      `npm install --prefix "$0" node@22 --no-audit --no-fund --loglevel=error && "$0/node_modules/.bin/node" -e 'process.exit(process.versions.node.startsWith("22.") ? 0 : 1)' || { echo "$0/node_modules/.bin/node is not Node 22" >&2; exit 1; }`,
      path.join(CACHE, 'node22'),
    ],
    cpu: false,
    estimate: 16,
  });
  add({
    id: 'install node-red@5',
    step: 'setup',
    cmd: 'npm',
    args: ['install', '--prefix', path.join(CACHE, 'nr5'), 'node-red@5', '--no-audit', '--no-fund', '--loglevel=error'],
    env: { PATH: `${NODE22_BIN}${path.delimiter}${process.env.PATH}` },
    needs: ['install node@22'],
    cpu: false,
    estimate: 32,
  });
  add({
    id: `install node-red@${OLDEST}`,
    step: 'setup',
    cmd: 'npm',
    args: ['install', '--prefix', path.join(CACHE, 'nr-oldest'), `node-red@${OLDEST}`, '--no-audit', '--no-fund', '--loglevel=error'],
    cpu: false,
    estimate: 36,
  });
  // build and lint first (their estimates put them first), the rest waits on the build
  add({ id: 'build', step: 'setup', cmd: 'npm', args: ['run', 'build'], estimate: 45, first: true });
  add({ id: 'lint', step: 'setup', cmd: 'npm', args: ['run', 'lint'], estimate: 55, first: true });
  // The tarball packed once and installed once into template user directories (test/support/user-dir-template.js).
  add({
    id: 'user-dir templates',
    step: 'setup',
    cmd: process.execPath,
    args: ['test/support/user-dir-template.js'],
    needs: ['build'],
    cpu: false,
    estimate: 30,
  });
  add({ id: 'bench --quick', step: 'bench', cmd: 'npm', args: ['run', 'bench', '--', '--quick'], needs: ['build'], estimate: 39 });

  const phases = [
    {
      name: `node20 · Node-RED dev`,
      nodeRed: NR.dev,
      needs: [],
      suites: ['unit', 'nodes', 'e2e', 'load', 'browser'],
      runs: (base) => base !== 'languages.test.js',
      env: { DETECTION_BRIDGE_DIALOGS: 'once' },
    },
    {
      name: `node20 · Node-RED ${OLDEST}`,
      nodeRed: NR.oldest,
      needs: [`install node-red@${OLDEST}`],
      suites: ['nodes', 'e2e'],
      runs: (base) => !ONE_VERSION.has(base),
    },
    {
      name: 'node22 · Node-RED 5',
      nodeRed: NR.nr5,
      node22: true,
      needs: ['install node-red@5'],
      suites: ['unit', 'nodes', 'e2e', 'browser'],
      runs: (base, suite) =>
        suite === 'unit' ? base === 'editor-validators.test.js' : suite === 'browser' ? EVERY_EDITOR.has(base) : !ONE_VERSION.has(base),
      env: { DETECTION_BRIDGE_LANGS: 'ja', DETECTION_BRIDGE_DIALOGS: 'none' },
    },
  ];
  for (const phase of phases) {
    // Only a failure's screenshots (test/support/editor-browser.js): no run keeps the others.
    const env = { DETECTION_BRIDGE_SCREENSHOTS: 'failures', ...phase.env };
    if (phase.nodeRed) env.NODE_RED_PATH = phase.nodeRed;
    if (phase.node22) env.PATH = `${NODE22_BIN}${path.delimiter}${process.env.PATH}`;
    const mocha = (id, files, extra) =>
      add({
        id: `${phase.name} · ${id}`,
        phase: phase.name,
        node22: phase.node22,
        cmd: 'node',
        args: [MOCHA, '--no-config', '--timeout', MOCHA_TIMEOUT, '--reporter', REPORTER, ...files],
        env,
        needs: ['build', ...phase.needs],
        ...extra,
      });
    for (const suite of phase.suites) {
      const files = testFiles(suite).filter((f) => !phase.runs || phase.runs(path.basename(f), suite));
      if (suite === 'unit' || suite === 'nodes') {
        // The nodes tests and e2e/flow.test.js both write the plate-snapshot example's file under /tmp/detection-bridge.
        mocha(suite, files, {
          estimate: (ESTIMATE_PART_S[suite] || {})[phase.name] ?? ESTIMATE_S[suite],
          groups: suite === 'nodes' ? ['snapshot-file'] : [],
        });
        continue;
      }
      for (const file of files) {
        const base = path.basename(file);
        mocha(path.relative('test', file), [file], {
          needs: ['build', 'user-dir templates', ...phase.needs],
          estimate: (ESTIMATE_PART_S[base] || {})[phase.name] ?? ESTIMATE_S[base] ?? 14,
          // Browser tests are not kept apart: they are half the work, and two at once (of different files or
          // versions: screenshots go to test-artifacts/<file>-nr<major>) keep both workers busy.
          groups: base === 'flow.test.js' ? ['snapshot-file'] : [],
          exclusive: suite === 'load',
        });
      }
    }
  }
  return all;
}

/** "node v22.x, Node-RED 5.x" of a test job, as installed. */
function versions(job) {
  const nodeRed = job.env.NODE_RED_PATH || path.dirname(require.resolve('node-red/package.json', { paths: [ROOT] }));
  let node = process.version;
  let nr = '?';
  try {
    if (job.node22) node = execFileSync(path.join(NODE22_BIN, 'node'), ['--version'], { encoding: 'utf8' }).trim();
    nr = JSON.parse(fs.readFileSync(path.join(nodeRed, 'package.json'), 'utf8')).version;
  } catch {
    /* not installed: the phase failed before it ran */
  }
  return `node ${node}, Node-RED ${nr}`;
}

const fmt = (ms) => `${(ms / 1000).toFixed(0)}s`;
let virtual = 0;
const now = () => (PLAN ? virtual : performance.now() - started);

/** Runs one job in its own process group; resolves with its exit code (and whether it was stopped). */
function runJob(job) {
  return new Promise((resolve) => {
    const log = fs.openSync(job.logFile, 'w');
    const env = { ...process.env, DETECTION_BRIDGE_TEST_CACHE: TEST_CACHE, MOCHA_SUMMARY: job.summaryFile, ...job.env };
    const child = spawn(job.cmd, job.args, { cwd: ROOT, env, stdio: ['ignore', log, log], detached: true });
    groups.add(child.pid);
    const limit = setTimeout(() => {
      job.stopped = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, JOB_LIMIT_MS);
    child.on('error', (err) => {
      fs.writeSync(log, `\n${err.stack}\n`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      fs.closeSync(log);
      // Whatever the job left running (a Node-RED, a redis-server) goes with it.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* nothing left */
      }
      groups.delete(child.pid);
      resolve(code === null ? `signal ${signal}` : code);
    });
  });
}

function readSummary(job) {
  try {
    return JSON.parse(fs.readFileSync(job.summaryFile, 'utf8'));
  } catch {
    return undefined;
  }
}

async function main() {
  const list = jobs();
  const lost = orphans();
  if (lost.length) {
    console.error(`test files in no suite of .ci/pipeline.js (SUITES): ${lost.join(', ')}`);
    process.exitCode = 1;
    return;
  }
  list.forEach((job, i) => {
    job.logFile = path.join(LOGS, `${String(i).padStart(3, '0')}.log`);
    job.summaryFile = path.join(LOGS, `${String(i).padStart(3, '0')}.json`);
    job.state = 'waiting';
  });
  const byId = new Map(list.map((j) => [j.id, j]));
  console.log(`${list.length} jobs on ${WORKERS} workers; ${PLAN ? 'a plan from the estimates, nothing run' : `logs in ${LOGS}`}`);
  for (const phase of [...new Set(list.filter((j) => j.phase).map((j) => j.phase))]) {
    const mine = list.filter((j) => j.phase === phase);
    console.log(`  ${phase}: ${mine.map((j) => j.id.slice(phase.length + 3) + (PLAN ? ` ${j.estimate}s` : '')).join(', ')}`);
  }

  let running = 0;
  const busyGroups = new Map();
  let wake = () => {};
  const finished = () => list.every((j) => j.state === 'done');

  const ready = (job) =>
    job.state === 'waiting' &&
    job.needs.every((id) => byId.get(id).state === 'done' && byId.get(id).ok) &&
    job.groups.every((g) => !busyGroups.get(g));
  const blocked = (job) => job.needs.some((id) => byId.get(id).state === 'done' && !byId.get(id).ok);

  const end = (job, code) => {
    job.endedAt = now();
    job.code = code;
    job.summary = PLAN ? { passed: 0, failed: 0, pending: 0, pendingTitles: [] } : readSummary(job);
    const isTest = Boolean(job.phase);
    job.ok = code === 0 && !job.stopped && (!isTest || (job.summary && job.summary.failed === 0 && job.summary.pending === 0));
    job.state = 'done';
    if (job.cpu) running--;
    for (const g of job.groups) busyGroups.set(g, false);
    report(job);
    wake();
  };
  const start = (job) => {
    job.state = 'running';
    job.startedAt = now();
    if (job.cpu) running++;
    for (const g of job.groups) busyGroups.set(g, true);
    if (PLAN) job.plannedEnd = job.startedAt + job.estimate * 1000;
    else runJob(job).then((code) => end(job, code));
  };

  const report = (job) => {
    const took = fmt(job.endedAt - job.startedAt);
    if (PLAN) {
      console.log(`  ${fmt(job.startedAt).padStart(5)} → ${fmt(job.endedAt).padStart(5)}  ${job.id}${job.exclusive ? ' (apart)' : ''}`);
      return;
    }
    const s = job.summary;
    const counts = s ? `: ${s.passed} passed, ${s.failed} failed, ${s.pending} pending` : '';
    const verdict = job.ok ? 'ok' : job.stopped ? `STOPPED after ${fmt(JOB_LIMIT_MS)}` : 'FAILED';
    const header = `==== ${job.id} — ${verdict} in ${took}${counts} (at ${fmt(job.endedAt)})`;
    console.log(`\n${header}`);
    process.stdout.write(fs.readFileSync(job.logFile, 'utf8'));
    if (s && s.pending > 0) console.log(`pending (skipped), which CI does not allow:\n  ${s.pendingTitles.join('\n  ')}`);
    if (!job.ok) console.log(`${header.replace(/^====/, '!!!!')}`);
  };

  for (;;) {
    for (const job of list) {
      if (job.state === 'waiting' && blocked(job)) {
        job.state = 'done';
        job.ok = false;
        job.skippedBecause = job.needs.filter((id) => !byId.get(id).ok);
        console.log(`\n!!!! ${job.id} — not run: ${job.skippedBecause.join(', ')} failed`);
      }
    }
    // Jobs that wait on the network start at once; the others fill free workers, build and lint first, then longest first.
    for (const job of list.filter((j) => !j.cpu && ready(j))) start(job);
    const candidates = list
      .filter((j) => j.cpu && ready(j))
      .sort((a, b) => Number(Boolean(b.first)) - Number(Boolean(a.first)) || b.estimate - a.estimate);
    // The exclusive jobs run last, side by side, once every other job that takes the CPU has ended:
    // the workers then drain once, at the end, and not once more before them.
    const others = list.some((j) => j.cpu && !j.exclusive && j.state !== 'done');
    for (const job of candidates.filter((j) => !others || !j.exclusive)) {
      if (running >= WORKERS) break;
      if (ready(job)) start(job);
    }
    if (finished()) break;
    if (PLAN) {
      // the next job to end, by its estimate
      const next = list.filter((j) => j.state === 'running').sort((a, b) => a.plannedEnd - b.plannedEnd)[0];
      virtual = next.plannedEnd;
      end(next, 0);
      continue;
    }
    await new Promise((resolve) => (wake = resolve));
  }

  // The tallies.
  console.log('\n==================== summary ====================');
  for (const job of list.filter((j) => j.step)) {
    console.log(`${job.ok ? 'ok    ' : 'FAILED'} ${job.id.padEnd(32)} ${job.startedAt === undefined ? '' : fmt(job.endedAt - job.startedAt)}`);
  }
  let allPassed = list.every((j) => j.ok);
  for (const phase of [...new Set(list.filter((j) => j.phase).map((j) => j.phase))]) {
    const mine = list.filter((j) => j.phase === phase);
    const ran = mine.filter((j) => j.startedAt !== undefined);
    const sum = (k) => mine.reduce((n, j) => n + (j.summary ? j.summary[k] : 0), 0);
    const wall = ran.length ? Math.max(...ran.map((j) => j.endedAt)) - Math.min(...ran.map((j) => j.startedAt)) : 0;
    const busy = ran.reduce((n, j) => n + (j.endedAt - j.startedAt), 0);
    const broken = mine.filter((j) => !j.ok).map((j) => j.id.slice(phase.length + 3));
    console.log(
      `${broken.length ? 'FAILED' : 'ok    '} ${phase} (${versions(mine[0])}): ${sum('passed')} passed, ${sum('failed')} failed, ${sum('pending')} pending; ` +
        `${fmt(wall)} from its first job to its last, ended at ${fmt(Math.max(0, ...ran.map((j) => j.endedAt)))} (${fmt(busy)} of jobs)${broken.length ? `; not ok: ${broken.join(', ')}` : ''}`,
    );
  }
  const pending = list.filter((j) => j.summary && j.summary.pending > 0);
  if (pending.length) {
    allPassed = false;
    console.log(`skipped tests fail CI: ${pending.map((j) => `${j.id} (${j.summary.pending})`).join(', ')}`);
  }
  for (const job of list.filter((j) => !j.ok && j.startedAt !== undefined)) whyFailed(job);
  const jobSeconds = list.filter((j) => j.cpu && j.startedAt !== undefined).reduce((n, j) => n + (j.endedAt - j.startedAt), 0);
  console.log(
    `pipeline: ${PLAN ? 'planned' : allPassed ? 'all passed' : 'FAILED'} in ${fmt(now())} on ${WORKERS} workers (${fmt(jobSeconds)} of jobs)`,
  );
  if (PLAN) return;
  fs.rmSync(TEST_CACHE, { recursive: true, force: true });
  if (allPassed) fs.rmSync(LOGS, { recursive: true, force: true });
  else console.log(`logs kept in ${LOGS}`);
  process.exitCode = allPassed ? 0 : 1;
}

/**
 * The lines that say why a job failed, repeated at the very end: a CI report
 * often keeps only the last lines of the output, and the job's own report is
 * far above them. From the first line that names a failure (a bench's
 * PROBLEMS, mocha's failing tests, an error), else the log's last lines.
 */
function whyFailed(job, max = 30) {
  let lines;
  try {
    lines = fs.readFileSync(job.logFile, 'utf8').split('\n');
  } catch {
    return;
  }
  const first = lines.findIndex((l) => /PROBLEMS|\d+ failing|^\s*(\w*Error|AssertionError)\b/.test(l));
  const shown = first >= 0 ? lines.slice(first, first + max) : lines.slice(-max);
  console.log(`\n---- why ${job.id} failed (${first >= 0 ? 'from its first failure' : 'its last lines'}):`);
  console.log(shown.join('\n').trimEnd());
}

// Ctrl-C / a CI cancel: stop every job's process group, then go.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const pid of groups) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    if (!PLAN) fs.rmSync(LOGS, { recursive: true, force: true });
    process.exit(1);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
