/**
 * The format stamp of the files this package keeps (the delivery journal, the
 * dedupe key log, the presence file), so that an upgrade knows what it reads:
 * a file of an older format is read and brought up to date on open, and one
 * of a newer format (written by a later release, then the package was
 * downgraded) is refused whole, with an error naming both versions, rather
 * than read as damage and cut. A file written before stamps existed has none
 * and is format version 1, which changed no record: stamping it is its only
 * migration.
 *
 * A stamp is JSON, `{"format":"<what the file is>","version":<n>}`, at the
 * head of the file; its own shape never changes, so any release can tell a
 * newer file from its own. Any change to what a file's records mean takes a
 * new version.
 */

export interface FormatStamp {
  format: string;
  version: number;
}

/** A file of a format newer than this package reads: refused, never read as damage. */
export class FormatTooNewError extends Error {
  readonly code = 'ERR_FORMAT_TOO_NEW';
  constructor(
    readonly path: string,
    readonly format: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `${path} is in ${format} format version ${found}, newer than this package reads (version ${supported}): ` +
        `it was written by a later release; install that release again, or move the file aside to start afresh (docs/operations.md)`,
    );
  }
}

/** The stamp of `format` at `version`, as written at a file's head (no line end). */
export function stampText(format: string, version: number): string {
  return JSON.stringify({ format, version } satisfies FormatStamp);
}

/** The stamp `text` holds if it is one of `format` (a whole positive version); undefined otherwise. */
export function parseStamp(text: string, format: string): FormatStamp | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { format: named, version } = value as Partial<FormatStamp>;
  if (named !== format || typeof version !== 'number' || !Number.isInteger(version) || version < 1) return undefined;
  return { format, version };
}

/** Throws FormatTooNewError when `found` is newer than `supported` (the version this package writes). */
export function refuseNewer(path: string, format: string, found: number, supported: number): void {
  if (found > supported) throw new FormatTooNewError(path, format, found, supported);
}
