/**
 * Credentials check for incoming deliveries. Runs on the request headers only,
 * before a byte of the body is read. Comparisons are constant-time. What a
 * configuration needs is ./auth-config.ts (the receiver's dialog runs it).
 * Credentials sent in another form than asked (a Basic header to a bearer
 * receiver, a token without `Bearer `) are answered as such, not as missing:
 * the person setting up the bridge sees what to change. What was sent is
 * never repeated (a token without its scheme is all secret).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthConfig } from './auth-config';
import type { Message } from '../core/messages';

export { AUTH_CREDENTIALS, AUTH_MODES, authConfigProblem, HEADER_NAME, type AuthConfig, type AuthMode } from './auth-config';

/** missing: no credentials at all; scheme: credentials, but not in the form asked; mismatch: the right form, wrong values. */
export type AuthResult = { ok: true } | { ok: false; reason: 'missing' | 'scheme' | 'mismatch'; wwwAuthenticate?: string };

/** Compares two strings in time that depends only on their hashes, not on
 *  where they first differ, so neither content nor length leaks. */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
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

/** No Authorization header (missing), or one of another scheme (scheme). */
function absent(header: string | undefined): 'missing' | 'scheme' {
  return header === undefined || header.trim() === '' ? 'missing' : 'scheme';
}

export function checkAuth(config: AuthConfig, headers: IncomingHttpHeaders, realm = 'detection-in'): AuthResult {
  const authorization = firstHeader(headers, 'authorization');
  switch (config.mode) {
    case 'none':
      return { ok: true };
    case 'basic': {
      const challenge = `Basic realm="${realm}", charset="UTF-8"`;
      const encoded = schemeCredentials(authorization, 'basic');
      if (encoded === undefined) return { ok: false, reason: absent(authorization), wwwAuthenticate: challenge };
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
      const token = schemeCredentials(authorization, 'bearer');
      if (token === undefined) {
        return { ok: false, reason: absent(authorization), wwwAuthenticate: `Bearer realm="${realm}"` };
      }
      return safeEqual(token, config.token ?? '')
        ? { ok: true }
        : { ok: false, reason: 'mismatch', wwwAuthenticate: `Bearer realm="${realm}", error="invalid_token"` };
    }
    case 'header': {
      const value = firstHeader(headers, config.headerName ?? '');
      // Not in its header, but an Authorization header came: the bridge was set up for Basic or Bearer.
      if (value === undefined) return { ok: false, reason: absent(authorization) };
      return safeEqual(value, config.headerValue ?? '') ? { ok: true } : { ok: false, reason: 'mismatch' };
    }
    default:
      return { ok: false, reason: 'mismatch' };
  }
}

/** Why a request's credentials were refused, as the problem answer's detail says it. */
export function authFailureMessage(config: AuthConfig, reason: 'missing' | 'scheme' | 'mismatch'): Message {
  if (reason === 'scheme' && (config.mode === 'basic' || config.mode === 'bearer')) return { key: `answer.auth-scheme-${config.mode}` };
  if (reason === 'scheme' && config.mode === 'header') return { key: 'answer.auth-scheme-header', params: { header: config.headerName ?? '' } };
  return { key: reason === 'missing' ? 'answer.auth-missing' : 'answer.auth-mismatch' };
}

/** Headers that carry credentials, for the given configuration; they never
 *  reach a message or a log. */
export function credentialHeaderNames(config: AuthConfig): string[] {
  const names = ['authorization', 'proxy-authorization', 'cookie'];
  if (config.mode === 'header' && config.headerName) names.push(config.headerName.toLowerCase());
  return names;
}
