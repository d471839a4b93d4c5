'use strict';
/**
 * Plate watch lists at scale (issue 28): detection filter's plate matcher
 * (lib/plates/plate-list.ts) on lists of 1,000 to 1,000,000 plates, with (a)
 * one look-alike allowed and (b) one look-alike and one extra or missing
 * character. One child process (this file, run with --expose-gc) per list
 * size and setting:
 *   node --expose-gc bench/parts/plates.js <entries> <lookalikes> <extraMissing> <checks>
 *
 * Heap: the list's plates are made first (strings as a flow's context would
 * hold them), then compiled (a small list as many times as make 200,000
 * entries, so its index is above the heap figures' resolution); heap used
 * (with the typed arrays' memory, which V8 keeps outside its heap) after a
 * full GC, before and after, divided by the entries indexed: what the index costs per entry (the plates' own strings are
 * reported apart). Speed: <checks> calls of match(plate,
 * similar1Plate) as detection filter makes them, the reads made before
 * timing: 15% exact hits, 15% one look-alike, 15% one extra or missing
 * character, 55% plates not on the list; half of the reads carry a
 * similar1Plate (another plate not on the list), which is tried too. For
 * scale, the same reads against a Set of the normalised plates (exact
 * matching, what the plate rule did before). Reports JSON over IPC.
 */
const path = require('node:path');
const { forkNode, stopChild } = require('../support/proc');

const MODES = [
  { label: 'one look-alike', lookalikes: 1, extraMissing: 0 },
  { label: 'one look-alike + one extra/missing', lookalikes: 1, extraMissing: 1 },
];

async function runPlates(ctx) {
  const { config, log } = ctx;
  const problems = [];
  const runs = [];
  for (const entries of config.entries) {
    for (const mode of MODES) {
      const { child, message } = await forkNode(__filename, [entries, mode.lookalikes, mode.extraMissing, config.checks].map(String), {
        execArgv: ['--expose-gc'],
        readyTimeoutMs: config.timeoutMs,
      });
      await stopChild(child);
      if (message.error) throw new Error(`plates child (${entries} entries, ${mode.label}): ${message.error}`);
      const r = { ...message.result, mode: mode.label };
      for (const p of r.problems) problems.push(`plates (${entries} entries, ${mode.label}): ${p}`);
      log(
        `  plates ${entries} entries, ${mode.label}: ${r.checksPerSecond} checks/s, ${r.indexBytesPerEntry} index bytes/entry, compiled in ${r.compileMs} ms`,
      );
      runs.push(r);
    }
  }
  return { runs, problems };
}

const num = (n, digits = 0) =>
  typeof n === 'number' ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–';

/** The part's table for bench/support/report.js. */
function renderPlates(plates, table) {
  return (
    '\nPlates: detection filter plate matcher (lib/plates), reads 15% exact, 15% one look-alike, 15% one extra/missing, 55% not listed; half with a similar1Plate\n' +
    table(
      ['entries', 'allowed', 'checks/s', 'ns/check', 'matched', 'index bytes/entry', 'plate strings bytes/entry', 'compile ms', 'exact Set checks/s'],
      plates.runs.map((r) => [
        num(r.entries),
        r.mode,
        num(r.checksPerSecond),
        num(r.nsPerCheck),
        `${(r.matchedShare * 100).toFixed(1)}%`,
        num(r.indexBytesPerEntry, 1),
        num(r.stringBytesPerEntry, 1),
        num(r.compileMs),
        num(r.exactSetChecksPerSecond),
      ]),
      ['r', 'l'],
    )
  );
}

/** The goal: ≥ 100,000 checks/s on 100,000 entries with one look-alike and one extra/missing character. */
function platesTargets(plates, add) {
  const run = plates.runs.find((r) => r.entries === 100_000 && r.extraMissing === 1);
  if (run)
    add('plates checks/s at 100,000 entries (one look-alike + one extra/missing)', run.checksPerSecond, '≥ 100,000', run.checksPerSecond >= 100_000);
}

module.exports = { runPlates, renderPlates, platesTargets };

// ---- the child ----

/** A small seeded generator (mulberry32): the same plates on every run. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
/** Plate shapes of a few countries: L a letter, D a digit. */
const SHAPES = ['LLLDDDD', 'LLDDLLL', 'DLLLDDD', 'LLLDDD', 'LLDDDDL', 'DDDLLL'];

function child() {
  const { compilePlateList, normalisePlate, DEFAULT_LOOKALIKES } = require(path.resolve(__dirname, '..', '..', 'dist', 'lib', 'plates'));
  const { performance } = require('node:perf_hooks');
  if (typeof global.gc !== 'function') throw new Error('run with --expose-gc');
  const [entries, lookalikes, extraMissing, checks] = process.argv.slice(2).map(Number);
  const next = random(28 + entries);
  const pick = (s) => s[Math.floor(next() * s.length)];
  const plate = () => [...pick(SHAPES)].map((c) => (c === 'L' ? pick(LETTERS) : pick(DIGITS))).join('');
  // the index's tables are typed arrays, whose memory V8 keeps outside its heap: counted too
  const heapUsed = () => {
    global.gc();
    global.gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };

  const h0 = heapUsed();
  // flat strings, as a list parsed from JSON or set by a change node holds them
  const list = Array.from({ length: entries }, () => Buffer.from(plate(), 'latin1').toString('latin1'));
  const h1 = heapUsed();
  const t0 = performance.now();
  const index = compilePlateList(list, { lookalikes, extraMissing });
  const compileMs = performance.now() - t0;
  // A small list's index is below what the heap's figures resolve: as many indexes of it as make 200,000
  // entries in all are held, and the memory divided by them all.
  const copies = Math.max(1, Math.ceil(200_000 / entries));
  const held = [index];
  for (let k = 1; k < copies; k++) held.push(compilePlateList(list, { lookalikes, extraMissing }));
  const h2 = heapUsed();

  // the reads, made before timing
  const lookalikeOf = (p) => {
    const chars = [...p];
    const at = chars.map((c, i) => (DEFAULT_LOOKALIKES.classes.some((g) => g.includes(c)) ? i : -1)).filter((i) => i >= 0);
    if (at.length === 0) return p;
    const i = pick(at);
    const group = DEFAULT_LOOKALIKES.classes.find((g) => g.includes(chars[i]));
    chars[i] = [...group].find((c) => c !== chars[i]);
    return chars.join('');
  };
  const extraOrMissing = (p) => {
    const i = Math.floor(next() * p.length);
    return next() < 0.5 ? p.slice(0, i) + pick(DIGITS) + p.slice(i) : p.slice(0, i) + p.slice(i + 1);
  };
  const kinds = [];
  const reads = new Array(checks);
  const similars = new Array(checks);
  for (let i = 0; i < checks; i++) {
    const r = next();
    const kind = r < 0.15 ? 'exact' : r < 0.3 ? 'look-alike' : r < 0.45 ? 'extra-missing' : 'not listed';
    const from = list[Math.floor(next() * entries)];
    const read = kind === 'exact' ? from : kind === 'look-alike' ? lookalikeOf(from) : kind === 'extra-missing' ? extraOrMissing(from) : plate();
    kinds.push(kind);
    reads[i] = Buffer.from(read, 'latin1').toString('latin1');
    similars[i] = next() < 0.5 ? plate() : undefined;
  }

  let matched = 0;
  const t1 = performance.now();
  for (let i = 0; i < checks; i++) if (index.match(reads[i], similars[i])) matched++;
  const ms = performance.now() - t1;

  // for scale: exact matching against a Set of normalised plates, plate then similar1Plate
  const set = new Set(list.map(normalisePlate));
  let setMatched = 0;
  const t2 = performance.now();
  for (let i = 0; i < checks; i++) {
    if (set.has(normalisePlate(reads[i])) || (similars[i] !== undefined && set.has(normalisePlate(similars[i])))) setMatched++;
  }
  const setMs = performance.now() - t2;

  // sanity, outside the timing: every exact read matches exactly; look-alike reads match when look-alikes are allowed,
  // extra/missing ones when those are; the index holds every plate
  const problems = [];
  const sample = Math.min(checks, 20_000);
  const wrong = { exact: 0, 'look-alike': 0, 'extra-missing': 0 };
  for (let i = 0; i < sample; i++) {
    const kind = kinds[i];
    if (kind === 'not listed') continue;
    const m = index.match(reads[i]);
    if (kind === 'exact' && (!m || m.score !== 1)) wrong.exact++;
    if (kind === 'look-alike' && !m) wrong['look-alike']++;
    if (kind === 'extra-missing' && extraMissing > 0 && !m) wrong['extra-missing']++;
  }
  for (const [kind, count] of Object.entries(wrong)) if (count > 0) problems.push(`${count} ${kind} reads did not match`);
  if (index.size !== entries) problems.push(`the index holds ${index.size} of ${entries} plates`);

  return {
    entries,
    lookalikes,
    extraMissing,
    checks,
    checksPerSecond: Math.round((checks / ms) * 1000),
    nsPerCheck: +((ms * 1e6) / checks).toFixed(0),
    matchedShare: +(matched / checks).toFixed(3),
    indexBytesPerEntry: +((h2 - h1) / (entries * held.length)).toFixed(1),
    stringBytesPerEntry: +((h1 - h0) / entries).toFixed(1),
    compileMs: Math.round(compileMs),
    exactSetChecksPerSecond: Math.round((checks / setMs) * 1000),
    exactSetMatchedShare: +(setMatched / checks).toFixed(3),
    problems,
  };
}

if (require.main === module) {
  try {
    process.send({ result: child() }, () => process.exit(0));
  } catch (err) {
    process.send({ error: String(err && err.stack) }, () => process.exit(1));
  }
}
