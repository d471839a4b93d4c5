/**
 * platform-request: any call to the platform v2 API with the shared sign-in
 * of a platform-server: method, path with {placeholders}, query, body.
 */
import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { fillPath } from '../../lib/platform/path-template';
import type { PlatformClient } from '../../lib/platform/client';
import { throttle } from '../shared/throttle';
import type { PlatformServerNode } from '../shared/platform-server-node';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

interface PlatformRequestDef extends NodeDef {
  server: string;
  method: string;
  path: string;
  errors: 'catch' | 'output';
}

type Done = (err?: Error) => void;
type Send = (msg: NodeMessageInFlow) => void;

const coded = (message: string, code: string): Error => Object.assign(new Error(message), { code });

export = function register(RED: NodeAPI): void {
  function PlatformRequest(this: Node, config: PlatformRequestDef): void {
    RED.nodes.createNode(this, config);
    const node = this;
    const t = (key: string, vars?: Record<string, string | number>): string => RED._(`platform-request.${key}`, vars);

    const server = RED.nodes.getNode(config.server) as PlatformServerNode | null;
    const client = server && typeof server.getClient === 'function' ? server.getClient() : new Error(t('errors.no-server'));
    if (client instanceof Error) {
      node.status({ fill: 'red', shape: 'ring', text: t('status.error') });
      node.error(client.message);
      node.on('input', (_msg: NodeMessageInFlow, _send: Send, done: Done) => done(coded(client.message, 'ERR_PLATFORM_CONFIG')));
      return;
    }
    const platform: PlatformClient = client;
    const errorsToOutput = config.errors === 'output';

    const counts = { ok: 0, failed: 0 };
    const showStatus = throttle(() => {
      node.status({ fill: counts.failed > 0 ? 'yellow' : 'green', shape: 'dot', text: t('status.counts', counts) });
    }, 250);

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

      platform.request({ method, path: filled.path, query, body }).then(
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
          done(Object.assign(coded(t('errors.status', { method, path: filled.path, status: answer.statusCode }), 'ERR_PLATFORM_STATUS'), { statusCode: answer.statusCode }));
        },
        (err: Error) => {
          counts.failed++;
          showStatus();
          done(err);
        },
      );
    });

    node.on('close', (done: () => void) => {
      showStatus.cancel();
      done();
    });
  }

  RED.nodes.registerType('platform-request', PlatformRequest);
};
