'use strict';
const assert = require('node:assert/strict');
const { MetricSources, readiness, liveness, samePathKey } = require('../../../dist/lib/metrics');

describe('lib/metrics health', () => {
  const fine = { read: () => ({ counters: {} }), ready: () => ({ ok: true, problems: [] }) };

  it('liveness: 200 while it answers at all', () => {
    assert.deepEqual(liveness(), { status: 200, body: { status: 'ok' } });
  });

  it('ready (200) when every receiver is; 503 naming the receiver and what is wrong when one is not', () => {
    const sources = new MetricSources();
    sources.register('receiver', '/faces', fine);
    let redisUp = true;
    sources.register('receiver', '/plates', {
      read: () => ({ counters: {} }),
      ready: () => (redisUp ? { ok: true, problems: [] } : { ok: false, problems: [{ code: 'redis-unreachable', detail: 'ECONNREFUSED' }] }),
    });
    assert.equal(readiness(sources).status, 200);
    assert.equal(readiness(sources).body.status, 'ready');
    redisUp = false;
    const answer = readiness(sources);
    assert.equal(answer.status, 503);
    assert.deepEqual(answer.body, {
      status: 'not ready',
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
    const texts = { describe: (p) => `[${p.code}]`, none: 'none here', unknown: 'who?' };
    assert.deepEqual(readiness(sources, undefined, texts), { status: 503, body: { status: 'not ready', receivers: [], problems: ['none here'] } });
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
});
