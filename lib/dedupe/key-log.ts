/**
 * An append-only log of the keys a dedupe window let through, so the window
 * survives a crash: a key is on disk before its message goes on. One line per
 * key (`["key", since]`, or `["key", since, "mark"]` with the delivery mark of
 * the message that passed, or `["key", since, "mark" or null, "read"]` with the
 * plate it read too), a `null` line for a reset. The file is an append
 * log (lib/core/append-log.ts): keys recorded together share one write and
 * one `fdatasync`, so saving costs in proportion to the keys added, not to
 * the window; a torn last line is cut off on open, a damaged one between
 * whole ones skipped. The file is rewritten
 * from the window (compaction) once it holds many more lines than keys.
 * On a full disk a key's write rejects and is cut off (nothing torn stays);
 * what the window does then is lib/dedupe/seen-keys.ts's (LocalSeenKeys).
 *
 * The first line is the file's format stamp (lib/core/file-format.ts),
 * `{"format":"detection-bridge dedupe keys","version":1}`. Version 1 is the
 * lines above; a file without a stamp (written before there were stamps)
 * holds the same lines and is stamped on open; one stamped with a newer
 * version refuses to open (FormatTooNewError) and is left as it is.
 */
import { AppendLog, type LogReader } from '../core/append-log';
import { parseStamp, refuseNewer, stampText } from '../core/file-format';
import type { WindowSnapshot } from './local-window';

/** What the stamp calls this file, and the format version this code writes (and the newest it reads). */
export const KEY_LOG_FORMAT = 'detection-bridge dedupe keys';
export const KEY_LOG_VERSION = 1;
const STAMP_LINE = `${stampText(KEY_LOG_FORMAT, KEY_LOG_VERSION)}\n`;

export class KeyLog {
  private lines: number;

  private constructor(
    private readonly log: AppendLog,
    lines: number,
  ) {
    this.lines = lines;
  }

  get path(): string {
    return this.log.path;
  }

  /** Syncs done (fewer than keys under load). */
  get syncs(): number {
    return this.log.syncs;
  }

  /**
   * Opens the log and replays it: the keys in the order written, after the
   * last reset. A torn (or zero-filled) tail is cut off (`torn`); `damaged`:
   * lines between whole ones that could not be read, skipped. Rejects with
   * FormatTooNewError, the file untouched, when a later release wrote it.
   */
  static async open(path: string): Promise<{ log: KeyLog; entries: WindowSnapshot; torn: boolean; damaged: number }> {
    const { log, value, cut } = await AppendLog.open(path, (file) => replay(file, path));
    const keyLog = new KeyLog(log, value.lines);
    // Not stamped yet (new, or written before stamps): stamped now; its lines mean the same in version 1.
    // Not done (a full disk): read as it is next time too.
    if (value.version !== KEY_LOG_VERSION) {
      if (log.size === 0) await log.append([Buffer.from(STAMP_LINE, 'utf8')]).catch(() => undefined);
      else await keyLog.rewrite(value.entries).catch(() => undefined);
    }
    return { log: keyLog, entries: value.entries, torn: cut > 0, damaged: value.damaged };
  }

  /** Lines in the file. */
  get lineCount(): number {
    return this.lines;
  }

  /** Writes a key (and the delivery mark of the message that passed, and what it read); resolves once it is on disk. */
  record(key: string, since: number, mark?: string, read?: string): Promise<void> {
    const entry = read !== undefined ? [key, since, mark ?? null, read] : mark === undefined ? [key, since] : [key, since, mark];
    return this.append(`${JSON.stringify(entry)}\n`);
  }

  /** Writes a reset: the keys before it are forgotten on replay. */
  reset(): Promise<void> {
    return this.append('null\n');
  }

  private async append(line: string): Promise<void> {
    await this.log.append([Buffer.from(line, 'utf8')], () => this.lines++);
  }

  /**
   * Rewrites the file with `snapshot` (the window's live keys) when it holds
   * more than `ratio` times as many lines (and at least `minLines`).
   */
  async compact(snapshot: WindowSnapshot, ratio = 4, minLines = 10_000): Promise<boolean> {
    if (this.lines < minLines || this.lines < ratio * snapshot.length) return false;
    return this.rewrite(snapshot);
  }

  /**
   * Rewrites the file with `snapshot` whatever its size (the window came from
   * elsewhere, or keys are missing from the log). A function is asked once
   * nothing else is being written: every key appended after that goes to the
   * new file, so none falls between the two.
   */
  async rewrite(snapshot: WindowSnapshot | (() => WindowSnapshot)): Promise<boolean> {
    let lines = 0;
    const swapped = await this.log.rewrite(async (out) => {
      const entries = typeof snapshot === 'function' ? snapshot() : snapshot;
      lines = entries.length;
      await out.write([Buffer.from(STAMP_LINE + entries.map((e) => `${JSON.stringify(e)}\n`).join(''), 'utf8')]);
    });
    if (swapped) this.lines = lines;
    return swapped;
  }

  async close(): Promise<void> {
    await this.log.close();
  }
}

/**
 * The keys after the last reset, the whole lines read and the stamp's version
 * (undefined: none), whatever bytes the file holds: zero bytes before a line
 * (a crash's zero-filled stretch) are passed over; a line that does not parse
 * is damaged (skipped) when a whole line follows it, and otherwise the torn
 * tail (the replay ends before it). Throws only for a newer version's stamp.
 */
async function replay(
  file: LogReader,
  path: string,
): Promise<{ end: number; value: { entries: WindowSnapshot; lines: number; damaged: number; version: number | undefined } }> {
  const bytes = await file.read(0, file.size);
  let entries: WindowSnapshot = [];
  let version: number | undefined;
  let lines = 0;
  let damaged = 0;
  let pending = 0;
  let end = 0;
  for (let start = 0; start < bytes.length;) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline < 0) break;
    let from = start;
    while (from < newline && bytes[from] === 0) from++;
    start = newline + 1;
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8', from, newline));
    } catch {
      // Damaged, unless nothing whole follows: then it is part of the torn tail.
      pending++;
      continue;
    }
    damaged += pending;
    pending = 0;
    end = start;
    const stamp = from === 0 && value !== null && !Array.isArray(value) ? parseStamp(bytes.toString('utf8', 0, newline), KEY_LOG_FORMAT) : undefined;
    if (stamp) {
      // The head of the file: what it is (not a line of keys).
      refuseNewer(path, KEY_LOG_FORMAT, stamp.version, KEY_LOG_VERSION);
      version = stamp.version;
      continue;
    }
    lines++;
    if (value === null) entries = [];
    else if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'number') {
      const mark = typeof value[2] === 'string' ? value[2] : undefined;
      if (typeof value[3] === 'string') entries.push([value[0], value[1], mark ?? null, value[3]]);
      else entries.push(mark === undefined ? [value[0], value[1]] : [value[0], value[1], mark]);
    }
  }
  return { end, value: { entries, lines, damaged, version } };
}
