/**
 * What nodes using a detection-redis configuration node see of it: its
 * shared connection, and the status text of the connection's state
 * (`redis: connected`, `redis: unreachable, retrying`, `redis: loading its data, waiting`).
 */
import type { Node, NodeAPI, NodeStatus } from 'node-red';
import type { ConnectionState, RedisConnection } from '../../lib/redis';
import { translate } from './i18n';

export interface RedisConfigNode extends Node {
  /** The connection, or undefined when the configuration cannot run (its own status says why). */
  connection: RedisConnection | undefined;
}

/** The connection of the detection-redis node `id`: undefined when none is deployed or it cannot run. */
export function redisOf(RED: NodeAPI, id: string | undefined): RedisConnection | undefined {
  if (!id) return undefined;
  const config = RED.nodes.getNode(id) as RedisConfigNode | null;
  return config?.connection;
}

/** A using node's status: its own `text`, then the connection's state, which sets the colour.
 *  `confirming`: the node's writes wait for Confirm on replicas (a receiver), so a shortfall is its to show. */
export function withRedisState(RED: NodeAPI, connection: RedisConnection, text: string, confirming = false): NodeStatus {
  const state: ConnectionState = connection.state;
  const shown = `${text} · ${redisStateText(RED, connection)}`;
  // Confirm on disk asked where the server cannot give it: every event is refused, say why.
  const confirmProblem = connection.confirmer?.problem;
  if (state === 'connected' && confirmProblem) return { fill: 'red', shape: 'ring', text: `${shown} · ${translate(RED, confirmProblem)}` };
  // Confirming on fewer replicas than asked (as chosen): running, but on fewer machines than asked.
  const shortfall = confirming && state === 'connected' ? connection.shortfall : undefined;
  if (shortfall) return { fill: 'yellow', shape: 'dot', text: `${shown} · ${RED._('redis.confirm-fewer', { ...shortfall })}` };
  if (state === 'connected') return { fill: 'green', shape: 'dot', text: shown };
  if (state === 'connecting') return { fill: 'yellow', shape: 'ring', text: shown };
  return { fill: 'red', shape: 'ring', text: shown };
}

/** The connection's state in words; sentinel mode names the primary in use, or says a failover is under way. */
export function redisStateText(RED: NodeAPI, connection: RedisConnection): string {
  const state = connection.state;
  if (connection.loading) return RED._('redis.state.loading');
  if (connection.mode === 'sentinel') {
    if (state === 'connected') return RED._('redis.sentinel.connected', { primary: connection.primary ?? '' });
    if (state === 'unreachable')
      return RED._(connection.failover ? 'redis.sentinel.failover' : connection.primary ? 'redis.state.unreachable' : 'redis.sentinel.no-primary');
  }
  return RED._(`redis.state.${state}`);
}
