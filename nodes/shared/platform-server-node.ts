/** What nodes using a platform-server config node see of it, and how they find it. */
import type { Node, NodeAPI } from 'node-red';
import type { OperationIndex } from '../../lib/openapi';
import type { PlatformClient } from '../../lib/platform';

export interface PlatformServerNode extends Node {
  /** The client, or an Error that says what is missing in the configuration. */
  getClient(): PlatformClient | Error;
  /** The operations of the server's OpenAPI file once loaded: undefined without one, an Error when it cannot be used. */
  getOperations(): Promise<OperationIndex | Error | undefined>;
}

/** The platform-server `id` as deployed, or undefined. */
export function platformServerOf(RED: NodeAPI, id: string): PlatformServerNode | undefined {
  const server = RED.nodes.getNode(id) as PlatformServerNode | null;
  return server && typeof server.getClient === 'function' ? server : undefined;
}

/** The client of the platform-server `id`: undefined when no such config node is deployed. */
export function platformClientOf(RED: NodeAPI, id: string): PlatformClient | Error | undefined {
  const server = RED.nodes.getNode(id) as PlatformServerNode | null;
  return server && typeof server.getClient === 'function' ? server.getClient() : undefined;
}
