'use strict';
/**
 * scripts/supervisor.js, the demo's keeper of Node-RED, with fake children
 * and a fake clock: a child that dies is started again alone; quick exits in
 * a row back off and, at the bound, are not restarted (and the console says
 * why); a healthy run resets the count; stop() cancels a pending restart and
 * escalates to SIGKILL.
 */
const assert = require('node:assert/strict');
const { EventEmitter } = require('node:events');
const { ChildSupervisor, formatDuration } = require('../../../scripts/supervisor');
const { FakeClock } = require('../../support/fake-clock');

/** A child process as far as the supervisor sees one. `die()` ends it; `kill()` records signals. */
class FakeChild extends EventEmitter {
  constructor(pid) {
    super();
    this.pid = pid;
    this.signals = [];
    this.exitCode = null;
    this.signalCode = null;
  }

  kill(signal) {
    this.signals.push(signal);
  }

  die(code, signal = null) {
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
  }
}

function setUp(options = {}) {
  const clock = new FakeClock(0);
  const children = [];
  const lines = [];
  const supervisor = new ChildSupervisor({
    start: () => {
      const child = new FakeChild(100 + children.length);
      children.push(child);
      return child;
    },
    say: (line) => lines.push(line),
    name: 'Node-RED',
    clock,
    firstDelayMs: 1000,
    maxDelayMs: 8000,
    healthyAfterMs: 60000,
    maxQuickExits: 5,
    ...options,
  });
  return { clock, children, lines, supervisor };
}

describe('scripts/supervisor (keeps the demo’s Node-RED running)', () => {
  it('starts a child that was SIGKILLed again, alone, after the first pause, and says so', async () => {
    const { clock, children, lines, supervisor } = setUp();
    const started = [];
    supervisor.on('started', (child, n) => started.push([child.pid, n]));
    supervisor.start();
    assert.deepEqual(started, [[100, 1]]);
    await clock.advance(5 * 60000);
    children[0].die(null, 'SIGKILL');
    assert.equal(supervisor.running, false);
    assert.match(lines.at(-1), /^Node-RED stopped \(SIGKILL\) after 5 min; starting it again in 1 s\.$/);
    await clock.advance(999);
    assert.equal(children.length, 1, 'not before the pause');
    await clock.advance(1);
    assert.equal(children.length, 2);
    assert.deepEqual(started, [
      [100, 1],
      [101, 2],
    ]);
    assert.equal(supervisor.running, true);
    assert.deepEqual(children[0].signals, [], 'the dead child is not signalled');
  });

  it('doubles the pause on each quick exit in a row, up to its cap, and gives up at the bound with the reason', async () => {
    const { clock, children, lines, supervisor } = setUp({ maxQuickExits: 6 });
    const delays = [];
    let gaveUp;
    supervisor.on('restarting', ({ delayMs }) => delays.push(delayMs));
    supervisor.on('gave-up', (info) => (gaveUp = info));
    supervisor.start();
    for (let i = 0; i < 6; i++) {
      await clock.advance(2000); // dies 2 s after starting: quick
      children.at(-1).die(1);
      if (i < 5) await clock.advance(delays.at(-1));
    }
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 8000], 'doubled, capped at 8 s');
    assert.equal(children.length, 6);
    assert.deepEqual(gaveUp, { quickExits: 6 });
    assert.equal(supervisor.gaveUp, true);
    assert.match(lines[1], /2 quick exits in a row: each doubles the pause; after 6 it is not started again/);
    assert.match(lines.at(-1), /^Node-RED stopped \(exit code 1\) after 2 s: 6 times in a row within 1 min of starting\. Not starting it again/);
    await clock.advance(10 * 60000);
    assert.equal(children.length, 6, 'no start after giving up');
    assert.equal(clock.pending, 0);
  });

  it('counts from one again after a run that lasted: a healthy Node-RED killed now and then restarts every time', async () => {
    const { clock, children, supervisor } = setUp({ maxQuickExits: 3 });
    const delays = [];
    supervisor.on('restarting', ({ delayMs, quickExits }) => delays.push([delayMs, quickExits]));
    supervisor.start();
    // two quick exits, then a healthy run, then killed: the count starts again
    for (const ranMs of [1000, 1000, 120000, 120000, 120000]) {
      await clock.advance(ranMs);
      children.at(-1).die(null, 'SIGKILL');
      await clock.advance(delays.at(-1)[0]);
    }
    assert.deepEqual(delays, [
      [1000, 1],
      [2000, 2],
      [1000, 1],
      [1000, 1],
      [1000, 1],
    ]);
    assert.equal(children.length, 6);
    assert.equal(supervisor.gaveUp, false);
  });

  it('stop() sends SIGINT, escalates to SIGKILL after its bound, and resolves once the child exited; nothing restarts', async () => {
    const { clock, children, supervisor } = setUp();
    supervisor.start();
    let stopped = false;
    const stopping = supervisor.stop({ signal: 'SIGINT', killAfterMs: 10000 }).then(() => (stopped = true));
    assert.deepEqual(children[0].signals, ['SIGINT']);
    await clock.advance(9999);
    assert.deepEqual(children[0].signals, ['SIGINT'], 'no SIGKILL before the bound');
    await clock.advance(1);
    assert.deepEqual(children[0].signals, ['SIGINT', 'SIGKILL']);
    assert.equal(stopped, false, 'not before the child exited');
    children[0].die(null, 'SIGKILL');
    await stopping;
    await clock.advance(60000);
    assert.equal(children.length, 1, 'a child that exits while stopping is not started again');
    assert.equal(clock.pending, 0);
  });

  it('stop() during a pause cancels the restart', async () => {
    const { clock, children, supervisor } = setUp();
    supervisor.start();
    children[0].die(1);
    assert.equal(clock.pending, 1, 'a restart is due');
    await supervisor.stop();
    await clock.advance(60000);
    assert.equal(children.length, 1);
  });

  it('a start that throws, or a program that cannot run (error without exit), backs off like a quick exit', async () => {
    const clock = new FakeClock(0);
    const lines = [];
    let calls = 0;
    const supervisor = new ChildSupervisor({
      clock,
      name: 'Node-RED',
      say: (line) => lines.push(line),
      maxQuickExits: 3,
      start: () => {
        calls++;
        if (calls === 1) throw new Error('spawn EMFILE');
        const child = new FakeChild(undefined); // no pid: it never ran
        clock.setTimeout(() => child.emit('error', new Error('spawn node ENOENT')), 0);
        return child;
      },
    });
    let gaveUp = false;
    supervisor.on('gave-up', () => (gaveUp = true));
    supervisor.start();
    assert.match(lines[0], /could not be started: spawn EMFILE/);
    await clock.advance(60000);
    assert.equal(calls, 3);
    assert.ok(gaveUp, lines.join('\n'));
    assert.ok(lines.some((l) => /spawn node ENOENT/.test(l)));
  });

  it('formats how long a child ran', () => {
    assert.equal(formatDuration(400), '0 s');
    assert.equal(formatDuration(4000), '4 s');
    assert.equal(formatDuration(60000), '1 min');
    assert.equal(formatDuration(125000), '2 min 5 s');
  });
});
