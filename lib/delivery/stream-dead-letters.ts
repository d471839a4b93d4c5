/**
 * Attempts, pauses and dead letters of a receiver's Redis stream (stream.ts),
 * kept in Redis so that every instance serving the path, and each one after
 * a restart, sees the same:
 *
 * - **Attempts** are the stream's own delivery counter: the consumer group's
 *   pending entry counts each emission (1 when the event is added, +1 when an
 *   instance claims it with XAUTOCLAIM, set with `XCLAIM … RETRYCOUNT` when an
 *   instance emits it again itself). Nothing is written for it on the happy path.
 * - **A failure** (the flow said failed, or the time limit passed) is a field of
 *   `<stream>:failures`: `<attempt>|<due at>|<error>`, the attempt that failed,
 *   when the next one is due and why; removed when the event is finished (the
 *   DONE script's one HDEL) or dead-lettered. An entry whose counter still
 *   equals the failed attempt is *paused*: whoever holds it emits it at `due at`.
 * - **Dead letters**: `<stream>:dead` (a stream: the original id, body, meta,
 *   attempts, error, dead at) and `<stream>:dead:index` (a hash: original id →
 *   a small JSON summary, with `at`, its dead-letter stream id), so listing them
 *   never reads a body. Moving an event there (XACK + XDEL of the original, the
 *   byte count down, the oldest dropped past the cap) is one script.
 *
 * Every script takes its keys as KEYS: stream, bytes, failures, dead, dead index.
 */
import { luaScript } from '../redis';
import type { DeadLetter } from './types';

/** A failure as `<stream>:failures` keeps it. */
export interface FailureRecord {
  /** The attempt that failed. */
  attempt: number;
  /** When the next attempt is due (ms since the epoch). */
  dueAt: number;
  error: string;
}

export function formatFailure(failure: FailureRecord): string {
  return `${failure.attempt}|${Math.round(failure.dueAt)}|${failure.error}`;
}

export function parseFailure(text: string | undefined): FailureRecord | undefined {
  const match = text ? /^(\d+)\|(\d+)\|([\s\S]*)$/.exec(text) : null;
  if (!match) return undefined;
  return { attempt: Number(match[1]), dueAt: Number(match[2]), error: match[3] };
}

/** A dead letter's summary as the index keeps it; `at` orders them (its id in the dead-letter stream). */
export function deadLetterOf(summary: string): (DeadLetter & { at: string }) | undefined {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(summary) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof value.id !== 'string' || typeof value.at !== 'string') return undefined;
  const receivedAt = typeof value.receivedAt === 'number' ? value.receivedAt : Date.parse(String(value.receivedAt));
  return {
    id: value.id,
    ...(typeof value.messageId === 'string' ? { messageId: value.messageId } : {}),
    ...(typeof value.kind === 'string' ? { kind: value.kind } : {}),
    attempts: Number(value.attempts) || 0,
    lastError: String(value.lastError ?? ''),
    receivedAt: Number.isFinite(receivedAt) ? receivedAt : 0,
    deadAt: Number(value.deadAt) || 0,
    bytes: Number(value.bytes) || 0,
    at: value.at,
  };
}

/** Shared Lua: the body and meta of an entry's flat field list; parsing a failure; moving an entry to the dead letters. */
const LUA_COMMON = `
local function fieldsOf(flat)
  local body, meta = '', '{}'
  for i = 1, #flat, 2 do
    if flat[i] == 'body' then body = flat[i + 1] elseif flat[i] == 'meta' then meta = flat[i + 1] end
  end
  return body, meta
end
local function failureOf(text)
  if not text then return nil end
  local attempt, due, err = string.match(text, '^(%d+)|(%d+)|(.*)$')
  if not attempt then return nil end
  return tonumber(attempt), tonumber(due), err
end
-- Moves entry id (fields flat) to the dead letters; how many of the oldest were dropped past the cap.
local function bury(group, id, flat, attempts, err, deadAt, max)
  local body, meta = fieldsOf(flat)
  local at = redis.call('XADD', KEYS[4], '*', 'id', id, 'body', body, 'meta', meta, 'attempts', attempts, 'error', err, 'deadAt', deadAt)
  local summary = { id = id, attempts = tonumber(attempts), lastError = err, deadAt = tonumber(deadAt), bytes = string.len(body), at = at }
  local ok, m = pcall(cjson.decode, meta)
  if ok and type(m) == 'table' then
    if type(m.messageId) == 'string' then summary.messageId = m.messageId end
    if type(m.kind) == 'string' then summary.kind = m.kind end
    if type(m.receivedAt) == 'string' or type(m.receivedAt) == 'number' then summary.receivedAt = m.receivedAt end
  end
  redis.call('HSET', KEYS[5], id, cjson.encode(summary))
  redis.call('XACK', KEYS[1], group, id)
  redis.call('HDEL', KEYS[3], id)
  if redis.call('XDEL', KEYS[1], id) == 1 then
    local held = tonumber(redis.call('GET', KEYS[2]) or '0') - string.len(body)
    if held < 0 or redis.call('XLEN', KEYS[1]) == 0 then held = 0 end
    redis.call('SET', KEYS[2], held)
  end
  local dropped = 0
  while redis.call('HLEN', KEYS[5]) > max do
    local oldest = redis.call('XRANGE', KEYS[4], '-', '+', 'COUNT', 1)[1]
    if not oldest then break end
    redis.call('HDEL', KEYS[5], oldest[2][2])
    redis.call('XDEL', KEYS[4], oldest[1])
    dropped = dropped + 1
  end
  return dropped
end
`;

/**
 * One XAUTOCLAIM page for this instance, each entry sorted out by its counter
 * and failure record: `paused` (its instance died during a pause that has not
 * ended: held, counter set back, emitted when due), `due` (the pause ended: the
 * next attempt, no new failure), `dead` (its last attempt ran out: moved to the
 * dead letters), `first` / `failed` (the time limit passed: a failed attempt,
 * the first of this event or not; emitted again as the next attempt).
 * ARGV: group, consumer, min idle, cursor, count, max attempts, max dead letters, now, timeout error.
 * Reply: cursor, rows [id, fields, attempt, kind, due at, error], dropped, XLEN, dead letters kept.
 */
export const CLAIM = luaScript(
  LUA_COMMON +
    `
local reply = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], 'COUNT', ARGV[5])
local now = tonumber(ARGV[8])
local out = {}
local dropped = 0
for _, entry in ipairs(reply[2]) do
  if entry and entry[2] then
    local id = entry[1]
    local p = redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1)[1]
    local count = p and p[4] or 1
    local failed = count - 1
    local fa, fdue, ferr = failureOf(redis.call('HGET', KEYS[3], id))
    if fa and fa == failed then
      if fdue > now then
        redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'RETRYCOUNT', failed, 'JUSTID')
        table.insert(out, { id, entry[2], failed, 'paused', tostring(fdue), ferr })
      else
        table.insert(out, { id, entry[2], count, 'due', '0', ferr })
      end
    elseif failed >= tonumber(ARGV[6]) then
      dropped = dropped + bury(ARGV[1], id, entry[2], failed, ARGV[9], ARGV[8], tonumber(ARGV[7]))
      table.insert(out, { id, entry[2], failed, 'dead', '0', ARGV[9] })
    else
      redis.call('HSET', KEYS[3], id, failed .. '|' .. ARGV[8] .. '|' .. ARGV[9])
      table.insert(out, { id, entry[2], count, fa and 'failed' or 'first', '0', ARGV[9] })
    end
  end
end
return { reply[1], out, dropped, redis.call('XLEN', KEYS[1]), redis.call('HLEN', KEYS[5]) }
`,
);

/**
 * Dead-letters one entry this instance holds. ARGV: group, consumer, id, attempts, error, dead at, max dead letters.
 * Reply: moved (0: not pending for this consumer any more, or deleted), dropped, dead letters kept.
 */
export const DEAD = luaScript(
  LUA_COMMON +
    `
local mine = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1, ARGV[2])[1]
if not mine then return { 0, 0, redis.call('HLEN', KEYS[5]) } end
local entry = redis.call('XRANGE', KEYS[1], ARGV[3], ARGV[3])[1]
if not entry then
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
  redis.call('HDEL', KEYS[3], ARGV[3])
  return { 0, 0, redis.call('HLEN', KEYS[5]) }
end
local dropped = bury(ARGV[1], ARGV[3], entry[2], ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7]))
return { 1, dropped, redis.call('HLEN', KEYS[5]) }
`,
);

/**
 * For entries this instance holds: makes sure each is still pending for it,
 * resets its idle time (so no other instance claims it meanwhile), and sets its
 * counter and failure record when given. KEYS: stream, failures.
 * ARGV: group, consumer, then per entry: id, counter or '', failure record or ''. Reply: 1 or 0 (not ours) each.
 */
export const KEEP = luaScript(`
local out = {}
for i = 3, #ARGV, 3 do
  local id = ARGV[i]
  if redis.call('XPENDING', KEYS[1], ARGV[1], id, id, 1, ARGV[2])[1] then
    if ARGV[i + 1] ~= '' then
      redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'RETRYCOUNT', ARGV[i + 1], 'JUSTID')
    else
      redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'JUSTID')
    end
    if ARGV[i + 2] ~= '' then redis.call('HSET', KEYS[2], id, ARGV[i + 2]) end
    table.insert(out, 1)
  else
    table.insert(out, 0)
  end
end
return out
`);

/**
 * One page of this instance's own pending entries, read without counting a
 * delivery (XREADGROUP of the history would): [id, fields ({} when deleted),
 * counter, failure record or '']. KEYS: stream, failures. ARGV: group, consumer, start, count.
 */
export const RECOVER = luaScript(`
local pending = redis.pcall('XPENDING', KEYS[1], ARGV[1], ARGV[3], '+', tonumber(ARGV[4]), ARGV[2])
if type(pending) ~= 'table' or pending.err then return {} end
local out = {}
for _, p in ipairs(pending) do
  local entry = redis.call('XRANGE', KEYS[1], p[1], p[1])[1]
  table.insert(out, { p[1], entry and entry[2] or {}, p[4], redis.call('HGET', KEYS[2], p[1]) or '' })
end
return out
`);

/**
 * Moves dead letters back into the stream as new entries pending for this
 * instance (counter 1: attempts fresh), the given ones or the oldest, at most
 * `limit`. ARGV: group, consumer, limit, ids…. Reply: rows [new id, body, meta, dead letter id], dead letters kept.
 */
export const REPLAY = luaScript(`
local limit = tonumber(ARGV[3])
local picked = {}
if #ARGV > 3 then
  for i = 4, #ARGV do
    local summary = redis.call('HGET', KEYS[5], ARGV[i])
    if summary then
      local at = cjson.decode(summary).at
      local entry = redis.call('XRANGE', KEYS[4], at, at)[1]
      if entry then table.insert(picked, entry) else redis.call('HDEL', KEYS[5], ARGV[i]) end
    end
  end
elseif limit > 0 then
  picked = redis.call('XRANGE', KEYS[4], '-', '+', 'COUNT', limit)
end
local out = {}
for _, entry in ipairs(picked) do
  if #out >= limit then break end
  local old, body, meta = '', '', '{}'
  local flat = entry[2]
  for i = 1, #flat, 2 do
    if flat[i] == 'id' then old = flat[i + 1] elseif flat[i] == 'body' then body = flat[i + 1] elseif flat[i] == 'meta' then meta = flat[i + 1] end
  end
  local len = redis.call('XLEN', KEYS[1])
  local held = tonumber(redis.call('GET', KEYS[2]) or '0')
  if len == 0 then held = 0 end
  local id = redis.call('XADD', KEYS[1], '*', 'body', body, 'meta', meta)
  local claimed = redis.pcall('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'FORCE', 'JUSTID')
  if type(claimed) == 'table' and claimed.err then
    redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0')
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'FORCE', 'JUSTID')
  end
  redis.call('SET', KEYS[2], held + string.len(body))
  redis.call('XDEL', KEYS[4], entry[1])
  redis.call('HDEL', KEYS[5], old)
  table.insert(out, { id, body, meta, old })
end
return { out, redis.call('HLEN', KEYS[5]) }
`);

/** Drops dead letters (all when no id is given). KEYS: dead, dead index. ARGV: ids…. Reply: how many, how many kept. */
export const DISCARD = luaScript(`
if #ARGV == 0 then
  local n = redis.call('HLEN', KEYS[2])
  redis.call('DEL', KEYS[1], KEYS[2])
  return { n, 0 }
end
local n = 0
for i = 1, #ARGV do
  local summary = redis.call('HGET', KEYS[2], ARGV[i])
  if summary then
    redis.call('XDEL', KEYS[1], cjson.decode(summary).at)
    redis.call('HDEL', KEYS[2], ARGV[i])
    n = n + 1
  end
end
return { n, redis.call('HLEN', KEYS[2]) }
`);
