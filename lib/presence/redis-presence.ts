/**
 * Presence shared by several Node-RED instances through Redis: each arrival,
 * departure and still-here is decided by a Lua script, atomically, so
 * exactly one instance sends it, whichever instances see the key.
 *
 * Three keys per shared name (`<prefix>presence:{<name>}:…`; the braces keep
 * them in one slot of a Redis Cluster):
 * - `state`: a hash, key id → the stay as JSON (`k` key, `t` kind, `l`
 *   label, `f` first seen, `s` last seen, `c` cameras, `n` sightings, `h`
 *   still-here sent);
 * - `away`: a sorted set, key id → when it departs (last seen + away time);
 *   it also orders the keys by when they were last seen, for the bound;
 * - `still`: a sorted set, key id → when it is still here (first seen + the
 *   dwell limit), until that is sent.
 *
 * SIGHT records a sighting and says what it did (the rules of ./table.ts,
 * the same table of tests runs against both); SWEEP removes and returns
 * what fell due by the caller's clock, so of several instances sweeping,
 * one gets each. Times are the callers' (their clocks, epoch ms), as in the
 * local table. Needs Redis 5 or later (ZPOPMIN).
 */
import { luaScript, runScript, type RedisConnection } from '../redis';
import {
  checkPresenceOptions,
  MAX_CAMERAS,
  type DueEvent,
  type PresenceEntry,
  type PresenceOptions,
  type PresenceStore,
  type SightingInput,
  type SightOutcome,
  type SightResult,
  type SweepResult,
} from './table';

/** Due items taken per SWEEP call; a sweep calls again while it gets a full batch. */
export const SWEEP_BATCH = 100;

/** Lua helpers shared by the scripts: integers as exact text. */
const LUA_COMMON = `
local function num(x) return string.format('%.0f', x) end
local function drop(id)
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end
`;

/**
 * KEYS: state, away, still. ARGV: id, time, now, awayMs, stillHereMs, maxKeys,
 * exit ('1'), camera, label, kind, key, maxCameras.
 * Returns {outcome, entry JSON, departed JSON, departed due, evicted, present}.
 */
const SIGHT = luaScript(`${LUA_COMMON}
local id = ARGV[1]
local t = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local away = tonumber(ARGV[4])
local still = tonumber(ARGV[5])
local maxKeys = tonumber(ARGV[6])
local exit = ARGV[7] == '1'
local cam = ARGV[8]
local maxCams = tonumber(ARGV[12])
if t > now then t = now end
local departed, departedDue = '', ''
local raw = redis.call('HGET', KEYS[1], id)
if raw then
  local due = redis.call('ZSCORE', KEYS[2], id)
  if (not due) or tonumber(due) <= now then
    -- its departure fell due and was not swept yet: claimed here, it left before this sighting
    drop(id)
    departed = raw
    departedDue = due or num(now)
    raw = false
  end
end
local function reply(outcome, entry, evicted)
  return {outcome, entry, departed, departedDue, num(evicted), num(redis.call('ZCARD', KEYS[2]))}
end
if not raw then
  if exit then return reply('exit-absent', '', 0) end
  if t + away <= now then return reply('stale', '', 0) end
  local evicted = 0
  while redis.call('ZCARD', KEYS[2]) >= maxKeys do
    local oldest = redis.call('ZPOPMIN', KEYS[2])
    if #oldest == 0 then break end
    redis.call('HDEL', KEYS[1], oldest[1])
    redis.call('ZREM', KEYS[3], oldest[1])
    evicted = evicted + 1
  end
  local cams = {}
  if cam ~= '' then cams[1] = cam end
  local entry = cjson.encode({k = ARGV[11], t = ARGV[10], l = ARGV[9], f = t, s = t, c = cams, n = 1, h = 0})
  redis.call('HSET', KEYS[1], id, entry)
  redis.call('ZADD', KEYS[2], num(t + away), id)
  if still > 0 then redis.call('ZADD', KEYS[3], num(t + still), id) end
  return reply('arrived', entry, evicted)
end
local e = cjson.decode(raw)
if t > e.s then
  e.s = t
  redis.call('ZADD', KEYS[2], num(t + away), id)
elseif t < e.f then
  -- older than the stay: part of it when within the away time of its start, else of an earlier stay
  if t <= e.f - away then return reply('stale', raw, 0) end
  e.f = t
  if e.h == 0 and still > 0 then redis.call('ZADD', KEYS[3], num(t + still), id) end
end
if cam ~= '' then
  local known = false
  for _, c in ipairs(e.c) do
    if c == cam then known = true end
  end
  if not known then
    table.insert(e.c, cam)
    if #e.c > maxCams then table.remove(e.c, 1) end
  end
end
e.n = e.n + 1
local entry = cjson.encode(e)
if exit and t >= e.s then
  drop(id)
  return reply('left', entry, 0)
end
redis.call('HSET', KEYS[1], id, entry)
return reply('seen', entry, 0)
`);

/**
 * KEYS: state, away, still. ARGV: now, batch.
 * Returns {{state, id, entry JSON, due, …}, next departure, next still-here, present, the larger batch taken}.
 */
const SWEEP = luaScript(`${LUA_COMMON}
local now = ARGV[1]
local batch = tonumber(ARGV[2])
local out = {}
local stills = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'WITHSCORES', 'LIMIT', 0, batch)
for i = 1, #stills, 2 do
  local id, at = stills[i], stills[i + 1]
  redis.call('ZREM', KEYS[3], id)
  local leaves = redis.call('ZSCORE', KEYS[2], id)
  local raw = redis.call('HGET', KEYS[1], id)
  -- a departure due at the same moment or before goes first: gone by then
  if raw and leaves and tonumber(leaves) > tonumber(at) then
    local e = cjson.decode(raw)
    e.h = 1
    local entry = cjson.encode(e)
    redis.call('HSET', KEYS[1], id, entry)
    table.insert(out, 'still-here')
    table.insert(out, id)
    table.insert(out, entry)
    table.insert(out, at)
  end
end
local aways = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'WITHSCORES', 'LIMIT', 0, batch)
for i = 1, #aways, 2 do
  local id, at = aways[i], aways[i + 1]
  local raw = redis.call('HGET', KEYS[1], id)
  drop(id)
  if raw then
    table.insert(out, 'left')
    table.insert(out, id)
    table.insert(out, raw)
    table.insert(out, at)
  end
end
local nextAway = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local nextStill = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
return {out, nextAway[2] or '', nextStill[2] or '', num(redis.call('ZCARD', KEYS[2])), num(math.max(#stills, #aways) / 2)}
`);

export interface SharedPresenceOptions extends PresenceOptions {
  /** Names the table: instances running the same flow share it (the node's id by default). */
  name: string;
}

/** A stay as the scripts keep it. */
interface StoredEntry {
  k?: unknown;
  t?: unknown;
  l?: unknown;
  f?: unknown;
  s?: unknown;
  c?: unknown;
  n?: unknown;
  h?: unknown;
}

/** The stay `id` of a script's JSON; undefined when it does not read as one. */
function entryOf(id: string, json: string): PresenceEntry | undefined {
  let stored: StoredEntry;
  try {
    stored = JSON.parse(json) as StoredEntry;
  } catch {
    return undefined;
  }
  if (stored === null || typeof stored !== 'object') return undefined;
  const { k, t, l, f, s, c, n, h } = stored;
  if (typeof k !== 'string' || (t !== 'face' && t !== 'lpr') || typeof f !== 'number' || typeof s !== 'number') return undefined;
  return {
    id,
    key: k,
    kind: t,
    label: typeof l === 'string' ? l : k,
    firstSeen: f,
    lastSeen: s,
    // Lua's JSON writes an empty list as {}
    cameras: Array.isArray(c) ? c.filter((x): x is string => typeof x === 'string') : [],
    sightings: typeof n === 'number' ? n : 1,
    stillHereSent: h === 1 || h === true,
  };
}

const OUTCOMES: readonly SightOutcome[] = ['arrived', 'seen', 'left', 'stale', 'exit-absent'];

export class RedisPresence implements PresenceStore {
  readonly shared = true;
  private readonly keys: [string, string, string];

  constructor(
    private readonly connection: RedisConnection,
    private readonly options: SharedPresenceOptions,
  ) {
    checkPresenceOptions(options);
    // escaped, so name "a" cannot reach name "a:b", and a brace cannot end the slot's tag
    const name = options.name.replace(/[%:{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    const base = `{${name}}`;
    this.keys = [connection.key('presence', base, 'state'), connection.key('presence', base, 'away'), connection.key('presence', base, 'still')];
  }

  /** The Redis keys of this table: state, away, still. */
  get redisKeys(): readonly string[] {
    return this.keys;
  }

  private async ready(): Promise<void> {
    // A connection a deploy has just made is waited for (bounded): only an outage is "unreachable".
    if (!this.connection.ready) await this.connection.whenReady();
  }

  async sight(s: SightingInput, now: number): Promise<SightResult> {
    await this.ready();
    const o = this.options;
    const args = [
      s.id,
      String(Math.round(s.time)),
      String(Math.round(now)),
      String(Math.round(o.awayMs)),
      String(Math.round(o.stillHereMs)),
      String(o.maxKeys),
      s.exit ? '1' : '0',
      s.camera ?? '',
      s.label,
      s.kind,
      s.key,
      String(MAX_CAMERAS),
    ];
    const reply = await this.connection.answer(runScript<string[]>(this.connection.client, SIGHT, this.keys, args));
    const [outcomeText, entryJson, departedJson, departedDue, evicted, present] = reply.map(String);
    const outcome = OUTCOMES.includes(outcomeText as SightOutcome) ? (outcomeText as SightOutcome) : 'stale';
    const entry = entryJson ? entryOf(s.id, entryJson) : undefined;
    const departedEntry = departedJson ? entryOf(s.id, departedJson) : undefined;
    return {
      outcome,
      ...(entry ? { entry } : {}),
      ...(departedEntry ? { departed: { state: 'left', entry: departedEntry, due: Number(departedDue) } } : {}),
      evicted: Number(evicted) || 0,
      present: Number(present) || 0,
    };
  }

  async sweep(now: number): Promise<SweepResult> {
    await this.ready();
    const events: DueEvent[] = [];
    for (;;) {
      const reply = await this.connection.answer(
        runScript<[string[], string, string, string, string]>(this.connection.client, SWEEP, this.keys, [
          String(Math.round(now)),
          String(SWEEP_BATCH),
        ]),
      );
      const [items, nextAway, nextStill, present, taken] = reply;
      for (let i = 0; i + 3 < items.length; i += 4) {
        const state = String(items[i]);
        const entry = entryOf(String(items[i + 1]), String(items[i + 2]));
        if (entry && (state === 'left' || state === 'still-here')) events.push({ state, entry, due: Number(items[i + 3]) });
      }
      // a full batch of either kind: more may be due
      if (Number(taken) >= SWEEP_BATCH) continue;
      const dues = [nextAway, nextStill].filter((d) => d !== '' && d !== undefined && d !== null).map(Number);
      events.sort((a, b) => a.due - b.due);
      return { events, nextDue: dues.length > 0 ? Math.min(...dues) : undefined, present: Number(present) || 0 };
    }
  }

  async list(): Promise<PresenceEntry[]> {
    await this.ready();
    const all = await this.connection.answer(this.connection.client.hGetAll(this.keys[0]));
    const out: PresenceEntry[] = [];
    for (const [id, json] of Object.entries(all)) {
      const entry = entryOf(id, String(json));
      if (entry) out.push(entry);
    }
    return out;
  }

  /** Removes the whole table (every instance's). */
  async clear(): Promise<void> {
    await this.ready();
    await this.connection.client.del(this.keys);
  }
}
