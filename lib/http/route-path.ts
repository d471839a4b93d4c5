/**
 * A route's path as a user types it and as a request names it: the one
 * normalisation, the one key two paths are compared by, and what keeps a
 * typed path from being a route. Express matches routes case-insensitively
 * and not strictly about a trailing slash (by default), and the receivers'
 * own listener (./listener.ts) does as Express does.
 *
 * Browser-safe (it imports nothing): the receiver's and the monitor's dialogs
 * run this very file, served by nodes/shared/editor-script.ts, to tell two
 * nodes on one route as the runtime will (nodes/shared/routes.ts).
 */

/** `//Hooks/A/` and `/hooks/a` name the same route: slashes squeezed, no trailing slash, lower case. */
export function routeKey(path: string): string {
  const squeezed = path.replace(/\/{2,}/g, '/');
  const trimmed = squeezed.length > 1 ? squeezed.replace(/\/$/, '') : squeezed;
  return trimmed.toLowerCase();
}

/** A path as typed into a dialog, as the node mounts it: trimmed, with a leading slash. */
export function normalizeNodePath(path: unknown): string {
  let p = typeof path === 'string' ? path.trim() : '';
  if (!p.startsWith('/')) p = `/${p}`;
  return p;
}

/** The key of a path as typed (normalizeNodePath, then routeKey). */
export function typedRouteKey(path: unknown): string {
  return routeKey(normalizeNodePath(path));
}

/** The path of a request's URL (`/a?b` → `/a`), percent-decoded where it decodes. */
export function pathnameOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  const pathname = q < 0 ? raw : raw.slice(0, q);
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/** What keeps a typed path from being a route: none (or only `/`), spaces, a query or fragment; undefined when it is one. */
export function routePathProblem(path: unknown): 'path-empty' | 'path-spaces' | 'path' | undefined {
  const p = typeof path === 'string' ? path.trim() : '';
  if (p === '' || p === '/') return 'path-empty';
  if (/\s/.test(p)) return 'path-spaces';
  return /^\/?[^\s?#]+$/.test(p) ? undefined : 'path';
}

/** Paths typed into one field (a monitor's named receivers): separated by new lines, commas or spaces. */
export function routePathList(text: unknown): string[] {
  const items = Array.isArray(text) ? text : [text];
  const out: string[] = [];
  for (const item of items) if (typeof item === 'string') out.push(...item.split(/[\s,]+/).filter(Boolean));
  return out;
}

/** What keeps a list of paths (routePathList) from being routes: none given, or its first entry that is none (routePathProblem). */
export function routePathListProblem(
  text: unknown,
): { problem: 'paths-empty' } | { problem: 'path-empty' | 'path-spaces' | 'path'; entry: string } | undefined {
  const paths = routePathList(text);
  if (paths.length === 0) return { problem: 'paths-empty' };
  for (const entry of paths) {
    const problem = routePathProblem(entry);
    if (problem) return { problem, entry };
  }
  return undefined;
}

/**
 * The path a receiver is known by in its metrics and health answers (and a
 * monitor's named receivers): its configured path; on a listener's own port,
 * `:<port><path>` (two receivers may share a path on different ports).
 */
export function receiverLabel(path: string, port?: number | string): string {
  return port === undefined || port === '' ? path : `:${port}${path}`;
}
