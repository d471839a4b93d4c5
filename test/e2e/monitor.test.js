'use strict';
/**
 * The operator's view end to end (issue 27): the packed module in a real
 * Node-RED process, a detection-monitor turned on from the flow (no
 * settings.js edit), a real Prometheus (Debian's package) scraping its
 * metrics path with the bearer token, and the health answers a load
 * balancer asks, with a real redis-server stopped under a receiver and a
 * receiver whose port another program holds. The monitoring files the package
 * ships (monitoring/: alert rules, Grafana dashboard) are read from the
 * installed package, and every metric they name is looked up in what that
 * Prometheus scraped; every dashboard query runs there and answers.
 */
const assert = require('node:assert/strict');
const net = require('node:net');
const path = require('node:path');
const fs = require('node:fs');
const { nodeRedVersion, request, postJson, until } = require('../support');
const { MODULE } = require('../support/user-dir-template');
const { metricNames, alertRules, dashboardQueries } = require('../support/promql');
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
    // a journal (its size) and a presence node (what it holds): every panel of the dashboard has a series
    receiver('e2emonin4', '/mon/disk', [['e2emonpresence'], []], { ackMode: 'disk' }),
    { id: 'e2emonpresence', type: 'detection-presence', z: TAB, name: 'on site', keyBy: 'plate', away: 1, awayUnits: 'h', wires: [[], [], [], []] },
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

  it('Prometheus scrapes the receivers’ counters with the token, and request durations by method and status code', async () => {
    await nr.deploy(monitoredFlow(redis.url), { '/mon/plates': 405, '/mon/shared': 405, '/mon/disk': 405 });
    const ready = await until(
      async () => {
        const answer = await request(`${nr.url}${HEALTH}/ready`, { method: 'GET' });
        return answer.status === 200 ? answer : undefined;
      },
      15000,
      'all receivers ready',
    );
    assert.deepEqual(ready.json.receivers.map((r) => [r.path, r.ready]).sort(), [
      ['/mon/disk', true],
      ['/mon/plates', true],
      ['/mon/shared', true],
    ]);
    assert.equal((await request(`${nr.url}${HEALTH}/live`, { method: 'GET' })).status, 200);
    assert.equal((await request(`${nr.url}${METRICS}`, { method: 'GET' })).status, 401, 'not without the token');

    for (const id of ['p-1', 'p-2', 'p-1']) assert.equal((await postJson(`${nr.url}/mon/plates`, lpr(id))).status, 200);
    assert.equal((await postJson(`${nr.url}/mon/plates`, { not: 'an event' })).status, 422);
    assert.equal((await postJson(`${nr.url}/mon/shared`, lpr('s-1'))).status, 200);
    assert.equal((await postJson(`${nr.url}/mon/disk`, lpr('d-1'))).status, 200);

    const { port } = new URL(nr.url);
    prometheus = await Prometheus.start({ target: `127.0.0.1:${port}`, metricsPath: METRICS, token: TOKEN });
    await prometheus.valueOf('up{job="detection-bridge"}', 1);
    await prometheus.valueOf('detection_bridge_events_accepted_total{path="/mon/plates"}', 3);
    await prometheus.valueOf('detection_bridge_events_accepted_total{path="/mon/shared"}', 1);
    await prometheus.valueOf('detection_bridge_requests_total{path="/mon/plates",outcome="invalid",status="422"}', 1);
    // and the GETs that asked whether the route is up (405)
    await prometheus.holds('sum(http_server_request_duration_seconds_count{http_route="/mon/plates"}) >= 4');
    // by method and status code: the 200s apart from the 422
    const timed = (status) =>
      `http_server_request_duration_seconds_count{http_route="/mon/plates",http_request_method="POST",http_response_status_code="${status}"}`;
    await prometheus.valueOf(timed(200), 3);
    await prometheus.valueOf(timed(422), 1);
    await prometheus.holds(`${timed(200).replace('_count', '_bucket').replace('}', ',le="+Inf"}')} == 3`);
    await prometheus.valueOf('detection_bridge_dedupe_passed_total{name="plates once"}', 2);
    await prometheus.valueOf('detection_bridge_dedupe_dropped_total{name="plates once"}', 1);
    await prometheus.valueOf('detection_bridge_receiver_ready{path="/mon/shared"}', 1);
    const pending = await prometheus.query('detection_bridge_stream_pending{path="/mon/shared"}');
    assert.equal(pending.length, 1, 'the Redis stream’s pending entries are scraped');
  });

  it('the same scrape holds process metrics and build info, and every metric the shipped rules and dashboard read', async () => {
    // Node's process and runtime metrics, on the package's registry with its prefix
    await prometheus.holds('detection_bridge_process_resident_memory_bytes > 1e6');
    await prometheus.holds('detection_bridge_process_cpu_seconds_total > 0');
    await prometheus.holds('detection_bridge_nodejs_eventloop_lag_p99_seconds >= 0');
    await prometheus.holds('detection_bridge_nodejs_gc_duration_seconds_count > 0');
    const [build] = await prometheus.query('detection_bridge_build_info');
    assert.equal(build.value, 1);
    const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
    assert.equal(build.metric.version, version);
    assert.equal(build.metric.nodejs_version, process.versions.node, 'Node-RED runs on this test’s node');
    // Node-RED says "-git" after its version when it runs from a checkout
    assert.match(build.metric.nodered_version, new RegExp(`^${nodeRedVersion().replace(/\./g, '\\.')}(-git)?$`));

    // the monitoring files as installed with the package
    const shipped = path.join(nr.userDir, 'node_modules', MODULE, 'monitoring');
    assert.ok(fs.existsSync(path.join(shipped, 'prometheus-rules.yml')), 'the rules ship in the package');
    assert.ok(fs.existsSync(path.join(shipped, 'grafana-dashboard.json')), 'the dashboard ships in the package');
    const names = await request(`${prometheus.url}/api/v1/label/__name__/values`, { method: 'GET' });
    assert.equal(names.status, 200);
    const scraped = new Set(names.json.data);
    const rules = alertRules(shipped).map((r) => ({ where: `alert ${r.alert}`, expr: r.expr }));
    const panels = dashboardQueries(shipped);
    const missing = [...rules, ...panels].flatMap(({ where, expr }) =>
      metricNames(expr)
        .filter((n) => !scraped.has(n))
        .map((n) => `${where}: ${n}`),
    );
    assert.deepEqual(missing, [], 'every metric named is in the scrape');

    // and every dashboard query runs there and answers with series (Grafana's variables: everything)
    const asPromql = (expr) =>
      expr
        .replace(/label_values\((.*),\s*(\w+)\)$/, 'group by ($2) ($1)')
        .replace(/\$__rate_interval/g, '1m')
        .replace(/\$(job|instance|path)\b/g, '.*');
    for (const { where, expr } of panels) {
      await until(async () => (await prometheus.query(asPromql(expr))).length > 0, 20000, `${where}: ${asPromql(expr)} answers`);
    }
  });

  it('Redis stops under a receiver: not ready, 503 naming it, refused and timed apart from its 200s; back once Redis is', async () => {
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
    await prometheus.valueOf('detection_bridge_redis_up{path="/mon/shared"}', 0);
    // refused for now: a 503, timed apart from the 200 before it
    assert.equal((await postJson(`${nr.url}/mon/shared`, lpr('s-2'))).status, 503);
    const sharedTimed = (status) =>
      `http_server_request_duration_seconds_count{http_route="/mon/shared",http_request_method="POST",http_response_status_code="${status}"}`;
    await prometheus.valueOf(sharedTimed(503), 1);
    await prometheus.valueOf(sharedTimed(200), 1);
    await prometheus.valueOf('detection_bridge_events_refused_total{path="/mon/shared"}', 1);
    await redis.resume();
    await prometheus.valueOf('detection_bridge_redis_up{path="/mon/shared"}', 1);
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
