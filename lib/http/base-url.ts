/**
 * A base URL as users paste it: `https://host:5022`, `https://tenant/core/`,
 * sometimes with the endpoint they copied from a manual still on the end. The
 * bridge client and the platform client both keep the base's path prefix and
 * drop a pasted suffix; they differ in what user info means (the bridge takes
 * it as Basic credentials, the platform refuses it) and in their texts.
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
