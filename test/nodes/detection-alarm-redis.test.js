'use strict';
/**
 * detection-alarm shared through a real redis-server, inside the Node-RED
 * runtime: two alarm nodes with a detection-redis configuration node each
 * (two connections, as two Node-RED instances hold them) and the same shared
 * name, each sweeping on its own timers (a fake clock given through
 * Node-RED's settings, so both wake at the same moments and race). An alert
 * into one opens the alarm; each reminder and the escalation go out once
 * between them, counted where they arrive; an acknowledgement sent to the
 * other stops them; a snooze set on one holds alerts arriving at the other;
 * open alarms outlive a restart; while Redis is down an alert still goes
 * out, untracked, with one warning.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { getHelper, translatedModule, translate, until, ownStatus } = require('../support');
const { RedisServer, redisAvailable } = require('../support/redis-server');
const { FakeClock } = require('../support/fake-clock');
const ev = require('../fixtures/events');

const helper = getHelper();
const alarmNode = translatedModule('detection-alarm');
const detectionRedis = translatedModule('detection-redis');

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T22:00:00.000Z');
const OUTPUTS = ['notify', 'escalate', 'changes', 'replies'];

function plateEvent(plate, camera = 'Gate 1') {
  const e = ev.minimalLpr();
  e.payload.lprPlateInfo.plate = plate;
  e.payload.detectionInfo.detectorName = camera;
  return e;
}

describe('detection-alarm shared through Redis (redis-server)', function () {
  this.timeout(30_000);
  let server;
  let clock;
  let userDir;
  let n = 0;
  let prefix;

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start();
  });
  after(async () => {
    await server?.close();
  });
  beforeEach(async () => {
    prefix = `alarm${++n}:`;
    clock = new FakeClock(T0);
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'alarm-redis-'));
    helper.settings({ detectionBridgeClock: clock, userDir });
    await helper.startServer();
  });
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    helper.settings({});
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  /** Alarm node `al<i>` (instance `i`), shared as "site" through its own Redis configuration node. */
  const instance = (i, config, url) => [
    { id: `redis${i}`, type: 'detection-redis', url, prefix, instance: `nr${i}` },
    {
      id: `al${i}`,
      type: 'detection-alarm',
      z: 'f1',
      remind: 5,
      remindUnits: 'm',
      maxReminders: 4,
      escalate: 12,
      escalateUnits: 'm',
      quiet: 60,
      quietUnits: 'm',
      snoozeFor: 30,
      snoozeUnits: 'm',
      scope: 'redis',
      redis: `redis${i}`,
      sharedName: 'site',
      wires: OUTPUTS.map((o) => [`${o}${i}`]),
      ...config,
    },
    ...OUTPUTS.map((o) => ({ id: `${o}${i}`, type: 'helper', z: 'f1' })),
  ];
  /** Both instances, and one Complete node for both (the test helper loads a core node's module once per node of its type). */
  const twoInstances = (config = {}, url = server.url) => [
    { id: 'f1', type: 'tab' },
    ...instance(1, config, url),
    ...instance(2, config, url),
    // x and y: a node without them is taken for a configuration node
    { id: 'complete', type: 'complete', z: 'f1', scope: ['al1', 'al2'], uncaught: false, x: 100, y: 300, wires: [['finished']] },
    { id: 'finished', type: 'helper', z: 'f1', x: 300, y: 300 },
  ];

  /** Loads both, waits until both are connected, and collects what leaves each output of both. */
  async function start(config, url) {
    await helper.load([detectionRedis, alarmNode], twoInstances(config, url));
    const nodes = [helper.getNode('al1'), helper.getNode('al2')];
    const connected = translate('redis.state.connected');
    for (const node of nodes) await until(() => ownStatus(node)?.text?.includes(connected), 5000, `${node.id} connected`);
    const out = {};
    for (const o of OUTPUTS) {
      out[o] = [];
      for (const i of [1, 2]) helper.getNode(`${o}${i}`).on('input', (m) => out[o].push({ from: i, msg: m }));
    }
    let given = 0;
    let handled = 0;
    helper.getNode('finished').on('input', () => handled++);
    /** Gives `msg` to instance `i` and waits until every message given so far has finished. */
    const give = async (i, msg) => {
      given++;
      nodes[i - 1].receive(msg);
      await until(() => handled === given, 5000, `${given} messages finished`);
    };
    return { nodes, out, give };
  }

  /** Moves the clock to `at`, then lets both nodes' timers run until `done()` holds (each sweep waits for Redis). */
  async function advanceTo(at, done, what) {
    await clock.advance(at - clock.now());
    return until(
      async () => {
        await clock.advance(0);
        return done();
      },
      10_000,
      what,
    );
  }

  it('an alert into one: each reminder and the escalation once between both; an acknowledgement sent to the other stops them', async () => {
    const { out, give } = await start();
    await give(1, { payload: plateEvent('AB123CD') });
    assert.deepEqual(
      out.notify.map(({ from, msg }) => [from, msg.alarm.notice]),
      [[1, 'opened']],
    );
    const { id } = out.notify[0].msg.alarm;
    const reminders = () => out.notify.filter(({ msg }) => msg.alarm.notice === 'reminder');

    await advanceTo(T0 + 5 * MIN, () => reminders().length >= 1, 'the first reminder');
    await advanceTo(T0 + 10 * MIN, () => reminders().length >= 2, 'the second reminder');
    await advanceTo(T0 + 12 * MIN, () => out.escalate.length >= 1, 'the escalation');
    await clock.advance(MIN);
    await give(2, { topic: 'ack', payload: { id, by: 'Anna' } });
    const reply = out.replies.at(-1);
    assert.deepEqual([reply.from, reply.msg.payload.ok, reply.msg.payload.alarm.ackBy], [2, true, 'Anna']);

    // unacknowledged, reminders 3 and 4 would fall due at 15 and 20 minutes; acknowledged, it closes when quiet, at 60
    await advanceTo(T0 + 60 * MIN, () => out.changes.some(({ msg }) => msg.topic === 'closed'), 'closed when quiet');
    assert.deepEqual(
      reminders().map(({ msg }) => [msg.alarm.id, msg.alarm.number]),
      [
        [id, 1],
        [id, 2],
      ],
      'each reminder once between both, none after the acknowledgement',
    );
    assert.deepEqual(
      out.escalate.map(({ msg }) => [msg.alarm.id, msg.alarm.notice]),
      [[id, 'escalation']],
    );
    assert.equal(out.changes.filter(({ msg }) => msg.topic === 'closed').length, 1);
    assert.equal(reminders()[0].msg.payload.payload.lprPlateInfo.plate, 'AB123CD', 'the event kept in Redis goes with the reminder');
  });

  it('a snooze set on one holds alerts arriving at the other, and its end is summed up once', async () => {
    const { out, give } = await start({ remind: 0, escalate: 0 });
    await give(1, { topic: 'snooze', payload: { camera: 'gate 1', minutes: 20, by: 'Night shift' } });
    assert.equal(out.replies.at(-1).msg.payload.ok, true);
    await give(2, { payload: plateEvent('HELD01', 'Gate 1') });
    await give(2, { payload: plateEvent('HELD02', 'Gate 1') });
    await give(2, { payload: plateEvent('FREE01', 'Gate 2') });
    assert.deepEqual(
      out.notify.map(({ from, msg }) => [from, msg.alarm.label]),
      [[2, 'FREE01']],
      'Gate 2 goes out; Gate 1 is held at the other instance',
    );
    const held = out.changes.filter(({ msg }) => msg.alarm.change === 'held');
    assert.deepEqual(
      held.map(({ from, msg }) => [from, msg.alarm.held, msg.alarm.snooze.held]),
      [
        [2, 'snoozed', 1],
        [2, 'snoozed', 2],
      ],
    );

    const summaries = () => out.notify.filter(({ msg }) => msg.alarm.notice === 'resumed');
    await advanceTo(T0 + 20 * MIN, () => summaries().length >= 1, 'the summary when the snooze ends');
    assert.equal(summaries()[0].msg.alarm.held, 2);
    // FREE01 closes when quiet at 60 minutes: by then a second summary would have come
    await advanceTo(T0 + 60 * MIN, () => out.changes.some(({ msg }) => msg.topic === 'closed'), 'FREE01 closed when quiet');
    assert.equal(summaries().length, 1, 'the snooze’s end summed up once between both');
  });

  it('an open alarm outlives a restart of both; the local file of a node now shared is removed', async () => {
    const local = path.join(userDir, 'detection-bridge', 'alarm-al1.json');
    fs.mkdirSync(path.dirname(local), { recursive: true });
    fs.writeFileSync(local, '{}');
    let { out, give } = await start();
    await until(() => !fs.existsSync(local), 5000, 'the local book removed');
    await give(1, { payload: plateEvent('KEEP01') });
    const { id } = out.notify[0].msg.alarm;
    await helper.unload();

    let nodes;
    ({ nodes, out, give } = await start());
    for (const node of nodes) await until(() => /^1 open/.test(ownStatus(node)?.text ?? ''), 5000, `${node.id} read the book`);
    const reminders = () => out.notify.filter(({ msg }) => msg.alarm.notice === 'reminder');
    await advanceTo(T0 + 5 * MIN, () => reminders().length >= 1, 'the reminder after the restart');
    await advanceTo(T0 + 10 * MIN, () => reminders().length >= 2, 'the second reminder');
    assert.deepEqual(
      reminders().map(({ msg }) => [msg.alarm.id, msg.alarm.number]),
      [
        [id, 1],
        [id, 2],
      ],
    );
    await give(2, { topic: 'list' });
    assert.deepEqual(
      out.replies.at(-1).msg.payload.alarms.map((a) => a.id),
      [id],
    );
  });

  it('Redis down: an alert still goes out, untracked, with one warning; tracked again once Redis is back', async () => {
    const own = await RedisServer.start();
    try {
      const { nodes, out, give } = await start({}, own.url);
      await own.stop();
      const unreachable = translate('redis.state.unreachable');
      await until(() => ownStatus(nodes[0])?.text?.includes(unreachable), 5000, 'the status says Redis is unreachable');
      await give(1, { payload: plateEvent('DOWN01') });
      await give(1, { payload: plateEvent('DOWN02') });
      assert.deepEqual(
        out.notify.map(({ msg }) => [msg.alarm.notice, msg.payload.payload.lprPlateInfo.plate]),
        [
          ['untracked', 'DOWN01'],
          ['untracked', 'DOWN02'],
        ],
      );
      const warnings = nodes[0].warn.args.map((a) => String(a[0])).filter((w) => /could not be changed/.test(w));
      assert.equal(warnings.length, 1, 'one warning per outage');
      assert.match(warnings[0], /unreachable/);

      await own.resume();
      const connected = translate('redis.state.connected');
      await until(() => ownStatus(nodes[0])?.text?.includes(connected), 10_000, 'connected again');
      await give(1, { payload: plateEvent('BACK01') });
      assert.deepEqual([out.notify.at(-1).msg.alarm.notice, out.notify.at(-1).msg.alarm.label], ['opened', 'BACK01']);
    } finally {
      await own.close();
    }
  });
});
