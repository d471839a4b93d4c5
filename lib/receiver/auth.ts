/**
 * Credentials check for incoming deliveries. Runs on the request headers only,
 * before a byte of the body is read. Comparisons are constant-time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
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

export type AuthResult = { ok: true } | { ok: false; reason: 'missing' | 'mismatch'; wwwAuthenticate?: string };

/** Compares two strings in time that depends only on their hashes, not on
 *  where they first differ, so neither content nor length leaks. */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

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

function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Splits `Scheme credentials`; the scheme is case-insensitive (RFC 9110). */
function schemeCredentials(header: string | undefined, scheme: string): string | undefined {
  if (!header) return undefined;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== scheme) return undefined;
  return header.slice(space + 1).trim();
}

export function checkAuth(config: AuthConfig, headers: IncomingHttpHeaders, realm = 'detection-in'): AuthResult {
  switch (config.mode) {
    case 'none':
      return { ok: true };
    case 'basic': {
      const challenge = `Basic realm="${realm}", charset="UTF-8"`;
      const encoded = schemeCredentials(firstHeader(headers, 'authorization'), 'basic');
      if (encoded === undefined) return { ok: false, reason: 'missing', wwwAuthenticate: challenge };
      const decoded = Buffer.from(encoded, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const user = colon < 0 ? decoded : decoded.slice(0, colon);
      const password = colon < 0 ? '' : decoded.slice(colon + 1);
      // Both compared every time, so a wrong user costs the same as a wrong password.
      const userOk = safeEqual(user, config.user ?? '');
      const passwordOk = safeEqual(password, config.password ?? '');
      return userOk && passwordOk ? { ok: true } : { ok: false, reason: 'mismatch', wwwAuthenticate: challenge };
    }
    case 'bearer': {
      const token = schemeCredentials(firstHeader(headers, 'authorization'), 'bearer');
      if (token === undefined) {
        return { ok: false, reason: 'missing', wwwAuthenticate: `Bearer realm="${realm}"` };
      }
      return safeEqual(token, config.token ?? '')
        ? { ok: true }
        : { ok: false, reason: 'mismatch', wwwAuthenticate: `Bearer realm="${realm}", error="invalid_token"` };
    }
    case 'header': {
      const value = firstHeader(headers, config.headerName ?? '');
      if (value === undefined) return { ok: false, reason: 'missing' };
      return safeEqual(value, config.headerValue ?? '') ? { ok: true } : { ok: false, reason: 'mismatch' };
    }
    default:
      return { ok: false, reason: 'mismatch' };
  }
}

/** Headers that carry credentials, for the given configuration; they never
 *  reach a message or a log. */
export function credentialHeaderNames(config: AuthConfig): string[] {
  const names = ['authorization', 'proxy-authorization', 'cookie'];
  if (config.mode === 'header' && config.headerName) names.push(config.headerName.toLowerCase());
  return names;
}
