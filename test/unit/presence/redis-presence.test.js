'use strict';
/**
 * Presence shared through a real redis-server by several connections (as
 * several Node-RED instances hold them): each arrival, departure and
 * still-here is decided once, whichever connection sees the key or sweeps;
 * a Redis that is down fails at once; names do not reach each other.
 */
const assert = require('node:assert/strict');
const { RedisPresence } = require('../../../dist/lib/presence/redis-presence');
const { RedisConnection } = require('../../../dist/lib/redis/connection');
const { RedisServer, redisAvailable } = require('../../support/redis-server');

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T08:00:00Z');
const OPTIONS = { awayMs: 10 * MIN, stillHereMs: 30 * MIN, maxKeys: 10_000 };
const plate = (key, time) => ({ id: `lpr:${key}`, key, kind: 'lpr', label: key, camera: 'Gate 1', time, exit: false });

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

describe('presence shared through Redis (redis-server)', function () {
  this.timeout(20_000);
  let server;
  const connections = [];
  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start();
  });
  after(async () => {
    for (const c of connections) await c.close();
    await server?.close();
  });

  async function connect(prefix = 'shared:') {
    const connection = new RedisConnection({ url: server.url, prefix, maxReconnectDelayMs: 200 }, `i${connections.length}`);
    connections.push(connection);
    connection.open();
    await stateOf(connection, 'connected');
    return connection;
  }

  it('two instances: each key arrives once, departs once and is still here once, seen and swept by both at once', async () => {
    const a = new RedisPresence(await connect(), { name: 'site', ...OPTIONS });
    const b = new RedisPresence(await connect(), { name: 'site', ...OPTIONS });
    const keys = Array.from({ length: 200 }, (_, i) => `P${i}`);
    // every key seen by both instances, issued together, over 40 minutes
    const outcomes = [];
    for (let m = 0; m <= 40; m += 5) {
      const now = T0 + m * MIN;
      const results = await Promise.all(keys.flatMap((key) => [a.sight(plate(key, now), now), b.sight(plate(key, now), now)]));
      outcomes.push(...results.map((r) => r.outcome));
      // both sweep every 5 minutes too
      const swept = await Promise.all([a.sweep(now), b.sweep(now)]);
      outcomes.push(...swept.flatMap((s) => s.events.map((e) => e.state)));
    }
    const end = T0 + 2 * 60 * MIN;
    const last = await Promise.all([a.sweep(end), b.sweep(end), a.sweep(end), b.sweep(end)]);
    const events = last.flatMap((s) => s.events);
    outcomes.push(...events.map((e) => e.state));
    const count = (what) => outcomes.filter((o) => o === what).length;
    assert.equal(count('arrived'), keys.length, 'each key arrived once between them');
    assert.equal(count('still-here'), keys.length, 'still here once');
    assert.equal(count('left'), keys.length, 'left once');
    assert.deepEqual([...new Set(events.map((e) => e.entry.key))].sort(), [...keys].sort());
    assert.ok(
      events.every((e) => e.due === T0 + 50 * MIN && e.entry.sightings === 18),
      'every sighting of both counted, departure at last seen + away',
    );
    assert.equal(last[3].present, 0);
    assert.deepEqual(await a.list(), []);
  });

  it('more due at once than one batch: a sweep takes them all, in order', async () => {
    const p = new RedisPresence(await connect(), { name: 'batch', ...OPTIONS, stillHereMs: 0 });
    for (let i = 0; i < 250; i++) await p.sight(plate(`B${i}`, T0 + i), T0 + i);
    const swept = await p.sweep(T0 + 60 * MIN);
    assert.equal(swept.events.length, 250);
    assert.deepEqual(
      swept.events.map((e) => e.due),
      Array.from({ length: 250 }, (_, i) => T0 + 10 * MIN + i),
    );
  });

  it('names are kept apart, with what a key name may not hold escaped', async () => {
    const connection = await connect('apart:');
    const a = new RedisPresence(connection, { name: 'a', ...OPTIONS });
    const ab = new RedisPresence(connection, { name: 'a:b}', ...OPTIONS });
    await a.sight(plate('X', T0), T0);
    assert.deepEqual(await ab.list(), []);
    assert.deepEqual(ab.redisKeys, ['apart:presence:{a%3Ab%7D}:state', 'apart:presence:{a%3Ab%7D}:away', 'apart:presence:{a%3Ab%7D}:still']);
    await a.clear();
    assert.deepEqual(await a.list(), []);
  });

  it('Redis down: a sighting and a sweep fail at once with the connection’s error, and work again once it is back', async () => {
    const connection = await connect('down:');
    const p = new RedisPresence(connection, { name: 'down', ...OPTIONS });
    await p.sight(plate('D1', T0), T0);
    await server.stop();
    await stateOf(connection, 'unreachable');
    await assert.rejects(p.sight(plate('D1', T0 + MIN), T0 + MIN), (err) => err.code === 'ERR_REDIS_UNAVAILABLE');
    await assert.rejects(p.sweep(T0 + MIN), (err) => err.code === 'ERR_REDIS_UNAVAILABLE');
    await server.resume();
    await stateOf(connection, 'connected');
    // the server started empty (no persistence): D1 arrives again
    assert.equal((await p.sight(plate('D1', T0 + 2 * MIN), T0 + 2 * MIN)).outcome, 'arrived');
  });
});
