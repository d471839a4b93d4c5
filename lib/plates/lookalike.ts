/**
 * Plates as a plate reader gets them wrong. OCR confuses characters that look
 * alike (0 and O, 8 and B): the plate readers integrators know match a watch
 * list by classes of look-alike characters rather than exactly. The default
 * classes are those of Genetec AutoVu: 0/O/D/Q, 1/I, 2/Z, 5/S, 8/B, 6/G.
 *
 * A plate is first normalised (spaces and dashes removed, upper case), then
 * may be folded: every character of a class replaced by the class's first
 * one, so `8OB123` and `BOB123` fold to the same `808123`. Two plates of the
 * same length that fold alike differ only by look-alikes.
 *
 * Classes are written as groups separated by spaces or commas, each group
 * two or more characters (`0ODQ 1I 2Z 5S 8B 6G`); a character belongs to one
 * group at most.
 *
 * nodes/shared/editor-script.ts serves this file's compiled text to the
 * editor (the dialogs of detection filter and presence check classes with
 * it): it imports nothing at run time and uses nothing a browser lacks.
 */
import type { Message, MessageParams } from '../core/messages';

/** A problem with classes (`plates.<key>` in locales/<lang>/shared.json), made here: this file imports nothing at run time. */
function problem(key: string, params: MessageParams): Message {
  return { key: `plates.${key}`, params };
}

/** Plates are compared without spaces and dashes, in upper case: `xyz-987` is `XYZ 987`. */
export function normalisePlate(text: string): string {
  // most plates arrive as they are compared (A–Z, 0–9): returned as they are, without a regular expression
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90))) return text.replace(/[\s-]+/g, '').toUpperCase();
  }
  return text;
}

/** The look-alike classes a new node gets, as written in its dialog. */
export const DEFAULT_LOOKALIKE_CLASSES = '0ODQ 1I 2Z 5S 8B 6G';

/** Look-alike classes, compiled: each character to its class's first character. */
export class Lookalikes {
  /** The classes as normalised text (`0ODQ 1I …`). */
  readonly text: string;
  private readonly map: ReadonlyMap<string, string>;

  constructor(readonly classes: readonly string[]) {
    const map = new Map<string, string>();
    for (const group of classes) for (const char of group) map.set(char, group[0]);
    this.map = map;
    this.text = classes.join(' ');
  }

  /** The character `char` stands for: its class's first character, or itself. */
  representative(char: string): string {
    return this.map.get(char) ?? char;
  }

  /** Whether `a` and `b` are one character of the same class (equal characters are too). */
  alike(a: string, b: string): boolean {
    return a === b || (this.map.has(a) && this.map.get(a) === this.map.get(b));
  }

  /** A normalised plate with every look-alike replaced by its class's first character. */
  fold(plate: string): string {
    if (this.map.size === 0) return plate;
    let out = '';
    for (const char of plate) out += this.map.get(char) ?? char;
    return out;
  }
}

/** No look-alikes at all: plates fold to themselves. */
export const NO_LOOKALIKES = new Lookalikes([]);

export type LookalikeParse = { ok: true; lookalikes: Lookalikes } | { ok: false; problem: Message };

/**
 * Reads classes as a person types them: groups separated by spaces or
 * commas, letters in any case. Empty text is no classes. A group of one
 * character, or a character in two groups, is a problem (`plates.*` in
 * locales/<lang>/shared.json).
 */
export function parseLookalikeClasses(text: unknown): LookalikeParse {
  const source = typeof text === 'string' ? text : '';
  const groups = source
    .split(/[\s,;]+/)
    .map((group) => normalisePlate(group))
    .filter((group) => group !== '');
  const owner = new Map<string, string>();
  const classes: string[] = [];
  for (const group of groups) {
    const chars = [...new Set(group)];
    if (chars.length < 2) return { ok: false, problem: problem('class-short', { group }) };
    for (const char of chars) {
      const other = owner.get(char);
      if (other !== undefined) return { ok: false, problem: problem('class-twice', { char, group, other }) };
      owner.set(char, group);
    }
    classes.push(chars.join(''));
  }
  return { ok: true, lookalikes: new Lookalikes(classes) };
}

/** The default classes, compiled once. */
export const DEFAULT_LOOKALIKES = (parseLookalikeClasses(DEFAULT_LOOKALIKE_CLASSES) as { ok: true; lookalikes: Lookalikes }).lookalikes;
