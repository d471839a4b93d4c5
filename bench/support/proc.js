'use strict';
/**
 * Child processes and their memory: spawning a Node.js child with a bounded
 * life, reading a process's resident set size from /proc, and a sampler that
 * keeps the peak per label. Linux only for RSS (elsewhere RSS reads as null).
 */
const fs = require('node:fs');
const path = require('node:path');
// One way to find a free port, shared with the end-to-end tests.
const { freePort } = require('../../test/support/nodered-launcher');
const { spawn } = require('node:child_process');

/** Resident set size of `pid` in bytes, or null when it cannot be read. */
function rssOf(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Peak resident set size since the process started (VmHWM), or null. */
function peakRssOf(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on every Linux this runs on). */
const CLOCK_TICKS = 100;

/** CPU time `pid` has used so far (user + system, all its threads) in seconds, or null. */
function cpuSecondsOf(pid) {
  const split = cpuSplitOf(pid);
  return split && split.user + split.system;
}

/** CPU time the main thread of `pid` has used so far (user + system; the thread whose id is the process's), in seconds, or null. */
function mainThreadCpuSecondsOf(pid) {
  const split = cpuSplitOf(pid, `/proc/${pid}/task/${pid}/stat`);
  return split && split.user + split.system;
}

/** CPU time `pid` has used so far in its own code (user) and in the kernel for it (system: syscalls, a socket's copies), in seconds, or null. */
function cpuSplitOf(pid, file = `/proc/${pid}/stat`) {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    // The fields after "(comm)": state is the first, utime the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / CLOCK_TICKS, system: Number(fields[12]) / CLOCK_TICKS };
  } catch {
    return null;
  }
}

/**
 * Garbage-collection pauses of `pid`'s main thread so far, as bench/support/gc-observer.js wrote them
 * (`{ms, count, byKind}`, at most 100 ms old), or null when the bench runs without --gc.
 */
function gcPausesOf(pid) {
  const dir = process.env.DETECTION_BRIDGE_BENCH_GC_DIR;
  if (!dir) return null;
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, `${pid}.json`), 'utf8'));
  } catch {
    return null;
  }
}

/** CPU time the whole machine has spent busy so far (every CPU, every process; not idle or iowait), in seconds, or null. */
function machineBusySeconds() {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest is counted in user)
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/**
 * Polls the RSS of some processes every `everyMs` and keeps, per label, the
 * largest value seen while that label was active (`mark(label)`), per pid.
 */
class RssSampler {
  constructor(everyMs = 20) {
    this.everyMs = everyMs;
    this.pids = new Map(); // name -> pid
    this.peaks = new Map(); // `${label}|${name}` -> bytes
    this.label = null;
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  watch(name, pid) {
    this.pids.set(name, pid);
  }

  /** Starts attributing samples to `label` (null: to nothing). Takes a sample at once. */
  mark(label) {
    this.sample();
    this.label = label;
    this.sample();
  }

  sample() {
    if (!this.label) return;
    for (const [name, pid] of this.pids) {
      const rss = rssOf(pid);
      if (rss === null) continue;
      const key = `${this.label}|${name}`;
      if (!(this.peaks.get(key) >= rss)) this.peaks.set(key, rss);
    }
  }

  /** Peak RSS of process `name` while `label` was active, or null. */
  peak(label, name) {
    const v = this.peaks.get(`${label}|${name}`);
    return v === undefined ? null : v;
  }

  stop() {
    clearInterval(this.timer);
  }
}

/** Every child started here, so a crash or Ctrl-C of the bench still stops them. */
const children = new Set();
function killAll() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}
process.on('exit', killAll);

/**
 * Spawns a Node.js script with an IPC channel. Resolves with the child and
 * its first IPC message (the script reports readiness that way).
 */
function forkNode(script, args = [], { execArgv = [], env = process.env, readyTimeoutMs = 30000, cwd } = {}) {
  const child = spawn(process.execPath, [...execArgv, script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env,
    cwd,
  });
  children.add(child);
  const output = [];
  child.stdout.on('data', (d) => output.push(d.toString()));
  child.stderr.on('data', (d) => output.push(d.toString()));
  child.output = () => output.join('');
  child.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${script} did not report ready within ${readyTimeoutMs} ms\n${child.output()}`)),
      readyTimeoutMs,
    );
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message);
    });
    child.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited before it was ready (code ${code}, signal ${signal})\n${child.output()}`));
    });
  });
  return ready.then((message) => ({ child, message }));
}

/** Stops a child: `signal`, then SIGKILL after `graceMs`. */
async function stopChild(child, signal = 'SIGTERM', graceMs = 10000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const timer = new Promise((resolve) => setTimeout(resolve, graceMs, 'timeout').unref());
  if ((await Promise.race([child.exited, timer])) === 'timeout') {
    child.kill('SIGKILL');
    await child.exited;
  }
}

module.exports = {
  rssOf,
  peakRssOf,
  cpuSecondsOf,
  cpuSplitOf,
  mainThreadCpuSecondsOf,
  gcPausesOf,
  machineBusySeconds,
  RssSampler,
  freePort,
  forkNode,
  stopChild,
  children,
  killAll,
};
