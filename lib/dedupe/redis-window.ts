/**
 * The dedupe window shared by several Node-RED instances through Redis: one
 * key per sighting, written with one atomic command, so two instances that
 * see the same messageId at the same moment pass it exactly once.
 *
 * - fixed window: `SET key now NX PX ttl GET`: set only if absent; the reply
 *   is the start of the window that holds the key (a repeat) or nil (first).
 * - restart on repeat: one Lua script that sets the key whatever it held (the
 *   window restarts) and replies with the previous sighting, as in the local
 *   window, keeping the mark of the message that let the key through.
 *
 * The value is the window's start in epoch ms, then, after a space, the
 * delivery mark of the message that let the key through (when it had one),
 * then, after a tab, the plate it read (when the node gave one: keys that fold
 * look-alikes). Values written before reads were kept have no tab, and read
 * as before.
 *
 * Checks are not awaited one by one: node-redis writes every command issued
 * in one turn of the event loop in one write, so a burst costs one round trip
 * per batch. Redis expires keys itself (no size cap here: its `maxmemory`
 * policy is the bound). Needs Redis 7.0 or later (NX with GET).
 */
import { boundedRead, type Sighting } from './local-window';
import type { SeenKeys } from './seen-keys';
import { luaScript, runScript, type RedisConnection } from '../redis';

/** Restart on repeat: set the key to now (keeping the first message's mark and read) and return what it held. */
const RESTART_SCRIPT = luaScript(`
local old = redis.call('GET', KEYS[1])
local value = ARGV[1]
if old then
  local at = string.find(old, ' ', 1, true)
  if at then value = value .. string.sub(old, at) end
elseif ARGV[3] ~= '' or ARGV[4] ~= '' then
  value = value .. ' ' .. ARGV[3]
  if ARGV[4] ~= '' then value = value .. '\t' .. ARGV[4] end
end
redis.call('SET', KEYS[1], value, 'PX', ARGV[2])
return old
`);

/** A sighting from a key's value in Redis (`since`, `since mark`, or `since mark<tab>read`, the mark perhaps empty). */
function sightingOf(reply: string, now: number): Sighting {
  const space = reply.indexOf(' ');
  const since = Number(space < 0 ? reply : reply.slice(0, space));
  const sighting: Sighting = { duplicate: true, since: Number.isFinite(since) ? since : now };
  if (space < 0) return sighting;
  const rest = reply.slice(space + 1);
  const tab = rest.indexOf('\t');
  const by = tab < 0 ? rest : rest.slice(0, tab);
  const read = tab < 0 ? '' : rest.slice(tab + 1);
  if (by !== '') sighting.by = by;
  if (read !== '') sighting.read = read;
  return sighting;
}

/** What a value can keep: no space or tab in a mark (it ends at them), no tab or newline in a read, both bounded. */
function keptMark(mark: string | undefined): string {
  return mark !== undefined && mark.length <= 200 && !/[ \t]/.test(mark) ? mark : '';
}
function keptRead(read: string | undefined): string {
  const bounded = boundedRead(read);
  return bounded !== undefined && !/[\t\r\n]/.test(bounded) ? bounded : '';
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
  readonly shared = true;
  /** Redis holds the keys (and expires them): not counted here. */
  readonly size = undefined;
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

  async check(key: string, now: number, mark?: string, read?: string): Promise<Sighting> {
    // A connection a deploy has just made is waited for (bounded): only an outage is "unreachable".
    // Once ready, no await: commands issued in one tick still leave in one write.
    if (!this.connection.ready) await this.connection.whenReady();
    const ttl = Math.max(1, Math.round(this.options.ttlMs));
    // a mark with a space or past 200 characters is not one detection-in makes: not kept
    const kept = keptMark(mark);
    const plate = keptRead(read);
    const value = String(now) + (kept || plate ? ` ${kept}` : '') + (plate ? `\t${plate}` : '');
    const reply = await this.connection.answer(
      this.options.refreshOnRepeat
        ? runScript<string | null>(this.connection.client, RESTART_SCRIPT, [this.keyOf(key)], [String(now), String(ttl), kept, plate])
        : this.connection.client.set(this.keyOf(key), value, {
            condition: 'NX',
            expiration: { type: 'PX', value: ttl },
            GET: true,
          }),
    );
    if (reply === null || reply === undefined) return { duplicate: false };
    return sightingOf(String(reply), now);
  }

  /** Removes every key of this window (for every instance that shares it). */
  async clear(): Promise<void> {
    await this.connection.whenReady();
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
