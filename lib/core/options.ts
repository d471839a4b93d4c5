/**
 * Option rules as zod schemas, for every door in: a node's dialog values
 * (strings or numbers), the simulator's options (numbers) and its command
 * line (strings). `5`, `"5"` and `" 5 "` mean the same everywhere: the check
 * is lib/core/option-rules.ts, the one the editor runs too. A node's own
 * options are stated in lib/config/node-options.ts (read with nodeOptions).
 *
 * Each problem is a Message (see lib/core/messages.ts): the command line shows it
 * in English, a node in the user's language.
 */
import { z } from 'zod';
import type { Message } from './messages';
import { checkChoice, checkFlag, checkNumber, toNumber, type NumberRule, type OptionRule } from './option-rules';

export type { NumberRule } from './option-rules';

/** A zod issue whose message is a catalog key, with the key's parameters. */
function issue(key: string, params: Record<string, string | number>) {
  return { code: 'custom' as const, message: `options.${key}`, params };
}

/** A number option: a number or number text within the rule. */
export function numberOption(rule: NumberRule = {}) {
  return z.preprocess(
    toNumber,
    z.unknown().transform((value, ctx) => {
      const result = checkNumber(rule, value);
      if (result.ok) return result.value;
      ctx.addIssue(issue(result.problem.key, result.problem.params));
      return z.NEVER;
    }),
  );
}

/**
 * A number option of a node's table (lib/config/node-options.ts) read where a
 * wrong value stops the node instead of taking the default: above the
 * maximum is the maximum, as optionValue takes it.
 */
export function limitOption(rule: OptionRule) {
  if (rule.kind !== 'number') throw new TypeError('limitOption: not a number rule');
  const { max } = rule;
  return numberOption({ ...rule, max: undefined }).transform((n) => (max !== undefined && n > max ? max : n));
}

/** A CA certificate option (PEM text): undefined when empty, as every node with TLS options reads it. */
export function caOption(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** One of a fixed list of words. */
export function choiceOption<T extends string>(choices: readonly T[]) {
  return z.unknown().transform((value, ctx) => {
    const result = checkChoice(choices, value);
    if (result.ok) return result.value;
    ctx.addIssue(issue(result.problem.key, result.problem.params));
    return z.NEVER;
  });
}

/** A yes/no option: a boolean, or the text `true`/`false` (older flows save text). */
export function flagOption() {
  return z.unknown().transform((value, ctx) => {
    const result = checkFlag(value);
    if (result.ok) return result.value;
    ctx.addIssue(issue(result.problem.key, result.problem.params));
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
