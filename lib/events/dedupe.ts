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

export interface DedupeWindowOptions {
  /** How long a key suppresses repeats, in ms. */
  ttlMs: number;
  /** Most keys held; past it the oldest is evicted. */
  maxKeys: number;
  /** Restart a key's window on every repeat (a sliding cooldown) instead of
   *  only when it is first seen. */
  refreshOnRepeat?: boolean;
}

export type Sighting =
  | { duplicate: false }
  /** `since`: when the window that suppressed this repeat started. */
  | { duplicate: true; since: number };

/** What persists across restarts: [key, window start in epoch ms]. */
export type WindowSnapshot = Array<[string, number]>;

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
  private mask = INITIAL_CAPACITY - 1;
  /** Sequence number of the oldest queued entry, and of the next one. */
  private head = 0;
  private tail = 0;
  private readonly ttlMs: number;
  private readonly maxKeys: number;
  private readonly refreshOnRepeat: boolean;
  /** Keys evicted by the size cap (not by age) since creation. */
  evictedBySize = 0;

  constructor(options: DedupeWindowOptions) {
    if (!(options.ttlMs > 0)) throw new RangeError('ttlMs must be a positive number');
    if (!Number.isInteger(options.maxKeys) || options.maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
    this.ttlMs = options.ttlMs;
    this.maxKeys = options.maxKeys;
    this.refreshOnRepeat = options.refreshOnRepeat ?? false;
  }

  get size(): number {
    return this.seen.size;
  }

  /** Records a sighting of `key` and says whether it repeats one inside the window. */
  check(key: string, now: number = Date.now()): Sighting {
    this.expire(now);
    const seq = this.seen.get(key);
    if (seq !== undefined) {
      const since = this.times[seq & this.mask];
      if (this.refreshOnRepeat) this.seen.set(key, this.push(key, now));
      return { duplicate: true, since };
    }
    if (this.seen.size >= this.maxKeys) {
      this.evictOldest();
      this.evictedBySize++;
    }
    this.seen.set(key, this.push(key, now));
    return { duplicate: false };
  }

  /** Whether `key` is held, without recording a sighting. */
  has(key: string, now: number = Date.now()): boolean {
    const seq = this.seen.get(key);
    return seq !== undefined && now - this.times[seq & this.mask] < this.ttlMs;
  }

  /** Drops every key whose window has ended. Stale entries at the head go
   *  whatever their time, so expiry stops only at a live key still inside its
   *  window, as it would in a list of the live keys alone. */
  expire(now: number = Date.now()): void {
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
      this.head++;
    }
  }

  clear(): void {
    this.seen.clear();
    this.keys = new Array(INITIAL_CAPACITY);
    this.times = new Float64Array(INITIAL_CAPACITY);
    this.mask = INITIAL_CAPACITY - 1;
    this.head = 0;
    this.tail = 0;
  }

  snapshot(now: number = Date.now()): WindowSnapshot {
    this.expire(now);
    const out: WindowSnapshot = [];
    for (let seq = this.head; seq < this.tail; seq++) {
      const slot = seq & this.mask;
      const key = this.keys[slot] as string;
      if (this.seen.get(key) === seq) out.push([key, this.times[slot]]);
    }
    return out;
  }

  /** Loads a snapshot, keeping only entries still inside the window, oldest first. */
  restore(entries: unknown, now: number = Date.now()): number {
    if (!Array.isArray(entries)) return this.seen.size;
    const valid = entries.filter(
      (e): e is [string, number] => Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'number' && now - e[1] < this.ttlMs,
    );
    valid.sort((a, b) => a[1] - b[1]);
    for (const [key, since] of valid.slice(-this.maxKeys)) {
      this.seen.delete(key);
      this.seen.set(key, this.push(key, Math.min(since, now)));
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
      this.head++;
      if (live) return;
    }
  }

  /** Appends an entry and returns its sequence number. */
  private push(key: string, time: number): number {
    if (this.tail - this.head > this.mask || this.tail >= MAX_SEQUENCE) this.rebuild();
    const seq = this.tail++;
    const slot = seq & this.mask;
    this.keys[slot] = key;
    this.times[slot] = time;
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
      for (let seq = this.head; seq < this.tail; seq++) {
        keys[seq & (capacity - 1)] = this.keys[seq & this.mask];
        times[seq & (capacity - 1)] = this.times[seq & this.mask];
      }
      this.keys = keys;
      this.times = times;
      this.mask = capacity - 1;
      return;
    }
    let capacity = INITIAL_CAPACITY;
    while (capacity < live * 2 + 1) capacity *= 2;
    const keys: Array<string | undefined> = new Array(capacity);
    const times = new Float64Array(capacity);
    let next = 0;
    for (let seq = this.head; seq < this.tail; seq++) {
      const slot = seq & this.mask;
      const key = this.keys[slot] as string;
      if (this.seen.get(key) !== seq) continue;
      keys[next] = key;
      times[next] = this.times[slot];
      this.seen.set(key, next);
      next++;
    }
    this.keys = keys;
    this.times = times;
    this.mask = capacity - 1;
    this.head = 0;
    this.tail = next;
  }
}
