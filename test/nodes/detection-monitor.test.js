'use strict';
/**
 * detection-monitor inside the Node-RED runtime (node-red-node-test-helper),
 * through real HTTP on the helper's httpNode app: metrics behind the
 * credential, the health answers, and one monitor per path.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { getHelper, translatedModule, loadWithHttp, closeServers, request, postJson, collect, until, translate, ownStatus } = require('../support');
const ev = require('../fixtures/events');

const helper = getHelper();
const detectionIn = translatedModule('detection-in');
const detectionDedupe = translatedModule('detection-dedupe');
const detectionRedis = translatedModule('detection-redis');
const detectionMonitor = translatedModule('detection-monitor');
const detectionPresence = translatedModule('detection-presence');

const METRICS = '/detection-bridge/metrics';
const HEALTH = '/detection-bridge/health';
let n = 0;

/** `name{labels}` → value of a Prometheus text exposition. */
function samples(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    out.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return out;
}

const lpr = (id) => {
  const event = ev.fullLpr();
  event.payload.messageId = id;
  return event;
};

describe('detection-monitor node', function () {
  this.timeout(20_000);
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
  });

  const monitor = (extra = {}) => ({
    id: 'mon',
    type: 'detection-monitor',
    z: 't1',
    name: '',
    metrics: true,
    metricsPath: METRICS,
    health: true,
    healthPath: HEALTH,
    metricsOpen: false,
    healthAuth: false,
    ...extra,
  });

  it('serves the receiver’s and the dedupe’s counters, labelled by the configured path, only with the credential', async () => {
    const path = `/hooks/monitored-${++n}`;
    // Sources are process-wide and keep a node's counts across deploys: an id no other test used.
    const dd = `dd-monitor-${n}`;
    const flow = [
      { id: 't1', type: 'tab' },
      { id: 'in1', type: 'detection-in', z: 't1', path, auth: 'none', wires: [[dd], []] },
      {
        id: dd,
        type: 'detection-dedupe',
        z: 't1',
        name: 'once',
        mode: 'id',
        key: 'messageId',
        keyType: 'msg',
        missingKey: 'pass',
        ttl: 1,
        ttlUnits: 'h',
        maxKeys: 1000,
        wires: [['out']],
      },
      { id: 'out', type: 'helper', z: 't1' },
      monitor(),
    ];
    const base = await loadWithHttp([detectionIn, detectionDedupe, detectionMonitor], flow, { mon: { token: 'scrape-secret' } });
    const got = collect(helper.getNode('out'), 2);
    for (const id of ['m-1', 'm-2', 'm-1']) assert.equal((await postJson(`${base}${path}`, lpr(id))).status, 200);
    await got;
    assert.equal((await postJson(`${base}${path}`, { not: 'an event' })).status, 422);

    const refused = await request(`${base}${METRICS}`, { method: 'GET' });
    assert.equal(refused.status, 401);
    assert.match(refused.headers['www-authenticate'], /^Bearer realm=/);
    assert.equal(refused.json.status, 401);
    assert.equal((await request(`${base}${METRICS}`, { method: 'GET', headers: { authorization: 'Bearer wrong' } })).status, 401);
    assert.equal((await request(`${base}${METRICS}`, { method: 'POST', headers: { authorization: 'Bearer scrape-secret' }, body: '' })).status, 405);

    let last = '';
    const scraped = await until(async () => {
      const answer = await request(`${base}${METRICS}`, { method: 'GET', headers: { authorization: 'Bearer scrape-secret' } });
      last = answer.text;
      const s = samples(answer.text);
      return s.get(`detection_bridge_dedupe_dropped_total{node="${dd}",name="once"}`) === 1 ? { answer, s } : undefined;
    }).catch((err) => {
      throw new Error(`${err.message}: the last scrape was\n${last}`, { cause: err });
    });
    assert.equal(scraped.answer.status, 200);
    assert.match(scraped.answer.headers['content-type'], /^text\/plain/);
    const { s } = scraped;
    const p = `path="${path}"`;
    assert.equal(s.get(`detection_bridge_events_accepted_total{${p}}`), 3);
    assert.equal(s.get(`detection_bridge_requests_total{${p},outcome="accepted",status="200"}`), 3);
    assert.equal(s.get(`detection_bridge_requests_total{${p},outcome="invalid",status="422"}`), 1);
    const timed = (status) =>
      `http_server_request_duration_seconds_count{http_route="${path}",http_request_method="POST",http_response_status_code="${status}"}`;
    assert.deepEqual([s.get(timed(200)), s.get(timed(422))], [3, 1], 'request durations by method and status code');
    assert.equal(s.get(`detection_bridge_events_in_flight{${p}}`), 0);
    assert.equal(s.get(`detection_bridge_receiver_ready{${p}}`), 1);
    assert.equal(s.get(`detection_bridge_dedupe_passed_total{node="${dd}",name="once"}`), 2);
    assert.equal(
      [...s.keys()].some((k) => k.includes('m-1')),
      false,
      'no label from what a request carried',
    );
    assert.equal(helper.getNode('mon').credentials.token, 'scrape-secret');
  });

  it('serves what a presence node sent and holds, and what a dedupe’s cap held back', async () => {
    const path = `/hooks/presence-${++n}`;
    const pr = `pr-monitor-${n}`;
    const dd = `dd-cap-${n}`;
    const userDir = fs.mkdtempSync(join(os.tmpdir(), 'detection-bridge-monitor-'));
    helper.settings({ userDir });
    try {
      const flow = [
        { id: 't1', type: 'tab' },
        { id: 'in1', type: 'detection-in', z: 't1', path, auth: 'none', wires: [[pr], []] },
        // arrivals only go on: a car seen again while present is not
        { id: pr, type: 'detection-presence', z: 't1', name: 'on site', keyBy: 'plate', away: 1, awayUnits: 'h', wires: [[dd], [], [], []] },
        // one alert an hour: the second arrival is held back for the digest
        {
          id: dd,
          type: 'detection-dedupe',
          z: 't1',
          name: 'capped',
          mode: 'id',
          key: 'messageId',
          keyType: 'msg',
          missingKey: 'pass',
          ttl: 1,
          ttlUnits: 'h',
          maxKeys: 1000,
          cap: true,
          capCount: 1,
          capPeriod: 1,
          capUnits: 'h',
          capPer: 'all',
          outputs: 2,
          wires: [['out'], []],
        },
        { id: 'out', type: 'helper', z: 't1' },
        monitor({ metricsOpen: true }),
      ];
      const base = await loadWithHttp([detectionIn, detectionPresence, detectionDedupe, detectionMonitor], flow);
      const plate = (id, text) => {
        const event = lpr(id);
        event.payload.lprPlateInfo.plate = text;
        // seen now: a sighting older than Away after would make no one arrive
        event.payload.detectionInfo.dateTimeUtc = new Date().toISOString();
        return event;
      };
      for (const [id, text] of [
        ['p-1', 'AB123'],
        ['p-2', 'CD456'],
        ['p-3', 'AB123'],
      ])
        assert.equal((await postJson(`${base}${path}`, plate(id, text))).status, 200);

      let last = '';
      const s = await until(async () => {
        last = (await request(`${base}${METRICS}`, { method: 'GET' })).text;
        const got = samples(last);
        return got.get(`detection_bridge_dedupe_held_total{node="${dd}",name="capped"}`) === 1 ? got : undefined;
      }).catch((err) => {
        throw new Error(`${err.message}: the last scrape was\n${last}`, { cause: err });
      });
      const labels = `node="${pr}",name="on site"`;
      assert.equal(s.get(`detection_bridge_presence_arrived_total{${labels}}`), 2);
      assert.equal(s.get(`detection_bridge_presence_present{${labels}}`), 2);
      assert.equal(s.get(`detection_bridge_presence_left_total{${labels}}`), 0);
      assert.equal(s.get(`detection_bridge_presence_dropped_total{${labels}}`), 0);
      assert.equal(s.get(`detection_bridge_dedupe_passed_total{node="${dd}",name="capped"}`), 1);
    } finally {
      helper.settings({});
      fs.rmSync(userDir, { recursive: true, force: true });
    }
  });

  it('answers liveness and readiness for all receivers and per receiver; 503 naming the one whose Redis is unreachable', async () => {
    const good = `/hooks/good-${++n}`;
    const down = `/hooks/down-${n}`;
    const flow = [
      { id: 't1', type: 'tab' },
      // Nothing listens on port 1: unreachable from the start.
      { id: 'redis1', type: 'detection-redis', url: 'redis://127.0.0.1:1', prefix: `mon${n}:` },
      { id: 'in1', type: 'detection-in', z: 't1', path: good, auth: 'none', wires: [[], []] },
      { id: 'in2', type: 'detection-in', z: 't1', path: down, auth: 'none', ackMode: 'redis', redis: 'redis1', wires: [[], []] },
      // every receiver must be ready (the default, any, is in detection-monitor-readiness.test.js)
      monitor({ metrics: false, readyWhen: 'all' }),
    ];
    const base = await loadWithHttp([detectionRedis, detectionIn, detectionMonitor], flow);
    const live = await request(`${base}${HEALTH}/live`, { method: 'GET' });
    assert.equal(live.status, 200);
    assert.deepEqual(live.json, { status: 'ok' });

    const one = await until(async () => {
      const answer = await request(`${base}${HEALTH}/ready${good}`, { method: 'GET' });
      return answer.status === 200 ? answer : undefined;
    });
    assert.deepEqual(one.json, { status: 'ready', receivers: [{ path: good, ready: true, problems: [] }] });

    const all = await request(`${base}${HEALTH}/ready`, { method: 'GET' });
    assert.equal(all.status, 503);
    assert.equal(all.json.status, 'not ready');
    const bad = all.json.receivers.find((r) => r.path === down);
    assert.equal(bad.ready, false);
    assert.ok(
      bad.problems.some(
        (p) => p.code === 'redis-unreachable' && p.message.startsWith(translate('detection-monitor.problems.redis-unreachable', { detail: '' })),
      ),
      JSON.stringify(bad.problems),
    );
    assert.equal(all.json.receivers.find((r) => r.path === good).ready, true);
    assert.equal((await request(`${base}${HEALTH}/ready${down}`, { method: 'GET' })).status, 503);
    const unknown = await request(`${base}${HEALTH}/ready/hooks/none-such`, { method: 'GET' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.message, translate('detection-monitor.problems.unknown'));
    assert.equal((await request(`${base}${METRICS}`, { method: 'GET' })).text, 'no route', 'metrics off: not served');
  });

  it('without a credential: metrics not served, red, until "Serve metrics without a credential" is ticked', async () => {
    const flow = [{ id: 't1', type: 'tab' }, monitor()];
    const base = await loadWithHttp([detectionMonitor], flow);
    const node = helper.getNode('mon');
    assert.equal((await request(`${base}${METRICS}`, { method: 'GET' })).status, 404);
    const answer = await request(`${base}${HEALTH}/ready`, { method: 'GET' });
    assert.equal(answer.status, 404, 'a monitor that cannot serve its metrics serves nothing: the status says why');
    assert.ok(node, 'the node is kept, red');
    // without figures: the catalog key, for the editor to show in its language
    assert.deepEqual(ownStatus(node), { fill: 'red', shape: 'ring', text: 'detection-monitor.status.no-credential' });
    assert.equal(translate(ownStatus(node).text), 'no credential set');
    await helper.unload();
    await closeServers();
    const open = await loadWithHttp([detectionMonitor], [{ id: 't1', type: 'tab' }, monitor({ metricsOpen: true })]);
    const scraped = await request(`${open}${METRICS}`, { method: 'GET' });
    assert.equal(scraped.status, 200);
    assert.match(scraped.text, /# TYPE detection_bridge_events_accepted_total counter/);
  });

  it('one monitor per path: the second is red and serves nothing', async () => {
    const flow = [
      { id: 't1', type: 'tab' },
      monitor({ id: 'mon', metricsOpen: true }),
      monitor({ id: 'mon2', name: 'second', metricsOpen: true, healthPath: '/other/health' }),
    ];
    const statuses = [];
    const errors = [];
    const base = await loadWithHttp(
      [
        (RED) => {
          const orig = RED.nodes.createNode;
          RED.nodes.createNode = function (node, config) {
            orig.call(this, node, config);
            if (config.id === 'mon2') {
              const status = node.status.bind(node);
              node.status = (s) => {
                statuses.push(s);
                return status(s);
              };
              const error = node.error.bind(node);
              node.error = (e) => {
                errors.push(String(e));
                return error(e);
              };
            }
          };
        },
        detectionMonitor,
      ],
      flow,
    );
    await until(() => statuses.length > 0);
    assert.equal(statuses.at(-1).fill, 'red');
    assert.equal(
      statuses.at(-1).text,
      translate('detection-monitor.status.path-in-use', { name: translate('detection-monitor.paletteLabel'), flow: 't1' }),
    );
    assert.match(errors[0], new RegExp(METRICS));
    assert.equal((await request(`${base}/other/health/live`, { method: 'GET' })).status, 404, 'nothing of the second is served');
    assert.equal((await request(`${base}${METRICS}`, { method: 'GET' })).status, 200, 'the first serves');
  });
});
