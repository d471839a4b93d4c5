/**
 * platform-server: configuration node for the platform REST API v2. Owns one
 * PlatformClient (lib/platform/client.ts): the sign-in, the token and the
 * kept-alive connection pool shared by every node that uses it.
 */
import type { NodeAPI, NodeDef } from 'node-red';
import type { PlatformServerNode } from '../shared/platform-server-node';
import { PlatformClient, posPlugins } from '../../lib/platform';
import { TransportError } from '../../lib/http';
import { loadOperations, type OperationIndex } from '../../lib/openapi';
import { caOption } from '../../lib/core';
import { nodeOptions, secondsMs, type SavedOptions } from '../../lib/config';
import { coded, flowError, nodeText, statusText } from '../shared/i18n';
import { registerNode } from '../shared/register';
import { userDirOf } from '../shared/user-dir';

interface PlatformServerDef extends NodeDef, SavedOptions<'platform-server'> {
  url: string;
  ca: string;
  /** The release's OpenAPI file: a path in the user directory or a URL on the core ('' for none). */
  openapi?: string;
}

interface PlatformServerCredentials {
  userName?: string;
  password?: string;
}

export = function register(RED: NodeAPI): void {
  registerNode<PlatformServerDef, PlatformServerCredentials, PlatformServerNode>(
    RED,
    'platform-server',
    (node, config) => {
      const t = nodeText(RED, 'platform-server');
      const s = statusText(RED, 'platform-server');
      const creds = (node.credentials ?? {}) as PlatformServerCredentials;
      const options = nodeOptions('platform-server', config);

      let client: PlatformClient | Error;
      if (!creds.userName || !creds.password) {
        client = new Error(t('errors.credentials'));
      } else {
        try {
          client = new PlatformClient({
            baseUrl: (config.url || '').trim(),
            userName: creds.userName,
            password: creds.password,
            insecure: options.insecure,
            ca: caOption(config.ca),
            timeoutMs: secondsMs(options.timeout),
          });
        } catch (err) {
          client =
            err instanceof TransportError && err.code === 'ERR_PLATFORM_URL' ? new Error(t('errors.url', { url: config.url })) : flowError(RED, err);
        }
      }
      node.getClient = () => client;

      // The OpenAPI file, once per deploy. Without it (or when it cannot be
      // used) requests still go out as written, unchecked.
      const source = (config.openapi ?? '').trim();
      let operations: Promise<OperationIndex | Error | undefined> = Promise.resolve(undefined);
      if (source) {
        node.status({ fill: 'grey', shape: 'ring', text: s('status.loading') });
        operations = loadOperations(source, { dir: userDirOf(RED), client: client instanceof PlatformClient ? client : undefined }).then(
          (index) => {
            node.status({ fill: 'green', shape: 'dot', text: s('status.release', { release: index.release, count: index.operations.length }) });
            return index;
          },
          (err: unknown) => {
            const failure = coded(t('errors.openapi', { message: flowError(RED, err).message }), 'ERR_OPENAPI');
            node.status({ fill: 'red', shape: 'ring', text: s('status.openapi-error') });
            node.error(failure.message);
            return failure;
          },
        );
      }
      node.getOperations = () => operations;

      node.on('close', (done: () => void) => {
        if (client instanceof PlatformClient) client.close().then(done, done);
        else done();
      });
    },
    { credentials: { userName: { type: 'text' }, password: { type: 'password' } } },
  );

  // The operations of the server's OpenAPI file, for the platform-request dialog.
  RED.httpAdmin.get('/platform-server/:id/operations', RED.auth.needsPermission('platform-server.read'), (req, res) => {
    const server = RED.nodes.getNode(String(req.params.id)) as PlatformServerNode | null;
    if (!server || typeof server.getOperations !== 'function') {
      res.status(404).json({ message: RED._('platform-server.errors.not-deployed') });
      return;
    }
    server.getOperations().then((index) => {
      // no file is the usual case, not an error: 200 with the reason (an error status would be logged in the browser's console)
      if (index === undefined) res.json({ release: null, message: RED._('platform-server.errors.no-openapi') });
      else if (index instanceof Error) res.status(400).json({ message: index.message });
      else res.json({ release: index.release, title: index.title, operations: index.summaries() });
    });
  });

  // Lets the platform-push dialog offer the server's POS instances. Only a
  // deployed server can answer: its credentials never travel to the editor.
  RED.httpAdmin.get('/platform-server/:id/plugins', RED.auth.needsPermission('platform-server.read'), (req, res) => {
    const server = RED.nodes.getNode(String(req.params.id)) as PlatformServerNode | null;
    if (!server || typeof server.getClient !== 'function') {
      res.status(404).json({ message: RED._('platform-server.errors.not-deployed') });
      return;
    }
    const client = server.getClient();
    if (client instanceof Error) {
      res.status(400).json({ message: client.message });
      return;
    }
    client.installedPlugins().then(
      ({ plugins }) =>
        res.json({
          plugins: plugins.map(({ id, name, type }) => ({ id, name, type })),
          pos: posPlugins(plugins).map(({ id, name }) => ({ id, name })),
        }),
      (err: unknown) => res.status(502).json({ message: RED._('platform-server.errors.plugins', { message: flowError(RED, err).message }) }),
    );
  });
};
