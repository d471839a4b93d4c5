/**
 * The account's tag prefix. Tags an integrator creates reach the events as
 * `<prefix>-<name>` (spec, Tag): a plate enrolled with the tag `Banned` is
 * seen tagged `partner-Banned`. With the prefix known, tag rules compare
 * names with the prefix taken off, so `Banned` and `partner-Banned` are the
 * same tag; without it, names are compared as they are (as before).
 *
 * Browser-safe (it imports nothing): the dialogs read a prefix with this very
 * file (DetectionBridgeEditor.tagPrefixOf, nodes/shared/editor-script.ts).
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

/**
 * A tag name as a person reads it: `<prefix>-` taken off the front (any case)
 * when a name follows, the name's own spelling kept (an alert shows `Banned`
 * for `partner-Banned`). The same rule as tagKey, without folding.
 */
export function withoutTagPrefix(name: string, prefix: string): string {
  const text = name.trim();
  if (prefix === '') return text;
  const head = `${prefix.toLowerCase()}-`;
  if (!text.toLowerCase().startsWith(head)) return text;
  const rest = text.slice(head.length).trim();
  return rest === '' ? text : rest;
}

/** Why a node cannot use a tag prefix: its own is not one, its events bridge is not deployed, or the bridge's is not one. */
export type TagPrefixProblem = { problem: 'own' } | { problem: 'no-bridge' } | { problem: 'bridge'; message: string };

/**
 * The prefix a node uses: the one typed in the node, else that of the events
 * bridge it names (`bridgeId`, '' or `_ADD_` for none), else none (''). The
 * bridge is asked through `bridgePrefix` (undefined: no such bridge
 * deployed; an Error: its prefix is not valid). detection-filter and
 * detection-alert read it alike.
 */
export function chooseTagPrefix(
  own: unknown,
  bridgeId: unknown,
  bridgePrefix: (id: string) => string | Error | undefined,
): string | TagPrefixProblem {
  const typed = normaliseTagPrefix(own);
  if (typed === undefined) return { problem: 'own' };
  if (typed !== '') return typed;
  const id = typeof bridgeId === 'string' && bridgeId !== '_ADD_' ? bridgeId : '';
  if (!id) return '';
  const prefix = bridgePrefix(id);
  if (prefix === undefined) return { problem: 'no-bridge' };
  return prefix instanceof Error ? { problem: 'bridge', message: prefix.message } : prefix;
}
