/**
 * What every way of keeping a receiver's events in flight shares: memory and
 * disk (DeliveryTracker, tracker.ts) and a Redis stream (RedisStreamDelivery,
 * stream.ts). A receiver holds one through `EventDelivery` and never asks
 * which it is.
 */

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
  close(): Promise<void>;
}
