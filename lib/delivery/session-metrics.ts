/**
 * What a receiver shows an operator (lib/metrics): the counts of its store
 * session, its store's stats and in-flight events, read when a monitor is
 * asked; whether it takes events now (readiness); and one duration per
 * request, the only work it adds per request. Registered under the
 * receiver's configured path, so the counters go on across deploys.
 */
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { metricSources, type ReadinessProblem } from '../metrics';
import type { StoreSession } from './session';
import { RedisStreamDelivery } from './stream';

export interface ReceiverMetrics {
  /** Its route serves (not only holds what arrives for it). */
  mounted: boolean;
  /** Set when the receiver cannot take events at all (its settings, a listener's port); shown as it is. */
  problem: string | undefined;
  /** Where counts, the store and Redis are read from, once the receiver has them. */
  attach(parts: { session: StoreSession; listenerFailed?: () => boolean }): void;
  /** A timer for one request: call the result once it is answered. */
  time(res: ServerResponse): () => void;
  /** The receiver is stopped: its counts are kept for the next one under its label. */
  unregister(): void;
}

/** Seconds since `at` (ms since the epoch); 0 when there is nothing. */
function ageSeconds(at: number | undefined): number {
  return at === undefined ? 0 : Math.max(0, (Date.now() - at) / 1000);
}

/** Registers receiver `node` under `label` (its configured path); its session counts what is new since this instance began. */
export function receiverMetrics(label: string): ReceiverMetrics {
  let session: StoreSession | undefined;
  let listenerFailed: (() => boolean) | undefined;
  const metrics: ReceiverMetrics = {
    mounted: false,
    problem: undefined,
    attach(parts) {
      session = parts.session;
      listenerFailed = parts.listenerFailed;
    },
    time(res) {
      const started = performance.now();
      return () => registration.meter.observe(res.statusCode, (performance.now() - started) / 1000, res.req?.method);
    },
    unregister: () => registration.unregister(),
  };

  const registration = metricSources.register('receiver', label, {
    read() {
      const store = session?.opened;
      const stats = store?.stats;
      const redis = session?.redis;
      return {
        counters: {
          accepted: session?.status.counts.received ?? 0,
          redelivered: session?.since('redelivered') ?? 0,
          failed: session?.since('failed') ?? 0,
          deadLettered: session?.since('deadLettered') ?? 0,
          deadLettersDropped: session?.since('deadLettersDropped') ?? 0,
        },
        gauges: store
          ? {
              inFlightEvents: store.pending.events,
              inFlightBytes: store.pending.bytes,
              oldestUnfinishedAgeSeconds: ageSeconds(stats?.oldestUnfinishedAt),
              oldestUnpausedAgeSeconds: ageSeconds(stats?.oldestUnpausedAt),
              deadLetters: store.stats.deadLetters,
              journalBytes: session?.status.journalBytes,
              // Redis mode: whether its connection is up (an alert apart from readiness, which has many causes).
              redisUp: redis ? (redis.ready ? 1 : 0) : undefined,
            }
          : { redisUp: redis ? (redis.ready ? 1 : 0) : undefined },
      };
    },
    async readSlow() {
      const store = session?.opened;
      if (!(store instanceof RedisStreamDelivery) || !session?.redis?.ready) return {};
      // the group's pending count: entries taken by any instance and not acknowledged
      return { streamPending: await store.readGroupPending() };
    },
    ready() {
      const problems: ReadinessProblem[] = [];
      const redis = session?.redis;
      const failed = session?.status.failed;
      if (metrics.problem !== undefined) problems.push({ code: 'not-configured', detail: metrics.problem });
      else if (listenerFailed?.()) problems.push({ code: 'listener-failed' });
      else if (!metrics.mounted) problems.push({ code: 'not-mounted' });
      if (failed !== undefined) problems.push({ code: 'store-failed', detail: failed });
      if (redis && !redis.ready) problems.push({ code: 'redis-unreachable', detail: redis.error?.message });
      const store = session?.opened;
      if (!store && failed === undefined && metrics.problem === undefined) problems.push({ code: 'store-opening' });
      // Disk mode: the journal's disk is full; it refuses events until finished ones free their room.
      if (store?.outOfSpace) problems.push({ code: 'disk-full' });
      else if (store && problems.every((p) => p.code !== 'redis-unreachable')) {
        // What refuses the next event now: in flight full, the journal full (disk), Redis.
        try {
          store.checkRoom(0);
        } catch (err) {
          const code = (err as { code?: string }).code;
          problems.push({
            code: code === 'ERR_DELIVERY_BUSY' ? 'busy' : code === 'ERR_JOURNAL_FULL' ? 'journal-full' : 'refusing',
            detail: (err as Error).message,
          });
        }
      }
      // Sentinel mode: which primary this receiver's events go to, or that one is being promoted
      // and, confirming on fewer replicas than asked, how many
      const shortfall = redis?.shortfall;
      const primary =
        redis && (redis.mode === 'sentinel' || shortfall)
          ? {
              redis: {
                ...(redis.primary ? { primary: redis.primary } : {}),
                failover: redis.failover,
                ...(shortfall ? { shortfall: { ...shortfall } } : {}),
              },
            }
          : {};
      return { ok: problems.length === 0, problems, ...primary };
    },
  });
  return metrics;
}
