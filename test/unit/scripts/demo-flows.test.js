'use strict';
/**
 * scripts/demo-flows.js, the parts `npm start` relies on to keep what the
 * operator has: placeDemoFlows (the demo's flows written on a first start,
 * over the demo's own untouched ones, or when asked; never over flows the
 * operator deployed) and finishRun (the simulator stopped without
 * abandoning the events in delivery), the latter with the real simulator
 * against a receiver on 127.0.0.1 that holds its answers until told.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { ROOT, until } = require('../../support');
const { FakeClock } = require('../../support/fake-clock');
const { buildDemoFlows, finishRun, placeDemoFlows } = require('../../../scripts/demo-flows');

describe('scripts/demo-flows: placeDemoFlows (whose flows Node-RED starts with)', () => {
  let dir;
  const demo = (coreUrl = 'http://127.0.0.1:5023') => buildDemoFlows({ coreUrl, redisUrl: 'redis://127.0.0.1:5024', haveRedis: true });
  const onDisk = () => JSON.parse(fs.readFileSync(path.join(dir, 'flows.json'), 'utf8'));
  /** What Node-RED does on a deploy: writes the flows (its own layout) and the credentials. */
  const deploy = (flows) => fs.writeFileSync(path.join(dir, 'flows.json'), JSON.stringify(flows));

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-flows-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the demo’s flows and credentials on a first start', () => {
    const placed = placeDemoFlows(dir, demo());
    assert.equal(placed.written, true);
    assert.match(placed.why, /first start/);
    assert.deepEqual(onDisk(), demo().flows);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'flows_cred.json'), 'utf8')), demo().credentials);
  });

  it('refreshes the demo’s flows left untouched (other ports, new examples), whatever their layout', () => {
    placeDemoFlows(dir, demo());
    deploy(onDisk()); // the same flows, written without indentation
    const placed = placeDemoFlows(dir, demo('http://127.0.0.1:6000'));
    assert.equal(placed.written, true, placed.why);
    assert.match(placed.why, /refreshed/);
    assert.ok(onDisk().some((n) => n.url === 'http://127.0.0.1:6000'));
  });

  it('keeps flows the operator deployed, and says how to get the demo’s back; --reset-flows writes them', () => {
    placeDemoFlows(dir, demo());
    const mine = [...onDisk(), { id: 'operators-comment', type: 'comment', z: 'demo-tab-live', name: 'mine', x: 100, y: 100, wires: [] }];
    deploy(mine);
    const kept = placeDemoFlows(dir, demo('http://127.0.0.1:6000'));
    assert.equal(kept.written, false);
    assert.match(kept.why, /yours.*--reset-flows/);
    assert.deepEqual(onDisk(), mine);
    const reset = placeDemoFlows(dir, demo(), { reset: true });
    assert.equal(reset.written, true);
    assert.deepEqual(onDisk(), demo().flows);
  });

  it('keeps flows no record vouches for (written before the record, or by hand), and untouched ones with --keep-flows', () => {
    deploy([{ id: 't', type: 'tab', label: 'by hand' }]);
    assert.equal(placeDemoFlows(dir, demo()).written, false);
    fs.rmSync(path.join(dir, 'flows.json'));
    placeDemoFlows(dir, demo());
    const kept = placeDemoFlows(dir, demo('http://127.0.0.1:6000'), { keep: true });
    assert.equal(kept.written, false);
    assert.deepEqual(onDisk(), demo().flows);
  });

  it('counts a change of credentials alone (a token changed in the editor) as the operator’s', () => {
    placeDemoFlows(dir, demo());
    fs.writeFileSync(path.join(dir, 'flows_cred.json'), JSON.stringify({ ...demo().credentials, de30de30de300002: { token: 'mine' } }));
    assert.equal(placeDemoFlows(dir, demo()).written, false);
  });
});

describe('scripts/demo-flows: finishRun (the simulator stopped without losing what is in delivery)', function () {
  this.timeout(20000);
  const sim = require(path.join(ROOT, 'dist', 'sim'));
  let server;
  let held;
  let url;

  beforeEach(async () => {
    held = [];
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => held.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}')));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${server.address().port}/detections`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const startRun = () => sim.startDelivery({ url, forever: true, rate: 50, concurrency: 2, resilient: true, retryDelayMs: 100, timeoutMs: 10000 });

  it('lets the events in delivery be acknowledged, then sends no more: nothing abandoned', async () => {
    const run = startRun();
    await until(() => held.length === 2, 5000, 'two events held by the receiver');
    finishRun(run, 60000, new FakeClock());
    assert.equal(run.stopped, false, 'not stopped while events are in delivery');
    held.shift()();
    await until(() => run.snapshot().acknowledged === 1, 5000, 'the first acknowledged');
    // its slot freed, the run may have sent one more: the receiver holds it too, and it is answered as well
    while (!run.stopped) {
      if (held.length) held.shift()();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const summary = await run.done;
    assert.equal(summary.abandoned, 0, JSON.stringify(summary));
    assert.equal(summary.acknowledged, summary.sent, JSON.stringify(summary));
    assert.equal(held.length, 0, 'nothing sent after the last acknowledgement');
  });

  it('abandons what is still in delivery once its bound has passed (a receiver that never answers), and counts it', async () => {
    const run = startRun();
    await until(() => held.length === 2, 5000, 'two events held by the receiver');
    const clock = new FakeClock();
    finishRun(run, 15000, clock);
    await clock.advance(14999);
    assert.equal(run.stopped, false);
    await clock.advance(1);
    const summary = await run.done;
    assert.equal(summary.abandoned, 2);
    assert.equal(summary.acknowledged, 0);
  });

  it('stops at once a run with nothing in delivery', async () => {
    const run = sim.startDelivery({ url, count: 1, rate: 0, resilient: true });
    await until(() => held.length === 1, 5000, 'the event held');
    held.shift()();
    await until(() => run.snapshot().acknowledged === 1, 5000, 'acknowledged');
    finishRun(run, 60000, new FakeClock());
    assert.equal(run.stopped, true);
    assert.equal((await run.done).abandoned, 0);
  });
});
