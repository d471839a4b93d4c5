/**
 * Events in flight for one receiver (memory and disk mode): taken (answered
 * 200) and not yet finished. It bounds how many may be in flight (past the
 * bound the receiver answers 503 with Retry-After), counts attempts (after
 * maxAttempts an event is a dead letter: tracker-dead.ts), and knows which
 * events to emit again, flagged: after a restart, a deploy, a failure's pause
 * or the time limit (tracker-timers.ts). A resend of an event it holds is
 * absorbed (resend.ts). What is kept besides its maps (the journal on disk)
 * is its keeper's (keeper.ts): it never asks which one it has. A receiver
 * waiting for detection-done finishes an event when one marks it; any other,
 * once emitted (downstream.ts).
 */
import { systemClock, type Clock } from '../core/clock';
import type { JournalProblem } from './journal';
import { JournalKeeper, MemoryKeeper, type Keeper } from './keeper';
import { DeadShelf, deadLetterOf, describe, replayed, replayJournal } from './tracker-dead';
import { WakeUps } from './tracker-timers';
import { takeEach } from './adopt';
import { InFlightBudget } from './budget';
import { DEFAULT_RETRY_POLICY, retryPause } from './retry';
import { DEFAULT_LIMITS } from './options';
import { messageIdOf } from './resend';
import { oldestOf } from './oldest';
import type {
  AckMode,
  DeadLetter,
  DeliveryId,
  DeliveryRecord,
  DeliveryStats,
  EventDelivery,
  FailureNotice,
  InFlight,
  RetryPolicy,
  StagedDelivery,
  TrackerOptions,
} from './types';

export { BusyError } from './budget';

/** The store was closed (its receiver is being redeployed or removed): ask its successor. */
export class DeliveryClosedError extends Error {
  readonly code = 'ERR_DELIVERY_CLOSED';
  constructor() {
    super('the receiver is being deployed or stopped: try again in a moment');
  }
}
export type { TrackerOptions } from './types';
export { ACK_MODES, type AckMode, type DeliveryId, type DeliveryRecord, type EventDelivery, type StagedDelivery } from './types';

export class DeliveryTracker<M = unknown> implements EventDelivery<M> {
  private readonly inFlight = new Map<number, InFlight<M>>();
  /** Events in flight by messageId: a resend of one is absorbed (resend.ts). */
  private readonly heldIds = new Map<string, number>();
  /** Resends absorbed since this tracker opened. */
  absorbed = 0;
  private readonly budget: InFlightBudget;
  /** Where bodies and marks are kept besides these maps: nowhere more (memory) or the journal (disk). */
  private keeper: Keeper = new MemoryKeeper();
  /** When the owner is woken to look for due events (pauses, the time limit). */
  private readonly wakeUps: WakeUps;
  /** Dead letters, oldest first. */
  private readonly dead = new DeadShelf<M>(
    () => this.keeper,
    () => ({ maxDeadLetters: this.retry.maxDeadLetters, maxBytes: this.options.maxBytes }),
  );
  private readonly counters = { redelivered: 0, failed: 0 };
  /** Closed: its dead letters are its successor's to list and act on. */
  private closed = false;
  /** Whether completion waits for a detection-done node; false: finished once emitted. */
  awaitCompletion = false;

  private get clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  private get retry(): RetryPolicy {
    return this.options.retry ?? DEFAULT_RETRY_POLICY;
  }

  private constructor(private readonly options: TrackerOptions) {
    this.budget = new InFlightBudget(options.maxEvents, options.maxBytes, () => this.inFlight.size);
    this.wakeUps = new WakeUps(this.clock, () => this.onOverdue);
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
    const maxBytes = options.journalMaxBytes ?? DEFAULT_LIMITS.journalMaxBytes;
    const { keeper, entries, problems } = await JournalKeeper.open(options.journalPath, maxBytes, tracker.clock);
    tracker.keeper = keeper;
    keeper.onOutOfSpace = (full) => tracker.onOutOfSpace?.(full);
    const replay = replayJournal<M>(entries, tracker.clock.now());
    for (const letter of replay.dead) tracker.dead.restore(letter);
    for (const id of replay.absorbed) keeper.done(id);
    tracker.absorbed += replay.absorbed.length;
    for (const { id, entry } of replay.live) {
      if (entry.messageId !== undefined) tracker.heldIds.set(entry.messageId, id);
      tracker.inFlight.set(id, entry);
      tracker.budget.add(entry.bytes);
    }
    const recovered = replay.live.map((l) => l.record);
    return { tracker, recovered, problems };
  }

  /** Indexes an event held under its messageId. */
  private index(messageId: string, id: number): void {
    this.heldIds.set(messageId, id);
    // Bounded whatever removes events from flight: past twice what is held, rebuilt from what is.
    if (this.heldIds.size > 2 * this.inFlight.size + 1024) {
      for (const [key, held] of this.heldIds) if (!this.inFlight.has(held)) this.heldIds.delete(key);
    }
  }

  /** Events in flight, and their bytes. */
  get pending(): { events: number; bytes: number } {
    return { events: this.inFlight.size, bytes: this.budget.bytes };
  }

  /** Size of the journal file (disk mode), else 0. */
  get journalBytes(): number {
    return this.keeper.bytes;
  }

  /** Disk mode: the journal's disk is full and the receiver refuses events (until room is freed or an event written). */
  get outOfSpace(): boolean {
    return this.keeper.outOfSpace;
  }

  /** Called when the journal's disk is found full (true) and when it has room again (false); set by the owner. */
  onOutOfSpace: ((full: boolean) => void) | undefined;

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
    const keeper = this.keeper;
    this.budget.check(bytes);
    const begun = keeper.begin(journalMeta, body);
    return this.budget.stage<M>(
      bytes,
      async (meta, event) => {
        const id = await keeper.commit(begun, journalMeta, event);
        const messageId = messageIdOf(meta);
        const held = messageId === undefined ? undefined : this.heldIds.get(messageId);
        if (held !== undefined && this.inFlight.has(held)) {
          // A resend of an event held unfinished: the held copy is emitted (again) and finished in its place.
          keeper.done(id);
          this.absorbed++;
          return { absorbed: held };
        }
        this.inFlight.set(id, { bytes, meta, messageId, event: keeper.holdsEvents ? event : undefined, takenAt: this.clock.now() });
        if (messageId !== undefined) this.index(messageId, id);
        return id;
      },
      () =>
        begun?.then(
          (id) => keeper.done(id),
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
    for (const { record, id } of await takeEach(this, records)) {
      const entry = this.inFlight.get(id as number);
      if (entry) {
        entry.emittedAt = 0;
        // Its attempts so far carry over: the next emission is `record.attempt`.
        if (record.attempt !== undefined && record.attempt > 1) entry.attempts = record.attempt - 1;
      }
    }
  }

  /** The event was taken but could not go out (its receiver is stopping): due for redelivery. */
  park(id: DeliveryId): void {
    const entry = this.inFlight.get(id as number);
    if (!entry) return;
    entry.emittedAt = 0;
    // The attempt listed for it did not happen.
    if (entry.attempts !== undefined && entry.attempts > 0) entry.attempts--;
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
    entry.emittedAt = this.clock.now();
    // A first emission: attempt 1 (later ones were counted when listed).
    if (entry.attempts === undefined || entry.attempts === 0) entry.attempts = 1;
    this.wakeUps.timeLimit(this.options.redeliverAfterMs ?? 0, () => this.inFlight.size > 0);
  }

  /** The flow finished the event. True if it was in flight. */
  complete(id: DeliveryId): boolean {
    if (typeof id !== 'number') return false;
    const entry = this.inFlight.get(id);
    if (!entry) return false;
    this.inFlight.delete(id);
    if (entry.messageId !== undefined && this.heldIds.get(entry.messageId) === id) this.heldIds.delete(entry.messageId);
    this.budget.remove(entry.bytes);
    this.keeper.done(id);
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
   * at or before `emittedBefore` (all of them when omitted), and every failed
   * one waiting for its pause, in the order taken. Each is its next attempt
   * (`attempt`, counted now; on disk written before it is answered, so a
   * crash during the attempt still counts it); one past maxAttempts is
   * dead-lettered instead.
   */
  async unfinished(emittedBefore = Infinity): Promise<DeliveryRecord<M>[]> {
    const due: number[] = [];
    for (const [id, entry] of this.inFlight) {
      if (entry.dueAt !== undefined || (entry.emittedAt !== undefined && entry.emittedAt <= emittedBefore)) due.push(id);
    }
    return this.listDue(due.sort((a, b) => a - b));
  }

  /**
   * Events due now: failed ones whose pause has passed, and emitted ones past
   * the time limit (redeliverAfterMs since they were emitted; that attempt
   * counts as failed). Each is its next attempt, as in `unfinished`.
   */
  async overdue(): Promise<DeliveryRecord<M>[]> {
    const limit = this.options.redeliverAfterMs ?? 0;
    const now = this.clock.now();
    this.wakeUps.lookedAt = now;
    const due: number[] = [];
    for (const [id, entry] of [...this.inFlight]) {
      if (entry.dueAt !== undefined) {
        if (entry.dueAt <= now) due.push(id);
      } else if (limit > 0 && entry.emittedAt !== undefined && entry.emittedAt <= now - limit) {
        // Not finished in time: a failed attempt, emitted again at once (the time limit was its pause).
        if (this.failed(id, entry, `not finished within ${limit / 1000} s`)) due.push(id);
      }
    }
    return this.listDue(due.sort((a, b) => a - b));
  }

  /** Counts the next attempt of each event of `ids` and reads it back, or dead-letters it past maxAttempts. */
  private async listDue(ids: number[]): Promise<DeliveryRecord<M>[]> {
    const out: DeliveryRecord<M>[] = [];
    for (const id of ids) {
      const entry = this.inFlight.get(id);
      if (!entry) continue;
      const done = entry.attempts ?? 0;
      if (done >= this.retry.maxAttempts) {
        await this.bury(id, entry, entry.lastError ?? `not finished after ${done} attempts`);
        continue;
      }
      entry.attempts = done + 1;
      entry.dueAt = undefined;
      // Not due again by time until it is emitted.
      entry.emittedAt = undefined;
      // Emitted again (any cause): a replayed dead letter too, whose count starts again at 0 with its last error kept.
      if (done > 0 || entry.lastError !== undefined) this.counters.redelivered++;
      if (this.keeper.holdsEvents) {
        out.push({ id, meta: entry.meta, event: entry.event, attempt: entry.attempts });
        continue;
      }
      // Nothing to write for a first attempt, unless a mark (a replayed dead letter's 0) says otherwise.
      if (done > 0 || entry.lastError !== undefined) await this.keeper.attempt(id, entry.attempts, entry.lastError ?? '');
      const body = await this.keeper.body(id);
      if (body && this.inFlight.has(id)) out.push({ id, meta: entry.meta, body, attempt: entry.attempts });
    }
    return out;
  }

  /** The flow said the event failed: a failed attempt; due again after its pause, or a dead letter. */
  fail(id: DeliveryId, error: string): boolean {
    if (typeof id !== 'number') return false;
    const entry = this.inFlight.get(id);
    // Only an emitted attempt can fail (twice told, or after its time limit: once).
    if (!entry || entry.emittedAt === undefined) return false;
    if (entry.attempts === undefined || entry.attempts === 0) entry.attempts = 1;
    if (this.failed(id, entry, error)) {
      const pause = retryPause(this.retry, entry.attempts);
      entry.dueAt = this.clock.now() + pause;
      entry.emittedAt = undefined;
      void this.keeper.attempt(id, entry.attempts, entry.lastError ?? '');
      this.wakeUps.pauseEnds(entry.dueAt, (looked) => {
        let next = Infinity;
        for (const e of this.inFlight.values()) if (e.dueAt !== undefined && e.dueAt > looked) next = Math.min(next, e.dueAt);
        return next;
      });
    }
    return true;
  }

  /**
   * Counts a failed attempt of an in-flight event: the owner hears of its
   * first failure; past maxAttempts it is dead-lettered (out of the bounds at
   * once, its journal record written in the background). True when it is to
   * be tried again.
   */
  private failed(id: number, entry: InFlight<M>, error: string): boolean {
    this.counters.failed++;
    entry.lastError = error;
    const attempts = entry.attempts ?? 1;
    if (attempts >= this.retry.maxAttempts) {
      this.bury(id, entry, error).catch(() => undefined);
      return false;
    }
    if (!entry.told) {
      entry.told = true;
      this.notify('failed', id, entry, error);
    }
    return true;
  }

  /** Tells the owner of a failure, with the event (memory: by reference; disk: its body, read back). */
  private notify(stage: FailureNotice<M>['stage'], id: number, entry: { meta: M; event?: unknown; attempts?: number }, error: string): void {
    if (!this.onFailure) return;
    const attempts = entry.attempts ?? 1;
    const record: DeliveryRecord<M> = { id, meta: entry.meta, attempt: attempts };
    if (this.keeper.holdsEvents) {
      record.event = entry.event;
      this.onFailure({ stage, record, attempts, error });
      return;
    }
    void this.keeper.body(id).then((body) => {
      if (body) record.body = body;
      this.onFailure?.({ stage, record, attempts, error });
    });
  }

  /** Keeps an in-flight event aside as a dead letter: out of the bounds, the oldest dropped past the cap. */
  private async bury(id: number, entry: InFlight<M>, error: string): Promise<void> {
    if (!this.inFlight.delete(id)) return;
    this.budget.remove(entry.bytes);
    const now = this.clock.now();
    const dead = deadLetterOf(id, entry, error, now);
    const kept = this.dead.keep(dead);
    this.notify('dead-letter', id, dead, error);
    // A slot is free: a status to redraw, like a finished event.
    this.onComplete?.();
    if (!kept || this.keeper.holdsEvents) return;
    await this.keeper.dead(id, dead.attempts, error, now);
    if (dead.messageId === undefined || dead.kind === undefined) Object.assign(dead, describe(dead.meta, undefined, await this.keeper.body(id)));
  }

  /** Dead letters kept, oldest first, without their bodies. */
  deadLetters(): Promise<DeadLetter[]> {
    if (this.closed) return Promise.reject(new DeliveryClosedError());
    return Promise.resolve(this.dead.list());
  }

  /** Sends dead letters through the flow again: in flight with a fresh count of attempts, due at once. */
  async replay(ids?: string[]): Promise<number> {
    if (this.closed) throw new DeliveryClosedError();
    const chosen = this.dead.take(ids);
    const now = this.clock.now();
    for (const d of chosen) {
      // Past the bounds if need be: an operator asked for it, and it held a slot before.
      this.budget.add(d.bytes);
      this.inFlight.set(d.id, replayed(d, now));
      await this.keeper.attempt(d.id, 0, d.lastError);
    }
    if (chosen.length > 0) this.onOverdue?.();
    return chosen.length;
  }

  /** Hands every dead letter over to another tracker (a removed receiver's to the one now on its path). How many. */
  async handDeadTo(to: DeliveryTracker<M>): Promise<number> {
    const letters = await this.dead.handOver();
    await to.dead.adopt(letters);
    return letters.length;
  }

  /** Drops dead letters for good. */
  discard(ids?: string[]): Promise<number> {
    if (this.closed) return Promise.reject(new DeliveryClosedError());
    const chosen = this.dead.take(ids);
    for (const d of chosen) this.keeper.done(d.id);
    if (chosen.length > 0) this.onComplete?.();
    return Promise.resolve(chosen.length);
  }

  get stats(): DeliveryStats {
    return {
      ...this.counters,
      deadLettered: this.dead.deadLettered,
      deadLettersDropped: this.dead.dropped,
      deadLetters: this.dead.size,
      ...oldestOf(this.inFlight.values(), (entry) => entry.takenAt, this.clock.now()),
    };
  }

  /** Called on an event's first failure and when it is dead-lettered; set by the owner. */
  onFailure: ((notice: FailureNotice<M>) => void) | undefined;

  /** Called after an event is finished (a status to redraw); set by the owner. */
  onComplete: (() => void) | undefined;

  /** Called when overdue events may exist; set by the owner. */
  onOverdue: (() => void) | undefined;

  async close(): Promise<void> {
    this.closed = true;
    this.wakeUps.clear();
    await this.keeper.close();
  }
}
