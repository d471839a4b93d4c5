/** What nodes using an events-bridge configuration node see of it, and how they find it. */
import type { Node, NodeAPI } from 'node-red';
import type { EventsBridgeClient } from '../../lib/bridge';

export interface EventsBridgeNode extends Node {
  /** The bridge's one client (samples and enrollment, lib/bridge/client.ts), or an Error that says what is wrong in the configuration. */
  getClient(): EventsBridgeClient | Error;
  /** The account's tag prefix (normalised, '' for none), or an Error that says it is not valid. */
  getTagPrefix(): string | Error;
}

/** The client of the events-bridge node `id`: undefined when no such configuration node is deployed. */
export function eventsBridgeOf(RED: NodeAPI, id: string | undefined): EventsBridgeClient | Error | undefined {
  const config = id ? (RED.nodes.getNode(id) as EventsBridgeNode | null) : null;
  return config && typeof config.getClient === 'function' ? config.getClient() : undefined;
}

/** The tag prefix of the events-bridge node `id`: undefined when no such configuration node is deployed. */
export function tagPrefixOf(RED: NodeAPI, id: string): string | Error | undefined {
  const config = RED.nodes.getNode(id) as EventsBridgeNode | null;
  return config && typeof config.getTagPrefix === 'function' ? config.getTagPrefix() : undefined;
}
