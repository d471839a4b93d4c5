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
 * Node-RED-free.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';

export const DEFAULT_PUSH_MAX_ITEMS = 100;
export const DEFAULT_PUSH_MAX_WAIT_MS = 1000;
export const DEFAULT_PUSH_MAX_RETRIES = 5;
export const DEFAULT_PUSH_BASE_DELAY_MS = 500;
export const DEFAULT_PUSH_MAX_DELAY_MS = 30_000;
/** Items waiting (not in flight) above which `add()` refuses, so a platform
 *  that is down cannot make memory grow without bound. */
export const DEFAULT_PUSH_MAX_QUEUED_ITEMS = 10_000;
export const DEFAULT_PUSH_CLOSE_TIMEOUT_MS = 10_000;

export type PushHeaders = Record<string, string | string[] | undefined>;

export interface PushResponse {
  statusCode: number;
  headers?: PushHeaders;
  body?: unknown;
}

export interface PushSendContext {
  /** Stable across the retries of one batch: usable as an idempotency key. */
  batchId: string;
  /** 1 for the first try. */
  attempt: number;
  /** Aborted when `close()` gives up. */
  signal: AbortSignal;
}

export type PushSend<T> = (path: string, items: T[], context: PushSendContext) => Promise<PushResponse>;

export type PushErrorReason = 'status' | 'send' | 'closed' | 'queue-full';

const PUSH_ERROR_CODES: Record<PushErrorReason, string> = {
  status: 'ERR_PUSH_STATUS',
  send: 'ERR_PUSH_SEND',
  closed: 'ERR_PUSH_CLOSED',
  'queue-full': 'ERR_PUSH_QUEUE_FULL',
};

export class PushError extends Error {
  readonly reason: PushErrorReason;
  /** ERR_PUSH_STATUS (answered non-2xx), ERR_PUSH_SEND (send threw), ERR_PUSH_CLOSED, ERR_PUSH_QUEUE_FULL. */
  readonly code: string;
  readonly path: string;
  /** Sending attempts made (0 when never sent). */
  readonly attempts: number;
  /** The last answer's status and body, for ERR_PUSH_STATUS. */
  readonly statusCode?: number;
  readonly body?: unknown;

  constructor(reason: PushErrorReason, message: string, details: { path: string; attempts: number; statusCode?: number; body?: unknown; cause?: unknown }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'PushError';
    this.reason = reason;
    this.code = PUSH_ERROR_CODES[reason];
    this.path = details.path;
    this.attempts = details.attempts;
    this.statusCode = details.statusCode;
    this.body = details.body;
  }
}

export interface TicketOutcome<K> {
  ticket: K;
  ok: boolean;
  /** Items the ticket brought. */
  items: number;
  /** Of those, how many were not pushed. */
  failedItems: number;
  /** Batches that carried its items. */
  batches: number;
  /** The first failure (undefined when ok). */
  error?: PushError;
  /** Every distinct failure. */
  errors: PushError[];
}

export interface BatchResult<T, K> {
  batchId: string;
  path: string;
  items: T[];
  /** Distinct tickets whose items this batch carried, in order of first item. */
  tickets: K[];
  ok: boolean;
  /** Sending attempts made (0 when the batch was never sent). */
  attempts: number;
  /** The last answer, when there was one. */
  statusCode?: number;
  headers?: PushHeaders;
  body?: unknown;
  error?: PushError;
  /** Tickets this batch completed (their outcome is final). */
  completed: TicketOutcome<K>[];
}

export interface RetryInfo {
  path: string;
  batchId: string;
  /** The attempt that failed. */
  attempt: number;
  delayMs: number;
  statusCode?: number;
  error?: unknown;
}

export interface PushQueueOptions<T, K> {
  send: PushSend<T>;
  /** Items per request. Default 100. */
  maxItems?: number;
  /** A batch leaves at most this long after its oldest item. Default 1000. */
  maxWaitMs?: number;
  /** Retries after the first try. Default 5. */
  maxRetries?: number;
  /** First backoff ceiling; doubles per retry. Default 500. */
  baseDelayMs?: number;
  /** Ceiling of any delay, Retry-After included. Default 30000. */
  maxDelayMs?: number;
  /** Default 10000. */
  maxQueuedItems?: number;
  /** How long `close()` waits by default. Default 10000. */
  closeTimeoutMs?: number;
  onBatchDone?: (result: BatchResult<T, K>) => void;
  onTicketDone?: (outcome: TicketOutcome<K>) => void;
  onRetry?: (info: RetryInfo) => void;
  /** Whether an error thrown by send is worth another try. Default: a
   *  boolean `retryable` property on the error when it has one, else a
   *  network-looking `code` (ECONNRESET, ETIMEDOUT, UND_ERR_SOCKET, …). */
  isRetryableError?: (err: unknown) => boolean;
  /** Injectable for tests. Must resolve early when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Clock for Retry-After HTTP dates. */
  now?: () => number;
  /** Jitter source in [0, 1). */
  random?: () => number;
}

export interface PushStats {
  /** Items waiting for a batch. */
  queued: number;
  /** Items in batches being sent (or waiting to retry). */
  inFlight: number;
  batchesInFlight: number;
  /** Items pushed successfully. */
  pushed: number;
  /** Items reported failed. */
  failed: number;
  /** send() calls made. */
  requests: number;
  retries: number;
  /** Tickets not settled yet. */
  openTickets: number;
  lastError?: PushError;
}

export interface CloseReport<K> {
  /** True when everything was sent (or failed on its own) within the bound. */
  drained: boolean;
  /** Items given up on at the bound. */
  unsentItems: number;
  /** Tickets settled as failed at the bound. */
  unsentTickets: K[];
}

interface TicketState<K> {
  ticket: K;
  items: number;
  remaining: number;
  failedItems: number;
  batches: number;
  errors: PushError[];
  settled: boolean;
  resolve: (outcome: TicketOutcome<K>) => void;
}

interface Entry<T, K> {
  item: T;
  state: TicketState<K>;
  /** Date.now() when added. */
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
  timer?: NodeJS.Timeout;
  /** The oldest pending item's wait is over. */
  due: boolean;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND',
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
]);

/** Default retry decision for an error thrown by send. */
export function isRetryablePushError(err: unknown): boolean {
  const e = err as { retryable?: unknown; code?: unknown; cause?: unknown } | undefined;
  if (e && typeof e.retryable === 'boolean') return e.retryable;
  for (let c = e, depth = 0; c && depth < 4; c = c.cause as typeof c, depth++) {
    if (typeof c.code === 'string' && NETWORK_CODES.has(c.code)) return true;
  }
  return false;
}

/** Statuses worth another try: 408, 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined;
}

function headerValue(headers: PushHeaders | undefined, name: string): string | string[] | undefined {
  if (!headers) return undefined;
  if (name in headers) return headers[name];
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

function excerpt(body: unknown, max = 300): string {
  if (body === null || body === undefined || body === '') return '';
  let text: string;
  if (typeof body === 'string') text = body;
  else if (Buffer.isBuffer(body)) text = body.toString('utf8');
  else {
    try {
      text = JSON.stringify(body) ?? String(body);
    } catch {
      text = String(body);
    }
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
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
  private readonly now: () => number;
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
  private lastError?: PushError;

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
    this.sleep = options.sleep ?? defaultSleep;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.isRetryableError = options.isRetryableError ?? isRetryablePushError;
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
      const state: TicketState<K> = {
        ticket, items: list.length, remaining: list.length, failedItems: 0, batches: 0, errors: [], settled: false, resolve,
      };
      this.openTickets++;
      if (this.closed || this.queued + list.length > this.maxQueuedItems) {
        const error = this.closed
          ? new PushError('closed', `push to ${path} refused: the push queue is closed`, { path, attempts: 0 })
          : new PushError(
              'queue-full',
              `push to ${path} refused: ${this.queued} items are already waiting and ${list.length} more would pass the limit of ${this.maxQueuedItems}`,
              { path, attempts: 0 },
            );
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
      const at = Date.now();
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
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, timeoutMs));
    });
    try {
      const winner = await Promise.race([this.flush().then(() => 'idle' as const), bound]);
      if (winner === 'idle') return { drained: true, unsentItems: 0, unsentTickets: [] };
      return this.giveUp();
    } finally {
      clearTimeout(timer);
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
    const delay = Math.max(0, bucket.pending[0].at + this.maxWaitMs - Date.now());
    bucket.timer = setTimeout(() => {
      bucket.timer = undefined;
      bucket.due = true;
      this.pump(bucket);
    }, delay);
  }

  private clearTimer(bucket: Bucket<T, K>): void {
    if (bucket.timer) clearTimeout(bucket.timer);
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

  private retryDelay(attempt: number, response?: PushResponse): number {
    if (response) {
      const asked = parseRetryAfter(headerValue(response.headers, 'retry-after'), this.now());
      if (asked !== undefined) return Math.min(asked, this.maxDelayMs);
    }
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return Math.floor(this.random() * ceiling);
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
        const delayMs = this.retryDelay(batch.attempts, threw ? undefined : response);
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
      const tries = `${batch.attempts} attempt${batch.attempts === 1 ? '' : 's'}`;
      let error: PushError;
      if (threw) {
        const why = (thrown as Error)?.message || String(thrown);
        error = new PushError('send', `push of ${items.length} item(s) to ${batch.path} failed after ${tries}: ${why}`, {
          path: batch.path, attempts: batch.attempts, cause: thrown,
        });
      } else {
        const statusCode = response?.statusCode ?? 0;
        const text = excerpt(response?.body);
        error = new PushError(
          'status',
          `push of ${items.length} item(s) to ${batch.path} failed after ${tries}: ${statusCode} (${STATUS_CODES[statusCode] ?? 'unexpected status'})${text ? `: ${text}` : ''}`,
          { path: batch.path, attempts: batch.attempts, statusCode, body: response?.body },
        );
      }
      this.finish(bucket, batch, { ok: false, response: threw ? undefined : response, error });
      return;
    }
  }

  private finish(bucket: Bucket<T, K>, batch: Batch<T, K>, outcome: { ok: boolean; response?: PushResponse; error?: PushError }): void {
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
    outcome: { ok: boolean; response?: PushResponse; error?: PushError },
  ): void {
    if (outcome.ok) this.pushed += entries.length;
    else {
      this.failed += entries.length;
      this.lastError = outcome.error;
    }
    const perTicket = new Map<TicketState<K>, number>();
    for (const entry of entries) perTicket.set(entry.state, (perTicket.get(entry.state) ?? 0) + 1);
    const completed: TicketState<K>[] = [];
    for (const [state, n] of perTicket) {
      state.remaining -= n;
      state.batches++;
      if (!outcome.ok) {
        state.failedItems += n;
        if (outcome.error && !state.errors.includes(outcome.error)) state.errors.push(outcome.error);
      }
      if (state.remaining <= 0) completed.push(state);
    }
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
      completed: completed.map((s) => this.outcomeOf(s)),
    };
    try {
      this.options.onBatchDone?.(result);
    } catch {
      // a reporting hook must not stop the queue
    }
    for (const state of completed) this.settleTicket(state);
  }

  private outcomeOf(state: TicketState<K>): TicketOutcome<K> {
    return {
      ticket: state.ticket,
      ok: state.errors.length === 0,
      items: state.items,
      failedItems: state.failedItems,
      batches: state.batches,
      error: state.errors[0],
      errors: [...state.errors],
    };
  }

  private settleTicket(state: TicketState<K>): void {
    if (state.settled) return;
    state.settled = true;
    this.openTickets--;
    const outcome = this.outcomeOf(state);
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
        const error = new PushError(
          'closed',
          `push of ${batch.entries.length} item(s) to ${batch.path} given up at close after ${batch.attempts} attempt(s)`,
          { path: batch.path, attempts: batch.attempts },
        );
        this.report(batch.id, batch.path, batch.entries, batch.attempts, { ok: false, error });
      }
      while (bucket.pending.length > 0) {
        const entries = bucket.pending.splice(0, this.maxItems);
        this.queued -= entries.length;
        unsentItems += entries.length;
        for (const e of entries) unsentTickets.add(e.state.ticket);
        const error = new PushError('closed', `push of ${entries.length} item(s) to ${bucket.path} not sent: the queue closed first`, {
          path: bucket.path, attempts: 0,
        });
        this.report(randomUUID(), bucket.path, entries, 0, { ok: false, error });
      }
      this.buckets.delete(bucket.path);
    }
    this.checkIdle();
    return { drained: false, unsentItems, unsentTickets: [...unsentTickets] };
  }
}
