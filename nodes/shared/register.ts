/**
 * Registers a node type whose setup is a plain function of the node and its
 * configuration: Node-RED calls a constructor with the node as `this`, and
 * every adapter would otherwise begin with `createNode` and `const node = this`.
 *
 * The configuration the setup gets is always of the current version: one
 * saved by an older release of the package is migrated first
 * (lib/config/migrate.ts), so each adapter reads one shape only.
 *
 * A setup that throws (a flow edited by hand with a value of a type no dialog
 * saves) would make Node-RED drop the node, and every message wired to it
 * would vanish without a trace: the node is kept instead, red, and ends each
 * message with the error (failConfig), so Catch nodes see it.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { upToDate } from './config-version';
import { serveEditorScript } from './editor-script';
import { flowError } from './i18n';
import { failConfig } from './status';

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
      try {
        setup(this, upToDate(RED, this, type, saved));
      } catch (err) {
        // Setups register their input handler last: a throw comes before it.
        const problem = RED._('setup.failed', { node: RED._(`${type}.paletteLabel`), message: flowError(RED, err).message });
        // The status as its key, for the editor's language: shared.json's keys are merged into every node's catalog.
        failConfig(this, 'setup.status', problem, 'ERR_CONFIG');
      }
    },
    options,
  );
}
