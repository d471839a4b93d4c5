/**
 * A bounded window of keys seen recently, for dropping repeated deliveries
 * (same messageId) and for per-key cooldowns (same plate at the same camera).
 *
 * A Map from key to its entry in a queue of sightings kept in insertion
 * order, oldest first (a ring buffer of keys and window start times). Every
 * (re)insertion happens at "now", so the head of the queue is always the
 * oldest: expiry and the size cap both take from the head. A check is O(1)
 * amortized: a hash lookup plus at most the entries that expired since.
 *
 * The order is not read from the Map itself: V8 leaves a hole in a Map's
 * table for every deleted entry until the table is rebuilt, and iteration
 * starts at the first slot, so finding the oldest key by iterating a Map that
 * forgets from its front costs time in proportion to the holes: tens of
 * microseconds per check in a full window of 100,000 keys (see bench/).
 */
import { systemClock, type Clock } from '../core/clock';

export interface DedupeWindowOptions {
  /** How long a key suppresses repeats, in ms. */
  ttlMs: number;
  /** Most keys held; past it the oldest is evicted. */
  maxKeys: number;
  /** Restart a key's window on every repeat (a sliding cooldown) instead of
   *  only when it is first seen. */
  refreshOnRepeat?: boolean;
  /** What "now" is where a caller does not say (expiry, snapshots, restores): the node's clock. */
  clock?: Clock;
}

export type Sighting =
  | { duplicate: false }
  /** `since`: when the window that suppressed this repeat started; `by`: the delivery
   *  mark of the message that let the key through (absent when it carried none); `read`:
   *  what that message read (the plate as read, for keys that fold look-alikes), when given. */
  | { duplicate: true; since: number; by?: string; read?: string };

/**
 * One key as it persists: [key, window start in epoch ms, delivery mark of the message that passed],
 * and, when that message gave its plate as read, the mark (null without one) and the plate.
 * Entries saved before reads were kept have two or three elements, and still load.
 */
export type WindowEntry = [string, number] | [string, number, string] | [string, number, string | null, string];
/** What persists across restarts and deploys, oldest first. */
export type WindowSnapshot = WindowEntry[];

/** Longest delivery mark kept with a key (a receiver's node id and an event id are far shorter). */
const MAX_MARK_LENGTH = 200;
/** Longest plate as read kept with a key (plates are about ten characters): the window stays bounded. */
export const MAX_READ_LENGTH = 32;

/** Ring capacity to start with (a power of two). */
const INITIAL_CAPACITY = 16;
/** Sequence numbers are renumbered from 0 before they leave V8's small-integer range. */
const MAX_SEQUENCE = 2 ** 30;

export class DedupeWindow {
  /** key → sequence number of its live entry in the queue. */
  private readonly seen = new Map<string, number>();
  /** The queue: entry `seq` is at slot `seq & mask`; live entries are those the Map points at. */
  private keys: Array<string | undefined> = new Array(INITIAL_CAPACITY);
  private times = new Float64Array(INITIAL_CAPACITY);
  /** The delivery mark of the message that let each key through, beside its key. */
  private marks: Array<string | undefined> = new Array(INITIAL_CAPACITY);
  /** What that message read (its plate), where the caller gave it. */
  private reads: Array<string | undefined> = new Array(INITIAL_CAPACITY);
  private mask = INITIAL_CAPACITY - 1;
  /** Sequence number of the oldest queued entry, and of the next one. */
  private head = 0;
  private tail = 0;
  readonly ttlMs: number;
  readonly maxKeys: number;
  readonly refreshOnRepeat: boolean;
  readonly clock: Clock;
  /** Keys evicted by the size cap (not by age) since creation. */
  evictedBySize = 0;

  constructor(options: DedupeWindowOptions) {
    if (!(options.ttlMs > 0)) throw new RangeError('ttlMs must be a positive number');
    if (!Number.isInteger(options.maxKeys) || options.maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
    this.ttlMs = options.ttlMs;
    this.maxKeys = options.maxKeys;
    this.refreshOnRepeat = options.refreshOnRepeat ?? false;
    this.clock = options.clock ?? systemClock;
  }

  get size(): number {
    return this.seen.size;
  }

  /**
   * Records a sighting of `key` and says whether it repeats one inside the window.
   * `mark` names the message (its delivery): kept with a key that passes, so a
   * message emitted again can be told from another one with the same key.
   * `read` (the plate as read) is kept with it too, so a repeat can say what
   * the key let through (a look-alike merged into it).
   */
  check(key: string, now: number = this.clock.now(), mark?: string, read?: string): Sighting {
    this.expire(now);
    const seq = this.seen.get(key);
    if (seq !== undefined) {
      const slot = seq & this.mask;
      const since = this.times[slot];
      const by = this.marks[slot];
      const first = this.reads[slot];
      // a restarted window keeps the mark and the read of the message that let the key through
      if (this.refreshOnRepeat) this.seen.set(key, this.push(key, now, by, first));
      const sighting: Sighting = { duplicate: true, since };
      if (by !== undefined) sighting.by = by;
      if (first !== undefined) sighting.read = first;
      return sighting;
    }
    if (this.seen.size >= this.maxKeys) {
      this.evictOldest();
      this.evictedBySize++;
    }
    this.seen.set(key, this.push(key, now, boundedMark(mark), boundedRead(read)));
    return { duplicate: false };
  }

  /** Whether `key` is held, without recording a sighting. */
  has(key: string, now: number = this.clock.now()): boolean {
    const seq = this.seen.get(key);
    return seq !== undefined && now - this.times[seq & this.mask] < this.ttlMs;
  }

  /** Drops every key whose window has ended. Stale entries at the head go
   *  whatever their time, so expiry stops only at a live key still inside its
   *  window, as it would in a list of the live keys alone. */
  expire(now: number = this.clock.now()): void {
    const cutoff = now - this.ttlMs;
    while (this.head < this.tail) {
      const slot = this.head & this.mask;
      const inside = this.times[slot] > cutoff;
      // Without stale entries the head is live: no lookup needed to stop.
      if (inside && this.tail - this.head === this.seen.size) break;
      const key = this.keys[slot] as string;
      if (this.seen.get(key) === this.head) {
        if (inside) break;
        this.seen.delete(key);
      }
      this.keys[slot] = undefined;
      this.marks[slot] = undefined;
      this.reads[slot] = undefined;
      this.head++;
    }
  }

  clear(): void {
    this.seen.clear();
    this.keys = new Array(INITIAL_CAPACITY);
    this.times = new Float64Array(INITIAL_CAPACITY);
    this.marks = new Array(INITIAL_CAPACITY);
    this.reads = new Array(INITIAL_CAPACITY);
    this.mask = INITIAL_CAPACITY - 1;
    this.head = 0;
    this.tail = 0;
  }

  snapshot(now: number = this.clock.now()): WindowSnapshot {
    this.expire(now);
    const out: WindowSnapshot = [];
    for (let seq = this.head; seq < this.tail; seq++) {
      const slot = seq & this.mask;
      const key = this.keys[slot] as string;
      if (this.seen.get(key) !== seq) continue;
      const mark = this.marks[slot];
      const read = this.reads[slot];
      if (read !== undefined) out.push([key, this.times[slot], mark ?? null, read]);
      else out.push(mark === undefined ? [key, this.times[slot]] : [key, this.times[slot], mark]);
    }
    return out;
  }

  /** Loads a snapshot, keeping only entries still inside the window, oldest first. */
  restore(entries: unknown, now: number = this.clock.now()): number {
    if (!Array.isArray(entries)) return this.seen.size;
    const valid = entries.filter(
      (e): e is WindowEntry => Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'number' && now - e[1] < this.ttlMs,
    );
    valid.sort((a, b) => a[1] - b[1]);
    for (const [key, since, mark, read] of valid.slice(-this.maxKeys)) {
      this.seen.delete(key);
      this.seen.set(key, this.push(key, Math.min(since, now), boundedMark(mark), boundedRead(read)));
    }
    return this.seen.size;
  }

  /** Forgets the key of the oldest live entry (and drops stale entries before it). */
  private evictOldest(): void {
    while (this.head < this.tail) {
      const slot = this.head & this.mask;
      const key = this.keys[slot] as string;
      // Without stale entries the head is live: no lookup needed.
      const live = this.tail - this.head === this.seen.size || this.seen.get(key) === this.head;
      if (live) this.seen.delete(key);
      this.keys[slot] = undefined;
      this.marks[slot] = undefined;
      this.reads[slot] = undefined;
      this.head++;
      if (live) return;
    }
  }

  /** Appends an entry and returns its sequence number. */
  private push(key: string, time: number, mark: string | undefined, read: string | undefined): number {
    if (this.tail - this.head > this.mask || this.tail >= MAX_SEQUENCE) this.rebuild();
    const seq = this.tail++;
    const slot = seq & this.mask;
    this.keys[slot] = key;
    this.times[slot] = time;
    this.marks[slot] = mark;
    this.reads[slot] = read;
    return seq;
  }

  /**
   * Makes room in a full queue. Without stale entries (left behind by a
   * refresh or a restore of a held key) and with small sequence numbers, the
   * ring doubles and entries keep their numbers; otherwise the live entries
   * are renumbered from 0 into a ring of twice their count.
   */
  private rebuild(): void {
    const length = this.tail - this.head;
    const live = this.seen.size;
    if (length === live && this.tail < MAX_SEQUENCE) {
      const capacity = (this.mask + 1) * 2;
      const keys: Array<string | undefined> = new Array(capacity);
      const times = new Float64Array(capacity);
      const marks: Array<string | undefined> = new Array(capacity);
      const reads: Array<string | undefined> = new Array(capacity);
      for (let seq = this.head; seq < this.tail; seq++) {
        keys[seq & (capacity - 1)] = this.keys[seq & this.mask];
        times[seq & (capacity - 1)] = this.times[seq & this.mask];
        marks[seq & (capacity - 1)] = this.marks[seq & this.mask];
        reads[seq & (capacity - 1)] = this.reads[seq & this.mask];
      }
      this.keys = keys;
      this.times = times;
      this.marks = marks;
      this.reads = reads;
      this.mask = capacity - 1;
      return;
    }
    let capacity = INITIAL_CAPACITY;
    while (capacity < live * 2 + 1) capacity *= 2;
    const keys: Array<string | undefined> = new Array(capacity);
    const times = new Float64Array(capacity);
    const marks: Array<string | undefined> = new Array(capacity);
    const reads: Array<string | undefined> = new Array(capacity);
    let next = 0;
    for (let seq = this.head; seq < this.tail; seq++) {
      const slot = seq & this.mask;
      const key = this.keys[slot] as string;
      if (this.seen.get(key) !== seq) continue;
      keys[next] = key;
      times[next] = this.times[slot];
      marks[next] = this.marks[slot];
      reads[next] = this.reads[slot];
      this.seen.set(key, next);
      next++;
    }
    this.keys = keys;
    this.times = times;
    this.marks = marks;
    this.reads = reads;
    this.mask = capacity - 1;
    this.head = 0;
    this.tail = next;
  }
}

/** A mark as kept: a string of reasonable length, or none. */
function boundedMark(mark: unknown): string | undefined {
  return typeof mark === 'string' && mark.length > 0 && mark.length <= MAX_MARK_LENGTH ? mark : undefined;
}

/** A plate as read as kept: a string of reasonable length, or none. */
export function boundedRead(read: unknown): string | undefined {
  return typeof read === 'string' && read.length > 0 && read.length <= MAX_READ_LENGTH ? read : undefined;
}

/**
 * Whether a message goes on: a first sighting of its key does. A repeat does
 * only when it is the very message that let the key through, emitted again
 * (`redelivered`) because the flow never finished it; any other repeat,
 * redelivered or not, is dropped (a deploy or a crash must not repeat an alert).
 */
export function passes(sighting: Sighting, redelivered: boolean, mark: string | undefined): boolean {
  if (!sighting.duplicate) return true;
  return redelivered && mark !== undefined && sighting.by === mark;
}

/** The settings a window is made with; `keyDefinition` says what its keys mean (what they are read from). */
export interface KeptWindowSettings extends DedupeWindowOptions {
  keyDefinition: string;
  /** Where the window is saved ('' when it is not): a change means the store must be written afresh. */
  persistence: string;
}

interface KeptWindow {
  window: DedupeWindow;
  settings: KeptWindowSettings;
}

/**
 * Local windows by node id, for the life of the process (not of one deploy),
 * like the receivers' trackers (lib/delivery/registry.ts): a dedupe node
 * restarted by a deploy takes over the keys its previous instance held, so a
 * deploy lets no repeat through. Dropped when the node is removed.
 */
const keptWindows = new Map<string, KeptWindow>();

/** How a node's window was obtained: `carried` when keys came from its previous instance. */
export interface WindowTakeOver {
  window: DedupeWindow;
  /** Keys came from the node's previous instance in this process (its settings may have changed). */
  carried: boolean;
  /** The previous instance saved its window elsewhere (or not at all): the store must be written afresh. */
  persistenceChanged: boolean;
}

/**
 * The window for node `nodeId`: its previous instance's window when the settings
 * are the same; its keys in a window of the new size and time when only those
 * changed (keys outside the new window are dropped, the newest kept); an empty
 * window when there was none or its keys meant something else (another key).
 */
export function takeOverWindow(nodeId: string, settings: KeptWindowSettings): WindowTakeOver {
  const kept = keptWindows.get(nodeId);
  keptWindows.delete(nodeId);
  const fresh = (): DedupeWindow =>
    new DedupeWindow({ ttlMs: settings.ttlMs, maxKeys: settings.maxKeys, refreshOnRepeat: settings.refreshOnRepeat, clock: settings.clock });
  if (!kept || kept.settings.keyDefinition !== settings.keyDefinition) return { window: fresh(), carried: false, persistenceChanged: false };
  const persistenceChanged = kept.settings.persistence !== settings.persistence;
  const old = kept.window;
  if (
    old.ttlMs === settings.ttlMs &&
    old.maxKeys === settings.maxKeys &&
    old.refreshOnRepeat === (settings.refreshOnRepeat ?? false) &&
    old.clock === (settings.clock ?? systemClock)
  )
    return { window: old, carried: true, persistenceChanged };
  const window = fresh();
  window.restore(old.snapshot());
  return { window, carried: true, persistenceChanged };
}

/** Keeps a stopped node's window for its next instance. */
export function keepWindow(nodeId: string, window: DedupeWindow, settings: KeptWindowSettings): void {
  keptWindows.set(nodeId, { window, settings });
}

/** Forgets the window of a removed node. */
export function dropWindow(nodeId: string): void {
  keptWindows.delete(nodeId);
}
