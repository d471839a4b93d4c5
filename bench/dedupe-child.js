'use strict';
/**
 * Dedupe at scale, in a process of its own started with --expose-gc:
 * node --expose-gc bench/dedupe-child.js <keys> <checks>
 *
 * Heap: a DedupeWindow (lib/dedupe/local-window.ts) is filled with <keys> message-id-like
 * strings (flat, 36 characters, as a messageId from JSON); heap used after a
 * full GC, minus before, divided by the keys: what one key held costs, its
 * string included. Speed: <checks> calls of check(key) as detection-dedupe
 * makes them (a fresh string per call, the clock read inside): half repeat
 * an id of the first fill (a duplicate unless evicted meanwhile), half are
 * new (each evicting the oldest key: the window is full).
 * For scale, the same checks on a bare Map doing only the get, delete and set
 * a Map-based window cannot avoid.
 * Reports JSON over IPC.
 */
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const { DedupeWindow } = require(path.resolve(__dirname, '..', 'dist', 'lib', 'dedupe', 'local-window.js'));

if (typeof global.gc !== 'function') {
  process.send({ error: 'run with --expose-gc' });
  process.exit(1);
}

const { messageId, checkList } = require('./support/ids');

function heapUsed() {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
}

function run(keys, checks) {
  const h0 = heapUsed();
  const window = new DedupeWindow({ ttlMs: 3_600_000, maxKeys: keys });
  let firstSeenDuplicates = 0;
  for (let i = 0; i < keys; i++) if (window.check(messageId(i)).duplicate) firstSeenDuplicates++;
  const h1 = heapUsed();
  const size = window.size;
  const heapBytesPerKey = (h1 - h0) / keys;

  // The keys to check, made before timing: half repeats, half new.
  const list = checkList(keys, checks);
  let duplicates = 0;
  const t0 = performance.now();
  for (let i = 0; i < checks; i++) if (window.check(list[i]).duplicate) duplicates++;
  const ms = performance.now() - t0;

  // For scale, the least a Map-based window must do for the same checks, with
  // nothing else: a Map of the same keys, get; on a miss delete the oldest key
  // (known from an array in insertion order, no expiry, no results) and set.
  const bare = new Map();
  const order = new Array(keys + checks);
  for (let i = 0; i < keys; i++) {
    const k = messageId(i);
    bare.set(k, i);
    order[i] = k;
  }
  // Fresh strings, as the window got (their hashes not yet computed).
  const list2 = new Array(checks);
  for (let i = 0; i < checks; i++) list2[i] = Buffer.from(list[i], 'latin1').toString('latin1');
  let oldest = 0;
  let end = keys;
  const t1 = performance.now();
  for (let i = 0; i < checks; i++) {
    const k = list2[i];
    if (bare.get(k) === undefined) {
      bare.delete(order[oldest++]);
      bare.set(k, i);
      order[end++] = k;
    }
  }
  const bareMs = performance.now() - t1;

  // Sanity: a held key repeats, a new one does not.
  const sane = window.check(list[checks - 1]).duplicate === true && window.check(messageId(keys + checks + 7)).duplicate === false;
  return {
    keys,
    checks,
    heapBytesPerKey: +heapBytesPerKey.toFixed(1),
    windowSize: size,
    firstSeenDuplicates,
    checksPerSecond: Math.round((checks / ms) * 1000),
    nsPerCheck: +((ms * 1e6) / checks).toFixed(1),
    duplicateShare: +(duplicates / checks).toFixed(3),
    bareMapChecksPerSecond: Math.round((checks / bareMs) * 1000),
    sane,
  };
}

const keys = Number(process.argv[2]);
const checks = Number(process.argv[3]);
try {
  process.send({ result: run(keys, checks) }, () => process.exit(0));
} catch (err) {
  process.send({ error: String(err && err.stack) }, () => process.exit(1));
}
