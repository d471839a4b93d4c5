/**
 * platform-push: pushes POS transactions and other data into the platform v2
 * API in batches. Batching and retries are lib/push.ts; the value checks
 * lib/push-schemas.ts; the sign-in is the platform-server's client.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from 'node-red';
import { fillPath } from '../../lib/platform/path-template';
import { PlatformClient } from '../../lib/platform/client';
import { posBatchPath } from '../../lib/platform/url';
import { PushQueue, type BatchResult, type PushError } from '../../lib/platform/push-queue';
import { checkPushItems } from '../../lib/platform/push-schemas';
import { throttle } from '../shared/throttle';
import type { PlatformServerNode } from '../shared/platform-server-node';

type Operation = 'pos' | 'casino-ratings' | 'tito' | 'face-detections' | 'plate-reads';
const OPERATIONS: readonly Operation[] = ['pos', 'casino-ratings', 'tito', 'face-detections', 'plate-reads'];

interface PlatformPushDef extends NodeDef {
  server: string;
  operation: Operation;
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

const coded = (message: string, code: string): Error => Object.assign(new Error(message), { code });

export = function register(RED: NodeAPI): void {
  function PlatformPush(this: Node, config: PlatformPushDef): void {
    RED.nodes.createNode(this, config);
    const node = this;
    const t = (key: string, vars?: Record<string, string | number>): string => RED._(`platform-push.${key}`, vars);

    const server = RED.nodes.getNode(config.server) as PlatformServerNode | null;
    const client = server && typeof server.getClient === 'function' ? server.getClient() : new Error(t('errors.no-server'));
    const operation: Operation = OPERATIONS.includes(config.operation) ? config.operation : 'pos';
    const template = (config.path || '').trim();

    if (client instanceof Error || (operation !== 'pos' && !template)) {
      const problem = client instanceof Error ? client.message : t('errors.no-path');
      node.status({ fill: 'red', shape: 'ring', text: t('status.error') });
      node.error(problem);
      node.on('input', (_msg: NodeMessageInFlow, _send: unknown, done: Done) => done(coded(problem, 'ERR_PUSH_CONFIG')));
      return;
    }
    const platform: PlatformClient = client;

    const showStatus = throttle(() => {
      const s = queue.stats();
      node.status({
        fill: s.failed > 0 ? 'red' : s.queued + s.inFlight > 0 ? 'yellow' : 'green',
        shape: 'dot',
        text: t('status.counts', { pushed: s.pushed, queued: s.queued + s.inFlight, failed: s.failed }),
      });
    }, 250);

    const queue = new PushQueue<unknown, Ticket>({
      maxItems: positiveInt(config.batchSize, 100),
      maxWaitMs: nonNegative(config.batchMs, 1000),
      maxRetries: nonNegativeInt(config.maxRetries, 5),
      // The batch id is stable across retries of one batch: the server can use it to drop a repeat.
      send: (path, items, ctx) =>
        platform.request({ method: 'POST', path, body: items, headers: { 'idempotency-key': ctx.batchId }, signal: ctx.signal }),
      onRetry: () => showStatus(),
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

    function failure(error: PushError | undefined, count: number, path: string): Error {
      const reason = error ? error.message : '';
      return Object.assign(coded(t('errors.batch-failed', { count, path, reason }), error?.code ?? 'ERR_PUSH'), {
        statusCode: error?.statusCode,
      });
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
        done(Object.assign(coded(t('errors.invalid-item', { item: first.item, path: first.path, message: first.message }), 'ERR_PUSH_INVALID'), { errors: checked.errors }));
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
        if (error?.statusCode !== undefined) withAnswer.statusCode = error.statusCode;
        if (error?.body !== undefined) withAnswer.response = error.body;
        done(error?.code === 'ERR_PUSH_CLOSED' ? coded(t('errors.closed'), error.code) : failure(error, outcome.items, path));
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
  }

  RED.nodes.registerType('platform-push', PlatformPush);
};

function positiveInt(value: unknown, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? n : fallback;
}
function nonNegativeInt(value: unknown, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
}
function nonNegative(value: unknown, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}
