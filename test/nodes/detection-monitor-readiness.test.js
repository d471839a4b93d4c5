'use strict';
/**
 * The monitor's readiness policy inside the Node-RED runtime (issue 42): two
 * receivers, one on a listener whose port another program holds. The
 * healthy one's own answer and the default overall answer stay 200 (a load
 * balancer keeps it in service); *all* answers 503; *named* answers for the
 * receivers it names. Real HTTP on 127.0.0.1 throughout.
 */
const assert = require('node:assert/strict');
const net = require('node:net');
const { getHelper, translatedModule, loadWithHttp, closeServers, request, until, translate, ownStatus } = require('../support');

const helper = getHelper();
const detectionIn = translatedModule('detection-in');
const detectionListener = translatedModule('detection-listener');
const detectionMonitor = translatedModule('detection-monitor');

let n = 0;

/** A monitor of health only (no credential needed) at `/health-<which>`, with `extra` options. */
const monitor = (which, extra = {}) => ({
  id: `mon-${which}`,
  type: 'detection-monitor',
  z: 't1',
  name: '',
  metrics: false,
  health: true,
  healthPath: `/health-${which}`,
  healthAuth: false,
  ...extra,
});

describe('detection-monitor readiness policy', function () {
  this.timeout(20_000);
  /** A server the test opens on 127.0.0.1: the listener's port, taken. */
  let holder;
  let held;
  beforeEach(async () => {
    holder = net.createServer();
    await new Promise((resolve) => holder.listen(0, '127.0.0.1', resolve));
    held = holder.address().port;
    await helper.startServer();
  });
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
    await new Promise((resolve) => holder.close(resolve));
  });

  /** The flow: `good` on Node-RED's server, `blocked` on a listener whose port is held; then `monitors`. */
  function flow(good, blocked, monitors) {
    return [
      { id: 't1', type: 'tab' },
      { id: 'lst', type: 'detection-listener', name: '', host: '127.0.0.1', port: held, tls: 'none', allow: '' },
      { id: 'in-good', type: 'detection-in', z: 't1', path: good, auth: 'none', wires: [[], []] },
      { id: 'in-blocked', type: 'detection-in', z: 't1', path: blocked, auth: 'none', listener: 'lst', wires: [[], []] },
      ...monitors,
    ];
  }

  const get = (url) => request(url, { method: 'GET' });

  /** Waits until the healthy receiver is ready and the blocked one says its listener failed (the state every answer is read in). */
  async function settled(base, health, good, blockedLabel) {
    return until(
      async () => {
        const one = await get(`${base}${health}/ready${good}`);
        const overall = await get(`${base}${health}/ready`);
        const blocked = overall.json?.receivers?.find((r) => r.path === blockedLabel);
        const failed = blocked?.problems.some((p) => p.code === 'listener-failed');
        return one.status === 200 && failed ? { one, overall, blocked } : undefined;
      },
      10_000,
      'the healthy receiver ready and the blocked one failed',
    );
  }

  it('one receiver’s listener cannot open its port: the other’s /ready/<path> and the default overall answer are 200; with policy all, 503', async () => {
    const good = `/hooks/good-${++n}`;
    const blocked = `/hooks/blocked-${n}`;
    const blockedLabel = `:${held}${blocked}`;
    // "default": a monitor saved before the option (no readyWhen at all)
    const base = await loadWithHttp(
      [detectionListener, detectionIn, detectionMonitor],
      flow(good, blocked, [monitor('default'), monitor('all', { readyWhen: 'all' })]),
    );
    const { one, overall, blocked: said } = await settled(base, '/health-default', good, blockedLabel);

    assert.deepEqual(one.json, { status: 'ready', receivers: [{ path: good, ready: true, problems: [] }] });
    assert.equal(overall.status, 200, 'by default one broken receiver does not take the healthy one out');
    assert.equal(overall.json.status, 'ready');
    assert.equal(overall.json.policy, 'any');
    assert.equal(overall.json.receivers.length, 2, 'the body still lists every receiver');
    assert.equal(said.ready, false);
    assert.deepEqual(said.problems, [{ code: 'listener-failed', message: translate('detection-monitor.problems.listener-failed') }]);
    const perBlocked = await get(`${base}/health-default/ready/${blockedLabel}`);
    assert.equal(perBlocked.status, 503, 'the blocked receiver’s own answer: what a balancer in front of it probes');
    assert.equal(perBlocked.json.receivers[0].problems[0].code, 'listener-failed');

    const all = await get(`${base}/health-all/ready`);
    assert.equal(all.status, 503);
    assert.equal(all.json.status, 'not ready');
    assert.equal(all.json.policy, 'all');
    assert.equal(all.json.receivers.find((r) => r.path === good).ready, true);
    assert.equal((await get(`${base}/health-all/ready${good}`)).status, 200, 'per receiver: whatever the policy');

    // the status under each monitor says the policy
    assert.equal(
      ownStatus(helper.getNode('mon-default')).text,
      translate('detection-monitor.status.health', { path: '/health-default', when: translate('detection-monitor.status.ready-any') }),
    );
    assert.equal(ownStatus(helper.getNode('mon-all')).fill, 'green');
  });

  it('policy named: 200 while the receivers named take events, whichever others fail; 503 naming one not deployed, or one that fails', async () => {
    const good = `/hooks/named-good-${++n}`;
    const blocked = `/hooks/named-blocked-${n}`;
    const blockedLabel = `:${held}${blocked}`;
    const base = await loadWithHttp(
      [detectionListener, detectionIn, detectionMonitor],
      flow(good, blocked, [
        // as typed: another case, a trailing slash, a comma and a new line between paths
        monitor('good', { readyWhen: 'named', readyPaths: `${good.toUpperCase()}/` }),
        monitor('later', { readyWhen: 'named', readyPaths: `${good},\n/hooks/later-${n}` }),
        monitor('blocked', { readyWhen: 'named', readyPaths: `${good}\n${blockedLabel}` }),
      ]),
    );
    await settled(base, '/health-good', good, blockedLabel);

    const named = await get(`${base}/health-good/ready`);
    assert.equal(named.status, 200);
    assert.equal(named.json.policy, 'named');
    assert.deepEqual(named.json.named, [`${good.toUpperCase()}/`]);
    assert.equal(named.json.receivers.length, 2, 'the others listed, not counted');

    const later = await get(`${base}/health-later/ready`);
    assert.equal(later.status, 503, 'a receiver named and not deployed: not ready');
    assert.deepEqual(later.json.problems, [translate('detection-monitor.problems.missing', { path: `/hooks/later-${n}` })]);

    const withBlocked = await get(`${base}/health-blocked/ready`);
    assert.equal(withBlocked.status, 503, 'a receiver named cannot take events');
    assert.equal(withBlocked.json.problems, undefined);
    assert.equal(withBlocked.json.receivers.find((r) => r.path === blockedLabel).problems[0].code, 'listener-failed');
  });

  it('policy named with no path, or one that is no path: red, nothing served, the log says why', async () => {
    const errors = [];
    const watch = (RED) => {
      const orig = RED.nodes.createNode;
      RED.nodes.createNode = function (node, config) {
        orig.call(this, node, config);
        const error = node.error.bind(node);
        node.error = (e) => {
          errors.push([config.id, String(e)]);
          return error(e);
        };
      };
    };
    const base = await loadWithHttp(
      [watch, detectionMonitor],
      [
        { id: 't1', type: 'tab' },
        monitor('empty', { readyWhen: 'named', readyPaths: ' \n ' }),
        monitor('bad', { readyWhen: 'named', readyPaths: '/ok\n/a?b' }),
        // the paths matter only under named
        monitor('any', { readyPaths: '/a?b' }),
      ],
    );
    for (const id of ['mon-empty', 'mon-bad']) {
      assert.deepEqual(ownStatus(helper.getNode(id)), { fill: 'red', shape: 'ring', text: 'detection-monitor.status.bad-ready-paths' });
    }
    assert.deepEqual(errors, [
      ['mon-empty', translate('detection-monitor.errors.ready-paths-empty')],
      ['mon-bad', translate('detection-monitor.errors.ready-path', { path: '/a?b' })],
    ]);
    assert.equal((await get(`${base}/health-empty/live`)).status, 404, 'nothing served');
    assert.equal((await get(`${base}/health-bad/ready`)).status, 404);
    assert.equal(ownStatus(helper.getNode('mon-any')).fill, 'green');
    assert.equal((await get(`${base}/health-any/live`)).status, 200);
  });
});
