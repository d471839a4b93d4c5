'use strict';
/**
 * End to end: the relay examples of issue 28 in a real Node-RED with the
 * packed module, against a real MQTT broker (Debian's mosquitto, started here
 * on 127.0.0.1).
 *
 * gate-light, as imported but for what a test has to change: its mqtt-broker
 * points at the mosquitto of this test, its http request at an HTTP server of
 * this test (the relay that takes a URL), and its trigger waits 1 s instead
 * of 30 (shortened time). A client of the broker subscribes to the relay's
 * topic. A listed plate at a gate camera at night: the relay gets `on`, by
 * MQTT and by URL, then `off`; the same plate by day, posted just before it:
 * nothing (the filter's counts say it decided so); a look-alike read at
 * night, and the example's own buttons, switch it too.
 *
 * banned-plate-at-night, as imported but its cap (5 alerts in 10 minutes)
 * cut to 2 in 5 s: a banned plate at night alerts once (an e-mail and a
 * Telegram message, shaped by its alert message nodes), a misread repeat of
 * it does not, by day nothing; an alert past the cap is held back and
 * counted in the digest.
 *
 * Skipped, with a message, where mosquitto is not installed.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const mqtt = require('mqtt');
const { nodeRedVersion, postJson, request, translate, until } = require('../support');
const { NodeRedProcess } = require('../support/nodered-process');
const { Mosquitto, mosquittoAvailable } = require('../support/mosquitto');
const ev = require('../fixtures/events');

const GATE_PATH = '/detections/gate-light';
const BANNED_PATH = '/detections/banned-at-night';
/** Saturday 21 November 2026 in Berlin (UTC+1): 23:30 is night, 12:00 is day, whatever this machine's zone. */
const NIGHT = '2026-11-21T22:30:00Z';
const DAY = '2026-11-21T11:00:00Z';

let sequence = 0;
/** A whole plate event (the fixture's), read as `plate` at `camera` at `when`, in Berlin. */
function plateEvent(plate, when, camera = 'Gate 1 LPR') {
  const event = ev.fullLpr();
  event.payload.lprPlateInfo.plate = plate;
  delete event.payload.lprPlateInfo.similar1Plate;
  event.payload.lprPlateInfo.tags = [];
  event.payload.detectionInfo = { ...event.payload.detectionInfo, dateTimeUtc: when, timeZone: 'Europe/Berlin', detectorName: camera };
  event.payload.messageId = `e2e-relay-${++sequence}`;
  return event;
}

/** An example's nodes on a tab of their own; configuration nodes (no position) stay global, as an import leaves them. */
function onTab(nodes, tabId, label) {
  return [{ id: tabId, type: 'tab', label }, ...nodes.map((n) => (n.x === undefined ? n : { ...n, z: tabId }))];
}

/** The one node of `type` in an example (and the one named `name`, when given). */
function only(nodes, type, name) {
  const found = nodes.filter((n) => n.type === type && (name === undefined || n.name === name));
  assert.equal(found.length, 1, `the example has one ${type}${name ? ` "${name}"` : ''}`);
  return found[0];
}

describe(`e2e: the gate-light and banned-plate-at-night examples, with a real MQTT broker, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(30000);
  let broker;
  let relayServer;
  let nr;
  let comms;
  let client;
  /** What reached the relay: MQTT payloads on its topic, and the URLs it was called at, in order. */
  const relayMessages = [];
  const relayCalls = [];
  let gate;
  let banned;

  before(async function () {
    if (!mosquittoAvailable()) {
      console.log('      (mosquitto is not installed, skipping: apt-get install -y mosquitto)');
      this.skip();
    }
    this.timeout(180000);
    broker = await Mosquitto.start();
    // the relay that takes a URL: answers as a Shelly does, with its state
    relayServer = http.createServer((req, res) => {
      relayCalls.push(req.url);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ison: /turn=on/.test(req.url) }));
    });
    await new Promise((resolve) => relayServer.listen(0, '127.0.0.1', resolve));
    const relayBase = `http://127.0.0.1:${relayServer.address().port}`;

    nr = await NodeRedProcess.create();
    await nr.start();
    gate = await nr.example('gate-light');
    banned = await nr.example('banned-plate-at-night');

    // The changes a test must make, each checked against what the example says.
    const brokerNode = only(gate, 'mqtt-broker');
    assert.deepEqual([brokerNode.broker, String(brokerNode.port)], ['127.0.0.1', '1883']);
    Object.assign(brokerNode, { broker: '127.0.0.1', port: String(broker.port) });
    const byUrl = only(gate, 'http request');
    assert.match(byUrl.url, /^http:\/\/192\.168\.1\.50\/relay\/0\?turn=\{\{payload\}\}$/);
    byUrl.url = byUrl.url.replace('http://192.168.1.50', relayBase);
    const trigger = only(gate, 'trigger');
    assert.deepEqual([trigger.op1, trigger.op2, trigger.duration, trigger.units, trigger.extend], ['on', 'off', '30', 's', true]);
    trigger.duration = '1';
    const dedupe = only(banned, 'detection-dedupe');
    assert.deepEqual([dedupe.capCount, dedupe.capPeriod, dedupe.capUnits, dedupe.capPer], [5, 10, 'm', 'all']);
    Object.assign(dedupe, { capCount: 2, capPeriod: 5, capUnits: 's' });

    await nr.deploy([...onTab(gate, 'e2erelaytab00001', 'gate-light'), ...onTab(banned, 'e2erelaytab00002', 'banned-plate-at-night')]);
    await nr.answers(GATE_PATH, 405);
    await nr.answers(BANNED_PATH, 405);
    comms = await nr.openComms();

    client = await mqtt.connectAsync(broker.url);
    client.on('message', (_topic, payload) => relayMessages.push(String(payload)));
    await client.subscribeAsync(only(gate, 'mqtt out').topic, { qos: 1 });
    // mqtt out drops what it is given before its broker connection is up
    const mqttOut = only(gate, 'mqtt out').id;
    await until(() => /(^|\.)connected$/.test((comms.status(mqttOut) || {}).text || ''), 15000, 'mqtt out connected to the broker');
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) {
      console.log(`\n---- Node-RED output ----\n${nr.logText()}\n---- mosquitto ----\n${broker ? broker.output : ''}\n----`);
    }
  });

  after(async function () {
    this.timeout(30000);
    if (comms) comms.close();
    if (client) await client.endAsync().catch(() => undefined);
    if (nr) await nr.cleanup();
    if (relayServer) {
      relayServer.closeAllConnections();
      await new Promise((resolve) => relayServer.close(resolve));
    }
    if (broker) await broker.close();
  });

  /** A node's status counts, as numbers: `12 matched · 40 not` → [12, 40]. */
  function counts(nodeId, pattern) {
    const match = pattern.exec((comms.status(nodeId) || {}).text || '');
    return match ? match.slice(1).map(Number) : undefined;
  }
  const filterCounts = (nodes) => counts(only(nodes, 'detection-filter').id, /^(\d+) matched · (\d+) not/);
  const untilFilterCounts = (nodes, expected) =>
    until(() => JSON.stringify(filterCounts(nodes)) === JSON.stringify(expected), 10000, `the filter's status: ${expected.join(' matched · ')} not`);

  async function post(path, event) {
    const res = await postJson(`${nr.url}${path}`, event);
    assert.equal(res.status, 200, res.text);
  }

  describe('gate-light', function () {
    it('a listed plate at a gate camera at night: on by MQTT and by URL, then off after the (shortened) wait; the same plate by day: nothing', async () => {
      // the day event first: the receiver emits in order and the filter decides in order, so
      // once the night event has switched the light, the day event has been decided
      await post(GATE_PATH, plateEvent('8OB123', DAY));
      await post(GATE_PATH, plateEvent('8OB123', NIGHT));
      await until(() => relayMessages.length >= 1 && relayCalls.length >= 1, 10000, 'on at the relay');
      assert.equal(relayMessages[0], 'on');
      assert.equal(relayCalls[0], '/relay/0?turn=on');
      // one matched (the night event) and one not: the day event switched nothing
      await untilFilterCounts(gate, [1, 1]);
      await until(() => relayMessages.length >= 2 && relayCalls.length >= 2, 10000, 'off at the relay');
      assert.deepEqual(relayMessages, ['on', 'off']);
      assert.deepEqual(relayCalls, ['/relay/0?turn=on', '/relay/0?turn=off']);
    });

    it('a look-alike read at night (80B123 for 8OB123) switches the light too', async () => {
      await post(GATE_PATH, plateEvent('80B123', NIGHT, 'Gate 2 LPR'));
      await until(() => relayMessages.length >= 4 && relayCalls.length >= 4, 10000, 'on and off at the relay');
      assert.deepEqual(relayMessages, ['on', 'off', 'on', 'off']);
      assert.deepEqual(relayCalls.slice(2), ['/relay/0?turn=on', '/relay/0?turn=off']);
      assert.deepEqual(filterCounts(gate), [2, 1]);
    });

    it("the example's buttons: by day nothing, the misread at night switches the light", async () => {
      const press = async (name) => {
        const res = await request(`${nr.url}/inject/${only(gate, 'inject', name).id}`, { method: 'POST' });
        assert.equal(res.status, 200, `inject "${name}": ${res.text}`);
      };
      await press('8OB123 by day');
      await press('80B123 at night (misread)');
      await until(() => relayMessages.length >= 5, 10000, 'on at the relay');
      await untilFilterCounts(gate, [3, 2]);
      await until(() => relayMessages.length >= 6 && relayCalls.length >= 6, 10000, 'off at the relay');
      assert.deepEqual(relayMessages.slice(4), ['on', 'off']);
      assert.deepEqual(relayCalls.slice(4), ['/relay/0?turn=on', '/relay/0?turn=off']);
    });
  });

  describe('banned-plate-at-night', function () {
    it('a banned plate at night alerts once (not again misread), by day nothing; an alert past the cap goes into the digest', async () => {
      const emailDebug = only(banned, 'debug', 'e-mail (put an e-mail node here)').id;
      const telegramDebug = only(banned, 'debug', 'Telegram (put a telegram sender here)').id;
      const messages = (id) => comms.debug(id).map((d) => (typeof d.msg === 'string' ? JSON.parse(d.msg) : d.msg));
      const digestDebug = only(banned, 'debug', 'digest').id;
      const dedupe = only(banned, 'detection-dedupe');
      await post(BANNED_PATH, plateEvent('ABC123', DAY, 'Gate 2 LPR'));
      await post(BANNED_PATH, plateEvent('8OB123', NIGHT, 'Gate 2 LPR'));
      await post(BANNED_PATH, plateEvent('80B123', NIGHT, 'Gate 2 LPR')); // the same car misread, inside the cooldown
      await post(BANNED_PATH, plateEvent('ABC123', NIGHT, 'Gate 2 LPR'));
      await post(BANNED_PATH, plateEvent('JKR777', NIGHT, 'Gate 2 LPR')); // the third alert of the period: past the (test's) cap of 2
      const [digest] = await until(() => comms.debug(digestDebug).length && comms.debug(digestDebug), 20000, 'the digest');
      // the alert message nodes: an e-mail and a Telegram message per alert, the subject naming plate and camera
      await until(() => messages(emailDebug).length === 2 && messages(telegramDebug).length === 2, 10000, 'two e-mails and two Telegram messages');
      const subject = (plate) => translate('detection-alert.default.subject-lpr').replace('{plate}', plate).replace('{camera}', 'Gate 2 LPR');
      const mails = messages(emailDebug);
      assert.deepEqual(
        mails.map((m) => m.topic),
        [subject('8OB123'), subject('ABC123')],
      );
      assert.deepEqual(
        mails.map((m) => [m.match.entry, m.match.kind, m.match.score]),
        [
          ['8OB123', 'exact', 1],
          ['ABC-123', 'exact', 1],
        ],
        'msg.match says which list entry matched',
      );
      for (const mail of mails) assert.ok(mail.payload.includes(mail.match.text), `the text says why it matched: ${mail.payload}`);
      assert.deepEqual(
        messages(telegramDebug).map((m) => [m.payload.chatId, m.payload.type, m.payload.caption.startsWith(m.alert.subject)]),
        [
          [123456789, 'photo', true],
          [123456789, 'photo', true],
        ],
        "the Telegram messages: a photo (the event's Close crop) to the example's chat, its caption the subject first",
      );
      const summary = JSON.parse(digest.msg);
      assert.equal(summary.passed, 2);
      assert.equal(summary.held, 1);
      assert.equal(summary.urgent, 0, 'no alert carried an urgent priority');
      assert.deepEqual(
        summary.keys.map(({ key, held }) => ({ key, held })),
        [{ key: 'JKR777', held: 1 }],
      );
      assert.deepEqual(summary.cap, { count: 2, periodMs: 5000, per: 'all' });
      assert.deepEqual(filterCounts(banned), [4, 1], 'four at night, one by day');
      // of the four at night: two alerts, the misread dropped as a repeat, one held by the cap (not dropped)
      assert.deepEqual(counts(dedupe.id, /^(\d+) passed · (\d+) dropped/), [2, 1]);
      // the misread was merged into the plate's key, and the status says so
      await until(() => / · 1 look-alike$/.test((comms.status(dedupe.id) || {}).text || ''), 10000, 'the look-alike in the dedupe status');
      assert.equal(comms.debug(digestDebug).length, 1);
      assert.deepEqual(nr.errorLines(), []);
    });
  });
});
