'use strict';
/**
 * lib/metrics/runtime.ts: Node's process and runtime metrics collected once
 * per process on a registry of their own, prefixed; and the build info.
 */
const assert = require('node:assert/strict');
const { Registry } = require('prom-client');
const { METRIC_PREFIX, buildInfo, packageVersion, registerBuildInfo, runtimeRegistry } = require('../../../dist/lib/metrics/runtime');

describe('lib/metrics runtime', () => {
  it('collects the defaults once per process, every name with the package prefix', async () => {
    const registry = runtimeRegistry();
    assert.equal(runtimeRegistry(), registry, 'the same registry for every monitor: no observers piled up per deploy');
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name);
    assert.ok(names.includes('detection_bridge_process_resident_memory_bytes'), names.join());
    assert.ok(names.includes('detection_bridge_nodejs_eventloop_lag_p99_seconds'));
    assert.ok(names.includes('detection_bridge_nodejs_gc_duration_seconds'));
    assert.deepEqual(
      names.filter((n) => !n.startsWith(METRIC_PREFIX)),
      [],
    );
  });

  it('says which build runs: the package’s version from its package.json, Node-RED’s as given, Node’s own', async () => {
    assert.equal(packageVersion(), require('../../../package.json').version);
    assert.deepEqual(buildInfo('4.1.8'), { version: packageVersion(), nodered_version: '4.1.8', nodejs_version: process.versions.node });
    assert.equal(buildInfo(undefined).nodered_version, 'unknown');
    assert.equal(buildInfo('').nodered_version, 'unknown');
    const registry = new Registry();
    registerBuildInfo(registry, buildInfo('5.0.7'));
    const text = await registry.metrics();
    assert.match(text, /# TYPE detection_bridge_build_info gauge/);
    assert.ok(
      text.includes(`detection_bridge_build_info{version="${packageVersion()}",nodered_version="5.0.7",nodejs_version="${process.versions.node}"} 1`),
      text,
    );
  });
});
