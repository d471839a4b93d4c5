'use strict';
/**
 * The dedupe window's behaviour, one table run against both backends: the
 * local window (lib/dedupe/local-window.ts) and the window shared through a real
 * redis-server (lib/dedupe/redis-window.ts). Time is the test's: the local
 * window is given `now`; Redis's own expiry is moved forward by shortening
 * every key's time to live by the same amount (PTTL, then PEXPIRE or DEL).
 */
const assert = require('node:assert/strict');
const { RedisSeenKeys } = require('../../../dist/lib/dedupe/redis-window');
const { LocalSeenKeys } = require('../../../dist/lib/dedupe/seen-keys');
const { RedisConnection, RedisUnavailableError } = require('../../../dist/lib/redis/connection');
const { RedisServer, redisAvailable, holdingProxy } = require('../../support/redis-server');

/** Waits until `connection` reaches `state` (an event, not a timer). */
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

async function connect(url, options = {}) {
  const connection = new RedisConnection({ url, prefix: options.prefix ?? 'test:', ...options }, options.instance ?? 'unit');
  connection.open();
  await stateOf(connection, 'connected');
  return connection;
}

/** The backends: each makes windows and moves their time. */
const backends = [
  {
    name: 'local window',
    async setup() {},
    async teardown() {},
    make(options) {
      let now = 0;
      const keys = new LocalSeenKeys({ maxKeys: 1e6, ...options });
      return {
        keys,
        now: () => now,
        check: (key, mark, read) => keys.check(key, now, mark, read),
        advance: async (ms) => {
          now += ms;
        },
      };
    },
  },
  {
    name: 'shared window (redis-server)',
    async setup() {
      this.server = await RedisServer.start();
      this.connection = await connect(this.server.url);
      this.count = 0;
    },
    async teardown() {
      await this.connection?.close();
      await this.server?.close();
    },
    make(options) {
      let now = 1_700_000_000_000;
      const connection = this.connection;
      const keys = new RedisSeenKeys(connection, { name: `w${this.count++}`, ...options });
      const pattern = `${keys.keyOf('')}*`;
      return {
        keys,
        now: () => now,
        check: (key, mark, read) => keys.check(key, now, mark, read),
        advance: async (ms) => {
          now += ms;
          for await (const batch of connection.client.scanIterator({ MATCH: pattern, COUNT: 1000 })) {
            for (const key of batch) {
              const left = await connection.client.pTTL(key);
              if (left < 0) continue;
              if (left <= ms) await connection.client.del(key);
              else await connection.client.pExpire(key, left - ms);
            }
          }
        },
      };
    },
  },
];

for (const backend of backends) {
  describe(`dedupe behaviour: ${backend.name}`, function () {
    before(async function () {
      if (backend.name.startsWith('shared') && !redisAvailable()) {
        console.log('      (redis-server is not installed: apt-get install -y redis-server)');
        this.skip();
      }
      await backend.setup();
    });
    after(() => backend.teardown());

    // Windows of a minute, moved by tens of seconds: the real time a test takes (Redis counts
    // it too) stays far from every boundary.
    it('passes the first sighting and drops repeats inside the window', async () => {
      const w = backend.make({ ttlMs: 60_000 });
      const start = w.now();
      assert.deepEqual(await w.check('a'), { duplicate: false });
      await w.advance(30_000);
      assert.deepEqual(await w.check('a'), { duplicate: true, since: start });
      assert.deepEqual(await w.check('b'), { duplicate: false });
      await w.advance(25_000);
      assert.deepEqual(await w.check('a'), { duplicate: true, since: start });
    });

    it('forgets a key once its window has passed', async () => {
      const w = backend.make({ ttlMs: 60_000 });
      await w.check('a');
      await w.advance(20_000);
      await w.check('b');
      await w.advance(45_000);
      assert.deepEqual(await w.check('a'), { duplicate: false }, 'a passes again once its window ended');
      assert.equal((await w.check('b')).duplicate, true, 'b is still inside its window');
    });

    it('restarts a key on every repeat in sliding mode', async () => {
      const w = backend.make({ ttlMs: 60_000, refreshOnRepeat: true });
      const start = w.now();
      await w.check('plate@gate');
      await w.advance(50_000);
      assert.deepEqual(await w.check('plate@gate'), { duplicate: true, since: start });
      await w.advance(50_000);
      assert.deepEqual(await w.check('plate@gate'), { duplicate: true, since: start + 50_000 }, 'still quiet: seen 50 s ago');
      await w.advance(70_000);
      assert.deepEqual(await w.check('plate@gate'), { duplicate: false }, 'passes after a quiet window');
    });

    it('keeps a fixed window from the first sighting however often the key repeats', async () => {
      const w = backend.make({ ttlMs: 60_000 });
      await w.check('k');
      for (let i = 0; i < 3; i++) {
        await w.advance(18_000);
        assert.equal((await w.check('k')).duplicate, true);
      }
      await w.advance(10_000);
      assert.deepEqual(await w.check('k'), { duplicate: false }, 'the repeats did not extend the window');
    });

    it('keeps the delivery mark of the message that let a key through, in a fixed and a sliding window', async () => {
      for (const refreshOnRepeat of [false, true]) {
        const w = backend.make({ ttlMs: 60_000, refreshOnRepeat });
        const start = w.now();
        assert.deepEqual(await w.check('k', 'in1/1700000000000-0'), { duplicate: false });
        await w.advance(10_000);
        assert.deepEqual(await w.check('k', 'in1/2'), { duplicate: true, since: start, by: 'in1/1700000000000-0' });
        await w.advance(10_000);
        const third = await w.check('k', 'in1/3');
        assert.equal(third.by, 'in1/1700000000000-0', 'a repeat does not replace it');
        assert.equal(third.since, refreshOnRepeat ? start + 10_000 : start);
        assert.deepEqual(await w.check('plain'), { duplicate: false });
        assert.deepEqual(await w.check('plain', 'in1/4'), { duplicate: true, since: w.now() }, 'passed without a mark: none');
      }
    });

    it('keeps the plate as read by the message that let a key through, with a mark or without, in a fixed and a sliding window', async () => {
      for (const refreshOnRepeat of [false, true]) {
        const w = backend.make({ ttlMs: 60_000, refreshOnRepeat });
        const start = w.now();
        assert.deepEqual(await w.check('A8C123', 'in1/1', 'ABC123'), { duplicate: false });
        assert.deepEqual(await w.check('808123', undefined, '8OB 123'), { duplicate: false });
        await w.advance(10_000);
        assert.deepEqual(await w.check('A8C123', 'in1/2', 'A8C123'), { duplicate: true, since: start, by: 'in1/1', read: 'ABC123' });
        assert.deepEqual(
          await w.check('808123', 'in1/3', '80B123'),
          { duplicate: true, since: start, read: '8OB 123' },
          'no mark, a space in the plate',
        );
        await w.advance(10_000);
        const third = await w.check('A8C123', 'in1/4', 'A8C-123');
        assert.deepEqual([third.by, third.read], ['in1/1', 'ABC123'], 'a repeat replaces neither');
        assert.equal(third.since, refreshOnRepeat ? start + 10_000 : start);
        assert.deepEqual(await w.check('long', undefined, 'X'.repeat(33)), { duplicate: false });
        assert.deepEqual(await w.check('long'), { duplicate: true, since: w.now() }, 'a read past 32 characters is not kept');
      }
    });

    it('forgets every key on clear', async () => {
      const w = backend.make({ ttlMs: 60_000 });
      for (const key of ['a', 'b', 'c*', 'd[1]']) await w.check(key);
      await w.keys.clear();
      for (const key of ['a', 'b', 'c*', 'd[1]']) assert.deepEqual(await w.check(key), { duplicate: false }, key);
    });

    it('passes a key exactly once when many checks of it run at the same moment', async () => {
      const w = backend.make({ ttlMs: 60_000 });
      const results = await Promise.all(Array.from({ length: 50 }, () => w.check('same')));
      assert.equal(results.filter((r) => !r.duplicate).length, 1);
    });

    it('behaves like a simple reference model over many random operations', async function () {
      this.timeout(60_000);
      let seed = 7;
      const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
      for (const refreshOnRepeat of [false, true]) {
        // Ages are multiples of 10 s and the window 55 s: never within 5 s of its end.
        const ttlMs = 55_000;
        const w = backend.make({ ttlMs, refreshOnRepeat });
        let model = new Map();
        for (let op = 0; op < 600; op++) {
          const step = Math.floor(random() * 4) * 10_000;
          if (step > 0) await w.advance(step);
          const now = w.now();
          for (const [k, since] of model) if (now - since >= ttlMs) model.delete(k);
          const key = `k${Math.floor(random() * 20)}`;
          const since = model.get(key);
          const expected = since === undefined ? { duplicate: false } : { duplicate: true, since };
          if (since === undefined || refreshOnRepeat) model.set(key, now);
          assert.deepEqual(await w.check(key), expected, `op ${op} (${refreshOnRepeat ? 'sliding' : 'fixed'})`);
        }
      }
    });
  });
}

describe('shared window through Redis', function () {
  let server;
  before(async function () {
    if (!redisAvailable()) this.skip();
    server = await RedisServer.start();
  });
  after(() => server?.close());

  it('two instances checking the same 1,000 keys at the same moment pass each exactly once', async () => {
    const [a, b] = await Promise.all([connect(server.url, { instance: 'a' }), connect(server.url, { instance: 'b' })]);
    try {
      const wa = new RedisSeenKeys(a, { name: 'both', ttlMs: 60_000 });
      const wb = new RedisSeenKeys(b, { name: 'both', ttlMs: 60_000 });
      const keys = Array.from({ length: 1000 }, (_, i) => `m${i}`);
      const [ra, rb] = await Promise.all([Promise.all(keys.map((k) => wa.check(k, 1))), Promise.all(keys.map((k) => wb.check(k, 2)))]);
      for (let i = 0; i < keys.length; i++) {
        assert.equal(Number(!ra[i].duplicate) + Number(!rb[i].duplicate), 1, `${keys[i]} passed once in total`);
      }
      assert.ok(ra.some((r) => !r.duplicate) || rb.some((r) => !r.duplicate), 'both instances took part');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('reads a value written before plates were kept (no tab) as before', async () => {
    const connection = await connect(server.url);
    try {
      for (const refreshOnRepeat of [false, true]) {
        const keys = new RedisSeenKeys(connection, { name: `old-values-${refreshOnRepeat}`, ttlMs: 60_000, refreshOnRepeat });
        await connection.client.set(keys.keyOf('a'), '1700000000000 in1/5');
        await connection.client.set(keys.keyOf('b'), '1700000000000');
        assert.deepEqual(await keys.check('a', 1_700_000_001_000, 'in1/6', 'ABC123'), { duplicate: true, since: 1_700_000_000_000, by: 'in1/5' });
        assert.deepEqual(await keys.check('b', 1_700_000_001_000, 'in1/6', 'ABC123'), { duplicate: true, since: 1_700_000_000_000 });
      }
    } finally {
      await connection.close();
    }
  });

  it('gives each key the window as its time to live in Redis', async () => {
    const connection = await connect(server.url);
    try {
      const w = new RedisSeenKeys(connection, { name: 'ttl', ttlMs: 30_000 });
      const now = Date.now();
      await w.check('x', now);
      const left = await connection.client.pTTL(w.keyOf('x'));
      assert.ok(left > 0 && left <= 30_000, `PTTL ${left}`);
      assert.equal(await connection.client.get(w.keyOf('x')), String(now), 'the value is when the window started');
    } finally {
      await connection.close();
    }
  });

  it('clears one window without touching another whose name starts with it', async () => {
    const connection = await connect(server.url);
    try {
      const a = new RedisSeenKeys(connection, { name: 'gate', ttlMs: 60_000 });
      const ab = new RedisSeenKeys(connection, { name: 'gate:north', ttlMs: 60_000 });
      await a.check('k', 1);
      await ab.check('k', 1);
      await a.clear();
      assert.deepEqual(await a.check('k', 2), { duplicate: false });
      assert.equal((await ab.check('k', 2)).duplicate, true, 'window "gate:north" kept its keys');
    } finally {
      await connection.close();
    }
  });

  it('sends a burst of checks without waiting for each answer (one round trip per batch)', async () => {
    const total = 200;
    const proxy = await holdingProxy(server.port, total);
    const connection = await connect(proxy.url);
    try {
      const w = new RedisSeenKeys(connection, { name: 'burst', ttlMs: 60_000 });
      const results = await Promise.all(Array.from({ length: total }, (_, i) => w.check(`b${i}`, 1)));
      assert.equal(results.filter((r) => !r.duplicate).length, total);
      assert.equal(proxy.seen(), total);
    } finally {
      await connection.close();
      await proxy.close();
    }
  });

  it('a check while a new connection makes its first connect (a deploy) waits for it; an unreachable Redis still fails it', async () => {
    const fresh = new RedisConnection({ url: server.url, prefix: 'test:' }, 'fresh');
    const down = new RedisConnection({ url: 'redis://127.0.0.1:1', prefix: 'test:', maxReconnectDelayMs: 200 }, 'down');
    try {
      fresh.open();
      down.open();
      assert.equal(fresh.state, 'connecting');
      const w = new RedisSeenKeys(fresh, { name: 'first-connect', ttlMs: 60_000 });
      const checks = await Promise.all([w.check('k', 1), w.check('k', 2)]);
      assert.deepEqual(checks[0], { duplicate: false }, 'checked in Redis, not refused');
      assert.equal(checks[1].duplicate, true);
      await assert.rejects(new RedisSeenKeys(down, { name: 'x', ttlMs: 1000 }).check('k', 1), (err) => err instanceof RedisUnavailableError);
      assert.equal(down.state, 'unreachable');
    } finally {
      await fresh.close();
      await down.close();
    }
  });

  it('fails a check at once while Redis is unreachable, and works again when it is back', async function () {
    this.timeout(30_000);
    const own = await RedisServer.start();
    const connection = await connect(own.url, { maxReconnectDelayMs: 200 });
    try {
      const w = new RedisSeenKeys(connection, { name: 'down', ttlMs: 60_000 });
      assert.deepEqual(await w.check('before', 1), { duplicate: false });
      const down = stateOf(connection, 'unreachable');
      await own.stop();
      await down;
      await assert.rejects(w.check('during', 2), (err) => err instanceof RedisUnavailableError);
      const up = stateOf(connection, 'connected');
      await own.resume();
      await up;
      assert.deepEqual(await w.check('after', 3), { duplicate: false });
      assert.equal((await w.check('after', 4)).duplicate, true);
    } finally {
      await connection.close();
      await own.close();
    }
  });
});
