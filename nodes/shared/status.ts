/**
 * The status under a node: counts that follow a burst of events without one
 * editor update per event, and the red "not configured" state of a node that
 * cannot run.
 */
import type { Node, NodeStatus } from 'node-red';
import { throttle, type Throttled } from './throttle';
import { coded } from './i18n';

/** How often a counting status is redrawn at most. */
export const STATUS_INTERVAL_MS = 250;

/**
 * A status redrawn at most every 250 ms from `render()`, always with the
 * latest state. Cancelled when the node closes, and silent after.
 */
export function throttledStatus(node: Node, render: () => NodeStatus): Throttled {
  // A closed node's status is its successor's: nothing late (a timer, an open that failed) redraws it.
  let closed = false;
  const show = throttle(() => {
    if (!closed) node.status(render());
  }, STATUS_INTERVAL_MS);
  node.on('close', () => {
    closed = true;
    show.cancel();
  });
  return show;
}

/**
 * A node whose configuration cannot run: a red status, the problem logged
 * once at deploy, and every message that arrives completed with the same
 * error (code `code`), so Catch nodes see why nothing happens.
 */
export function failConfig(node: Node, statusText: string, problem: string, code: string): void {
  node.status({ fill: 'red', shape: 'ring', text: statusText });
  node.error(problem);
  node.on('input', (_msg: unknown, _send: unknown, done: (err?: Error) => void) => done(coded(problem, code)));
}
