/** What receivers see of a detection-listener configuration node, and how they find it. */
import type { Node, NodeAPI } from 'node-red';
import type { Listener } from '../../lib/http';

export interface ListenerConfigNode extends Node {
  /** The server, started on first use; or the text of what is wrong in the configuration. */
  use(): Listener | string;
}

/** The listener of the configuration node `id`: undefined when no such node is deployed. */
export function listenerOf(RED: NodeAPI, id: string | undefined): Listener | string | undefined {
  const config = id ? (RED.nodes.getNode(id) as ListenerConfigNode | null) : null;
  return config && typeof config.use === 'function' ? config.use() : undefined;
}
