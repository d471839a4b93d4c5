/**
 * The account's tag prefix. Tags an integrator creates reach the events as
 * `<prefix>-<name>` (spec, Tag): a plate enrolled with the tag `Banned` is
 * seen tagged `partner-Banned`. With the prefix known, tag rules compare
 * names with the prefix taken off, so `Banned` and `partner-Banned` are the
 * same tag; without it, names are compared as they are (as before).
 *
 * The editor dialogs restate TAG_PREFIX_SOURCE (events-bridge, detection-filter).
 */

/** A prefix as saved, once its trailing dash is dropped: letters, digits, `_`, and `-` inside. */
export const TAG_PREFIX_SOURCE = '^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9_])?$';
const TAG_PREFIX = new RegExp(TAG_PREFIX_SOURCE);

/**
 * The prefix as tag rules use it: trimmed, without the dash that separates it
 * from the name (`partner` and `partner-` are the same prefix); `''` for
 * none (empty or missing); undefined when it is not a prefix (spaces, `*`…).
 */
export function normaliseTagPrefix(value: unknown): string | undefined {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') return undefined;
  const text = value.trim().replace(/-$/, '');
  if (text === '') return value.trim() === '' ? '' : undefined;
  return TAG_PREFIX.test(text) ? text : undefined;
}

/**
 * A tag name in the form tag rules compare: trimmed, lower case, and without
 * `<prefix>-` when it starts with it and a name follows. `prefix` is a
 * normalised one (normaliseTagPrefix), `''` for none. A name that is only the
 * prefix (`partner`, `partner-`) stays as it is: it is not an empty tag.
 */
export function tagKey(name: string, prefix: string): string {
  const folded = name.trim().toLowerCase();
  if (prefix === '') return folded;
  const head = `${prefix.toLowerCase()}-`;
  if (!folded.startsWith(head)) return folded;
  const rest = folded.slice(head.length).trim();
  return rest === '' ? folded : rest;
}
