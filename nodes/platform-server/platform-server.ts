/**
 * platform-server: configuration node for the platform REST API v2. Owns one
 * PlatformClient (lib/platform/client.ts): the sign-in, the token and the
 * kept-alive connection pool shared by every node that uses it.
 */
import type { NodeAPI, NodeDef } from 'node-red';
import type { PlatformServerNode } from '../shared/platform-server-node';
import { PlatformClient } from '../../lib/platform/client';
import { posPlugins } from '../../lib/platform/plugins';
import { TransportError } from '../../lib/http/transport-error';
import { numberOption } from '../../lib/options';
import { flowError, nodeText } from '../shared/i18n';
import { registerNode } from '../shared/register';

interface PlatformServerDef extends NodeDef {
  url: string;
  insecure: boolean;
  ca: string;
  timeout: number | string;
}

interface PlatformServerCredentials {
  userName?: string;
  password?: string;
}

const TIMEOUT_SECONDS = numberOption({ above: 0 });

export = function register(RED: NodeAPI): void {
  registerNode<PlatformServerDef, PlatformServerCredentials, PlatformServerNode>(
    RED,
    'platform-server',
    (node, config) => {
      const t = nodeText(RED, 'platform-server');
      const creds = (node.credentials ?? {}) as PlatformServerCredentials;
      const timeout = TIMEOUT_SECONDS.safeParse(config.timeout);

      let client: PlatformClient | Error;
      if (!creds.userName || !creds.password) {
        client = new Error(t('errors.credentials'));
      } else {
        try {
          client = new PlatformClient({
            baseUrl: (config.url || '').trim(),
            userName: creds.userName,
            password: creds.password,
            insecure: !!config.insecure,
            ca: config.ca && config.ca.trim() ? config.ca : undefined,
            timeoutMs: timeout.success && timeout.data !== undefined ? timeout.data * 1000 : undefined,
          });
        } catch (err) {
          client =
            err instanceof TransportError && err.code === 'ERR_PLATFORM_URL' ? new Error(t('errors.url', { url: config.url })) : flowError(RED, err);
        }
      }
      node.getClient = () => client;

      node.on('close', (done: () => void) => {
        if (client instanceof PlatformClient) client.close().then(done, done);
        else done();
      });
    },
    { credentials: { userName: { type: 'text' }, password: { type: 'password' } } },
  );

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
