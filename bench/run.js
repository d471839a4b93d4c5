#!/usr/bin/env node
'use strict';
/**
 * npm run bench [-- options]
 *
 * Where the package stands, side by side, in one run (issue 6):
 *   receiver  detection-in against core http in → switch → http response in
 *             the same Node-RED, and a bare node:http + JSON.parse floor, on
 *             plate (~880 KB), face (~370 KB) and small bodies; detection-in
 *             answering once on disk (journal) against answering from memory,
 *             and against this machine's sequential write-and-sync limit for
 *             the same bytes; the same plate and face events as .NET's
 *             System.Text.Json writes them (`+` as \u002B) and plate events
 *             with `/` as `\/`, each against its own floor and against the
 *             receiver on the plain body in the same rounds
 *   burst     64 connections posting 1 MB plate events at detection-in:
 *             peak RSS, and every 200 comes out at the end of the flow
 *   dedupe    DedupeWindow checks/s and heap bytes per key at 100k and 1M keys
 *   plates    detection filter's plate matcher: checks/s and heap bytes per
 *             entry on lists of 1,000, 100,000 and 1,000,000 plates, with one
 *             look-alike, and with one look-alike and one extra/missing character
 *   push      10,000 POS transactions: platform-push batches against one core
 *             http request per transaction, into the mock core
 *   openapi   a POS batch through the platform client, checked against the
 *             688-operation test document before sending and not: the ratio
 *   redis     with a redis-server started here (skipped when not installed):
 *             shared dedupe checks/s, pipelined and awaited one by one,
 *             against the in-memory window; detection-in on plate bodies
 *             answering once the event is in a Redis stream against answering
 *             from memory; Redis memory per pending event; two Node-RED
 *             instances against one, round robin
 *
 * Options:
 *   --quick         smoke mode: every part with tiny sizes and durations (a
 *                   few seconds); results are not written unless --out is given
 *   --only a,b      run only these parts (receiver, burst, dedupe, plates, push, redis, openapi)
 *   --baseline REF  the receiver part as an A/B run instead: the same receiver
 *                   scenario on a build of git commit REF (built once, cached
 *                   in bench/.baselines/) and on this tree's build, taking
 *                   turns round by round; prints current ÷ baseline per round
 *                   (median, min–max) and the 2% line of issue 27; results
 *                   are not written unless --out is given
 *   --monitor       with --baseline: a third build in the turns, this tree's
 *                   with a detection-monitor deployed and its metrics scraped
 *                   once a second (skipped, with a note, when this build has
 *                   no detection-monitor node)
 *   --together      with --baseline: the builds loaded at the same time in each
 *                   round (each with its own connections) instead of in
 *                   turns: they share the CPUs and whatever else runs on the
 *                   machine alike (for a machine others are using)
 *   --bodies a,b    receiver bodies to run: lpr (plate), face, small, lpr-stj,
 *                   face-stj (System.Text.Json), lpr-slash (`/` as `\/`) (default all)
 *   --rounds N      rounds per body of the receiver part (default 6 plate, 4 others with --baseline)
 *   --seconds S     seconds per target and round of the receiver part
 *   --out FILE      where to write the results (default bench/results.json,
 *                   where the parts not run keep their last figures; none in
 *                   --quick mode)
 *   --profile       run Node-RED and the floor with --cpu-prof (the folder is printed)
 *   --gc            the redis part also counts Node-RED's garbage-collection
 *                   pauses per event (bench/support/gc-observer.js loaded into it)
 *
 * Exits 1 when a part breaks (a request not answered 200, a message lost, a
 * push not delivered, a process that fails), never because of a timing target.
 * Everything listens on 127.0.0.1; every process started here is stopped.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');

const { NodeRed, distBuilt, ROOT, NODE_RED_DIR } = require('./support/nodered');
const { RssSampler, forkNode, stopChild, killAll } = require('./support/proc');
const { flows, READY } = require('./support/flows');
const { render, targets } = require('./support/report');
const { runReceiver } = require('./parts/receiver');
const { runBurst } = require('./parts/burst');
const { runDedupe } = require('./parts/dedupe');
const { runPlates } = require('./parts/plates');
const { runPush } = require('./parts/push');
const { runRedis } = require('./parts/redis');
const { runOpenapi } = require('./parts/openapi');
const { runReceiverAb } = require('./parts/receiver-ab');
const { baselineBuild, hasNodeType } = require('./support/baseline');

const PARTS = ['receiver', 'burst', 'dedupe', 'plates', 'push', 'redis', 'openapi'];
const BODIES = ['lpr', 'face', 'small', 'lpr-stj', 'face-stj', 'lpr-slash'];
const TOKEN = 'bench-bearer-token';
const KiB = 1024;

const CONFIG = {
  full: {
    receiver: {
      connections: 8,
      kinds: [
        { kind: 'lpr', label: 'LPR', bytes: 880 * 1000, rounds: 5, seconds: 3, warmupSeconds: 1 },
        { kind: 'face', label: 'face', bytes: 370 * KiB, rounds: 3, seconds: 2, warmupSeconds: 0.5 },
        { kind: 'small', label: 'small', bytes: 0, rounds: 3, seconds: 2, warmupSeconds: 0.5 },
        // The same events as real senders write them (three targets each: receiver, receiver-plain, floor).
        { kind: 'lpr-stj', label: 'LPR, System.Text.Json', bytes: 880 * 1000, rounds: 5, seconds: 3, warmupSeconds: 1 },
        { kind: 'face-stj', label: 'face, System.Text.Json', bytes: 370 * KiB, rounds: 3, seconds: 2, warmupSeconds: 0.5 },
        { kind: 'lpr-slash', label: 'LPR, \\/ escaped', bytes: 880 * 1000, rounds: 3, seconds: 3, warmupSeconds: 0.5 },
      ],
    },
    // Two or three builds taking turns: more rounds than the receiver part's, the
    // verdict being a median of per-round ratios.
    receiverAb: {
      connections: 8,
      kinds: [
        { kind: 'lpr', label: 'LPR', bytes: 880 * 1000, rounds: 6, seconds: 3, warmupSeconds: 1 },
        { kind: 'face', label: 'face', bytes: 370 * KiB, rounds: 4, seconds: 2, warmupSeconds: 0.5 },
        { kind: 'small', label: 'small', bytes: 0, rounds: 4, seconds: 2, warmupSeconds: 0.5 },
        { kind: 'lpr-stj', label: 'LPR, System.Text.Json', bytes: 880 * 1000, rounds: 4, seconds: 3, warmupSeconds: 1 },
      ],
    },
    burst: { connections: 64, bytes: 1024 * KiB, seconds: 10 },
    dedupe: { keys: [100_000, 1_000_000], checks: 1_000_000, timeoutMs: 180_000 },
    plates: { entries: [1_000, 100_000, 1_000_000], checks: 300_000, timeoutMs: 300_000 },
    push: { transactions: 10_000, warmup: 1_000, window: 16, timeoutMs: 180_000 },
    openapi: { requests: 1_000, rounds: 6, batch: 20, window: 8, warmup: 500 },
    redis: {
      dedupe: { keys: 100_000, checks: 1_000_000, pipelinedChecks: 300_000, awaitedChecks: 30_000, batches: [64, 1024] },
      receiver: { connections: 8, bytes: 880 * 1000, rounds: 5, seconds: 3, warmupSeconds: 1 },
      pending: 100,
      take: { perRound: 100, rounds: 4 },
    },
  },
  quick: {
    receiver: {
      connections: 4,
      kinds: [
        // Above the 64 KiB from which lib/http/json.ts takes its large-body road.
        { kind: 'lpr', label: 'LPR', bytes: 96 * KiB, rounds: 1, seconds: 0.15, warmupSeconds: 0 },
        { kind: 'face', label: 'face', bytes: 70 * KiB, rounds: 1, seconds: 0.15, warmupSeconds: 0 },
        { kind: 'small', label: 'small', bytes: 0, rounds: 1, seconds: 0.15, warmupSeconds: 0 },
        { kind: 'lpr-stj', label: 'LPR, System.Text.Json', bytes: 96 * KiB, rounds: 1, seconds: 0.15, warmupSeconds: 0 },
        { kind: 'lpr-slash', label: 'LPR, \\/ escaped', bytes: 96 * KiB, rounds: 1, seconds: 0.15, warmupSeconds: 0 },
      ],
    },
    receiverAb: {
      connections: 4,
      kinds: [
        { kind: 'lpr', label: 'LPR', bytes: 96 * KiB, rounds: 2, seconds: 0.15, warmupSeconds: 0 },
        { kind: 'face', label: 'face', bytes: 70 * KiB, rounds: 2, seconds: 0.15, warmupSeconds: 0 },
        { kind: 'small', label: 'small', bytes: 0, rounds: 2, seconds: 0.15, warmupSeconds: 0 },
        { kind: 'lpr-stj', label: 'LPR, System.Text.Json', bytes: 96 * KiB, rounds: 2, seconds: 0.15, warmupSeconds: 0 },
      ],
    },
    burst: { connections: 8, bytes: 128 * KiB, seconds: 0.5 },
    dedupe: { keys: [1_000, 10_000], checks: 20_000, timeoutMs: 60_000 },
    plates: { entries: [1_000, 10_000], checks: 5_000, timeoutMs: 60_000 },
    push: { transactions: 300, warmup: 50, window: 16, timeoutMs: 60_000 },
    openapi: { requests: 100, rounds: 2, batch: 20, window: 8, warmup: 20 },
    redis: {
      dedupe: { keys: 1_000, checks: 20_000, pipelinedChecks: 4_000, awaitedChecks: 1_000, batches: [64, 1024] },
      receiver: { connections: 4, bytes: 96 * KiB, rounds: 1, seconds: 0.2, warmupSeconds: 0 },
      pending: 10,
      take: { perRound: 10, rounds: 1 },
    },
  },
};

function parseArgs(argv) {
  const args = { quick: false, only: PARTS, out: undefined, profile: false, baseline: undefined, monitor: false };
  const value = (a, i) => (a.includes('=') ? [a.slice(a.indexOf('=') + 1), i] : [argv[i + 1], i + 1]);
  const positive = (name, text, integer) => {
    const n = Number(text);
    if (!(n > 0) || (integer && !Number.isInteger(n))) usage(`${name} needs a${integer ? ' whole' : ''} number above 0`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const is = (name) => a === name || a.startsWith(`${name}=`);
    if (a === '--quick') args.quick = true;
    else if (a === '--profile') args.profile = true;
    else if (a === '--gc') args.gc = true;
    else if (a === '--monitor') args.monitor = true;
    else if (a === '--together') args.together = true;
    else if (is('--baseline')) {
      [args.baseline, i] = value(a, i);
      if (!args.baseline) usage('--baseline needs a git ref (a commit, branch or tag)');
    } else if (is('--rounds')) {
      let v;
      [v, i] = value(a, i);
      args.rounds = positive('--rounds', v, true);
    } else if (is('--seconds')) {
      let v;
      [v, i] = value(a, i);
      args.seconds = positive('--seconds', v, false);
    } else if (is('--bodies')) {
      let v;
      [v, i] = value(a, i);
      args.bodies = String(v || '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = args.bodies.filter((b) => !BODIES.includes(b));
      if (unknown.length || args.bodies.length === 0) usage(`unknown bodies ${unknown.join(', ') || '(none)'}; bodies: ${BODIES.join(', ')}`);
    } else if (a === '--only' || a.startsWith('--only=')) {
      const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      args.only = String(value || '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = args.only.filter((p) => !PARTS.includes(p));
      if (unknown.length || args.only.length === 0) usage(`unknown part(s) ${unknown.join(', ') || '(none)'}; parts: ${PARTS.join(', ')}`);
    } else if (a === '--out' || a.startsWith('--out=')) {
      args.out = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!args.out) usage('--out needs a file');
    } else if (a === '--help' || a === '-h') usage();
    else usage(`unknown option ${a}`);
  }
  if (args.baseline && !args.only.includes('receiver')) usage('--baseline is an A/B run of the receiver part: add receiver to --only');
  if (args.monitor && !args.baseline) usage('--monitor is a variant of the A/B run: give --baseline too');
  if (args.together && !args.baseline) usage('--together is a way of running the A/B: give --baseline too');
  return args;
}

/** The receiver settings with --bodies, --rounds and --seconds applied. */
function receiverConfig(base, args) {
  const kinds = base.kinds
    .filter((k) => !args.bodies || args.bodies.includes(k.kind))
    .map((k) => ({ ...k, rounds: args.rounds || k.rounds, seconds: args.seconds || k.seconds }));
  return { ...base, kinds };
}

function usage(problem) {
  const lines = fs.readFileSync(__filename, 'utf8').split('\n');
  const text = lines
    .slice(3, lines.indexOf(' */'))
    .map((l) => l.replace(/^ \*\/?\s?/, ''))
    .join('\n');
  if (problem) {
    console.error(`bench: ${problem}\n\n${text}`);
    process.exit(2);
  }
  console.log(text);
  process.exit(0);
}

function log(line) {
  console.log(line);
}

/** dist/ is what Node-RED loads. Built when missing (a fresh clone); never rebuilt
 *  behind the back of someone testing in the same tree, only warned about. */
function ensureBuilt() {
  if (!distBuilt()) {
    log('bench: dist/ is missing: building it (node scripts/build.js)');
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.js')], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('the build failed');
    return;
  }
  const newest = (dir, ext) => {
    let latest = 0;
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith(ext)) latest = Math.max(latest, fs.statSync(p).mtimeMs);
      }
    };
    walk(dir);
    return latest;
  };
  const dirs = ['lib', 'sim', 'nodes'];
  const sources = Math.max(...dirs.map((d) => newest(path.join(ROOT, d), '.ts')));
  const built = Math.min(...dirs.map((d) => newest(path.join(ROOT, 'dist', d), '.js')));
  if (sources > built) log('bench: warning: lib/, sim/ or nodes/ changed after dist/ was built; run `npm run build` to measure the current sources');
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0] ? cpus[0].model.trim() : 'unknown',
    node: process.versions.node,
    nodeRed: require(path.join(NODE_RED_DIR, 'package.json')).version,
    platform: process.platform,
    arch: process.arch,
    totalMemoryBytes: os.totalmem(),
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const mode = args.quick ? 'quick' : 'full';
  const config = { ...CONFIG[mode] };
  config.receiver = receiverConfig(config.receiver, args);
  config.receiverAb = { ...receiverConfig(config.receiverAb, args), together: Boolean(args.together) };
  const t0 = performance.now();
  ensureBuilt();
  let baseline;
  const buildStart = performance.now();
  try {
    baseline = args.baseline ? baselineBuild(args.baseline, log) : undefined;
  } catch (err) {
    console.error(`bench: ${err.message}`);
    return 2;
  }
  const { startMockCore } = require(path.join(ROOT, 'dist', 'sim'));

  const profileDir = args.profile ? fs.mkdtempSync(path.join(os.tmpdir(), 'detection-bridge-bench-profiles-')) : undefined;
  const execArgv = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  if (args.gc) {
    // The Node-RED processes started from here inherit the folder and write their pauses into it.
    process.env.DETECTION_BRIDGE_BENCH_GC_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'detection-bridge-bench-gc-'));
    execArgv.push('--require', path.join(__dirname, 'support', 'gc-observer.js'));
  }
  const results = { mode, startedAt: new Date().toISOString(), machine: machine(), config, targets: [], problems: [] };
  const sampler = new RssSampler(20);
  const started = { nrs: [], floor: undefined, core: undefined };
  const run = (part) => args.only.includes(part);
  const timings = baseline ? { baselineBuild: +((performance.now() - buildStart) / 1000).toFixed(1) } : {};
  let lap = performance.now();
  const seconds = () => {
    const now = performance.now();
    const s = +((now - lap) / 1000).toFixed(1);
    lap = now;
    return s;
  };
  const fail = (part, err) => {
    results.problems.push(`${part} failed: ${err && err.message ? err.message : err}`);
    log(`bench: ${part} failed:\n${err && err.stack ? err.stack : err}`);
  };
  const startNodeRed = async (name) => {
    const nr = await NodeRed.create({ execArgv });
    started.nrs.push(nr);
    await nr.start();
    await nr.deploy(flows({ token: TOKEN, coreUrl: started.core.url }), READY);
    sampler.watch('node-red', nr.pid);
    log(`bench: Node-RED (${name}) at ${nr.url}, pid ${nr.pid}`);
    return nr;
  };
  const collectErrors = (nr) => {
    for (const line of nr.errorLines()) results.problems.push(`Node-RED logged: ${line.trim()}`);
  };

  log(`bench: ${mode} run of ${args.only.join(', ')} on ${results.machine.cpus} CPUs, Node ${results.machine.node}`);
  try {
    started.core = await startMockCore({ maxRecorded: 10 });

    if (run('dedupe')) {
      log('bench: dedupe');
      try {
        results.dedupe = await runDedupe({ config: config.dedupe, log });
        results.problems.push(...results.dedupe.problems);
      } catch (err) {
        fail('dedupe', err);
      }
      timings.dedupe = seconds();
    }

    if (run('plates')) {
      log('bench: plates');
      try {
        results.plates = await runPlates({ config: config.plates, log });
        results.problems.push(...results.plates.problems);
      } catch (err) {
        fail('plates', err);
      }
      timings.plates = seconds();
    }

    if (run('openapi')) {
      log('bench: openapi');
      try {
        results.openapi = await runOpenapi({ config: config.openapi, log });
        results.problems.push(...results.openapi.problems);
      } catch (err) {
        fail('openapi', err);
      }
      timings.openapi = seconds();
    }

    // A quick run shares one Node-RED between the parts; a full run gives the
    // burst a fresh one, so its RSS is not what the receiver rounds left.
    let shared;
    if (run('receiver') && baseline) {
      log(`bench: receiver A/B, baseline ${baseline.short} against this tree`);
      for (const note of baseline.notes) log(`bench: note: ${note}`);
      const variants = [
        { name: 'baseline', label: `baseline ${baseline.short}`, root: baseline.root },
        { name: 'current', label: 'current', root: ROOT },
      ];
      let monitorNote;
      if (args.monitor) {
        if (hasNodeType(ROOT, 'detection-monitor')) variants.push({ name: 'monitor', label: 'current + monitor', root: ROOT, monitor: true });
        else {
          monitorNote = "no detection-monitor node in this tree's build: the operator's view variant is skipped";
          log(`bench: note: ${monitorNote}`);
        }
      }
      const nrs = [];
      try {
        results.receiverAb = await runReceiverAb({
          variants,
          token: TOKEN,
          coreUrl: started.core.url,
          sampler,
          config: config.receiverAb,
          log,
          execArgv,
          started: nrs,
        });
        results.receiverAb.baseline = {
          ref: args.baseline,
          sha: baseline.sha,
          short: baseline.short,
          subject: baseline.subject,
          notes: baseline.notes,
        };
        results.receiverAb.monitorRequested = args.monitor;
        results.receiverAb.together = Boolean(args.together);
        if (monitorNote) results.receiverAb.monitorNote = monitorNote;
        results.problems.push(...results.receiverAb.problems);
      } catch (err) {
        fail('receiver A/B', err);
      } finally {
        for (const nr of nrs) await nr.dispose().catch(() => {});
      }
      timings.receiverAb = seconds();
    } else if (run('receiver')) {
      log('bench: receiver');
      let nr;
      try {
        nr = await startNodeRed(args.quick ? 'all parts' : 'receiver');
        if (args.quick && (run('burst') || run('push'))) shared = nr;
        const floor = await forkNode(path.join(__dirname, 'floor-server.js'), [], { execArgv });
        started.floor = floor.child;
        sampler.watch('floor', floor.child.pid);
        results.receiver = await runReceiver({
          nr,
          floorUrl: `http://127.0.0.1:${floor.message.port}/`,
          token: TOKEN,
          sampler,
          config: config.receiver,
          log,
        });
        results.problems.push(...results.receiver.problems);
      } catch (err) {
        fail('receiver', err);
      } finally {
        if (started.floor) await stopChild(started.floor);
        sampler.pids.delete('floor');
        if (nr && nr !== shared) {
          collectErrors(nr);
          await nr.dispose();
        }
      }
      timings.receiver = seconds();
    }

    if (run('burst') || run('push')) {
      let nr;
      try {
        nr = shared || (await startNodeRed('burst and push'));
        if (run('burst')) {
          log('bench: burst');
          try {
            results.burst = await runBurst({ nr, token: TOKEN, sampler, config: config.burst });
            results.problems.push(...results.burst.problems);
          } catch (err) {
            fail('burst', err);
          }
          timings.burst = seconds();
        }
        if (run('push')) {
          log('bench: push');
          try {
            results.push = await runPush({ nr, core: started.core, config: config.push, log });
            results.problems.push(...results.push.problems);
          } catch (err) {
            fail('push', err);
          }
          timings.push = seconds();
        }
      } catch (err) {
        fail('burst and push (Node-RED)', err);
      } finally {
        if (nr) {
          collectErrors(nr);
          await nr.dispose();
        }
      }
    }

    if (run('redis')) {
      log('bench: redis');
      try {
        results.redis = await runRedis({ config: config.redis, token: TOKEN, coreUrl: started.core.url, execArgv, log });
        results.problems.push(...results.redis.problems);
      } catch (err) {
        fail('redis', err);
      }
      timings.redis = seconds();
    }
  } finally {
    sampler.stop();
    for (const nr of started.nrs) await nr.dispose().catch(() => {});
    if (started.core) await started.core.close();
    if (args.gc) fs.rmSync(process.env.DETECTION_BRIDGE_BENCH_GC_DIR, { recursive: true, force: true });
  }

  results.targets = targets(results);
  results.partSeconds = timings;
  results.durationSeconds = +((performance.now() - t0) / 1000).toFixed(1);
  console.log(`\n${render(results)}`);
  console.log(
    `\nbench: ${mode} run took ${results.durationSeconds} s (${Object.entries(timings)
      .map(([k, v]) => `${k} ${v} s`)
      .join(', ')})`,
  );
  if (profileDir) console.log(`bench: CPU profiles in ${profileDir}`);
  const out = args.out || (args.quick || args.baseline ? undefined : path.join(__dirname, 'results.json'));
  // An A/B run is a comparison of builds, not where this tree stands: nothing else is kept with it.
  if (out && !args.quick && !args.baseline) keepOtherParts(results, out);
  const json = `${JSON.stringify(results, null, 2)}\n`;
  if (out) {
    fs.writeFileSync(out, json);
    console.log(`bench: results written to ${path.relative(process.cwd(), out) || out}`);
  }
  return results.problems.length === 0 ? 0 : 1;
}

/**
 * A full run of some parts (--only) writing to a file that holds a full run's
 * results: the parts not run now keep their figures from it, so the file has
 * the latest figures of every part. `measuredAt` says when each part ran.
 */
function keepOtherParts(results, file) {
  results.measuredAt = Object.fromEntries(PARTS.filter((p) => results[p]).map((p) => [p, results.startedAt]));
  let previous;
  try {
    previous = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return;
  }
  if (!previous || previous.mode !== 'full') return;
  const kept = [];
  for (const part of PARTS) {
    if (results[part] || !previous[part]) continue;
    results[part] = previous[part];
    results.measuredAt[part] = (previous.measuredAt && previous.measuredAt[part]) || previous.startedAt;
    kept.push(part);
  }
  if (kept.length === 0) return;
  results.targets = targets(results);
  log(
    `bench: ${kept.join(', ')} kept from the previous results in ${path.relative(process.cwd(), file) || file} (measured ${kept.map((p) => results.measuredAt[p]).join(', ')})`,
  );
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`bench: ${err && err.stack ? err.stack : err}`);
    killAll();
    process.exit(1);
  },
);
