'use strict';
/**
 * detection-redis in Sentinel mode inside the Node-RED runtime, against a
 * primary, a replica and three sentinels (test/support/redis-sentinel.js):
 * a receiver acknowledging after the stream write answers 200 through the
 * primary the sentinels name, 503 with Retry-After while the primary is lost
 * and no other is known (over real HTTP), and 200 again once the replica is
 * promoted, without a redeploy; its status names the primary in use.
 */
const assert = require('node:assert/strict');
const { getHelper, translatedModule, loadWithHttp, closeServers, postJson, until, translate } = require('../support');
const { redisAvailable } = require('../support/redis-server');
const { RedisSentinelSet } = require('../support/redis-sentinel');
const ev = require('../fixtures/events');
const { metricSources, readiness } = require('../../dist/lib/metrics');

const helper = getHelper();
const detectionIn = translatedModule('detection-in');
const detectionRedis = translatedModule('detection-redis');

const lpr = (id) => {
  const event = ev.fullLpr();
  event.payload.messageId = id;
  return event;
};

/** Records every status `node` shows from now on. */
function recordStatus(node) {
  const shown = [];
  const original = node.status.bind(node);
  node.status = (s) => {
    original(s);
    if (s && typeof s.text === 'string') shown.push(s);
  };
  return shown;
}

describe('detection-redis in Sentinel mode (redis-server --sentinel)', function () {
  this.timeout(120_000);
  let set;

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    set = await RedisSentinelSet.start({ redisPassword: 'redis-secret', sentinelPassword: 'sentinel-secret' });
  });
  after(async () => {
    await set?.close();
  });
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
  });

  it('a receiver answers 200 through the named primary, 503 with Retry-After while none is known, 200 on the promoted replica without a redeploy', async () => {
    const flow = [
      { id: 't1', type: 'tab' },
      { id: 'redis1', type: 'detection-redis', mode: 'sentinel', sentinels: set.sentinels, primaryName: set.name, prefix: 'sentinel-nodes:' },
      { id: 'rin', type: 'detection-in', z: 't1', path: '/hooks/ha', auth: 'none', ackMode: 'redis', redis: 'redis1', wires: [['held'], []] },
      { id: 'held', type: 'helper', z: 't1' },
    ];
    const credentials = { redis1: { password: 'redis-secret', sentinelPassword: 'sentinel-secret' } };
    const base = await loadWithHttp([detectionRedis, detectionIn], flow, credentials);
    const connection = helper.getNode('redis1').connection;
    const first = `127.0.0.1:${set.primaryPort}`;
    const shown = recordStatus(helper.getNode('rin'));
    await until(() => connection.ready, 20_000, 'connected through the sentinels');
    // the status names the primary in use (shown before or after the recorder began)
    assert.equal(connection.primary, first);
    assert.equal((await postJson(`${base}/hooks/ha`, lpr('ha-1'))).status, 200);
    // the health answer names it too
    const health = () => readiness(metricSources, '/hooks/ha').body.receivers[0];
    assert.deepEqual(health().redis, { primary: first, failover: false });

    await set.killPrimary();
    await until(() => !connection.ready, 20_000, 'the primary lost');
    const answer = await postJson(`${base}/hooks/ha`, lpr('ha-2'));
    assert.equal(answer.status, 503);
    assert.equal(answer.headers['retry-after'], '1');
    assert.match(answer.json.detail, /Redis is failing over|no Redis primary/);
    await until(() => shown.some((s) => s.text.includes(translate('redis.sentinel.failover'))), 20_000, 'failover in progress shown');
    assert.equal(shown.find((s) => s.text.includes(translate('redis.sentinel.failover'))).fill, 'red');
    await until(() => health().redis.failover === true, 20_000, 'the health answer says a failover is under way');
    assert.equal(health().ready, false);

    const port = await set.waitForPromotion();
    const promoted = `127.0.0.1:${port}`;
    const connectedThere = translate('redis.sentinel.connected', { primary: promoted });
    await until(() => shown.some((s) => s.text.includes(connectedThere)), 20_000, 'the promoted primary shown');
    assert.equal(connection, helper.getNode('redis1').connection, 'the same connection, no redeploy');
    assert.equal((await postJson(`${base}/hooks/ha`, lpr('ha-2'))).status, 200);
    // yellow while the last answer was the refusal (503) during the failover; green once an event is taken again
    await until(() => shown.some((s) => s.text.includes(connectedThere) && s.fill === 'green'), 20_000, 'green on the promoted primary');
    assert.deepEqual(health().redis, { primary: promoted, failover: false });
  });
});
