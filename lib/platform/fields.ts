/**
 * Reading answers whose field names the spec does not fix: the first of the
 * usual spellings that holds an acceptable value.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The first of `keys` whose value `accept` turns into something: [key, value]. */
export function pick(holder: Record<string, unknown>, keys: readonly string[], accept: (v: unknown) => unknown): [string, unknown] | undefined {
  for (const key of keys) {
    const value = accept(holder[key]);
    if (value !== undefined) return [key, value];
  }
  return undefined;
}
