/**
 * A receiver's authentication as configured: the modes, the credentials each
 * needs, and what keeps a configuration from running. Browser-safe (it
 * imports only types): detection-in's dialog runs this very file, served by
 * nodes/shared/editor-script.ts, so it asks for exactly what the runtime
 * needs. ./auth.ts checks requests against it.
 */
import type { Message } from '../core/messages';

export type AuthMode = 'none' | 'basic' | 'bearer' | 'header';
export const AUTH_MODES: readonly AuthMode[] = ['none', 'basic', 'bearer', 'header'];

export interface AuthConfig {
  mode: AuthMode;
  /** basic */
  user?: string;
  password?: string;
  /** bearer */
  token?: string;
  /** header: any key/value the bridge is configured to send */
  headerName?: string;
  headerValue?: string;
}

/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The credentials each mode needs (Node-RED credentials of detection-in). */
export const AUTH_CREDENTIALS: Readonly<Record<AuthMode, readonly ('user' | 'password' | 'token' | 'headerValue')[]>> = {
  none: [],
  basic: ['user', 'password'],
  bearer: ['token'],
  header: ['headerValue'],
};

/** What is wrong with a configuration (a catalog message), or null when it can run. */
export function authConfigProblem(config: AuthConfig): Message | null {
  const problem = (reason: string, params?: Message['params']): Message => ({ key: `auth.${reason}`, ...(params ? { params } : {}) });
  switch (config.mode) {
    case 'none':
      return null;
    case 'basic':
      if (!config.user) return problem('basic-user');
      if (!config.password) return problem('basic-password');
      if (config.user.includes(':')) return problem('basic-colon');
      return null;
    case 'bearer':
      return config.token ? null : problem('bearer-token');
    case 'header':
      if (!config.headerName || !HEADER_NAME.test(config.headerName)) return problem('header-name');
      return config.headerValue ? null : problem('header-value');
    default:
      return problem('unknown-mode', { mode: String((config as AuthConfig).mode) });
  }
}
