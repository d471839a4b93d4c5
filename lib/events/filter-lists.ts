/**
 * The lists of detection filter's tag, camera, site and plate rules: items
 * as typed or read from context, compiled only when they change, and what a
 * tag, camera or site rule held on (./filter.ts compiles the rules).
 */
import type { DetectionView } from './detection-view';
import type { RuleEntry } from './filter-explain';
import { tagKey } from './tag-prefix';

/** Rules whose value is a list, typed in or read for each message. */
export const LIST_RULE_TYPES = ['tag', 'camera', 'site', 'plate'] as const;
export type ListRuleType = (typeof LIST_RULE_TYPES)[number];

const ITEM_SEPARATOR = /[,\r\n]+/;

/** The form list items are compared in: trimmed, lower case. */
export function folded(text: string): string {
  return text.trim().toLowerCase();
}

/** One item of a list as compared: trimmed text, a finite number as text; anything else '' (left out). */
function itemText(item: unknown): string {
  return typeof item === 'string' ? item.trim() : typeof item === 'number' && Number.isFinite(item) ? String(item) : '';
}

/** The items of a typed list or of a list read from context: an array of
 *  strings (numbers too), or one string with comma/newline separated items. */
export function listItems(value: unknown): string[] {
  const raw = typeof value === 'string' ? value.split(ITEM_SEPARATOR) : Array.isArray(value) ? value : typeof value === 'number' ? [value] : [];
  const items: string[] = [];
  for (const item of raw) {
    const text = itemText(item);
    if (text !== '') items.push(text);
  }
  return items;
}

/** Why a list read for a message cannot be used (then it is empty); undefined when it can. */
export function listProblem(value: unknown): 'missing' | 'not-a-list' | undefined {
  if (value === undefined || value === null) return 'missing';
  return typeof value === 'string' || typeof value === 'number' || Array.isArray(value) ? undefined : 'not-a-list';
}

/** The comparable form of the items of a tag, camera or site list and of the values they are compared with;
 *  tags without the account's prefix (`tagPrefix`, normalised; '' for none). */
export function keyFor(type: Exclude<ListRuleType, 'plate'>, tagPrefix: string): (text: string) => string {
  if (type === 'tag' && tagPrefix !== '') return (name) => tagKey(name, tagPrefix);
  return folded;
}

/** Whether the array `value` has the very `items` (as listItems reads them), without making a new list. */
function sameItems(value: unknown, items: readonly string[]): boolean {
  if (!Array.isArray(value)) return false;
  let k = 0;
  for (const item of value) {
    const text = itemText(item);
    if (text === '') continue;
    if (k >= items.length || items[k] !== text) return false;
    k++;
  }
  return k === items.length;
}

/**
 * A list read for each message, compiled only when it changes. Unchanged,
 * checked in constant time: the same text, or the same array with the same
 * length. Another array (a store that hands out copies, a msg list on each
 * message) is compared item by item with the list compiled last, and
 * compiled only if its items differ. So a list set anew (flow.set, a change
 * node), or an array grown or shrunk in place (push, splice), is compiled
 * again; an item replaced in place, the length unchanged, is not seen until
 * the list is set again (docs/nodes/detection-filter.md says so).
 */
export function cachedList<T>(compile: (items: string[]) => T): (value: unknown) => T {
  let compiled: T | undefined;
  let lastValue: unknown;
  let lastLength = -1;
  let lastItems: readonly string[] = [];
  return (value) => {
    const length = Array.isArray(value) ? value.length : -1;
    if (compiled !== undefined) {
      if (value === lastValue && length === lastLength) return compiled;
      if (sameItems(value, lastItems)) {
        lastValue = value;
        lastLength = length;
        return compiled;
      }
    }
    const items = listItems(value);
    compiled = compile(items);
    lastValue = value;
    lastLength = length;
    lastItems = items;
    return compiled;
  };
}

/** The view's values a tag, camera or site list rule compares. */
function valuesOf(type: Exclude<ListRuleType, 'plate'>, view: DetectionView): Array<string | null> {
  if (type === 'tag') return view.tags;
  if (type === 'camera') return [view.camera];
  return [view.site];
}

/** A list's entries by their comparable key; of entries that share a key, the first as written. */
export function entriesByKey(items: readonly string[], key: (text: string) => string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const item of items) {
    const k = key(item);
    if (!entries.has(k)) entries.set(k, item);
  }
  return entries;
}

/** The first of the view's values (a tag, the camera, the site) that is on the list, or undefined. */
export function heldValue(
  type: Exclude<ListRuleType, 'plate'>,
  key: (text: string) => string,
  entries: Map<string, string>,
  view: DetectionView,
): string | undefined {
  if (entries.size === 0) return undefined;
  for (const value of valuesOf(type, view)) if (value !== null && entries.has(key(value))) return value;
  return undefined;
}

/** What a tag, camera or site rule held on: the value as sent (and for a tag, the list entry it matched). */
export function listEntry(
  type: Exclude<ListRuleType, 'plate'>,
  position: number,
  key: (text: string) => string,
  entries: Map<string, string>,
  view: DetectionView,
): RuleEntry {
  const value = heldValue(type, key, entries, view) ?? '';
  if (type === 'tag') return { rule: position, type, tag: value, as: entries.get(key(value)) ?? value };
  return type === 'camera' ? { rule: position, type, camera: value } : { rule: position, type, site: value };
}
