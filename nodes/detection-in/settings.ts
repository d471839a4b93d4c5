/**
 * What detection-in's dialog saves, and what is checked before the receiver
 * can listen: where (Node-RED's own server or a listener, on which path) and
 * with which credentials. One that cannot start says why in a few words under
 * the node and in full in the log.
 */
import type { NodeAPI, NodeDef } from 'node-red';
import type { Listener } from '../../lib/http';
import { authConfigProblem, type AuthConfig, type AuthMode } from '../../lib/receiver';
import { mibBytes, type NodeOptionsTable } from '../../lib/config';
import { statusText, translate } from '../shared/i18n';
import { normalizeNodePath } from '../shared/routes';
import { listenerOf } from '../detection-listener/listener-node';

/** What the dialog saves: each option of the table (lib/config/node-options.ts) as saved, and the node's own fields. */
export type DetectionInDef = NodeDef & { [K in keyof NodeOptionsTable['detection-in']]?: unknown } & {
  path: string;
  /** The detection-listener configuration node whose port serves this receiver; none: Node-RED's own server. */
  listener?: string;
  headerName: string;
  /** redis mode: the detection-redis configuration node. */
  redis?: string;
  /** Before 0.2: 'reject' (the default then, now lenient) or 'accept'. */
  invalidEvents?: 'reject' | 'accept';
};

export interface DetectionInCredentials {
  user?: string;
  password?: string;
  token?: string;
  headerValue?: string;
}

/** The status of a receiver whose credentials are incomplete, by the problem's key (lib/receiver/auth.ts). */
const AUTH_STATUS: Record<string, string> = {
  'auth.basic-user': 'status.needs-user',
  'auth.basic-password': 'status.needs-user',
  'auth.basic-colon': 'status.user-colon',
  'auth.bearer-token': 'status.needs-token',
  'auth.header-name': 'status.needs-header-name',
  'auth.header-value': 'status.needs-header-value',
};

export interface ListenSettings {
  path: string;
  auth: AuthConfig;
  maxBodyBytes: number;
  /** The listener whose port serves the receiver; none: Node-RED's own server. */
  listener?: Listener;
}

/** Why a receiver cannot start: a few words for its status (a catalog key: the editor's language), the whole reason for the log. */
export interface CannotListen {
  status: string;
  problem: string;
}

/** Where and how the receiver listens, or why it cannot; `auth` and `maxBodyMiB` as the dialog's options read them. */
export function listenSettings(
  RED: NodeAPI,
  config: DetectionInDef,
  creds: DetectionInCredentials,
  options: { auth: AuthMode; maxBodyMiB: number },
  t: (key: string, vars?: Record<string, string>) => string,
): ListenSettings | CannotListen {
  const s = statusText(RED, 'detection-in');
  // Node-RED's HTTP nodes switched off: a receiver on its own listener still works.
  if ((RED.settings as unknown as Record<string, unknown>).httpNodeRoot === false && !config.listener) {
    return { status: s('status.http-disabled'), problem: t('errors.http-disabled') };
  }
  const path = normalizeNodePath(config.path);
  if (path === '/') return { status: s('status.no-path'), problem: t('errors.path-missing') };
  const auth: AuthConfig = {
    mode: options.auth,
    user: creds.user,
    password: creds.password,
    token: creds.token,
    headerName: (config.headerName || '').trim(),
    headerValue: creds.headerValue,
  };
  const authProblem = authConfigProblem(auth);
  if (authProblem) {
    return {
      status: s(AUTH_STATUS[authProblem.key] ?? 'status.credentials'),
      problem: t('errors.auth-config', { problem: translate(RED, authProblem) }),
    };
  }
  const maxBodyBytes = mibBytes(options.maxBodyMiB);
  if (!config.listener) return { path, auth, maxBodyBytes };
  // On a listener the path is its own (no httpNodeRoot), and unique on that listener only.
  const listener = listenerOf(RED, config.listener);
  if (listener === undefined || typeof listener === 'string') {
    return { status: s('status.no-listener'), problem: listener ?? t('errors.listener-missing') };
  }
  return { path, auth, maxBodyBytes, listener };
}
