'use strict';
/**
 * What detection-in says where an operator looks (issue 42), in the Node-RED
 * runtime over real HTTP: a request turned away is kept with its reason,
 * client and time and shown under the node (refused for a 503, rejected for
 * a 4xx; shown in yellow only while it goes on), and said once in Node-RED's
 * log; a dead letter writes one warning naming the receiver and the event's
 * id; a listener that cannot open its port is said naming the path.
 */
const assert = require('node:assert/strict');
const net = require('node:net');
const { getHelper, translatedModule, loadWithHttp, closeServers, postJson, until, ownStatus } = require('../support');
const ev = require('../fixtures/events');
const { trackerOf } = require('../../dist/lib/delivery/registry');

const helper = getHelper();
const detectionIn = translatedModule('detection-in');
const detectionDone = translatedModule('detection-done');
const detectionListener = translatedModule('detection-listener');
const PATH = '/hooks/said';
const WARN = 30; // Node-RED's log level of node.warn

const lpr = (id) => {
  const event = ev.fullLpr();
  event.payload.messageId = id;
  return event;
};
const basic = (user, password) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** What Node-RED's log received at warn level from node `id`. */
function loggedWarnings(id) {
  return helper
    .log()
    .getCalls()
    .map((c) => c.args[0])
    .filter((entry) => entry && entry.level === WARN && entry.id === id)
    .map((entry) => String(entry.msg));
}

function statusText(node) {
  return String(ownStatus(node)?.text || '');
}

/** Messages a helper node receives, as they come. */
function inbox(node) {
  const got = [];
  node.on('input', (msg) => got.push(msg));
  return got;
}

let n = 0;

describe('detection-in: refusals and failures said where an operator looks', function () {
  let base;
  /** The receiver's id: a new one per test (a receiver's store outlives its node, by id, as across a deploy). */
  let rin;
  beforeEach(() => {
    rin = `rin${++n}`;
    return helper.startServer();
  });
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
  });

  /** A receiver `rin` on PATH, its events to `held` → detection done `done`; its failures to `failures`. */
  async function load(receiver = {}, credentials = {}) {
    base = await loadWithHttp(
      [detectionIn, detectionDone],
      [
        { id: 't1', type: 'tab', label: 'said' },
        { id: rin, type: 'detection-in', z: 't1', path: PATH, auth: 'none', wires: [['held'], [], ['failures']], ...receiver },
        { id: 'held', type: 'helper', z: 't1', wires: [['done']] },
        { id: 'done', type: 'detection-done', z: 't1', wires: [] },
        // (an id other than "failed": Node-RED would take the outcome "failed" for a reference to it)
        { id: 'fail', type: 'detection-done', z: 't1', outcome: 'failed', wires: [] },
        { id: 'failures', type: 'helper', z: 't1', wires: [] },
      ],
      { [rin]: credentials },
    );
    return helper.getNode(rin);
  }

  it('a credential of the wrong scheme is answered as such, kept under the node with its client and time, and said once in the log', async () => {
    const node = await load({ auth: 'bearer' }, { token: 'tok-secret' });
    const url = `${base}${PATH}`;
    const first = await postJson(url, ev.fullFace(), { authorization: basic('bridge', 'tok-secret') });
    assert.equal(first.status, 401);
    assert.equal(first.headers['content-type'], 'application/problem+json');
    assert.match(first.json.detail, /^expected a Bearer token: the Authorization header sent does not start with "Bearer "/);
    assert.equal((await postJson(url, ev.fullFace(), { authorization: 'tok-secret' })).status, 401);

    await until(
      () => / · 2 rejected in 10 min · rejected \(401\) at \d\d:\d\d:\d\d from 127\.0\.0\.1: expected a Bearer token/.test(statusText(node)),
      3000,
      () => `the last rejection under the node, not ${statusText(node)}`,
    );
    assert.equal(ownStatus(node).fill, 'yellow', 'turning requests away now');
    const said = loggedWarnings(rin);
    assert.equal(said.length, 1, `one warning for two alike within a minute: ${said.join('\n')}`);
    assert.match(said[0], new RegExp(`^rejected a request from 127\\.0\\.0\\.1 on ${PATH} \\(401\\): expected a Bearer token`));

    // Taking events again: green, the rejections of the last minutes still counted, the last one no longer shown.
    assert.equal((await postJson(url, ev.fullFace(), { authorization: 'Bearer tok-secret' })).status, 200);
    await until(
      () => /· 1 in · 2 rejected in 10 min( · \d+ pending)?$/.test(statusText(node)),
      3000,
      () => `the status after an accepted event, not ${statusText(node)}`,
    );
    assert.equal(ownStatus(node).fill, 'green');
    const seen = JSON.stringify([
      node.status.getCalls().map((c) => c.args),
      helper
        .log()
        .getCalls()
        .map((c) => c.args),
    ]);
    assert.ok(!seen.includes('tok-secret'), 'what was sent is never repeated');
  });

  it('a 503 is refused (the bridge sends it again): under the node and in the log, until events are taken again', async () => {
    const node = await load({ maxInFlight: 1, finishedWhen: 'done' });
    const held = inbox(helper.getNode('held'));
    const url = `${base}${PATH}`;
    assert.equal((await postJson(url, lpr('keeps-the-slot'))).status, 200);
    await until(() => held.length === 1, 5000, 'the first event');
    const refused = await postJson(url, lpr('no-room'));
    assert.equal(refused.status, 503);
    await until(
      () => / · 1 refused in 10 min · refused at \d\d:\d\d:\d\d from 127\.0\.0\.1: the event could not be queued/.test(statusText(node)),
      3000,
      () => `the refusal under the node, not ${statusText(node)}`,
    );
    assert.doesNotMatch(statusText(node), /rejected/, 'a 503 is not a rejection');
    const said = loggedWarnings(rin);
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(
      said[0],
      new RegExp(`^refused a request from 127\\.0\\.0\\.1 on ${PATH} for now \\(503; the bridge sends it again\\): the event could not be queued`),
    );

    helper.getNode('done').receive(held[0]);
    await until(() => trackerOf(rin).pending.events === 0, 5000, 'the first event finished');
    assert.equal((await postJson(url, lpr('room-again'))).status, 200);
    await until(
      () => /· 2 in · 1 refused in 10 min · 1 pending$/.test(statusText(node)),
      3000,
      () => `taking events again, not ${statusText(node)}`,
    );
  });

  it("a dead letter writes one warning to Node-RED's log naming the receiver and the event's id", async () => {
    await load({ maxAttempts: 1, firstPauseSeconds: 0.05 });
    const held = inbox(helper.getNode('held'));
    const failures = inbox(helper.getNode('failures'));
    assert.equal((await postJson(`${base}${PATH}`, lpr('poison-42'))).status, 200);
    await until(() => held.length === 1, 5000, 'the event');
    helper.getNode('fail').receive({ ...held[0], error: 'mail server down' });
    await until(() => failures.length === 1, 5000, 'the dead letter on output 3');
    assert.equal(failures[0].topic, 'dead-letter');
    const said = loggedWarnings(rin);
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(said[0], new RegExp(`^event poison-42 on ${PATH} became a dead letter \\(attempts: 1\\): mail server down\\.`));
    assert.match(said[0], /in memory only and lost if Node-RED restarts/, 'memory mode says what a restart does');
    const entry = helper
      .log()
      .getCalls()
      .map((c) => c.args[0])
      .find((e) => e && e.level === WARN && /poison-42/.test(e.msg));
    assert.equal(entry.type, 'detection-in', 'the log line names the node');
  });

  it('a listener that cannot open its port: the receiver says so, naming its path and the port', async () => {
    const holder = net.createServer();
    await new Promise((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = holder.address().port;
    try {
      await helper.load(
        [detectionListener, detectionIn],
        [
          { id: 't1', type: 'tab', label: 'said' },
          { id: 'lst', type: 'detection-listener', host: '127.0.0.1', port, tls: 'none', allow: '' },
          { id: rin, type: 'detection-in', z: 't1', path: PATH, auth: 'none', listener: 'lst', wires: [[], [], []] },
        ],
      );
      await until(() => loggedWarnings(rin).length === 1, 10_000, 'the receiver says its listener failed');
      assert.equal(
        loggedWarnings(rin)[0],
        `the receiver on ${PATH} takes no events: its listener cannot open port ${port} (the listener's own error says why)`,
      );
      assert.match(statusText(helper.getNode(rin)), new RegExp(`listener cannot open port ${port}`));
    } finally {
      holder.close();
    }
  });
});
