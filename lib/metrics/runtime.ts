/**
 * What an operator wants of the process besides the package's own counts:
 * Node's process and runtime metrics (prom-client's defaults: memory, CPU,
 * event-loop lag, GC, handles) and which build runs (a build-info gauge). The
 * defaults are collected once per process, on a registry of their own with
 * the package's prefix, so they never clash with prom-client's global registry
 * (node-red-contrib-prometheus-exporter's) nor pile up observers at every
 * deploy of a monitor.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/** Every metric of the package starts so (the defaults too: `detection_bridge_process_resident_memory_bytes`). */
export const METRIC_PREFIX = 'detection_bridge_';

let runtime: Registry | undefined;

/** The process's runtime metrics: made at the first call, shared by every monitor after it. */
export function runtimeRegistry(): Registry {
  if (!runtime) {
    runtime = new Registry();
    collectDefaultMetrics({ register: runtime, prefix: METRIC_PREFIX });
  }
  return runtime;
}

/** This package's version, from its package.json (dist/lib/metrics → the package's root); `unknown` when unreadable. */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { name?: string; version?: string };
    return pkg.name === 'node-red-contrib-detection-bridge' && typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** What the build-info gauge says: the package's, Node-RED's and Node's versions. */
export interface BuildInfo {
  version: string;
  nodered_version: string;
  nodejs_version: string;
}

/** `nodeRedVersion`: `RED.version()` of a node's RED, a string (its typings say a Promise: that of the admin API); anything else is `unknown`. */
export function buildInfo(nodeRedVersion: unknown): BuildInfo {
  const nodered = typeof nodeRedVersion === 'string' && nodeRedVersion !== '' ? nodeRedVersion : 'unknown';
  return { version: packageVersion(), nodered_version: nodered, nodejs_version: process.versions.node };
}

/** `detection_bridge_build_info{version, nodered_version, nodejs_version} 1` on `registry`. */
export function registerBuildInfo(registry: Registry, info: BuildInfo): void {
  const gauge = new Gauge({
    name: `${METRIC_PREFIX}build_info`,
    help: 'Which build runs: the package, Node-RED and Node.js versions (value 1).',
    labelNames: ['version', 'nodered_version', 'nodejs_version'],
    registers: [registry],
  });
  gauge.set({ ...info }, 1);
}
