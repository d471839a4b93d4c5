/**
 * platform-push: pushes POS transactions and other data into the platform v2
 * API in batches. Batching and retries are lib/platform/push-queue.ts; the
 * value checks lib/platform/push-schemas.ts; the sign-in is the
 * platform-server's client.
 */
import type { NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from 'node-red';
import { fillPath } from '../../lib/platform/path-template';
import { posBatchPath } from '../../lib/platform/url';
import { PushQueue, type BatchResult, type RetryInfo } from '../../lib/platform/push-queue';
import { checkPushItems } from '../../lib/platform/push-schemas';
import { choiceOption, dialogOptions, field, numberOption } from '../../lib/options';
import { coded, flowError, nodeText, translate } from '../shared/i18n';
import { platformClientOf } from '../shared/platform-server-node';
import { registerNode } from '../shared/register';
import { failConfig, throttledStatus } from '../shared/status';

const OPERATIONS = ['pos', 'casino-ratings', 'tito', 'face-detections', 'plate-reads'] as const;

interface PlatformPushDef extends NodeDef {
  server: string;
  operation: string;
  posId: string;
  path: string;
  batchSize: number | string;
  batchMs: number | string;
  maxRetries: number | string;
}

type Done = (err?: Error) => void;
interface Ticket {
  msg: NodeMessageInFlow;
  done: Done;
}

export = function register(RED: NodeAPI): void {
  registerNode<PlatformPushDef>(RED, 'platform-push', (node, config) => {
    const t = nodeText(RED, 'platform-push');
    const options = dialogOptions(
      {
        operation: field(choiceOption(OPERATIONS), 'pos'),
        batchSize: field(numberOption({ integer: true, min: 1 }), 100),
        batchMs: field(numberOption({ min: 0 }), 1000),
        maxRetries: field(numberOption({ integer: true, min: 0 }), 5),
      },
      config,
    );
    const { operation } = options;
    const template = (config.path || '').trim();
    const client = platformClientOf(RED, config.server) ?? new Error(t('errors.no-server'));
    if (client instanceof Error || (operation !== 'pos' && !template)) {
      failConfig(node, t('status.error'), client instanceof Error ? client.message : t('errors.no-path'), 'ERR_PUSH_CONFIG');
      return;
    }

    const showStatus = throttledStatus(node, () => {
      const s = queue.stats();
      return {
        fill: s.failed > 0 ? 'red' : s.queued + s.inFlight > 0 ? 'yellow' : 'green',
        shape: 'dot',
        text: t('status.counts', { pushed: s.pushed, queued: s.queued + s.inFlight, failed: s.failed }),
      };
    });
    /** A retry shows at once how long it waits (the server's Retry-After or the backoff). */
    function showRetry(info: RetryInfo): void {
      const s = queue.stats();
      showStatus.cancel();
      node.status({
        fill: 'yellow',
        shape: 'ring',
        text: t('status.retrying', { seconds: Math.round(info.delayMs / 100) / 10, queued: s.queued + s.inFlight }),
      });
    }

    const queue = new PushQueue<unknown, Ticket>({
      maxItems: options.batchSize,
      maxWaitMs: options.batchMs,
      maxRetries: options.maxRetries,
      // The batch id is stable across retries of one batch: the server can use it to drop a repeat.
      send: (path, items, ctx) =>
        client.request({ method: 'POST', path, body: items, headers: { 'idempotency-key': ctx.batchId }, signal: ctx.signal }),
      onRetry: showRetry,
      onBatchDone: (result: BatchResult<unknown, Ticket>) => {
        showStatus();
        if (!result.ok) return; // the messages it carried go to Catch nodes, below
        node.send({ payload: result.body, statusCode: result.statusCode, count: result.items.length, path: result.path } as NodeMessage);
      },
    });

    /** The request path for a message, or the error that stops it. */
    function pathFor(msg: NodeMessageInFlow): string | Error {
      if (operation === 'pos') {
        const posId = (msg as { posId?: unknown }).posId ?? config.posId;
        if (posId === undefined || posId === null || String(posId).trim() === '') return coded(t('errors.no-pos'), 'ERR_PUSH_NO_POS');
        return posBatchPath(String(posId).trim());
      }
      const filled = fillPath(template, (name) => {
        try {
          return RED.util.getMessageProperty(msg, name);
        } catch {
          return undefined;
        }
      });
      return filled.ok ? filled.path : coded(t('errors.placeholder', { name: filled.missing }), 'ERR_PUSH_PLACEHOLDER');
    }

    node.on('input', (msg: NodeMessageInFlow, _send: unknown, done: Done) => {
      const payload = msg.payload;
      const items = Array.isArray(payload) ? payload : payload !== null && typeof payload === 'object' ? [payload] : [];
      if (items.length === 0) {
        done(coded(t('errors.empty'), 'ERR_PUSH_EMPTY'));
        return;
      }
      const checked = checkPushItems(items);
      if (!checked.ok) {
        const [first] = checked.errors;
        done(
          coded(t('errors.invalid-item', { item: first.item, path: first.path, message: translate(RED, first) }), 'ERR_PUSH_INVALID', {
            errors: checked.errors,
          }),
        );
        return;
      }
      const path = pathFor(msg);
      if (path instanceof Error) {
        done(path);
        return;
      }
      void queue.add(path, items, { msg, done }).then((outcome) => {
        showStatus();
        if (outcome.ok) {
          done();
          return;
        }
        // Catch nodes get the message with the server's answer beside it.
        const error = outcome.error;
        const withAnswer = msg as NodeMessageInFlow & { statusCode?: number; response?: unknown };
        if (error?.status !== undefined) withAnswer.statusCode = error.status;
        if (error?.body !== undefined) withAnswer.response = error.body;
        if (!error) done(coded(t('errors.closed'), 'ERR_PUSH'));
        else if (error.code === 'ERR_PUSH_CLOSED') done(coded(t('errors.closed'), error.code));
        else done(Object.assign(flowError(RED, error), { statusCode: error.status }));
      });
      showStatus();
    });

    node.on('close', (done: () => void) => {
      // Send what is queued; what cannot go in time is reported to Catch nodes by its ticket.
      void queue.close().then(() => {
        showStatus.cancel();
        done();
      });
    });
  });
};
