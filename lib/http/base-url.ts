/**
 * A base URL as users paste it: `https://host:5022`, `https://tenant/core/`,
 * sometimes with the endpoint they copied from a manual still on the end. The
 * bridge client and the platform client both keep the base's path prefix and
 * drop a pasted suffix; they differ in what user info means (the bridge takes
 * it as Basic credentials, the platform refuses it) and in their texts.
 *
 * Browser-safe (it uses only URL): the events-bridge and platform-server
 * dialogs run baseUrlProblem from this very file, served by
 * nodes/shared/editor-script.ts.
 */

export type BaseUrlProblem = 'empty' | 'not-absolute' | 'protocol' | 'query';

export interface BaseUrl {
  /** The parsed URL, user info still in it. */
  url: URL;
  /** The path prefix without a trailing slash or the pasted suffix: '' or `/core`. */
  prefix: string;
}

/**
 * Parses an http(s) base URL with no query or fragment. `pastedSuffix` (a
 * pattern anchored at the end) is removed from the path.
 */
export function parseBaseUrl(text: string, pastedSuffix: RegExp): { ok: true; base: BaseUrl } | { ok: false; problem: BaseUrlProblem } {
  if (!text) return { ok: false, problem: 'empty' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: 'not-absolute' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, problem: 'protocol' };
  if (url.search || url.hash) return { ok: false, problem: 'query' };
  const prefix = url.pathname.replace(/\/+$/, '').replace(pastedSuffix, '').replace(/\/+$/, '');
  return { ok: true, base: { url, prefix } };
}

/**
 * What keeps `text` from being a configuration node's base URL, or undefined:
 * a problem of parseBaseUrl, or `user-info` (the events bridge's and the
 * platform's clients refuse a user name in it: the calls carry a token).
 */
export function baseUrlProblem(text: unknown): BaseUrlProblem | 'user-info' | undefined {
  const parsed = parseBaseUrl(typeof text === 'string' ? text.trim() : '', /$^/);
  if (!parsed.ok) return parsed.problem;
  return parsed.base.url.username || parsed.base.url.password ? 'user-info' : undefined;
}
