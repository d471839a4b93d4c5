'use strict';
/**
 * Confirm on replicas and on disk (lib/redis/confirm.ts, used by
 * lib/delivery/stream.ts): a real primary and a real replica
 * (`redis-server --replicaof`), started here. A take with Confirm on replicas
 * 1 is answered once the replica has the entry; with the replica frozen
 * (SIGSTOP: connected, answering nothing) it fails with ERR_REDIS_CONFIRM
 * (a 503 at the receiver), the entry stays pending here and is handed out at
 * the next pass, and the bridge's resend is absorbed once the replica is back.
 * WAITAOF where the server has it; else the take is refused before anything
 * is written.
 */
const assert = require('node:assert/strict');
const { RedisStreamDelivery, STREAM_GROUP } = require('../../../dist/lib/delivery/stream');
const { RedisConnection } = require('../../../dist/lib/redis/connection');
const { WriteConfirmer, ConfirmError, onlineReplicas } = require('../../../dist/lib/redis/confirm');
const { RedisServer, redisAvailable, redisClient } = require('../../support/redis-server');
const { until } = require('../../support');

describe('lib/redis confirm: WAIT and WAITAOF before a take is answered (redis-server with a replica)', function () {
  this.timeout(60_000);
  let primary;
  let replica;
  let client;
  let onReplica;
  const open = [];

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    primary = await RedisServer.start();
    replica = await primary.startReplica();
    client = await redisClient(primary.url);
    onReplica = await redisClient(replica.url);
  });
  after(async () => {
    replica?.thaw();
    await onReplica?.quit();
    await client?.quit();
    await replica?.close();
    await primary?.close();
  });
  afterEach(async () => {
    replica.thaw();
    for (const item of open.splice(0).reverse()) await item.close();
  });

  async function connect(extra, url = primary.url) {
    const connection = new RedisConnection({ url, prefix: 'confirm:', instance: 'a', ...extra }, 'a');
    open.push(connection);
    connection.open();
    await until(() => connection.ready, 10_000, 'connected');
    return connection;
  }

  let streams = 0;
  async function delivery(connection) {
    const { delivery: d } = await RedisStreamDelivery.open({
      connection,
      name: `/c${streams++}`,
      maxEvents: 1000,
      maxBytes: 64 * 1024 * 1024,
      streamMaxEvents: 1000,
      streamMaxBytes: 64 * 1024 * 1024,
      claimAfterMs: 60_000,
      claimEveryMs: 3_600_000,
    });
    open.push(d);
    d.awaitCompletion = true;
    return d;
  }

  const body = (n) => Buffer.from(JSON.stringify({ n, image: 'A'.repeat(10_000) }));

  it('confirmReplicas 1: the take is answered once the replica has the entry (read there)', async () => {
    const d = await delivery(await connect({ confirmReplicas: 1, confirmTimeoutMs: 5000 }));
    const id = await d.take({ messageId: 'r1' }, body(1), {});
    // read on the replica itself, without waiting: the confirmation said it is there
    const [entry] = await onReplica.xRange(d.key, id, id);
    assert.equal(entry?.message.body, body(1).toString());
  });

  it('confirmReplicas 1: concurrent takes share confirmations, and every entry is on the replica when its take is answered', async () => {
    const d = await delivery(await connect({ confirmReplicas: 1, confirmTimeoutMs: 5000 }));
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        d.take({ messageId: `c${i}` }, body(i), {}).then(async (id) => {
          const [entry] = await onReplica.xRange(d.key, id, id);
          assert.equal(entry?.message.body, body(i).toString(), `entry ${i} on the replica when answered`);
          return id;
        }),
      ),
    );
    assert.equal(new Set(ids).size, 20);
  });

  it('the replica frozen: the take fails with ERR_REDIS_CONFIRM, the entry stays pending here, not handed out; the resend is absorbed once the replica is back, and the entry goes out once', async () => {
    const connection = await connect({ confirmReplicas: 1, confirmTimeoutMs: 300 });
    const d = await delivery(connection);
    let overdue = 0;
    d.onOverdue = () => overdue++;
    replica.freeze();
    await assert.rejects(d.take({ messageId: 'lost?' }, body(7), {}), (err) => {
      assert.equal(err.code, 'ERR_REDIS_CONFIRM');
      assert.match(err.message, /0 of 1 replica/);
      return true;
    });
    // written on the primary, pending for this instance, held here
    const [pending] = await client.xPendingRange(d.key, STREAM_GROUP, '-', '+', 10);
    assert.equal(pending?.consumer, 'a');
    assert.deepEqual(d.pending, { events: 1, bytes: body(7).length });
    // the bridge resends while the replica is still frozen: 503 again, nothing added, nothing handed out
    await assert.rejects(d.take({ messageId: 'lost?' }, body(7), {}), { code: 'ERR_REDIS_CONFIRM' });
    assert.equal(await client.xLen(d.key), 1);
    assert.deepEqual(await d.overdue(), []);
    replica.thaw();
    // the resend once it is back: absorbed (the pending entry stands for it), answered, and that entry goes out once
    const staged = d.stage({}, body(7));
    assert.equal(await staged.commit({ messageId: 'lost?' }, {}), pending.id);
    assert.equal(staged.absorbed, true);
    assert.equal(d.absorbed, 1);
    assert.equal(await client.xLen(d.key), 1);
    await until(() => overdue > 0, 10_000, 'a pass asked for');
    assert.deepEqual(
      (await d.overdue()).map((r) => r.id),
      [pending.id],
    );
    assert.deepEqual(await d.overdue(), [], 'once');
    // nothing hangs: the connection takes the next event at once, confirmed
    const next = await d.take({ messageId: 'after' }, body(8), {});
    assert.equal((await onReplica.xRange(d.key, next, next)).length, 1);
  });

  it('confirmReplicas 0 (the default, and a saved flow without it): the take is answered without the replica', async () => {
    const connection = await connect({});
    assert.equal(connection.confirmer.enabled, false);
    const d = await delivery(connection);
    replica.freeze();
    const id = await d.take({ messageId: 'plain' }, body(3), {});
    assert.equal((await client.xRange(d.key, id, id)).length, 1);
  });

  it('asked for more replicas than there are: every take fails, none hangs', async () => {
    const d = await delivery(await connect({ confirmReplicas: 2, confirmTimeoutMs: 200 }));
    const results = await Promise.allSettled([1, 2, 3].map((i) => d.take({ messageId: `two${i}` }, body(i), {})));
    for (const r of results) assert.equal(r.reason?.code, 'ERR_REDIS_CONFIRM');
  });

  it('With fewer replicas, confirm on those connected: asked for 2 with 1 connected, takes are confirmed on that one, and the shortfall is known', async () => {
    const connection = await connect({ confirmReplicas: 2, confirmTimeoutMs: 5000, confirmFewer: 'connected' });
    await until(() => connection.shortfall !== undefined, 5000, 'the replicas counted');
    assert.deepEqual(connection.shortfall, { online: 1, asked: 2 });
    const d = await delivery(connection);
    const ids = await Promise.all([1, 2, 3].map((i) => d.take({ messageId: `fewer${i}` }, body(i), {})));
    for (const [i, id] of ids.entries()) {
      const [entry] = await onReplica.xRange(d.key, id, id);
      assert.equal(entry?.message.body, body(i + 1).toString(), 'confirmed on the replica connected: it has the entry');
    }
  });

  it('With fewer replicas, refuse (the default): asked for 2 with 1 connected, every take fails; the count is not even read', async () => {
    const connection = await connect({ confirmReplicas: 2, confirmTimeoutMs: 200 });
    assert.equal(connection.confirmer.counts, false);
    const d = await delivery(connection);
    await assert.rejects(d.take({ messageId: 'strict' }, body(1), {}), (err) => err.code === 'ERR_REDIS_CONFIRM');
    assert.equal(connection.shortfall, undefined);
  });

  it('onlineReplicas counts the replicas in sync in an INFO replication answer', () => {
    const info = [
      '# Replication',
      'role:master',
      'connected_slaves:3',
      'slave0:ip=127.0.0.1,port=7001,state=online,offset=100,lag=0',
      'slave1:ip=127.0.0.1,port=7002,state=wait_bgsave,offset=0,lag=0',
      'slave2:ip=127.0.0.1,port=7003,state=online,offset=90,lag=1',
      'master_failover_state:no-failover',
    ].join('\r\n');
    assert.equal(onlineReplicas(info), 2);
    assert.equal(onlineReplicas('# Replication\r\nrole:master\r\nconnected_slaves:0\r\n'), 0);
  });

  it('a primary that does not answer at all: the confirmation fails once its own timeout and a margin have passed', async () => {
    // WAIT sent to the (frozen) replica's port stands for a primary that hangs after EXEC.
    const confirmer = new WriteConfirmer(() => onReplica, { replicas: 1, timeoutMs: 100, aof: 'off' });
    replica.freeze();
    await assert.rejects(confirmer.confirm(), (err) => err instanceof ConfirmError && err.code === 'ERR_REDIS_CONFIRM');
  });

  it('Confirm on disk: WAITAOF where the server has it (appendonly yes); else refused before anything is written, said once', async () => {
    const info = await client.info('server');
    const [major, minor] = /redis_version:(\d+)\.(\d+)/.exec(info).slice(1).map(Number);
    const hasWaitAof = major > 7 || (major === 7 && minor >= 2);
    const durable = await RedisServer.start({ persist: true });
    open.push({ close: () => durable.close() });
    const problems = [];
    const connection = new RedisConnection({ url: durable.url, prefix: 'confirm:', confirmAof: 'primary', confirmTimeoutMs: 2000 }, 'a');
    open.push(connection);
    connection.confirmer.onProblem = (p) => problems.push(p?.key);
    connection.open();
    await until(() => connection.ready, 10_000, 'connected');
    // the probe made on connecting has answered
    await connection.confirmer.probe();
    const d = await delivery(connection);
    if (hasWaitAof) {
      const id = await d.take({ messageId: 'disk' }, body(1), {});
      assert.ok(id);
      assert.deepEqual(problems, []);
      return;
    }
    // Redis before 7.2: no WAITAOF. The promise asked for cannot be given: refused, nothing written.
    assert.equal(connection.confirmer.problem?.key, 'redis-confirm.no-waitaof');
    assert.throws(() => d.checkRoom(0), { code: 'ERR_REDIS_CONFIRM' });
    await assert.rejects(
      async () => d.take({ messageId: 'disk' }, body(1), {}),
      (err) => {
        assert.equal(err.code, 'ERR_REDIS_CONFIRM');
        assert.match(err.message, /WAITAOF/);
        return true;
      },
    );
    assert.equal(await connection.client.exists(d.key), 0, 'nothing written');
    // refused again and again: the problem was told once
    await assert.rejects(async () => d.take({ messageId: 'disk2' }, body(2), {}), { code: 'ERR_REDIS_CONFIRM' });
    await connection.confirmer.probe();
    assert.deepEqual(problems, ['redis-confirm.no-waitaof'], 'told once');
  });

  it('Confirm on disk without an append-only file on the primary: refused, saying so', async function () {
    const connection = await connect({ confirmAof: 'primary', confirmTimeoutMs: 500 });
    await connection.confirmer.probe();
    const key = connection.confirmer.problem?.key;
    assert.ok(key === 'redis-confirm.no-aof' || key === 'redis-confirm.no-waitaof', String(key));
    const d = await delivery(connection);
    await assert.rejects(async () => d.take({ messageId: 'x' }, body(1), {}), { code: 'ERR_REDIS_CONFIRM' });
  });
});
