/**
 * A crash-safe append-only file, the one under every log this package keeps
 * on disk (the delivery journal, the dedupe key log, and what later persists).
 *
 * - Group commit: appends issued together share one write and one sync; an
 *   append resolves once the sync that covers it is done, never waiting for
 *   one of its own. A write starts as soon as the code that appended is done
 *   and nothing is being written; what is appended meanwhile goes with the
 *   next one. The file is opened O_DSYNC where the platform has it, so a
 *   batch's write and its sync are one call (else a write, then `fdatasync`).
 *   A failed write is cut off again and every append of its batch rejects.
 * - A full disk (ENOSPC, EDQUOT: `isOutOfSpace`): the batch rejects, and what
 *   part of it reached the file is cut off and the cut synced before anything
 *   else is written (a cut that fails is tried again before the next write),
 *   so a torn or rejected record never stays between whole ones. The file
 *   can be emptied in place (`clear`, when the caller has nothing live in it):
 *   that needs no room, unlike a rewrite.
 * - Opening replays the file through the caller's reader, which says where
 *   the last whole record ends: a torn tail past it (a crash mid-write) is
 *   cut off and synced before anything is appended.
 * - Compaction (`rewrite`): the new contents go to `<path>.compact`, are
 *   synced, renamed over the file, and the directory is synced so the rename
 *   survives a crash. A `.compact` file left by a crash before the rename is
 *   removed on open (the old file is whole).
 * The format of a record is the caller's; `frame` and `readFrames` (frames.ts)
 * give one (length, type, CRC-32) for logs that have no format of their own yet.
 */
import { constants as fsConstants } from 'node:fs';
import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LogReader } from './frames';

export { FRAME_HEADER_BYTES, frame, readFrames, type Frame, type FrameProblem, type LogReader } from './frames';

/** Writes the new contents during a rewrite, one record after another. */
export interface LogWriter {
  /** Appends a record; answers its offset in the new file. */
  write(buffers: readonly Buffer[]): Promise<number>;
}

/** What the caller's replay answers: where the last whole record ends, and what it read. */
export interface Replayed<R> {
  end: number;
  value: R;
}

/** An error of a write that found no room: the file system is full, or the user's quota. */
export function isOutOfSpace(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * Appends are written with O_DSYNC (each write returns once its data is
 * synced, as write + fdatasync would); 0 where the platform has no such flag
 * (Windows): there each batch is followed by an fdatasync.
 */
const O_DSYNC: number = fsConstants.O_DSYNC ?? 0;

interface Pending {
  buffers: readonly Buffer[];
  bytes: number;
  placed: ((offset: number) => void) | undefined;
  resolve: (offset: number) => void;
  reject: (err: Error) => void;
}

export class AppendLog {
  private fh: FileHandle | undefined;
  private written = 0;
  private queue: Pending[] = [];
  private queued = 0;
  private writing: Promise<void> | undefined;
  private closed = false;
  /** A failed write may have left bytes past `written` that are not cut off yet (the cut failed). */
  private cutPending = false;
  /** fdatasyncs done (appends and rewrites): fewer than appends under load. */
  syncs = 0;

  private constructor(readonly path: string) {}

  /**
   * Opens (or creates) the log at `path` and replays it with `replay`, which
   * reads the file and answers where its last whole record ends; what lies
   * past that is cut off (`cut`: how many bytes).
   */
  static async open<R>(path: string, replay: (file: LogReader) => Promise<Replayed<R>>): Promise<{ log: AppendLog; value: R; cut: number }> {
    await mkdir(dirname(path), { recursive: true });
    // A crash before the rename: the old file is whole, the half-made copy is not wanted.
    await unlink(`${path}.compact`).catch(() => undefined);
    const log = new AppendLog(path);
    const fh = await open(path, fsConstants.O_RDWR | fsConstants.O_CREAT | O_DSYNC);
    try {
      const size = (await fh.stat()).size;
      const { end, value } = await replay(readerOf(fh, size));
      const valid = Math.max(0, Math.min(end, size));
      if (valid < size) {
        await fh.truncate(valid);
        await fh.datasync();
      }
      log.fh = fh;
      log.written = valid;
      return { log, value, cut: size - valid };
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  /** Bytes on disk (synced). */
  get size(): number {
    return this.written;
  }

  /** Bytes on disk and queued to be written. */
  get bytes(): number {
    return this.written + this.queued;
  }

  /**
   * Appends a record; resolves with its offset once it is on disk. `placed`
   * is called with that offset before any append or rewrite after it runs
   * (an index of records stays in step with the file).
   */
  append(buffers: readonly Buffer[], placed?: (offset: number) => void): Promise<number> {
    if (this.closed) return Promise.reject(new Error(`the log ${this.path} is closed`));
    let bytes = 0;
    for (const b of buffers) bytes += b.length;
    return new Promise((resolve, reject) => {
      this.queue.push({ buffers, bytes, placed, resolve, reject });
      this.queued += bytes;
      if (!this.writing) this.writing = this.flush();
    });
  }

  /** `length` bytes at `position`, once what is being written or swapped is done. */
  read(position: number, length: number): Promise<Buffer> {
    return this.readAt(() => ({ position, length })) as Promise<Buffer>;
  }

  /**
   * The bytes `locate` points at, asked once what is being written or swapped
   * is done: a record's place read before a compaction would be stale after it.
   * Undefined when `locate` finds nothing.
   */
  async readAt(locate: () => { position: number; length: number } | undefined): Promise<Buffer | undefined> {
    while (this.writing) await this.writing;
    if (!this.fh) throw new Error(`the log ${this.path} is closed`);
    const at = locate();
    return at && readerOf(this.fh, this.written).read(at.position, at.length);
  }

  /** The group commit: everything queued goes out in one write and one sync. */
  private async flush(): Promise<void> {
    // Start as soon as the code that appended is done (appends issued together
    // share this write), not a turn of the event loop later: under load that
    // turn is other requests' parsing, with the disk idle meanwhile. What is
    // appended while this batch is written gathers for the next one.
    await Promise.resolve();
    try {
      while (this.queue.length > 0 && this.fh) {
        const batch = this.queue;
        this.queue = [];
        let bytes = 0;
        for (const p of batch) bytes += p.bytes;
        this.queued -= bytes;
        const start = this.written;
        try {
          // A cut that failed last time first: nothing is written after a torn record.
          if (this.cutPending) await this.cutBack();
          const buffers = batch.length === 1 ? batch[0].buffers : batch.flatMap((p) => p.buffers);
          // Opened O_DSYNC: the write returns once synced, one call in the thread
          // pool (a separate fdatasync would wait for a free turn of a busy loop first).
          await writeAll(this.fh, buffers, bytes, start);
          if (!O_DSYNC) await this.fh.datasync();
          this.syncs++;
          this.written = start + bytes;
        } catch (err) {
          // Whatever part reached the file is not trusted (a full disk takes part of a
          // write): cut it off now, or before the next write, or the next replay does.
          this.cutPending = true;
          await this.cutBack().catch(() => undefined);
          for (const p of batch) p.reject(err as Error);
          continue;
        }
        let offset = start;
        for (const p of batch) {
          p.placed?.(offset);
          p.resolve(offset);
          offset += p.bytes;
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  /**
   * Cuts the file back to what is on disk (`written`) after a failed write,
   * and syncs the cut: a crash after it cannot bring the rejected records
   * back. Shrinking a file needs no room on a full disk.
   */
  private async cutBack(): Promise<void> {
    if (!this.fh) return;
    await this.fh.truncate(this.written);
    await this.fh.datasync();
    this.cutPending = false;
  }

  /**
   * Empties the file in place when `nothingLive` still says so once what is
   * being written is on disk (the caller's index is then up to date): the
   * space of finished records comes back without the room a rewrite needs,
   * which a full disk does not have. Crash-safe because nothing in the file
   * is wanted any more; the cut is synced before anything is appended after
   * it, so no old record can reappear behind a new one. Appends still queued
   * go to the emptied file. `start`: what the emptied file begins with (a
   * record that keeps the caller's numbering going across a restart, say),
   * written and synced with the cut; left out if it does not fit. False when
   * the log is closed or `nothingLive` says no.
   */
  async clear(nothingLive: () => boolean, start?: readonly Buffer[]): Promise<boolean> {
    while (this.writing) await this.writing;
    const fh = this.fh;
    if (!fh || this.closed || !nothingLive()) return false;
    let release!: () => void;
    this.writing = new Promise((resolve) => (release = resolve));
    try {
      await fh.truncate(0);
      this.written = 0;
      this.cutPending = false;
      if (start) {
        let bytes = 0;
        for (const b of start) bytes += b.length;
        try {
          await writeAll(fh, start, bytes, 0);
          this.written = bytes;
        } catch {
          await fh.truncate(0);
        }
      }
      await fh.datasync();
      this.syncs++;
      return true;
    } finally {
      this.writing = undefined;
      release();
      if (this.queue.length > 0 && !this.writing) this.writing = this.flush();
    }
  }

  /**
   * Replaces the file's contents with what `fill` writes (it may read the old
   * file meanwhile); appends wait until the new file is in place. `swapped`
   * runs once it is, before any append or read goes on (an index of records
   * moves to the new offsets in step). False when the log is closed.
   */
  async rewrite(fill: (out: LogWriter, old: LogReader) => Promise<void>, swapped?: () => void): Promise<boolean> {
    // Take the writer's place: appends queue up and go to the new file.
    while (this.writing) await this.writing;
    const old = this.fh;
    if (!old || this.closed) return false;
    let release!: () => void;
    this.writing = new Promise((resolve) => (release = resolve));
    const tmpPath = `${this.path}.compact`;
    try {
      const tmp = await open(tmpPath, 'w');
      let size = 0;
      try {
        await fill(
          {
            write: async (buffers) => {
              let bytes = 0;
              for (const b of buffers) bytes += b.length;
              const offset = size;
              await writeAll(tmp, buffers, bytes, offset);
              size += bytes;
              return offset;
            },
          },
          readerOf(old, this.written),
        );
        await tmp.datasync();
      } finally {
        await tmp.close();
      }
      await rename(tmpPath, this.path);
      await syncDirectory(dirname(this.path));
      this.fh = await open(this.path, fsConstants.O_RDWR | O_DSYNC);
      await old.close();
      this.written = size;
      this.cutPending = false;
      this.syncs++;
      swapped?.();
      return true;
    } catch (err) {
      await unlink(tmpPath).catch(() => undefined);
      throw err;
    } finally {
      this.writing = undefined;
      release();
      if (this.queue.length > 0 && !this.writing) this.writing = this.flush();
    }
  }

  /** Writes what is queued, then closes the file. */
  async close(): Promise<void> {
    while (this.writing) await this.writing;
    this.closed = true;
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close();
  }
}

function readerOf(fh: FileHandle, size: number): LogReader {
  return {
    size,
    async read(position, length) {
      const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(length, size - position)));
      let got = 0;
      while (got < buffer.length) {
        const { bytesRead } = await fh.read(buffer, got, buffer.length - got, position + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return got === buffer.length ? buffer : buffer.subarray(0, got);
    },
  };
}

async function writeAll(fh: FileHandle, buffers: readonly Buffer[], bytes: number, position: number): Promise<void> {
  let written = 0;
  while (written < bytes) {
    const { bytesWritten } = await fh.writev(skip(buffers, written), position + written);
    written += bytesWritten;
  }
}

/** `buffers` without their first `bytes` bytes (after a partial write). */
function skip(buffers: readonly Buffer[], bytes: number): Buffer[] {
  if (bytes === 0) return buffers as Buffer[];
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
