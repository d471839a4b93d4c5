'use strict';
/**
 * Sentinel mode of the Redis connection (lib/redis/connection.ts, lib/redis/sentinel.ts):
 * the settings it takes, and against real processes (a primary, a replica and
 * three sentinels, test/support/redis-sentinel.js): a stream take and a dedupe
 * check through the primary the sentinels name; a SIGKILLed primary makes
 * commands fail at once while none is known, and the same connection works
 * again on the promoted replica; the sentinels' credentials and Redis's go
 * each to its own.
 */
const assert = require('node:assert/strict');
const { RedisConnection, RedisSettings, RedisUnavailableError } = require('../../../dist/lib/redis/connection');
const { parseSentinels, reportOf } = require('../../../dist/lib/redis/sentinel');
const { parseOptions } = require('../../../dist/lib/core/options');
const { RedisStreamDelivery } = require('../../../dist/lib/delivery/stream');
const { RedisSeenKeys } = require('../../../dist/lib/dedupe/redis-window');
const { createSelfSignedCertificate } = require('../../../dist/lib/http/self-signed');
const { redisAvailable } = require('../../support/redis-server');
const { RedisSentinelSet } = require('../../support/redis-sentinel');

/** Waits until `connection` reaches `state` (an event, not a timer). */
function stateOf(connection, state, check = () => true) {
  if (connection.state === state && check()) return Promise.resolve();
  return new Promise((resolve) => {
    const seen = (s) => {
      if (s !== state || !check()) return;
      connection.off('state', seen);
      resolve();
    };
    connection.on('state', seen);
  });
}

describe('Redis sentinel settings', () => {
  it('reads a host:port list separated by commas, spaces or newlines, IPv6 in brackets', () => {
    assert.deepEqual(parseSentinels('10.0.0.5:26379, sentinel-b:26380\n[::1]:26381'), [
      { host: '10.0.0.5', port: 26379 },
      { host: 'sentinel-b', port: 26380 },
      { host: '::1', port: 26381 },
    ]);
    for (const bad of ['', '  ', '10.0.0.5', '10.0.0.5:0', '10.0.0.5:65536', 'a:1 b', 'redis://a:1', '::1:26379']) {
      assert.equal(parseSentinels(bad), undefined, bad);
    }
  });

  it('single mode (or none: flows saved before sentinel mode) needs the url; sentinel mode the sentinels and the primary name', () => {
    assert.equal(parseOptions(RedisSettings, { url: 'redis://127.0.0.1:6379' }).ok, true);
    assert.equal(parseOptions(RedisSettings, { mode: 'single', url: 'redis://127.0.0.1:6379' }).ok, true);
    const noUrl = parseOptions(RedisSettings, {});
    assert.deepEqual(
      noUrl.problems.map((p) => [p.option, p.key]),
      [['url', 'options.redis-url']],
    );
    assert.equal(parseOptions(RedisSettings, { mode: 'sentinel', sentinels: '127.0.0.1:26379', primaryName: 'mymaster' }).ok, true);
    const bad = parseOptions(RedisSettings, { mode: 'sentinel', sentinels: '127.0.0.1', primaryName: ' ' });
    assert.deepEqual(
      bad.problems.map((p) => [p.option, p.key]),
      [
        ['sentinels', 'options.redis-sentinels'],
        ['primaryName', 'options.redis-primary-name'],
      ],
    );
    assert.equal(parseOptions(RedisSettings, { mode: 'cluster', url: 'redis://a' }).ok, false);
  });

  it("reads a sentinel's SENTINEL MASTER answer: the address, and whether the primary is down or failing over", () => {
    assert.deepEqual(reportOf(['name', 'm', 'ip', '10.0.0.6', 'port', '6379', 'flags', 'master']), {
      address: { host: '10.0.0.6', port: 6379 },
      failover: false,
    });
    assert.equal(reportOf(['ip', '10.0.0.6', 'port', '6379', 'flags', 's_down,master']).failover, true);
    assert.equal(reportOf({ ip: '10.0.0.6', port: '6379', flags: 'master,failover_in_progress' }).failover, true);
    assert.throws(() => reportOf(['name', 'm']), /named no primary/);
  });
});

describe('Redis sentinel mode (redis-server --sentinel)', function () {
  this.timeout(120_000);
  const open = [];
  before(function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
  });
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });

  function connection(set, credentials, extra = {}) {
    const c = new RedisConnection(
      { mode: 'sentinel', sentinels: set.sentinels, primaryName: set.name, prefix: 'sent:', credentials, maxReconnectDelayMs: 200, ...extra },
      'unit',
    );
    open.push(c);
    c.open();
    return c;
  }

  async function delivery(c) {
    const { delivery: d } = await RedisStreamDelivery.open({
      connection: c,
      name: '/sentinel',
      maxEvents: 100,
      maxBytes: 1024 * 1024,
      streamMaxEvents: 100,
      streamMaxBytes: 1024 * 1024,
      claimAfterMs: 60_000,
      claimEveryMs: 3_600_000,
    });
    open.push(d);
    return d;
  }

  it('takes an event and checks a dedupe key through the primary the sentinels name; after SIGKILL of the primary commands fail at once, then work on the promoted replica with the same connection', async () => {
    const set = await RedisSentinelSet.start();
    open.push(set);
    const c = connection(set, {});
    await stateOf(c, 'connected');
    assert.equal(c.primary, `127.0.0.1:${set.primaryPort}`);
    const d = await delivery(c);
    const keys = new RedisSeenKeys(c, { name: 'sentinel-window', ttlMs: 60_000 });
    const now = Date.now();
    await d.take({ messageId: 'before' }, Buffer.from('{"n":1}'), {});
    assert.deepEqual(await keys.check('k1', now), { duplicate: false });
    assert.equal((await keys.check('k1', now)).duplicate, true);

    const killed = set.primaryPort;
    const lost = stateOf(c, 'unreachable');
    await set.killPrimary();
    await lost;
    // While no primary is known: refused at once, before any promotion (no command waits for one).
    const promotion = set.waitForPromotion();
    let promoted = false;
    void promotion.then(() => (promoted = true));
    assert.throws(() => c.assertReady(), RedisUnavailableError);
    await assert.rejects(d.take({ messageId: 'during' }, Buffer.from('{"n":2}'), {}), RedisUnavailableError);
    await assert.rejects(keys.check('k2', now), RedisUnavailableError);
    assert.equal(promoted, false, 'refused before the sentinels promoted the replica');
    // The status says a failover is under way once the sentinels see the primary down.
    await stateOf(c, 'unreachable', () => c.failover || c.primary !== `127.0.0.1:${killed}`);

    const port = await promotion;
    await stateOf(c, 'connected', () => c.primary === `127.0.0.1:${port}`);
    assert.notEqual(port, killed);
    assert.equal(c.ready, true);
    await d.take({ messageId: 'after' }, Buffer.from('{"n":3}'), {});
    assert.deepEqual(await keys.check('k3', now), { duplicate: false });
    assert.equal((await keys.check('k3', now)).duplicate, true);
    assert.equal(await c.client.sendCommand(['ROLE']).then((r) => String(r[0])), 'master');
  });

  it('a sentinel that hangs (frozen, its connection open) is left for the next one: the failover is still followed', async () => {
    const set = await RedisSentinelSet.start();
    open.push(set);
    const c = connection(set, {});
    await stateOf(c, 'connected');
    // the watcher asks the first sentinel of the list, over the connection it keeps to it
    set.freezeSentinel(0);
    const killed = set.primaryPort;
    await set.killPrimary();
    const port = await set.waitForPromotion();
    await stateOf(c, 'connected', () => c.primary === `127.0.0.1:${port}`);
    assert.notEqual(port, killed);
  });

  it('gives the sentinels their credentials and Redis its own: each pair only where it belongs', async () => {
    const set = await RedisSentinelSet.start({
      redisUser: 'app',
      redisPassword: 'redis-secret',
      sentinelUser: 'watcher',
      sentinelPassword: 'sentinel-secret',
    });
    open.push(set);
    const right = { user: 'app', password: 'redis-secret', sentinelUser: 'watcher', sentinelPassword: 'sentinel-secret' };
    const c = connection(set, right);
    await stateOf(c, 'connected');
    assert.equal(await c.client.set('sent:k', 'v'), 'OK');

    // Swapped: the sentinels refuse Redis's pair, so no primary is ever named.
    const swapped = connection(set, { user: 'watcher', password: 'sentinel-secret', sentinelUser: 'app', sentinelPassword: 'redis-secret' });
    await stateOf(swapped, 'unreachable');
    assert.match(swapped.error.message, /no sentinel answered/);
    assert.equal(swapped.primary, undefined);
    assert.throws(() => swapped.assertReady(), RedisUnavailableError);

    // The sentinels' pair right, Redis's wrong: the primary is named, Redis refuses the client.
    const wrongRedis = connection(set, { ...right, password: 'nope' });
    await stateOf(wrongRedis, 'unreachable', () => wrongRedis.primary !== undefined);
    assert.equal(wrongRedis.primary, `127.0.0.1:${set.primaryPort}`);
    assert.equal(wrongRedis.ready, false);
  });

  it('speaks TLS to the sentinels and to Redis, trusting the CA certificate given', async () => {
    const { cert, key } = createSelfSignedCertificate({ names: ['localhost', '127.0.0.1'] });
    const set = await RedisSentinelSet.start({ tls: { cert, key }, redisPassword: 'r', sentinelPassword: 's' });
    open.push(set);
    const c = connection(set, { password: 'r', sentinelPassword: 's' }, { tls: true, ca: cert });
    await stateOf(c, 'connected');
    assert.equal(await c.client.set('sent:tls', 'v'), 'OK');
    // Without the CA the certificate does not check out: no sentinel answers.
    const untrusted = connection(set, { password: 'r', sentinelPassword: 's' }, { tls: true });
    await stateOf(untrusted, 'unreachable');
    assert.match(untrusted.error.message, /no sentinel answered.*(self.signed|certificate)/i);
  });
});
