/**
 * When the journal (journal.ts) drops its finished records, stated once:
 * docs/operations.md gives operators the same thresholds. A finished event's
 * record stays in the file until a compaction; these rules bound both how
 * big an idle file stays and how long the body of a finished event (a face,
 * a plate) stays on disk.
 */
import { statfs } from 'node:fs/promises';
import type { Clock } from '../core/clock';

export interface JournalOptions {
  /** Past this size the journal refuses new events (after trying to compact). */
  maxBytes: number;
  /** Rewrite once the file is this many times the unfinished events' size (and over `compactMinBytes`); default 4. */
  compactRatio?: number;
  /** Default 16 MiB. */
  compactMinBytes?: number;
  /** With nothing unfinished and no dead letter, empty the file in place once it is over this; default 1 MiB. */
  clearMinBytes?: number;
  /** A finished record leaves the file within this time, whatever the file's size; default 1 hour. */
  eraseAfterMs?: number;
  /** The clock the erasing runs on (tests pass a fake one). */
  clock?: Clock;
}

export const COMPACT_MIN_BYTES = 16 * 1024 * 1024;
export const COMPACT_RATIO = 4;
export const CLEAR_MIN_BYTES = 1024 * 1024;
export const ERASE_AFTER_MS = 60 * 60 * 1000;

/** What the journal holds now, as far as compacting goes. */
export interface JournalFill {
  /** Bytes in the file. */
  size: number;
  /** Bytes of the records of unfinished events and dead letters. */
  liveBytes: number;
  /** No unfinished event and no dead letter. */
  nothingLive: boolean;
}

/**
 * Whether finished records are dropped now, on an event finishing: emptied in
 * place (no copy) when nothing is live and the file is over `clearMinBytes`;
 * rewritten when it is over `compactMinBytes` and `compactRatio` times its
 * live records (the copy is then at most a quarter of the file). The erase
 * timer and a full cap compact whenever anything finished is in the file.
 */
export function compactionDue(fill: JournalFill, options: JournalOptions): boolean {
  if (fill.nothingLive && fill.size > (options.clearMinBytes ?? CLEAR_MIN_BYTES)) return true;
  return fill.size > (options.compactMinBytes ?? COMPACT_MIN_BYTES) && fill.size > (options.compactRatio ?? COMPACT_RATIO) * fill.liveBytes;
}

/** Whether the file system of `dir` has room for `bytes` more (yes when it cannot tell). */
export async function roomFor(dir: string, bytes: number): Promise<boolean> {
  try {
    const fs = await statfs(dir);
    // root may write into the blocks a file system keeps back for it (ext4: 5 %).
    const blocks = process.getuid?.() === 0 ? fs.bfree : fs.bavail;
    return blocks * fs.bsize > bytes;
  } catch {
    return true;
  }
}
