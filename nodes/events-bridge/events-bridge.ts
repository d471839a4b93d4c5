/**
 * events-bridge: configuration node for an events bridge's API: its base
 * URL, the JWT, TLS, where the enrollment endpoints are and how their list
 * pages, and the account's tag prefix. Owns one EventsBridgeClient
 * (lib/bridge/client.ts: samples and enrollment), the pool of connections every
 * node that names it shares.
 */
import type { NodeAPI, NodeDef } from 'node-red';
import { EventsBridgeClient, resolveEnrollmentApi, type EnrollmentApiOptions } from '../../lib/bridge';
import { normaliseTagPrefix } from '../../lib/events';
import { caOption } from '../../lib/core';
import { nodeOptions, secondsMs, type SavedOptions } from '../../lib/config';
import type { EventsBridgeNode } from '../shared/events-bridge-node';
import { flowError, nodeText, translate } from '../shared/i18n';
import { registerNode } from '../shared/register';

interface EventsBridgeDef extends NodeDef, SavedOptions<'events-bridge'> {
  url: string;
  ca: string;
  lprMonitorPath: string;
  lprListPath: string;
  faceMonitorPath: string;
  faceListPath: string;
  photoField: string;
  pageQuery: string;
  pageSize: number | string;
  /** The account's tag prefix (optional; saved before it existed: none). */
  tagPrefix?: string;
}

interface EventsBridgeCredentials {
  token?: string;
}

/** The dialog field of each API option, for messages that name what to change. */
const FIELD_OF: Record<string, string> = {
  'lpr.monitor': 'lprMonitorPath',
  'lpr.list': 'lprListPath',
  'face.monitor': 'faceMonitorPath',
  'face.list': 'faceListPath',
  photoField: 'photoField',
  pageQuery: 'pageQuery',
  pageSize: 'pageSize',
};

export = function register(RED: NodeAPI): void {
  registerNode<EventsBridgeDef, EventsBridgeCredentials, EventsBridgeNode>(
    RED,
    'events-bridge',
    (node, config) => {
      const t = nodeText(RED, 'events-bridge');
      const options = nodeOptions('events-bridge', config);
      const api: EnrollmentApiOptions = {
        paths: {
          lpr: { monitor: config.lprMonitorPath, list: config.lprListPath },
          face: { monitor: config.faceMonitorPath, list: config.faceListPath },
        },
        photoField: config.photoField,
        pageQuery: config.pageQuery,
        pageSize: config.pageSize,
      };

      let client: EventsBridgeClient | Error;
      const checked = resolveEnrollmentApi(api);
      if (!checked.ok) {
        const [problem] = checked.problems;
        client = new Error(
          t('errors.setting', { setting: t(`label.${FIELD_OF[problem.option] ?? problem.option}`), problem: translate(RED, problem) }),
        );
      } else {
        try {
          client = new EventsBridgeClient({
            baseUrl: String(config.url ?? '').trim(),
            token: (node.credentials as EventsBridgeCredentials | undefined)?.token,
            insecure: options.insecure,
            ca: caOption(config.ca),
            timeoutMs: secondsMs(options.timeout),
            api,
          });
        } catch (err) {
          client = flowError(RED, err);
        }
      }
      node.getClient = () => client;

      // Only the nodes that match tags use it (detection-filter): a wrong prefix fails them, not the client.
      const tagPrefix = normaliseTagPrefix(config.tagPrefix);
      const tagPrefixOrError =
        tagPrefix ??
        new Error(t('errors.setting', { setting: t('label.tagPrefix'), problem: t('validators.tagPrefix', { prefix: String(config.tagPrefix) }) }));
      node.getTagPrefix = () => tagPrefixOrError;

      node.on('close', (done: () => void) => {
        if (client instanceof EventsBridgeClient) client.close().then(done, done);
        else done();
      });
    },
    { credentials: { token: { type: 'password' } } },
  );
};
