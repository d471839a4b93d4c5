'use strict';
/**
 * Loaded into Node-RED with --require by `npm run bench -- --gc`: adds up the
 * main thread's garbage-collection pauses (PerformanceObserver 'gc') and writes
 * the totals, in ms and counts by kind, to $DETECTION_BRIDGE_BENCH_GC_DIR/<pid>.json
 * every 100 ms, for the bench to read before and after each round
 * (`gcPausesOf` in proc.js). The collector's helper threads are not in it:
 * their time shows in the process's CPU.
 */
const fs = require('node:fs');
const path = require('node:path');
const { PerformanceObserver, constants } = require('node:perf_hooks');

const dir = process.env.DETECTION_BRIDGE_BENCH_GC_DIR;
if (dir) {
  const KINDS = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
  };
  const totals = { ms: 0, count: 0, byKind: {} };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = KINDS[entry.detail?.kind] ?? 'other';
      const k = (totals.byKind[kind] ??= { ms: 0, count: 0 });
      k.ms += entry.duration;
      k.count += 1;
      totals.ms += entry.duration;
      totals.count += 1;
    }
  }).observe({ entryTypes: ['gc'] });
  const file = path.join(dir, `${process.pid}.json`);
  setInterval(() => {
    try {
      // written aside and renamed: the bench never reads half a file
      fs.writeFileSync(`${file}.new`, JSON.stringify(totals));
      fs.renameSync(`${file}.new`, file);
    } catch {
      // the bench removed its folder: it is done with this process
    }
  }, 100).unref();
}
