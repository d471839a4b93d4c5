/**
 * The platform's URLs: {core_base_url} as the user enters it, and the v2
 * paths below it. An absolute URL is never accepted as a path, so the bearer
 * token cannot be sent to another host.
 */
import { type BaseUrlProblem, parseBaseUrl, redactUserInfo, TransportError } from '../http';

export const PLATFORM_LOGIN_PATH = '/api/v2/auth/login';
export const PLATFORM_INSTALLED_PLUGINS_PATH = '/api/v2/portal/installed-plugins';

/** The path of the POS batch endpoint of one POS module instance. */
export function posBatchPath(posId: string | number): string {
  return `/api/v2/pos/plugins/${encodeURIComponent(String(posId))}/events/batch`;
}

/** What a user may paste along with the core base URL: `/api/v2` or a whole v2 call. */
const PASTED_V2_SUFFIX = /\/api\/v2(?:\/.*)?$/i;

export interface PlatformBase {
  /** `https://host:port` */
  origin: string;
  /** The base's path prefix without a trailing slash: '' or `/core`. */
  prefix: string;
  /** origin + prefix, for messages. */
  display: string;
}

const BASE_URL_DETAIL: Record<BaseUrlProblem, string> = {
  empty: 'platform-url-empty',
  'not-absolute': 'platform-url-not-absolute',
  protocol: 'url-protocol',
  query: 'url-query',
};

/**
 * Parses {core_base_url}. A path prefix is kept (`https://host/core` →
 * prefix `/core`); a pasted `/api/v2…` at the end is dropped. User info in
 * the URL is refused: the user name and password are credentials of their own.
 */
export function parsePlatformBase(baseUrl: string): PlatformBase {
  const text = String(baseUrl ?? '').trim();
  const bad = (detail: string): TransportError =>
    new TransportError('platform', 'url', { url: redactUserInfo(text), detail: { key: `transport.detail.${detail}` } });
  const parsed = parseBaseUrl(text, PASTED_V2_SUFFIX);
  if (!parsed.ok) throw bad(BASE_URL_DETAIL[parsed.problem]);
  const { url, prefix } = parsed.base;
  if (url.username || url.password) throw bad('url-user-info');
  return { origin: url.origin, prefix, display: `${url.origin}${prefix}` };
}

export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>;
export type PlatformQuery = Record<string, QueryValue> | URLSearchParams;

/**
 * Joins the base and a path relative to it, keeping the base's prefix:
 * `https://h/core` + `api/v2/x?a=1` + `{b: 2}` → `https://h/core/api/v2/x?a=1&b=2`.
 * An absolute URL as path is refused, so the bearer token never goes to
 * another host. null/undefined query values are left out; arrays repeat the key.
 */
export function platformUrl(base: PlatformBase, path: string, query?: PlatformQuery): URL {
  const raw = String(path ?? '').trim();
  const bad = (detail: string): TransportError =>
    new TransportError('platform', 'path', { path: raw, detail: { key: `transport.detail.${detail}` } });
  if (!raw) throw bad('path-empty');
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('//')) throw bad('path-absolute');
  if (raw.includes('#')) throw bad('path-fragment');
  const url = new URL(`${base.origin}${base.prefix}/${raw.replace(/^\/+/, '')}`);
  if (url.origin !== base.origin) throw bad('path-escapes');
  if (query) {
    const entries = query instanceof URLSearchParams ? [...query.entries()] : Object.entries(query);
    for (const [key, value] of entries) {
      if (value === null || value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else url.searchParams.append(key, String(value));
    }
  }
  return url;
}
