/**
 * detection-done: marks the event of a message finished, at the end of a
 * flow. Until then its detection-in keeps the event and emits it again
 * (msg.redelivered) after a restart, a deploy that stopped its flow, or the
 * receiver's time limit. The message goes on unchanged. Only a receiver with
 * this node downstream (or set to wait for one) holds its events for it: the
 * receiver decides (lib/delivery/downstream.ts).
 */
import type { NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { completion } from '../../lib/delivery/completion';
import { nodeOptions } from '../../lib/config/node-options';
import { nodeText } from '../shared/i18n';
import { throttledStatus } from '../shared/status';
import { registerNode } from '../shared/register';

interface DetectionDoneDef extends NodeDef {
  passOn?: boolean | string;
}

export = function register(RED: NodeAPI): void {
  registerNode<DetectionDoneDef>(RED, 'detection-done', (node, config) => {
    const t = nodeText(RED, 'detection-done');
    const { passOn } = nodeOptions('detection-done', config);
    const counts = { done: 0, untracked: 0 };
    const showStatus = throttledStatus(node, () => ({ fill: 'green', shape: 'dot', text: t('status.counts', counts) }));

    node.on('input', (msg: NodeMessage, send: (msg: NodeMessage) => void, done: (err?: Error) => void) => {
      // Another copy of the message (two wires) may have finished it already: still done.
      if (completion.finish(msg)) counts.done++;
      else counts.untracked++;
      showStatus();
      if (passOn) send(msg);
      done();
    });
  });
};
