/**
 * platform-push: pushes POS transactions and other data into the platform v2
 * API in batches. Batching and retries are lib/platform/push-queue.ts; the
 * value checks lib/platform/push-schemas.ts; the sign-in is the
 * platform-server's client.
 */
import type { NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from 'node-red';
import { fillPath, posBatchPath, PushQueue, type BatchResult, type RetryInfo, checkPushItems } from '../../lib/platform';
import { nodeOptions, type SavedOptions } from '../../lib/config';
import { coded, flowError, nodeText, statusText, translate } from '../shared/i18n';
import { platformClientOf } from '../shared/platform-server-node';
import { registerNode } from '../shared/register';
import { registerCounts } from '../shared/metrics';
import { failConfig, throttledStatus } from '../shared/status';
import { readProperty, shownValue, typedLabel, typedReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';

interface PlatformPushDef extends NodeDef, SavedOptions<'platform-push'> {
  server: string;
  /** The POS instance id (`posIdType` "str"), or where to read it: msg, flow, global, env, JSONata. */
  posId: string;
  posIdType: string;
  /** The path template of the other kinds (`pathType` "str"), or where to read it. */
  path: string;
  pathType: string;
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
    const s = statusText(RED, 'platform-push');
    const options = nodeOptions('platform-push', config);
    const { operation } = options;
    const pos = operation === 'pos';
    // POS transactions go to the instance's path; the other kinds to the path given. Text is
    // fixed in the node; otherwise msg.posId and msg.path when the dialog names no property.
    const saved = pos ? config.posId : config.path;
    const type = (pos ? config.posIdType : config.pathType) || 'str';
    const value = type === 'str' ? String(saved ?? '').trim() : saved || (pos ? 'posId' : 'path');
    const source = typedLabel(type, value);
    const client = platformClientOf(RED, config.server) ?? new Error(t('errors.no-server'));
    const empty = type === 'str' && !value;
    if (client instanceof Error || empty) {
      failConfig(
        node,
        s('status.error'),
        client instanceof Error ? client.message : t(pos ? 'errors.pos-empty' : 'errors.no-path'),
        'ERR_PUSH_CONFIG',
      );
      return;
    }
    let reader: PropertyReader;
    try {
      reader = typedReader(RED.util as unknown as PropertyUtil, node, value, type, 'str');
    } catch (err) {
      failConfig(node, s('status.error'), t('errors.property', { property: source, message: (err as Error).message }), 'ERR_PUSH_CONFIG');
      return;
    }

    const showStatus = throttledStatus(node, () => {
      const stats = queue.stats();
      return {
        fill: stats.failed > 0 ? 'red' : stats.queued + stats.inFlight > 0 ? 'yellow' : 'green',
        shape: 'dot',
        text: s('status.counts', { pushed: stats.pushed, queued: stats.queued + stats.inFlight, failed: stats.failed }),
      };
    });
    /** A retry shows at once how long it waits (the server's Retry-After or the backoff). */
    function showRetry(info: RetryInfo): void {
      const stats = queue.stats();
      showStatus.cancel();
      node.status({
        fill: 'yellow',
        shape: 'ring',
        text: s('status.retrying', { seconds: Math.round(info.delayMs / 100) / 10, queued: stats.queued + stats.inFlight }),
      });
    }

    const batches = { batchesSent: 0, batchesFailed: 0 };
    registerCounts(node, 'push', () => batches);
    const queue = new PushQueue<unknown, Ticket>({
      maxItems: options.batchSize,
      maxWaitMs: options.batchMs,
      maxRetries: options.maxRetries,
      // The batch id is stable across retries of one batch: the server can use it to drop a repeat.
      send: (path, items, ctx) =>
        client.request({ method: 'POST', path, body: items, headers: { 'idempotency-key': ctx.batchId }, signal: ctx.signal }),
      onRetry: showRetry,
      onBatchDone: (result: BatchResult<unknown, Ticket>) => {
        if (result.ok) batches.batchesSent++;
        else batches.batchesFailed++;
        showStatus();
        if (!result.ok) return; // the messages it carried go to Catch nodes, below
        node.send({ payload: result.body, statusCode: result.statusCode, count: result.items.length, path: result.path } as NodeMessage);
      },
    });

    /** The request path for a message, or the error that stops it. */
    async function pathFor(msg: NodeMessageInFlow): Promise<string | Error> {
      let found: unknown;
      try {
        found = await readProperty(reader, msg);
      } catch (err) {
        return coded(t('errors.property', { property: source, message: (err as Error).message }), 'ERR_PUSH_PROPERTY');
      }
      if (pos) {
        const posId = typeof found === 'string' || typeof found === 'number' ? String(found).trim() : '';
        if (!posId) return coded(t('errors.pos-value', { property: source, value: shownValue(found) }), 'ERR_PUSH_NO_POS');
        return posBatchPath(posId);
      }
      const template = typeof found === 'string' ? found.trim() : '';
      if (!template) return coded(t('errors.path-value', { property: source, value: shownValue(found) }), 'ERR_PUSH_NO_PATH');
      const filled = fillPath(template, (name) => {
        try {
          return RED.util.getMessageProperty(msg, name);
        } catch {
          return undefined;
        }
      });
      return filled.ok ? filled.path : coded(t('errors.placeholder', { name: filled.missing }), 'ERR_PUSH_PLACEHOLDER');
    }

    // Paths are read one message after another, so the items of each message reach the
    // queue in the order the messages came, even when a path is read asynchronously
    // (JSONata, a persistent context store).
    let reading: Promise<unknown> = Promise.resolve();

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
      reading = reading
        .then(() => pathFor(msg))
        .then((path) => (path instanceof Error ? done(path) : enqueue(msg, path, items, done)))
        .catch((err: unknown) => done(flowError(RED, err))); // and the next message still has its turn
    });

    function enqueue(msg: NodeMessageInFlow, path: string, items: unknown[], done: Done): void {
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
    }

    node.on('close', (done: () => void) => {
      // Send what is queued (after the paths still being read); what cannot go in time is
      // reported to Catch nodes by its ticket.
      void reading
        .then(() => queue.close())
        .then(() => {
          showStatus.cancel();
          done();
        });
    });
  });
};
