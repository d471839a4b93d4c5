/**
 * The dedupe window shared by several Node-RED instances through Redis: one
 * key per sighting, written with one atomic command, so two instances that
 * see the same messageId at the same moment pass it exactly once.
 *
 * - fixed window: `SET key now NX PX ttl GET`: set only if absent; the reply
 *   is the start of the window that holds the key (a repeat) or nil (first).
 * - restart on repeat: `SET key now PX ttl GET`: always set (the window
 *   restarts); the reply is the previous sighting, as in the local window.
 *
 * Checks are not awaited one by one: node-redis writes every command issued
 * in one turn of the event loop in one write, so a burst costs one round trip
 * per batch. Redis expires keys itself (no size cap here: its `maxmemory`
 * policy is the bound). Needs Redis 7.0 or later (NX with GET).
 */
import type { Sighting } from './dedupe';
import { DedupeWindow, type DedupeWindowOptions } from './dedupe';
import type { RedisConnection } from '../redis/connection';

/** A window of keys seen recently, kept locally or shared. */
export interface SeenKeys {
  /** Records a sighting of `key` at `now` and says whether it repeats one inside the window. */
  check(key: string, now: number): Promise<Sighting>;
  /** Forgets every key (a `msg.reset`). */
  clear(): Promise<void>;
}

/** The local window (lib/events/dedupe.ts) behind the same interface as the shared one. */
export class LocalSeenKeys implements SeenKeys {
  readonly window: DedupeWindow;
  constructor(options: DedupeWindowOptions) {
    this.window = new DedupeWindow(options);
  }
  check(key: string, now: number): Promise<Sighting> {
    return Promise.resolve(this.window.check(key, now));
  }
  clear(): Promise<void> {
    this.window.clear();
    return Promise.resolve();
  }
}

export interface SharedWindowOptions {
  /** Names the window: instances running the same flow share it (the node's id by default). */
  name: string;
  ttlMs: number;
  refreshOnRepeat?: boolean;
}

/** Keys removed per command when a window is cleared. */
const CLEAR_BATCH = 500;

export class RedisSeenKeys implements SeenKeys {
  private readonly base: string;

  constructor(
    private readonly connection: RedisConnection,
    private readonly options: SharedWindowOptions,
  ) {
    if (!(options.ttlMs > 0)) throw new RangeError('ttlMs must be a positive number');
    // A ':' in a name is escaped, so clearing window "a" (dedupe:a:*) cannot reach window "a:b".
    this.base = connection.key('dedupe', options.name.replace(/%/g, '%25').replace(/:/g, '%3A'), '');
  }

  /** The Redis key of a window key. */
  keyOf(key: string): string {
    return this.base + key;
  }

  async check(key: string, now: number): Promise<Sighting> {
    this.connection.assertReady();
    const expiration = { type: 'PX' as const, value: Math.max(1, Math.round(this.options.ttlMs)) };
    const reply = await this.connection.client.set(
      this.keyOf(key),
      String(now),
      this.options.refreshOnRepeat ? { expiration, GET: true } : { condition: 'NX', expiration, GET: true },
    );
    if (reply === null || reply === undefined) return { duplicate: false };
    const since = Number(reply);
    return { duplicate: true, since: Number.isFinite(since) ? since : now };
  }

  /** Removes every key of this window (for every instance that shares it). */
  async clear(): Promise<void> {
    this.connection.assertReady();
    const client = this.connection.client;
    const match = `${this.base.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let batch: string[] = [];
    for await (const keys of client.scanIterator({ MATCH: match, COUNT: CLEAR_BATCH })) {
      batch.push(...keys);
      if (batch.length >= CLEAR_BATCH) {
        await client.unlink(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await client.unlink(batch);
  }
}
