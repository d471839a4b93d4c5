'use strict';
/**
 * The operator's view end to end (issue 27): the packed module in a real
 * Node-RED process, a detection-monitor turned on from the flow (no
 * settings.js edit), a real Prometheus (Debian's package) scraping its
 * metrics path with the bearer token, and the health answers a load
 * balancer asks, with a real redis-server stopped under a receiver and a
 * receiver whose port another program holds.
 */
const assert = require('node:assert/strict');
const net = require('node:net');
const { nodeRedVersion, request, postJson, until } = require('../support');
const { NodeRedProcess } = require('../support/nodered-process');
const { RedisServer, redisAvailable, freePort } = require('../support/redis-server');
const { Prometheus, prometheusAvailable } = require('../support/prometheus');
const ev = require('../fixtures/events');

const TAB = 'e2emonitortab001';
const TOKEN = 'scrape-secret-e2e';
const METRICS = '/detection-bridge/metrics';
const HEALTH = '/detection-bridge/health';

const lpr = (id) => {
  const event = ev.fullLpr();
  event.payload.messageId = id;
  return event;
};

const receiver = (id, path, wires, extra = {}) => ({
  id,
  type: 'detection-in',
  z: TAB,
  name: '',
  path,
  auth: 'none',
  headerName: '',
  maxBodyMiB: 16,
  validation: 'lenient',
  ackMode: 'memory',
  wires,
  ...extra,
});

function monitoredFlow(redisUrl, extra = []) {
  return [
    { id: TAB, type: 'tab', label: 'monitor' },
    { id: 'e2emonredis', type: 'detection-redis', name: '', url: redisUrl },
    receiver('e2emonin1', '/mon/plates', [['e2emondedupe'], []]),
    {
      id: 'e2emondedupe',
      type: 'detection-dedupe',
      z: TAB,
      name: 'plates once',
      mode: 'id',
      key: 'messageId',
      keyType: 'msg',
      missingKey: 'pass',
      ttl: 1,
      ttlUnits: 'h',
      maxKeys: 1000,
      wires: [[]],
    },
    receiver('e2emonin2', '/mon/shared', [[], []], { ackMode: 'redis', redis: 'e2emonredis' }),
    {
      id: 'e2emonitor',
      type: 'detection-monitor',
      z: TAB,
      name: '',
      metrics: true,
      metricsPath: METRICS,
      metricsOpen: false,
      health: true,
      healthPath: HEALTH,
      healthAuth: false,
      // 503 once any receiver is not (the default, any, keeps the instance ready while one is)
      readyWhen: 'all',
      credentials: { token: TOKEN },
    },
    ...extra,
  ];
}

describe(`e2e: metrics and health (detection-monitor, Prometheus), Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(120000);
  let nr;
  let redis;
  let prometheus;

  before(async function () {
    if (!prometheusAvailable() || !redisAvailable()) {
      console.log('      (prometheus or redis-server is not installed, skipping: apt-get install -y prometheus redis-server)');
      this.skip();
    }
    redis = await RedisServer.start();
    nr = await NodeRedProcess.create();
    await nr.start();
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed') {
      console.log(`\n---- Node-RED output ----\n${nr?.logText()}\n----`);
      if (prometheus) console.log(`\n---- Prometheus output ----\n${prometheus.output}\n----`);
    }
  });

  after(async function () {
    this.timeout(60000);
    await prometheus?.close();
    await nr?.cleanup();
    await redis?.close();
  });

  it('Prometheus scrapes the receiver’s counters with the token; ready until Redis stops, then 503 naming that receiver', async () => {
    await nr.deploy(monitoredFlow(redis.url), { '/mon/plates': 405, '/mon/shared': 405 });
    const ready = await until(
      async () => {
        const answer = await request(`${nr.url}${HEALTH}/ready`, { method: 'GET' });
        return answer.status === 200 ? answer : undefined;
      },
      15000,
      'all receivers ready',
    );
    assert.deepEqual(ready.json.receivers.map((r) => [r.path, r.ready]).sort(), [
      ['/mon/plates', true],
      ['/mon/shared', true],
    ]);
    assert.equal((await request(`${nr.url}${HEALTH}/live`, { method: 'GET' })).status, 200);
    assert.equal((await request(`${nr.url}${METRICS}`, { method: 'GET' })).status, 401, 'not without the token');

    for (const id of ['p-1', 'p-2', 'p-1']) assert.equal((await postJson(`${nr.url}/mon/plates`, lpr(id))).status, 200);
    assert.equal((await postJson(`${nr.url}/mon/plates`, { not: 'an event' })).status, 422);
    assert.equal((await postJson(`${nr.url}/mon/shared`, lpr('s-1'))).status, 200);

    const { port } = new URL(nr.url);
    prometheus = await Prometheus.start({ target: `127.0.0.1:${port}`, metricsPath: METRICS, token: TOKEN });
    await prometheus.valueOf('up{job="detection-bridge"}', 1);
    await prometheus.valueOf('detection_bridge_events_accepted_total{path="/mon/plates"}', 3);
    await prometheus.valueOf('detection_bridge_events_accepted_total{path="/mon/shared"}', 1);
    await prometheus.valueOf('detection_bridge_requests_total{path="/mon/plates",outcome="invalid",status="422"}', 1);
    // and the GETs that asked whether the route is up (405)
    await prometheus.holds('http_server_request_duration_seconds_count{http_route="/mon/plates"} >= 4');
    await prometheus.holds('http_server_request_duration_seconds_bucket{http_route="/mon/plates",le="+Inf"} >= 4');
    await prometheus.valueOf('detection_bridge_dedupe_passed_total{name="plates once"}', 2);
    await prometheus.valueOf('detection_bridge_dedupe_dropped_total{name="plates once"}', 1);
    await prometheus.valueOf('detection_bridge_receiver_ready{path="/mon/shared"}', 1);
    const pending = await prometheus.query('detection_bridge_stream_pending{path="/mon/shared"}');
    assert.equal(pending.length, 1, 'the Redis stream’s pending entries are scraped');

    await redis.stop();
    const down = await until(
      async () => {
        const answer = await request(`${nr.url}${HEALTH}/ready`, { method: 'GET' });
        return answer.status === 503 ? answer : undefined;
      },
      15000,
      'not ready once Redis is gone',
    );
    assert.equal(down.json.status, 'not ready');
    const shared = down.json.receivers.find((r) => r.path === '/mon/shared');
    assert.equal(shared.ready, false);
    assert.deepEqual(
      shared.problems.map((p) => p.code),
      ['redis-unreachable'],
    );
    assert.match(shared.problems[0].message, /^Redis is unreachable/);
    assert.equal(down.json.receivers.find((r) => r.path === '/mon/plates').ready, true);
    assert.equal((await request(`${nr.url}${HEALTH}/ready/mon/plates`, { method: 'GET' })).status, 200);
    assert.equal((await request(`${nr.url}${HEALTH}/ready/mon/shared`, { method: 'GET' })).status, 503);
    await prometheus.valueOf('detection_bridge_receiver_ready{path="/mon/shared"}', 0);
    await redis.resume();
  });

  it('a receiver whose route is not served (its port held by another program) is not ready: 503 naming it', async () => {
    const holder = net.createServer();
    const held = await freePort();
    await new Promise((resolve) => holder.listen(held, '127.0.0.1', resolve));
    try {
      await nr.deploy(
        monitoredFlow(redis.url, [
          { id: 'e2emonlst', type: 'detection-listener', name: '', host: '127.0.0.1', port: held, tls: 'none', allow: '' },
          receiver('e2emonin3', '/mon/blocked', [[], []], { listener: 'e2emonlst' }),
        ]),
        { '/mon/plates': 405 },
      );
      const answer = await until(
        async () => {
          const got = await request(`${nr.url}${HEALTH}/ready`, { method: 'GET' });
          const blocked = got.json?.receivers?.find((r) => r.path === `:${held}/mon/blocked`);
          return got.status === 503 && blocked?.problems.some((p) => p.code === 'listener-failed') ? { got, blocked } : undefined;
        },
        15000,
        'the blocked receiver named',
      );
      assert.equal(answer.blocked.ready, false);
      assert.equal(answer.got.json.receivers.find((r) => r.path === '/mon/plates').ready, true);
      // Counters go on across the deploy: what the receiver counted before is still there.
      await prometheus.valueOf('detection_bridge_events_accepted_total{path="/mon/plates"}', 3);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
