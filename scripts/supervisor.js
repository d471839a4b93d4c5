/**
 * Keeps one child process running for `npm start` (scripts/start.js): the
 * demo's Node-RED. When it dies the demo's other parts (the simulator, the
 * mock core, Redis) stay up, and only the child is started again, after a
 * pause that doubles each time it dies soon after starting, so that a
 * Node-RED that cannot start does not loop for ever: after `maxQuickExits`
 * quick exits in a row the supervisor gives up and says why.
 *
 * Node-RED-free and without timers of its own: the clock is injected, so the
 * unit test (test/unit/scripts/supervisor.test.js) moves time by hand.
 */
'use strict';
const { EventEmitter } = require('node:events');

const realClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id),
};

/** "4 s", "2 min 5 s": how long a child ran, for the console. */
function formatDuration(ms) {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  return s % 60 ? `${min} min ${s % 60} s` : `${min} min`;
}

/** What ended a child: its signal, or its exit code. */
function exitReason(code, signal) {
  return signal ? String(signal) : `exit code ${code}`;
}

/**
 * Events: `started` (child, the how-manieth start: 1 is the first), `exited`
 * ({ code, signal, ranMs, quickExits }), `restarting` ({ delayMs, quickExits }),
 * `gave-up` ({ quickExits }).
 */
class ChildSupervisor extends EventEmitter {
  /**
   * `start()` spawns the child and returns it (a ChildProcess, or anything
   * with `kill(signal)` emitting `exit` (code, signal) and maybe `error`).
   * `say(line)` writes to the console. A child that ran `healthyAfterMs` or
   * longer counts as healthy: its exit restarts it after `firstDelayMs`; each
   * quick exit in a row doubles the pause, up to `maxDelayMs`; the
   * `maxQuickExits`-th quick exit in a row is not restarted.
   */
  constructor({
    start,
    say = () => undefined,
    name = 'the child',
    clock = realClock,
    firstDelayMs = 1000,
    maxDelayMs = 30000,
    healthyAfterMs = 60000,
    maxQuickExits = 5,
  }) {
    super();
    Object.assign(this, { startChild: start, say, name, clock, firstDelayMs, maxDelayMs, healthyAfterMs, maxQuickExits });
    this.child = undefined;
    this.starts = 0;
    this.quickExits = 0;
    this.timer = undefined;
    this.stopping = false;
    this.gaveUp = false;
  }

  /** Whether a child is running now. */
  get running() {
    return this.child !== undefined;
  }

  /** Starts the first child. */
  start() {
    this.spawn();
    return this;
  }

  spawn() {
    this.timer = undefined;
    const startedAt = this.clock.now();
    let child;
    try {
      child = this.startChild();
    } catch (err) {
      // A spawn that throws counts as an exit at once: the same back-off applies.
      this.say(`${this.name} could not be started: ${err.message}`);
      this.exited(startedAt, 1, null);
      return;
    }
    this.child = child;
    this.starts++;
    let ended = false;
    const end = (code, signal) => {
      if (ended) return;
      ended = true;
      if (this.child === child) this.child = undefined;
      this.exited(startedAt, code, signal);
    };
    child.once('exit', end);
    // An 'error' without an 'exit' (the program could not be run): an exit too.
    child.once('error', (err) => {
      this.say(`${this.name}: ${err.message}`);
      if (child.exitCode === null && child.signalCode === null && child.pid === undefined) end(1, null);
    });
    this.emit('started', child, this.starts);
  }

  exited(startedAt, code, signal) {
    const ranMs = this.clock.now() - startedAt;
    this.quickExits = ranMs < this.healthyAfterMs ? this.quickExits + 1 : 1;
    this.emit('exited', { code, signal, ranMs, quickExits: this.quickExits });
    if (this.stopping) return;
    const why = `${this.name} stopped (${exitReason(code, signal)}) after ${formatDuration(ranMs)}`;
    if (this.quickExits >= this.maxQuickExits) {
      this.gaveUp = true;
      this.say(
        `${why}: ${this.quickExits} times in a row within ${formatDuration(this.healthyAfterMs)} of starting. ` +
          `Not starting it again: see its output above.`,
      );
      this.emit('gave-up', { quickExits: this.quickExits });
      return;
    }
    const delayMs = Math.min(this.maxDelayMs, this.firstDelayMs * 2 ** (this.quickExits - 1));
    const again =
      this.quickExits > 1
        ? ` (${this.quickExits} quick exits in a row: each doubles the pause; after ${this.maxQuickExits} it is not started again)`
        : '';
    this.say(`${why}; starting it again in ${formatDuration(delayMs)}${again}.`);
    this.emit('restarting', { delayMs, quickExits: this.quickExits });
    this.timer = this.clock.setTimeout(() => this.spawn(), delayMs);
  }

  /**
   * Stops for good: no restart, a pending one cancelled, the child sent
   * `signal` (SIGINT: Node-RED closes its flows) and SIGKILL after
   * `killAfterMs`. Resolves once the child has exited.
   */
  async stop({ signal = 'SIGINT', killAfterMs = 10000 } = {}) {
    this.stopping = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const child = this.child;
    if (!child) return;
    const exited = new Promise((resolve) => this.once('exited', resolve));
    child.kill(signal);
    const killer = this.clock.setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    await exited;
    this.clock.clearTimeout(killer);
  }
}

module.exports = { ChildSupervisor, formatDuration };
