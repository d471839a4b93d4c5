'use strict';
/**
 * A Clock (lib/core/clock.ts) that moves only when told: `advance(ms)` runs every
 * timer that falls due, in order, letting promise callbacks settle between
 * them. Tests assert on what happened at a given time, never on elapsed time.
 */
class FakeClock {
  constructor(start = 0) {
    this.time = start;
    this.timers = new Map();
    this.nextId = 1;
  }

  now() {
    return this.time;
  }

  setTimeout(fn, ms) {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), fn, id });
    return id;
  }

  clearTimeout(id) {
    this.timers.delete(id);
  }

  /** Timers still waiting. */
  get pending() {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, running the timers that fall due. */
  async advance(ms) {
    const until = this.time + ms;
    for (;;) {
      await settle();
      const due = [...this.timers.values()].filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers.delete(due.id);
      this.time = due.at;
      due.fn();
    }
    this.time = until;
    await settle();
  }
}

/** Lets pending promise callbacks run (a macrotask turn). */
function settle() {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Holds Date.now() at `start` until told to move, for code that reads the
 * wall clock itself instead of taking a Clock (the dedupe window inside its
 * node). Restore the real one with `restore()`, in an afterEach.
 */
function holdDateNow(start) {
  const real = Date.now;
  let time = start;
  Date.now = () => time;
  return {
    now: () => time,
    advance(ms) {
      time += ms;
    },
    restore() {
      Date.now = real;
    },
  };
}

module.exports = { FakeClock, holdDateNow };
