/**
 * What one receiver's Redis stream holds in this process, shared by the
 * parts of RedisStreamDelivery (stream.ts): the entries held here, their
 * budget, the keys, and the steps every part needs (hold an entry read back,
 * let one go, dead-letter one, keep one ours, the timer of the next pass).
 * Taking and finishing are stream-take.ts, claiming and recovering
 * stream-claim.ts; the class a receiver uses is stream.ts.
 */
import { systemClock, type Clock } from '../core/clock';
import { runScript, type RedisConnection } from '../redis';
import { InFlightBudget } from './budget';
import { DEAD, KEEP } from './stream-dead-letters';
import { DEFAULT_RETRY_POLICY } from './retry';
import { type DeliveryRecord, type DeliveryStats, type EventDelivery, type FailureNotice, type RetryPolicy } from './types';

export interface StreamDeliveryOptions {
  connection: RedisConnection;
  /** Names the stream: every instance serving this path shares it. */
  name: string;
  /** Events held by this instance at most (taken here or claimed, not finished). */
  maxEvents: number;
  /** Bytes of events held by this instance at most. */
  maxBytes: number;
  /** Entries in the stream at most (all instances). */
  streamMaxEvents: number;
  /** Bytes of bodies in the stream at most (all instances). */
  streamMaxBytes: number;
  /** Claim an entry left pending this long (by any instance, this one included). */
  claimAfterMs: number;
  /** How often to look for such entries; default a quarter of claimAfterMs, 100 ms to 5 s. */
  claimEveryMs?: number;
  /** Attempts, pauses and dead letters; DEFAULT_RETRY_POLICY when absent. */
  retry?: RetryPolicy;
  clock?: Clock;
}

/** DeliveryStats, and the entries of the stream now (every instance's events in flight), as last read. */
export interface StreamDeliveryStats extends DeliveryStats {
  /** XLEN of the stream, read with each claim pass (every claimEveryMs); undefined until read. */
  streamPending: number | undefined;
  /** The group's pending count (XPENDING's summary: entries taken by any instance, not acknowledged),
   *  as readGroupPending() last read it; absent until then. */
  groupPending?: number;
}

/** The consumer group of every receiver stream. */
export const STREAM_GROUP = 'detection-in';
/** Entries fetched per command when claiming or recovering. */
export const READ_COUNT = 50;
/** Completions kept for a retry while Redis is unreachable, at most. */
export const MAX_UNACKED = 100_000;
/** The shortest wait between two passes (a pause ending, a dead letter to write again). */
const MIN_TICK_MS = 100;
/** The last error of an attempt cut short by a restart or a deploy. */
export const INTERRUPTED = 'Node-RED stopped or the flow was redeployed during this attempt';
/** An error is kept with its event (in Redis, and listed) up to this many characters. */
export const MAX_ERROR_CHARS = 1000;

/** An entry this instance holds: taken here, claimed or recovered, not finished. */
export interface Held<M> {
  bytes: number;
  meta: M;
  /** Taken here: the parsed event, by reference. */
  event?: unknown;
  /** Claimed or recovered: the body read back from Redis. */
  body?: Buffer;
  /** When it was last emitted (0: due for redelivery); undefined: not in the flow (new, or paused). */
  emittedAt?: number;
  /** The number of its current or next emission; Redis's counter of the entry once it went out. */
  attempt: number;
  /** Emission `attempt` went out: emitting it again is the next attempt. */
  out: boolean;
  /** An attempt of it failed before (its first failure was told). */
  failedBefore: boolean;
  lastError?: string;
  /** Paused after a failure, or replayed: emitted by overdue() from then. */
  dueAt?: number;
  /** Paused: when its idle time in Redis was last reset. */
  keptAt?: number;
  /** To be dead-lettered with this error (Redis was out of reach, or read back exhausted). */
  bury?: string;
  /** Written, not confirmed on replicas or on disk (answered 503): handed out once a resend is confirmed. */
  unconfirmed?: boolean;
}

/** The state of one receiver's stream in this process, and the steps each part of it uses. */
export abstract class StreamHeld<M> {
  readonly mode = 'redis' as const;
  awaitCompletion = false;
  onComplete: (() => void) | undefined;
  onOverdue: (() => void) | undefined;
  /** Called when this instance's own pending entries were read back after open (Redis was not
   *  reachable then), with them: they are held, due for redelivery; set by the owner. */
  onRecovered: ((records: DeliveryRecord<M>[]) => void) | undefined;
  /** Called on an event's first failure and when it is dead-lettered; set by the owner. */
  onFailure: ((notice: FailureNotice<M>) => void) | undefined;
  /** Entries claimed from the pending list so far (from any instance). */
  claimed = 0;
  /** Resends absorbed since this store opened: their messageId was pending in the stream already. */
  absorbed = 0;

  protected readonly held = new Map<string, Held<M>>();
  protected readonly budget: InFlightBudget;
  protected readonly streamKey: string;
  protected readonly bytesKey: string;
  /** messageId → entry id of the entries in the stream (resend.ts). */
  protected readonly idsKey: string;
  /** Written and deleted inside each add's transaction (PREPARE → TAKE); never there between two. */
  protected readonly scratchKey: string;
  /** stream, bytes, failures, dead letters, dead-letter index: the keys of the dead-letter scripts. */
  protected readonly keys: string[];
  protected readonly policy: RetryPolicy;
  /** Held entries paused, replayed or waiting to be dead-lettered: what overdue() looks at besides claims. */
  protected readonly paused = new Set<string>();
  protected counts = { redelivered: 0, failed: 0, deadLettered: 0, deadLettersDropped: 0 };
  protected deadLetterCount = 0;
  protected streamPending: number | undefined;
  protected groupPending: number | undefined;
  /** A pass was asked for while one ran: run another after it. */
  protected passAgain = false;
  protected timerAt = Infinity;
  protected readonly clock: Clock;
  protected timer: unknown;
  protected closed = false;
  protected opened = false;
  protected claiming = false;
  /** Completions not written yet (Redis unreachable): id → body size or -1. */
  protected readonly unacked = new Map<string, number>();
  /** Once closed: the next instance of the receiver, which finishes what arrives here late. */
  protected successor: Pick<EventDelivery<M>, 'complete' | 'fail'> | undefined;
  /** Whether this instance's own pending entries have been read back. */
  protected recovered = false;

  protected constructor(protected readonly options: StreamDeliveryOptions) {
    this.streamKey = options.connection.key('stream', options.name);
    this.bytesKey = `${this.streamKey}:bytes`;
    this.idsKey = `${this.streamKey}:ids`;
    this.scratchKey = `${this.streamKey}:adding`;
    this.keys = [this.streamKey, this.bytesKey, `${this.streamKey}:failures`, `${this.streamKey}:dead`, `${this.streamKey}:dead:index`];
    this.policy = options.retry ?? DEFAULT_RETRY_POLICY;
    this.clock = options.clock ?? systemClock;
    this.budget = new InFlightBudget(options.maxEvents, options.maxBytes, () => this.held.size);
  }

  /**
   * Before an entry that went out is emitted again: the next attempt (its
   * counter in Redis set through `counters`), or, when its attempts are used
   * up, dead-lettered with `error` (false).
   */
  protected nextAttempt(key: string, entry: Held<M>, error: string, counters: string[]): boolean {
    if (!entry.out) return true;
    if (entry.attempt >= this.policy.maxAttempts) {
      entry.emittedAt = undefined;
      void this.bury(key, entry, entry.lastError ?? error);
      return false;
    }
    entry.attempt++;
    entry.out = false;
    counters.push(key, String(entry.attempt), '');
    return true;
  }

  /** Runs KEEP; entries no longer pending for this instance (another claimed them) are let go. */
  protected async keepOrLetGo(counters: string[]): Promise<void> {
    let mine: number[];
    try {
      mine = await this.keep(counters);
    } catch {
      return; // Redis out of reach: emitted anyway; its counter follows at the next failure or claim
    }
    for (let i = 0; i < mine.length; i++) {
      if (mine[i] !== 0) continue;
      const key = counters[i * 3];
      const entry = this.held.get(key);
      if (entry) this.letGo(key, entry);
    }
  }

  protected async keep(counters: string[]): Promise<number[]> {
    const connection = this.options.connection;
    connection.assertReady();
    return connection.answer(
      runScript<number[]>(connection.client, KEEP, [this.streamKey, this.keys[2]], [STREAM_GROUP, connection.instance, ...counters]),
    );
  }

  /** Forgets an entry this instance no longer holds in Redis (dead-lettered, or claimed by another instance). */
  protected letGo(key: string, entry: Held<M>): void {
    if (this.held.get(key) !== entry) return;
    this.held.delete(key);
    this.budget.remove(entry.bytes);
    this.paused.delete(key);
    this.onComplete?.();
  }

  /**
   * Dead-letters an entry held here, atomically (one script); its slot is freed
   * once that is written. Redis out of reach: marked, and tried again by the
   * next pass.
   */
  protected async bury(key: string, entry: Held<M>, error: string): Promise<void> {
    const connection = this.options.connection;
    const first = entry.bury === undefined;
    entry.bury = error;
    this.paused.add(key);
    if (!connection.ready) {
      if (first) this.schedule();
      return;
    }
    let reply: [number, number, number];
    try {
      reply = await connection.answer(
        runScript<[number, number, number]>(connection.client, DEAD, this.keys, [
          STREAM_GROUP,
          connection.instance,
          key,
          String(entry.attempt),
          error,
          String(this.clock.now()),
          String(this.policy.maxDeadLetters),
        ]),
      );
    } catch {
      if (first) this.schedule();
      return;
    }
    const [moved, dropped, kept] = reply;
    this.deadLetterCount = kept;
    this.letGo(key, entry);
    if (moved !== 1) return;
    this.counts.deadLettered++;
    this.counts.deadLettersDropped += dropped;
    this.notify('dead-letter', key, entry, entry.attempt, error);
  }

  protected notify(
    stage: FailureNotice<M>['stage'],
    id: string,
    entry: Pick<Held<M>, 'meta' | 'event' | 'body'>,
    attempts: number,
    error: string,
  ): void {
    const listener = this.onFailure;
    if (!listener) return;
    try {
      listener({ stage, record: { id, meta: entry.meta, event: entry.event, body: entry.body, attempt: attempts }, attempts, error });
    } catch {
      // the owner's listener failing must not stop delivery
    }
  }

  protected recordOf(id: string, entry: Held<M>): DeliveryRecord<M> {
    return { id, meta: entry.meta, event: entry.event, body: entry.body, attempt: entry.attempt };
  }

  /** Holds an entry read back from Redis (claimed, recovered, replayed) as due for redelivery. */
  protected hold(id: string, body: Buffer, rawMeta: Buffer | undefined, attempt: number): Held<M> {
    const previous = this.held.get(id);
    if (previous) this.budget.remove(previous.bytes);
    this.paused.delete(id);
    const entry: Held<M> = {
      bytes: body.length,
      meta: parseMeta<M>(rawMeta),
      body,
      event: previous?.event,
      emittedAt: 0,
      attempt,
      out: false,
      failedBefore: previous?.failedBefore ?? false,
    };
    this.held.set(id, entry);
    this.budget.add(body.length);
    return entry;
  }

  /** The next pass: every claimEveryMs, sooner when a pause ends or a dead letter waits to be written. */
  protected schedule(): void {
    if (this.closed) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    const every = this.options.claimEveryMs ?? Math.min(5000, Math.max(100, this.options.claimAfterMs / 4));
    const now = this.clock.now();
    let delay = every;
    // Redis out of reach: nothing can be handed out or written before it is back.
    if (this.options.connection.ready)
      for (const key of this.paused) {
        const entry = this.held.get(key);
        if (!entry) continue;
        const at = entry.bury !== undefined ? now : (entry.dueAt ?? Infinity);
        delay = Math.min(delay, Math.max(MIN_TICK_MS, at - now));
      }
    this.timerAt = now + delay;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      if (this.closed) return;
      this.onOverdue?.();
      this.schedule();
    }, delay);
  }
}

/** The body and meta of an entry's flat field list [field, value, …]. */
export function fieldsOf(fields: Buffer[] | null | undefined): { body: Buffer | undefined; meta: Buffer | undefined } {
  let body: Buffer | undefined;
  let meta: Buffer | undefined;
  if (!fields) return { body, meta };
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i].toString();
    if (name === 'body') body = fields[i + 1];
    else if (name === 'meta') meta = fields[i + 1];
  }
  return { body, meta };
}

export function parseMeta<M>(raw: Buffer | undefined): M {
  if (!raw) return {} as M;
  try {
    return JSON.parse(raw.toString()) as M;
  } catch {
    return {} as M;
  }
}

/** When an event was received (its meta's receivedAt: an ISO time, or ms), in ms since the epoch. */
export function receivedAtOf(meta: unknown): number | undefined {
  const value = (meta as { receivedAt?: unknown } | undefined)?.receivedAt;
  const at = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(at) ? at : undefined;
}

/** Whether stream entry id `id` (`ms-seq`) comes after `than`. */
export function streamIdAfter(id: string, than: string): boolean {
  const [ms, seq] = id.split('-').map(Number);
  const [thanMs, thanSeq] = than.split('-').map(Number);
  return ms > thanMs || (ms === thanMs && (seq ?? 0) > (thanSeq ?? 0));
}
