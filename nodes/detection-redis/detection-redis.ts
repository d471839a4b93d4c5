/**
 * detection-redis: configuration node for a Redis server shared by several
 * Node-RED instances. Owns one connection (lib/redis/connection.ts) used by
 * every node that names it: a dedupe window shared through Redis, a receiver
 * that acknowledges once an event is written to a Redis stream. Lost and
 * back are each said once in Node-RED's log (a flapping server at most once a
 * minute: lib/core/outage-report.ts), naming the server.
 */
import { hostname } from 'node:os';
import type { NodeAPI, NodeDef } from 'node-red';
import { RedisConnection, RedisSettings, type RedisCredentials, type Shortfall } from '../../lib/redis';
import { createOutageReport, parseOptions } from '../../lib/core';
import { nodeOptions, type SavedOptions } from '../../lib/config';
import { nodeText, translate } from '../shared/i18n';
import { registerNode } from '../shared/register';
import type { RedisConfigNode } from '../shared/redis';

/** Redis lost is said at most this often (ms). */
const OUTAGE_PERIOD_MS = 60_000;

/** The server as a log names it: host and port of the URL (never its credentials), or the sentinels' primary. */
function serverName(config: DetectionRedisDef, primary: string | undefined): string {
  if (config.mode === 'sentinel') return primary ?? config.primaryName ?? '';
  try {
    return new URL(config.url).host;
  } catch {
    return '';
  }
}

interface DetectionRedisDef extends NodeDef, SavedOptions<'detection-redis'> {
  url: string;
  ca?: string;
  prefix?: string;
  instance?: string;
  // Sentinel mode
  sentinels?: string;
  primaryName?: string;
}

/** The Confirm options of a saved node, through the table (lib/config/node-options.ts). */
function confirmOptions(config: DetectionRedisDef): { confirmReplicas: number; confirmTimeoutMs: number; confirmAof: string; confirmFewer: string } {
  const { confirmReplicas, confirmTimeoutMs, confirmAof, confirmFewer } = nodeOptions('detection-redis', config);
  return { confirmReplicas, confirmTimeoutMs, confirmAof, confirmFewer };
}

export = function register(RED: NodeAPI): void {
  registerNode<DetectionRedisDef, RedisCredentials, RedisConfigNode>(
    RED,
    'detection-redis',
    (node, config) => {
      const t = nodeText(RED, 'detection-redis');
      node.connection = undefined;
      const parsed = parseOptions(RedisSettings, {
        url: config.url,
        database: config.database === '' || config.database === null ? undefined : config.database,
        tls: config.tls,
        tlsInsecure: config.tlsInsecure,
        ca: config.ca || undefined,
        prefix: config.prefix ?? undefined,
        instance: config.instance || undefined,
        // Sentinel mode: absent in flows saved before it (single)
        mode: config.mode || undefined,
        sentinels: config.sentinels || undefined,
        primaryName: config.primaryName || undefined,
        // Confirm on replicas / on disk: a missing or wrong value takes the dialog's default (not confirmed).
        ...confirmOptions(config),
      });
      if (!parsed.ok) {
        const [problem] = parsed.problems;
        node.error(t('errors.config', { message: `${problem.option}: ${translate(RED, problem)}` }));
        return;
      }
      // Instances that share a stream need different names; the host and port tell them apart.
      const port = (RED.settings as unknown as { uiPort?: number }).uiPort ?? 1880;
      const connection = new RedisConnection({ ...parsed.value, credentials: node.credentials }, `${hostname()}:${port}`);
      node.connection = connection;
      let lastLogged: string | undefined;
      const server = (): string => serverName(config, connection.primary);
      const outage = createOutageReport({
        periodMs: OUTAGE_PERIOD_MS,
        sayLost: (count) =>
          node.warn(
            t(count > 0 ? 'warn.unreachable-again' : 'warn.unreachable', { server: server(), message: connection.error?.message ?? '', count }),
          ),
        sayBack: (ms) => node.warn(t('warn.reachable', { server: server(), seconds: Math.round(ms / 1000) })),
      });
      connection.on('state', (state: string) => {
        if (state === 'unreachable') outage.lost();
        if (state === 'connected') outage.back();
        // Sentinel mode: the primary in use, once connected to it (after each failover too)
        if (state === 'connected' && connection.primary && lastLogged !== 'connected') node.log(t('log.primary', { primary: connection.primary }));
        lastLogged = state;
      });
      // Asked to confirm on disk where the server cannot: said once per change (takes are answered 503 meanwhile).
      connection.confirmer.onProblem = (problem) => {
        if (problem) node.error(t('errors.confirm', { message: translate(RED, problem) }));
        else node.log(t('log.confirm-ok'));
      };
      // Confirming on fewer replicas than asked (With fewer replicas: on those connected): said once per change.
      connection.on('shortfall', (shortfall: Shortfall | undefined) => {
        if (shortfall) node.warn(t('warn.confirm-fewer', { ...shortfall }));
        else node.log(t('log.confirm-all', { asked: parsed.value.confirmReplicas ?? 0 }));
      });
      connection.open();
      node.on('close', (_removed: boolean, done: () => void) => {
        node.connection = undefined;
        outage.close();
        connection.close().then(done, done);
      });
    },
    {
      credentials: {
        user: { type: 'text' },
        password: { type: 'password' },
        // Sentinel mode: the sentinels' own, apart from Redis's
        sentinelUser: { type: 'text' },
        sentinelPassword: { type: 'password' },
      },
    },
  );
};
