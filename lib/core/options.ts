/**
 * Option rules, written once as zod schemas and used by every door in: a
 * node's dialog values (strings or numbers), the simulator's options
 * (numbers) and its command line (strings). `5`, `"5"` and `" 5 "` mean the
 * same everywhere, and a bound is stated in one place.
 *
 * Each problem is a Message (see lib/core/messages.ts): the command line shows it
 * in English, a node in the user's language.
 */
import { z } from 'zod';
import type { Message } from './messages';

const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** Text to a number; `''`, blank text and null mean "not given". */
function toNumber(value: unknown): unknown {
  if (value === null) return undefined;
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text === '') return undefined;
  return NUMBER_TEXT.test(text) ? Number(text) : value;
}

/** A zod issue whose message is a catalog key, with the key's parameters. */
function issue(key: string, params: Record<string, string | number>) {
  return { code: 'custom' as const, message: `options.${key}`, params };
}

function shown(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

export interface NumberRule {
  integer?: boolean;
  min?: number;
  max?: number;
  /** Strictly more than this. */
  above?: number;
}

/** A number option: a number or number text within the rule. */
export function numberOption(rule: NumberRule = {}) {
  return z.preprocess(
    toNumber,
    z.unknown().transform((value, ctx) => {
      const fail = (key: string, params: Record<string, string | number> = {}): never => {
        ctx.addIssue(issue(key, { value: shown(value), ...params }));
        return z.NEVER;
      };
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail('not-a-number');
      if (rule.integer && !Number.isInteger(value)) return fail('integer');
      if (rule.min !== undefined && value < rule.min) return fail('min', { min: rule.min });
      if (rule.max !== undefined && value > rule.max) return fail('max', { max: rule.max });
      if (rule.above !== undefined && value <= rule.above) return fail('above', { above: rule.above });
      return value;
    }),
  );
}

/** One of a fixed list of words. */
export function choiceOption<T extends string>(choices: readonly T[]) {
  return z.unknown().transform((value, ctx) => {
    if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
    ctx.addIssue(issue('choice', { value: shown(value), choices: choices.join(', ') }));
    return z.NEVER;
  });
}

/** A yes/no option: a boolean, or the text `true`/`false` (older flows save text). */
export function flagOption() {
  return z.unknown().transform((value, ctx) => {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    ctx.addIssue(issue('flag', { value: shown(value) }));
    return z.NEVER;
  });
}

export interface OptionProblem extends Message {
  /** The option's name, as the schema spells it. */
  option: string;
}

export type OptionsResult<T> = { ok: true; value: T } | { ok: false; problems: OptionProblem[] };

/** Checks options against an object schema; every problem names its option. */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown): OptionsResult<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((i) => {
      const option = i.path.map(String).join('.');
      // Our rules name a catalog key; zod's own issues (a wrong type, an unknown key) bring their text.
      if (i.code === 'custom' && i.message.startsWith('options.')) return { option, key: i.message, params: i.params as Message['params'] };
      return { option, key: 'options.invalid', params: { message: i.message } };
    }),
  };
}

/** One option of a node's dialog: its rule and the value it takes when missing or invalid. */
export interface DialogField<S extends z.ZodType = z.ZodType> {
  rule: S;
  fallback: z.output<S>;
}

export function field<S extends z.ZodType>(rule: S, fallback: z.output<S>): DialogField<S> {
  return { rule, fallback };
}

/**
 * Options of a node's dialog: each field that is missing or fails its rule
 * takes its default, as a node must still run a flow saved by an older
 * version or edited by hand.
 */
export function dialogOptions<F extends Record<string, DialogField>>(fields: F, config: object): { [K in keyof F]: z.output<F[K]['rule']> } {
  const values = config as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, { rule, fallback }] of Object.entries(fields)) {
    const result = values[name] === undefined ? undefined : rule.safeParse(values[name]);
    out[name] = result?.success && result.data !== undefined ? result.data : fallback;
  }
  return out as { [K in keyof F]: z.output<F[K]['rule']> };
}
