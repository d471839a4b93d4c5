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
 * What a rule may be, its check and its summary are ./filter-rules.ts (the
 * dialog runs that file too); when time rules judge, ./filter-time.ts.
 *
 * A message that passes is explained (./filter-explain.ts): each rule that
 * held gives an entry saying what it held on; a rule marked urgent (`u`) that
 * held makes the message urgent.
 */
import type { DetectionView } from './detection-view';
import { message, translateEnglish, type Message, type Translate } from '../core/messages';
import { compilePlateList, DEFAULT_LOOKALIKE_CLASSES, parseLookalikeClasses, type Lookalikes, type PlateList } from '../plates';
import { formatWindows, knownTimeZone, parseWindows, systemTimeZone, timeZoneProblem, windowsReader, type TimeWindow } from './time-window';
import type { PlateMatch, RuleEntry } from './filter-explain';
import { inside, judgedTime, type DetectionTime } from './filter-time';
import { cachedList, entriesByKey, folded, heldValue, keyFor, listEntry, listItems, listProblem, type ListRuleType } from './filter-lists';
import {
  isListRule,
  listSource,
  ruleConfigProblem,
  ruleSummary,
  ruleText as text,
  summaryLine,
  type RULE_KINDS,
  SUMMARY_MAX,
  timeKind,
  timeSource,
  type Combine,
  type FilterOptions,
  type ListSource,
  type RuleConfig,
  type RuleType,
} from './filter-rules';

export { detectionTime, type DetectionTime } from './filter-time';
export { LIST_RULE_TYPES, listItems, listProblem, type ListRuleType } from './filter-lists';
export {
  COMBINES,
  LIST_SOURCES,
  RULE_KINDS,
  RULE_TYPES,
  ruleConfigProblem,
  ruleSummary,
  SUMMARY_MAX,
  summaryLine,
  TIME_KINDS,
  TIME_SOURCES,
  type Combine,
  type FilterOptions,
  type ListSource,
  type PlateOptions,
  type PlateTolerance,
  type RuleConfig,
  type RuleType,
  type TimeKind,
} from './filter-rules';

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

function contextText(value: unknown): string | undefined {
  if (typeof value === 'string') return folded(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).toLowerCase();
  return undefined;
}

/** A rule's problem: `inner` says what is wrong with it. */
const ruleProblem = (position: number, inner: Message): FilterProblem => ({ position, ...message('filter.rule', { position, problem: inner }) });
const problem = (position: number, key: string, params?: Record<string, string | number>): FilterProblem =>
  ruleProblem(position, message(`filter.problem.${key}`, params));

interface Compiled {
  test: Test;
  explain: Explain;
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

/** A time rule (checked by ruleConfigProblem): inside or outside windows typed in, from env, or read for each message. */
function compileTimeRule(rule: RuleConfig, position: number, ctx: RuleContext): Compiled | FilterProblem {
  const holds = timeKind(rule) === 'inside';
  const source = timeSource(rule) as string;
  const zone = ctx.timeZone;
  /** A rule on windows known at deploy: typed, or from env. */
  const fixed = (windows: readonly TimeWindow[]): Compiled => {
    const text = formatWindows(windows, '–');
    return {
      test: (view, _lists, when) => inside(windows, view, when, zone) === holds,
      explain: (view, _lists, when) => judgedTime(position, view, when, zone, text, holds),
    };
  };
  if (source === 'windows') {
    const parsed = parseWindows(rule.v);
    return parsed.ok ? fixed(parsed.windows) : ruleProblem(position, parsed.problem);
  }
  const property = text(rule.v).trim();
  if (source === 'env') {
    // an environment variable does not change while the flow runs: read and parsed once, at deploy
    const value = ctx.env(property);
    if (value === undefined || value === null || value === '') return problem(position, 'time-env-missing', { name: property });
    const parsed = parseWindows(value);
    if (!parsed.ok) return ruleProblem(position, message('filter.problem.time-env', { name: property, problem: parsed.problem }));
    return fixed(parsed.windows);
  }
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
  };
}

/** A tag, camera, site or plate rule (checked by ruleConfigProblem): its list typed, or read for each message. */
function compileListRule(listType: ListRuleType, rule: RuleConfig, position: number, ctx: RuleContext): Compiled {
  const { reads, tagPrefix, plates } = ctx;
  const value = text(rule.v);
  const source = listSource(rule) as string;
  const items = source === 'list' ? listItems(value) : [];
  const index = source === 'list' ? -1 : reads.push({ position, type: listType, source: source as ListSource, property: value.trim() }) - 1;
  if (index >= 0)
    ctx.readChecks.push((list) => {
      const why = listProblem(list);
      return why === undefined ? undefined : { kind: why };
    });
  if (listType === 'plate') {
    const compile = (entries: string[]) => compilePlateList(entries, plates);
    const explain: Explain = (_view, _lists, _when, verdict) => plateEntry(verdict as PlateMatch);
    if (index < 0) {
      const list = compile(items);
      return { test: (view) => plateMatch(list, position, view), explain };
    }
    const listOf = cachedList(compile);
    return { test: (view, lists) => plateMatch(listOf(lists[index]), position, view), explain };
  }
  const key = keyFor(listType, tagPrefix);
  if (index < 0) {
    const entries = entriesByKey(items, key);
    return {
      test: (view) => heldValue(listType, key, entries, view) !== undefined,
      explain: (view) => listEntry(listType, position, key, entries, view),
    };
  }
  const entriesOf = cachedList((read) => entriesByKey(read, key));
  return {
    test: (view, lists) => heldValue(listType, key, entriesOf(lists[index]), view) !== undefined,
    explain: (view, lists) => listEntry(listType, position, key, entriesOf(lists[index]), view),
  };
}

/** One rule, or the problem that keeps it from working. */
function compileRule(rule: RuleConfig, position: number, ctx: RuleContext): Compiled | FilterProblem {
  const wrong = ruleConfigProblem(rule);
  if (wrong) return ruleProblem(position, wrong);
  const type = rule.t as RuleType;
  const value = text(rule.v);
  if (isListRule(type)) return compileListRule(type, rule, position, ctx);
  switch (type) {
    case 'kind': {
      const kind = value as (typeof RULE_KINDS)[number];
      return { test: (view) => view.kind === kind, explain: () => ({ rule: position, type: 'kind', kind }) };
    }
    case 'camera-match': {
      const pattern = wildcardRegExp(value);
      return {
        test: (view) => view.camera !== null && pattern.test(view.camera.trim()),
        explain: (view) => ({ rule: position, type: 'camera-match', camera: view.camera ?? '', pattern: value.trim() }),
      };
    }
    case 'enrolled':
      return { test: (view) => view.enrolled, explain: (view) => ({ rule: position, type: 'enrolled', externalId: view.externalId ?? '' }) };
    case 'name': {
      const part = folded(value);
      return {
        test: (view) => view.kind === 'face' && view.fullName !== null && view.fullName.toLowerCase().includes(part),
        explain: (view) => ({ rule: position, type: 'name', name: (view.kind === 'face' && view.fullName) || '', contains: value.trim() }),
      };
    }
    case 'confidence': {
      const at = Number(value.trim());
      return {
        test: (view) => view.confidence !== null && view.confidence >= at,
        explain: (view) => ({ rule: position, type: 'confidence', confidence: view.confidence ?? 0, atLeast: at }),
      };
    }
    case 'context': {
      const key = text(rule.k);
      const wanted = folded(value);
      return {
        test: (view) => view.serverContext !== null && Object.hasOwn(view.serverContext, key) && contextText(view.serverContext[key]) === wanted,
        // the value as the event sent it (the rule compares it trimmed, in any case)
        explain: (view) => ({ rule: position, type: 'context', key, value: view.serverContext?.[key] }),
      };
    }
    default:
      return compileTimeRule(rule, position, ctx);
  }
}

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
    return summaryLine(this.summaries, this.combine, translate, max);
  }
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
      tests.push(compiled.test);
      explains.push(compiled.explain);
      summaries.push(ruleSummary(config, plates));
      urgentRules.push(config.u === true);
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
