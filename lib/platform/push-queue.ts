/**
 * Batching and retry for pushes into the platform, generic over the target:
 * the queue only knows a `send(path, items)` that answers an HTTP status.
 *
 * - Items are grouped per path (one POS instance = one path). A batch leaves
 *   when it holds `maxItems` items or `maxWaitMs` after its oldest item,
 *   whichever comes first; a larger addition is split across batches.
 * - One batch per path is in flight at a time, so a path's items arrive in the
 *   order they were added; the next batch accumulates meanwhile.
 * - Network errors, 408, 429 and 5xx are retried with exponential backoff and
 *   full jitter (a `Retry-After` is honoured, capped by `maxDelayMs`); other
 *   4xx are not (401 is the client's business: it signs in again itself).
 * - Each `add()` carries an opaque ticket (a Node-RED node puts msg and done
 *   there). A ticket is settled exactly once, when every batch carrying its
 *   items has finished: ok when all succeeded, failed when any failed. Nothing
 *   is dropped silently: a failed batch is reported with its items and tickets.
 *
 * Every failure is a TransportError (service `push`, codes ERR_PUSH_STATUS,
 * ERR_PUSH_SEND, ERR_PUSH_CLOSED, ERR_PUSH_QUEUE_FULL) with the path in its
 * params. Time comes from an injectable Clock. Node-RED-free.
 */
import { randomUUID } from 'node:crypto';
import { optionDefault } from '../config';
import { systemClock, sleepOn, type Clock } from '../core/clock';
import { isRetryableError, isRetryableStatus, type TransportError } from '../http';
import { pushErrors } from './push-errors';
import { chargeTicket, openTicket, ticketOutcome, type TicketState } from './tickets';
import type { BatchResult, CloseReport, PushQueueOptions, PushResponse, PushStats, TicketOutcome } from './push-types';
import { retryDelay } from './retry';

export type {
  BatchResult,
  CloseReport,
  PushHeaders,
  PushQueueOptions,
  PushResponse,
  PushSend,
  PushSendContext,
  PushStats,
  RetryInfo,
  TicketOutcome,
} from './push-types';

/** A batch's size and wait, and the retries: platform push's options, as the option table states them (lib/config/node-options.ts). */
export const DEFAULT_PUSH_MAX_ITEMS = optionDefault('platform-push', 'batchSize');
export const DEFAULT_PUSH_MAX_WAIT_MS = optionDefault('platform-push', 'batchMs');
export const DEFAULT_PUSH_MAX_RETRIES = optionDefault('platform-push', 'maxRetries');
export const DEFAULT_PUSH_BASE_DELAY_MS = 500;
export const DEFAULT_PUSH_MAX_DELAY_MS = 30_000;
/** Items waiting (not in flight) above which `add()` refuses, so a platform
 *  that is down cannot make memory grow without bound. */
export const DEFAULT_PUSH_MAX_QUEUED_ITEMS = 10_000;
export const DEFAULT_PUSH_CLOSE_TIMEOUT_MS = 10_000;

interface Entry<T, K> {
  item: T;
  state: TicketState<K>;
  /** clock.now() when added. */
  at: number;
  /** Marked by flush()/close(): leave without waiting. */
  urgent: boolean;
}

interface Batch<T, K> {
  id: string;
  path: string;
  entries: Entry<T, K>[];
  attempts: number;
  settled: boolean;
}

interface Bucket<T, K> {
  path: string;
  pending: Entry<T, K>[];
  inFlight?: Batch<T, K>;
  timer?: unknown;
  /** The oldest pending item's wait is over. */
  due: boolean;
}

function count(value: number | undefined, fallback: number, min: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min ? Math.floor(value) : fallback;
}

/** Batches items per path and sends them with retries. T: item, K: ticket. */
export class PushQueue<T = unknown, K = unknown> {
  readonly maxItems: number;
  readonly maxWaitMs: number;
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxQueuedItems: number;
  readonly closeTimeoutMs: number;
  private readonly options: PushQueueOptions<T, K>;
  private readonly buckets = new Map<string, Bucket<T, K>>();
  private readonly abort = new AbortController();
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly isRetryableError: (err: unknown) => boolean;
  private idleWaiters: Array<() => void> = [];
  private closed = false;
  private queued = 0;
  private inFlightItems = 0;
  private batchesInFlight = 0;
  private pushed = 0;
  private failed = 0;
  private requests = 0;
  private retries = 0;
  private openTickets = 0;
  private lastError?: TransportError;

  constructor(options: PushQueueOptions<T, K>) {
    if (typeof options?.send !== 'function') throw new TypeError('PushQueue needs a send(path, items) function');
    this.options = options;
    this.maxItems = count(options.maxItems, DEFAULT_PUSH_MAX_ITEMS, 1);
    this.maxWaitMs = count(options.maxWaitMs, DEFAULT_PUSH_MAX_WAIT_MS, 0);
    this.maxRetries = count(options.maxRetries, DEFAULT_PUSH_MAX_RETRIES, 0);
    this.baseDelayMs = count(options.baseDelayMs, DEFAULT_PUSH_BASE_DELAY_MS, 0);
    this.maxDelayMs = count(options.maxDelayMs, DEFAULT_PUSH_MAX_DELAY_MS, 0);
    this.maxQueuedItems = count(options.maxQueuedItems, DEFAULT_PUSH_MAX_QUEUED_ITEMS, 1);
    this.closeTimeoutMs = count(options.closeTimeoutMs, DEFAULT_PUSH_CLOSE_TIMEOUT_MS, 0);
    const clock = options.clock ?? systemClock;
    this.clock = clock;
    this.sleep = options.sleep ?? ((ms, signal) => sleepOn(clock, ms, signal));
    this.random = options.random ?? Math.random;
    this.isRetryableError = options.isRetryableError ?? isRetryableError;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  stats(): PushStats {
    return {
      queued: this.queued,
      inFlight: this.inFlightItems,
      batchesInFlight: this.batchesInFlight,
      pushed: this.pushed,
      failed: this.failed,
      requests: this.requests,
      retries: this.retries,
      openTickets: this.openTickets,
      lastError: this.lastError,
    };
  }

  /**
   * Queues items for `path` under one ticket. Resolves (never rejects) with
   * the ticket's outcome once all its items were pushed or given up; the same
   * outcome goes to `onTicketDone`. No items: settled ok at once. After
   * close, or above `maxQueuedItems`: settled failed at once, nothing queued.
   */
  add(path: string, items: ReadonlyArray<T>, ticket: K): Promise<TicketOutcome<K>> {
    return new Promise<TicketOutcome<K>>((resolve) => {
      const list = Array.isArray(items) ? items : [];
      const state = openTicket(ticket, list.length, resolve);
      this.openTickets++;
      if (this.closed || this.queued + list.length > this.maxQueuedItems) {
        const error = this.closed ? pushErrors.refused(path) : pushErrors.queueFull(path, this.queued, list.length, this.maxQueuedItems);
        state.errors.push(error);
        state.failedItems = list.length;
        this.failed += list.length;
        this.lastError = error;
        state.remaining = 0;
        queueMicrotask(() => this.settleTicket(state));
        return;
      }
      if (list.length === 0) {
        queueMicrotask(() => this.settleTicket(state));
        return;
      }
      let bucket = this.buckets.get(path);
      if (!bucket) {
        bucket = { path, pending: [], due: false };
        this.buckets.set(path, bucket);
      }
      const at = this.clock.now();
      for (const item of list) bucket.pending.push({ item, state, at, urgent: false });
      this.queued += list.length;
      this.pump(bucket);
    });
  }

  /** Sends everything queued now, without waiting for a batch to fill or its
   *  time to pass. Resolves when nothing is queued or in flight. */
  flush(): Promise<void> {
    for (const bucket of this.buckets.values()) {
      for (const entry of bucket.pending) entry.urgent = true;
      this.pump(bucket);
    }
    return this.whenIdle();
  }

  /** Resolves when nothing is queued or in flight. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Refuses new items, flushes, and resolves when the work under way ends or
   * after `timeoutMs` (default closeTimeoutMs). At that bound, what is still
   * queued or in flight is reported failed (ERR_PUSH_CLOSED) through
   * onBatchDone / onTicketDone, and sends under way are aborted.
   */
  async close(timeoutMs: number = this.closeTimeoutMs): Promise<CloseReport<K>> {
    this.closed = true;
    let timer: unknown;
    const bound = new Promise<'timeout'>((resolve) => {
      timer = this.clock.setTimeout(() => resolve('timeout'), Math.max(0, timeoutMs));
    });
    try {
      const winner = await Promise.race([this.flush().then(() => 'idle' as const), bound]);
      if (winner === 'idle') return { drained: true, unsentItems: 0, unsentTickets: [] };
      return this.giveUp();
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  // -- internals ------------------------------------------------------------

  private isIdle(): boolean {
    return this.queued === 0 && this.batchesInFlight === 0;
  }

  private checkIdle(): void {
    if (!this.isIdle() || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private scheduleTimer(bucket: Bucket<T, K>): void {
    if (bucket.timer || bucket.due || bucket.pending.length === 0) return;
    const delay = Math.max(0, bucket.pending[0].at + this.maxWaitMs - this.clock.now());
    bucket.timer = this.clock.setTimeout(() => {
      bucket.timer = undefined;
      bucket.due = true;
      this.pump(bucket);
    }, delay);
  }

  private clearTimer(bucket: Bucket<T, K>): void {
    if (bucket.timer !== undefined) this.clock.clearTimeout(bucket.timer);
    bucket.timer = undefined;
  }

  private pump(bucket: Bucket<T, K>): void {
    if (bucket.pending.length === 0) {
      this.clearTimer(bucket);
      bucket.due = false;
      if (!bucket.inFlight) this.buckets.delete(bucket.path);
      return;
    }
    if (bucket.inFlight) {
      this.scheduleTimer(bucket);
      return;
    }
    const ready = bucket.due || bucket.pending[0].urgent || bucket.pending.length >= this.maxItems;
    if (!ready) {
      this.scheduleTimer(bucket);
      return;
    }
    const entries = bucket.pending.splice(0, this.maxItems);
    this.clearTimer(bucket);
    bucket.due = false;
    this.queued -= entries.length;
    this.inFlightItems += entries.length;
    this.batchesInFlight++;
    const batch: Batch<T, K> = { id: randomUUID(), path: bucket.path, entries, attempts: 0, settled: false };
    bucket.inFlight = batch;
    this.scheduleTimer(bucket);
    void this.run(bucket, batch);
  }

  private async run(bucket: Bucket<T, K>, batch: Batch<T, K>): Promise<void> {
    const items = batch.entries.map((e) => e.item);
    const signal = this.abort.signal;
    for (;;) {
      if (batch.settled) return;
      batch.attempts++;
      this.requests++;
      let response: PushResponse | undefined;
      let thrown: unknown;
      let threw = false;
      try {
        response = await this.options.send(batch.path, items, { batchId: batch.id, attempt: batch.attempts, signal });
      } catch (err) {
        threw = true;
        thrown = err;
      }
      if (batch.settled) return; // given up at close while sending
      if (!threw && response && response.statusCode >= 200 && response.statusCode <= 299) {
        this.finish(bucket, batch, { ok: true, response });
        return;
      }
      const status = threw ? undefined : response?.statusCode;
      const retryable = threw ? this.isRetryableError(thrown) && !signal.aborted : status !== undefined && isRetryableStatus(status);
      if (retryable && batch.attempts <= this.maxRetries) {
        const delayMs = retryDelay(this, batch.attempts, threw ? undefined : response?.headers, this.clock.now(), this.random);
        this.retries++;
        try {
          this.options.onRetry?.({ path: batch.path, batchId: batch.id, attempt: batch.attempts, delayMs, statusCode: status, error: thrown });
        } catch {
          // a reporting hook must not stop the queue
        }
        await this.sleep(delayMs, signal);
        if (signal.aborted) return; // giveUp() reports it
        continue;
      }
      const error = threw
        ? pushErrors.send(batch.path, items.length, batch.attempts, thrown, retryable)
        : pushErrors.status(batch.path, items.length, batch.attempts, response?.statusCode ?? 0, response?.body);
      this.finish(bucket, batch, { ok: false, response: threw ? undefined : response, error });
      return;
    }
  }

  private finish(bucket: Bucket<T, K>, batch: Batch<T, K>, outcome: { ok: boolean; response?: PushResponse; error?: TransportError }): void {
    if (batch.settled) return;
    batch.settled = true;
    if (bucket.inFlight === batch) bucket.inFlight = undefined;
    this.inFlightItems -= batch.entries.length;
    this.batchesInFlight--;
    this.report(batch.id, batch.path, batch.entries, batch.attempts, outcome);
    if (!this.abort.signal.aborted) this.pump(bucket);
    this.checkIdle();
  }

  /** Settles entries of one batch (or of what was never sent) and their tickets. */
  private report(
    batchId: string,
    path: string,
    entries: Entry<T, K>[],
    attempts: number,
    outcome: { ok: boolean; response?: PushResponse; error?: TransportError },
  ): void {
    if (outcome.ok) this.pushed += entries.length;
    else {
      this.failed += entries.length;
      this.lastError = outcome.error;
    }
    const perTicket = new Map<TicketState<K>, number>();
    for (const entry of entries) perTicket.set(entry.state, (perTicket.get(entry.state) ?? 0) + 1);
    const completed: TicketState<K>[] = [];
    for (const [state, n] of perTicket) if (chargeTicket(state, n, outcome.ok ? undefined : outcome.error)) completed.push(state);
    const result: BatchResult<T, K> = {
      batchId,
      path,
      items: entries.map((e) => e.item),
      tickets: [...perTicket.keys()].map((s) => s.ticket),
      ok: outcome.ok,
      attempts,
      statusCode: outcome.response?.statusCode,
      headers: outcome.response?.headers,
      body: outcome.response?.body,
      error: outcome.error,
      completed: completed.map((s) => ticketOutcome(s)),
    };
    try {
      this.options.onBatchDone?.(result);
    } catch {
      // a reporting hook must not stop the queue
    }
    for (const state of completed) this.settleTicket(state);
  }

  private settleTicket(state: TicketState<K>): void {
    if (state.settled) return;
    state.settled = true;
    this.openTickets--;
    const outcome = ticketOutcome(state);
    try {
      this.options.onTicketDone?.(outcome);
    } catch {
      // a reporting hook must not stop the queue
    }
    state.resolve(outcome);
  }

  /** At the close bound: abort sends and report everything left as failed. */
  private giveUp(): CloseReport<K> {
    this.abort.abort();
    let unsentItems = 0;
    const unsentTickets = new Set<K>();
    for (const bucket of [...this.buckets.values()]) {
      this.clearTimer(bucket);
      const batch = bucket.inFlight;
      if (batch && !batch.settled) {
        batch.settled = true;
        bucket.inFlight = undefined;
        this.inFlightItems -= batch.entries.length;
        this.batchesInFlight--;
        unsentItems += batch.entries.length;
        for (const e of batch.entries) unsentTickets.add(e.state.ticket);
        const error = pushErrors.closedInFlight(batch.path, batch.entries.length, batch.attempts);
        this.report(batch.id, batch.path, batch.entries, batch.attempts, { ok: false, error });
      }
      while (bucket.pending.length > 0) {
        const entries = bucket.pending.splice(0, this.maxItems);
        this.queued -= entries.length;
        unsentItems += entries.length;
        for (const e of entries) unsentTickets.add(e.state.ticket);
        const error = pushErrors.closedUnsent(bucket.path, entries.length);
        this.report(randomUUID(), bucket.path, entries, 0, { ok: false, error });
      }
      this.buckets.delete(bucket.path);
    }
    this.checkIdle();
    return { drained: false, unsentItems, unsentTickets: [...unsentTickets] };
  }
}
