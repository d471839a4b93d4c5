/**
 * Nothing stranded: a store whose receiver was removed while it still held
 * answered events (unfinished ones or dead letters) is kept open here, by the
 * receiver's route key, instead of being closed with its events in it. The
 * receiver deployed next on that path takes them over (a copy on another tab,
 * a flow imported again with new ids); until one is, they are listed and can
 * be handed to any running receiver (the admin API, nodes/detection-in/
 * dead-letters.ts). A store handed everything is closed and its file deleted.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DeliveryTracker } from './tracker';
import { dropTracker } from './registry';
import type { EventDelivery } from './types';

/** A removed receiver's store that still holds answered events. */
export interface StrandedStore {
  /** The removed receiver's node id (its store is still found under it: trackerOf). */
  receiver: string;
  /** The route key and the path it was on. */
  key: string;
  path: string;
  store: EventDelivery<unknown>;
  /** Where its events are: a journal file, or the Redis stream's name; undefined in memory. */
  file?: string;
  stream?: string;
  /** A store whose entries live on by themselves (a Redis stream) is closed at once and opened again, on the
   *  connection of the moment, when it is handed over (a deploy may have replaced its connection). */
  reopen?: () => Promise<EventDelivery<unknown>>;
}

/** What the operator's list shows of one. */
export interface StrandedSummary {
  receiver: string;
  path: string;
  mode: string;
  /** Unfinished events held, dead letters kept. */
  events: number;
  deadLetters: number;
  file?: string;
  stream?: string;
}

const stranded = new Map<string, StrandedStore>();

/** A Redis store's stream key; undefined for other stores. */
export function streamKeyOf(store: EventDelivery<unknown>): string | undefined {
  const key = (store as { key?: unknown }).key;
  return typeof key === 'string' ? key : undefined;
}

/** Whether a store holds answered events still: unfinished ones or dead letters. */
export function holdsAnything(store: EventDelivery<unknown>): boolean {
  return store.pending.events > 0 || store.stats.deadLetters > 0;
}

/** Beside a stranded journal: which path it was on, so it is found again after a restart. */
const SIDECAR = '.stranded.json';

/** Keeps a removed receiver's store that holds answered events, until they are handed over. */
export function strand(s: StrandedStore): void {
  stranded.set(s.receiver, s);
  if (s.file) void writeFile(s.file + SIDECAR, JSON.stringify({ receiver: s.receiver, key: s.key, path: s.path })).catch(() => undefined);
}

let scanned: Promise<void> | undefined;

/**
 * Once per process: the journals stranded before a restart (their side files in `dir`), of receivers
 * not in the deployed flows (`known` ids), opened with `open` and kept again as stranded by their path.
 */
export function findStrandedJournals(dir: string, known: Set<string>, open: (file: string) => Promise<EventDelivery<unknown>>): Promise<void> {
  scanned ??= (async () => {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith(SIDECAR))) {
      const side = JSON.parse(await readFile(join(dir, name), 'utf8').catch(() => '{}')) as { receiver?: string; key?: string; path?: string };
      const file = join(dir, name.slice(0, -SIDECAR.length));
      if (!side.receiver || !side.key || known.has(side.receiver) || stranded.has(side.receiver)) continue;
      const store = await open(file).catch(() => undefined);
      // Not opened (a later release's format, an I/O error): left as it is, never removed unread.
      if (!store) continue;
      if (holdsAnything(store)) stranded.set(side.receiver, { receiver: side.receiver, key: side.key, path: side.path ?? side.key, store, file });
      else {
        await store.close();
        await Promise.all([rm(file, { force: true }), rm(join(dir, name), { force: true })]);
      }
    }
  })();
  return scanned;
}

/** The directory a journal file is in. */
export const journalDir = (file: string): string => dirname(file);

export function strandedList(): StrandedSummary[] {
  return [...stranded.values()].map((s) => ({
    receiver: s.receiver,
    path: s.path,
    mode: s.store.mode,
    events: s.store.pending.events,
    deadLetters: s.store.stats.deadLetters,
    ...(s.file ? { file: s.file } : {}),
    ...(s.stream ? { stream: s.stream } : {}),
  }));
}

/** A removed receiver is back (its deletion undone): its store (its `journal`) is its own again, not stranded. */
export function unstrand(receiver: string, journal?: string): void {
  stranded.delete(receiver);
  if (journal) void rm(journal + SIDECAR, { force: true }).catch(() => undefined);
}

export function strandedOf(receiver: string): StrandedStore | undefined {
  return stranded.get(receiver);
}

/** The stores left on route `key` by receivers other than `receiver`. */
export function strandedOn(key: string, receiver: string): StrandedStore[] {
  return [...stranded.values()].filter((s) => s.key === key && s.receiver !== receiver);
}

/** Closes a stranded store for good: out of the registry, its journal file deleted when it holds nothing. */
async function forget(s: StrandedStore, store: EventDelivery<unknown> | undefined): Promise<void> {
  stranded.delete(s.receiver);
  dropTracker(s.receiver);
  const empty = !holdsAnything(s.store);
  await store?.close();
  if (empty && s.file) await Promise.all([rm(s.file, { force: true }), rm(s.file + SIDECAR, { force: true })]);
}

/**
 * Hands what stranded store `s` holds to `to` (a running receiver's store): its unfinished events (to be
 * emitted there as their next attempt) and its dead letters (kept as dead letters between memory and disk
 * stores; otherwise replayed through it). A Redis stream on the same path is the same backing: the
 * receiver reads it back itself, and the stranded one is only closed. Counts what was handed.
 */
export async function handOver(s: StrandedStore, to: EventDelivery<unknown>, replayDead = false): Promise<{ events: number; deadLetters: number }> {
  if (s.stream !== undefined && s.stream === streamKeyOf(to)) {
    const counts = { events: s.store.pending.events, deadLetters: s.store.stats.deadLetters };
    await forget(s, s.reopen ? undefined : s.store);
    return counts;
  }
  const from = s.reopen ? await s.reopen() : s.store;
  const keepDead = !replayDead && from instanceof DeliveryTracker && to instanceof DeliveryTracker;
  const replayed = keepDead ? 0 : await from.replay();
  // Listing them counts their next attempt: one past its last is a dead letter, handed over below.
  const records = await from.unfinished();
  const deadLetters = keepDead ? await (from as DeliveryTracker<unknown>).handDeadTo(to as DeliveryTracker<unknown>) : replayed;
  await to.adopt(records);
  for (const record of records) from.complete(record.id);
  if (!holdsAnything(from)) await forget(s, from);
  else if (s.reopen) await from.close();
  return { events: records.length, deadLetters };
}
