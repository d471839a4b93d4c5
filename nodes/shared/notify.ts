/**
 * A problem the user must see after a deploy, not only as a red status: an
 * error notification in every open editor, as Node-RED shows its own runtime
 * problems, naming nodes as the user knows them (name and flow, never ids).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';

/** The package's name: a node set's catalog in the editor is `<package>/<type>`. */
const PACKAGE = 'node-red-contrib-detection-bridge';

/** How long the editor shows a notification. */
const NOTIFY_MS = 20_000;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** The label of flow (or subflow) `z`, as the editor shows it. */
export function flowLabel(RED: NodeAPI, z: string | undefined): string {
  let flow = z ?? '';
  RED.nodes.eachNode((n) => {
    const tab = n as NodeDef & { label?: string };
    if (tab.id === z && (tab.type === 'tab' || tab.type === 'subflow')) flow = tab.label || tab.name || tab.id;
  });
  return flow;
}

/** Deployed node `id` as the user knows it: its name (else its type's palette label) and its flow's label. */
export function describeNode(RED: NodeAPI, id: string, type: string): { name: string; flow: string } {
  const found = RED.nodes.getNode(id) as (Node & { name?: string; z?: string }) | null;
  return { name: found?.name || RED._(`${type}.paletteLabel`), flow: flowLabel(RED, found?.z) };
}

export interface EditorProblem {
  /** A key of the node type's catalog, below `<type>.`. */
  key: string;
  vars: Record<string, string>;
}

/**
 * Shows `problem` of node `nodeId` (of `type`) in every open editor, and in
 * one opened later (kept by the runtime until taken away); `null` takes it
 * away. It closes after a while or on a click (a notification without a time
 * cannot be closed; the status and the log keep saying it). Sent as a key of
 * the type's catalog, so each editor shows it in its own language; the values
 * are escaped, as the editor shows the notification as HTML.
 */
export function notifyEditors(RED: NodeAPI, type: string, nodeId: string, problem: EditorProblem | null): void {
  const topic = `notification/${type}-${nodeId}`;
  if (!problem) {
    RED.comms.publish(topic, {}, false);
    return;
  }
  const vars = Object.fromEntries(Object.entries(problem.vars).map(([k, v]) => [k, escapeHtml(v)]));
  RED.comms.publish(topic, { ...vars, text: `${PACKAGE}/${type}:${type}.${problem.key}`, type: 'error', timeout: NOTIFY_MS }, true);
}
