/**
 * What detection-in shows an operator (lib/metrics): the counts its status
 * keeps, its store's stats and in-flight events, read when a monitor is
 * asked; whether it takes events now (readiness); and one duration per
 * request, the only work it adds per request. Registered under the
 * receiver's configured path, so the counters go on across deploys.
 */
import type { Node } from 'node-red';
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { metricSources, type ReadinessProblem } from '../../lib/metrics';
import { type DeliveryStats, type EventDelivery, STREAM_GROUP } from '../../lib/delivery';
import type { RedisConnection } from '../../lib/redis';
import type { ReceiverStatus } from './status';

export interface ReceiverMetrics {
  /** Its route serves (not only holds what arrives for it). */
  mounted: boolean;
  /** Set when the receiver cannot take events at all (its settings, a listener's port); shown as it is. */
  problem: string | undefined;
  /** Where counts, the store and Redis are read from, once the receiver has them. */
  attach(parts: { status: ReceiverStatus; redis?: RedisConnection; listenerFailed?: () => boolean }): void;
  /** A timer for one request: call the result once it is answered. */
  time(res: ServerResponse): () => void;
}

const ZERO: DeliveryStats = { redelivered: 0, failed: 0, deadLettered: 0, deadLettersDropped: 0, deadLetters: 0, oldestUnfinishedAt: undefined };

/** The store's stats where it has them (the dead-letter work adds them), counted from `since`. */
function statsOf(tracker: EventDelivery<unknown> | undefined): DeliveryStats {
  return (tracker as { stats?: DeliveryStats } | undefined)?.stats ?? ZERO;
}

/**
 * Registers receiver `node` under `label` (its configured path). `previous` is the store its
 * instance before this deploy left (memory mode keeps it): what it had counted is already in the
 * totals, so only what it counts from now on is added.
 */
export function receiverMetrics(node: Node, label: string, previous: EventDelivery<unknown> | undefined): ReceiverMetrics {
  let status: ReceiverStatus | undefined;
  let redis: RedisConnection | undefined;
  let listenerFailed: (() => boolean) | undefined;
  const before = { ...statsOf(previous) };
  const trackerNow = (): EventDelivery<unknown> | undefined => status?.delivery?.tracker as EventDelivery<unknown> | undefined;
  /** A counter of the store's stats since this instance began. */
  const since = (name: 'redelivered' | 'failed' | 'deadLettered' | 'deadLettersDropped'): number => {
    const tracker = trackerNow();
    const value = statsOf(tracker)[name];
    return tracker !== undefined && tracker === previous ? Math.max(0, value - before[name]) : value;
  };

  const metrics: ReceiverMetrics = {
    mounted: false,
    problem: undefined,
    attach(parts) {
      status = parts.status;
      redis = parts.redis;
      listenerFailed = parts.listenerFailed;
    },
    time(res) {
      const started = performance.now();
      return () => registration.meter.observe(res.statusCode, (performance.now() - started) / 1000);
    },
  };

  const registration = metricSources.register('receiver', label, {
    read() {
      const tracker = trackerNow();
      const stats = statsOf(tracker);
      return {
        counters: {
          accepted: status?.counts.received ?? 0,
          redelivered: since('redelivered'),
          failed: since('failed'),
          deadLettered: since('deadLettered'),
          deadLettersDropped: since('deadLettersDropped'),
        },
        gauges: tracker
          ? {
              inFlightEvents: tracker.pending.events,
              inFlightBytes: tracker.pending.bytes,
              oldestUnfinishedAgeSeconds: stats.oldestUnfinishedAt === undefined ? 0 : Math.max(0, (Date.now() - stats.oldestUnfinishedAt) / 1000),
              deadLetters: stats.deadLetters,
              journalBytes: tracker.mode === 'disk' ? tracker.journalBytes : undefined,
            }
          : {},
      };
    },
    async readSlow() {
      const tracker = trackerNow() as (EventDelivery<unknown> & { key?: string }) | undefined;
      if (tracker?.mode !== 'redis' || !tracker.key || !redis?.ready) return {};
      // XPENDING's summary: the count of entries taken by any instance and not acknowledged.
      const reply = (await redis.client.sendCommand(['XPENDING', tracker.key, STREAM_GROUP])) as unknown[];
      return { streamPending: Number(reply?.[0] ?? 0) };
    },
    ready() {
      const problems: ReadinessProblem[] = [];
      if (metrics.problem !== undefined) problems.push({ code: 'not-configured', detail: metrics.problem });
      else if (listenerFailed?.()) problems.push({ code: 'listener-failed' });
      else if (!metrics.mounted) problems.push({ code: 'not-mounted' });
      if (status?.failed !== undefined) problems.push({ code: 'store-failed', detail: status.failed });
      if (redis && !redis.ready) problems.push({ code: 'redis-unreachable', detail: redis.error?.message });
      const tracker = trackerNow();
      if (!tracker && status?.failed === undefined && metrics.problem === undefined) problems.push({ code: 'store-opening' });
      // Disk mode: the journal's disk is full; it refuses events until finished ones free their room.
      if (tracker?.outOfSpace) problems.push({ code: 'disk-full' });
      else if (tracker && problems.every((p) => p.code !== 'redis-unreachable')) {
        // What refuses the next event now: in flight full, the journal full (disk), Redis.
        try {
          tracker.checkRoom(0);
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
  node.on('close', () => registration.unregister());
  return metrics;
}
