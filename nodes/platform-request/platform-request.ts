/**
 * platform-request: any call to the platform v2 API with the shared sign-in
 * of a platform-server: method, path with {placeholders}, query, body.
 */
import type { NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { fillPath } from '../../lib/platform';
import { coded, flowError, nodeText, statusText } from '../shared/i18n';
import { platformClientOf, platformServerOf } from '../shared/platform-server-node';
import { registerNode } from '../shared/register';
import { failConfig, throttledStatus } from '../shared/status';
import { propertyReader, readProperty, shownValue, typedLabel, typedReader, type PropertyReader, type PropertyUtil } from '../shared/typed-property';
import { nodeOptions, type SavedOptions } from '../../lib/config';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** The Method TypedInput's own type: one of the methods, fixed in the node. */
const FIXED_METHOD = 'method';

interface PlatformRequestDef extends NodeDef, SavedOptions<'platform-request'> {
  server: string;
  /** A method (`methodType` "method"), or where to read it: a msg, flow or global property, an environment variable. */
  method: string;
  methodType: string;
  /** The path template (`pathType` "str"), or where to read it. */
  path: string;
  pathType: string;
  /** The operation chosen in the dialog (informative only). */
  operationId?: string;
  /** Path and query parameters set in the node: each a TypedInput. */
  params?: ParamDef[];
}

interface ParamDef {
  name: string;
  in: 'path' | 'query';
  value: string;
  type: string;
}

interface ParamReader {
  name: string;
  in: 'path' | 'query';
  source: string;
  read: PropertyReader;
}

type Done = (err?: Error) => void;
/** What one message calls: method, path template, and the node's parameter values read for it. */
interface Target {
  method: string;
  template: string;
  params: Record<'path' | 'query', Record<string, unknown>>;
}
type Send = (msg: NodeMessageInFlow) => void;

export = function register(RED: NodeAPI): void {
  registerNode<PlatformRequestDef>(RED, 'platform-request', (node, config) => {
    const t = nodeText(RED, 'platform-request');
    const s = statusText(RED, 'platform-request');
    const clientOrError = platformClientOf(RED, config.server) ?? new Error(t('errors.no-server'));
    if (clientOrError instanceof Error) {
      failConfig(node, s('status.error'), clientOrError.message, 'ERR_PLATFORM_CONFIG');
      return;
    }
    const client = clientOrError;
    const methodType = config.methodType || FIXED_METHOD;
    const pathType = config.pathType || 'str';
    // A fixed method the dialog does not offer is GET, as any option a hand-edited flow gets wrong;
    // msg.method and msg.path when the dialog names no property.
    const upper = String(config.method ?? '').toUpperCase();
    const fixedMethod = (METHODS as readonly string[]).includes(upper) ? upper : 'GET';
    const methodValue = methodType === FIXED_METHOD ? fixedMethod : config.method || 'method';
    const pathValue = pathType === 'str' ? (config.path || '').trim() : config.path || 'path';
    const methodSource = typedLabel(methodType, methodValue);
    const pathSource = typedLabel(pathType, pathValue);
    if (pathType === 'str' && !pathValue) {
      failConfig(node, s('status.error'), t('errors.path-empty'), 'ERR_PLATFORM_PATH');
      return;
    }
    const util = RED.util as unknown as PropertyUtil;
    let readMethod: PropertyReader;
    let readPath: PropertyReader;
    let params: ParamReader[];
    let reading = methodSource;
    try {
      readMethod = typedReader(util, node, methodValue, methodType, FIXED_METHOD);
      reading = pathSource;
      readPath = typedReader(util, node, pathValue, pathType, 'str');
      params = (Array.isArray(config.params) ? config.params : [])
        // A row left empty is no row: its placeholder comes from msg by name, as without one.
        .filter((p) => p && p.name && (p.in === 'path' || p.in === 'query') && String(p.value ?? '').trim() !== '')
        .map((p) => {
          reading = typedLabel(p.type || 'str', p.value ?? '');
          return { name: p.name, in: p.in, source: reading, read: propertyReader(util, node, p.value ?? '', p.type || 'str') };
        });
    } catch (err) {
      failConfig(node, s('status.error'), t('errors.property', { property: reading, message: (err as Error).message }), 'ERR_PLATFORM_CONFIG');
      return;
    }
    const options = nodeOptions('platform-request', config);
    const errorsToOutput = options.errors === 'output';
    // Saved nodes have no `check`: on, as the dialog's default. Nothing changes for them
    // until their server gets an OpenAPI file, which is the user's choice to check.
    const server = !options.check ? undefined : platformServerOf(RED, config.server);
    const counts = { ok: 0, failed: 0 };
    const showStatus = throttledStatus(node, () => ({
      fill: counts.failed > 0 ? 'yellow' : 'green',
      shape: 'dot',
      text: s('status.counts', counts),
    }));

    /** The method and the path template for a message, or the error that stops it. */
    async function target(msg: NodeMessageInFlow): Promise<Target | Error> {
      let method: unknown;
      let template: unknown;
      const values: Target['params'] = { path: {}, query: {} };
      let reading = methodSource;
      try {
        method = await readProperty(readMethod, msg);
        reading = pathSource;
        template = await readProperty(readPath, msg);
        for (const p of params) {
          reading = p.source;
          values[p.in][p.name] = await readProperty(p.read, msg);
        }
      } catch (err) {
        return coded(t('errors.property', { property: reading, message: (err as Error).message }), 'ERR_PLATFORM_PROPERTY');
      }
      const upper = typeof method === 'string' ? method.trim().toUpperCase() : '';
      if (!(METHODS as readonly string[]).includes(upper)) {
        return coded(t('errors.method-value', { property: methodSource, value: shownValue(method) }), 'ERR_PLATFORM_METHOD');
      }
      const path = typeof template === 'string' ? template.trim() : '';
      if (!path) return coded(t('errors.path-value', { property: pathSource, value: shownValue(template) }), 'ERR_PLATFORM_PATH');
      return { method: upper, template: path, params: values };
    }

    node.on('input', (msg: NodeMessageInFlow, send: Send, done: Done) => {
      target(msg)
        .then((found) => {
          if (found instanceof Error) done(found);
          else call(msg, found, send, done);
        })
        .catch((err: unknown) => done(flowError(RED, err)));
    });

    function call(msg: NodeMessageInFlow, { method, template, params: values }: Target, send: Send, done: Done): void {
      const fields = msg as NodeMessageInFlow & { query?: unknown; statusCode?: number; headers?: unknown };
      // A placeholder with a parameter row takes the row's value; the others come from msg by name.
      const filled = fillPath(template, (name) => {
        if (Object.hasOwn(values.path, name)) return values.path[name];
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
      const url = filled.path;
      // The node's query parameters are defaults: msg.query overrides them by name. Empty ones are not sent.
      const own = Object.fromEntries(Object.entries(values.query).filter(([, v]) => v !== undefined && v !== null && v !== ''));
      const fromMsg = fields.query !== null && typeof fields.query === 'object' ? (fields.query as Record<string, unknown>) : undefined;
      const merged = { ...own, ...fromMsg };
      const query = Object.keys(merged).length > 0 ? (merged as Record<string, string>) : undefined;
      const body = method === 'GET' || method === 'DELETE' ? undefined : msg.payload;
      // The server's OpenAPI file, when it has a usable one, checks the call first: nothing is sent on a mismatch.
      const operations = server ? server.getOperations() : Promise.resolve(undefined);
      operations.then(
        (index) => {
          const usable = index instanceof Error ? undefined : index;
          const result = usable?.check({ method, path: url, query, body });
          if (usable && result && !result.ok) {
            counts.failed++;
            showStatus();
            const problems = result.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
            const text = t('errors.schema', { operation: result.operation.id, release: usable.release, problems });
            done(coded(text, 'ERR_PLATFORM_SCHEMA', { errors: result.errors }));
            return;
          }
          forward();
        },
        (err: unknown) => done(flowError(RED, err)),
      );

      function forward(): void {
        client.request({ method, path: url, query, body }).then(
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
              coded(t('errors.status', { method, path: url, status: answer.statusCode }), 'ERR_PLATFORM_STATUS', {
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
      }
    }
  });
};
