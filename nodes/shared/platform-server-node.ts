/** What nodes using a platform-server config node see of it, and how they find it. */
import type { Node, NodeAPI } from 'node-red';
import type { PlatformClient } from '../../lib/platform/client';

export interface PlatformServerNode extends Node {
  /** The client, or an Error that says what is missing in the configuration. */
  getClient(): PlatformClient | Error;
}

/** The client of the platform-server `id`: undefined when no such config node is deployed. */
export function platformClientOf(RED: NodeAPI, id: string): PlatformClient | Error | undefined {
  const server = RED.nodes.getNode(id) as PlatformServerNode | null;
  return server && typeof server.getClient === 'function' ? server.getClient() : undefined;
}
