'use strict';
/**
 * A Redis that restarts with data accepts connections at once but answers
 * LOADING to nearly every command until its data is in memory, seconds or
 * minutes later (lib/redis/connection.ts): the connection is unreachable until
 * then, with that as the reason, and connected only once commands work. A real
 * redis-server, its loading slowed (SLOW_LOAD) so that it lasts about 4 s.
 */
const assert = require('node:assert/strict');
const { RedisConnection, RedisUnavailableError } = require('../../../dist/lib/redis/connection');
const { RedisServer, redisAvailable, redisClient, saveData, SLOW_LOAD } = require('../../support/redis-server');
const { until } = require('../../support');

describe('lib/redis connection: a Redis still loading its data (redis-server)', function () {
  this.timeout(60_000);
  let server;
  const open = [];

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start();
    const client = await redisClient(server.url);
    await saveData(client);
    await client.quit();
  });
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
  });
  after(async () => {
    await server?.close();
  });

  /** Restarts the server with its saved data; resolved once it answers, still loading. */
  async function restartLoading() {
    await server.stop();
    await server.resume({ args: SLOW_LOAD, loaded: false });
  }

  function connect() {
    const connection = new RedisConnection({ url: server.url, maxReconnectDelayMs: 200 }, 'test');
    open.push(connection);
    return connection;
  }

  it('opened while Redis loads: unreachable with the reason, commands refused; connected once a command works', async () => {
    await restartLoading();
    const connection = connect();
    const seen = [];
    connection.on('state', (state) => seen.push(state));
    connection.open();
    await connection.settled();
    assert.equal(connection.state, 'unreachable', 'not connected while loading');
    assert.equal(connection.loading, true);
    assert.match(connection.error.message, /^Redis is loading its data into memory \(\d+% done\)$/);
    await assert.rejects(connection.whenReady(), (err) => err instanceof RedisUnavailableError && /loading its data/.test(err.message));
    await until(() => connection.state === 'connected', 20_000, "'connected' once loaded");
    // Connected means usable: the first command gets the data, not LOADING.
    assert.equal(await connection.client.get('saved:1'), 'v'.repeat(10_000));
    assert.equal(connection.loading, false);
    assert.deepEqual(seen, ['unreachable', 'connected']);
  });

  it('connected when Redis restarts: unreachable, then loading, then connected once the first command works', async () => {
    await server.stop();
    await server.resume(); // loaded
    const connection = connect();
    connection.open();
    await connection.whenReady();
    await restartLoading();
    await until(() => connection.loading, 20_000, 'the loading state after the restart');
    assert.equal(connection.state, 'unreachable');
    assert.match(connection.error.message, /loading its data/);
    await until(() => connection.state === 'connected', 20_000, "'connected' once loaded");
    assert.equal(await connection.client.get('saved:199'), 'v'.repeat(10_000));
  });
});
