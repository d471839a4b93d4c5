/**
 * platform-request: any call to the platform v2 API with the shared sign-in
 * of a platform-server: method, path with {placeholders}, query, body.
 */
import type { NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { fillPath } from '../../lib/platform/path-template';
import { coded, flowError, nodeText } from '../shared/i18n';
import { platformClientOf } from '../shared/platform-server-node';
import { registerNode } from '../shared/register';
import { failConfig, throttledStatus } from '../shared/status';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

interface PlatformRequestDef extends NodeDef {
  server: string;
  method: string;
  path: string;
  errors: 'catch' | 'output';
}

type Done = (err?: Error) => void;
type Send = (msg: NodeMessageInFlow) => void;

export = function register(RED: NodeAPI): void {
  registerNode<PlatformRequestDef>(RED, 'platform-request', (node, config) => {
    const t = nodeText(RED, 'platform-request');
    const client = platformClientOf(RED, config.server) ?? new Error(t('errors.no-server'));
    if (client instanceof Error) {
      failConfig(node, t('status.error'), client.message, 'ERR_PLATFORM_CONFIG');
      return;
    }
    const errorsToOutput = config.errors === 'output';
    const counts = { ok: 0, failed: 0 };
    const showStatus = throttledStatus(node, () => ({
      fill: counts.failed > 0 ? 'yellow' : 'green',
      shape: 'dot',
      text: t('status.counts', counts),
    }));

    node.on('input', (msg: NodeMessageInFlow, send: Send, done: Done) => {
      const fields = msg as NodeMessageInFlow & { method?: unknown; path?: unknown; query?: unknown; statusCode?: number; headers?: unknown };
      const method = config.method === 'msg' ? String(fields.method ?? '').toUpperCase() : (config.method || 'GET').toUpperCase();
      if (!(METHODS as readonly string[]).includes(method)) {
        done(coded(t('errors.bad-method', { method: String(fields.method) }), 'ERR_PLATFORM_METHOD'));
        return;
      }
      const template = (config.path || '').trim() || (typeof fields.path === 'string' ? fields.path.trim() : '');
      if (!template) {
        done(coded(t('errors.no-path'), 'ERR_PLATFORM_PATH'));
        return;
      }
      const filled = fillPath(template, (name) => {
        try {
          return RED.util.getMessageProperty(msg, name);
        } catch {
          return undefined;
        }
      });
      if (!filled.ok) {
        done(coded(t('errors.placeholder', { name: filled.missing }), 'ERR_PLATFORM_PLACEHOLDER'));
        return;
      }
      const query = fields.query !== null && typeof fields.query === 'object' ? (fields.query as Record<string, string>) : undefined;
      const body = method === 'GET' || method === 'DELETE' ? undefined : msg.payload;

      client.request({ method, path: filled.path, query, body }).then(
        (answer) => {
          fields.payload = answer.body;
          fields.statusCode = answer.statusCode;
          fields.headers = answer.headers;
          const ok = answer.statusCode >= 200 && answer.statusCode < 300;
          if (ok) counts.ok++;
          else counts.failed++;
          showStatus();
          if (ok || errorsToOutput) {
            send(msg);
            done();
            return;
          }
          // Catch nodes get the message carrying the answer (msg.payload, msg.statusCode).
          done(
            coded(t('errors.status', { method, path: filled.path, status: answer.statusCode }), 'ERR_PLATFORM_STATUS', {
              statusCode: answer.statusCode,
            }),
          );
        },
        (err: unknown) => {
          counts.failed++;
          showStatus();
          done(flowError(RED, err));
        },
      );
    });
  });
};
