/**
 * The rules of detection-filter, Node-RED-free: compiled once at deploy
 * (lists into Maps of their entries, plate lists into a PlateList index of
 * lib/plates, wildcards into RegExps), then matched against the DetectionView
 * of each event. A list a rule reads from msg/flow/global is handed in per
 * message by the node and compiled only when it changes (./filter-lists.ts).
 *
 * A time rule's windows (./time-window.ts) are typed in, read from env at
 * deploy, or read per message like a list and parsed once per change.
 *
 * A rule that cannot work is a configuration problem: a Message naming the
 * rule's position and what to fix (locales/<lang>/shared.json, `filter.*`).
 *
 * A message that passes is explained (./filter-explain.ts): each rule that
 * held gives an entry saying what it held on; a rule marked urgent (`u`) that
 * held makes the message urgent.
 */
import type { DetectionView } from './detection-view';
import { message, renderMessage, translateEnglish, type Message, type Translate } from '../core/messages';
import { parseIsoDate } from '../core/iso-date';
import { compilePlateList, DEFAULT_LOOKALIKE_CLASSES, parseLookalikeClasses, type Lookalikes, type PlateList } from '../plates';
import { formatWindows, isInside, knownTimeZone, parseWindows, systemTimeZone, timeZoneProblem, windowsReader, type TimeWindow } from './time-window';
import { timeEntry, type PlateMatch, type RuleEntry } from './filter-explain';
import { cachedList, entriesByKey, folded, heldValue, keyFor, listEntry, listItems, listProblem, type ListRuleType } from './filter-lists';

export const RULE_TYPES = ['kind', 'tag', 'camera', 'camera-match', 'site', 'plate', 'enrolled', 'name', 'confidence', 'context', 'time'] as const;
export type RuleType = (typeof RULE_TYPES)[number];
export { LIST_RULE_TYPES, listItems, listProblem, type ListRuleType } from './filter-lists';
/** Where a list rule's list comes from: typed in, or a property read for each message. */
export const LIST_SOURCES = ['list', 'msg', 'flow', 'global'] as const;
export type ListSource = Exclude<(typeof LIST_SOURCES)[number], 'list'>;
/** Where a time rule's windows come from: typed in, an environment variable (read at deploy), or a property read for each message. */
export const TIME_SOURCES = ['windows', 'msg', 'flow', 'global', 'env'] as const;
/** Whether a time rule holds inside its windows or outside them. */
export const TIME_KINDS = ['inside', 'outside'] as const;
export type TimeKind = (typeof TIME_KINDS)[number];
export const COMBINES = ['all', 'any'] as const;
export type Combine = (typeof COMBINES)[number];

/** A rule as the editor saves it (any field may be missing or wrong in a hand-written flow). */
export interface RuleConfig {
  t?: unknown;
  v?: unknown;
  vt?: unknown;
  k?: unknown;
  /** Urgent: a message this rule held for is sent as urgent (true; missing or anything else: not). */
  u?: unknown;
}

/** A value read for each message (a list, or a time rule's windows): `lists[i]` handed to `matches` is the value of `reads[i]`. */
export interface RuleRead {
  /** The rule's position, from 1. */
  position: number;
  type: ListRuleType | 'time';
  source: ListSource;
  property: string;
}
/** The name RuleRead had when only lists were read. */
export type ListRead = RuleRead;

/** Why a value read for a message cannot be used (the rule then holds for no event): missing, not a list, or windows that do not parse. */
export type ReadProblem = { kind: 'missing' } | { kind: 'not-a-list' } | { kind: 'windows'; problem: Message };

/**
 * When an event is judged by time rules, and in which zone: its detection
 * time (`payload.detectionInfo.dateTimeUtc`), so an event resent hours later
 * is judged by when it happened, else the time the message is handled.
 */
export interface DetectionTime {
  /** The instant judged (ms since the epoch). */
  millis: number;
  /** True: the event's detection time; false: it has none that reads as a date, so the time it was handled. */
  fromEvent: boolean;
  /** The event's `detectionInfo.timeZone` as Intl names it; null when it gives none Intl knows. */
  zone: string | null;
}

/** A configuration problem; `position` is the rule's (from 1), 0 for the rule list itself. */
export interface FilterProblem extends Message {
  position: number;
}

export type CompileResult = { ok: true; filter: DetectionFilter } | { ok: false; problems: FilterProblem[] };

/** A rule's verdict: held or not; a plate rule that holds says how (truthy). */
type Test = (view: DetectionView, lists: readonly unknown[], when: DetectionTime | undefined) => boolean | PlateMatch;
/** What a rule that held held on (asked only of a message that passed); `verdict` is its Test's. */
type Explain = (view: DetectionView, lists: readonly unknown[], when: DetectionTime | undefined, verdict: true | PlateMatch) => RuleEntry;

/**
 * How an event fared: whether it passes; when it does, the match of the
 * first plate rule that held (when one did), an entry for each rule that
 * held, in rule order, and whether one of them is urgent.
 */
export interface FilterOutcome {
  passed: boolean;
  match: PlateMatch | undefined;
  rules: readonly RuleEntry[];
  urgent: boolean;
}

function objectAt(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** When `event` happened and its own zone (see DetectionTime); `now` (ms) when its `dateTimeUtc` does not read as a date. */
export function detectionTime(event: unknown, now: number): DetectionTime {
  const info = objectAt(objectAt(objectAt(event).payload).detectionInfo);
  const sent = typeof info.dateTimeUtc === 'string' ? parseIsoDate(info.dateTimeUtc) : NaN;
  const zone = knownTimeZone(info.timeZone) ?? null;
  return Number.isFinite(sent) ? { millis: sent, fromEvent: true, zone } : { millis: now, fromEvent: false, zone };
}

/** A DetectionTime from a view alone (for callers of `matches` that give none): its `time`, its zone unless `UTC`. */
function timeOfView(view: DetectionView): DetectionTime {
  const millis = view.time === null ? NaN : Date.parse(view.time);
  const zone = view.timeZone === 'UTC' ? null : view.timeZone;
  return Number.isFinite(millis) ? { millis, fromEvent: true, zone } : { millis: Date.now(), fromEvent: false, zone };
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

/** What a plate rule held on: the read, the entry, how and how well (the whole match is msg.match's top). */
function plateEntry(match: PlateMatch): RuleEntry {
  return { rule: match.rule, type: 'plate', plate: match.read, entry: match.entry, kind: match.kind, score: match.score };
}

/** The plate rule's test on a compiled list: the match with the rule's position, or false. Never holds for a face. */
function plateMatch(list: PlateList, position: number, view: DetectionView): PlateMatch | false {
  if (view.kind !== 'lpr') return false;
  const match = list.match(view.plate, view.similar1Plate);
  return match ? { rule: position, ...match } : false;
}

/** How plate rules match, as compileFilter was given it (the classes compiled). */
interface PlateMatching {
  lookalikes: number;
  extraMissing: number;
  classes: Lookalikes | undefined;
  similar1Plate: boolean;
}

/** A plate rule's summary: `plate 8OB123`, with what it forgives (`~1` look-alike, `±1` extra or missing). */
function plateSummary(list: string, plates: PlateMatching): Message {
  const { lookalikes, extraMissing } = plates;
  if (lookalikes > 0 && extraMissing > 0) return message('filter.summary.plate-both', { list, lookalikes, extra: extraMissing });
  if (lookalikes > 0) return message('filter.summary.plate-lookalikes', { list, lookalikes });
  if (extraMissing > 0) return message('filter.summary.plate-extra', { list, extra: extraMissing });
  return message('filter.summary.plate', { list });
}

function contextText(value: unknown): string | undefined {
  if (typeof value === 'string') return folded(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).toLowerCase();
  return undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** A rule's problem: `inner` says what is wrong with it. */
const ruleProblem = (position: number, inner: Message): FilterProblem => ({ position, ...message('filter.rule', { position, problem: inner }) });
const problem = (position: number, key: string, params?: Record<string, string | number>): FilterProblem =>
  ruleProblem(position, message(`filter.problem.${key}`, params));

interface Compiled {
  test: Test;
  explain: Explain;
  summary: Message;
}

/** What compiling a rule needs besides the rule. */
interface RuleContext {
  /** The values to read for each message, and what makes each unusable; a rule adds its own. */
  reads: RuleRead[];
  readChecks: Array<(value: unknown) => ReadProblem | undefined>;
  tagPrefix: string;
  /** The zone of time rules for events without one of their own: the node's, else Node-RED's. */
  timeZone: string;
  /** An environment variable's value (at deploy). */
  env: (name: string) => unknown;
  /** How plate rules match. */
  plates: PlateMatching;
}

/** Whether `when` is inside the windows, in the event's own zone or else `zone`. */
function inside(windows: readonly TimeWindow[], view: DetectionView, when: DetectionTime | undefined, zone: string): boolean {
  const at = when ?? timeOfView(view);
  return isInside(windows, at.millis, at.zone ?? zone);
}

/** What a time rule held on: the local time judged, in the zone it was judged in, and the windows. */
function judgedTime(
  position: number,
  view: DetectionView,
  when: DetectionTime | undefined,
  zone: string,
  windows: string,
  holds: boolean,
): RuleEntry {
  const at = when ?? timeOfView(view);
  return timeEntry(position, at.millis, at.zone ?? zone, windows, holds);
}

/** A time rule: inside or outside windows typed in, from env, or read for each message. */
function compileTimeRule(rule: RuleConfig, position: number, ctx: RuleContext): Compiled | FilterProblem {
  const kind = rule.k === undefined || rule.k === null || rule.k === '' ? 'inside' : rule.k;
  if (typeof kind !== 'string' || !(TIME_KINDS as readonly string[]).includes(kind)) return problem(position, 'time-kind', { kind: text(kind) });
  const holds = kind === 'inside';
  const source = rule.vt === undefined || rule.vt === null || rule.vt === '' ? 'windows' : rule.vt;
  if (typeof source !== 'string' || !(TIME_SOURCES as readonly string[]).includes(source))
    return problem(position, 'time-source', { source: text(source) });
  const zone = ctx.timeZone;
  const summary = (windows: string) => message(`filter.summary.time-${kind}`, { windows });
  /** A rule on windows known at deploy: typed, or from env. */
  const fixed = (windows: readonly TimeWindow[], shown: string): Compiled => {
    const text = formatWindows(windows, '–');
    return {
      test: (view, _lists, when) => inside(windows, view, when, zone) === holds,
      explain: (view, _lists, when) => judgedTime(position, view, when, zone, text, holds),
      summary: summary(shown),
    };
  };
  if (source === 'windows') {
    const parsed = parseWindows(rule.v);
    if (!parsed.ok) return ruleProblem(position, parsed.problem);
    return fixed(parsed.windows, formatWindows(parsed.windows, '–'));
  }
  if (source === 'env') {
    // an environment variable does not change while the flow runs: read and parsed once, at deploy
    const name = text(rule.v).trim();
    if (name === '') return problem(position, 'time-env-name');
    const value = ctx.env(name);
    if (value === undefined || value === null || value === '') return problem(position, 'time-env-missing', { name });
    const parsed = parseWindows(value);
    if (!parsed.ok) return ruleProblem(position, message('filter.problem.time-env', { name, problem: parsed.problem }));
    return fixed(parsed.windows, `env.${name}`);
  }
  const property = text(rule.v).trim();
  if (property === '') return problem(position, 'time-property', { source });
  const index = ctx.reads.push({ position, type: 'time', source: source as ListSource, property }) - 1;
  const read = windowsReader();
  ctx.readChecks.push((value) => {
    if (value === undefined || value === null) return { kind: 'missing' };
    const result = read(value);
    return result.ok ? undefined : { kind: 'windows', problem: result.problem };
  });
  return {
    test: (view, lists, when) => {
      // windows that cannot be read hold for no event, inside or outside (as a missing list matches nothing)
      const value = lists[index];
      if (value === undefined || value === null) return false;
      const result = read(value);
      return result.ok && inside(result.windows, view, when, zone) === holds;
    },
    explain: (view, lists, when) => {
      // held, so the windows read (the reader keeps the last result: not parsed again)
      const result = read(lists[index]);
      return judgedTime(position, view, when, zone, result.ok ? formatWindows(result.windows, '–') : '', holds);
    },
    summary: summary(`${source}.${property}`),
  };
}

/** One rule, or the problem that keeps it from working. */
function compileRule(rule: RuleConfig, position: number, ctx: RuleContext): Compiled | FilterProblem {
  const { reads, tagPrefix, plates } = ctx;
  const type = rule.t;
  if (type === undefined || type === null || type === '') return problem(position, 'type-missing');
  if (typeof type !== 'string' || !(RULE_TYPES as readonly string[]).includes(type)) return problem(position, 'type', { type: String(type) });
  const value = text(rule.v);
  switch (type as RuleType) {
    case 'kind': {
      if (value !== 'face' && value !== 'lpr') return problem(position, 'kind');
      return {
        test: (view) => view.kind === value,
        explain: () => ({ rule: position, type: 'kind', kind: value }),
        summary: message(`filter.summary.kind-${value}`),
      };
    }
    case 'tag':
    case 'camera':
    case 'site':
    case 'plate': {
      const listType = type as ListRuleType;
      const source = rule.vt === undefined || rule.vt === null || rule.vt === '' ? 'list' : rule.vt;
      if (typeof source !== 'string' || !(LIST_SOURCES as readonly string[]).includes(source))
        return problem(position, 'source', { source: text(source) });
      const property = value.trim();
      if (source !== 'list' && property === '') return problem(position, 'property', { source });
      const items = source === 'list' ? listItems(value) : [];
      if (source === 'list' && items.length === 0) return problem(position, `${listType}-empty`);
      const shown = source === 'list' ? items.join(', ') : `${source}.${property}`;
      const index = source === 'list' ? -1 : reads.push({ position, type: listType, source: source as ListSource, property }) - 1;
      if (index >= 0)
        ctx.readChecks.push((list) => {
          const why = listProblem(list);
          return why === undefined ? undefined : { kind: why };
        });
      if (listType === 'plate') {
        const compile = (entries: string[]) => compilePlateList(entries, plates);
        const summary = plateSummary(shown, plates);
        const explain: Explain = (_view, _lists, _when, verdict) => plateEntry(verdict as PlateMatch);
        if (index < 0) {
          const list = compile(items);
          return { test: (view) => plateMatch(list, position, view), explain, summary };
        }
        const listOf = cachedList(compile);
        return { test: (view, lists) => plateMatch(listOf(lists[index]), position, view), explain, summary };
      }
      const key = keyFor(listType, tagPrefix);
      const summary = message(`filter.summary.${listType}`, { list: shown });
      if (index < 0) {
        const entries = entriesByKey(items, key);
        return {
          test: (view) => heldValue(listType, key, entries, view) !== undefined,
          explain: (view) => listEntry(listType, position, key, entries, view),
          summary,
        };
      }
      const entriesOf = cachedList((read) => entriesByKey(read, key));
      return {
        test: (view, lists) => heldValue(listType, key, entriesOf(lists[index]), view) !== undefined,
        explain: (view, lists) => listEntry(listType, position, key, entriesOf(lists[index]), view),
        summary,
      };
    }
    case 'camera-match': {
      if (value.trim() === '') return problem(position, 'pattern');
      const pattern = wildcardRegExp(value);
      return {
        test: (view) => view.camera !== null && pattern.test(view.camera.trim()),
        explain: (view) => ({ rule: position, type: 'camera-match', camera: view.camera ?? '', pattern: value.trim() }),
        summary: message('filter.summary.camera', { list: value.trim() }),
      };
    }
    case 'enrolled':
      return {
        test: (view) => view.enrolled,
        explain: (view) => ({ rule: position, type: 'enrolled', externalId: view.externalId ?? '' }),
        summary: message('filter.summary.enrolled'),
      };
    case 'name': {
      const part = folded(value);
      if (part === '') return problem(position, 'name');
      return {
        test: (view) => view.kind === 'face' && view.fullName !== null && view.fullName.toLowerCase().includes(part),
        explain: (view) => ({ rule: position, type: 'name', name: (view.kind === 'face' && view.fullName) || '', contains: value.trim() }),
        summary: message('filter.summary.name', { text: value.trim() }),
      };
    }
    case 'confidence': {
      const trimmed = value.trim();
      if (trimmed === '') return problem(position, 'confidence-empty');
      const at = Number(trimmed);
      if (!Number.isFinite(at) || at < 0 || at > 1) return problem(position, 'confidence', { value: trimmed });
      return {
        test: (view) => view.confidence !== null && view.confidence >= at,
        explain: (view) => ({ rule: position, type: 'confidence', confidence: view.confidence ?? 0, atLeast: at }),
        summary: message('filter.summary.confidence', { value: at }),
      };
    }
    case 'context': {
      const key = text(rule.k);
      if (key.trim() === '') return problem(position, 'context-key');
      const wanted = folded(value);
      return {
        test: (view) => view.serverContext !== null && Object.hasOwn(view.serverContext, key) && contextText(view.serverContext[key]) === wanted,
        // the value as the event sent it (the rule compares it trimmed, in any case)
        explain: (view) => ({ rule: position, type: 'context', key, value: view.serverContext?.[key] }),
        summary: message('filter.summary.context', { key, value: value.trim() }),
      };
    }
    case 'time':
      return compileTimeRule(rule, position, ctx);
  }
}

/** The length past which a summary is cut with "…". */
export const SUMMARY_MAX = 40;

const PASSED: FilterOutcome = Object.freeze({ passed: true, match: undefined, rules: Object.freeze([]), urgent: false });
const REFUSED: FilterOutcome = Object.freeze({ passed: false, match: undefined, rules: Object.freeze([]), urgent: false });

export class DetectionFilter {
  constructor(
    readonly combine: Combine,
    private readonly tests: readonly Test[],
    private readonly summaries: readonly Message[],
    /** The values to read for each message (lists, time windows), in the order `matches` takes them. */
    readonly reads: readonly RuleRead[],
    /** The account's tag prefix tag rules take off before comparing (normalised); '' for none. */
    readonly tagPrefix: string = '',
    private readonly readChecks: ReadonlyArray<(value: unknown) => ReadProblem | undefined> = [],
    /** Whether a rule judges the time (give `matches` a DetectionTime). */
    readonly judgesTime: boolean = false,
    /** What each rule held on, asked only of a message that passed; by position − 1. */
    private readonly explains: readonly Explain[] = [],
    /** Which rules are marked urgent, by position − 1. */
    private readonly urgentRules: readonly boolean[] = [],
  ) {}

  /** Whether the event passes: all rules hold (or any, by `combine`). No rules: every event passes.
   *  Not an event (undefined): never. `when`: what time rules judge (detectionTime); without it,
   *  the view's time and zone (a zone of UTC counting as none). */
  matches(view: DetectionView | undefined, lists: readonly unknown[] = [], when?: DetectionTime): boolean {
    if (!view) return false;
    if (this.combine === 'all' || this.tests.length === 0) return this.tests.every((test) => test(view, lists, when));
    return this.tests.some((test) => test(view, lists, when));
  }

  /**
   * Whether the event passes (as `matches`), and when it does, why: the
   * match of the first plate rule that held (msg.match's top), an entry for
   * every rule that held, and whether one of them is urgent. No rules: it
   * passes, and nothing held to say why.
   */
  evaluate(view: DetectionView | undefined, lists: readonly unknown[] = [], when?: DetectionTime): FilterOutcome {
    if (!view) return REFUSED;
    if (this.tests.length === 0) return PASSED;
    const all = this.combine === 'all';
    const verdicts: Array<boolean | PlateMatch> = new Array(this.tests.length);
    let passed = all;
    // With `any`, the rules after one that held are still tried, to say every rule that held: a
    // message refused has tried them all anyway, so this costs only on messages that pass.
    for (let i = 0; i < this.tests.length; i++) {
      const verdict = this.tests[i](view, lists, when);
      if (!verdict && all) return REFUSED;
      verdicts[i] = verdict;
      passed ||= verdict !== false;
    }
    if (!passed) return REFUSED;
    let match: PlateMatch | undefined;
    let urgent = false;
    const rules: RuleEntry[] = [];
    for (let i = 0; i < verdicts.length; i++) {
      const verdict = verdicts[i];
      if (verdict === false) continue;
      if (match === undefined && typeof verdict === 'object') match = verdict;
      const entry = this.explains[i](view, lists, when, verdict);
      if (this.urgentRules[i]) {
        entry.urgent = true;
        urgent = true;
      }
      rules.push(entry);
    }
    return { passed: true, match, rules, urgent };
  }

  /** Why the value read for `reads[index]` cannot be used (the rule then holds for no event), or undefined. */
  readProblem(index: number, value: unknown): ReadProblem | undefined {
    const check = this.readChecks[index];
    return check ? check(value) : undefined;
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

/** Compiles the saved rules; every rule that cannot work is reported, not only the first. */
export function compileFilter(rules: unknown, combine: Combine = 'all', options: FilterOptions = {}): CompileResult {
  const tagPrefix = options.tagPrefix ?? '';
  const list = rules === undefined || rules === null ? [] : rules;
  if (!Array.isArray(list)) return { ok: false, problems: [{ position: 0, ...message('filter.not-a-list') }] };
  const problems: FilterProblem[] = [];
  const plateOptions = options.plates ?? {};
  const plates: PlateMatching = {
    lookalikes: plateOptions.lookalikes ?? 0,
    extraMissing: plateOptions.extraMissing ?? 0,
    classes: undefined,
    similar1Plate: plateOptions.similar1Plate !== false,
  };
  // The classes matter only to plate rules that allow look-alikes: only then can they stop the filter.
  const hasPlateRule = list.some((rule: unknown) => rule !== null && typeof rule === 'object' && (rule as RuleConfig).t === 'plate');
  if (hasPlateRule && plates.lookalikes > 0) {
    const parsed = parseLookalikeClasses(plateOptions.classes ?? DEFAULT_LOOKALIKE_CLASSES);
    if (parsed.ok) plates.classes = parsed.lookalikes;
    else problems.push({ position: 0, ...message('filter.classes', { problem: parsed.problem }) });
  }
  const tests: Test[] = [];
  const summaries: Message[] = [];
  const ownZone = typeof options.timeZone === 'string' ? options.timeZone.trim() : '';
  const ctx: RuleContext = {
    reads: [],
    readChecks: [],
    tagPrefix,
    timeZone: knownTimeZone(ownZone) ?? options.systemTimeZone ?? systemTimeZone(),
    env: options.env ?? ((name) => process.env[name]),
    plates,
  };
  let judgesTime = false;
  const explains: Explain[] = [];
  const urgentRules: boolean[] = [];
  list.forEach((rule: unknown, i) => {
    const config = rule !== null && typeof rule === 'object' ? (rule as RuleConfig) : {};
    const compiled = compileRule(config, i + 1, ctx);
    judgesTime ||= config.t === 'time';
    if ('position' in compiled) problems.push(compiled);
    else {
      const urgent = config.u === true;
      tests.push(compiled.test);
      explains.push(compiled.explain);
      summaries.push(urgent ? message('filter.summary.urgent', { rule: compiled.summary }) : compiled.summary);
      urgentRules.push(urgent);
    }
  });
  // the node's zone matters to time rules only; a wrong one is reported first, it is the node's own setting
  const zoneProblem = judgesTime ? timeZoneProblem(ownZone) : undefined;
  if (zoneProblem) problems.unshift({ position: 0, ...message('filter.time-zone', { problem: zoneProblem }) });
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    filter: new DetectionFilter(combine, tests, summaries, ctx.reads, tagPrefix, ctx.readChecks, judgesTime, explains, urgentRules),
  };
}
