'use strict';
/**
 * detection-alarm inside the Node-RED runtime (node-red-node-test-helper),
 * with a fake clock given through Node-RED's settings (detectionBridgeClock):
 * an alert opens an alarm, a second read joins it, reminders and the
 * escalation fall due and stop at an acknowledgement; a snooze of one camera
 * holds and counts its alerts and sums them up when it ends; a restart keeps
 * open alarms and snoozes; the admin API lists the history with authors;
 * actions the node cannot run reach Catch with a code.
 */
const assert = require('node:assert/strict');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { getHelper, translatedModule, until, completeProbe, trackFinished } = require('../support');
const { FakeClock } = require('../support/fake-clock');
const ev = require('../fixtures/events');
const { createMetricsExporter } = require('../../dist/lib/metrics');

const helper = getHelper();
const alarmNode = translatedModule('detection-alarm');

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T22:00:00.000Z');
const OUTPUTS = ['notify', 'escalate', 'changes', 'replies'];

/** A plate event at `camera`, with three crops (pictures of 8 KB each). */
function plateEvent(plate, camera = 'Gate 1') {
  const e = ev.fullLpr();
  e.payload.lprPlateInfo.plate = plate;
  e.payload.detectionInfo.detectorName = camera;
  e.payload.detectionImages = ['FullFrame', 'Close', 'Car'].map((cropSizeName, i) => ({ cropSizeName, image: ev.jpegBase64(8192, i + 1) }));
  return e;
}

function flow(config = {}) {
  return [
    { id: 'f1', type: 'tab', label: 'alarm' },
    {
      id: 'al',
      type: 'detection-alarm',
      z: 'f1',
      name: '',
      remind: 5,
      remindUnits: 'm',
      maxReminders: 2,
      escalate: 15,
      escalateUnits: 'm',
      quiet: 60,
      quietUnits: 'm',
      snoozeFor: 30,
      snoozeUnits: 'm',
      linkBase: 'https://alarms.example.com',
      wires: OUTPUTS.map((o) => [o]),
      ...config,
    },
    ...OUTPUTS.map((id) => ({ id, type: 'helper', z: 'f1' })),
    ...completeProbe('al', 'f1'),
    { id: 'c1', type: 'catch', z: 'f1', scope: ['al'], uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper', z: 'f1' },
  ];
}

describe('detection-alarm node', function () {
  this.timeout(20_000);
  let clock;
  let userDir;
  beforeEach(async () => {
    clock = new FakeClock(T0);
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'alarm-node-'));
    helper.settings({ detectionBridgeClock: clock, userDir });
    await helper.startServer();
  });
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    helper.settings({});
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  function outputs() {
    const got = {};
    for (const id of [...OUTPUTS, 'caught']) {
      got[id] = [];
      helper.getNode(id).on('input', (m) => got[id].push(m));
    }
    return got;
  }

  /** A scrape of every node's metrics: line → value (0 when absent). */
  async function metrics() {
    const { body } = await createMetricsExporter().scrape();
    return (line) =>
      Number(
        body
          .split('\n')
          .find((l) => l.startsWith(line + ' '))
          ?.slice(line.length + 1) ?? 0,
      );
  }

  /** The node's own status as last shown (the helper's spy on `status` is shared by every node). */
  const shown = (node) => {
    const own = node.status.getCalls().filter((c) => c.thisValue === node);
    return own.length > 0 ? own[own.length - 1].args[0] : undefined;
  };

  async function start(config) {
    await helper.load([alarmNode], flow(config));
    const node = helper.getNode('al');
    return { node, finished: trackFinished(node), out: outputs() };
  }

  it('opens an alarm, joins a second read, reminds and escalates while unanswered, and stops at an acknowledgement', async () => {
    // the counters of node id `al` go on across the tests of this process (as across deploys): what this test adds
    const before = await metrics();
    const { node, finished, out } = await start();
    node.receive({ payload: plateEvent('8OB123') });
    await finished();
    assert.equal(out.notify.length, 1);
    const first = out.notify[0];
    assert.equal(first.payload.payload.lprPlateInfo.plate, '8OB123', 'the alert’s own message goes out');
    const alarm = first.alarm;
    assert.match(alarm.id, /^[a-z2-9]{8}$/);
    assert.deepEqual(
      [alarm.notice, alarm.state, alarm.label, alarm.camera, alarm.reads, alarm.openedAt],
      ['opened', 'open', '8OB123', 'Gate 1', 1, new Date(T0).toISOString()],
    );
    assert.deepEqual(
      alarm.buttons.map((b) => [b.action, b.text, b.data]),
      [
        ['ack', 'Acknowledge', `alarm:ack:${alarm.id}:${createHash('sha256').update('al').digest('hex').slice(0, 8)}`],
        ['snooze', 'Snooze 30 min', `alarm:snooze:${alarm.id}:${createHash('sha256').update('al').digest('hex').slice(0, 8)}`],
      ],
    );
    assert.match(alarm.link, new RegExp(`^https://alarms\\.example\\.com/detection-alarm/al/${alarm.id}\\.`));

    await clock.advance(2 * MIN);
    node.receive({ payload: plateEvent('BOB123', 'Gate 2') });
    await finished();
    assert.equal(out.notify.length, 1, 'the same car (a look-alike read) joins: no second notice');
    const joined = out.changes.find((m) => m.alarm.change === 'joined');
    assert.deepEqual([joined.alarm.id, joined.alarm.reads], [alarm.id, 2]);

    await clock.advance(3 * MIN);
    await until(() => out.notify.length === 2, 5000, 'a reminder 5 minutes after it opened');
    const reminder = out.notify[1];
    assert.deepEqual([reminder.alarm.notice, reminder.alarm.number, reminder.alarm.of], ['reminder', 1, 2]);
    assert.equal(reminder.alarm.text, `Reminder 1 of 2: alarm ${alarm.id} not acknowledged for 5 min (2 reads).`);
    const kept = reminder.payload.payload.detectionImages.filter((d) => d.image !== undefined);
    assert.deepEqual(
      kept.map((d) => d.cropSizeName),
      ['Close'],
      'the reminder carries the event with the one picture an alert shows (lib/image’s default order), not all three',
    );
    assert.equal(reminder.detection.plate, '8OB123');

    await clock.advance(1 * MIN);
    node.receive({ topic: 'ack', payload: { id: alarm.id, by: 'Anna', note: 'guard sent' } });
    await finished();
    const reply = out.replies.at(-1).payload;
    assert.deepEqual([reply.ok, reply.alarm.state, reply.alarm.ackBy, reply.alarm.note], [true, 'acknowledged', 'Anna', 'guard sent']);
    node.receive({ topic: 'ack', payload: alarm.id });
    await finished();
    const again = out.replies.at(-1).payload;
    assert.deepEqual([again.ok, again.reason, again.by], [false, 'already', 'Anna']);
    const acked = out.changes.find((m) => m.topic === 'acknowledged');
    assert.deepEqual([acked.alarm.by, acked.alarm.via], ['Anna', 'message']);

    // the next thing due is the quiet close (an hour after the last read): nothing came before it
    await clock.advance(56 * MIN);
    await until(() => out.changes.some((m) => m.topic === 'closed'), 5000, 'closed an hour after the last read');
    assert.equal(clock.now(), T0 + 62 * MIN);
    assert.equal(out.notify.length, 2, 'no reminder after the acknowledgement');
    assert.equal(out.escalate.length, 0, 'no escalation after the acknowledgement');
    node.receive({ topic: 'ack', payload: alarm.id });
    await finished();
    assert.deepEqual([out.replies.at(-1).payload.ok, out.replies.at(-1).payload.reason], [false, 'closed']);

    // what an operator sees (a monitor node serves the same exporter)
    const after = await metrics();
    const value = (line) => after(line) - (line.startsWith('detection_bridge_alarms_open{') ? 0 : before(line));
    const labels = '{node="al",name=""}';
    assert.equal(value(`detection_bridge_alarms_opened_total${labels}`), 1);
    assert.equal(value(`detection_bridge_alarms_acknowledged_total${labels}`), 1);
    assert.equal(value(`detection_bridge_alarm_reminders_total${labels}`), 1);
    assert.equal(value(`detection_bridge_alarms_escalated_total${labels}`), 0);
    assert.equal(value(`detection_bridge_alarms_open${labels}`), 0, 'closed: none open');
    const bucket = (le) => value(`detection_bridge_alarm_time_to_ack_seconds_bucket{node="al",name="",le="${le}"}`);
    assert.deepEqual([bucket(300), bucket(600), bucket('+Inf')], [0, 1, 1], 'acknowledged after 6 minutes');
    assert.equal(value(`detection_bridge_alarm_time_to_ack_seconds_sum${labels}`), 360);
  });

  it('unanswered: at most the reminders asked for, one escalation, then closed when quiet', async () => {
    const { node, finished, out } = await start();
    node.receive({ payload: plateEvent('AB123CD') });
    await finished();
    for (const [minutes, reminders, escalations] of [
      [5, 2, 0],
      [5, 3, 0],
      [5, 3, 1],
    ]) {
      await clock.advance(minutes * MIN);
      await until(() => out.notify.length === reminders && out.escalate.length === escalations, 5000, `at ${clock.now() - T0} ms`);
    }
    assert.equal(out.escalate[0].alarm.notice, 'escalation');
    assert.match(out.escalate[0].alarm.text, /^Escalated: alarm [a-z2-9]{8} not acknowledged for 15 min \(1 reads\)\.$/);
    assert.equal(out.escalate[0].payload.payload.lprPlateInfo.plate, 'AB123CD');
    // an unanswered alarm closes when quiet only once its reminders and escalation went out: here, an hour after its read
    await clock.advance(45 * MIN);
    await until(() => out.changes.some((m) => m.topic === 'closed'), 5000, 'closed when quiet');
    assert.equal(out.notify.length, 3, 'no third reminder (at most 2)');
    assert.equal(out.escalate.length, 1, 'escalated once');
  });

  it('a snooze of one camera holds and counts its alerts, lets another camera’s through, and sums up when it ends', async () => {
    const { node, finished, out } = await start();
    node.receive({ topic: 'snooze', payload: { camera: 'gate 1', minutes: 20, by: 'Night shift' } });
    await finished();
    assert.equal(out.replies.at(-1).payload.snooze.until, new Date(T0 + 20 * MIN).toISOString());
    // the time left under the node, as it goes by
    const left = (text) =>
      until(
        () => shown(node)?.text.endsWith(text),
        5000,
        () => `"${text}" under the node (${shown(node)?.text})`,
      );
    await left(' · 1 snoozed, 20 min left');
    await clock.advance(5 * MIN);
    await left(' · 1 snoozed, 15 min left');
    for (const plate of ['AAA111', 'BBB222', 'AAA111']) node.receive({ payload: plateEvent(plate, 'Gate 1') });
    node.receive({ payload: plateEvent('CCC333', 'Gate 2') });
    await finished();
    assert.deepEqual(
      out.notify.map((m) => m.alarm.label),
      ['CCC333'],
      'Gate 2 goes out; Gate 1 is held',
    );
    const held = out.changes.filter((m) => m.alarm.change === 'held');
    assert.equal(held.length, 3, 'each held alert leaves on the changes output: counted, never silently lost');
    assert.equal(held[2].alarm.snooze.held, 3);

    node.receive({ payload: plateEvent('DDD444', 'Gate 1'), priority: 'urgent' });
    await finished();
    assert.equal(out.notify.at(-1).alarm.label, 'DDD444', 'an urgent alert goes through the snooze');

    await clock.advance(15 * MIN);
    const summary = await until(() => out.notify.find((m) => m.alarm.notice === 'resumed'), 5000, 'a summary when the snooze ends');
    assert.deepEqual([summary.topic, summary.alarm.held], ['Snooze ended: gate 1', 3], 'named as typed in the snooze');
    node.receive({ payload: plateEvent('EEE555', 'Gate 1') });
    await finished();
    assert.equal(out.notify.at(-1).alarm.label, 'EEE555', 'Gate 1 alerts go out again');
  });

  it('open alarms and a snooze survive a restart; the reminder still comes, once', async () => {
    let { node, finished, out } = await start();
    node.receive({ payload: plateEvent('KEEP01') });
    node.receive({ topic: 'snooze', payload: { plate: 'HOLD02', minutes: 60 } });
    await finished();
    const { id } = out.notify[0].alarm;
    await helper.unload();
    assert.ok(fs.existsSync(path.join(userDir, 'detection-bridge', 'alarm-al.json')));
    ({ node, finished, out } = await start());
    await until(
      () => /^1 open/.test(shown(node)?.text ?? ''),
      5000,
      () => `the book loaded (status ${JSON.stringify(shown(node))})`,
    );
    await clock.advance(5 * MIN);
    await until(() => out.notify.length === 1, 5000, 'the reminder after the restart');
    assert.deepEqual([out.notify[0].alarm.id, out.notify[0].alarm.notice], [id, 'reminder']);
    node.receive({ payload: plateEvent('HOLD02') });
    await finished();
    assert.equal(out.changes.at(-1).alarm.change, 'held', 'the snooze holds after the restart');
    node.receive({ topic: 'list' });
    await finished();
    const listed = out.replies.at(-1).payload;
    assert.deepEqual(
      listed.alarms.map((a) => a.id),
      [id],
    );
    assert.deepEqual(listed.history.map((h) => h.action).sort(), ['opened', 'reminded', 'snoozed'], 'one reminder (newest first in the history)');
    assert.equal(listed.history[0].action, 'reminded');
  });

  it('disarmed, every alert is held and counted; armed again, the count is summed up', async () => {
    const { node, finished, out } = await start();
    node.receive({ topic: 'disarm', payload: { by: 'Schedule' } });
    node.receive({ payload: plateEvent('X1') });
    node.receive({ payload: plateEvent('X2') });
    await finished();
    assert.equal(out.notify.length, 0);
    node.receive({ topic: 'arm', payload: { by: 'Schedule' } });
    await finished();
    assert.deepEqual(
      [out.notify[0].alarm.notice, out.notify[0].alarm.held, out.notify[0].payload],
      ['armed', 2, 'Armed again by Schedule: 2 alerts arrived while disarmed; they were held, not sent.'],
    );
  });

  it('one button for a guard: ack with all: true acknowledges every open alarm at once', async () => {
    const { node, finished, out } = await start();
    for (const plate of ['P1', 'P2', 'P3']) node.receive({ payload: plateEvent(plate) });
    await finished();
    const first = out.notify.find((m) => m.alarm.label === 'P1').alarm.id;
    node.receive({ topic: 'ack', payload: { id: first, by: 'Anna' } });
    await finished();
    node.receive({ topic: 'ack', payload: { all: true, by: 'Ben' } });
    await finished();
    const reply = out.replies.at(-1).payload;
    assert.deepEqual(
      reply.alarms.map((a) => [a.label, a.ackBy]).sort(),
      [
        ['P2', 'Ben'],
        ['P3', 'Ben'],
      ],
      'the one Anna acknowledged stays hers',
    );
    assert.equal(out.changes.filter((m) => m.topic === 'acknowledged').length, 3);
  });

  it('says at deploy that mail links lead nowhere when Node-RED serves no node routes (httpNodeRoot false)', async () => {
    await helper.unload();
    await helper.stopServer();
    helper.settings({ detectionBridgeClock: clock, userDir, httpNodeRoot: false });
    await helper.startServer();
    await helper.load([alarmNode], flow());
    const node = helper.getNode('al');
    const warned = await until(() => node.warn.getCalls().find((c) => /httpNodeRoot is false/.test(String(c.args[0]))), 5000, 'the warning');
    assert.match(String(warned.args[0]), /Served on/);
  });

  it('an action it cannot run reaches Catch with a code; a message that is no event too', async () => {
    const { node, out } = await start();
    node.receive({ topic: 'ack', payload: { id: 'NOT AN ID' } });
    node.receive({ topic: 'snooze', payload: { minutes: 5 } });
    node.receive({ topic: 'snooze', payload: { camera: 'x', minutes: -1 } });
    node.receive({ payload: { hello: 'world' } });
    await until(() => out.caught.length === 4);
    assert.deepEqual(out.caught.map((m) => m.error.code).sort(), ['BAD_ACTION', 'BAD_ACTION', 'BAD_ACTION', 'NOT_A_DETECTION']);
    assert.match(out.caught.find((m) => m.topic === 'snooze' && m.payload.minutes === 5).error.message, /names an alarm .* or what to snooze/);
  });
});
