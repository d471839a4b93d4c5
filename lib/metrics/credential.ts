/**
 * The credential of a monitor's answers: a bearer token, a user and password
 * (HTTP Basic), or both (either is accepted). Prometheus sends either one
 * (`authorization` or `basic_auth` in a scrape config).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { checkAuth } from '../receiver';

export interface MonitorCredential {
  token?: string;
  user?: string;
  password?: string;
}

/** Whether any credential is set (a user needs its password too). */
export function hasCredential(credential: MonitorCredential): boolean {
  return Boolean(credential.token) || Boolean(credential.user && credential.password);
}

export type CredentialCheck = { ok: true } | { ok: false; challenge: string };

/** Whether `headers` carry one of `credential`'s forms; `realm` names what is protected in the challenge. */
export function checkCredential(credential: MonitorCredential, headers: IncomingHttpHeaders, realm: string): CredentialCheck {
  const challenges: string[] = [];
  if (credential.token) {
    const result = checkAuth({ mode: 'bearer', token: credential.token }, headers, realm);
    if (result.ok) return result;
    challenges.push(`Bearer realm="${realm}"`);
  }
  if (credential.user && credential.password) {
    const result = checkAuth({ mode: 'basic', user: credential.user, password: credential.password }, headers, realm);
    if (result.ok) return result;
    challenges.push(`Basic realm="${realm}", charset="UTF-8"`);
  }
  return { ok: false, challenge: challenges.join(', ') };
}
