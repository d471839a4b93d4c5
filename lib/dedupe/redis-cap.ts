/**
 * The cap (cap.ts) shared by every instance through Redis: the site gets at
 * most N messages per period, not N per instance, and one digest.
 *
 * Three keys per shared name (`<prefix>dedupe-cap:<name>:…`, apart from the
 * window's keys, which a `msg.reset` clears):
 * - `period`, a hash: start, end, passed, held, notListed, urgent (urgent messages let through uncounted);
 * - `counts`, a hash: messages let through per key ('' overall);
 * - `held`, a hash: each listed key's "held first last" (at most DIGEST_MAX_KEYS).
 *
 * One Lua script counts a message (and starts a period when none runs);
 * another claims a period that has ended: it reads the period and deletes it
 * in one step, so exactly one instance gets its digest, whichever asks first
 * (the one whose timer fires first, or the first check after the end when no
 * instance had a timer). The keys expire a day after the period's end, so an
 * unclaimed period does not stay for ever when every instance is gone.
 */
import { luaScript, runScript, type RedisConnection } from '../redis';
import { DIGEST_MAX_KEYS, digestOf, fieldOf, type CapClaim, type CapDecision, type CapSettings, type MessageCap, type PeriodRecord } from './cap';

/** How long an ended period waits in Redis for an instance to claim its digest. */
const CLAIM_GRACE_MS = 24 * 3_600_000;

/**
 * An ended period, taken: returns {start, end, passed, held, notListed, held keys (flat), urgent},
 * or false when nothing was held (the period is deleted either way). Shared by both scripts.
 * `urgent` is absent in a period an older release started: 0.
 */
const TAKE = `
local function take(p)
  local out = false
  if tonumber(p[4]) > 0 then out = {p[1], p[2], p[3], p[4], p[5], redis.call('HGETALL', KEYS[3]), p[6] or '0'} end
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
  return out
end
`;

/**
 * KEYS: period, counts, held. ARGV: now, periodMs, count, counted field, held field, list bound, grace,
 * urgent ('1': passes uncounted, counted in the period's `urgent`).
 * Returns {1 pass | 0 held, end, held so far, the digest of an ended period taken or false}.
 */
const CHECK_SCRIPT = luaScript(`${TAKE}
local now = tonumber(ARGV[1])
local p = redis.call('HMGET', KEYS[1], 'start', 'end', 'passed', 'held', 'notListed', 'urgent')
local ended = false
if p[1] and now >= tonumber(p[2]) then
  ended = take(p)
  p[1] = false
end
local finish
if p[1] then
  finish = tonumber(p[2])
else
  finish = now + tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], 'start', ARGV[1], 'end', string.format('%d', finish), 'passed', 0, 'held', 0, 'notListed', 0, 'urgent', 0)
end
local ttl = math.max(1, finish - now + tonumber(ARGV[7]))
redis.call('PEXPIRE', KEYS[1], ttl)
if ARGV[8] == '1' then
  redis.call('HINCRBY', KEYS[1], 'urgent', 1)
  return {1, string.format('%d', finish), redis.call('HGET', KEYS[1], 'held'), ended}
end
local count = tonumber(redis.call('HGET', KEYS[2], ARGV[4]) or '0')
if count < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[2], ARGV[4], count + 1)
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('HINCRBY', KEYS[1], 'passed', 1)
  return {1, string.format('%d', finish), redis.call('HGET', KEYS[1], 'held'), ended}
end
local held = redis.call('HINCRBY', KEYS[1], 'held', 1)
local entry = redis.call('HGET', KEYS[3], ARGV[5])
if entry then
  local n, first = string.match(entry, '^(%d+) (%d+)')
  redis.call('HSET', KEYS[3], ARGV[5], (tonumber(n) + 1) .. ' ' .. first .. ' ' .. ARGV[1])
elseif redis.call('HLEN', KEYS[3]) < tonumber(ARGV[6]) then
  redis.call('HSET', KEYS[3], ARGV[5], '1 ' .. ARGV[1] .. ' ' .. ARGV[1])
else
  redis.call('HINCRBY', KEYS[1], 'notListed', 1)
end
redis.call('PEXPIRE', KEYS[3], ttl)
return {0, string.format('%d', finish), held, ended}
`);

/**
 * KEYS: period, counts, held. ARGV: now.
 * Returns false (no period), {1, end, held} (still running), or {0, the digest taken or false}.
 */
const CLAIM_SCRIPT = luaScript(`${TAKE}
local p = redis.call('HMGET', KEYS[1], 'start', 'end', 'passed', 'held', 'notListed', 'urgent')
if not p[1] then return false end
if tonumber(ARGV[1]) < tonumber(p[2]) then return {1, p[2], p[4]} end
return {0, take(p)}
`);

type Taken = [string, string, string, string, string, string[], string?] | null;

/** A period taken from Redis, as a record. */
function recordOf(taken: Taken): PeriodRecord | undefined {
  if (!Array.isArray(taken)) return undefined;
  const [start, end, passed, held, notListed, flat, urgent] = taken;
  const heldKeys: PeriodRecord['heldKeys'] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const [n, first, last] = String(flat[i + 1])
      .split(' ')
      .map(Number);
    heldKeys.push([String(flat[i]), n, first, last]);
  }
  return {
    start: Number(start),
    end: Number(end),
    passed: Number(passed),
    urgent: Number(urgent ?? 0) || 0,
    held: Number(held),
    notListed: Number(notListed),
    heldKeys,
  };
}

export class RedisCap implements MessageCap {
  readonly shared = true;
  private readonly keys: string[];
  /** The check script, loaded once before the first check: a burst's checks then run in the order sent (no NOSCRIPT fallback between them). */
  private loaded: Promise<void> | undefined;

  constructor(
    private readonly connection: RedisConnection,
    /** The window's shared name: instances with the same one share the cap. */
    name: string,
    readonly settings: CapSettings,
  ) {
    if (!Number.isInteger(settings.count) || settings.count < 1) throw new RangeError('count must be a positive integer');
    if (!(settings.periodMs > 0)) throw new RangeError('periodMs must be a positive number');
    const escaped = name.replace(/%/g, '%25').replace(/:/g, '%3A');
    this.keys = ['period', 'counts', 'held'].map((part) => connection.key('dedupe-cap', escaped, part));
  }

  async check(key: string | null, now: number, urgent = false): Promise<CapDecision> {
    if (!this.connection.ready) await this.connection.whenReady();
    if (!this.loaded) {
      const loading = this.connection.answer(this.connection.client.scriptLoad(CHECK_SCRIPT.source)).then(() => undefined);
      // a failed load is tried again by the next check
      this.loaded = loading.catch((err: Error) => {
        this.loaded = undefined;
        throw err;
      });
    }
    await this.loaded;
    const counted = this.settings.per === 'key' ? fieldOf(key) : '';
    const periodMs = Math.max(1, Math.round(this.settings.periodMs));
    const args = [Math.round(now), periodMs, this.settings.count, counted, fieldOf(key), DIGEST_MAX_KEYS, CLAIM_GRACE_MS, urgent ? 1 : 0].map(String);
    const [pass, end, held, taken] = await this.connection.answer(
      runScript<[number, string, string, Taken]>(this.connection.client, CHECK_SCRIPT, this.keys, args),
    );
    const decision: CapDecision = { pass: Number(pass) === 1, end: Number(end), held: Number(held) };
    const ended = recordOf(taken);
    if (ended) decision.digest = digestOf(ended, this.settings);
    return decision;
  }

  async claim(now: number): Promise<CapClaim> {
    await this.connection.whenReady();
    const reply = await this.connection.answer(
      runScript<null | [number, string, string] | [number, Taken]>(this.connection.client, CLAIM_SCRIPT, this.keys, [String(Math.round(now))]),
    );
    if (!Array.isArray(reply)) return {};
    if (Number(reply[0]) === 1) return { running: { end: Number(reply[1]), held: Number(reply[2]) } };
    const ended = recordOf(reply[1] as Taken);
    return ended ? { digest: digestOf(ended, this.settings) } : {};
  }

  /** Removes the cap's keys (tests; a node never clears a shared cap). */
  async clear(): Promise<void> {
    await this.connection.whenReady();
    await this.connection.client.unlink(this.keys);
  }
}
