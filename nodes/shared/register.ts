/**
 * Registers a node type whose setup is a plain function of the node and its
 * configuration: Node-RED calls a constructor with the node as `this`, and
 * every adapter would otherwise begin with `createNode` and `const node = this`.
 *
 * The configuration the setup gets is always of the current version: one
 * saved by an older release of the package is migrated first
 * (lib/config/migrate.ts), so each adapter reads one shape only.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { upToDate } from './config-version';
import { serveEditorScript } from './editor-script';

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
  serveEditorScript(RED);
  RED.nodes.registerType(
    type,
    function (this: TNode, saved: TDef) {
      RED.nodes.createNode(this, saved);
      setup(this, upToDate(RED, this, type, saved));
    },
    options,
  );
}
