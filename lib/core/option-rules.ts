/**
 * An option's rule as plain data (its default, its range or its allowed
 * values) and the one check of a value against it. The runtime reads a
 * node's configuration with it (lib/core/options.ts wraps it in zod), and
 * the editor validates the dialog's fields with the very same text:
 * nodes/shared/editor-script.ts serves this file's compiled text to the
 * browser, so it imports nothing and uses nothing a browser lacks.
 */

/** The bounds of a number option. */
export interface NumberRule {
  integer?: boolean;
  min?: number;
  max?: number;
  /** Strictly more than this. */
  above?: number;
}

interface Common<T> {
  /** What a new node gets (the editor's default), and what a missing or invalid value means at run time. */
  default: T;
  /**
   * What a saved node that lacks the option has always meant, where that is
   * not `default` (a flow saved before the option existed keeps its
   * behaviour; lib/config/migrate.ts fills it in, in the runtime and in the editor).
   */
  absent?: T;
  /** The key of the dialog's message for a wrong value (`<type>.validators.<message>`); the option's name when not given. */
  message?: string;
  /**
   * The option is a TypedInput's value (`<name>` beside `<name>Type`) and
   * this rule holds only while its type is `typed` (or missing): of another
   * type it is a property or an expression, not a wrong value.
   */
  typed?: string;
  /**
   * 'stops': any wrong value stops the node (its setup says why) instead of
   * running with the default: a Redis database or TLS setting, where the
   * wrong server's data is worse than none.
   */
  wrong?: 'stops';
}

export interface NumberOptionRule extends NumberRule, Common<number | ''> {
  kind: 'number';
  /** Empty means "not given" (no value at all). */
  optional?: boolean;
  /**
   * 'stops': a number out of range (below the minimum, not whole) stops the
   * node, whose setup says why, instead of running with the default: a size
   * nobody chose would drop or pass alerts. Above the maximum is still the
   * maximum, and a value that is no number at all still takes the default.
   */
  outOfRange?: 'stops';
}
export interface ChoiceOptionRule<T extends string = string> extends Common<T> {
  kind: 'choice';
  choices: readonly T[];
}
export interface FlagOptionRule extends Common<boolean> {
  kind: 'flag';
}
export type OptionRule = NumberOptionRule | ChoiceOptionRule | FlagOptionRule;

/** A number option; `default: ''` with `optional` for one that may be left empty. */
export function numberRule(
  rule: NumberRule & Omit<Common<number | ''>, 'absent'> & Pick<NumberOptionRule, 'optional' | 'outOfRange'>,
): NumberOptionRule {
  return { kind: 'number', ...rule };
}
export function choiceRule<T extends string>(choices: readonly T[], defaults: Common<NoInfer<T>>): ChoiceOptionRule<T> {
  return { kind: 'choice', choices, ...defaults };
}
export function flagRule(defaults: Common<boolean>): FlagOptionRule {
  return { kind: 'flag', ...defaults };
}

/** What is wrong with a value: the key of lib's message (`options.<key>`) and its parameters. */
export interface RuleProblem {
  key: 'not-a-number' | 'integer' | 'min' | 'max' | 'above' | 'choice' | 'flag';
  params: Record<string, string | number>;
}
export type RuleResult<T> = { ok: true; value: T } | { ok: false; problem: RuleProblem };

const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** Text to a number; `''`, blank text and null mean "not given" (undefined). Anything else is returned as it is. */
export function toNumber(value: unknown): unknown {
  if (value === null) return undefined;
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text === '') return undefined;
  return NUMBER_TEXT.test(text) ? Number(text) : value;
}

function shown(value: unknown): string {
  if (typeof value === 'string') return value;
  const json = JSON.stringify(value);
  return json === undefined ? String(value) : json;
}

/** A number (or number text, already through toNumber) within `rule`. */
export function checkNumber(rule: NumberRule, value: unknown): RuleResult<number> {
  const fail = (key: RuleProblem['key'], params: Record<string, string | number> = {}): RuleResult<number> => ({
    ok: false,
    problem: { key, params: { value: shown(value), ...params } },
  });
  if (typeof value !== 'number' || !Number.isFinite(value)) return fail('not-a-number');
  if (rule.integer && !Number.isInteger(value)) return fail('integer');
  if (rule.min !== undefined && value < rule.min) return fail('min', { min: rule.min });
  if (rule.max !== undefined && value > rule.max) return fail('max', { max: rule.max });
  if (rule.above !== undefined && value <= rule.above) return fail('above', { above: rule.above });
  return { ok: true, value };
}

/** One of `choices`; a number is its text (the dialog saves `'1'`, a flow written by a program may hold `1`). */
export function checkChoice<T extends string>(choices: readonly T[], value: unknown): RuleResult<T> {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text === 'string' && (choices as readonly string[]).indexOf(text) !== -1) return { ok: true, value: text as T };
  return { ok: false, problem: { key: 'choice', params: { value: shown(value), choices: choices.join(', ') } } };
}

/** A boolean, or the text `true`/`false` (older flows save text). */
export function checkFlag(value: unknown): RuleResult<boolean> {
  if (typeof value === 'boolean') return { ok: true, value };
  if (value === 'true' || value === 'false') return { ok: true, value: value === 'true' };
  return { ok: false, problem: { key: 'flag', params: { value: shown(value) } } };
}

/**
 * A dialog's value checked against its option's rule, as the editor's
 * validator and the runtime read it. `undefined` (a node saved before the
 * option existed) is no value: valid, it takes `absent` or `default`. An
 * empty number is no value only where the rule is `optional`.
 */
export function checkOption(rule: OptionRule, value: unknown): RuleResult<number | string | boolean | undefined> {
  if (value === undefined) return { ok: true, value: undefined };
  if (rule.kind === 'flag') return checkFlag(value);
  if (rule.kind === 'choice') return checkChoice(rule.choices, value);
  const n = toNumber(value);
  if (n === undefined && rule.optional) return { ok: true, value: undefined };
  return checkNumber(rule, n);
}

/**
 * How a node reads a saved value: the value it runs with, and, when the saved
 * value could not be used as it is, what was wrong with it (`problem`: the
 * node warns at deploy, naming the value and the one used instead). `stops`:
 * the node cannot run with it (a rule whose numbers out of range stop it).
 */
export interface OptionRead {
  value: number | string | boolean | undefined;
  problem?: RuleProblem;
  stops?: true;
}

/**
 * The value a node runs with: the saved value when it passes the rule; a
 * number above the maximum is taken as the maximum (the nearest to what was
 * asked, as a flow edited by hand may hold more); a missing one takes
 * `absent` (else the default) silently, as missing is not wrong: a flow saved
 * before the option existed. Any other wrong value takes the default (what a
 * new node gets), with its problem.
 */
export function readOption(rule: OptionRule, value: unknown): OptionRead {
  const fallback = rule.absent !== undefined ? rule.absent : rule.default;
  const result = checkOption(rule, value);
  if (result.ok) return { value: result.value === undefined ? (fallback === '' ? undefined : fallback) : result.value };
  // A wrong value is not a missing one: it takes what a new node gets (a receiver's mistyped
  // auth asks for a token, never runs open as a receiver saved before the option did).
  const used = rule.default === '' ? undefined : rule.default;
  const { problem } = result;
  if (rule.wrong === 'stops') return { value: used, problem, stops: true };
  if (rule.kind === 'number' && problem.key === 'max' && rule.max !== undefined) return { value: rule.max, problem };
  if (rule.kind === 'number' && rule.outOfRange === 'stops' && problem.key !== 'not-a-number') return { value: used, problem, stops: true };
  return { value: used, problem };
}

/** The value a node runs with (readOption). */
export function optionValue(rule: OptionRule, value: unknown): number | string | boolean | undefined {
  return readOption(rule, value).value;
}
