/**
 * What the push queue takes and reports: its options, the sender it calls,
 * and the outcomes of batches and tickets (push-queue.ts has the behaviour).
 */
import type { Clock } from '../core/clock';
import type { TransportError } from '../http';

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
  error?: TransportError;
  /** Every distinct failure. */
  errors: TransportError[];
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
  error?: TransportError;
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
  /** The wait between tries. Must resolve early when the signal aborts. Default: on `clock`. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Time for batch waits, Retry-After dates, retries and the close bound. Default: the system's. */
  clock?: Clock;
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
  lastError?: TransportError;
}

export interface CloseReport<K> {
  /** True when everything was sent (or failed on its own) within the bound. */
  drained: boolean;
  /** Items given up on at the bound. */
  unsentItems: number;
  /** Tickets settled as failed at the bound. */
  unsentTickets: K[];
}
