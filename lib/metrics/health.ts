/**
 * The health answers, named as Kubernetes probes (and frigate-notify) name
 * them: liveness (the process serves: always 200 while it answers at all)
 * and readiness, for one receiver (its configured path: what a balancer in
 * front of that path probes) or overall, by the monitor's policy: 200 when
 * any receiver takes events (the default: one broken receiver must not take
 * the healthy ones out of a balancer), when all do, or when the receivers
 * named do; else 503. The body always lists every receiver and what is wrong.
 */
import { routePathList, routePathListProblem, typedRouteKey } from '../http';
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
  /** A receiver the policy names is not deployed. */
  missing: (path: string) => string;
}

const PLAIN: HealthTexts = {
  describe: (p) => (p.detail ? `${p.code}: ${p.detail}` : p.code),
  none: 'no receiver is deployed',
  unknown: 'no receiver has this path',
  missing: (path) => `no receiver has the path ${path}`,
};

/** What the overall answer stands for (the monitor's *Ready when*, lib/config/node-options.ts readyWhen). */
export type ReadyWhen = 'any' | 'all' | 'named';

export interface ReadinessPolicy {
  when: ReadyWhen;
  /** `named`: the receivers' paths as configured (a listener's: `:<port><path>`); each must be deployed and ready. */
  paths?: readonly string[];
}

/** The default: a receiver that cannot take events leaves the others in service. */
export const ANY_RECEIVER: ReadinessPolicy = { when: 'any' };

/** Why a monitor's named receivers are no policy: none named, or an entry that is no path (lib/http/route-path.ts). */
export type ReadinessPolicyProblem = NonNullable<ReturnType<typeof routePathListProblem>>;

/**
 * The policy of a monitor's *Ready when* and its named paths (text, one or
 * more, routePathList); the paths matter only for `named`, where none, or
 * one that is no path, is a problem (the dialog says so before a deploy).
 */
export function readinessPolicy(when: ReadyWhen, pathsText: unknown): { policy: ReadinessPolicy } | { problem: ReadinessPolicyProblem } {
  if (when !== 'named') return { policy: { when } };
  const problem = routePathListProblem(pathsText);
  if (problem) return { problem };
  // one path named twice (as routes: case, slashes) is one receiver
  const paths: string[] = [];
  for (const path of routePathList(pathsText)) if (!paths.some((p) => samePathKey(p) === samePathKey(path))) paths.push(path);
  return { policy: { when, paths } };
}

export interface HealthAnswer {
  status: 200 | 404 | 503;
  body: {
    status: 'ok' | 'ready' | 'not ready' | 'unknown';
    /** Overall answers: the policy it was decided by, and the receivers it names. */
    policy?: ReadyWhen;
    named?: string[];
    receivers?: ReceiverHealth[];
    problems?: string[];
    message?: string;
  };
}

/** `//Hooks/A/` and `/hooks/a` are one path (as Express routes them: lib/http/route-path.ts). */
export function samePathKey(path: string): string {
  return typedRouteKey(path);
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

/** Whether the receivers deployed now make this instance ready by `policy`, and what concerns no single receiver. */
function decide(receivers: ReceiverHealth[], policy: ReadinessPolicy, texts: HealthTexts): { ready: boolean; problems: string[] } {
  if (policy.when !== 'named') {
    // No receiver takes events: nothing to send this instance yet.
    if (receivers.length === 0) return { ready: false, problems: [texts.none] };
    return { ready: policy.when === 'all' ? receivers.every((r) => r.ready) : receivers.some((r) => r.ready), problems: [] };
  }
  const problems: string[] = [];
  const named = policy.paths ?? [];
  let ready = named.length > 0;
  for (const path of named) {
    const key = samePathKey(path);
    const found = receivers.find((r) => samePathKey(r.path) === key);
    if (!found) problems.push(texts.missing(path));
    if (!found?.ready) ready = false;
  }
  if (named.length === 0) problems.push(texts.none);
  return { ready, problems };
}

/**
 * Readiness of the one receiver at `path` (whatever the policy), or overall
 * by `policy` (any receiver ready, by default). `texts` words the answers
 * that concern no single receiver.
 */
export function readiness(sources: MetricSources, path?: string, texts: HealthTexts = PLAIN, policy: ReadinessPolicy = ANY_RECEIVER): HealthAnswer {
  const deployed = sources.list('receiver').filter((e) => e.live.size > 0);
  if (path !== undefined) {
    const key = samePathKey(path);
    const entry = deployed.find((e) => samePathKey(e.key) === key);
    if (!entry) return { status: 404, body: { status: 'unknown', message: texts.unknown } };
    const one = healthOf(entry, texts.describe);
    return { status: one.ready ? 200 : 503, body: { status: one.ready ? 'ready' : 'not ready', receivers: [one] } };
  }
  const receivers = deployed.map((e) => healthOf(e, texts.describe));
  const { ready, problems } = decide(receivers, policy, texts);
  return {
    status: ready ? 200 : 503,
    body: {
      status: ready ? 'ready' : 'not ready',
      policy: policy.when,
      ...(policy.when === 'named' ? { named: [...(policy.paths ?? [])] } : {}),
      receivers,
      ...(problems.length > 0 ? { problems } : {}),
    },
  };
}
