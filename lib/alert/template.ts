/**
 * The alert's text: a template with `{field}` placeholders, the fields picked
 * from a fixed list (ALERT_FIELDS) so that a dialog can offer them and a typo
 * is a configuration error, not a silent blank.
 *
 * A line whose placeholders all render empty is left out, so one body serves
 * both kinds: "Person: {person}" disappears from a plate's alert.
 */

/** The fields a template may name, in the order the dialog offers them (the dialog runs this file: it imports nothing). */
export const ALERT_FIELDS = [
  'plate',
  'person',
  'camera',
  'site',
  'time',
  'tags',
  'why',
  'confidence',
  'vehicle',
  'kind',
  'externalId',
  'messageId',
] as const;
export type AlertField = (typeof ALERT_FIELDS)[number];
export type AlertValues = Record<AlertField, string>;

/** `{name}`: letters, digits and `_` between single braces. */
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

const isField = (name: string): name is AlertField => (ALERT_FIELDS as readonly string[]).includes(name);

/** The names a template uses that are no field, each once, in order of appearance. */
export function unknownFields(template: string): string[] {
  const out: string[] = [];
  for (const [, name] of template.matchAll(PLACEHOLDER)) if (!isField(name) && !out.includes(name)) out.push(name);
  return out;
}

/**
 * The template with each `{field}` replaced by its value. A line with
 * placeholders that all rendered empty is dropped; a line without
 * placeholders is kept as written. Lines are split on \n (a \r before it is
 * dropped), and the result has no trailing empty lines.
 */
export function renderTemplate(template: string, values: Readonly<AlertValues>): string {
  const lines: string[] = [];
  for (const line of template.replace(/\r\n?/g, '\n').split('\n')) {
    let placeholders = 0;
    let filled = 0;
    const rendered = line.replace(PLACEHOLDER, (whole, name: string) => {
      if (!isField(name)) return whole;
      placeholders++;
      const value = values[name] ?? '';
      if (value !== '') filled++;
      return value;
    });
    if (placeholders > 0 && filled === 0) continue;
    lines.push(rendered);
  }
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  return lines.join('\n');
}
