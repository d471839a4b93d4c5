'use strict';
/**
 * The Redis modes inside the Node-RED runtime, against a real redis-server:
 * the detection-redis configuration node and its status on using nodes,
 * detection-in acknowledging after the stream write (over real HTTP), and
 * detection-dedupe shared through Redis.
 */
const assert = require('node:assert/strict');
const { getHelper, translatedModule, loadWithHttp, closeServers, postJson, collect, until, translate } = require('../support');
const { RedisServer, redisAvailable, redisClient, holdingProxy } = require('../support/redis-server');
const ev = require('../fixtures/events');

const helper = getHelper();
const detectionIn = translatedModule('detection-in');
const detectionDone = translatedModule('detection-done');
const detectionDedupe = translatedModule('detection-dedupe');
const detectionRedis = translatedModule('detection-redis');

const lpr = (id) => {
  const event = ev.fullLpr();
  event.payload.messageId = id;
  return event;
};

describe('Redis modes in the Node-RED runtime (redis-server)', function () {
  this.timeout(30_000);
  let server;
  let client;
  let n = 0;
  let prefix;

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start({ persist: true });
    client = await redisClient(server.url);
  });
  after(async () => {
    await client?.close();
    await server?.close();
  });
  beforeEach(async () => {
    prefix = `nodes${++n}:`;
    await helper.startServer();
  });
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
  });

  const redisConfig = (extra = {}) => ({ id: 'redis1', type: 'detection-redis', url: server.url, prefix, ...extra });
  /** A dedupe on msg.messageId with its window shared through redis1. */
  const sharedDedupe = (id, wires, extra = {}) => ({
    id,
    type: 'detection-dedupe',
    z: 't1',
    mode: 'id',
    key: 'messageId',
    keyType: 'msg',
    ttl: 60,
    ttlUnits: 's',
    maxKeys: 10,
    scope: 'redis',
    redis: 'redis1',
    wires,
    ...extra,
  });

  /** Waits until node `id` shows a status whose text contains `text`. */
  function statusOf(node, text) {
    return new Promise((resolve) => {
      const original = node.status.bind(node);
      node.status = (s) => {
        original(s);
        if (s && typeof s.text === 'string' && s.text.includes(text)) resolve(s);
      };
    });
  }

  it('detection-in (written to Redis) answers 200 once the event is in the stream, and detection-done removes it', async () => {
    const flow = [
      { id: 't1', type: 'tab' },
      redisConfig(),
      { id: 'rin', type: 'detection-in', z: 't1', path: '/hooks/shared', auth: 'none', ackMode: 'redis', redis: 'redis1', wires: [['held'], []] },
      // held: the test hands messages on to the done node downstream
      { id: 'held', type: 'helper', z: 't1', wires: [['rdone']] },
      { id: 'rdone', type: 'detection-done', z: 't1', wires: [] },
    ];
    const base = await loadWithHttp([detectionRedis, detectionIn, detectionDone], flow);
    await until(() => helper.getNode('redis1').connection.ready);
    const stream = `${prefix}stream:/hooks/shared`;
    const got = collect(helper.getNode('held'), 2);
    const answers = [await postJson(`${base}/hooks/shared`, lpr('s-1')), await postJson(`${base}/hooks/shared`, lpr('s-2'))];
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200],
    );
    assert.equal(await client.xLen(stream), 2, 'both in the stream, answered 200');
    const msgs = await got;
    assert.deepEqual(
      msgs.map((m) => m.messageId),
      ['s-1', 's-2'],
    );
    assert.equal(typeof msgs[0]._delivery.id, 'string', 'the stream entry id');
    const doneNode = helper.getNode('rdone');
    doneNode.receive(msgs[0]);
    await until(async () => (await client.xLen(stream)) === 1);
    const [left] = await client.xRange(stream, '-', '+');
    assert.equal(JSON.parse(left.message.body).payload.messageId, 's-2');
  });

  it('detection-in answers 503 with Retry-After when Redis is unreachable, and shows it under the node', async () => {
    const flow = [
      { id: 't1', type: 'tab' },
      // Nothing listens on port 1: unreachable from the start.
      redisConfig({ url: 'redis://127.0.0.1:1' }),
      { id: 'rin', type: 'detection-in', z: 't1', path: '/hooks/down', auth: 'none', ackMode: 'redis', redis: 'redis1', wires: [['held'], []] },
      { id: 'held', type: 'helper', z: 't1' },
    ];
    const base = await loadWithHttp([detectionRedis, detectionIn], flow);
    const shown = statusOf(helper.getNode('rin'), translate('redis.state.unreachable'));
    const answer = await postJson(`${base}/hooks/down`, lpr('d-1'));
    assert.equal(answer.status, 503);
    assert.equal(answer.headers['retry-after'], '1');
    assert.equal(answer.json.status, 503);
    assert.match(answer.json.detail, /Redis is unreachable/);
    const status = await shown;
    assert.equal(status.fill, 'red');
  });

  it('detection-in in redis mode without a Redis configuration says what to fix', async () => {
    const flow = [
      { id: 't1', type: 'tab' },
      { id: 'rin', type: 'detection-in', z: 't1', path: '/hooks/none', auth: 'none', ackMode: 'redis', wires: [[], []] },
    ];
    const errors = [];
    await loadWithHttp([detectionIn], flow);
    const receiver = helper.getNode('rin');
    await until(() => {
      errors.push(...receiver.error.args.map((a) => a[0]));
      return errors.length > 0;
    });
    assert.equal(errors[0], translate('detection-in.errors.redis-missing'));
  });

  it('two dedupe nodes sharing one window through Redis pass each messageId once; repeats carry msg.duplicateOf', async () => {
    const dedupe = (id, out, dup) => sharedDedupe(id, [[out], [dup]], { duplicatesOutput: true, sharedName: 'site-a' });
    const flow = [
      { id: 't1', type: 'tab' },
      redisConfig(),
      dedupe('d1', 'p1', 'x1'),
      dedupe('d2', 'p2', 'x2'),
      ...['p1', 'p2', 'x1', 'x2'].map((id) => ({ id, type: 'helper', z: 't1' })),
    ];
    await helper.load([detectionRedis, detectionDedupe], flow);
    await statusOf(helper.getNode('d1'), translate('redis.state.connected'));
    const passed = [];
    const dups = [];
    for (const id of ['p1', 'p2']) helper.getNode(id).on('input', (m) => passed.push(m.messageId));
    for (const id of ['x1', 'x2']) helper.getNode(id).on('input', (m) => dups.push(m));
    const total = 300;
    for (let i = 0; i < total; i++) {
      helper.getNode('d1').receive({ messageId: `m${i}` });
      helper.getNode('d2').receive({ messageId: `m${i}` });
    }
    await until(() => passed.length + dups.length === total * 2);
    assert.equal(passed.length, total);
    assert.equal(new Set(passed).size, total, 'every messageId exactly once');
    assert.ok(dups.every((m) => m.duplicateOf && typeof m.duplicateOf.firstSeen === 'string'));
    const keys = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}dedupe:site-a:*`, COUNT: 1000 })) keys.push(...batch);
    assert.equal(keys.length, total);
  });

  it('a shared dedupe sends the checks of a burst without waiting for each answer', async () => {
    const total = 100;
    const proxy = await holdingProxy(server.port, total);
    try {
      const flow = [
        { id: 't1', type: 'tab' },
        redisConfig({ url: proxy.url }),
        sharedDedupe('dq', [['out'], []]),
        { id: 'out', type: 'helper', z: 't1' },
      ];
      await helper.load([detectionRedis, detectionDedupe], flow);
      await until(() => helper.getNode('redis1').connection.ready);
      const got = collect(helper.getNode('out'), total);
      for (let i = 0; i < total; i++) helper.getNode('dq').receive({ messageId: `burst-${i}` });
      const msgs = await got;
      assert.deepEqual(
        msgs.map((m) => m.messageId),
        Array.from({ length: total }, (_, i) => `burst-${i}`),
        'in arrival order',
      );
      assert.equal(proxy.seen(), total);
    } finally {
      await proxy.close();
    }
  });

  it('a shared dedupe whose Redis stops answering (frozen, connection open) passes messages unchecked after the command timeout, and checks again once it answers', async () => {
    const frozen = await RedisServer.start();
    try {
      const flow = [
        { id: 't1', type: 'tab' },
        redisConfig({ url: frozen.url }),
        sharedDedupe('dp', [['op'], []], { whenUnreachable: 'pass' }),
        { id: 'op', type: 'helper', z: 't1' },
      ];
      await helper.load([detectionRedis, detectionDedupe], flow);
      const connection = helper.getNode('redis1').connection;
      await until(() => connection.ready);
      const dedupe = helper.getNode('dp');
      const out = helper.getNode('op');
      const first = collect(out, 1);
      dedupe.receive({ messageId: 'f-1' });
      await first;
      frozen.freeze();
      const unchecked = collect(out, 2, connection.commandTimeoutMs + 10_000);
      dedupe.receive({ messageId: 'f-2' });
      dedupe.receive({ messageId: 'f-2' });
      assert.deepEqual(
        (await unchecked).map((m) => m.messageId),
        ['f-2', 'f-2'],
        'both passed unchecked: a duplicate alert beats a lost one',
      );
      assert.equal(connection.state, 'connected', 'the socket never closed: only the answer bounds the wait');
      const warns = dedupe.warn
        .getCalls()
        .filter((c) => c.thisValue === dedupe)
        .map((c) => c.args[0]);
      assert.equal(warns.length, 1);
      assert.match(warns[0], new RegExp(`Redis did not answer within ${connection.commandTimeoutMs} ms`));
      frozen.thaw();
      // Answering again: a repeat is dropped, as before the freeze.
      const dropped = statusOf(dedupe, translate('detection-dedupe.status.shared', { passed: 4, dropped: 1 }));
      const again = collect(out, 1);
      dedupe.receive({ messageId: 'f-3' });
      assert.equal((await again)[0].messageId, 'f-3');
      dedupe.receive({ messageId: 'f-3' });
      await dropped;
    } finally {
      frozen.thaw();
      await frozen.close();
    }
  });

  it('detection-redis says in the log, naming the server, once that Redis is lost and once that it is back', async () => {
    const own = await RedisServer.start();
    try {
      await helper.load([detectionRedis], [{ id: 't1', type: 'tab' }, redisConfig({ url: own.url })]);
      const config = helper.getNode('redis1');
      const connection = config.connection;
      await until(() => connection.ready, 10_000, 'connected');
      const warnings = () =>
        config.warn
          .getCalls()
          .filter((c) => c.thisValue === config)
          .map((c) => c.args[0]);
      const server = `127.0.0.1:${own.port}`;
      await own.stop();
      await until(() => warnings().length === 1, 10_000, 'Redis lost');
      assert.match(warnings()[0], new RegExp(`^Redis ${server} is unreachable, retrying: `));
      await own.resume();
      await until(() => warnings().length === 2, 20_000, 'Redis back');
      assert.match(warnings()[1], new RegExp(`^Redis ${server} is reachable again, after \\d+ s$`));
      // the state it reached is the one said: no more lines while it stays
      await until(() => connection.ready, 10_000, 'connected again');
      assert.equal(warnings().length, 2, warnings().join('\n'));
    } finally {
      await own.close();
    }
  });

  it('a shared dedupe passes (and warns once) or drops while Redis is unreachable, as chosen', async () => {
    const flow = [
      { id: 't1', type: 'tab' },
      redisConfig({ url: 'redis://127.0.0.1:1' }),
      sharedDedupe('dp', [['op'], []], { whenUnreachable: 'pass' }),
      sharedDedupe('dd', [['od'], []], { whenUnreachable: 'drop' }),
      { id: 'op', type: 'helper', z: 't1' },
      { id: 'od', type: 'helper', z: 't1' },
    ];
    await helper.load([detectionRedis, detectionDedupe], flow);
    const pass = helper.getNode('dp');
    const drop = helper.getNode('dd');
    const passedOn = collect(helper.getNode('op'), 3);
    for (const id of ['a', 'a', 'b']) pass.receive({ messageId: id });
    assert.deepEqual(
      (await passedOn).map((m) => m.messageId),
      ['a', 'a', 'b'],
      'a duplicate alert beats a lost one',
    );
    // The helper spies on every node's warn at once: these are this node's.
    const warnsOf = (node) =>
      node.warn
        .getCalls()
        .filter((c) => c.thisValue === node)
        .map((c) => c.args[0]);
    assert.equal(warnsOf(pass).length, 1, 'one warning per outage');
    assert.match(warnsOf(pass)[0], /^Redis is unreachable.*Messages pass unchecked until Redis is back/);
    let outputs = 0;
    helper.getNode('od').on('input', () => outputs++);
    const counted = statusOf(drop, translate('detection-dedupe.status.shared', { passed: 0, dropped: 2 }));
    for (const id of ['c', 'd']) drop.receive({ messageId: id });
    await counted;
    assert.equal(outputs, 0, 'dropped');
    assert.equal(warnsOf(drop).length, 1);
    assert.match(warnsOf(drop)[0], /Messages are dropped until Redis is back/);
  });
});
