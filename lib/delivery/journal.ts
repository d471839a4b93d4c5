/**
 * An append-only journal of accepted events, for "acknowledge after: written
 * to disk". The 200 goes out only once the record of its event is on disk.
 *
 * Records are the append log's checksummed frames (lib/core/append-log.ts),
 * their format and replay in journal-records.ts: an event record with its
 * meta and body, a done record, and attempt and dead records.
 *
 * Attempt and dead records are written only when an event fails or is
 * emitted again, never for an event finished at its first emission. An event
 * without an attempt record was emitted once, as far as anyone can tell. A
 * dead letter keeps its event record: compaction copies it, with its dead
 * record, until it is replayed (an attempt record) or discarded (done).
 *
 * The append log writes them (appends issued together share one write and
 * one `fdatasync`), cuts a torn last record on open and swaps the file on
 * compaction. `done` records are not waited for: a completion lost in a crash
 * only means the event is delivered again, flagged as redelivered.
 *
 * Opening replays the file, whatever bytes it holds: a torn or zero-filled
 * tail (a crash mid-write) is cut off with one warning; a damaged record
 * between whole ones is reported and skipped. The file starts with its format
 * stamp (journal-records.ts): one without (written before there were stamps)
 * is stamped on open, one of a newer version refuses to open
 * (FormatTooNewError) and is left as it is.
 *
 * Finished records are dropped from the file (compaction: emptied in place
 * when nothing in it is live, else rewritten with the live records) when
 * journal-compaction.ts says so: an idle file stays small, a busy one is
 * rewritten once mostly finished, and a timer erases finished records within
 * an hour whatever the size; a full cap compacts before refusing an event.
 *
 * A full disk (ENOSPC): the append rejects (the receiver answers 503 with
 * Retry-After, the event stays with the bridge) and the journal heals by
 * itself: right away, and again each time an event finishes, it frees the
 * room of finished records — emptying the file in place when nothing in it
 * is live (no room needed, nothing to lose), else rewriting it with the live
 * records once they fit in the room left — until an append goes through.
 */
import { dirname } from 'node:path';
import { AppendLog, FRAME_HEADER_BYTES, frame, isOutOfSpace } from '../core/append-log';
import { systemClock, type Clock } from '../core/clock';
import {
  HEAD_BYTES,
  JOURNAL_VERSION,
  TYPE_DONE,
  TYPE_EVENT,
  formatFrame,
  markFrame,
  replay,
  seqBuffer,
  type JournalEntry,
  type JournalProblem,
  type Live,
  type Mark,
} from './journal-records';
import { compactionDue, ERASE_AFTER_MS, roomFor, type JournalOptions } from './journal-compaction';

export type { JournalEntry, JournalProblem } from './journal-records';
export { CLEAR_MIN_BYTES, COMPACT_MIN_BYTES, COMPACT_RATIO, ERASE_AFTER_MS, compactionDue, type JournalOptions } from './journal-compaction';

export class JournalFullError extends Error {
  readonly code = 'ERR_JOURNAL_FULL';
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(`the journal is full (${size} of ${limit} bytes)`);
  }
}

export class Journal {
  private closed = false;
  private nextSeq = 1;
  /** Unfinished events: where their records are. Bodies stay on disk. */
  private readonly live = new Map<number, Live>();
  private liveBytes = 0;
  /** Attempts, last errors and dead letters of events in `live` (only those that failed or were emitted again). */
  private readonly marks = new Map<number, Mark>();
  private deadCount = 0;
  /** The last error of a background compaction, if any. */
  lastError: Error | undefined;
  private compacting: Promise<void> | undefined;
  /** An append found no room on the disk, and none has gone through since (the receiver refuses). */
  private noSpace = false;
  /** Out of room and not freed yet: finished records are reclaimed as events finish. */
  private healNeeded = false;
  private healAgain = false;
  private healing: Promise<void> | undefined;
  /** Set while finished records wait to be erased (`eraseAfterMs` after the first of them finished). */
  private eraseTimer: unknown;
  private readonly clock: Clock;
  /** Called when the journal finds its disk full (true), and when it has room again: finished records freed, or an event written (false). */
  onOutOfSpace: ((full: boolean) => void) | undefined;

  private constructor(
    private readonly log: AppendLog,
    private readonly options: JournalOptions,
  ) {
    this.clock = options.clock ?? systemClock;
  }

  get path(): string {
    return this.log.path;
  }

  /** Syncs done, for tests and the bench: fewer than appends under load. */
  get syncs(): number {
    return this.log.syncs;
  }

  /**
   * Opens (or creates) the journal at `path` and replays it: `entries` are
   * the unfinished events in order, `problems` what was skipped or cut off.
   * Rejects with FormatTooNewError, the file untouched, when a later release
   * wrote it.
   */
  static async open(path: string, options: JournalOptions): Promise<{ journal: Journal; entries: JournalEntry[]; problems: JournalProblem[] }> {
    const { log, value } = await AppendLog.open(path, (file) => replay(file, path));
    const journal = new Journal(log, options);
    journal.nextSeq = value.maxSeq + 1;
    const entries: JournalEntry[] = [];
    for (const entry of value.events.values()) {
      journal.live.set(entry.seq, { offset: entry.offset, length: entry.length });
      journal.liveBytes += entry.length;
      const mark = value.marks.get(entry.seq);
      if (mark) journal.marks.set(entry.seq, mark);
      if (mark?.deadAt !== undefined) journal.deadCount++;
      entries.push({
        seq: entry.seq,
        meta: entry.meta,
        body: entry.body,
        attempts: mark ? mark.attempts : 1,
        ...(mark?.error ? { lastError: mark.error } : {}),
        ...(mark?.deadAt !== undefined ? { deadAt: mark.deadAt } : {}),
      });
    }
    if (value.version !== JOURNAL_VERSION) await journal.stamp();
    // `entries`: unfinished events and dead letters (deadAt set), in order.
    return { journal, entries, problems: value.problems };
  }

  /**
   * Brings a file of an older format up to this one: an empty file gets its
   * stamp, one with records is rewritten (compaction writes the stamp first;
   * version 1 changed no record, so they are copied as they are). Not done (a
   * full disk, say): it stays readable as it is, and the next compaction
   * stamps it.
   */
  private async stamp(): Promise<void> {
    try {
      if (this.log.size === 0) await this.log.append(formatFrame());
      else await this.compact();
    } catch (err) {
      this.lastError = err as Error;
    }
  }

  /** Bytes in the file (and queued to be written). */
  get bytes(): number {
    return this.log.bytes;
  }

  /** Unfinished events in the journal (dead letters aside). */
  get unfinished(): number {
    return this.live.size - this.deadCount;
  }

  /** Dead letters in the journal. */
  get deadLetters(): number {
    return this.deadCount;
  }

  /**
   * Records an event's emissions so far and its last error (0 attempts: sent
   * back from the dead letters). Resolves once it is on disk, so a crash
   * during the attempt it announces still counts it; never rejects (a lost
   * count only means one more attempt).
   */
  async attempt(seq: number, attempts: number, error: string): Promise<void> {
    await this.mark(seq, { attempts, error });
  }

  /** Keeps an event aside as a dead letter (its record stays until it is replayed or discarded). */
  async dead(seq: number, attempts: number, error: string, deadAt: number): Promise<void> {
    await this.mark(seq, { attempts, error, deadAt });
  }

  private async mark(seq: number, mark: Mark): Promise<void> {
    if (!this.live.has(seq) || this.closed) return;
    const was = this.marks.get(seq);
    if (was?.deadAt !== undefined) this.deadCount--;
    if (mark.deadAt !== undefined) this.deadCount++;
    this.marks.set(seq, mark);
    await this.log.append(markFrame(seq, mark)).catch(() => undefined);
  }

  /** The last event could not be written for lack of room on the disk, and no room has been freed or found since. */
  get outOfSpace(): boolean {
    return this.noSpace;
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
    const bytes = FRAME_HEADER_BYTES + 12 + metaBytes.length + body.length;
    if (this.bytes + bytes > this.options.maxBytes) {
      await this.compactIfWorthIt(true);
      if (this.bytes + bytes > this.options.maxBytes) throw new JournalFullError(this.bytes, this.options.maxBytes);
    }
    // Where the record sits is known once it is written, before anything can compact it away.
    const placed = (offset: number): void => {
      this.live.set(seq, { offset, length: bytes });
      this.liveBytes += bytes;
    };
    try {
      await this.log.append(buffers, placed);
    } catch (err) {
      if (!isOutOfSpace(err) || this.closed) throw err;
      // Finished records may be what fills the disk: freed now, the event goes in after all.
      this.healNeeded = true;
      this.heal();
      while (this.healing) await this.healing;
      if (this.healNeeded || this.closed) {
        this.outOfRoom(true);
        throw err;
      }
      try {
        await this.log.append(buffers, placed);
      } catch (again) {
        if (isOutOfSpace(again)) this.outOfRoom(true);
        throw again;
      }
    }
    this.roomAgain();
    return seq;
  }

  /** An event was written, or finished records freed: no longer refusing (said once). */
  private roomAgain(): void {
    if (!this.noSpace) return;
    this.noSpace = false;
    this.onOutOfSpace?.(false);
  }

  /** An append found the disk full: refusing (said once per episode), and healing needed. */
  private outOfRoom(event: boolean): void {
    this.healNeeded = true;
    if (!event || this.noSpace) return;
    this.noSpace = true;
    this.onOutOfSpace?.(true);
  }

  /**
   * Frees the room of finished records while the disk is full: one attempt at
   * a time, another after it when an event finished meanwhile.
   */
  private heal(): void {
    this.healAgain = true;
    if (this.healing || this.closed) return;
    this.healing = (async () => {
      while (this.healAgain && this.healNeeded && !this.closed) {
        this.healAgain = false;
        if (await this.reclaim()) {
          this.healNeeded = false;
          this.roomAgain();
        }
      }
    })()
      .catch((err: Error) => {
        // Still full: the next completion tries again.
        this.lastError = err;
      })
      .finally(() => {
        this.healing = undefined;
      });
  }

  /**
   * Frees the room of finished records: empties the file in place when nothing
   * in it is live (no room needed), else rewrites it with the live records if
   * they fit in the room left on the disk. True once room was freed.
   */
  private async reclaim(): Promise<boolean> {
    while (this.compacting) await this.compacting;
    if (this.closed || !this.holdsFinished()) return false;
    if (this.nothingLive()) return this.log.clear(() => this.nothingLive(), this.head());
    if (!(await roomFor(dirname(this.path), this.liveBytes))) return false;
    await this.compact();
    return true;
  }

  /**
   * What an emptied or rewritten journal starts with: its stamp, and a `done`
   * record of the last seq given out, so the numbering goes on after a
   * restart (a finished event's seq is never given to a new one: a delivery
   * mark kept elsewhere, the dedupe's, names one event). Before any event
   * record, so it never finishes a live one of the same seq.
   */
  private head(): Buffer[] {
    return [...formatFrame(), ...frame(TYPE_DONE, [seqBuffer(Math.max(0, this.nextSeq - 1))])];
  }

  /** The file holds more than its head and its live records: finished records (or marks) to drop. */
  private holdsFinished(): boolean {
    return this.log.size > this.liveBytes + HEAD_BYTES;
  }

  /** Nothing in the file is wanted any more: every event in it is finished (a dead letter is still wanted). */
  private nothingLive(): boolean {
    return this.live.size === 0;
  }

  /** Marks an event finished. Not waited for: it is synced with the next batch. */
  complete(seq: number): void {
    const live = this.live.get(seq);
    if (!live || this.closed) return;
    this.live.delete(seq);
    this.liveBytes -= live.length;
    if (this.marks.get(seq)?.deadAt !== undefined) this.deadCount--;
    this.marks.delete(seq);
    this.log.append(frame(TYPE_DONE, [seqBuffer(seq)])).catch((err: unknown) => {
      // Lost with a full disk: the event is delivered again only if a crash comes first.
      if (isOutOfSpace(err)) this.outOfRoom(false);
    });
    if (this.healNeeded) this.heal();
    else void this.compactIfWorthIt(false);
    this.eraseLater();
  }

  /** A record just finished: the file is compacted `eraseAfterMs` from now unless it is before (one timer at a time). */
  private eraseLater(): void {
    if (this.eraseTimer !== undefined || this.closed) return;
    this.eraseTimer = this.clock.setTimeout(() => {
      this.eraseTimer = undefined;
      if (this.healNeeded) this.heal();
      else void this.compactIfWorthIt(true);
    }, this.options.eraseAfterMs ?? ERASE_AFTER_MS);
    // Node-RED stopping does not wait for it: what is finished is erased next time.
    (this.eraseTimer as { unref?: () => void } | undefined)?.unref?.();
  }

  /**
   * The stored body and meta of an unfinished event (for a redelivery);
   * undefined when it is finished, or its record cannot be read back (never
   * a throw: a redelivery runs on its own, with nobody to catch it).
   */
  async read(seq: number): Promise<JournalEntry | undefined> {
    if (this.closed) return undefined;
    // Where the record is, looked up once no compaction is moving it.
    const record = await this.log
      .readAt(() => {
        const live = this.live.get(seq);
        return live && { position: live.offset, length: live.length };
      })
      .catch(() => undefined);
    if (!record || record.length < FRAME_HEADER_BYTES + 12) return undefined;
    const metaLength = record.readUInt32LE(FRAME_HEADER_BYTES + 8);
    const metaEnd = FRAME_HEADER_BYTES + 12 + metaLength;
    if (metaEnd > record.length) return undefined;
    try {
      const mark = this.marks.get(seq);
      return {
        seq,
        meta: JSON.parse(record.toString('utf8', FRAME_HEADER_BYTES + 12, metaEnd)),
        body: record.subarray(metaEnd),
        attempts: mark ? mark.attempts : 1,
      };
    } catch {
      return undefined;
    }
  }

  /** Drops the finished records when journal-compaction.ts says so, or whenever there are any when `force`d (a full cap, the erase timer). */
  private compactIfWorthIt(force: boolean): Promise<void> {
    const fill = { size: this.log.size, liveBytes: this.liveBytes, nothingLive: this.nothingLive() };
    const worth = force ? this.holdsFinished() : compactionDue(fill, this.options);
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
    // Nothing to keep: emptied in place, nothing copied.
    if (this.nothingLive() && (await this.log.clear(() => this.nothingLive(), this.head()))) return;
    const moved = new Map<number, Live>();
    await this.log.rewrite(
      async (out, old) => {
        await out.write(this.head());
        for (const [seq, live] of [...this.live.entries()].sort((a, b) => a[1].offset - b[1].offset)) {
          const offset = await out.write([await old.read(live.offset, live.length)]);
          moved.set(seq, { offset, length: live.length });
          // Attempts and dead letters survive the rewrite: the last mark, right after its event.
          const mark = this.marks.get(seq);
          if (mark) await out.write(markFrame(seq, mark));
        }
      },
      // In step with the swap, before any read looks a record up: completions that
      // came in while copying are already out of `live`.
      () => {
        for (const [seq, place] of moved) if (this.live.has(seq)) this.live.set(seq, place);
      },
    );
  }

  /** Writes what is queued, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.compacting || this.healing) await (this.compacting ?? this.healing);
    this.closed = true;
    if (this.eraseTimer !== undefined) this.clock.clearTimeout(this.eraseTimer);
    this.eraseTimer = undefined;
    await this.log.close();
  }
}
