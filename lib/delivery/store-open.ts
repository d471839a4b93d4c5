/**
 * Which store a receiver's session keeps its events in, opened from the
 * dialog's options, and the hand-over across a deploy: one rule whatever the
 * mode. The new store reads back what its own backing holds (a memory store
 * is its own backing and is kept; a journal is replayed from its file; a
 * Redis stream's pending entries are read back by the instance's name), and
 * adopts whatever the previous store held that it does not read back
 * (another mode, another file, another stream). The options are keyed and
 * typed as lib/config/node-options.ts states them; their units are converted
 * in options.ts, once.
 */
import type { Clock } from '../core/clock';
import { storeLimits, type SessionOptions } from './options';
import type { RedisConnection } from '../redis';
import type { JournalProblem } from './journal';
import { RedisStreamDelivery } from './stream';
import { DeliveryTracker } from './tracker';
import type { EventDelivery } from './types';

export type { SessionOptions } from './options';

/** Where a receiver's store lives: its journal file, its Redis and stream, the clock its timers run on. */
export interface StorePlace {
  journalPath: string;
  /** redis mode: the shared connection (asked only in that mode) and the stream's name. */
  redis?: () => RedisConnection | undefined;
  streamName: string;
  clock?: Clock;
}

/** A line for the log: a key of detection-in's catalogue (locales/) and its parameters. */
export interface StoreNote {
  level: 'log' | 'warn';
  key: string;
  params: Record<string, string | number>;
}

/** What opening a store found. */
export interface OpenedStore<M> {
  store: EventDelivery<M>;
  /** Events adopted from the previous store. */
  adopted: number;
  /** What to say in the log: events read back, a journal's torn or damaged records. */
  notes: StoreNote[];
}

function journalNotes(recovered: number, problems: JournalProblem[]): StoreNote[] {
  const notes: StoreNote[] = [{ level: 'log', key: 'delivery.replayed', params: { count: recovered } }];
  const torn = problems.filter((p) => p.kind === 'torn');
  if (torn.length > 0) notes.push({ level: 'warn', key: 'delivery.torn', params: { offset: torn[0].offset } });
  for (const p of problems.filter((p) => p.kind !== 'torn')) notes.push({ level: 'warn', key: 'delivery.corrupt', params: { offset: p.offset } });
  return notes;
}

/** The Redis connection a redis-mode session needs, if it has one; undefined in other modes. */
export function redisConnectionOf(options: SessionOptions, place: StorePlace): RedisConnection | undefined {
  return options.ackMode === 'redis' ? place.redis?.() : undefined;
}

/**
 * Opens the store of `options` at `place`, taking over `previous` (the store of this receiver's
 * previous instance, left open by a deploy, or undefined). Throws when it cannot be opened.
 */
export async function openStore<M>(options: SessionOptions, place: StorePlace, previous: EventDelivery<M> | undefined): Promise<OpenedStore<M>> {
  const mode = options.ackMode;
  // A memory store holds its events by reference: kept as it is, so what its flow still holds finishes there.
  if (previous && previous.mode === 'memory' && mode === 'memory') return { store: previous, adopted: 0, notes: [] };
  // The same backing (this receiver's journal file, the stream) is read back by the new store, never adopted twice.
  const handOver = previous && previous.mode !== mode ? await previous.unfinished() : [];
  if (previous) await previous.close();
  const limits = storeLimits(options);
  const common = { maxEvents: limits.maxEvents, maxBytes: limits.maxBytes, retry: limits.retry, clock: place.clock };
  let store: EventDelivery<M>;
  let notes: StoreNote[];
  if (mode === 'redis') {
    const connection = place.redis?.();
    if (!connection) throw new Error('redis mode needs a Redis configuration');
    const opened = await RedisStreamDelivery.open<M>(
      {
        ...common,
        connection,
        name: place.streamName,
        streamMaxEvents: limits.streamMaxEvents,
        streamMaxBytes: limits.streamMaxBytes,
        claimAfterMs: limits.claimAfterMs,
      },
      // Completions of what the previous instance emitted are forwarded to this one.
      previous instanceof RedisStreamDelivery ? (previous as RedisStreamDelivery<M>) : undefined,
    );
    store = opened.delivery;
    const count = opened.recovered.length;
    notes = count > 0 ? [{ level: 'log', key: 'delivery.recovered', params: { count } }] : [];
  } else {
    const opened = await DeliveryTracker.open<M>({
      ...common,
      mode,
      journalPath: place.journalPath,
      journalMaxBytes: limits.journalMaxBytes,
      redeliverAfterMs: limits.redeliverAfterMs,
    });
    store = opened.tracker;
    notes = mode === 'disk' ? journalNotes(opened.recovered.length, opened.problems) : [];
  }
  await store.adopt(handOver);
  return { store, adopted: handOver.length, notes };
}

/** Whether a store's entries outlive this process on their own (a Redis stream): closed at once when its receiver stops. */
export function ownsItsEntries(store: EventDelivery<unknown>): boolean {
  return store.mode === 'redis';
}

/** Whether what a store keeps, its dead letters among it, is lost when Node-RED restarts (memory mode). */
export function lostAtRestart(store: EventDelivery<unknown> | undefined): boolean {
  return store?.mode === 'memory';
}

/** Whether a store keeps a journal file (its size is shown, its pending events too). */
export function keepsJournal(store: EventDelivery<unknown>): boolean {
  return store.mode === 'disk';
}
