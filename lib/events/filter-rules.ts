/**
 * detection-filter's rules as saved, judged and summed up without compiling
 * them: what a rule may be, what is wrong with one, and the words of its
 * part of the node's label and status. ./filter.ts compiles rules that pass
 * this check; the filter dialog runs this very file (served by
 * nodes/shared/editor-script.ts), so the dialog and the runtime cannot judge
 * or word a rule differently.
 *
 * Browser-safe: at run time it imports only ./filter-lists (and its
 * ./tag-prefix) and ./time-window, which are served before it, and builds
 * its Messages as plain objects (lib/core/messages.ts would bring the catalog).
 */
import type { Message, MessageParams, Translate } from '../core/messages';
import { LIST_RULE_TYPES, listItems, type ListRuleType } from './filter-lists';
import { formatWindows, parseWindows } from './time-window';

export { listItems };

/** Every kind of rule, in the order the dialog offers them. */
export const RULE_TYPES = ['tag', 'camera', 'camera-match', 'site', 'plate', 'enrolled', 'name', 'confidence', 'context', 'kind', 'time'] as const;
export type RuleType = (typeof RULE_TYPES)[number];
/** Where a list rule's list comes from: typed in, or a property read for each message. */
export const LIST_SOURCES = ['list', 'msg', 'flow', 'global'] as const;
export type ListSource = Exclude<(typeof LIST_SOURCES)[number], 'list'>;
/** Where a time rule's windows come from: typed in, an environment variable (read at deploy), or a property read for each message. */
export const TIME_SOURCES = ['windows', 'msg', 'flow', 'global', 'env'] as const;
/** Whether a time rule holds inside its windows or outside them. */
export const TIME_KINDS = ['inside', 'outside'] as const;
export type TimeKind = (typeof TIME_KINDS)[number];
/** The event kinds a kind rule chooses from. */
export const RULE_KINDS = ['face', 'lpr'] as const;
export const COMBINES = ['all', 'any'] as const;
export type Combine = (typeof COMBINES)[number];
/** The length past which a summary is cut with "…". */
export const SUMMARY_MAX = 40;

/** A rule as the editor saves it (any field may be missing or wrong in a hand-written flow). */
export interface RuleConfig {
  t?: unknown;
  v?: unknown;
  vt?: unknown;
  k?: unknown;
  /** Urgent: a message this rule held for is sent as urgent (true; missing or anything else: not). */
  u?: unknown;
}

/** What plate rules forgive, as their summary says it. */
export interface PlateTolerance {
  lookalikes: number;
  extraMissing: number;
}

const msg = (key: string, params?: MessageParams): Message => (params ? { key, params } : { key });
const problem = (key: string, params?: MessageParams): Message => msg(`filter.problem.${key}`, params);
const isIn = (list: readonly string[], value: unknown): value is string => typeof value === 'string' && list.includes(value);
const unset = (value: unknown): boolean => value === undefined || value === null || value === '';

/** A rule's value as text (a number as a hand-written flow may hold it). */
export function ruleText(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** Whether `type` is a list rule's. */
export function isListRule(type: unknown): type is ListRuleType {
  return isIn(LIST_RULE_TYPES, type);
}

/** A list rule's source, a time rule's windows' source, a time rule's kind: unset means the first. */
export function listSource(rule: RuleConfig): unknown {
  return unset(rule.vt) ? 'list' : rule.vt;
}
export function timeSource(rule: RuleConfig): unknown {
  return unset(rule.vt) ? 'windows' : rule.vt;
}
export function timeKind(rule: RuleConfig): unknown {
  return unset(rule.k) ? 'inside' : rule.k;
}

/** What is wrong with a time rule as saved (an env variable's value is read at deploy, by ./filter.ts). */
function timeRuleProblem(rule: RuleConfig): Message | undefined {
  const kind = timeKind(rule);
  if (!isIn(TIME_KINDS, kind)) return problem('time-kind', { kind: ruleText(kind) });
  const source = timeSource(rule);
  if (!isIn(TIME_SOURCES, source)) return problem('time-source', { source: ruleText(source) });
  if (source === 'windows') {
    const parsed = parseWindows(rule.v);
    return parsed.ok ? undefined : parsed.problem;
  }
  if (ruleText(rule.v).trim() !== '') return undefined;
  return source === 'env' ? problem('time-env-name') : problem('time-property', { source });
}

/**
 * What keeps a rule as saved from working (a message under `filter.problem.`,
 * or a time window's own), or undefined. A rule that passes compiles.
 */
export function ruleConfigProblem(rule: RuleConfig): Message | undefined {
  const type = rule.t;
  if (unset(type)) return problem('type-missing');
  if (!isIn(RULE_TYPES, type)) return problem('type', { type: String(type) });
  const value = ruleText(rule.v);
  if (type === 'kind') return isIn(RULE_KINDS, value) ? undefined : problem('kind');
  if (isListRule(type)) {
    const source = listSource(rule);
    if (!isIn(LIST_SOURCES, source)) return problem('source', { source: ruleText(source) });
    if (source !== 'list') return value.trim() === '' ? problem('property', { source }) : undefined;
    return listItems(value).length === 0 ? problem(`${type}-empty`) : undefined;
  }
  if (type === 'camera-match') return value.trim() === '' ? problem('pattern') : undefined;
  if (type === 'name') return value.trim() === '' ? problem('name') : undefined;
  if (type === 'confidence') {
    const trimmed = value.trim();
    if (trimmed === '') return problem('confidence-empty');
    const at = Number(trimmed);
    return Number.isFinite(at) && at >= 0 && at <= 1 ? undefined : problem('confidence', { value: trimmed });
  }
  if (type === 'context') return ruleText(rule.k).trim() === '' ? problem('context-key') : undefined;
  if (type === 'time') return timeRuleProblem(rule);
  return undefined;
}

/** A plate rule's summary: `plate 8OB123`, with what it forgives (`~1` look-alike, `±1` extra or missing). */
function plateSummary(list: string, plates: PlateTolerance): Message {
  const { lookalikes, extraMissing } = plates;
  if (lookalikes > 0 && extraMissing > 0) return msg('filter.summary.plate-both', { list, lookalikes, extra: extraMissing });
  if (lookalikes > 0) return msg('filter.summary.plate-lookalikes', { list, lookalikes });
  if (extraMissing > 0) return msg('filter.summary.plate-extra', { list, extra: extraMissing });
  return msg('filter.summary.plate', { list });
}

/**
 * A rule's part of the summary (`tag VIP, Banned`), urgent marked; for a rule
 * that passes ruleConfigProblem. A list or windows read from somewhere is
 * shown by where (`msg.vip`, `env.NIGHT`).
 */
export function ruleSummary(rule: RuleConfig, plates: PlateTolerance): Message {
  const part = plainSummary(rule, plates);
  return rule.u === true ? msg('filter.summary.urgent', { rule: part }) : part;
}

function plainSummary(rule: RuleConfig, plates: PlateTolerance): Message {
  const value = ruleText(rule.v).trim();
  const type = rule.t;
  if (isListRule(type)) {
    const source = listSource(rule);
    const list = source === 'list' ? listItems(value).join(', ') : `${ruleText(source)}.${value}`;
    return type === 'plate' ? plateSummary(list, plates) : msg(`filter.summary.${type}`, { list });
  }
  switch (type) {
    case 'kind':
      return msg(`filter.summary.kind-${value}`);
    case 'camera-match':
      return msg('filter.summary.camera', { list: value });
    case 'enrolled':
      return msg('filter.summary.enrolled');
    case 'name':
      return msg('filter.summary.name', { text: value });
    case 'confidence':
      return msg('filter.summary.confidence', { value: Number(value) });
    case 'time': {
      const source = timeSource(rule);
      const parsed = source === 'windows' ? parseWindows(rule.v) : undefined;
      const windows = parsed && parsed.ok ? formatWindows(parsed.windows, '–') : `${ruleText(source)}.${value}`;
      return msg(`filter.summary.time-${ruleText(timeKind(rule))}`, { windows });
    }
    default:
      return msg('filter.summary.context', { key: ruleText(rule.k), value });
  }
}

/** A Message in words: nested messages first (as lib/core/messages.ts renderMessage, with any translation). */
export function messageText(message: Message, translate: Translate): string {
  const params: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(message.params ?? {})) params[name] = typeof value === 'object' ? messageText(value, translate) : value;
  return translate(message.key, params);
}

/** One line for a label or a status: `tag VIP, Banned · camera Gate 2` (any: `… or …`), cut at `max`. */
export function summaryLine(summaries: readonly Message[], combine: Combine, translate: Translate, max = SUMMARY_MAX): string {
  if (summaries.length === 0) return translate('filter.summary.none');
  const parts = summaries.map((m) => messageText(m, translate));
  const line = parts.join(combine === 'all' ? ' · ' : ` ${translate('filter.summary.or')} `);
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

export interface FilterOptions {
  /**
   * The account's tag prefix, as normaliseTagPrefix (./tag-prefix.ts) returns it:
   * tag rules then hold for a tag with or without it (`Banned` passes
   * `partner-Banned`, and `partner-Banned` passes `Banned`). '' (the default):
   * tag names are compared as they are.
   */
  tagPrefix?: string;
  /**
   * The IANA zone time rules judge an event in when it gives none of its
   * own (`detectionInfo.timeZone`); '' or missing: `systemTimeZone`.
   */
  timeZone?: string;
  /** Node-RED's own zone (default: the process's, from Intl). */
  systemTimeZone?: string;
  /** An environment variable's value, for time windows read from env at deploy (default: process.env). */
  env?: (name: string) => unknown;
  /** How plate rules match (every plate rule of the filter alike). Not given: exactly, and on similar1Plate too. */
  plates?: PlateOptions;
}

/** How plate rules match, as a node's options say it. */
export interface PlateOptions {
  /** Look-alike characters a match may have, 0–2 (default 0). */
  lookalikes?: number;
  /** Extra or missing characters a match may have, 0–2 (default 0). */
  extraMissing?: number;
  /** The look-alike classes as typed (`0ODQ 1I …`; default DEFAULT_LOOKALIKE_CLASSES); read only when look-alikes are allowed. */
  classes?: string;
  /** Whether a plate rule also holds on the reader's second guess, similar1Plate (default true). */
  similar1Plate?: boolean;
}
