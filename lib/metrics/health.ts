/**
 * The health answers, named as Kubernetes probes (and frigate-notify) name
 * them: liveness (the process serves: always 200 while it answers at all)
 * and readiness, for every receiver or for one (its configured path): 200
 * when each takes events now, else 503 with what is wrong with which.
 */
import type { MetricSources, Readiness, ReadinessProblem, RedisPrimary, SourceEntry } from './sources';

export interface ReceiverHealth {
  /** The receiver's configured path (its key). */
  path: string;
  ready: boolean;
  /** Each with its code and a sentence in the runtime's language. */
  problems: Array<{ code: string; message: string }>;
  /** Redis in Sentinel mode: the primary in use, and whether a failover is under way. */
  redis?: RedisPrimary;
}

/** Words a problem for people: the runtime's catalog in a node, the code and detail elsewhere. */
export type DescribeProblem = (problem: ReadinessProblem) => string;

export interface HealthTexts {
  describe: DescribeProblem;
  /** No receiver is deployed. */
  none: string;
  /** No deployed receiver has the path asked for. */
  unknown: string;
}

const PLAIN: HealthTexts = {
  describe: (p) => (p.detail ? `${p.code}: ${p.detail}` : p.code),
  none: 'no receiver is deployed',
  unknown: 'no receiver has this path',
};

export interface HealthAnswer {
  status: 200 | 404 | 503;
  body: { status: 'ok' | 'ready' | 'not ready' | 'unknown'; receivers?: ReceiverHealth[]; problems?: string[]; message?: string };
}

/** `//Hooks/A/` and `/hooks/a` are one path (as Express routes them). */
export function samePathKey(path: string): string {
  let p = path.trim().replace(/\/{2,}/g, '/');
  if (!p.startsWith('/')) p = `/${p}`;
  if (p.length > 1) p = p.replace(/\/$/, '');
  return p.toLowerCase();
}

export function liveness(): HealthAnswer {
  return { status: 200, body: { status: 'ok' } };
}

function healthOf(entry: SourceEntry, describe: DescribeProblem): ReceiverHealth {
  const problems: ReadinessProblem[] = [];
  let redis: RedisPrimary | undefined;
  for (const source of entry.live) {
    let found: Readiness;
    try {
      found = source.ready?.() ?? { ok: true, problems: [] };
    } catch (err) {
      found = { ok: false, problems: [{ code: 'internal', detail: (err as Error).message }] };
    }
    if (!found.ok) problems.push(...(found.problems.length > 0 ? found.problems : [{ code: 'not-ready' }]));
    redis ??= found.redis;
  }
  const problemsSaid = problems.map((p) => ({ code: p.code, message: describe(p) }));
  return { path: entry.key, ready: problems.length === 0, problems: problemsSaid, ...(redis ? { redis } : {}) };
}

/**
 * Readiness of every receiver deployed now, or of the one at `path`.
 * `texts` words the answers that concern no single receiver.
 */
export function readiness(sources: MetricSources, path?: string, texts: HealthTexts = PLAIN): HealthAnswer {
  const deployed = sources.list('receiver').filter((e) => e.live.size > 0);
  if (path !== undefined) {
    const key = samePathKey(path);
    const entry = deployed.find((e) => samePathKey(e.key) === key);
    if (!entry) return { status: 404, body: { status: 'unknown', message: texts.unknown } };
    const one = healthOf(entry, texts.describe);
    return { status: one.ready ? 200 : 503, body: { status: one.ready ? 'ready' : 'not ready', receivers: [one] } };
  }
  // No receiver takes events: nothing to send this instance yet.
  if (deployed.length === 0) return { status: 503, body: { status: 'not ready', receivers: [], problems: [texts.none] } };
  const receivers = deployed.map((e) => healthOf(e, texts.describe));
  const ready = receivers.every((r) => r.ready);
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not ready', receivers } };
}
