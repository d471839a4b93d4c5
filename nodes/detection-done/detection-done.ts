/**
 * detection-done: marks the event of a message finished, at the end of a
 * flow. Until then its detection-in keeps the event and emits it again
 * (msg.redelivered) after a restart, a deploy that stopped its flow, or the
 * receiver's time limit. The message goes on unchanged. Only a receiver with
 * this node downstream (or set to wait for one) holds its events for it: the
 * receiver decides (lib/delivery/downstream.ts). Set to *Failed* (after a
 * Catch node) it marks the attempt failed instead, with the caught error: the
 * receiver tries the event again after a pause, or keeps it aside.
 */
import type { NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { completion, errorText } from '../../lib/delivery';
import { nodeOptions, type SavedOptions } from '../../lib/config';
import { statusText } from '../shared/i18n';
import { throttledStatus } from '../shared/status';
import { registerNode } from '../shared/register';

type DetectionDoneDef = NodeDef & SavedOptions<'detection-done'>;

export = function register(RED: NodeAPI): void {
  registerNode<DetectionDoneDef>(RED, 'detection-done', (node, config) => {
    const s = statusText(RED, 'detection-done');
    const { passOn, outcome } = nodeOptions('detection-done', config);
    const counts = { done: 0, failed: 0, untracked: 0 };
    const showStatus = throttledStatus(node, () =>
      outcome === 'failed'
        ? { fill: counts.failed > 0 ? 'yellow' : 'green', shape: 'dot', text: s('status.failed', counts) }
        : { fill: 'green', shape: 'dot', text: s('status.counts', counts) },
    );

    node.on('input', (msg: NodeMessage, send: (msg: NodeMessage) => void, done: (err?: Error) => void) => {
      if (outcome === 'failed') {
        // A message without a delivery, or whose event is no longer in flight (finished, or
        // failed already by another copy): nothing to fail.
        if (completion.fail(msg, errorText(msg))) counts.failed++;
        else counts.untracked++;
      }
      // Another copy of the message (two wires) may have finished it already: still done.
      else if (completion.finish(msg)) counts.done++;
      else counts.untracked++;
      showStatus();
      if (passOn) send(msg);
      done();
    });
  });
};
