'use strict';
const assert = require('node:assert/strict');
const { MetricSources, readiness, readinessPolicy, liveness, samePathKey } = require('../../../dist/lib/metrics');

describe('lib/metrics health', () => {
  const fine = { read: () => ({ counters: {} }), ready: () => ({ ok: true, problems: [] }) };
  /** A receiver whose listener could not open its port (lib/delivery/session-metrics.ts says so). */
  const blocked = { read: () => ({ counters: {} }), ready: () => ({ ok: false, problems: [{ code: 'listener-failed' }] }) };
  const texts = { describe: (p) => `[${p.code}]`, none: 'none here', unknown: 'who?', missing: (path) => `no ${path}` };

  it('liveness: 200 while it answers at all', () => {
    assert.deepEqual(liveness(), { status: 200, body: { status: 'ok' } });
  });

  it('policy all: ready (200) when every receiver is; 503 naming the receiver and what is wrong when one is not', () => {
    const sources = new MetricSources();
    sources.register('receiver', '/faces', fine);
    let redisUp = true;
    sources.register('receiver', '/plates', {
      read: () => ({ counters: {} }),
      ready: () => (redisUp ? { ok: true, problems: [] } : { ok: false, problems: [{ code: 'redis-unreachable', detail: 'ECONNREFUSED' }] }),
    });
    const all = { when: 'all' };
    assert.equal(readiness(sources, undefined, undefined, all).status, 200);
    assert.equal(readiness(sources, undefined, undefined, all).body.status, 'ready');
    redisUp = false;
    const answer = readiness(sources, undefined, undefined, all);
    assert.equal(answer.status, 503);
    assert.deepEqual(answer.body, {
      status: 'not ready',
      policy: 'all',
      receivers: [
        { path: '/faces', ready: true, problems: [] },
        { path: '/plates', ready: false, problems: [{ code: 'redis-unreachable', message: 'redis-unreachable: ECONNREFUSED' }] },
      ],
    });
  });

  it('names the Redis primary a receiver uses (Sentinel mode), and a failover under way', () => {
    const sources = new MetricSources();
    let failover = false;
    sources.register('receiver', '/plates', {
      read: () => ({ counters: {} }),
      ready: () =>
        failover
          ? { ok: false, problems: [{ code: 'redis-unreachable', detail: 'failing over' }], redis: { primary: '10.0.0.5:6379', failover: true } }
          : { ok: true, problems: [], redis: { primary: '10.0.0.6:6379', failover: false } },
    });
    sources.register('receiver', '/faces', fine);
    assert.deepEqual(readiness(sources).body.receivers, [
      { path: '/plates', ready: true, problems: [], redis: { primary: '10.0.0.6:6379', failover: false } },
      { path: '/faces', ready: true, problems: [] },
    ]);
    failover = true;
    const answer = readiness(sources, '/plates');
    assert.equal(answer.status, 503);
    assert.deepEqual(answer.body.receivers[0].redis, { primary: '10.0.0.5:6379', failover: true });
  });

  it('per receiver by its configured path, as Express routes it (case, slashes); 404 for a path no receiver has', () => {
    const sources = new MetricSources();
    sources.register('receiver', '/Hooks/Plates', { read: () => ({ counters: {} }), ready: () => ({ ok: false, problems: [] }) });
    sources.register('receiver', '/faces', fine);
    assert.equal(readiness(sources, '/faces').status, 200);
    const one = readiness(sources, '//hooks/plates/');
    assert.equal(one.status, 503);
    assert.deepEqual(one.body.receivers, [{ path: '/Hooks/Plates', ready: false, problems: [{ code: 'not-ready', message: 'not-ready' }] }]);
    assert.equal(readiness(sources, '/nothing').status, 404);
    assert.equal(samePathKey('hooks//a/'), '/hooks/a');
  });

  it('a receiver that is gone is not asked; none deployed is not ready; words come from the caller', () => {
    const sources = new MetricSources();
    assert.deepEqual(readiness(sources, undefined, texts), {
      status: 503,
      body: { status: 'not ready', policy: 'any', receivers: [], problems: ['none here'] },
    });
    assert.equal(readiness(sources, undefined, texts, { when: 'all' }).status, 503, 'all of none is not ready either');
    const r = sources.register('receiver', '/a', {
      read: () => ({ counters: {} }),
      ready: () => {
        throw new Error('boom');
      },
    });
    assert.deepEqual(readiness(sources, '/a', texts).body.receivers[0].problems, [{ code: 'internal', message: '[internal]' }]);
    r.unregister();
    assert.equal(readiness(sources, '/a', texts).status, 404);
    assert.equal(readiness(sources, '/a', texts).body.message, 'who?');
  });

  it('by default (any): one receiver that cannot take events leaves the instance ready while another can; the body lists both', () => {
    const sources = new MetricSources();
    sources.register('receiver', ':8443/cams', blocked);
    sources.register('receiver', '/faces', fine);
    const answer = readiness(sources, undefined, texts);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, {
      status: 'ready',
      policy: 'any',
      receivers: [
        { path: ':8443/cams', ready: false, problems: [{ code: 'listener-failed', message: '[listener-failed]' }] },
        { path: '/faces', ready: true, problems: [] },
      ],
    });
    assert.equal(readiness(sources, '/faces', texts).status, 200, 'per receiver: the policy does not apply');
    assert.equal(readiness(sources, ':8443/cams', texts).status, 503);
    assert.equal(readiness(sources, undefined, texts, { when: 'all' }).status, 503);
  });

  it('any: not ready once no receiver takes events', () => {
    const sources = new MetricSources();
    sources.register('receiver', '/a', blocked);
    sources.register('receiver', '/b', blocked);
    const answer = readiness(sources, undefined, texts);
    assert.equal(answer.status, 503);
    assert.equal(answer.body.status, 'not ready');
    assert.equal(answer.body.receivers.length, 2);
  });

  it('named: ready when each receiver named is deployed and ready (as routes: case, slashes); the others are listed and do not count', () => {
    const sources = new MetricSources();
    sources.register('receiver', '/Plates', fine);
    sources.register('receiver', ':8443/cams', blocked);
    const plates = { when: 'named', paths: ['plates/'] };
    assert.deepEqual(readiness(sources, undefined, texts, plates), {
      status: 200,
      body: {
        status: 'ready',
        policy: 'named',
        named: ['plates/'],
        receivers: [
          { path: '/Plates', ready: true, problems: [] },
          { path: ':8443/cams', ready: false, problems: [{ code: 'listener-failed', message: '[listener-failed]' }] },
        ],
      },
    });
    const both = readiness(sources, undefined, texts, { when: 'named', paths: ['/plates', ':8443/cams'] });
    assert.equal(both.status, 503, 'a receiver named is not ready');
    assert.equal(both.body.problems, undefined, 'both are deployed: nothing beyond the receivers to say');
    const missing = readiness(sources, undefined, texts, { when: 'named', paths: ['/plates', '/later'] });
    assert.equal(missing.status, 503, 'a receiver named is not deployed');
    assert.deepEqual(missing.body.problems, ['no /later']);
    const none = readiness(new MetricSources(), undefined, texts, plates);
    assert.deepEqual(none, {
      status: 503,
      body: { status: 'not ready', policy: 'named', named: ['plates/'], receivers: [], problems: ['no plates/'] },
    });
    assert.equal(readiness(sources, undefined, texts, { when: 'named', paths: [] }).status, 503, 'naming none makes nothing ready');
  });

  it("readinessPolicy: a monitor's choice and its named paths (new lines, commas, spaces), each a path; one path twice is one", () => {
    assert.deepEqual(readinessPolicy('any', 'anything at all'), { policy: { when: 'any' } });
    assert.deepEqual(readinessPolicy('all', undefined), { policy: { when: 'all' } });
    assert.deepEqual(readinessPolicy('named', '/faces\n:8443/cams, /plates  /Faces/'), {
      policy: { when: 'named', paths: ['/faces', ':8443/cams', '/plates'] },
    });
    assert.deepEqual(readinessPolicy('named', ' \n '), { problem: { problem: 'paths-empty' } });
    assert.deepEqual(readinessPolicy('named', undefined), { problem: { problem: 'paths-empty' } });
    assert.deepEqual(readinessPolicy('named', '/faces\n/a?b'), { problem: { problem: 'path', entry: '/a?b' } });
    assert.deepEqual(readinessPolicy('named', '/'), { problem: { problem: 'path-empty', entry: '/' } });
  });
});
