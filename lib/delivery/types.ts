/**
 * What every way of keeping a receiver's events in flight shares: memory and
 * disk (DeliveryTracker, tracker.ts) and a Redis stream (RedisStreamDelivery,
 * stream.ts). A receiver holds one through `EventDelivery` and never asks
 * which it is.
 */

import type { Clock } from '../core/clock';

export type AckMode = 'memory' | 'disk' | 'redis';
export const ACK_MODES: readonly AckMode[] = ['memory', 'disk', 'redis'];

/** An event's id: the journal's sequence number, or a Redis stream entry id. */
export type DeliveryId = number | string;

/** What a message carries to be marked finished: `msg._delivery`. */
export interface DeliveryToken {
  receiver: string;
  id: DeliveryId;
}

/** What a message is rebuilt from, kept in memory or in the journal. */
export interface DeliveryRecord<M> {
  id: DeliveryId;
  meta: M;
  /** memory mode: the parsed event, by reference. */
  event?: unknown;
  /** disk and redis modes: the body as received. */
  body?: Buffer;
  /** The attempt number the next emission of it is: 1 for a new event. */
  attempt?: number;
}

/** How often an event is tried before it is kept aside, and the pauses between tries. */
export interface RetryPolicy {
  /** Emissions of an event at most (1 = never retried); past it the event is dead-lettered. */
  maxAttempts: number;
  /** Pause after the first failed attempt; each next pause is 4 times longer, up to maxPauseMs. */
  firstPauseMs: number;
  maxPauseMs: number;
  /** Dead letters kept at most per receiver; past it the oldest is dropped (and counted). */
  maxDeadLetters: number;
}

/** An event kept aside after its last attempt failed (listed without its body). */
export interface DeadLetter {
  id: string;
  messageId?: string;
  kind?: string;
  attempts: number;
  lastError: string;
  /** ms since the epoch */
  receivedAt: number;
  deadAt: number;
  bytes: number;
}

/** Told to the receiver's owner on an event's first failure, and when it is dead-lettered. */
export interface FailureNotice<M> {
  stage: 'failed' | 'dead-letter';
  record: DeliveryRecord<M>;
  attempts: number;
  error: string;
}

/** What an operator's view reads of a store of events (metrics, health). */
export interface DeliveryStats {
  /** Events emitted again (any cause) since this store opened. */
  redelivered: number;
  /** Attempts that failed (a flow said failed, or the time limit passed). */
  failed: number;
  /** Events dead-lettered since this store opened, and dead letters dropped past the cap. */
  deadLettered: number;
  deadLettersDropped: number;
  /** Dead letters kept now. */
  deadLetters: number;
  /** When the oldest event taken and not finished was received (ms since the epoch); undefined: none. */
  oldestUnfinishedAt: number | undefined;
  /** The same, leaving out events waiting out a retry pause (a healthy retry is not a stuck event). */
  oldestUnpausedAt?: number;
}

/** An event being taken: `commit` once it is accepted, or `abandon`. */
export interface StagedDelivery<M> {
  commit(meta: M, event: unknown): Promise<DeliveryId>;
  abandon(): void;
  /** Set by `commit` when the meta's messageId was held unfinished already (a resend): the event was
   *  not kept, commit answered the held copy's id, and the caller answers 200 without emitting it. */
  readonly absorbed?: boolean;
}

/** What a receiver needs of the store of its events in flight, whatever the mode. */
export interface EventDelivery<M> {
  readonly mode: AckMode;
  /** Whether completion waits for a detection-done node; false: finished once emitted. */
  awaitCompletion: boolean;
  /** Events in flight here, and their bytes. */
  readonly pending: { events: number; bytes: number };
  /** Size of the journal file (disk mode), else 0. */
  readonly journalBytes: number;
  /** Disk mode: the journal's disk is full and events are refused, until room is freed or an event written. */
  readonly outOfSpace?: boolean;
  /** Called when the journal's disk is found full (true) and when it has room again (false);
   *  set by the owner. Modes without a journal never call it. */
  onOutOfSpace?: ((full: boolean) => void) | undefined;
  /** Resends absorbed since this store opened: commits whose messageId was held unfinished already. */
  readonly absorbed: number;
  checkRoom(bytes?: number): void;
  stage(journalMeta: unknown, body: Buffer | undefined): StagedDelivery<M>;
  take(meta: M, body: Buffer | undefined, event: unknown): Promise<DeliveryId>;
  adopt(records: DeliveryRecord<M>[]): Promise<void>;
  park(id: DeliveryId): void;
  emitted(id: DeliveryId): void;
  complete(id: DeliveryId): boolean;
  /** Finishes every event emitted and not finished (the receiver no longer waits for a done node). How many. */
  finishEmitted(): number;
  unfinished(emittedBefore?: number): Promise<DeliveryRecord<M>[]>;
  overdue(): Promise<DeliveryRecord<M>[]>;
  /** Called after an event is finished (a status to redraw); set by the owner. */
  onComplete: (() => void) | undefined;
  /** Called when overdue events may exist; set by the owner. */
  onOverdue: (() => void) | undefined;
  /** Called with events held elsewhere that were read back later (redis: Redis was out of reach at
   *  the start); they are due for redelivery. Set by the owner; modes that never do so ignore it. */
  onRecovered?: ((records: DeliveryRecord<M>[]) => void) | undefined;
  /** The flow said the event failed (detection-done set to "failed"): an attempt counted; it is
   *  tried again after a pause, or dead-lettered after maxAttempts. False when not in flight here. */
  fail(id: DeliveryId, error: string): boolean;
  /** Dead letters kept for this receiver, oldest first, without their bodies. */
  deadLetters(): Promise<DeadLetter[]>;
  /** Sends dead letters through the flow again (all when `ids` is omitted): in flight again with a
   *  fresh count of attempts, due at once (onOverdue). How many. */
  replay(ids?: string[]): Promise<number>;
  /** Drops dead letters for good (all when `ids` is omitted). How many. */
  discard(ids?: string[]): Promise<number>;
  /** Called on an event's first failure and when it is dead-lettered; set by the owner. */
  onFailure: ((notice: FailureNotice<M>) => void) | undefined;
  readonly stats: DeliveryStats;
  close(): Promise<void>;
}

/** How a tracker (memory or disk: tracker.ts) is opened. */
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

/** An event a tracker holds in flight. */
export interface InFlight<M> {
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
