/**
 * A bounded window of keys seen recently, for dropping repeated deliveries
 * (same messageId) and for per-key cooldowns (same plate at the same camera).
 *
 * One Map from key to the time its window started. Map keeps insertion order,
 * and every (re)insertion happens at "now", so the first entries are always
 * the oldest: expiry and the size cap both evict from the front. A check is
 * O(1) amortized: a hash lookup plus at most the entries that expired since.
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

export class DedupeWindow {
  private readonly seen = new Map<string, number>();
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
    const since = this.seen.get(key);
    if (since !== undefined) {
      if (this.refreshOnRepeat) {
        this.seen.delete(key);
        this.seen.set(key, now);
      }
      return { duplicate: true, since };
    }
    if (this.seen.size >= this.maxKeys) {
      const oldest = this.seen.keys().next().value as string;
      this.seen.delete(oldest);
      this.evictedBySize++;
    }
    this.seen.set(key, now);
    return { duplicate: false };
  }

  /** Whether `key` is held, without recording a sighting. */
  has(key: string, now: number = Date.now()): boolean {
    const since = this.seen.get(key);
    return since !== undefined && now - since < this.ttlMs;
  }

  /** Drops every key whose window has ended. */
  expire(now: number = Date.now()): void {
    const cutoff = now - this.ttlMs;
    for (const [key, since] of this.seen) {
      if (since > cutoff) break;
      this.seen.delete(key);
    }
  }

  clear(): void {
    this.seen.clear();
  }

  snapshot(now: number = Date.now()): WindowSnapshot {
    this.expire(now);
    return Array.from(this.seen);
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
      this.seen.set(key, Math.min(since, now));
    }
    return this.seen.size;
  }
}
