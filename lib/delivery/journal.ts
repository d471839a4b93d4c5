/**
 * An append-only journal of accepted events, for "acknowledge after: written
 * to disk". The 200 goes out only once the record of its event is on disk.
 *
 * Records are length-prefixed and checksummed:
 *
 *   u32 LE  payload length
 *   u8      type (1: event, 2: done)
 *   u32 LE  crc32 of type byte and payload
 *   payload event: u64 LE seq, u32 LE meta length, meta (JSON), body (bytes as received)
 *           done:  u64 LE seq
 *
 * Concurrent appends share one write and one `fdatasync` (group commit): an
 * append waits for the sync that covers its record, never for one of its own.
 * `done` records are not waited for: a completion lost in a crash only means
 * the event is delivered again, flagged as redelivered.
 *
 * Opening replays the file: a torn last record (a crash mid-write) is cut off
 * with one warning; a record whose checksum does not match is reported and
 * skipped. The journal is rewritten with only the unfinished events
 * (compaction) once most of it is finished, and never grows past its cap.
 */
import { constants as fsConstants } from 'node:fs';
import { open, rename, mkdir, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';

const HEADER_BYTES = 9;
const TYPE_EVENT = 1;
const TYPE_DONE = 2;
/** A length above this cannot be a record of ours: the header itself is damaged. */
const MAX_RECORD_BYTES = 1024 * 1024 * 1024;

export interface JournalEntry {
  seq: number;
  /** What the receiver needs to rebuild the message (JSON-serialisable). */
  meta: unknown;
  /** The request body as received. */
  body: Buffer;
}

export interface JournalProblem {
  kind: 'torn' | 'checksum' | 'unreadable-meta';
  /** Byte offset of the record in the file. */
  offset: number;
}

export interface JournalOptions {
  /** Past this size the journal refuses new events (after trying to compact). */
  maxBytes: number;
  /** Rewrite once the file is this many times the unfinished events' size (and over `compactMinBytes`). */
  compactRatio?: number;
  compactMinBytes?: number;
}

export class JournalFullError extends Error {
  readonly code = 'ERR_JOURNAL_FULL';
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(`the journal is full (${size} of ${limit} bytes)`);
  }
}

interface Live {
  offset: number;
  length: number;
}

interface Pending {
  buffers: Buffer[];
  bytes: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

function frame(type: number, payload: Buffer[]): Buffer[] {
  const length = payload.reduce((n, b) => n + b.length, 0);
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt32LE(length, 0);
  header.writeUInt8(type, 4);
  let crc = crc32(header.subarray(4, 5));
  for (const part of payload) crc = crc32(part, crc);
  header.writeUInt32LE(crc, 5);
  return [header, ...payload];
}

function seqBuffer(seq: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigUInt64LE(BigInt(seq));
  return b;
}

export class Journal {
  private fh: FileHandle | undefined;
  private size = 0;
  private queue: Pending[] = [];
  private queuedBytes = 0;
  private writing: Promise<void> | undefined;
  private closed = false;
  private nextSeq = 1;
  /** Unfinished events: where their records are. Bodies stay on disk. */
  private readonly live = new Map<number, Live>();
  private liveBytes = 0;
  /** Syncs done, for tests and the bench: fewer than appends under load. */
  syncs = 0;
  /** The last error of a background compaction, if any. */
  lastError: Error | undefined;

  private constructor(
    readonly path: string,
    private readonly options: JournalOptions,
  ) {}

  /**
   * Opens (or creates) the journal at `path` and replays it: `entries` are
   * the unfinished events in order, `problems` what was skipped or cut off.
   */
  static async open(path: string, options: JournalOptions): Promise<{ journal: Journal; entries: JournalEntry[]; problems: JournalProblem[] }> {
    await mkdir(dirname(path), { recursive: true });
    await unlink(`${path}.compact`).catch(() => undefined);
    const journal = new Journal(path, options);
    const fh = await open(path, fsConstants.O_RDWR | fsConstants.O_CREAT);
    journal.fh = fh;
    const { entries, problems, end } = await journal.replay(fh);
    if (end < (await fh.stat()).size) {
      await fh.truncate(end);
      await fh.datasync();
    }
    journal.size = end;
    return { journal, entries, problems };
  }

  private async replay(fh: FileHandle): Promise<{ entries: JournalEntry[]; problems: JournalProblem[]; end: number }> {
    const size = (await fh.stat()).size;
    const problems: JournalProblem[] = [];
    const events = new Map<number, JournalEntry & Live>();
    const header = Buffer.alloc(HEADER_BYTES);
    let offset = 0;
    let maxSeq = 0;
    while (offset < size) {
      if (size - offset < HEADER_BYTES) {
        problems.push({ kind: 'torn', offset });
        break;
      }
      await fh.read(header, 0, HEADER_BYTES, offset);
      const length = header.readUInt32LE(0);
      const type = header.readUInt8(4);
      if (length > MAX_RECORD_BYTES || (type !== TYPE_EVENT && type !== TYPE_DONE)) {
        // Nothing after a damaged header can be framed: keep what came before.
        problems.push({ kind: offset + HEADER_BYTES + length > size ? 'torn' : 'checksum', offset });
        break;
      }
      if (offset + HEADER_BYTES + length > size) {
        problems.push({ kind: 'torn', offset });
        break;
      }
      const payload = Buffer.allocUnsafe(length);
      await fh.read(payload, 0, length, offset + HEADER_BYTES);
      const crc = crc32(payload, crc32(header.subarray(4, 5)));
      const recordBytes = HEADER_BYTES + length;
      if (crc !== header.readUInt32LE(5) || length < (type === TYPE_EVENT ? 12 : 8)) {
        problems.push({ kind: 'checksum', offset });
        offset += recordBytes;
        continue;
      }
      const seq = Number(payload.readBigUInt64LE(0));
      maxSeq = Math.max(maxSeq, seq);
      if (type === TYPE_DONE) {
        events.delete(seq);
      } else {
        const metaLength = payload.readUInt32LE(8);
        let meta: unknown;
        try {
          if (12 + metaLength > length) throw new Error('meta past the record');
          meta = JSON.parse(payload.toString('utf8', 12, 12 + metaLength));
        } catch {
          problems.push({ kind: 'unreadable-meta', offset });
          offset += recordBytes;
          continue;
        }
        events.set(seq, { seq, meta, body: payload.subarray(12 + metaLength), offset, length: recordBytes });
      }
      offset += recordBytes;
    }
    this.nextSeq = maxSeq + 1;
    for (const entry of events.values()) {
      this.live.set(entry.seq, { offset: entry.offset, length: entry.length });
      this.liveBytes += entry.length;
    }
    return { entries: [...events.values()].map(({ seq, meta, body }) => ({ seq, meta, body })), problems, end: offset };
  }

  /** Bytes in the file (and queued to be written). */
  get bytes(): number {
    return this.size + this.queuedBytes;
  }

  /** Unfinished events in the journal. */
  get unfinished(): number {
    return this.live.size;
  }

  /**
   * Writes an event and resolves once it is on disk. Rejects with
   * JournalFullError when it would take the journal past its cap.
   */
  async append(meta: unknown, body: Buffer): Promise<number> {
    if (this.closed) throw new Error('the journal is closed');
    const metaBytes = Buffer.from(JSON.stringify(meta), 'utf8');
    const head = Buffer.allocUnsafe(12);
    const seq = this.nextSeq++;
    head.writeBigUInt64LE(BigInt(seq), 0);
    head.writeUInt32LE(metaBytes.length, 8);
    const buffers = frame(TYPE_EVENT, [head, metaBytes, body]);
    const bytes = buffers.reduce((n, b) => n + b.length, 0);
    if (this.bytes + bytes > this.options.maxBytes) {
      await this.compactIfWorthIt(true);
      if (this.bytes + bytes > this.options.maxBytes) throw new JournalFullError(this.bytes, this.options.maxBytes);
    }
    // Where the record will sit is known once it is written: see flush().
    const offsetHolder = { seq, bytes };
    await this.enqueue(buffers, bytes, offsetHolder);
    return seq;
  }

  /** Marks an event finished. Not waited for: it is synced with the next batch. */
  complete(seq: number): void {
    const live = this.live.get(seq);
    if (!live || this.closed) return;
    this.live.delete(seq);
    this.liveBytes -= live.length;
    const buffers = frame(TYPE_DONE, [seqBuffer(seq)]);
    this.enqueue(buffers, HEADER_BYTES + 8).catch(() => undefined);
    void this.compactIfWorthIt(false);
  }

  /** The stored body and meta of an unfinished event (for a redelivery). */
  async read(seq: number): Promise<JournalEntry | undefined> {
    const live = this.live.get(seq);
    if (!live || !this.fh) return undefined;
    await this.writing;
    const record = Buffer.allocUnsafe(live.length);
    await this.fh.read(record, 0, live.length, live.offset);
    const metaLength = record.readUInt32LE(HEADER_BYTES + 8);
    return {
      seq,
      meta: JSON.parse(record.toString('utf8', HEADER_BYTES + 12, HEADER_BYTES + 12 + metaLength)),
      body: record.subarray(HEADER_BYTES + 12 + metaLength),
    };
  }

  private placed = new Map<Pending, { seq: number; bytes: number }>();

  private enqueue(buffers: Buffer[], bytes: number, place?: { seq: number; bytes: number }): Promise<void> {
    return new Promise((resolve, reject) => {
      const pending: Pending = { buffers, bytes, resolve, reject };
      if (place) this.placed.set(pending, place);
      this.queue.push(pending);
      this.queuedBytes += bytes;
      if (!this.writing) this.writing = this.flush();
    });
  }

  /** The group commit: everything queued goes out in one write and one sync. */
  private async flush(): Promise<void> {
    // Wait one turn of the event loop first, so appends issued together (the
    // requests answered by the last sync, say) share this write and sync.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      while (this.queue.length > 0 && this.fh) {
        const batch = this.queue;
        this.queue = [];
        const bytes = batch.reduce((n, p) => n + p.bytes, 0);
        this.queuedBytes -= bytes;
        const start = this.size;
        try {
          const buffers = batch.flatMap((p) => p.buffers);
          let written = 0;
          while (written < bytes) {
            const { bytesWritten } = await this.fh.writev(skip(buffers, written), start + written);
            written += bytesWritten;
          }
          await this.fh.datasync();
          this.syncs++;
          this.size = start + bytes;
          let offset = start;
          for (const p of batch) {
            const place = this.placed.get(p);
            if (place) {
              this.placed.delete(p);
              this.live.set(place.seq, { offset, length: place.bytes });
              this.liveBytes += place.bytes;
            }
            offset += p.bytes;
          }
          for (const p of batch) p.resolve();
        } catch (err) {
          // Whatever part reached the file is not trusted: the next replay cuts it off.
          await this.fh.truncate(start).catch(() => undefined);
          for (const p of batch) {
            this.placed.delete(p);
            p.reject(err as Error);
          }
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  private compacting: Promise<void> | undefined;

  /** Rewrites the file with only the unfinished events, when most of it is finished (or `force`d by a full cap). */
  private compactIfWorthIt(force: boolean): Promise<void> {
    const ratio = this.options.compactRatio ?? 4;
    const minBytes = this.options.compactMinBytes ?? 16 * 1024 * 1024;
    const worth = force ? this.size > this.liveBytes : this.size > minBytes && this.size > ratio * this.liveBytes;
    if (!worth || this.closed) return this.compacting ?? Promise.resolve();
    if (!this.compacting) {
      this.compacting = this.compact()
        .catch((err: Error) => {
          // The old file stays in use; the next completion tries again.
          this.lastError = err;
        })
        .finally(() => {
          this.compacting = undefined;
        });
    }
    return this.compacting;
  }

  private async compact(): Promise<void> {
    // Appends wait while the file is swapped: take the writer's place.
    while (this.writing) await this.writing;
    const old = this.fh;
    if (!old || this.closed) return;
    let release!: () => void;
    this.writing = new Promise((resolve) => (release = resolve));
    const tmpPath = `${this.path}.compact`;
    try {
      const tmp = await open(tmpPath, 'w');
      const moved = new Map<number, Live>();
      let offset = 0;
      try {
        for (const [seq, live] of [...this.live.entries()].sort((a, b) => a[1].offset - b[1].offset)) {
          const record = Buffer.allocUnsafe(live.length);
          await old.read(record, 0, live.length, live.offset);
          await tmp.write(record, 0, record.length, offset);
          moved.set(seq, { offset, length: live.length });
          offset += live.length;
        }
        await tmp.datasync();
      } finally {
        await tmp.close();
      }
      await rename(tmpPath, this.path);
      await syncDirectory(dirname(this.path));
      this.fh = await open(this.path, fsConstants.O_RDWR);
      await old.close();
      this.size = offset;
      // Completions that came in while copying are already out of `live`.
      for (const [seq, place] of moved) if (this.live.has(seq)) this.live.set(seq, place);
      this.syncs++;
    } finally {
      this.writing = undefined;
      release();
      if (this.queue.length > 0 && !this.writing) this.writing = this.flush();
    }
  }

  /** Writes what is queued, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.writing || this.compacting) {
      await this.writing;
      await this.compacting;
    }
    this.closed = true;
    await this.fh?.close();
    this.fh = undefined;
  }
}

/** `buffers` without their first `bytes` bytes (after a partial write). */
function skip(buffers: Buffer[], bytes: number): Buffer[] {
  if (bytes === 0) return buffers;
  const out: Buffer[] = [];
  let left = bytes;
  for (const b of buffers) {
    if (left >= b.length) {
      left -= b.length;
      continue;
    }
    out.push(left > 0 ? b.subarray(left) : b);
    left = 0;
  }
  return out;
}

async function syncDirectory(dir: string): Promise<void> {
  const fh = await open(dir, 'r').catch(() => undefined);
  if (!fh) return;
  await fh.sync().catch(() => undefined);
  await fh.close();
}
