'use strict';
/**
 * The alarm book shared through a real redis-server (lib/alarm/redis-store.ts)
 * by several connections, as several Node-RED instances hold them: changes
 * made at once are each applied exactly once (compare-and-set, run again
 * after a conflict; given up after the tries allowed, not applied); a sweep
 * by two instances at once hands each reminder, the escalation and the quiet
 * close to one of them; every instance signs links with the secret made on
 * first use; events expire and are dropped; a damaged book is replaced, a
 * newer one refused; an unreachable Redis rejects.
 */
const assert = require('node:assert/strict');
const { RedisAlarms, AlarmBusyError } = require('../../../dist/lib/alarm/redis-store');
const { readLinkToken, makeLinkToken } = require('../../../dist/lib/alarm/link');
const { FormatTooNewError } = require('../../../dist/lib/core/file-format');
const { RedisConnection, RedisUnavailableError } = require('../../../dist/lib/redis/connection');
const { RedisServer, redisAvailable, redisClient } = require('../../support/redis-server');
const { until } = require('../../support');

const MIN = 60_000;
const DAY = 86_400_000;
const T0 = Date.parse('2026-03-01T22:00:00Z');
const BOOK = {
  remindMs: 5 * MIN,
  maxReminders: 2,
  escalateMs: 15 * MIN,
  quietMs: 60 * MIN,
  maxOpen: 100,
  urgentPierces: true,
  historyMax: 1000,
  historyMaxAgeMs: 30 * DAY,
};
const alert = (plate, camera = 'Gate 1') => ({ key: `lpr:${plate}`, label: plate, kind: 'lpr', camera, urgent: false });

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

describe('alarm book shared through Redis (redis-server)', function () {
  this.timeout(20_000);
  let server;
  let client;
  const connections = [];
  let n = 0;
  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start();
    client = await redisClient(server.url);
  });
  after(async () => {
    for (const c of connections) await c.close();
    await client?.close();
    await server?.close();
  });

  async function connect(url = server.url) {
    const connection = new RedisConnection({ url, prefix: 'alarms:', maxReconnectDelayMs: 200 }, `i${connections.length}`);
    connections.push(connection);
    connection.open();
    await stateOf(connection, 'connected');
    return connection;
  }
  /** Two instances' stores of one new book (a connection each), and the book's name. */
  async function twoStores(options = {}) {
    const name = `site${++n}`;
    const store = async () => new RedisAlarms(await connect(), { name, book: BOOK, ...options });
    return [await store(), await store(), name];
  }

  it('changes made at once by two instances: each applied exactly once, none lost, conflicts run again', async () => {
    const stores = (await twoStores()).slice(0, 2);
    let runs = 0;
    const results = [];
    // four at a time from each instance, 200 in all, every one a read of the same car
    const worker = async (store, count) => {
      for (let i = 0; i < count; i++) {
        results.push(
          await store.update((book) => {
            runs++;
            return book.raise(alert('AB123CD'), T0 + i);
          }),
        );
      }
    };
    await Promise.all(stores.flatMap((store) => [1, 2, 3, 4].map(() => worker(store, 25))));
    assert.equal(results.length, 200);
    assert.equal(results.filter((r) => r.outcome === 'opened').length, 1, 'one alarm, opened once');
    assert.deepEqual(
      results.map((r) => r.alarm.reads).sort((x, y) => x - y),
      Array.from({ length: 200 }, (_, i) => i + 1),
      'each change applied to the book the one before it left: reads 1 to 200, each once',
    );
    assert.ok(runs > 200, `changes ran again after conflicts (${runs} runs for 200 changes)`);
    const alarms = await stores[1].read((book) => book.alarms());
    assert.deepEqual(
      alarms.map((a) => [a.key, a.reads]),
      [['lpr:AB123CD', 200]],
    );
    assert.equal(await client.get(stores[0].redisKeys[1]), '200', 'one write per change');
  });

  it('a change that loses more often than allowed fails with ERR_ALARM_BUSY and is not applied', async () => {
    const [store] = await twoStores({ maxTries: 1 });
    // pipelined on one connection: every one loads the book before any writes it back
    const settled = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.update((book) => book.raise(alert('SAME1'), T0 + i))));
    const made = settled.filter((s) => s.status === 'fulfilled');
    const refused = settled.filter((s) => s.status === 'rejected').map((s) => s.reason);
    assert.ok(made.length >= 1 && refused.length >= 1, `${made.length} made, ${refused.length} refused`);
    for (const err of refused) {
      assert.ok(err instanceof AlarmBusyError);
      assert.equal(err.code, 'ERR_ALARM_BUSY');
      assert.match(err.message, /kept changing under this instance: the change was tried 1 time and not made/);
    }
    const [alarm] = await store.read((book) => book.alarms());
    assert.equal(alarm.reads, made.length, 'a refused change left no trace');
  });

  it('two instances sweeping at once: each reminder, the escalation and the quiet close go out once between them', async () => {
    const stores = (await twoStores()).slice(0, 2);
    const opened = await stores[0].update((book) => book.raise(alert('LATE99'), T0));
    const got = [[], []];
    for (let t = T0; t <= T0 + 70 * MIN; t += MIN) {
      const [a, b] = await Promise.all(stores.map((store) => store.update((book) => book.due(t))));
      got[0].push(...a);
      got[1].push(...b);
    }
    const all = [...got[0], ...got[1]];
    const what = (item) => (item.type === 'reminder' ? `reminder ${item.number}` : item.type);
    assert.deepEqual(all.map(what).sort(), ['closed', 'escalation', 'reminder 1', 'reminder 2']);
    assert.ok(all.every((item) => item.alarm.id === opened.alarm.id));
    const history = await stores[1].read((book) => book.history().map((h) => h.action));
    assert.deepEqual(history, ['closed', 'escalated', 'reminded', 'reminded', 'opened'], 'newest first');
  });

  it('the link secret: made on first use, the same in every instance; a read writes nothing', async () => {
    const [a, b, name] = await twoStores();
    assert.equal(await a.read((book) => book.size), 0);
    assert.equal(await client.exists(a.redisKeys), 0, 'reading a book nobody made writes nothing');
    assert.throws(() => a.secret, /has not been read from Redis yet/);
    await Promise.all([a.update((book) => book.raise(alert('ONE111'), T0)), b.update((book) => book.raise(alert('TWO222'), T0))]);
    assert.equal(a.secret.length >= 16, true);
    assert.equal(a.secret, b.secret, 'both sign with one secret');
    assert.equal(JSON.parse(await client.get(a.redisKeys[0])).secret, a.secret, 'the one kept with the book');
    const token = makeLinkToken(a.secret, 'al', 'abc12345', T0 + MIN);
    assert.equal(readLinkToken(b.secret, 'al', token, T0).ok, true, 'a link one instance sent works at the other');

    // a third instance, started later, learns it from reading
    const later = new RedisAlarms(await connect(), { name, book: BOOK });
    assert.equal(await later.read((book) => book.size), 2);
    assert.equal(later.secret, a.secret);
    // the user's own secret is used instead; the kept one stays
    const own = new RedisAlarms(await connect(), { name, book: BOOK, secret: 'x'.repeat(20) });
    await own.update((book) => book.raise(alert('THREE3'), T0));
    assert.equal(own.secret, 'x'.repeat(20));
    assert.equal(JSON.parse(await client.get(a.redisKeys[0])).secret, a.secret);
  });

  it('events: kept with an expiry (30 days unless told), dropped, and gone once expired', async () => {
    const [store] = await twoStores();
    await store.putEvent('abc12345', { plate: 'AB123CD' });
    assert.deepEqual(await store.getEvent('abc12345'), { plate: 'AB123CD' });
    const key = store.redisKeys[0].replace(/book$/, 'event:abc12345');
    const ttl = await client.pTTL(key);
    assert.ok(ttl > 30 * DAY - MIN && ttl <= 30 * DAY, `expires in 30 days (${ttl} ms)`);
    await store.dropEvents(['abc12345', 'other123']);
    assert.equal(await client.exists(key), 0);
    assert.equal(await store.getEvent('abc12345'), undefined);
    assert.equal(await store.getEvent('../book'), undefined, 'no key but an event’s is read');

    const [brief] = await twoStores({ eventTtlMs: 1000 });
    await brief.putEvent('short123', { plate: 'X' });
    const left = await client.pTTL(brief.redisKeys[0].replace(/book$/, 'event:short123'));
    assert.ok(left > 0 && left <= 1000, `expires within the time asked (${left} ms)`);
    await until(async () => (await brief.getEvent('short123')) === undefined, 5000, 'the event expired');
  });

  it('a damaged book is used as empty and replaced at the next change; a newer one is refused and left as it is', async () => {
    const damaged = [];
    const [store, , name] = await twoStores();
    const reporting = new RedisAlarms(await connect(), { name, book: BOOK, damaged: (err) => damaged.push(err) });
    await client.set(store.redisKeys[0], '{"v":1,"secret":"kept-secret-0123456789","alarms":"not a list"}');
    assert.equal(await reporting.read((book) => book.size), 0);
    assert.equal(damaged.length, 1);
    await reporting.update((book) => book.raise(alert('NEW123'), T0));
    assert.equal(reporting.secret, 'kept-secret-0123456789', 'the secret kept, so links already sent still work');
    assert.deepEqual(await store.read((book) => book.alarms().map((a) => a.label)), ['NEW123']);

    const newer = JSON.stringify({ v: 99, secret: 'x'.repeat(20) });
    await client.set(store.redisKeys[0], newer);
    await assert.rejects(
      reporting.update((book) => book.raise(alert('NEW456'), T0)),
      (err) => err instanceof FormatTooNewError,
    );
    assert.equal(await client.get(store.redisKeys[0]), newer);
  });

  it('Redis unreachable: update, read and events reject with RedisUnavailableError; back, they work again', async () => {
    const own = await RedisServer.start();
    try {
      const connection = await connect(own.url);
      const store = new RedisAlarms(connection, { name: 'down', book: BOOK });
      await store.update((book) => book.raise(alert('UP1234'), T0));
      await own.stop();
      await stateOf(connection, 'unreachable');
      const unavailable = (err) => err instanceof RedisUnavailableError && err.code === 'ERR_REDIS_UNAVAILABLE';
      await assert.rejects(
        store.update((book) => book.raise(alert('DOWN12'), T0)),
        unavailable,
      );
      await assert.rejects(
        store.read((book) => book.size),
        unavailable,
      );
      await assert.rejects(store.putEvent('abc12345', {}), unavailable);
      await own.resume();
      await stateOf(connection, 'connected');
      const result = await store.update((book) => book.raise(alert('BACK12'), T0));
      assert.equal(result.outcome, 'opened');
    } finally {
      await own.close();
    }
  });
});
