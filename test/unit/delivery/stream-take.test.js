'use strict';
/**
 * Taking an event in Redis stream mode (lib/delivery/stream.ts), one
 * transaction MULTI { EVAL PREPARE; XADD body; EVAL TAKE } EXEC, against a
 * real redis-server: what each outcome leaves in Redis. Refused (cap, resend
 * still pending) or failing inside the script nothing is left added; a
 * connection cut before EXEC leaves
 * nothing; one cut after EXEC leaves the event pending for this instance and
 * counted, claimed by it after claimAfterMs. Every case ends with the same
 * check of the whole stream: each entry pending exactly once, for this
 * instance, its bytes counted, no scratch key left.
 */
const assert = require('node:assert/strict');
const net = require('node:net');
const { RedisStreamDelivery, STREAM_GROUP, PREPARE, TAKE } = require('../../../dist/lib/delivery/stream');
const { RedisConnection } = require('../../../dist/lib/redis/connection');
const { RedisServer, redisAvailable, redisClient } = require('../../support/redis-server');
const { until } = require('../../support');

/**
 * A TCP proxy in front of Redis that can cut a connection at one point of the
 * next transaction: 'request' forwards it up to (not including) EXEC, then
 * closes both sides; 'reply' forwards all of it and closes both sides instead
 * of passing EXEC's reply on; 'hold' keeps EXEC's reply (and what follows)
 * until release(). Armed for one cut; later connections pass.
 */
async function cuttingProxy(port) {
  let armed;
  let cut;
  const held = [];
  const done = new Promise((resolve) => (cut = resolve));
  const sockets = new Set();
  const proxy = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    let execSent = false;
    let reply = '';
    const close = () => {
      armed = undefined;
      client.destroy();
      upstream.destroy();
      cut();
    };
    client.on('data', (chunk) => {
      const at = chunk.indexOf('\r\nEXEC\r\n');
      if (armed === 'request' && at >= 0) {
        // "*1\r\n$4" before it too: the server sees MULTI and the queued commands, never EXEC
        upstream.write(chunk.subarray(0, Math.max(0, chunk.lastIndexOf('*1\r\n', at))), close);
        return;
      }
      if (at >= 0) execSent = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (armed === 'held') return void held.push([client, chunk]);
      if ((armed !== 'reply' && armed !== 'hold') || !execSent) return void client.write(chunk);
      // Everything before EXEC's reply (+OK, +QUEUED) passes; EXEC's reply is an array of three.
      reply += chunk.toString('latin1');
      if (!reply.includes('*3\r\n')) return void client.write(chunk);
      if (armed === 'reply') return close();
      held.push([client, chunk]);
      armed = 'held';
      cut();
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${proxy.address().port}`,
    arm(mode) {
      armed = mode;
      return done;
    },
    release() {
      armed = undefined;
      for (const [socket, chunk] of held.splice(0)) socket.write(chunk);
    },
    close: () =>
      new Promise((resolve) => {
        proxy.close(resolve);
        for (const socket of sockets) socket.destroy();
      }),
  };
}

describe('lib/delivery RedisStreamDelivery: taking an event (redis-server)', function () {
  this.timeout(30_000);
  let server;
  let client;
  const open = [];

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start();
    client = await redisClient(server.url);
  });
  after(async () => {
    await client?.quit();
    await server?.close();
  });
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });

  async function connect(instance, url = server.url, extra = {}) {
    const connection = new RedisConnection({ url, prefix: 'take:', instance, ...extra }, instance);
    open.push(connection);
    connection.open();
    await until(() => connection.ready, 10_000, 'connected');
    return connection;
  }

  let streams = 0;
  async function delivery(connection, options = {}) {
    const { delivery: d } = await RedisStreamDelivery.open({
      connection,
      name: `/t${streams++}`,
      maxEvents: 1000,
      maxBytes: 64 * 1024 * 1024,
      streamMaxEvents: 1000,
      streamMaxBytes: 64 * 1024 * 1024,
      claimAfterMs: 60_000,
      claimEveryMs: 3_600_000,
      ...options,
    });
    open.push(d);
    d.awaitCompletion = true;
    return d;
  }

  const body = (n, size = 1000) => Buffer.from(JSON.stringify({ n, image: 'A'.repeat(size) }));

  /** The whole stream as the promises of the mode say it must be: each entry pending once, for `owner`,
   *  the bytes key the sum of the bodies, every index line pointing at a pending entry, no scratch key. */
  async function assertWhole(key, owner) {
    const entries = await client.xRange(key, '-', '+');
    const pending = await client.xPendingRange(key, STREAM_GROUP, '-', '+', 1000).catch(() => []);
    assert.deepEqual(
      pending.map((p) => [p.id, p.consumer]),
      entries.map((e) => [e.id, owner]),
      'every entry pending exactly once, for this instance',
    );
    const bytes = entries.reduce((sum, e) => sum + Buffer.byteLength(e.message.body), 0);
    assert.equal(Number((await client.get(`${key}:bytes`)) ?? 0), bytes, 'the bytes counted are the bodies held');
    const ids = new Set(entries.map((e) => e.id));
    for (const [mid, id] of Object.entries(await client.hGetAll(`${key}:ids`))) assert.ok(ids.has(id), `index line ${mid} → ${id}`);
    assert.equal(await client.exists(`${key}:adding`), 0, 'no scratch key left between two takes');
    return entries;
  }

  it('takes an event: a plain XADD of the body, pending for this instance from the first moment, counted', async () => {
    const d = await delivery(await connect('a'));
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await d.take({ messageId: `m${i}` }, body(i), {}));
    const entries = await assertWhole(d.key, 'a');
    assert.deepEqual(
      entries.map((e) => e.id),
      ids,
    );
    assert.deepEqual(
      entries.map((e) => e.message.body),
      [0, 1, 2, 3, 4].map((i) => body(i).toString()),
    );
    assert.deepEqual(Object.keys(entries[0].message), ['body', 'meta'], 'no field but the body and the meta');
  });

  it('past the cap in entries or bytes: refused (503) and nothing is left added', async () => {
    const connection = await connect('a');
    const d = await delivery(connection, { streamMaxEvents: 2 });
    await d.take({ messageId: 'm1' }, body(1), {});
    await d.take({ messageId: 'm2' }, body(2), {});
    const before = await client.xInfoStream(d.key);
    await assert.rejects(d.take({ messageId: 'm3' }, body(3), {}), (err) => err.code === 'ERR_DELIVERY_BUSY' && /2 events/.test(err.message));
    const entries = await assertWhole(d.key, 'a');
    assert.equal(entries.length, 2);
    assert.equal(await client.hGet(`${d.key}:ids`, 'm3'), null);
    assert.equal((await client.xInfoStream(d.key)).length, before.length);

    const small = await delivery(connection, { streamMaxBytes: 2500 });
    await small.take({ messageId: 'b1' }, body(1, 2000), {});
    await assert.rejects(small.take({ messageId: 'b2' }, body(2, 2000), {}), (err) => err.reason === 'stream' && /bytes/.test(err.message));
    assert.equal((await assertWhole(small.key, 'a')).length, 1);
    assert.equal(small.pending.events, 1, 'the refused event is not held either');
  });

  it('a resend of a messageId whose entry is still pending is not added: answered as held', async () => {
    const a = await connect('a');
    const b = await connect('b');
    const da = await delivery(a);
    const db = await RedisStreamDelivery.open({
      connection: b,
      name: da.key.slice('take:stream:'.length),
      maxEvents: 1000,
      maxBytes: 64 * 1024 * 1024,
      streamMaxEvents: 1000,
      streamMaxBytes: 64 * 1024 * 1024,
      claimAfterMs: 60_000,
      claimEveryMs: 3_600_000,
    }).then((o) => (open.push(o.delivery), o.delivery));
    assert.equal(db.key, da.key);
    const id = await da.take({ messageId: 'same' }, body(1), {});
    assert.equal(await db.take({ messageId: 'same' }, body(1), {}), id, 'the pending entry answers for it');
    assert.equal(db.absorbed, 1);
    assert.equal((await assertWhole(da.key, 'a')).length, 1);
  });

  it('finds the id XADD gave the entry when the stream’s last id is ahead of Redis’s clock', async () => {
    const d = await delivery(await connect('a'));
    const ahead = `${Date.now() + 3_600_000}-7`;
    await client.sendCommand(['XADD', d.key, ahead, 'body', 'x', 'meta', '{}']);
    await client.sendCommand(['XDEL', d.key, ahead]);
    const id = await d.take({ messageId: 'm' }, body(1), {});
    assert.equal(id, ahead.replace(/-7$/, '-9'), 'PREPARE took -8, the event -9');
    assert.equal((await assertWhole(d.key, 'a'))[0].message.body, body(1).toString());
  });

  it('finds the entry by reading the newest one when Redis’s clock passed the id PREPARE set up', async () => {
    // What a stall of Redis between PREPARE and XADD does, made here by moving the last id in between.
    const key = 'take:manual';
    const keys = [key, `${key}:bytes`, `${key}:ids`, `${key}:adding`];
    const replies = await client
      .multi()
      .addCommand(['EVAL', PREPARE, '4', ...keys])
      .addCommand(['XSETID', key, `${Date.now() + 3_600_000}-0`])
      .addCommand(['XADD', key, '*', 'body', 'the body', 'meta', '{}'])
      .addCommand(['EVAL', TAKE, '4', ...keys, STREAM_GROUP, 'a', '10', '1000000', '8', 'm'])
      .exec();
    assert.equal(replies[3], replies[2], 'the XADD’s id');
    assert.equal((await assertWhole(key, 'a')).length, 1);
  });

  it('whatever fails in the script after the XADD deletes the entry again: the take fails (503), nothing is left added', async () => {
    const d = await delivery(await connect('a'));
    await d.take({ messageId: 'first' }, body(0), {});
    // The index of messageIds made unusable (another type): HGET fails inside TAKE, after the XADD.
    await client.del(`${d.key}:ids`);
    await client.set(`${d.key}:ids`, 'not a hash');
    await assert.rejects(d.take({ messageId: 'second' }, body(1), {}), /could not be added.*WRONGTYPE/);
    const entries = await client.xRange(d.key, '-', '+');
    assert.deepEqual(
      entries.map((e) => JSON.parse(e.message.meta).messageId),
      ['first'],
    );
    assert.equal((await client.xPending(d.key, STREAM_GROUP)).pending, 1);
    assert.equal(await client.get(`${d.key}:bytes`), String(body(0).length));
    assert.equal(await client.exists(`${d.key}:adding`), 0);
  });

  it('a connection cut before EXEC reaches Redis: the take fails (503) and nothing is added', async () => {
    const proxy = await cuttingProxy(server.port);
    open.push(proxy);
    const connection = await connect('a', proxy.url);
    const d = await delivery(connection);
    await d.take({ messageId: 'before' }, body(0), {});
    const cut = proxy.arm('request');
    await assert.rejects(d.take({ messageId: 'cut' }, body(1, 300_000), {}));
    await cut;
    const entries = await assertWhole(d.key, 'a');
    assert.equal(entries.length, 1);
    assert.equal(d.pending.events, 1);
    await until(() => connection.ready, 10_000, 'reconnected');
    assert.equal(typeof (await d.take({ messageId: 'cut' }, body(1, 300_000), {})), 'string', 'the resend is taken');
    assert.equal((await assertWhole(d.key, 'a')).length, 2);
  });

  it('a connection cut after EXEC ran: the take fails, the event stays pending for this instance, counted, and is claimed after claimAfterMs', async () => {
    const proxy = await cuttingProxy(server.port);
    open.push(proxy);
    const connection = await connect('a', proxy.url);
    const d = await delivery(connection, { claimAfterMs: 300 });
    const cut = proxy.arm('reply');
    await assert.rejects(d.take({ messageId: 'lost reply' }, body(1, 300_000), {}));
    await cut;
    const [entry, ...rest] = await assertWhole(d.key, 'a');
    assert.equal(rest.length, 0);
    assert.equal(entry.message.body, body(1, 300_000).toString());
    assert.equal(d.pending.events, 0, 'this instance does not know it yet');
    await until(() => connection.ready, 10_000, 'reconnected');
    assert.equal(await d.take({ messageId: 'lost reply' }, body(1, 300_000), {}), entry.id, 'the bridge’s resend is answered as held');
    let claimed = [];
    await until(async () => (claimed = claimed.concat(await d.overdue())).length > 0, 10_000, 'claimed');
    assert.deepEqual(
      claimed.map((r) => [r.id, r.body.toString()]),
      [[entry.id, body(1, 300_000).toString()]],
    );
    d.complete(entry.id);
    await until(async () => (await client.xLen(d.key)) === 0, 5000, 'finished');
    assert.equal(await client.get(`${d.key}:bytes`), '0');
  });

  it('Redis slower than the command timeout: the take fails (503) at the timeout; the event Redis took stays pending for this instance', async () => {
    const proxy = await cuttingProxy(server.port);
    open.push(proxy);
    const connection = await connect('a', proxy.url, { commandTimeoutMs: 300 });
    const d = await delivery(connection);
    const held = proxy.arm('hold');
    await assert.rejects(d.take({ messageId: 'slow' }, body(1), {}), /did not answer within 300 ms/);
    await held;
    const [entry, ...rest] = await assertWhole(d.key, 'a');
    assert.equal(rest.length, 0);
    assert.equal(JSON.parse(entry.message.meta).messageId, 'slow');
    proxy.release();
  });
});
