'use strict';
/**
 * detection-presence shared through a real redis-server, inside the Node-RED
 * runtime: two presence nodes with a detection-redis configuration node each
 * (two connections, as two Node-RED instances hold them) and the same shared
 * name send each arrival and each departure exactly once between them, with
 * a fake clock given through Node-RED's settings; while Redis is down a
 * sighting is passed as an arrival, unchecked (or dropped), and nothing waits.
 */
const assert = require('node:assert/strict');
const { getHelper, translatedModule, translate, until, collect } = require('../support');
const { RedisServer, redisAvailable, redisClient, saveData, SLOW_LOAD } = require('../support/redis-server');
const { FakeClock } = require('../support/fake-clock');
const ev = require('../fixtures/events');

const helper = getHelper();
const presence = translatedModule('detection-presence');
const detectionRedis = translatedModule('detection-redis');

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T08:00:00.000Z');

function plateEvent(plate, at, camera = 'Gate 1') {
  const e = ev.minimalLpr();
  e.payload.lprPlateInfo.plate = plate;
  e.payload.detectionInfo.detectorName = camera;
  e.payload.detectionInfo.dateTimeUtc = new Date(at).toISOString();
  return e;
}

describe('detection-presence shared through Redis (redis-server)', function () {
  this.timeout(30_000);
  let server;
  let client;
  let clock;
  let n = 0;
  let prefix;

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start();
    client = await redisClient(server.url);
  });
  after(async () => {
    await client?.close();
    await server?.close();
  });
  beforeEach(async () => {
    prefix = `presence${++n}:`;
    clock = new FakeClock(T0);
    helper.settings({ detectionBridgeClock: clock });
    await helper.startServer();
  });
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    helper.settings({});
  });

  /** Presence node `id` (instance `i`) shared as "site" through its own Redis configuration node. */
  const instance = (i, extra = {}) => [
    { id: `redis${i}`, type: 'detection-redis', url: server.url, prefix, instance: `nr${i}` },
    {
      id: `pr${i}`,
      type: 'detection-presence',
      z: 't1',
      away: 10,
      awayUnits: 'm',
      stillHere: 0,
      maxKeys: 1000,
      scope: 'redis',
      redis: `redis${i}`,
      sharedName: 'site',
      wires: [[`arrived${i}`], [`left${i}`], [], [`list${i}`]],
      ...extra,
    },
    ...['arrived', 'left', 'list'].map((o) => ({ id: `${o}${i}`, type: 'helper', z: 't1' })),
  ];
  /** The two instances, and one Complete node for both (the test helper loads a core node's module once per node of its type). */
  const twoInstances = (extra2 = {}) => [
    { id: 't1', type: 'tab' },
    ...instance(1),
    ...instance(2, extra2),
    // x and y: a node without them is taken for a configuration node
    { id: 'complete', type: 'complete', z: 't1', scope: ['pr1', 'pr2'], uncaught: false, x: 100, y: 300, wires: [['finished']] },
    { id: 'finished', type: 'helper', z: 't1', x: 300, y: 300 },
  ];

  /** Waits until node `node` shows a status whose text includes `text` (among those shown after the first `from`). */
  async function statusShows(node, text, from = 0) {
    await until(() => node.status.args.slice(from).some(([s]) => s && typeof s.text === 'string' && s.text.includes(text)), 5000, `status "${text}"`);
  }

  it('two instances with one shared name: each arrival and each departure exactly once between them', async () => {
    await helper.load([detectionRedis, presence], twoInstances());
    const nodes = [helper.getNode('pr1'), helper.getNode('pr2')];
    for (const node of nodes) await statusShows(node, translate('redis.state.connected'));
    const arrived = [];
    const left = [];
    let handled = 0;
    for (const i of [1, 2]) {
      helper.getNode(`arrived${i}`).on('input', (m) => arrived.push([i, m.presence.label]));
      helper.getNode(`left${i}`).on('input', (m) => left.push([i, m.payload.label, m.payload.reason]));
    }
    helper.getNode('finished').on('input', () => handled++);
    const plates = Array.from({ length: 40 }, (_, i) => `CAR${String(i).padStart(2, '0')}X`);
    // every plate seen three times, a minute apart, by both instances in turn
    let sent = 0;
    for (let round = 0; round < 3; round++) {
      const at = T0 + round * MIN;
      plates.forEach((plate, i) => {
        nodes[(i + round) % 2].receive({ payload: plateEvent(plate, at) });
        nodes[(i + round + 1) % 2].receive({ payload: plateEvent(plate, at, 'Yard') });
        sent += 2;
      });
      await until(() => handled === sent, 10_000, `round ${round} handled`);
      await clock.advance(MIN);
    }
    assert.equal(arrived.length, plates.length, 'one arrival per plate between both');
    assert.deepEqual(arrived.map(([, label]) => label).sort(), plates);

    // past the away time: both sweep, on their own timers
    await clock.advance(10 * MIN);
    await until(
      async () => {
        await clock.advance(0);
        return left.length >= plates.length;
      },
      10_000,
      'every departure',
    );
    assert.deepEqual(left.map(([, label]) => label).sort(), plates, 'each plate left once between both');
    assert.ok(left.every(([, , reason]) => reason === 'away'));
    assert.equal(await client.zCard(`${prefix}presence:{site}:away`), 0, 'nothing left to take');
    assert.equal(await client.hLen(`${prefix}presence:{site}:state`), 0);

    // both answer who is here from the shared table: no one; and no departure came twice meanwhile
    const shownBefore = nodes[0].status.args.length;
    for (const i of [1, 2]) {
      const answer = collect(helper.getNode(`list${i}`), 1);
      nodes[i - 1].receive({ topic: 'list' });
      assert.deepEqual((await answer)[0].payload, []);
    }
    await clock.advance(30_000);
    for (const i of [1, 2]) {
      const answer = collect(helper.getNode(`list${i}`), 1);
      nodes[i - 1].receive({ topic: 'list' });
      await answer;
    }
    assert.equal(left.length, plates.length);
    await statusShows(nodes[0], `0 present · ${arrived.filter(([i]) => i === 1).length} arrived`, shownBefore);
  });

  it('both list who is present from the shared table, longest present first', async () => {
    await helper.load([detectionRedis, presence], twoInstances());
    const [a, b] = [helper.getNode('pr1'), helper.getNode('pr2')];
    await statusShows(a, translate('redis.state.connected'));
    await statusShows(b, translate('redis.state.connected'));
    let handled = 0;
    helper.getNode('finished').on('input', () => handled++);
    a.receive({ payload: plateEvent('LATER1', T0) });
    await until(() => handled === 1);
    await clock.advance(MIN);
    b.receive({ payload: plateEvent('FIRST1', T0 - MIN) });
    b.receive({ payload: plateEvent('LATER1', T0 + MIN, 'Yard') });
    await until(() => handled === 3);
    const answer = collect(helper.getNode('list1'), 1);
    a.receive({ topic: 'list' });
    const [msg] = await answer;
    assert.deepEqual(
      msg.payload.map((r) => [r.label, r.cameras, r.sightings, r.dwellSeconds]),
      [
        ['FIRST1', ['Gate 1'], 1, 120],
        ['LATER1', ['Gate 1', 'Yard'], 2, 60],
      ],
    );
  });

  it('Redis down: a sighting goes on as an arrival, unchecked, warned once (or is dropped, as set); nothing waits', async () => {
    await helper.load([detectionRedis, presence], twoInstances({ whenUnreachable: 'drop', sharedName: 'other' }));
    const [pass, drop] = [helper.getNode('pr1'), helper.getNode('pr2')];
    await statusShows(pass, translate('redis.state.connected'));
    await statusShows(drop, translate('redis.state.connected'));
    const arrived = { 1: [], 2: [] };
    let handled = 0;
    for (const i of [1, 2]) {
      helper.getNode(`arrived${i}`).on('input', (m) => arrived[i].push(m));
    }
    helper.getNode('finished').on('input', () => handled++);
    await server.stop();
    await statusShows(pass, translate('redis.state.unreachable'));
    for (const node of [pass, drop]) {
      node.receive({ payload: plateEvent('DOWN1', T0) });
      node.receive({ payload: plateEvent('DOWN1', T0) });
    }
    await until(() => handled === 4, 10_000, 'every message answered while Redis is down');
    assert.equal(arrived[1].length, 2, 'passed: each sighting as an arrival');
    assert.deepEqual([arrived[1][0].presence.state, arrived[1][0].presence.unchecked, arrived[1][0].presence.label], ['arrived', true, 'DOWN1']);
    assert.equal(arrived[2].length, 0, 'dropped');
    const warnings = pass.warn.args.map((a) => String(a[0]));
    assert.equal(warnings.filter((w) => /unchecked, until Redis is back/.test(w)).length, 1, 'one warning per outage');
    assert.equal(drop.warn.args.filter((a) => /dropped until Redis is back/.test(String(a[0]))).length, 1);
    let answered = 0;
    helper.getNode('list1').on('input', () => answered++);
    const caughtList = new Promise((resolve) => pass.once('call:error', resolve));
    pass.receive({ topic: 'list' });
    const call = await caughtList;
    assert.match(String(call.args[0]), /unreachable/i, 'a list cannot be answered: the error goes to Catch');
    assert.equal(answered, 0, 'ended with the error instead of an answer');
    const shownBefore = pass.status.args.length;
    await server.resume();
    await statusShows(pass, translate('redis.state.connected'), shownBefore);
    // Connected again, the first command after the restart can still fail on a loaded machine
    // (seen once in CI), and that sighting then goes on unchecked, as it should: within 10 s of the
    // status saying so, a sighting is checked again.
    let sent = 0;
    await until(
      async () => {
        sent += 1;
        pass.receive({ payload: plateEvent(`BACK${sent}`, T0) });
        await until(() => handled === 4 + sent, 10_000, 'the sighting answered');
        const last = arrived[1].at(-1);
        return last.presence.label === `BACK${sent}` && last.presence.unchecked === undefined;
      },
      10_000,
      () => `a sighting checked again once Redis is back (${sent} sent, the last: ${JSON.stringify(arrived[1].at(-1).presence)})`,
    );
  });
  it('Redis stops answering (frozen, connection open): a sighting goes on unchecked after the command timeout, a list ends in an error; checked again once it answers', async () => {
    const frozen = await RedisServer.start();
    try {
      const flow = twoInstances();
      flow[1] = { ...flow[1], url: frozen.url };
      await helper.load([detectionRedis, presence], flow);
      const node = helper.getNode('pr1');
      await statusShows(node, translate('redis.state.connected'));
      const connection = helper.getNode('redis1').connection;
      const arrived = [];
      helper.getNode('arrived1').on('input', (m) => arrived.push(m));
      frozen.freeze();
      node.receive({ payload: plateEvent('HUNG1', T0) });
      await until(() => arrived.length === 1, connection.commandTimeoutMs + 10_000, 'the sighting, unchecked');
      assert.deepEqual([arrived[0].presence.state, arrived[0].presence.unchecked], ['arrived', true]);
      assert.equal(connection.state, 'connected', 'the socket never closed: only the answer bounds the wait');
      const warnings = node.warn.args.map((a) => String(a[0]));
      assert.equal(warnings.filter((w) => /Redis did not answer within/.test(w)).length, 1);
      const caughtList = new Promise((resolve) => node.once('call:error', resolve));
      node.receive({ topic: 'list' });
      assert.match(String((await caughtList).args[0]), /did not answer within/, 'the list goes to Catch');
      frozen.thaw();
      node.receive({ payload: plateEvent('BACK2', T0) });
      await until(() => arrived.length === 2, 10_000, 'the sighting after the thaw');
      assert.equal(arrived[1].presence.unchecked, undefined, 'checked again once Redis answers');
    } finally {
      frozen.thaw();
      await frozen.close();
    }
  });
  it('Redis restarting with its data: the status says it is loading, a sighting goes on unchecked meanwhile; checked once it has loaded', async () => {
    const restarting = await RedisServer.start();
    try {
      const filler = await redisClient(restarting.url);
      await saveData(filler);
      await filler.quit();
      const flow = twoInstances();
      flow[1] = { ...flow[1], url: restarting.url };
      await helper.load([detectionRedis, presence], flow);
      const node = helper.getNode('pr1');
      await statusShows(node, translate('redis.state.connected'));
      const arrived = [];
      helper.getNode('arrived1').on('input', (m) => arrived.push(m));
      await restarting.stop();
      await restarting.resume({ args: SLOW_LOAD, loaded: false });
      await statusShows(node, translate('redis.state.loading'));
      const connection = helper.getNode('redis1').connection;
      assert.equal(connection.state, 'unreachable');
      node.receive({ payload: plateEvent('LOAD1', T0) });
      await until(() => arrived.length === 1, 10_000, 'the sighting, unchecked');
      assert.deepEqual([arrived[0].presence.state, arrived[0].presence.unchecked], ['arrived', true]);
      const shownBefore = node.status.args.length;
      await until(() => connection.state === 'connected', 20_000, 'connected once Redis has loaded its data');
      await statusShows(node, translate('redis.state.connected'), shownBefore);
      // Connected means usable: the very next sighting is checked.
      node.receive({ payload: plateEvent('LOAD2', T0) });
      await until(() => arrived.length === 2, 10_000, 'the sighting once loaded');
      assert.equal(arrived[1].presence.unchecked, undefined, 'checked');
    } finally {
      await restarting.close();
    }
  });
});
