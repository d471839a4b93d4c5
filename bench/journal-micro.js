#!/usr/bin/env node
'use strict';
/**
 * node bench/journal-micro.js [dir] — not part of `npm run bench` or CI.
 *
 * The journal alone (dist/), CONNECTIONS appenders (8) of BODY-byte bodies
 * (880 KB), each finishing its event right after its append is synced, and
 * spending CPU_MS (0) of main-thread work per event like a receiver reading
 * and parsing it, in turns with this machine's write-and-sync limit (the
 * bench's: CONNECTIONS bodies per writev + fdatasync). ROUNDS × SECONDS;
 * VARIANTS: journals with other compaction minimums, in the same turns.
 * Prints each round's rates, ratios, appends per sync and compactions (a
 * compaction, rewrite or clear, stops appends while it runs).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Journal } = require('../dist/lib/delivery/journal.js');
const { AppendLog } = require('../dist/lib/core/append-log.js');

const dir = process.argv[2] || fs.mkdtempSync(path.join(os.tmpdir(), 'journal-micro-'));
const BODY = Number(process.env.BODY || 880_000);
const CONNECTIONS = Number(process.env.CONNECTIONS || 8);
const SECONDS = Number(process.env.SECONDS || 3);
const ROUNDS = Number(process.env.ROUNDS || 4);
const CPU_MS = Number(process.env.CPU_MS || 0);
const counts = { rewrite: 0, clear: 0 };
for (const name of ['rewrite', 'clear']) {
  const original = AppendLog.prototype[name];
  AppendLog.prototype[name] = function (...args) {
    counts[name]++;
    return original.apply(this, args);
  };
}

function limit() {
  const file = path.join(dir, 'limit.bin');
  const fd = fs.openSync(file, 'w');
  const body = Buffer.alloc(BODY, 0x41);
  const buffers = Array.from({ length: CONNECTIONS }, () => body);
  let bodies = 0;
  const start = performance.now();
  while (performance.now() - start < SECONDS * 1000) {
    fs.writevSync(fd, buffers);
    fs.fdatasyncSync(fd);
    bodies += CONNECTIONS;
  }
  fs.closeSync(fd);
  fs.rmSync(file);
  return (bodies / (performance.now() - start)) * 1000;
}

function busy(ms) {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

async function journal(j) {
  const body = Buffer.alloc(BODY, 0x42);
  const syncs = j.syncs;
  const before = { ...counts };
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        // The body is read (CPU), appended, then parsed while it is written.
        await new Promise((resolve) => setImmediate(resolve));
        busy(CPU_MS / 2);
        const appended = j.append({ id: done }, body);
        busy(CPU_MS / 2);
        const seq = await appended;
        done++;
        setImmediate(() => j.complete(seq));
      }
    }),
  );
  const s = (performance.now() - start) / 1000;
  return { rps: done / s, perSync: done / (j.syncs - syncs), rewrites: counts.rewrite - before.rewrite, clears: counts.clear - before.clear };
}

(async () => {
  // Variants in turns, each with a journal of its own: VARIANTS="min=16;min=256" (compactMinBytes, MiB)
  const variants = (process.env.VARIANTS || 'min=16').split(';').map((v) => Object.fromEntries(v.split(',').map((kv) => kv.split('='))));
  const journals = [];
  for (const [i, v] of variants.entries()) {
    journals.push(
      (await Journal.open(path.join(dir, `journal-${i}.log`), { maxBytes: 2048 * 1024 * 1024, compactMinBytes: Number(v.min || 16) * 1024 * 1024 }))
        .journal,
    );
  }
  for (let round = 0; round < ROUNDS; round++) {
    const l = limit();
    const parts = [];
    for (const [i, v] of variants.entries()) {
      const r = await journal(journals[i]);
      parts.push(
        `[${Object.entries(v)
          .map(([k, x]) => `${k}=${x}`)
          .join(' ')}] ${r.rps.toFixed(1)}/s ${(r.rps / l).toFixed(2)}× (${r.perSync.toFixed(1)}/sync, ${r.rewrites}+${r.clears} compactions)`,
      );
    }
    console.log(`round ${round + 1}: limit ${l.toFixed(1)}/s  ${parts.join('  ')}`);
  }
  for (const j of journals) await j.close();
  fs.rmSync(dir, { recursive: true, force: true });
})();
