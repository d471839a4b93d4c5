/**
 * Registers a node type whose setup is a plain function of the node and its
 * configuration: Node-RED calls a constructor with the node as `this`, and
 * every adapter would otherwise begin with `createNode` and `const node = this`.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';

export interface NodeTypeOptions<TCreds extends object> {
  /** Credential fields (`password` ones never reach the editor). */
  credentials?: { [K in keyof TCreds]: { type: 'text' | 'password' } };
}

export function registerNode<TDef extends NodeDef, TCreds extends object = object, TNode extends Node<TCreds> = Node<TCreds>>(
  RED: NodeAPI,
  type: string,
  setup: (node: TNode, config: TDef) => void,
  options?: NodeTypeOptions<TCreds>,
): void {
  RED.nodes.registerType(
    type,
    function (this: TNode, config: TDef) {
      RED.nodes.createNode(this, config);
      setup(this, config);
    },
    options,
  );
}
