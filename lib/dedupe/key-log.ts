/**
 * An append-only log of the keys a dedupe window let through, so the window
 * survives a crash: a key is on disk before its message goes on. One line per
 * key (`["key", since]`, or `["key", since, "mark"]` with the delivery mark of
 * the message that passed), a `null` line for a reset. Appends issued together
 * share one write and one `fdatasync` (group commit); saving costs in
 * proportion to the keys added, not to the window. The file is rewritten
 * from the window (compaction) once it holds many more lines than keys.
 */
import { constants as fsConstants } from 'node:fs';
import { mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { WindowSnapshot } from './local-window';

interface Waiter {
  line: string;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class KeyLog {
  private fh: FileHandle | undefined;
  private queue: Waiter[] = [];
  private writing: Promise<void> | undefined;
  private lines = 0;
  private size = 0;
  /** Syncs done (fewer than keys under load). */
  syncs = 0;

  private constructor(readonly path: string) {}

  /** Opens the log and replays it: the keys in the order written, after the last reset. A torn last line is cut off. */
  static async open(path: string): Promise<{ log: KeyLog; entries: WindowSnapshot; torn: boolean }> {
    await mkdir(dirname(path), { recursive: true });
    const log = new KeyLog(path);
    const fh = await open(path, fsConstants.O_RDWR | fsConstants.O_CREAT);
    log.fh = fh;
    const bytes = await fh.readFile();
    let entries: WindowSnapshot = [];
    let end = 0;
    let torn = false;
    for (let start = 0; start < bytes.length;) {
      const newline = bytes.indexOf(0x0a, start);
      if (newline < 0) {
        torn = true;
        break;
      }
      let value: unknown;
      try {
        value = JSON.parse(bytes.toString('utf8', start, newline));
      } catch {
        torn = true;
        break;
      }
      start = newline + 1;
      end = start;
      log.lines++;
      if (value === null) entries = [];
      else if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'number')
        entries.push(typeof value[2] === 'string' ? [value[0], value[1], value[2]] : [value[0], value[1]]);
    }
    if (torn) {
      await fh.truncate(end);
      await fh.datasync();
    }
    log.size = end;
    return { log, entries, torn };
  }

  /** Lines in the file. */
  get lineCount(): number {
    return this.lines;
  }

  /** Writes a key (and the delivery mark of the message that passed); resolves once it is on disk. */
  record(key: string, since: number, mark?: string): Promise<void> {
    return this.append(`${JSON.stringify(mark === undefined ? [key, since] : [key, since, mark])}\n`);
  }

  /** Writes a reset: the keys before it are forgotten on replay. */
  reset(): Promise<void> {
    return this.append('null\n');
  }

  private append(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ line, resolve, reject });
      if (!this.writing) this.writing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    // One turn of the event loop first: keys recorded together share the sync.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      while (this.queue.length > 0 && this.fh) {
        const batch = this.queue;
        this.queue = [];
        const data = Buffer.from(batch.map((w) => w.line).join(''), 'utf8');
        try {
          let written = 0;
          while (written < data.length) {
            const { bytesWritten } = await this.fh.write(data, written, data.length - written, this.size + written);
            written += bytesWritten;
          }
          await this.fh.datasync();
          this.syncs++;
          this.size += data.length;
          this.lines += batch.length;
          for (const w of batch) w.resolve();
        } catch (err) {
          for (const w of batch) w.reject(err as Error);
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  /**
   * Rewrites the file with `snapshot` (the window's live keys) when it holds
   * more than `ratio` times as many lines (and at least `minLines`).
   */
  async compact(snapshot: WindowSnapshot, ratio = 4, minLines = 10_000): Promise<boolean> {
    if (this.lines < minLines || this.lines < ratio * snapshot.length || !this.fh) return false;
    await this.rewrite(snapshot);
    return true;
  }

  /** Rewrites the file with `snapshot` whatever its size (the window came from elsewhere). */
  async rewrite(snapshot: WindowSnapshot): Promise<void> {
    if (!this.fh) return;
    while (this.writing) await this.writing;
    // Appends wait while the file is swapped: take the writer's place.
    let release!: () => void;
    this.writing = new Promise((resolve) => (release = resolve));
    try {
      await this.swap(snapshot);
    } finally {
      this.writing = undefined;
      release();
      if (this.queue.length > 0) this.writing = this.flush();
    }
  }

  private async swap(snapshot: WindowSnapshot): Promise<void> {
    if (!this.fh) return;
    const tmp = `${this.path}.compact`;
    const data = Buffer.from(snapshot.map((e) => `${JSON.stringify(e)}\n`).join(''), 'utf8');
    const out = await open(tmp, 'w');
    try {
      await out.write(data, 0, data.length, 0);
      await out.datasync();
    } finally {
      await out.close();
    }
    await rename(tmp, this.path);
    const old = this.fh;
    this.fh = await open(this.path, fsConstants.O_RDWR);
    await old.close();
    this.size = data.length;
    this.lines = snapshot.length;
  }

  async close(): Promise<void> {
    while (this.writing) await this.writing;
    await this.fh?.close();
    this.fh = undefined;
  }
}
