/**
 * The rules of detection-filter, Node-RED-free: compiled once at deploy
 * (lists into Sets, wildcards into RegExps), then matched against the
 * DetectionView of each event. A list a rule reads from msg/flow/global is
 * handed in per message by the node and compiled then, cheaply.
 *
 * A rule that cannot work is a configuration problem: a Message naming the
 * rule's position and what to fix (locales/<lang>/shared.json, `filter.*`).
 */
import type { DetectionView } from './detection-view';
import { message, renderMessage, translateEnglish, type Message, type Translate } from '../core/messages';
import { tagKey } from './tag-prefix';
import { normalisePlate } from '../plates';

export const RULE_TYPES = ['kind', 'tag', 'camera', 'camera-match', 'site', 'plate', 'enrolled', 'name', 'confidence', 'context'] as const;
export type RuleType = (typeof RULE_TYPES)[number];
/** Rules whose value is a list, typed in or read for each message. */
export const LIST_RULE_TYPES = ['tag', 'camera', 'site', 'plate'] as const;
export type ListRuleType = (typeof LIST_RULE_TYPES)[number];
/** Where a list rule's list comes from: typed in, or a property read for each message. */
export const LIST_SOURCES = ['list', 'msg', 'flow', 'global'] as const;
export type ListSource = Exclude<(typeof LIST_SOURCES)[number], 'list'>;
export const COMBINES = ['all', 'any'] as const;
export type Combine = (typeof COMBINES)[number];

/** A rule as the editor saves it (any field may be missing or wrong in a hand-written flow). */
export interface RuleConfig {
  t?: unknown;
  v?: unknown;
  vt?: unknown;
  k?: unknown;
}

/** A list read for each message: `lists[i]` handed to `matches` is the value of `reads[i]`. */
export interface ListRead {
  /** The rule's position, from 1. */
  position: number;
  type: ListRuleType;
  source: ListSource;
  property: string;
}

/** A configuration problem; `position` is the rule's (from 1), 0 for the rule list itself. */
export interface FilterProblem extends Message {
  position: number;
}

export type CompileResult = { ok: true; filter: DetectionFilter } | { ok: false; problems: FilterProblem[] };

type Test = (view: DetectionView, lists: readonly unknown[]) => boolean;

const ITEM_SEPARATOR = /[,\r\n]+/;

/** The form list items are compared in: trimmed, lower case. */
function folded(text: string): string {
  return text.trim().toLowerCase();
}

/** The items of a typed list or of a list read from context: an array of
 *  strings (numbers too), or one string with comma/newline separated items. */
export function listItems(value: unknown): string[] {
  const raw = typeof value === 'string' ? value.split(ITEM_SEPARATOR) : Array.isArray(value) ? value : typeof value === 'number' ? [value] : [];
  const items: string[] = [];
  for (const item of raw) {
    const text = typeof item === 'string' ? item.trim() : typeof item === 'number' && Number.isFinite(item) ? String(item) : '';
    if (text !== '') items.push(text);
  }
  return items;
}

/** Why a list read for a message cannot be used (then it is empty); undefined when it can. */
export function listProblem(value: unknown): 'missing' | 'not-a-list' | undefined {
  if (value === undefined || value === null) return 'missing';
  return typeof value === 'string' || typeof value === 'number' || Array.isArray(value) ? undefined : 'not-a-list';
}

/** `*` any run of characters, `?` one character, everything else literal; whole name, any case. */
export function wildcardRegExp(pattern: string): RegExp {
  const body = pattern
    .trim()
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'is');
}

/** The comparable form of a list rule's items and of the values they are compared with;
 *  tags without the account's prefix (`tagPrefix`, normalised; '' for none). */
function keyFor(type: ListRuleType, tagPrefix: string): (text: string) => string {
  if (type === 'plate') return normalisePlate;
  if (type === 'tag' && tagPrefix !== '') return (name) => tagKey(name, tagPrefix);
  return folded;
}

/** A Set of a list's keys; the last list seen is kept, so an unchanged context list is not compiled again. */
function cachedSet(key: (text: string) => string): (value: unknown) => Set<string> {
  let lastString: string | undefined;
  let lastItems: unknown[] | undefined;
  let lastSet = new Set<string>();
  return (value) => {
    if (typeof value === 'string') {
      if (value === lastString) return lastSet;
      lastString = value;
      lastItems = undefined;
    } else if (Array.isArray(value)) {
      // compared item by item: a list changed in place (flow.get(...).push) is seen
      if (lastItems && lastItems.length === value.length && lastItems.every((item, i) => item === value[i])) return lastSet;
      lastItems = value.slice();
      lastString = undefined;
    } else {
      lastString = undefined;
      lastItems = undefined;
    }
    lastSet = new Set(listItems(value).map(key));
    return lastSet;
  };
}

/** The view's values a list rule compares. */
function valuesOf(type: ListRuleType, view: DetectionView): Array<string | null> {
  if (type === 'tag') return view.tags;
  if (type === 'camera') return [view.camera];
  if (type === 'site') return [view.site];
  return view.kind === 'lpr' ? [view.plate, view.similar1Plate] : [];
}

function hasAny(type: ListRuleType, key: (text: string) => string, set: Set<string>, view: DetectionView): boolean {
  if (set.size === 0) return false;
  for (const value of valuesOf(type, view)) if (value !== null && set.has(key(value))) return true;
  return false;
}

function contextText(value: unknown): string | undefined {
  if (typeof value === 'string') return folded(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).toLowerCase();
  return undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

const problem = (position: number, key: string, params?: Record<string, string | number>): FilterProblem => ({
  position,
  ...message('filter.rule', { position, problem: message(`filter.problem.${key}`, params) }),
});

interface Compiled {
  test: Test;
  summary: Message;
}

/** One rule, or the problem that keeps it from working. */
function compileRule(rule: RuleConfig, position: number, reads: ListRead[], tagPrefix: string): Compiled | FilterProblem {
  const type = rule.t;
  if (type === undefined || type === null || type === '') return problem(position, 'type-missing');
  if (typeof type !== 'string' || !(RULE_TYPES as readonly string[]).includes(type)) return problem(position, 'type', { type: String(type) });
  const value = text(rule.v);
  switch (type as RuleType) {
    case 'kind': {
      if (value !== 'face' && value !== 'lpr') return problem(position, 'kind');
      return { test: (view) => view.kind === value, summary: message(`filter.summary.kind-${value}`) };
    }
    case 'tag':
    case 'camera':
    case 'site':
    case 'plate': {
      const listType = type as ListRuleType;
      const key = keyFor(listType, tagPrefix);
      const source = rule.vt === undefined || rule.vt === null || rule.vt === '' ? 'list' : rule.vt;
      if (typeof source !== 'string' || !(LIST_SOURCES as readonly string[]).includes(source))
        return problem(position, 'source', { source: text(source) });
      if (source === 'list') {
        const items = listItems(value);
        if (items.length === 0) return problem(position, `${listType}-empty`);
        const set = new Set(items.map(key));
        return { test: (view) => hasAny(listType, key, set, view), summary: message(`filter.summary.${listType}`, { list: items.join(', ') }) };
      }
      const property = value.trim();
      if (property === '') return problem(position, 'property', { source });
      const index = reads.push({ position, type: listType, source: source as ListSource, property }) - 1;
      const setOf = cachedSet(key);
      return {
        test: (view, lists) => hasAny(listType, key, setOf(lists[index]), view),
        summary: message(`filter.summary.${listType}`, { list: `${source}.${property}` }),
      };
    }
    case 'camera-match': {
      if (value.trim() === '') return problem(position, 'pattern');
      const pattern = wildcardRegExp(value);
      return {
        test: (view) => view.camera !== null && pattern.test(view.camera.trim()),
        summary: message('filter.summary.camera', { list: value.trim() }),
      };
    }
    case 'enrolled':
      return { test: (view) => view.enrolled, summary: message('filter.summary.enrolled') };
    case 'name': {
      const part = folded(value);
      if (part === '') return problem(position, 'name');
      return {
        test: (view) => view.kind === 'face' && view.fullName !== null && view.fullName.toLowerCase().includes(part),
        summary: message('filter.summary.name', { text: value.trim() }),
      };
    }
    case 'confidence': {
      const trimmed = value.trim();
      if (trimmed === '') return problem(position, 'confidence-empty');
      const at = Number(trimmed);
      if (!Number.isFinite(at) || at < 0 || at > 1) return problem(position, 'confidence', { value: trimmed });
      return { test: (view) => view.confidence !== null && view.confidence >= at, summary: message('filter.summary.confidence', { value: at }) };
    }
    case 'context': {
      const key = text(rule.k);
      if (key.trim() === '') return problem(position, 'context-key');
      const wanted = folded(value);
      return {
        test: (view) => view.serverContext !== null && Object.hasOwn(view.serverContext, key) && contextText(view.serverContext[key]) === wanted,
        summary: message('filter.summary.context', { key, value: value.trim() }),
      };
    }
  }
}

/** The length past which a summary is cut with "…". */
export const SUMMARY_MAX = 40;

export class DetectionFilter {
  constructor(
    readonly combine: Combine,
    private readonly tests: readonly Test[],
    private readonly summaries: readonly Message[],
    /** The lists to read for each message, in the order `matches` takes them. */
    readonly reads: readonly ListRead[],
    /** The account's tag prefix tag rules take off before comparing (normalised); '' for none. */
    readonly tagPrefix: string = '',
  ) {}

  /** Whether the event passes: all rules hold (or any, by `combine`). No rules: every event passes.
   *  Not an event (undefined): never. */
  matches(view: DetectionView | undefined, lists: readonly unknown[] = []): boolean {
    if (!view) return false;
    if (this.tests.length === 0) return true;
    if (this.combine === 'all') return this.tests.every((test) => test(view, lists));
    return this.tests.some((test) => test(view, lists));
  }

  /** One line for a label or a status: `tag VIP, Banned · camera Gate 2` (any: `… or …`), cut at `max`. */
  summary(translate: Translate = translateEnglish, max = SUMMARY_MAX): string {
    if (this.summaries.length === 0) return translate('filter.summary.none');
    const parts = this.summaries.map((m) => renderMessage(m, translate));
    const line = parts.join(this.combine === 'all' ? ' · ' : ` ${translate('filter.summary.or')} `);
    return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
  }
}

export interface FilterOptions {
  /**
   * The account's tag prefix, as normaliseTagPrefix (./tag-prefix) returns it:
   * tag rules then hold for a tag with or without it (`Banned` passes
   * `partner-Banned`, and `partner-Banned` passes `Banned`). '' (the default):
   * tag names are compared as they are.
   */
  tagPrefix?: string;
}

/** Compiles the saved rules; every rule that cannot work is reported, not only the first. */
export function compileFilter(rules: unknown, combine: Combine = 'all', options: FilterOptions = {}): CompileResult {
  const tagPrefix = options.tagPrefix ?? '';
  const list = rules === undefined || rules === null ? [] : rules;
  if (!Array.isArray(list)) return { ok: false, problems: [{ position: 0, ...message('filter.not-a-list') }] };
  const tests: Test[] = [];
  const summaries: Message[] = [];
  const reads: ListRead[] = [];
  const problems: FilterProblem[] = [];
  list.forEach((rule: unknown, i) => {
    const compiled = compileRule(rule !== null && typeof rule === 'object' ? (rule as RuleConfig) : {}, i + 1, reads, tagPrefix);
    if ('position' in compiled) problems.push(compiled);
    else {
      tests.push(compiled.test);
      summaries.push(compiled.summary);
    }
  });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, filter: new DetectionFilter(combine, tests, summaries, reads, tagPrefix) };
}
