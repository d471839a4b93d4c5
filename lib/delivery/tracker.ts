/**
 * Events in flight for one receiver: taken (answered 200) and not yet
 * finished. It decides when an event counts as safe (handed to the flow, or
 * written to the journal), bounds how many may be in flight (past the bound
 * the receiver answers 503 with Retry-After and the bridge keeps the event),
 * and knows which events to emit again, flagged as redelivered: after a
 * restart (from the journal), after a deploy, and after a time limit. A
 * resend of an event it holds (same messageId) is absorbed (resend.ts).
 *
 * Attempts: an event's first emission is attempt 1; each later one (time
 * limit, a flow's failure after its pause, a deploy, a restart) the next.
 * After maxAttempts an event is a dead letter: out of the bounds, kept (in
 * memory here, in the journal on disk) until replayed or discarded. Nothing
 * is counted or written for an event finished at its first emission.
 *
 * Completion: a receiver that waits for a `detection-done` node (one is
 * downstream of it, or it is set to wait: downstream.ts) finishes an event
 * when one marks it; any other, as soon as it is emitted. Nothing here
 * imports Node-RED.
 */
import { isOutOfSpace } from '../core/append-log';
import { systemClock, type Clock } from '../core/clock';
import { PUBLISH_TYPE_FACE, PUBLISH_TYPE_LPR } from '../core/event-kinds';
import { Journal, type JournalProblem } from './journal';
import { takeEach } from './adopt';
import { BusyError, InFlightBudget } from './budget';
import { DEFAULT_RETRY_POLICY, retryPause } from './retry';
import { DEFAULT_LIMITS } from './options';
import { eventMessageId, messageIdOf } from './resend';
import type {
  AckMode,
  DeadLetter,
  DeliveryId,
  DeliveryRecord,
  DeliveryStats,
  EventDelivery,
  FailureNotice,
  RetryPolicy,
  StagedDelivery,
} from './types';

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
  /** Attempts at most, the pauses between them, dead letters kept (DEFAULT_RETRY_POLICY when omitted). */
  retry?: RetryPolicy;
  clock?: Clock;
}

export { BusyError } from './budget';

/** The store was closed (its receiver is being redeployed or removed): ask its successor. */
export class DeliveryClosedError extends Error {
  readonly code = 'ERR_DELIVERY_CLOSED';
  constructor() {
    super('the receiver is being deployed or stopped: try again in a moment');
  }
}
export { ACK_MODES, type AckMode, type DeliveryId, type DeliveryRecord, type EventDelivery, type StagedDelivery } from './types';

interface InFlight<M> {
  bytes: number;
  meta: M;
  event?: unknown;
  /** The event's messageId, under which it is indexed (heldIds). */
  messageId?: string;
  /** When it was last emitted; undefined until it is (and while a failed one waits for its pause). */
  emittedAt?: number;
  /** Emissions so far (counted when one is listed to go out again; the first on `emitted`). */
  attempts?: number;
  lastError?: string;
  /** A failed attempt's: when it may go out again. */
  dueAt?: number;
  /** Whether the owner has heard of a failure of it (told once, on the first). */
  told?: boolean;
  /** When it was taken (ms since the epoch): received, for the age of the oldest unfinished event. */
  takenAt?: number;
}

/** A dead letter: an event kept aside, out of the bounds, with what replays it. */
interface Dead<M> {
  id: number;
  bytes: number;
  meta: M;
  /** memory mode: the event, by reference (disk: its record stays in the journal). */
  event?: unknown;
  attempts: number;
  lastError: string;
  receivedAt: number;
  deadAt: number;
  /** The event's payload.payload.messageId and kind, for the operator's list. */
  messageId?: string;
  kind?: string;
}

/**
 * What the operator's list shows of an event: its messageId (payload.payload.messageId) and kind, from its meta
 * when the receiver put them there, else from the event itself (memory) or its body (disk: parsed only for a dead
 * letter, never on the happy path).
 */
function describe(meta: unknown, event: unknown, body?: Buffer): { messageId?: string; kind?: string } {
  const known = (meta ?? {}) as { messageId?: unknown; kind?: unknown };
  const out: { messageId?: string; kind?: string } = {};
  if (typeof known.messageId === 'string') out.messageId = known.messageId;
  if (typeof known.kind === 'string') out.kind = known.kind;
  if (out.messageId !== undefined && out.kind !== undefined) return out;
  let value = event;
  if (value === undefined && body) {
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return out;
    }
  }
  const parsed = (value ?? {}) as { publishType?: unknown; payload?: { messageId?: unknown } | null };
  const id = parsed.payload && typeof parsed.payload === 'object' ? parsed.payload.messageId : undefined;
  if (out.messageId === undefined && typeof id === 'string') out.messageId = id;
  if (out.kind === undefined && parsed.publishType === PUBLISH_TYPE_LPR) out.kind = 'lpr';
  if (out.kind === undefined && parsed.publishType === PUBLISH_TYPE_FACE) out.kind = 'face';
  return out;
}

/** When a message's meta says it was received (an ISO time), else `fallback`. */
function receivedAtOf(meta: unknown, fallback: number): number {
  const at = Date.parse(String((meta as { receivedAt?: unknown } | undefined)?.receivedAt ?? ''));
  return Number.isFinite(at) ? at : fallback;
}

export class DeliveryTracker<M = unknown> implements EventDelivery<M> {
  private readonly inFlight = new Map<number, InFlight<M>>();
  /** Events in flight by messageId: a resend of one is absorbed (resend.ts). */
  private readonly heldIds = new Map<string, number>();
  /** Resends absorbed since this tracker opened. */
  absorbed = 0;
  private readonly budget: InFlightBudget;
  private nextId = 1;
  private journal: Journal | undefined;
  private timer: unknown;
  /** A failed event's pause: the timer, and when it fires. */
  private retryTimer: unknown;
  private retryAt = Infinity;
  /** The clock reading of the last pass of overdue(): what was due by then was listed. */
  private overdueAt = -Infinity;
  /** Dead letters, oldest first (a Map keeps the order they were added in). */
  private readonly dead = new Map<number, Dead<M>>();
  private readonly counters = { redelivered: 0, failed: 0, deadLettered: 0, deadLettersDropped: 0 };
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
    const { journal, entries, problems } = await Journal.open(options.journalPath, {
      maxBytes: options.journalMaxBytes ?? DEFAULT_LIMITS.journalMaxBytes,
    });
    tracker.journal = journal;
    journal.onOutOfSpace = (full) => tracker.onOutOfSpace?.(full);
    const recovered: DeliveryRecord<M>[] = [];
    const now = tracker.clock.now();
    for (const entry of entries) {
      tracker.nextId = Math.max(tracker.nextId, entry.seq + 1);
      if (entry.deadAt !== undefined) {
        tracker.dead.set(entry.seq, {
          id: entry.seq,
          bytes: entry.body.length,
          meta: entry.meta as M,
          attempts: entry.attempts,
          lastError: entry.lastError ?? '',
          receivedAt: receivedAtOf(entry.meta, entry.deadAt),
          deadAt: entry.deadAt,
          ...describe(entry.meta, undefined, entry.body),
        });
        continue;
      }
      // The journal's meta is the request's (written before the body was parsed): the messageId is read from the body.
      const messageId = messageIdOf(entry.meta) ?? eventMessageId(entry.body);
      if (messageId !== undefined) {
        // A resend absorbed before the crash whose mark had not reached the disk: the first copy stands for it.
        if (tracker.heldIds.has(messageId)) {
          journal.complete(entry.seq);
          tracker.absorbed++;
          continue;
        }
        tracker.heldIds.set(messageId, entry.seq);
      }
      // Emitted before the crash or stop, as far as anyone can tell: due for redelivery, as its next attempt.
      tracker.inFlight.set(entry.seq, {
        bytes: entry.body.length,
        meta: entry.meta as M,
        messageId,
        emittedAt: 0,
        attempts: entry.attempts,
        ...(entry.lastError ? { lastError: entry.lastError, told: true } : {}),
        takenAt: receivedAtOf(entry.meta, now),
      });
      tracker.budget.add(entry.body.length);
      recovered.push({ id: entry.seq, meta: entry.meta as M, body: entry.body, attempt: entry.attempts + 1 });
    }
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
    return this.journal?.bytes ?? 0;
  }

  /** Disk mode: the journal's disk is full and the receiver refuses events (until room is freed or an event written). */
  get outOfSpace(): boolean {
    return this.journal?.outOfSpace ?? false;
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
          if (isOutOfSpace(err)) throw new BusyError('journal', `no room left on the disk of the journal: ${(err as Error).message}`);
          throw err;
        }
        const messageId = messageIdOf(meta);
        const held = messageId === undefined ? undefined : this.heldIds.get(messageId);
        if (held !== undefined && this.inFlight.has(held)) {
          // A resend of an event held unfinished: the held copy is emitted (again) and finished in its place.
          journal?.complete(id);
          this.absorbed++;
          return { absorbed: held };
        }
        this.inFlight.set(id, { bytes, meta, messageId, event: journal ? undefined : event, takenAt: this.clock.now() });
        if (messageId !== undefined) this.index(messageId, id);
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
    this.armRedelivery();
  }

  /** The flow finished the event. True if it was in flight. */
  complete(id: DeliveryId): boolean {
    if (typeof id !== 'number') return false;
    const entry = this.inFlight.get(id);
    if (!entry) return false;
    this.inFlight.delete(id);
    if (entry.messageId !== undefined && this.heldIds.get(entry.messageId) === id) this.heldIds.delete(entry.messageId);
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
    this.overdueAt = now;
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
      if (done > 0) this.counters.redelivered++;
      if (this.journal) {
        // Nothing to write for a first attempt, unless a mark (a replayed dead letter's 0) says otherwise.
        if (done > 0 || entry.lastError !== undefined) await this.journal.attempt(id, entry.attempts, entry.lastError ?? '');
        const stored = await this.journal.read(id);
        if (stored && this.inFlight.has(id)) out.push({ id, meta: entry.meta, body: stored.body, attempt: entry.attempts });
      } else out.push({ id, meta: entry.meta, event: entry.event, attempt: entry.attempts });
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
      void this.journal?.attempt(id, entry.attempts, entry.lastError ?? '');
      this.armRetry(entry.dueAt);
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
    if (!this.journal) {
      record.event = entry.event;
      this.onFailure({ stage, record, attempts, error });
      return;
    }
    void this.journal.read(id).then((stored) => {
      if (stored) record.body = stored.body;
      this.onFailure?.({ stage, record, attempts, error });
    });
  }

  /** Keeps an in-flight event aside as a dead letter: out of the bounds, the oldest dropped past the cap. */
  private async bury(id: number, entry: InFlight<M>, error: string): Promise<void> {
    if (!this.inFlight.delete(id)) return;
    this.budget.remove(entry.bytes);
    const now = this.clock.now();
    const dead: Dead<M> = {
      id,
      bytes: entry.bytes,
      meta: entry.meta,
      ...(entry.event !== undefined ? { event: entry.event } : {}),
      attempts: entry.attempts ?? 1,
      lastError: error,
      receivedAt: receivedAtOf(entry.meta, entry.takenAt ?? now),
      deadAt: now,
      ...describe(entry.meta, entry.event),
    };
    this.dead.set(id, dead);
    this.counters.deadLettered++;
    // In memory the dead letters hold their events: together no more than In flight's MiB, like the events in flight.
    while (
      this.dead.size > Math.max(0, this.retry.maxDeadLetters) ||
      (!this.journal && this.dead.size > 0 && this.deadBytes() > this.options.maxBytes)
    ) {
      const oldest = this.dead.keys().next().value as number;
      this.dead.delete(oldest);
      this.counters.deadLettersDropped++;
      this.journal?.complete(oldest);
    }
    this.notify('dead-letter', id, dead, error);
    // A slot is free: a status to redraw, like a finished event.
    this.onComplete?.();
    if (!this.dead.has(id) || !this.journal) return;
    await this.journal.dead(id, dead.attempts, error, now);
    if (dead.messageId === undefined || dead.kind === undefined)
      Object.assign(dead, describe(dead.meta, undefined, (await this.journal.read(id))?.body));
  }

  /** Bytes of the dead letters kept. */
  private deadBytes(): number {
    let bytes = 0;
    for (const d of this.dead.values()) bytes += d.bytes;
    return bytes;
  }

  /** Dead letters kept, oldest first, without their bodies. */
  deadLetters(): Promise<DeadLetter[]> {
    if (this.closed) return Promise.reject(new DeliveryClosedError());
    return Promise.resolve(
      [...this.dead.values()].map((d) => {
        const letter: DeadLetter = {
          id: String(d.id),
          attempts: d.attempts,
          lastError: d.lastError,
          receivedAt: d.receivedAt,
          deadAt: d.deadAt,
          bytes: d.bytes,
        };
        if (d.messageId !== undefined) letter.messageId = d.messageId;
        if (d.kind !== undefined) letter.kind = d.kind;
        return letter;
      }),
    );
  }

  /** The dead letters named by `ids` (all when omitted), oldest first. */
  private chosen(ids: string[] | undefined): Dead<M>[] {
    if (ids === undefined) return [...this.dead.values()];
    const wanted = new Set(ids.map(String));
    return [...this.dead.values()].filter((d) => wanted.has(String(d.id)));
  }

  /** Sends dead letters through the flow again: in flight with a fresh count of attempts, due at once. */
  async replay(ids?: string[]): Promise<number> {
    if (this.closed) throw new DeliveryClosedError();
    const chosen = this.chosen(ids);
    const now = this.clock.now();
    for (const d of chosen) {
      this.dead.delete(d.id);
      // Past the bounds if need be: an operator asked for it, and it held a slot before.
      this.budget.add(d.bytes);
      this.inFlight.set(d.id, {
        bytes: d.bytes,
        meta: d.meta,
        ...(d.event !== undefined ? { event: d.event } : {}),
        attempts: 0,
        lastError: d.lastError,
        dueAt: now,
        takenAt: d.receivedAt,
      });
      await this.journal?.attempt(d.id, 0, d.lastError);
    }
    if (chosen.length > 0) this.onOverdue?.();
    return chosen.length;
  }

  /** Drops dead letters for good. */
  discard(ids?: string[]): Promise<number> {
    if (this.closed) return Promise.reject(new DeliveryClosedError());
    const chosen = this.chosen(ids);
    for (const d of chosen) {
      this.dead.delete(d.id);
      this.journal?.complete(d.id);
    }
    if (chosen.length > 0) this.onComplete?.();
    return Promise.resolve(chosen.length);
  }

  get stats(): DeliveryStats {
    let oldest: number | undefined;
    for (const entry of this.inFlight.values()) {
      if (entry.takenAt !== undefined && (oldest === undefined || entry.takenAt < oldest)) oldest = entry.takenAt;
    }
    return { ...this.counters, deadLetters: this.dead.size, oldestUnfinishedAt: oldest };
  }

  /** Called on an event's first failure and when it is dead-lettered; set by the owner. */
  onFailure: ((notice: FailureNotice<M>) => void) | undefined;

  /** Called after an event is finished (a status to redraw); set by the owner. */
  onComplete: (() => void) | undefined;

  /** Called when overdue events may exist; set by the owner. */
  onOverdue: (() => void) | undefined;

  /** Wakes the owner when the earliest failed event's pause is over (`at`), and then for the next. */
  private armRetry(at: number): void {
    if (at >= this.retryAt) return;
    const clock = this.clock;
    if (this.retryTimer !== undefined) clock.clearTimeout(this.retryTimer);
    this.retryAt = at;
    this.retryTimer = clock.setTimeout(
      () => {
        this.retryTimer = undefined;
        this.retryAt = Infinity;
        const before = clock.now();
        this.onOverdue?.();
        // The next pause to wait for: every one not over when that pass looked (listed ones have none any
        // more by now or soon). Its own clock reading, not a later one: Node runs a timer on the event loop's
        // cached time, in whole ms, so it can fire a moment early by the clock, and a pause that ended between
        // the pass and a later reading would be neither listed nor waited for, its event never tried again.
        const looked = this.overdueAt >= before ? this.overdueAt : before;
        let next = Infinity;
        for (const entry of this.inFlight.values()) if (entry.dueAt !== undefined && entry.dueAt > looked) next = Math.min(next, entry.dueAt);
        if (next < Infinity) this.armRetry(next);
      },
      Math.max(0, at - clock.now()),
    );
  }

  private armRedelivery(): void {
    const limit = this.options.redeliverAfterMs ?? 0;
    if (limit <= 0 || this.timer !== undefined || !this.onOverdue) return;
    const clock = this.clock;
    this.timer = clock.setTimeout(() => {
      this.timer = undefined;
      this.onOverdue?.();
      if (this.inFlight.size > 0) this.armRedelivery();
    }, limit);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.retryTimer !== undefined) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.retryAt = Infinity;
    await this.journal?.close();
  }
}
