/**
 * Where a tracker (tracker.ts) keeps what it holds besides its own maps: in
 * memory nothing more (the events are held by reference), on disk its journal
 * (bodies written before the 200, attempt, dead and done marks, bodies read
 * back to emit an event again). The tracker asks its keeper and never which
 * one it has: the journal's branches live here, once.
 */
import { isOutOfSpace } from '../core/append-log';
import type { Clock } from '../core/clock';
import { BusyError } from './budget';
import { Journal, type JournalEntry, type JournalProblem } from './journal';

export interface Keeper {
  /** The tracker holds each event by reference (memory): nothing is read back, dead letters count against its bytes. */
  readonly holdsEvents: boolean;
  /** Size of the journal file; 0 without one. */
  readonly bytes: number;
  readonly outOfSpace: boolean;
  onOutOfSpace: ((full: boolean) => void) | undefined;
  /** Starts writing a body as soon as it is read (disk); undefined when nothing is written before commit. */
  begin(meta: unknown, body: Buffer | undefined): Promise<number> | undefined;
  /** The id of an event being committed: the written record's, or one of its own. Throws BusyError when there is no room. */
  commit(begun: Promise<number> | undefined, meta: unknown, event: unknown): Promise<number>;
  /** The event is finished (or dropped): its record is marked done. */
  done(id: number): void;
  /** An attempt counted (or a replayed dead letter's fresh count, 0). */
  attempt(id: number, attempts: number, error: string): Promise<void>;
  dead(id: number, attempts: number, error: string, at: number): Promise<void>;
  /** The body kept for `id`, to emit it again; undefined in memory (the event is held) or when gone. */
  body(id: number): Promise<Buffer | undefined>;
  close(): Promise<void>;
}

/** Memory: ids counted here, nothing written. */
export class MemoryKeeper implements Keeper {
  readonly holdsEvents = true;
  readonly bytes = 0;
  readonly outOfSpace = false;
  onOutOfSpace: ((full: boolean) => void) | undefined;
  private nextId = 1;

  begin(): undefined {
    return undefined;
  }

  commit(): Promise<number> {
    return Promise.resolve(this.nextId++);
  }

  done(): void {}

  attempt(): Promise<void> {
    return Promise.resolve();
  }

  dead(): Promise<void> {
    return Promise.resolve();
  }

  body(): Promise<Buffer | undefined> {
    return Promise.resolve(undefined);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Disk: every event's body in the journal before the 200 (group-committed), marks beside it. */
export class JournalKeeper implements Keeper {
  readonly holdsEvents = false;
  onOutOfSpace: ((full: boolean) => void) | undefined;

  private constructor(private readonly journal: Journal) {
    journal.onOutOfSpace = (full) => this.onOutOfSpace?.(full);
  }

  /** Opens the journal at `path`: the keeper, and the entries it holds (to replay). */
  static async open(
    path: string,
    maxBytes: number,
    clock?: Clock,
  ): Promise<{ keeper: JournalKeeper; entries: JournalEntry[]; problems: JournalProblem[] }> {
    const { journal, entries, problems } = await Journal.open(path, { maxBytes, clock });
    return { keeper: new JournalKeeper(journal), entries, problems };
  }

  get bytes(): number {
    return this.journal.bytes;
  }

  get outOfSpace(): boolean {
    return this.journal.outOfSpace;
  }

  begin(meta: unknown, body: Buffer | undefined): Promise<number> | undefined {
    const appended = body ? this.journal.append(meta, body) : undefined;
    appended?.catch(() => undefined); // seen by commit, or by done on abandon
    return appended;
  }

  async commit(begun: Promise<number> | undefined, meta: unknown, event: unknown): Promise<number> {
    try {
      return await (begun ?? this.journal.append(meta, Buffer.from(JSON.stringify(event))));
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_JOURNAL_FULL') throw new BusyError('journal', (err as Error).message);
      if (isOutOfSpace(err)) throw new BusyError('journal', `no room left on the disk of the journal: ${(err as Error).message}`);
      throw err;
    }
  }

  done(id: number): void {
    this.journal.complete(id);
  }

  attempt(id: number, attempts: number, error: string): Promise<void> {
    return this.journal.attempt(id, attempts, error);
  }

  dead(id: number, attempts: number, error: string, at: number): Promise<void> {
    return this.journal.dead(id, attempts, error, at);
  }

  async body(id: number): Promise<Buffer | undefined> {
    return (await this.journal.read(id))?.body;
  }

  close(): Promise<void> {
    return this.journal.close();
  }
}
