/**
 * Events in flight for one receiver: taken (answered 200) and not yet
 * finished. It decides when an event counts as safe (handed to the flow, or
 * written to the journal), bounds how many may be in flight (past the bound
 * the receiver answers 503 with Retry-After and the bridge keeps the event),
 * and knows which events to emit again, flagged as redelivered: after a
 * restart (from the journal), after a deploy, and after a time limit.
 *
 * Completion: a receiver that waits for a `detection-done` node (one is
 * downstream of it, or it is set to wait: downstream.ts) finishes an event
 * when one marks it; any other, as soon as it is emitted. Nothing here
 * imports Node-RED.
 */
import { systemClock, type Clock } from '../core/clock';
import { Journal, type JournalProblem } from './journal';
import { BusyError, InFlightBudget } from './budget';
import type { AckMode, DeadLetter, DeliveryId, DeliveryRecord, DeliveryStats, EventDelivery, FailureNotice, StagedDelivery } from './types';

export interface TrackerOptions {
  mode: AckMode;
  /** disk: the journal file. */
  journalPath?: string;
  /** disk: the journal's cap. */
  journalMaxBytes?: number;
  /** Events in flight at most (taken, not finished). */
  maxEvents: number;
  /** Bytes of events in flight at most (request body sizes). */
  maxBytes: number;
  /** Emit an event again when not finished this long after it was emitted; 0: never. */
  redeliverAfterMs?: number;
  clock?: Clock;
}

export { BusyError } from './budget';
export { ACK_MODES, type AckMode, type DeliveryId, type DeliveryRecord, type EventDelivery, type StagedDelivery } from './types';

interface InFlight<M> {
  bytes: number;
  meta: M;
  event?: unknown;
  /** When it was last emitted; undefined until it is. */
  emittedAt?: number;
}

export class DeliveryTracker<M = unknown> implements EventDelivery<M> {
  private readonly inFlight = new Map<number, InFlight<M>>();
  private readonly budget: InFlightBudget;
  private nextId = 1;
  private journal: Journal | undefined;
  private timer: unknown;
  /** Whether completion waits for a detection-done node; false: finished once emitted. */
  awaitCompletion = false;

  private constructor(private readonly options: TrackerOptions) {
    this.budget = new InFlightBudget(options.maxEvents, options.maxBytes, () => this.inFlight.size);
  }

  get mode(): AckMode {
    return this.options.mode;
  }

  /** Opens a tracker; in disk mode `recovered` are the journal's unfinished events, to emit again. */
  static async open<M>(
    options: TrackerOptions,
  ): Promise<{ tracker: DeliveryTracker<M>; recovered: DeliveryRecord<M>[]; problems: JournalProblem[] }> {
    const tracker = new DeliveryTracker<M>(options);
    if (options.mode !== 'disk') return { tracker, recovered: [], problems: [] };
    if (!options.journalPath) throw new Error('disk mode needs a journal path');
    const { journal, entries, problems } = await Journal.open(options.journalPath, { maxBytes: options.journalMaxBytes ?? 256 * 1024 * 1024 });
    tracker.journal = journal;
    const recovered: DeliveryRecord<M>[] = [];
    for (const entry of entries) {
      // Emitted before the crash or stop, as far as anyone can tell: due for redelivery.
      tracker.inFlight.set(entry.seq, { bytes: entry.body.length, meta: entry.meta as M, emittedAt: 0 });
      tracker.budget.add(entry.body.length);
      tracker.nextId = Math.max(tracker.nextId, entry.seq + 1);
      recovered.push({ id: entry.seq, meta: entry.meta as M, body: entry.body });
    }
    return { tracker, recovered, problems };
  }

  /** Events in flight, and their bytes. */
  get pending(): { events: number; bytes: number } {
    return { events: this.inFlight.size, bytes: this.budget.bytes };
  }

  /** Size of the journal file (disk mode), else 0. */
  get journalBytes(): number {
    return this.journal?.bytes ?? 0;
  }

  /** Throws BusyError when an event of `bytes` would not fit now (see InFlightBudget.check). */
  checkRoom(bytes = 0): void {
    this.budget.check(bytes);
  }

  /**
   * Starts taking an event as soon as its body is read: the bounds are checked
   * now (BusyError past one), and in disk mode the body is appended to the
   * journal while the caller parses and validates it, so the sync overlaps
   * that work. `commit` resolves with the event's id once it is safe (memory:
   * at once; disk: once its record is synced); `abandon` gives it up (a
   * refused body: its record, if written, is marked finished).
   */
  stage(journalMeta: unknown, body: Buffer | undefined): StagedDelivery<M> {
    const bytes = body?.length ?? 0;
    const journal = this.journal;
    this.budget.check(bytes);
    const appended = journal && body ? journal.append(journalMeta, body) : undefined;
    appended?.catch(() => undefined); // seen by commit or abandon
    return this.budget.stage<M>(
      bytes,
      async (meta, event) => {
        let id: number;
        try {
          if (appended) id = await appended;
          else if (journal) id = await journal.append(journalMeta, Buffer.from(JSON.stringify(event)));
          else id = this.nextId++;
        } catch (err) {
          if ((err as { code?: string }).code === 'ERR_JOURNAL_FULL') throw new BusyError('journal', (err as Error).message);
          throw err;
        }
        this.inFlight.set(id, { bytes, meta, event: journal ? undefined : event });
        return id;
      },
      () =>
        appended?.then(
          (seq) => journal?.complete(seq),
          () => undefined,
        ),
    );
  }

  /** Takes an event in one step: `stage` and `commit`. */
  async take(meta: M, body: Buffer | undefined, event: unknown): Promise<DeliveryId> {
    return this.stage(meta, body).commit(meta, event);
  }

  /** Hands over what another tracker (a previous instance, another mode) left unfinished. */
  async adopt(records: DeliveryRecord<M>[]): Promise<void> {
    for (const record of records) {
      const body = record.body;
      const id = await this.take(record.meta, body, record.event).catch(() => undefined);
      if (id === undefined) continue;
      const entry = this.inFlight.get(id as number);
      if (entry) entry.emittedAt = 0;
    }
  }

  /** The event was taken but could not go out (its receiver is stopping): due for redelivery. */
  park(id: DeliveryId): void {
    const entry = this.inFlight.get(id as number);
    if (entry) entry.emittedAt = 0;
  }

  /** The event went out on the receiver's output. */
  emitted(id: DeliveryId): void {
    if (typeof id !== 'number') return;
    const entry = this.inFlight.get(id);
    if (!entry) return;
    if (!this.awaitCompletion) {
      this.complete(id);
      return;
    }
    entry.emittedAt = (this.options.clock ?? systemClock).now();
    this.armRedelivery();
  }

  /** The flow finished the event. True if it was in flight. */
  complete(id: DeliveryId): boolean {
    if (typeof id !== 'number') return false;
    const entry = this.inFlight.get(id);
    if (!entry) return false;
    this.inFlight.delete(id);
    this.budget.remove(entry.bytes);
    this.journal?.complete(id);
    this.onComplete?.();
    return true;
  }

  finishEmitted(): number {
    let count = 0;
    for (const [id, entry] of [...this.inFlight.entries()]) {
      if (entry.emittedAt !== undefined && this.complete(id)) count++;
    }
    return count;
  }

  /**
   * Events to emit again: every one taken but not finished that was emitted
   * at or before `emittedBefore` (all of them when omitted), in the order taken.
   */
  async unfinished(emittedBefore = Infinity): Promise<DeliveryRecord<M>[]> {
    const out: DeliveryRecord<M>[] = [];
    for (const [id, entry] of [...this.inFlight.entries()].sort((a, b) => a[0] - b[0])) {
      if (entry.emittedAt === undefined || entry.emittedAt > emittedBefore) continue;
      if (this.journal) {
        const stored = await this.journal.read(id);
        if (stored) out.push({ id, meta: entry.meta, body: stored.body });
      } else out.push({ id, meta: entry.meta, event: entry.event });
    }
    return out;
  }

  /** Events whose time limit passed (redeliverAfterMs since they were emitted). */
  overdue(): Promise<DeliveryRecord<M>[]> {
    const limit = this.options.redeliverAfterMs ?? 0;
    if (limit <= 0) return Promise.resolve([]);
    return this.unfinished((this.options.clock ?? systemClock).now() - limit);
  }

  /** Called after an event is finished (a status to redraw); set by the owner. */
  onComplete: (() => void) | undefined;

  /** Called when overdue events may exist; set by the owner. */
  onOverdue: (() => void) | undefined;

  private armRedelivery(): void {
    const limit = this.options.redeliverAfterMs ?? 0;
    if (limit <= 0 || this.timer !== undefined || !this.onOverdue) return;
    const clock = this.options.clock ?? systemClock;
    this.timer = clock.setTimeout(() => {
      this.timer = undefined;
      this.onOverdue?.();
      if (this.inFlight.size > 0) this.armRedelivery();
    }, limit);
  }

  // PLACEHOLDER (redisdead branch): members of the grown interface so tsc passes; the deadletters branch replaces them.
  onFailure: ((notice: FailureNotice<M>) => void) | undefined;
  fail(_id: DeliveryId, _error: string): boolean {
    throw new Error('not implemented (placeholder)');
  }
  deadLetters(): Promise<DeadLetter[]> {
    throw new Error('not implemented (placeholder)');
  }
  replay(_ids?: string[]): Promise<number> {
    throw new Error('not implemented (placeholder)');
  }
  discard(_ids?: string[]): Promise<number> {
    throw new Error('not implemented (placeholder)');
  }
  get stats(): DeliveryStats {
    throw new Error('not implemented (placeholder)');
  }

  async close(): Promise<void> {
    if (this.timer !== undefined) (this.options.clock ?? systemClock).clearTimeout(this.timer);
    this.timer = undefined;
    await this.journal?.close();
  }
}
