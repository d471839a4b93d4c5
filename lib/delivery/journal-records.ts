/**
 * The records of the disk journal (journal.ts) and their replay: what the
 * bytes of journal-<id>.log mean, apart from when they are written. Records
 * are the append log's checksummed frames (lib/core/append-log.ts):
 *
 *   type 1, event: u64 LE seq, u32 LE meta length, meta (JSON), body (bytes as received)
 *   type 2, done:  u64 LE seq
 *   type 3, attempt: u64 LE seq, u32 LE attempts, error (UTF-8): the event's emissions so far
 *           (0: sent back from the dead letters, not emitted since) and its last error
 *   type 4, dead:  u64 LE seq, u32 LE attempts, f64 LE deadAt, error (UTF-8): kept aside
 *   type 0xF0, format: the stamp (lib/core/file-format.ts), JSON
 *           `{"format":"detection-bridge journal","version":1}`; the first record of the file
 *
 * Format version 1 is these records. A file without a stamp (written before
 * there were stamps) holds the same records: it is read as version 1 and
 * stamped on open (journal.ts). A file stamped with a newer version is
 * refused whole: its records may mean what this code cannot know.
 */
import { frame, readFrames, type LogReader } from '../core/append-log';
import { parseStamp, refuseNewer, stampText } from '../core/file-format';

export const TYPE_EVENT = 1;
export const TYPE_DONE = 2;
export const TYPE_ATTEMPT = 3;
export const TYPE_DEAD = 4;
export const TYPE_FORMAT = 0xf0;

/** What the stamp calls this file, and the format version this code writes (and the newest it reads). */
export const JOURNAL_FORMAT = 'detection-bridge journal';
export const JOURNAL_VERSION = 1;

/** The stamp record every journal file starts with. */
export function formatFrame(): Buffer[] {
  return frame(TYPE_FORMAT, [Buffer.from(stampText(JOURNAL_FORMAT, JOURNAL_VERSION), 'utf8')]);
}

/** Bytes of the records a rewritten or emptied file starts with: the stamp, and the done record that keeps the numbering. */
export const HEAD_BYTES = formatFrame().reduce((n, b) => n + b.length, 0) + frame(TYPE_DONE, [Buffer.alloc(8)]).reduce((n, b) => n + b.length, 0);

export interface JournalEntry {
  seq: number;
  /** What the receiver needs to rebuild the message (JSON-serialisable). */
  meta: unknown;
  /** The request body as received. */
  body: Buffer;
  /** Emissions so far (from attempt and dead records; 1 when none was written). */
  attempts: number;
  lastError?: string;
  /** Set for a dead letter: when it was kept aside (ms since the epoch). */
  deadAt?: number;
}

/** What is known of an event beyond its record: its attempts, its last error, whether it is a dead letter. */
export interface Mark {
  attempts: number;
  error: string;
  deadAt?: number;
}

export function markFrame(seq: number, mark: Mark): Buffer[] {
  const error = Buffer.from(mark.error, 'utf8');
  if (mark.deadAt === undefined) {
    const head = Buffer.allocUnsafe(12);
    head.writeBigUInt64LE(BigInt(seq), 0);
    head.writeUInt32LE(mark.attempts, 8);
    return frame(TYPE_ATTEMPT, [head, error]);
  }
  const head = Buffer.allocUnsafe(20);
  head.writeBigUInt64LE(BigInt(seq), 0);
  head.writeUInt32LE(mark.attempts, 8);
  head.writeDoubleLE(mark.deadAt, 12);
  return frame(TYPE_DEAD, [head, error]);
}

export interface JournalProblem {
  kind: 'torn' | 'checksum' | 'unreadable-meta';
  /** Byte offset of the record in the file. */
  offset: number;
}

export interface Live {
  offset: number;
  length: number;
}

export function seqBuffer(seq: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigUInt64LE(BigInt(seq));
  return b;
}

/**
 * The journal's replay: the unfinished events with where their records are,
 * and the file's format version (undefined: no stamp, a file written before
 * there were stamps). Throws FormatTooNewError, before anything is cut, when
 * the file at `path` is stamped with a newer version than this code's.
 */
export async function replay(
  file: LogReader,
  path: string,
): Promise<{
  end: number;
  value: {
    events: Map<number, Omit<JournalEntry, 'attempts'> & Live>;
    marks: Map<number, Mark>;
    problems: JournalProblem[];
    maxSeq: number;
    version: number | undefined;
  };
}> {
  const events = new Map<number, Omit<JournalEntry, 'attempts'> & Live>();
  const marks = new Map<number, Mark>();
  let maxSeq = 0;
  let version: number | undefined;
  const minLength = { [TYPE_EVENT]: 12, [TYPE_DONE]: 8, [TYPE_ATTEMPT]: 12, [TYPE_DEAD]: 20, [TYPE_FORMAT]: 0 } as Record<number, number>;
  const types = [TYPE_EVENT, TYPE_DONE, TYPE_ATTEMPT, TYPE_DEAD, TYPE_FORMAT];
  const { end, problems } = await readFrames<'checksum' | 'unreadable-meta'>(file, types, ({ type, payload, offset, length }) => {
    if (payload.length < minLength[type]) return 'checksum';
    if (type === TYPE_FORMAT) {
      // Only the head of the file says what it is; a stamp elsewhere is stray.
      const stamp = offset === 0 ? parseStamp(payload.toString('utf8'), JOURNAL_FORMAT) : undefined;
      if (!stamp) return offset === 0 ? 'unreadable-meta' : undefined;
      refuseNewer(path, JOURNAL_FORMAT, stamp.version, JOURNAL_VERSION);
      version = stamp.version;
      return undefined;
    }
    const seq = Number(payload.readBigUInt64LE(0));
    maxSeq = Math.max(maxSeq, seq);
    if (type === TYPE_DONE) {
      events.delete(seq);
      marks.delete(seq);
      return undefined;
    }
    if (type === TYPE_ATTEMPT || type === TYPE_DEAD) {
      // Of an event still in the file only (a mark after its done record is stale).
      if (!events.has(seq)) return undefined;
      const dead = type === TYPE_DEAD;
      marks.set(seq, {
        attempts: payload.readUInt32LE(8),
        error: payload.toString('utf8', dead ? 20 : 12),
        ...(dead ? { deadAt: payload.readDoubleLE(12) } : {}),
      });
      return undefined;
    }
    const metaLength = payload.readUInt32LE(8);
    let meta: unknown;
    try {
      if (12 + metaLength > payload.length) throw new Error('meta past the record');
      meta = JSON.parse(payload.toString('utf8', 12, 12 + metaLength));
    } catch {
      return 'unreadable-meta';
    }
    events.set(seq, { seq, meta, body: payload.subarray(12 + metaLength), offset, length });
    return undefined;
  });
  return { end, value: { events, marks, problems, maxSeq, version } };
}
