'use strict';
/**
 * Confirm on replicas in the Node-RED runtime: detection-in acknowledging
 * after the stream write, through a detection-redis asking for one replica,
 * over real HTTP on 127.0.0.1, against a real primary and replica. 200 once
 * the replica has the event; 503 with Retry-After while it does not answer
 * (frozen), the event handed out once all the same and the resend absorbed;
 * Confirm on disk where the server lacks WAITAOF: refused, said in the log
 * and under the node.
 */
const assert = require('node:assert/strict');
const { getHelper, translatedModule, loadWithHttp, closeServers, postJson, collect, until, translate, ownStatus } = require('../support');
const { RedisServer, redisAvailable, redisClient } = require('../support/redis-server');
const { metricSources, readiness } = require('../../dist/lib/metrics');
const ev = require('../fixtures/events');

const helper = getHelper();
const detectionIn = translatedModule('detection-in');
const detectionRedis = translatedModule('detection-redis');
const detectionDedupe = translatedModule('detection-dedupe');

const lpr = (id) => {
  const event = ev.fullLpr();
  event.payload.messageId = id;
  return event;
};

describe('Confirm on replicas in the Node-RED runtime (redis-server with a replica)', function () {
  this.timeout(30_000);
  let primary;
  let replica;
  let onReplica;
  let onPrimary;
  const primaryClient = async () => (onPrimary ??= await redisClient(primary.url));
  let n = 0;
  let prefix;

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    primary = await RedisServer.start();
    replica = await primary.startReplica();
    onReplica = await redisClient(replica.url);
  });
  after(async () => {
    replica?.thaw();
    await onReplica?.close();
    await onPrimary?.close();
    await replica?.close();
    await primary?.close();
  });
  beforeEach(async () => {
    prefix = `confirm${++n}:`;
    await helper.startServer();
  });
  afterEach(async () => {
    replica.thaw();
    await closeServers();
    await helper.unload();
    await helper.stopServer();
  });

  const flow = (path, redis, receiver = {}) => [
    { id: 't1', type: 'tab' },
    { id: 'redis1', type: 'detection-redis', url: primary.url, prefix, ...redis },
    { id: 'rin', type: 'detection-in', z: 't1', path, auth: 'none', ackMode: 'redis', redis: 'redis1', wires: [['held'], []], ...receiver },
    { id: 'held', type: 'helper', z: 't1' },
  ];

  it('Confirm on replicas 1: 200 once the replica has the event', async () => {
    const base = await loadWithHttp(
      [detectionRedis, detectionIn],
      flow('/hooks/confirmed', { confirmReplicas: 1, confirmTimeoutMs: 5000 }, { finishedWhen: 'done' }),
    );
    await until(() => helper.getNode('redis1').connection.ready);
    const got = collect(helper.getNode('held'), 1);
    const answer = await postJson(`${base}/hooks/confirmed`, lpr('ok-1'));
    assert.equal(answer.status, 200);
    const entries = await onReplica.xRange(`${prefix}stream:/hooks/confirmed`, '-', '+');
    assert.deepEqual(
      entries.map((e) => JSON.parse(e.message.body).payload.messageId),
      ['ok-1'],
      'on the replica when answered (held until a detection-done: none here)',
    );
    assert.equal((await got)[0].messageId, 'ok-1');
  });

  it('With fewer replicas, confirm on those connected: 200 on the one replica of 2 asked, said in yellow and once in the log; no longer once a second replica is in sync', async () => {
    const base = await loadWithHttp(
      [detectionRedis, detectionIn, detectionDedupe],
      [
        ...flow('/hooks/fewer', { confirmReplicas: 2, confirmTimeoutMs: 5000, confirmFewer: 'connected' }, { finishedWhen: 'done' }),
        // on the same configuration node, confirming nothing itself: no shortfall of its own to show
        {
          id: 'dd',
          type: 'detection-dedupe',
          z: 't1',
          mode: 'id',
          key: 'messageId',
          keyType: 'msg',
          ttl: 60,
          ttlUnits: 's',
          scope: 'redis',
          redis: 'redis1',
          wires: [[], []],
        },
      ],
    );
    const config = helper.getNode('redis1');
    const receiver = helper.getNode('rin');
    await until(() => config.connection.ready);
    const fewer = translate('redis.confirm-fewer', { online: 1, asked: 2 });
    const receiverStatuses = () =>
      receiver.status
        .getCalls()
        .filter((c) => c.thisValue === receiver)
        .map((c) => c.args[0]);
    await until(() => receiverStatuses().some((st) => st.fill === 'yellow' && st.text.endsWith(fewer)), 5000, 'the yellow status');
    const dedupe = helper.getNode('dd');
    assert.ok(ownStatus(dedupe), 'the dedupe shows the connection');
    assert.ok(!ownStatus(dedupe).text.includes(fewer), `the dedupe's status: ${ownStatus(dedupe).text}`);
    const answer = await postJson(`${base}/hooks/fewer`, lpr('fewer-1'));
    assert.equal(answer.status, 200);
    const [entry] = await onReplica.xRange(`${prefix}stream:/hooks/fewer`, '-', '+');
    assert.equal(JSON.parse(entry.message.body).payload.messageId, 'fewer-1', 'on the replica connected when answered');
    const health = () => readiness(metricSources, '/hooks/fewer').body.receivers[0];
    assert.deepEqual(health().redis, { failover: false, shortfall: { online: 1, asked: 2 } }, 'the health answer says it too');
    const warned = () =>
      config.warn
        .getCalls()
        .filter((c) => c.thisValue === config)
        .map((c) => String(c.args[0]));
    assert.deepEqual(warned(), [translate('detection-redis.warn.confirm-fewer', { online: 1, asked: 2 })]);
    const second = await primary.startReplica();
    try {
      await until(() => config.connection.shortfall === undefined, 15_000, 'both replicas counted');
      // (yellow still, for its own reason: no detection done is wired to finish the held events)
      await until(() => !receiverStatuses().at(-1).text.includes(fewer), 5000, 'the shortfall gone from the status');
      assert.equal((await postJson(`${base}/hooks/fewer`, lpr('fewer-2'))).status, 200);
      assert.equal(warned().length, 1, 'said once per change');
      assert.equal(health().redis, undefined, 'single mode, nothing short: as before');
    } finally {
      await second.close();
    }
  });

  it('the confirmation does not come in time: 503 with Retry-After; the resend is absorbed once it comes, and the event goes out then', async () => {
    const base = await loadWithHttp([detectionRedis, detectionIn], flow('/hooks/frozen', { confirmReplicas: 1, confirmTimeoutMs: 300 }));
    await until(() => helper.getNode('redis1').connection.ready);
    const got = collect(helper.getNode('held'), 1);
    replica.freeze();
    const refused = await postJson(`${base}/hooks/frozen`, lpr('late-1'));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers['retry-after'], '1');
    assert.match(refused.json.detail, /0 of 1 replicas confirmed/);
    // written on the primary and pending here, not handed out: the resend stands for it
    assert.equal(await primaryClient().then((c) => c.xLen(`${prefix}stream:/hooks/frozen`)), 1);
    replica.thaw();
    const resent = await postJson(`${base}/hooks/frozen`, lpr('late-1'));
    assert.equal(resent.status, 200);
    // the pending entry goes out once the resend is confirmed (and, finished at once, leaves the stream)
    assert.equal((await got)[0].messageId, 'late-1');
    await until(async () => (await onReplica.xLen(`${prefix}stream:/hooks/frozen`)) === 0);
    // one more event: a new one, so the first one's single emission is proved by the order of arrival
    const next = collect(helper.getNode('held'), 1);
    assert.equal((await postJson(`${base}/hooks/frozen`, lpr('late-2'))).status, 200);
    assert.equal((await next)[0].messageId, 'late-2');
  });

  it('Confirm on disk where the server cannot: 503, said once in the log and under the node', async () => {
    const info = await onReplica.info('server');
    const [major, minor] = /redis_version:(\d+)\.(\d+)/.exec(info).slice(1).map(Number);
    const base = await loadWithHttp([detectionRedis, detectionIn], flow('/hooks/disk', { confirmAof: 'primary' }));
    const config = helper.getNode('redis1');
    await until(() => config.connection.ready);
    if (major > 7 || (major === 7 && minor >= 2)) {
      // WAITAOF exists, the primary has no append-only file (the test's primary runs without one)
      await until(() => config.connection.confirmer.problem !== undefined);
    } else {
      await until(() => config.connection.confirmer.problem !== undefined);
      assert.equal(config.connection.confirmer.problem.key, 'redis-confirm.no-waitaof');
    }
    const problem = translate(config.connection.confirmer.problem.key);
    const answer = await postJson(`${base}/hooks/disk`, lpr('disk-1'));
    assert.equal(answer.status, 503);
    assert.equal(answer.headers['retry-after'], '1');
    assert.equal(await onReplica.exists(`${prefix}stream:/hooks/disk`), 0, 'nothing written');
    await postJson(`${base}/hooks/disk`, lpr('disk-2'));
    const logged = config.error.args.map((a) => String(a[0])).filter((text) => text.includes(problem));
    assert.equal(logged.length, 1, 'said once');
    const receiver = helper.getNode('rin');
    await until(() => receiver.status.args.some((a) => String(a[0]?.text).includes(problem)));
  });
});
