'use strict';
/**
 * lib/delivery/stream.ts against a real redis-server: events written to the
 * stream before they count as taken, finished with XACK + XDEL, the caps,
 * claiming what a dead instance left pending, and recovery under the same name.
 */
const assert = require('node:assert/strict');
const { RedisStreamDelivery, STREAM_GROUP } = require('../../../dist/lib/delivery/stream');
const { RedisConnection, RedisUnavailableError } = require('../../../dist/lib/redis/connection');
const { RedisServer, redisAvailable } = require('../../support/redis-server');
const { until } = require('../../support');

function stateOf(connection, state) {
  if (connection.state === state) return Promise.resolve();
  return new Promise((resolve) => {
    const seen = (s) => {
      if (s !== state) return;
      connection.off('state', seen);
      resolve();
    };
    connection.on('state', seen);
  });
}

describe('lib/delivery RedisStreamDelivery (redis-server)', function () {
  this.timeout(30_000);
  let server;
  const open = [];

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start();
  });
  after(() => server?.close());
  afterEach(async () => {
    for (const item of open.splice(0)) await item.close();
  });

  async function connect(instance, extra = {}) {
    const connection = new RedisConnection({ url: server.url, prefix: 'unit:', instance, ...extra }, instance);
    open.push(connection);
    connection.open();
    await stateOf(connection, 'connected');
    return connection;
  }

  let streams = 0;
  async function delivery(connection, options = {}) {
    const opened = await RedisStreamDelivery.open({
      connection,
      name: options.name ?? `/s${streams++}`,
      maxEvents: 1000,
      maxBytes: 64 * 1024 * 1024,
      streamMaxEvents: 1000,
      streamMaxBytes: 64 * 1024 * 1024,
      claimAfterMs: 60_000,
      claimEveryMs: 3_600_000,
      ...options,
    });
    open.push(opened.delivery);
    return opened;
  }

  const body = (n) => Buffer.from(JSON.stringify({ publishType: 'x', n }));

  it('writes an event to the stream, pending for this instance, before it counts as taken; finishing removes it', async () => {
    const connection = await connect('a');
    const { delivery: d } = await delivery(connection);
    d.awaitCompletion = true;
    const id = await d.take({ kind: 'lpr' }, body(1), { n: 1 });
    assert.equal(typeof id, 'string');
    const client = connection.client;
    assert.equal(await client.xLen(d.key), 1);
    const pending = await client.xPendingRange(d.key, STREAM_GROUP, '-', '+', 10);
    assert.deepEqual(
      pending.map((p) => [p.id, p.consumer]),
      [[id, 'a']],
    );
    const [entry] = await client.xRange(d.key, id, id);
    assert.equal(entry.message.body, body(1).toString());
    assert.deepEqual(JSON.parse(entry.message.meta), { kind: 'lpr' });
    assert.equal(await client.get(`${d.key}:bytes`), String(body(1).length));

    d.emitted(id);
    assert.equal(d.pending.events, 1, 'waits for detection-done');
    assert.equal(d.complete(id), true);
    await waitFor(async () => (await client.xLen(d.key)) === 0);
    assert.equal((await client.xPending(d.key, STREAM_GROUP)).pending, 0);
    assert.equal(await client.get(`${d.key}:bytes`), '0');
    assert.equal(d.pending.events, 0);
  });

  it('finishes an event as soon as it is emitted when no detection-done waits', async () => {
    const connection = await connect('a');
    const { delivery: d } = await delivery(connection);
    const id = await d.take({}, body(2), {});
    d.emitted(id);
    await waitFor(async () => (await connection.client.xLen(d.key)) === 0);
  });

  it('reads the group’s pending count (XPENDING’s summary) across instances, into its stats', async () => {
    const a = await connect('a');
    const b = await connect('b');
    const { delivery: first } = await delivery(a, { name: '/group-pending' });
    const { delivery: second } = await delivery(b, { name: '/group-pending' });
    first.awaitCompletion = true;
    second.awaitCompletion = true;
    assert.equal('groupPending' in first.stats, false, 'absent until read');
    const one = await first.take({ kind: 'lpr' }, body(1), { n: 1 });
    await second.take({ kind: 'lpr' }, body(2), { n: 2 });
    await first.take({ kind: 'lpr' }, body(3), { n: 3 });
    assert.equal(await first.readGroupPending(), 3, 'every instance’s entries');
    assert.equal(first.stats.groupPending, 3);
    first.emitted(one);
    first.complete(one);
    await waitFor(async () => (await a.client.xLen(first.key)) === 2);
    assert.equal(await second.readGroupPending(), 2, 'a finished entry is no longer pending');
    assert.equal(second.stats.groupPending, 2);
  });

  it('refuses an event past the stream cap in entries or bytes, with BusyError (503), and takes it again once there is room', async () => {
    const a = await connect('a');
    const b = await connect('b');
    const name = '/capped';
    const { delivery: da } = await delivery(a, { name, streamMaxEvents: 2 });
    const { delivery: db } = await delivery(b, { name, streamMaxEvents: 2 });
    da.awaitCompletion = db.awaitCompletion = true;
    const first = await da.take({}, body(1), {});
    await db.take({}, body(2), {});
    await assert.rejects(da.take({}, body(3), {}), (err) => err.code === 'ERR_DELIVERY_BUSY' && err.reason === 'stream');
    await assert.rejects(db.take({}, body(3), {}), (err) => err.code === 'ERR_DELIVERY_BUSY', 'the cap is the stream’s, for every instance');
    da.complete(first);
    await waitFor(async () => (await a.client.xLen(da.key)) === 1);
    await db.take({}, body(3), {});

    const { delivery: small } = await delivery(a, { name: '/bytes', streamMaxBytes: 100 });
    small.awaitCompletion = true;
    await small.take({}, Buffer.alloc(60, 0x20), {});
    await assert.rejects(small.take({}, Buffer.alloc(60, 0x20), {}), (err) => err.reason === 'stream' && /bytes/.test(err.message));
  });

  it('claims what a dead instance left pending once it has been idle for claimAfterMs, and emits it with its body', async () => {
    const a = await connect('a');
    const b = await connect('b');
    const name = '/failover';
    const { delivery: dead } = await delivery(a, { name });
    dead.awaitCompletion = true;
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const id = await dead.take({ kind: 'lpr', n: i }, body(i), {});
      dead.emitted(id);
      ids.push(id);
    }
    await dead.close(); // and never finishes them
    const { delivery: quick } = await delivery(b, { name, claimAfterMs: 60_000 });
    assert.deepEqual(await quick.overdue(), [], 'not idle for a minute yet: nothing to claim');

    const { delivery: survivor } = await delivery(b, { name, claimAfterMs: 200 });
    survivor.awaitCompletion = true;
    let claimed = [];
    await waitFor(async () => (claimed = claimed.concat(await survivor.overdue())).length === 3);
    assert.deepEqual(
      claimed.map((r) => r.id),
      ids,
    );
    assert.deepEqual(
      claimed.map((r) => r.body.toString()),
      [0, 1, 2].map((i) => body(i).toString()),
    );
    assert.deepEqual(
      claimed.map((r) => r.meta.n),
      [0, 1, 2],
    );
    const pending = await b.client.xPendingRange(survivor.key, STREAM_GROUP, '-', '+', 10);
    assert.deepEqual(
      pending.map((p) => p.consumer),
      ['b', 'b', 'b'],
      'now the survivor’s',
    );
    for (const r of claimed) survivor.complete(r.id);
    await waitFor(async () => (await b.client.xLen(survivor.key)) === 0);
    assert.equal(await b.client.get(`${survivor.key}:bytes`), '0', 'bytes of claimed events are counted down too');
  });

  it('gives an instance that comes back under the same name its own pending events at once', async () => {
    const first = await connect('same');
    const name = '/restart';
    const { delivery: before } = await delivery(first, { name });
    before.awaitCompletion = true;
    const kept = await before.take({ kind: 'face' }, body(7), {});
    before.emitted(kept);
    const done = await before.take({ kind: 'face' }, body(8), {});
    before.emitted(done);
    before.complete(done);
    await waitFor(async () => (await first.client.xLen(before.key)) === 1);
    await before.close();

    const again = await connect('same');
    const { delivery: after, recovered } = await delivery(again, { name });
    assert.deepEqual(
      recovered.map((r) => [r.id, r.body.toString(), r.meta.kind]),
      [[kept, body(7).toString(), 'face']],
    );
    assert.equal(after.pending.events, 1);
    assert.deepEqual(
      (await after.unfinished()).map((r) => r.id),
      [kept],
      'due for redelivery',
    );
  });

  it('reads its own pending events back once Redis is reachable, when it was not at the start', async () => {
    const own = await RedisServer.start({ persist: true });
    try {
      const first = new RedisConnection({ url: own.url, prefix: 'unit:', maxReconnectDelayMs: 200 }, 'late');
      open.push(first);
      first.open();
      await stateOf(first, 'connected');
      const { delivery: before } = await delivery(first, { name: '/late' });
      before.awaitCompletion = true;
      const kept = await before.take({ kind: 'lpr' }, body(5), {});
      before.emitted(kept);
      await before.close();
      await first.close();
      await own.stop();

      // Node-RED starts while Redis is down: nothing to read back yet.
      const again = new RedisConnection({ url: own.url, prefix: 'unit:', maxReconnectDelayMs: 200 }, 'late');
      open.push(again);
      again.open();
      const { delivery: after, recovered } = await delivery(again, { name: '/late' });
      assert.deepEqual(recovered, []);
      const readBack = new Promise((resolve) => (after.onRecovered = resolve));
      await own.resume();
      assert.deepEqual(
        (await readBack).map((r) => r.id),
        [kept],
        'handed the events read back, to emit those alone',
      );
      assert.deepEqual(
        (await after.unfinished()).map((r) => [r.id, r.body.toString()]),
        [[kept, body(5).toString()]],
      );
    } finally {
      await own.close();
    }
  });

  it('a deploy: what the old flow finishes after its instance closed is written by the next one, never emitted again', async () => {
    const oldConnection = await connect('deployed');
    const { delivery: before } = await delivery(oldConnection, { name: '/deploy' });
    before.awaitCompletion = true;
    const late = await before.take({ kind: 'lpr' }, body(1), {});
    before.emitted(late);
    const early = await before.take({ kind: 'lpr' }, body(2), {});
    before.emitted(early);
    // the deploy: the instance closes, then its configuration node's connection
    await before.close();
    await oldConnection.close();
    assert.equal(before.complete(early), true, 'finished after close, before the next instance opened');

    const fresh = new RedisConnection({ url: server.url, prefix: 'unit:', instance: 'deployed' }, 'deployed');
    open.push(fresh);
    fresh.open();
    assert.equal(fresh.state, 'connecting');
    const { delivery: after, recovered } = await RedisStreamDelivery.open(
      {
        connection: fresh,
        name: '/deploy',
        maxEvents: 1000,
        maxBytes: 1 << 20,
        streamMaxEvents: 1000,
        streamMaxBytes: 1 << 20,
        claimAfterMs: 60_000,
        claimEveryMs: 3_600_000,
      },
      before,
    );
    open.push(after);
    assert.deepEqual(recovered, []);
    before.complete(late);
    const readBack = [];
    after.onRecovered = (records) => readBack.push(...records);
    const client = await connect('observer');
    await until(async () => (await client.client.xLen(after.key)) === 0, 5000, 'both completions written');
    assert.deepEqual(await after.unfinished(), [], 'nothing held for redelivery');
    assert.deepEqual(readBack, []);
  });

  it('refuses events at once while Redis is unreachable and writes completions it missed once it is back', async () => {
    const own = await RedisServer.start({ persist: true });
    try {
      const connection = new RedisConnection({ url: own.url, prefix: 'unit:', maxReconnectDelayMs: 200 }, 'down');
      open.push(connection);
      connection.open();
      await stateOf(connection, 'connected');
      const { delivery: d } = await delivery(connection, { name: '/down' });
      d.awaitCompletion = true;
      const id = await d.take({}, body(1), {});
      d.emitted(id);

      const down = stateOf(connection, 'unreachable');
      await own.stop();
      await down;
      assert.throws(() => d.checkRoom(10), RedisUnavailableError);
      await assert.rejects(d.take({}, body(2), {}), RedisUnavailableError);
      d.complete(id); // finished by the flow while Redis is away

      const up = stateOf(connection, 'connected');
      await own.resume();
      await up;
      await waitFor(async () => (await connection.client.xLen(d.key)) === 0);
      await d.take({}, body(3), {});
    } finally {
      await own.close();
    }
  });
});

/** Polls `check` until it holds: waiting on the state that proves it, bounded by the test's timeout. */
async function waitFor(check) {
  for (;;) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
