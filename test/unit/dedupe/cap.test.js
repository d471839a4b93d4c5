'use strict';
/**
 * The cap (lib/dedupe/cap.ts) and its digest, one table run against both
 * backends: the cap kept in this process (LocalCap) and the cap shared
 * through a real redis-server (RedisCap, lib/dedupe/redis-cap.ts). Time is
 * the test's: each check and claim is given `now` (the period's end is
 * compared with it, in Redis too: only the keys' expiry is Redis's own, a
 * day past the period).
 */
const assert = require('node:assert/strict');
const { LocalCap, DIGEST_MAX_KEYS, keepCap, takeOverCap, dropCap, isUrgent } = require('../../../dist/lib/dedupe/cap');
const { RedisCap } = require('../../../dist/lib/dedupe/redis-cap');
const { RedisConnection } = require('../../../dist/lib/redis/connection');
const { RedisServer, redisAvailable } = require('../../support/redis-server');

const T0 = Date.parse('2026-03-01T14:01:00.000Z');
const MINUTE = 60_000;
const iso = (ms) => new Date(ms).toISOString();

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

async function connect(url) {
  const connection = new RedisConnection({ url, prefix: 'captest:' }, 'unit');
  connection.open();
  await stateOf(connection, 'connected');
  return connection;
}

const backends = [
  {
    name: 'local cap',
    async setup() {},
    async teardown() {},
    make(settings) {
      return new LocalCap({ maxKeys: 1000, ...settings });
    },
  },
  {
    name: 'shared cap (redis-server)',
    async setup() {
      this.server = await RedisServer.start();
      this.connection = await connect(this.server.url);
      this.count = 0;
    },
    async teardown() {
      await this.connection?.close();
      await this.server?.close();
    },
    make(settings) {
      return new RedisCap(this.connection, `cap${this.count++}`, { maxKeys: 1000, ...settings });
    },
  },
];

for (const backend of backends) {
  describe(`dedupe cap: ${backend.name}`, function () {
    before(async function () {
      if (backend.name.startsWith('shared') && !redisAvailable()) {
        console.log('      (redis-server is not installed: apt-get install -y redis-server)');
        this.skip();
      }
      await backend.setup();
    });
    after(() => backend.teardown());

    it('overall: a burst of 1,000 gives 5 passes, and at the period’s end one digest of the 995 held, the keys listed bounded', async () => {
      const cap = backend.make({ count: 5, periodMs: MINUTE, per: 'all' });
      const decisions = await Promise.all(Array.from({ length: 1000 }, (_, i) => cap.check(`m${i}`, T0 + i)));
      assert.deepEqual(decisions.filter((d) => d.pass).length, 5, 'five pass');
      assert.ok(
        decisions.slice(0, 5).every((d) => d.pass),
        'the first five, in the order asked',
      );
      assert.ok(decisions.every((d) => d.end === T0 + MINUTE && !d.digest));
      assert.equal(decisions[999].held, 995);

      assert.deepEqual(await cap.claim(T0 + MINUTE - 1), { running: { end: T0 + MINUTE, held: 995 } }, 'before its end: still running');
      const { digest } = await cap.claim(T0 + MINUTE);
      assert.equal(digest.held, 995);
      assert.equal(digest.passed, 5);
      assert.equal(digest.start, iso(T0));
      assert.equal(digest.end, iso(T0 + MINUTE));
      assert.deepEqual(digest.cap, { count: 5, periodMs: MINUTE, per: 'all' });
      assert.equal(digest.keys.length, DIGEST_MAX_KEYS, `at most ${DIGEST_MAX_KEYS} keys listed`);
      assert.equal(digest.notListed, 995 - DIGEST_MAX_KEYS, 'the rest counted');
      assert.deepEqual(digest.keys[0], { key: 'm5', held: 1, first: iso(T0 + 5), last: iso(T0 + 5) }, 'the first held first (equal counts)');
      assert.deepEqual(await cap.claim(T0 + MINUTE), {}, 'claimed once');
    });

    it('per key: each key has its count; the digest lists the keys held, most held first, with first and last times', async () => {
      const cap = backend.make({ count: 2, periodMs: MINUTE, per: 'key' });
      const seq = [
        ['A', 0],
        ['A', 1000],
        ['B', 2000],
        ['A', 3000],
        ['B', 4000],
        ['B', 5000],
        ['A', 6000],
        [null, 7000],
        [null, 8000],
        [null, 9000],
      ];
      const passed = [];
      for (const [key, at] of seq) if ((await cap.check(key, T0 + at)).pass) passed.push(key);
      assert.deepEqual(passed, ['A', 'A', 'B', 'B', null, null]);
      const { digest } = await cap.claim(T0 + MINUTE + 1);
      assert.equal(digest.held, 4);
      assert.equal(digest.passed, 6);
      assert.deepEqual(digest.keys, [
        { key: 'A', held: 2, first: iso(T0 + 3000), last: iso(T0 + 6000) },
        { key: 'B', held: 1, first: iso(T0 + 5000), last: iso(T0 + 5000) },
        { key: null, held: 1, first: iso(T0 + 9000), last: iso(T0 + 9000) },
      ]);
      assert.equal(digest.notListed, 0);
    });

    it('a period starts with the first message after the last one ended; a check after an end nobody claimed takes its digest', async () => {
      const cap = backend.make({ count: 1, periodMs: MINUTE, per: 'all' });
      assert.equal((await cap.check('a', T0)).pass, true);
      assert.equal((await cap.check('b', T0 + 10_000)).pass, false);
      // no claim at the end (no instance had a timer): the next check, later, takes the digest
      const next = await cap.check('c', T0 + 5 * MINUTE);
      assert.equal(next.pass, true, 'a new period: counted afresh');
      assert.equal(next.end, T0 + 6 * MINUTE, 'which ends one period after its first message');
      assert.equal(next.digest.held, 1);
      assert.equal(next.digest.end, iso(T0 + MINUTE), 'the digest of the period that ended, with its own times');
      assert.deepEqual(await cap.claim(T0 + 6 * MINUTE), {}, 'the new period held nothing: no digest');
      assert.deepEqual(await cap.claim(T0 + 6 * MINUTE), {}, 'and no period runs');
    });

    for (const per of ['all', 'key']) {
      it(`urgent messages (${per === 'all' ? 'overall' : 'per key'}): pass whatever the count, do not use it up, start a period, and are counted apart in the digest`, async () => {
        const cap = backend.make({ count: 2, periodMs: MINUTE, per });
        const seq = [
          ['u1', 0, true], // no period runs: an urgent message starts one
          ['A', 1000, false],
          ['A', 2000, false],
          ['u2', 3000, true], // the count is used up (overall, and A's per key): passes all the same
          ['A', 4000, false], // held: the urgent ones did not use up the count
          ['u2', 5000, true],
        ];
        const passed = [];
        for (const [key, at, urgent] of seq) {
          const decision = await cap.check(key, T0 + at, urgent);
          assert.equal(decision.end, T0 + MINUTE, 'one period, from the first urgent message');
          if (decision.pass) passed.push(key);
        }
        assert.deepEqual(passed, ['u1', 'A', 'A', 'u2', 'u2']);
        const { digest } = await cap.claim(T0 + MINUTE);
        assert.equal(digest.passed, 2, 'passed: the messages counted against the cap');
        assert.equal(digest.urgent, 3);
        assert.equal(digest.held, 1);
        assert.deepEqual(
          digest.keys.map((k) => [k.key, k.held]),
          [['A', 1]],
        );
      });
    }

    it('a period of urgent messages only holds nothing: no digest; an ordinary digest says urgent 0', async () => {
      const cap = backend.make({ count: 1, periodMs: MINUTE, per: 'all' });
      for (let i = 0; i < 5; i++) assert.equal((await cap.check(`u${i}`, T0 + i, true)).pass, true);
      assert.deepEqual(await cap.claim(T0 + MINUTE), {});
      await cap.check('a', T0 + 2 * MINUTE);
      await cap.check('b', T0 + 2 * MINUTE + 1);
      const { digest } = await cap.claim(T0 + 3 * MINUTE);
      assert.deepEqual([digest.passed, digest.urgent, digest.held], [1, 0, 1]);
    });

    it('a period that held nothing ends without a digest', async () => {
      const cap = backend.make({ count: 3, periodMs: MINUTE, per: 'all' });
      for (let i = 0; i < 3; i++) assert.equal((await cap.check(`k${i}`, T0 + i)).pass, true);
      assert.deepEqual(await cap.claim(T0 + MINUTE - 1), { running: { end: T0 + MINUTE, held: 0 } });
      assert.deepEqual(await cap.claim(T0 + MINUTE), {});
    });
  });
}

describe('dedupe cap shared through Redis: two instances on their own connections', function () {
  let server;
  let connections = [];
  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start();
    connections = [await connect(server.url), await connect(server.url)];
  });
  after(async () => {
    for (const c of connections) await c.close();
    await server?.close();
  });

  it('let N through per period between them, and exactly one of them gets the digest', async () => {
    const settings = { count: 5, periodMs: MINUTE, per: 'all', maxKeys: 1000 };
    const [a, b] = connections.map((c) => new RedisCap(c, 'site', settings));
    const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).check(`m${i}`, T0 + i)));
    assert.equal(decisions.filter((d) => d.pass).length, 5, 'five between both');
    // The checks reach Redis in any order over two connections, so the period starts with whichever
    // of them came first (T0 to T0 + 199): claimed once it has surely ended.
    const end = T0 + 199 + MINUTE;
    const claims = await Promise.all([a.claim(end), b.claim(end), a.claim(end), b.claim(end)]);
    const digests = claims.filter((c) => c.digest).map((c) => c.digest);
    assert.equal(digests.length, 1, 'one digest');
    assert.equal(digests[0].held, 195);
    assert.equal(digests[0].passed, 5);
  });
});

describe('dedupe cap: urgent messages', () => {
  it('are those whose msg.priority is the string urgent or high, in any case, spaces around ignored', () => {
    for (const p of ['urgent', 'high', 'URGENT', ' High ', '\tuRgEnT\n']) assert.equal(isUrgent(p), true, JSON.stringify(p));
    for (const p of [undefined, null, '', 'normal', 'low', 'highest', 'very urgent', 1, true, ['urgent'], { urgent: true }])
      assert.equal(isUrgent(p), false, JSON.stringify(p));
  });

  it('a shared period an older release started (no urgent field) gives a digest with urgent 0', async function () {
    if (!redisAvailable()) this.skip();
    const server = await RedisServer.start();
    const connection = await connect(server.url);
    try {
      const cap = new RedisCap(connection, 'old', { count: 1, periodMs: MINUTE, per: 'all', maxKeys: 10 });
      await cap.check('a', T0);
      await cap.check('b', T0 + 1);
      await connection.client.hDel(connection.key('dedupe-cap', 'old', 'period'), 'urgent');
      const { digest } = await cap.claim(T0 + MINUTE);
      assert.deepEqual([digest.passed, digest.urgent, digest.held], [1, 0, 1]);
    } finally {
      await connection.close();
      await server.close();
    }
  });
});

describe('dedupe cap kept in this process: bounds and deploys', () => {
  it('per key, counts at most maxKeys keys at once (the oldest count forgotten)', () => {
    const cap = new LocalCap({ count: 1, periodMs: MINUTE, per: 'key', maxKeys: 3 });
    for (let i = 0; i < 50; i++) cap.decide(`k${i}`, T0 + i);
    assert.equal(cap.running.counts.size, 3);
    assert.deepEqual([...cap.running.counts.keys()], ['k47', 'k48', 'k49']);
    assert.equal(cap.decide('k49', T0 + 60).pass, false, 'a key still counted is held');
    assert.equal(cap.decide('k0', T0 + 61).pass, true, 'a forgotten one passes again');
  });

  it('the digest’s list is bounded whatever arrives', () => {
    const cap = new LocalCap({ count: 1, periodMs: MINUTE, per: 'all', maxKeys: 10 });
    for (let i = 0; i < 20_000; i++) cap.decide(`k${i}`, T0 + (i % 1000));
    assert.equal(cap.running.heldKeys.size, DIGEST_MAX_KEYS);
    const { digest } = cap.claimNow(T0 + MINUTE);
    assert.equal(digest.held + digest.passed, 20_000);
    assert.equal(digest.keys.length + digest.notListed, digest.held);
  });

  it('carries the running period to the node’s next instance, under its new settings', () => {
    const settings = { count: 5, periodMs: MINUTE, per: 'key', maxKeys: 10 };
    const first = takeOverCap('n1', settings);
    for (let i = 0; i < 7; i++) first.decide('A', T0 + i * 1000);
    keepCap('n1', first);
    const second = takeOverCap('n1', settings);
    assert.equal(second.decide('A', T0 + 10_000).pass, false, 'A still at its cap after the deploy');
    assert.equal(second.claimNow(T0 + 20_000).running.held, 3);
    keepCap('n1', second);
    // a shorter period and counted overall: the end moves, the counts start afresh, what was held stays
    const third = takeOverCap('n1', { ...settings, periodMs: 30_000, per: 'all' });
    assert.equal(third.decide('B', T0 + 20_000).pass, true);
    assert.equal(third.decide('C', T0 + 21_000).end, T0 + 30_000);
    keepCap('n1', third);
    const left = dropCap('n1');
    assert.equal(left.held, 3, 'a node removed says what its period held');
    assert.equal(dropCap('n1'), undefined);
    assert.equal(takeOverCap('n1', settings).running, undefined, 'nothing kept once dropped');
  });
});
