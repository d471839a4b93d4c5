/**
 * `{placeholders}` in an API path, filled from a message: `{posId}` from
 * msg.posId, `{payload.siteId}` from msg.payload.siteId. Each value is
 * URL-encoded, so it stays one path segment whatever it holds.
 */

export type FilledPath = { ok: true; path: string } | { ok: false; missing: string };

const PLACEHOLDER = /\{([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[\d+\])*)\}/g;

/** Names used in a template, in order. */
export function placeholders(template: string): string[] {
  return Array.from(template.matchAll(PLACEHOLDER), (m) => m[1]);
}

export function fillPath(template: string, lookup: (name: string) => unknown): FilledPath {
  let missing: string | undefined;
  const path = template.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = lookup(name);
    if (value === undefined || value === null || value === '' || (typeof value === 'object' && !(value instanceof Date))) {
      missing ??= name;
      return '';
    }
    return encodeURIComponent(value instanceof Date ? value.toISOString() : String(value));
  });
  return missing === undefined ? { ok: true, path } : { ok: false, missing };
}
