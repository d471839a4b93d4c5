/**
 * The Lua of taking and finishing an event in a receiver's Redis stream
 * (stream-take.ts runs them), apart from the class that runs them: each is
 * read as one atomic step, and the tests run them on their own.
 */
import { luaScript } from '../redis';

/** How far PREPARE's id is ahead of Redis's clock: longer than Redis pauses between two commands of one EXEC. */
const AHEAD_MS = 5;

/**
 * Taking an event is one transaction, MULTI { EVAL PREPARE; XADD body; EVAL TAKE } EXEC, so that the body
 * never enters Lua: Redis makes a Lua string of every script argument and of every reply a script reads,
 * about 1.1 ms of Redis CPU per 880 KB, three times the XADD itself (bench/parts/redis.js, part `take`). Nothing runs between the three commands, and a connection lost before EXEC runs none
 * of them, so an event is either taken whole (pending for this instance, counted) or not at all.
 *
 * TAKE needs the id XADD gave the entry without reading it back (that would bring the body into Lua):
 * PREPARE adds and deletes an empty entry, so the stream's last id is known (D), a few ms ahead of Redis's
 * clock, so the XADD that follows gets D's ms and the next sequence: the expected id. TAKE claims that
 * id; since no entry older than the XADD can be newer than D, if it exists it is the XADD's. Only if
 * Redis's clock passed D's ms in between (a stall of the server) does TAKE read the newest entry instead.
 *
 * KEYS: stream, bytes, messageId → entry id, scratch (D and the stream's length before, for TAKE).
 */
export const PREPARE = `
local t = redis.call('TIME')
local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + ${AHEAD_MS}
local before = redis.call('XLEN', KEYS[1])
-- fails when the stream's last id is ahead of ms: then '*' gives that id's ms and the next sequence.
-- The fields of an event's entry, empty, so its node of the stream keeps one field list. Deleted below,
-- it stays in that node as a few bytes marked deleted until the node is freed.
local d = redis.pcall('XADD', KEYS[1], string.format('%d-*', ms), 'body', '', 'meta', '')
if type(d) == 'table' and d.err then d = redis.call('XADD', KEYS[1], '*', 'body', '', 'meta', '') end
redis.call('XDEL', KEYS[1], d)
redis.call('SET', KEYS[4], d .. ' ' .. before)
return 1
`;

/** ARGV: group, consumer, entries at most, bytes at most, the body's size, the messageId or ''.
 *  A resend of one still pending (taken by an instance, not finished) is not added: {'held', its entry id};
 *  past the cap: {'events', n} or {'bytes', n}; nothing was added: {'failed', why}. Refused, the XADD is undone. */
export const TAKE = `
local scratch = redis.call('GET', KEYS[4])
redis.call('DEL', KEYS[4])
if not scratch then return {'failed', 'prepare'} end
local d, before = string.match(scratch, '^(%S+) (%d+)$')
before = tonumber(before)
if redis.call('XLEN', KEYS[1]) ~= before + 1 then return {'failed', 'xadd'} end
local dms, dseq = string.match(d, '^(%d+)-(%d+)$')
local id = dms .. '-' .. string.format('%d', tonumber(dseq) + 1)
local function claim(entry)
  local claimed = redis.pcall('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, entry, 'FORCE', 'JUSTID')
  if type(claimed) == 'table' and claimed.err then
    redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0')
    claimed = redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, entry, 'FORCE', 'JUSTID')
  end
  return #claimed == 1
end
if not claim(id) then
  -- Redis's clock passed D's ms before the XADD: the newest entry is the one added (read once, body and all)
  id = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1][1]
  claim(id)
end
-- From here, whatever fails leaves nothing added: the entry is deleted again.
local function decide()
  local held = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
  if before == 0 then held = 0 end
  local size = tonumber(ARGV[5])
  local mid = ARGV[6]
  if mid ~= '' and before > 0 then
    local copy = redis.call('HGET', KEYS[3], mid)
    if copy then
      local pending = redis.pcall('XPENDING', KEYS[1], ARGV[1], copy, copy, 1)
      if type(pending) == 'table' and not pending.err and #pending > 0 then return {'held', copy} end
    end
  end
  if before >= tonumber(ARGV[3]) then return {'events', before} end
  if before > 0 and held + size > tonumber(ARGV[4]) then return {'bytes', held} end
  if before == 0 then redis.call('DEL', KEYS[3]) end
  if mid ~= '' then redis.call('HSET', KEYS[3], mid, id) end
  redis.call('SET', KEYS[2], held + size)
  return id
end
local ok, reply = pcall(decide)
if ok and type(reply) == 'string' then return reply end
redis.pcall('XACK', KEYS[1], ARGV[1], id)
redis.call('XDEL', KEYS[1], id)
if ok then return reply end
return {'failed', type(reply) == 'table' and reply.err or tostring(reply)}
`;

/** ARGV[3]: the body's size, or -1 when this instance does not know it (read from the entry, and so is
 *  the messageId); ARGV[4]: the messageId, or '' (KEYS[3] as in TAKE: its entry is dropped if it is this one).
 *  KEYS[4]: the failures hash, whose field exists only for an event that failed before. */
export const DONE = luaScript(`
redis.pcall('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('HDEL', KEYS[4], ARGV[2])
local size = tonumber(ARGV[3])
local mid = ARGV[4]
if size < 0 then
  size = 0
  local entry = redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2])
  if #entry == 0 then return 0 end
  local fields = entry[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'body' then size = string.len(fields[i + 1]) end
    if fields[i] == 'meta' and mid == '' then
      local ok, meta = pcall(cjson.decode, fields[i + 1])
      if ok and type(meta) == 'table' and type(meta.messageId) == 'string' then mid = meta.messageId end
    end
  end
end
if redis.call('XDEL', KEYS[1], ARGV[2]) == 0 then return 0 end
if mid ~= '' and redis.call('HGET', KEYS[3], mid) == ARGV[2] then redis.call('HDEL', KEYS[3], mid) end
local held = tonumber(redis.call('GET', KEYS[2]) or '0') - size
if held < 0 or redis.call('XLEN', KEYS[1]) == 0 then
  held = 0
  redis.call('DEL', KEYS[3])
end
redis.call('SET', KEYS[2], held)
return 1
`);
