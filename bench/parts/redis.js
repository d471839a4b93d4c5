'use strict';
/**
 * Redis (issue 12), against a redis-server started here on 127.0.0.1 (no
 * persistence, its files in a temp folder) and stopped at the end:
 *
 * dedupe     the window shared through Redis (RedisSeenKeys: SET NX PX GET
 *            per check) filled with `keys` ids, then checks of half repeats,
 *            half new ids: issued without awaiting each (a batch per turn of
 *            the event loop, which node-redis writes at once: pipelined), and
 *            awaited one by one; against the in-memory DedupeWindow on the
 *            same keys. Every way must find exactly the repeats.
 * receiver   plate bodies posted to detection-in answering from memory, once
 *            the event is in a Redis stream, and the same into the dedupe
 *            shared through Redis (what several instances run), in the same
 *            Node-RED, with the receiver part's load generator and
 *            connections, in alternating rounds, one Redis and no replica;
 *            then a replica of the bench's redis-server attached, the stream
 *            against the same through a configuration node with Confirm on
 *            replicas 1 (a WAIT for one replica before each 200), in rounds
 *            of their own (both feed the replica: the stream's writes reach
 *            it whether confirmed or not).
 *            CPU time of Node-RED, Redis, the replica and the generator per
 *            event accepted, and how busy the machine was (other work on it
 *            shows as more than ours).
 * take       Redis's CPU per plate event taken into a stream, the way the
 *            package takes it (a transaction: a plain XADD of the body
 *            between two small scripts) and the way it did before issue 29
 *            (one script with the body as an argument), in alternating
 *            rounds against the same redis-server, each round's entries
 *            finished outside the measure; one Redis's own limit for plate
 *            events is 1 / that CPU time.
 * stream     Redis memory per event left pending in a stream: INFO's
 *            used_memory and MEMORY USAGE of the stream before and after
 *            `pending` plate events that nothing finishes, per event.
 * instances  two Node-RED instances in Redis-stream mode (one Redis)
 *            against one, the generator spreading the requests round robin
 *            over both, in alternating rounds.
 *
 * Every 200 must come out at the end of the flow (counted there) and every
 * stream entry must be finished (XLEN 0) afterwards; timing is never judged.
 */
const path = require('node:path');
const os = require('node:os');
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');

const { runLoad, Latencies, ID_WIDTH } = require('../support/load');
const { body, event } = require('../support/bodies');
const { NodeRed, httpJson, delay, ROOT } = require('../support/nodered');
const { cpuSecondsOf, cpuSplitOf, mainThreadCpuSecondsOf, gcPausesOf, machineBusySeconds, children } = require('../support/proc');
const { flows, REDIS_READY, CONFIRM_TIMEOUT_MS } = require('../support/flows');
const { messageId, checkList } = require('../support/ids');
const { RedisServer, redisClient } = require('../../test/support/redis-server');

const DIST = path.join(ROOT, 'dist', 'lib');
/** Key prefix of everything the bench writes into its Redis. */
const PREFIX = 'bench:';
const BINARY = process.env.REDIS_SERVER || 'redis-server';

/** Why the part cannot run here, or undefined. SET NX GET needs Redis 7.0. */
function skipReason() {
  let version;
  try {
    version = execFileSync(BINARY, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return `${BINARY} is not installed (Debian: apt-get install redis-server; or set REDIS_SERVER to its path)`;
  }
  const m = /v=(\d+)\.(\d+)/.exec(version);
  if (m && Number(m[1]) < 7) return `${BINARY} is version ${m[1]}.${m[2]}; the shared dedupe needs Redis 7.0 or later`;
  return undefined;
}

function ratio(a, b) {
  return typeof a === 'number' && typeof b === 'number' && b > 0 ? +(a / b).toFixed(2) : null;
}

async function until(predicate, timeoutMs, everyMs = 50) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return true;
    if (Date.now() > end) return false;
    await delay(everyMs);
  }
}

/** INFO memory as numbers. */
async function memoryInfo(client) {
  const text = await client.info('memory');
  const out = {};
  for (const line of text.split('\r\n')) {
    const m = /^(\w+):(\d+)$/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/**
 * used_memory once it has settled: read every 100 ms until three readings in
 * a row agree (Redis frees idle client buffers in its cron), at most `maxMs`.
 */
async function settledUsedMemory(client, maxMs = 3000) {
  const end = Date.now() + maxMs;
  let last = (await memoryInfo(client)).used_memory;
  let same = 0;
  while (same < 2 && Date.now() < end) {
    await delay(100);
    const now = (await memoryInfo(client)).used_memory;
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

/** WAIT commands the server has run since it started (INFO commandstats). */
async function waitCalls(client) {
  const m = /^cmdstat_wait:calls=(\d+)/m.exec(await client.info('commandstats'));
  return m ? Number(m[1]) : 0;
}

// ---------------------------------------------------------------- dedupe

async function sharedDedupe({ url, client, redisPid, config, log, problems }) {
  const { RedisConnection } = require(path.join(DIST, 'redis', 'connection.js'));
  const { RedisSeenKeys } = require(path.join(DIST, 'dedupe', 'redis-window.js'));
  const { DedupeWindow } = require(path.join(DIST, 'dedupe', 'local-window.js'));
  const ttlMs = 3_600_000;
  const { keys } = config;
  const watch = { nodeRed: [], redis: redisPid };
  // As detection-redis makes it; and, for comparison only, one without the bound on each answer
  // (commandTimeoutMs 0: RedisConnection.answer then adds no timer).
  const connection = new RedisConnection({ url, prefix: PREFIX }, 'bench');
  const untimed = new RedisConnection({ url, prefix: PREFIX, commandTimeoutMs: 0 }, 'bench-untimed');
  connection.open();
  untimed.open();
  try {
    if (!(await until(() => connection.ready && untimed.ready, 10000))) throw new Error(`could not connect to Redis at ${url}`);
    const shared = new RedisSeenKeys(connection, { name: 'checks', ttlMs });
    const sharedUntimed = new RedisSeenKeys(untimed, { name: 'checks', ttlMs });

    /** Checks `list` through `seen`, `batch` issued per turn (1: each awaited); {ms, duplicates, cpu}. */
    const pipelined = async (seen, list, batch) => {
      let duplicates = 0;
      const c0 = cpuNow(watch);
      const t0 = performance.now();
      if (batch === 1) {
        for (let i = 0; i < list.length; i++) if ((await seen.check(list[i], Date.now())).duplicate) duplicates++;
      } else {
        for (let i = 0; i < list.length; i += batch) {
          const pending = [];
          for (let j = i; j < Math.min(list.length, i + batch); j++) pending.push(seen.check(list[j], Date.now()));
          for (const s of await Promise.all(pending)) if (s.duplicate) duplicates++;
        }
      }
      return { ms: performance.now() - t0, duplicates, cpu: cpuSince(c0, watch) };
    };

    // The window filled with the ids 0 … keys-1, in both places.
    const m0 = await settledUsedMemory(client);
    const fill = Array.from({ length: keys }, (_, i) => messageId(i));
    const filled = await pipelined(shared, fill, 1024);
    if (filled.duplicates !== 0) problems.push(`redis dedupe: ${filled.duplicates} of ${keys} first sightings reported as repeats`);
    const m1 = await settledUsedMemory(client);
    const storedKeys = await client.dbSize();
    // Room for every key checked: Redis has no cap, so neither has the local window here.
    const local = new DedupeWindow({ ttlMs, maxKeys: keys + config.checks });
    for (const k of fill) local.check(k);

    const ways = [];
    const expect = (n) => Math.ceil(n / 2); // the even checks repeat a held id
    const record = (way, label, checks, batch, { ms, duplicates, cpu }) => {
      if (duplicates !== expect(checks))
        problems.push(`redis dedupe (${label}): ${duplicates} repeats found in ${checks} checks, not ${expect(checks)}`);
      const r = {
        way,
        label,
        batch,
        checks,
        ms: +ms.toFixed(1),
        checksPerSecond: Math.round((checks / ms) * 1000),
        usPerCheck: +((ms * 1000) / checks).toFixed(2),
        // CPU time per check of this process (the client: node-redis) and of Redis.
        cpuUsPerCheck: { client: +((cpu.generator * 1e6) / checks).toFixed(2), redis: +((cpu.redis * 1e6) / checks).toFixed(2) },
      };
      ways.push(r);
      log(`  redis dedupe, ${label}: ${r.checksPerSecond.toLocaleString('en-US')} checks/s`);
      return r;
    };

    {
      const list = checkList(keys, config.checks, { newFrom: keys });
      let duplicates = 0;
      const c0 = cpuNow(watch);
      const t0 = performance.now();
      for (let i = 0; i < list.length; i++) if (local.check(list[i], Date.now()).duplicate) duplicates++;
      const ms = performance.now() - t0;
      record('memory', 'in memory (DedupeWindow)', list.length, null, { ms, duplicates, cpu: cpuSince(c0, watch) });
    }
    // The new ids of each way far from the others' (the shared window keeps them all).
    let newFrom = keys;
    const next = (checks) => checkList(keys, checks, { newFrom: (newFrom += 1e9) });
    const largest = Math.max(...config.batches);
    for (const batch of config.batches) {
      const list = next(config.pipelinedChecks);
      record(`pipelined-${batch}`, `Redis, pipelined, ${batch} per batch`, list.length, batch, await pipelined(shared, list, batch));
    }
    {
      const list = next(config.awaitedChecks);
      record('awaited', 'Redis, awaited one by one', list.length, 1, await pipelined(shared, list, 1));
    }
    {
      const list = next(config.pipelinedChecks);
      const label = `Redis, pipelined, ${largest} per batch, no command timeout (not as the node runs)`;
      record(`untimed-${largest}`, label, list.length, largest, await pipelined(sharedUntimed, list, largest));
    }

    const by = (way) => ways.find((w) => w.way === way);
    const memory = by('memory').checksPerSecond;
    for (const w of ways) w.toMemory = ratio(w.checksPerSecond, memory);
    await client.flushDb();
    return {
      keys,
      ttlMs,
      largestBatch: largest,
      ways,
      redisBytesPerKey: storedKeys >= keys ? Math.round((m1 - m0) / keys) : null,
      ratios: {
        pipelinedToMemory: ratio(by(`pipelined-${largest}`).checksPerSecond, memory),
        awaitedToMemory: ratio(by('awaited').checksPerSecond, memory),
        pipelinedToAwaited: ratio(by(`pipelined-${largest}`).checksPerSecond, by('awaited').checksPerSecond),
        untimedToPipelined: ratio(by(`untimed-${largest}`).checksPerSecond, by(`pipelined-${largest}`).checksPerSecond),
      },
    };
  } finally {
    await connection.close();
    await untimed.close();
  }
}

// ---------------------------------------------------------------- Node-RED and load

async function startNodeRed({ name, token, coreUrl, redisUrl, execArgv, log }) {
  const nr = await NodeRed.create({ execArgv });
  try {
    await nr.start();
    await nr.deploy(flows({ token, coreUrl, redis: { url: redisUrl, prefix: PREFIX } }), REDIS_READY);
    // The stream receivers answer 503 until the configuration node has connected.
    const auth = { authorization: `Bearer ${token}` };
    for (const route of ['/bench/redis', '/bench/shared', '/bench/redis-confirm']) {
      let last;
      const ok = await until(async () => {
        const e = event('lpr', 0);
        e.payload.messageId = `ready-${name}-${route}-${Date.now()}`;
        last = await httpJson(`${nr.url}${route}`, { method: 'POST', body: e, headers: auth });
        return last.status === 200;
      }, 15000);
      if (!ok)
        throw new Error(`${route} of Node-RED ${name} answered ${last && last.status}, not 200, for 15 s: ${last && last.text}\n${nr.logText(40)}`);
    }
  } catch (err) {
    await nr.dispose().catch(() => {});
    throw err;
  }
  log(`bench: Node-RED (${name}, Redis flows) at ${nr.url}, pid ${nr.pid}`);
  return nr;
}

async function flowCount(nrs) {
  let sum = 0;
  for (const nr of nrs) sum += (await httpJson(`${nr.url}/bench/stats`)).json.count;
  return sum;
}

/** CPU seconds per process since `c0` (from cpuNow). */
function cpuSince(c0, watch) {
  const c1 = cpuNow(watch);
  return Object.fromEntries(Object.keys(c0).map((k) => [k, c1[k] - c0[k]]));
}

function cpuNow(watch) {
  const own = process.cpuUsage();
  const gc = watch.nodeRed.map(gcPausesOf);
  return {
    // Node-RED's main-thread garbage-collection pauses (with --gc, else NaN)
    nodeRedGc: gc.length > 0 && gc.every(Boolean) ? gc.reduce((s, g) => s + g.ms / 1000, 0) : NaN,
    nodeRed: watch.nodeRed.reduce((s, pid) => s + (cpuSecondsOf(pid) || 0), 0),
    // of which on the main thread, the one that parses, runs the flow and writes to the sockets (the
    // others: the garbage collector's helpers, libuv's pool)
    nodeRedMain: watch.nodeRed.reduce((s, pid) => s + (mainThreadCpuSecondsOf(pid) || 0), 0),
    // of which in the kernel (socket writes and reads): what Redis mode adds is mostly bytes moved
    nodeRedSystem: watch.nodeRed.reduce((s, pid) => s + (cpuSplitOf(pid)?.system || 0), 0),
    redis: cpuSecondsOf(watch.redis) || 0,
    replica: (watch.replica && cpuSecondsOf(watch.replica)) || 0,
    generator: (own.user + own.system) / 1e6,
    machine: machineBusySeconds() || 0,
  };
}

/** Posts one event until it is answered 200, at most `seconds`, as the bridge resends it: for a target
 *  that refuses (503) until it is ready. A 503 after the write leaves the event held unconfirmed, and
 *  its resend (the same messageId) is what hands it out. The 200 counts as one event accepted. */
async function firstAccepted({ url, headers, template, messageId, seconds = 15 }) {
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    const r = await runLoad({ url, headers, body: template, connections: 1, maxRequests: 1, messageId });
    if (r.ok === 1) return { ok: true, seconds };
    await delay(100);
  }
  return { ok: false, seconds };
}

/**
 * Alternating rounds over `targets` ({name: {url (string or list), headers,
 * idPrefix}}): `spec` = {rounds, seconds, warmupSeconds}. Returns the
 * summary per target and how many were answered 200 in all (warm-up included).
 */
async function alternate({ targets, spec, template, connections, watch, label, log, problems }) {
  const names = Object.keys(targets);
  const stats = Object.fromEntries(
    names.map((n) => [
      n,
      {
        requests: 0,
        ok: 0,
        ms: 0,
        latencies: new Latencies(),
        statuses: {},
        errors: {},
        rounds: [],
        cpu: { nodeRed: 0, nodeRedMain: 0, nodeRedSystem: 0, nodeRedGc: 0, redis: 0, replica: 0, generator: 0, machine: 0 },
        acknowledged: 0,
        perTarget: null,
      },
    ]),
  );
  let acknowledged = 0;
  const once = async (name, seconds, record) => {
    const t = targets[name];
    const c0 = cpuNow(watch);
    const r = await runLoad({ url: t.url, headers: t.headers, body: template, connections, durationMs: seconds * 1000, idPrefix: t.idPrefix });
    const c1 = cpuNow(watch);
    acknowledged += r.ok;
    const s = stats[name];
    s.acknowledged += r.ok;
    for (const [k, v] of Object.entries(r.statuses)) s.statuses[k] = (s.statuses[k] || 0) + v;
    for (const [k, v] of Object.entries(r.errors)) s.errors[k] = (s.errors[k] || 0) + v;
    if (r.ok !== r.requests)
      problems.push(`${label} → ${name}: ${r.requests - r.ok} of ${r.requests} not answered 200 (${JSON.stringify({ ...r.statuses, ...r.errors })})`);
    if (r.requests === 0) problems.push(`${label} → ${name}: no request completed`);
    if (!record) return;
    s.requests += r.requests;
    s.ok += r.ok;
    s.ms += r.durationMs;
    s.latencies.merge(r.latencies);
    s.rounds.push(+((r.ok / r.durationMs) * 1000).toFixed(1));
    for (const k of Object.keys(s.cpu)) s.cpu[k] += c1[k] - c0[k];
    s.perTarget = s.perTarget
      ? s.perTarget.map((p, i) => ({ ...p, requests: p.requests + r.perTarget[i].requests, ok: p.ok + r.perTarget[i].ok }))
      : r.perTarget;
  };
  if (spec.warmupSeconds > 0) for (const name of names) await once(name, spec.warmupSeconds, false);
  for (let round = 0; round < spec.rounds; round++) {
    // Rotate the order so no target always follows the same one.
    for (let i = 0; i < names.length; i++) await once(names[(i + round) % names.length], spec.seconds, true);
    log(`  ${label}: round ${round + 1}/${spec.rounds} done`);
  }
  const out = {};
  for (const name of names) {
    const s = stats[name];
    // Events accepted (answered 200) per second; a 503 is counted apart.
    const rps = s.ms > 0 ? (s.ok / s.ms) * 1000 : 0;
    const perRequest = (seconds) => (s.ok > 0 ? +((seconds * 1000) / s.ok).toFixed(2) : null);
    const busy = (seconds) => (s.ms > 0 ? +(seconds / (s.ms / 1000)).toFixed(2) : null);
    out[name] = {
      requests: s.requests,
      ok: s.ok,
      // Answered 200 in all, warm-up included (every one must reach the end of the flow).
      acknowledged: s.acknowledged,
      notOk: s.requests - s.ok,
      rps: +rps.toFixed(1),
      mbPerSecond: +((rps * template.bytes) / 1e6).toFixed(1),
      roundsRps: s.rounds,
      p50Ms: s.latencies.count ? +s.latencies.percentile(50).toFixed(2) : null,
      p99Ms: s.latencies.count ? +s.latencies.percentile(99).toFixed(2) : null,
      cpuMsPerRequest: {
        nodeRed: perRequest(s.cpu.nodeRed),
        nodeRedMain: perRequest(s.cpu.nodeRedMain),
        nodeRedSystem: perRequest(s.cpu.nodeRedSystem),
        ...(Number.isNaN(s.cpu.nodeRedGc) ? {} : { nodeRedGc: +((s.cpu.nodeRedGc * 1000) / s.ok).toFixed(3) }),
        redis: perRequest(s.cpu.redis),
        ...(watch.replica ? { replica: perRequest(s.cpu.replica) } : {}),
        generator: perRequest(s.cpu.generator),
      },
      // CPUs kept busy on average: by Node-RED, Redis and the generator together, and by
      // every process on the machine (more than ours: something else ran meanwhile).
      cpusBusy: busy(s.cpu.nodeRed + s.cpu.redis + s.cpu.replica + s.cpu.generator),
      machineCpusBusy: busy(s.cpu.machine),
      perTarget: s.perTarget && s.perTarget.length > 1 ? s.perTarget.map((p) => ({ requests: p.requests, ok: p.ok })) : undefined,
      statuses: s.statuses,
      errors: s.errors,
    };
  }
  return { targets: out, acknowledged };
}

/** Every 200 since `before` came out at the end of the flows, and every stream entry was finished. */
async function checkDrained({ nrs, client, before, acknowledged, streams, label, problems }) {
  let count = 0;
  await until(async () => (count = (await flowCount(nrs)) - before) >= acknowledged, 20000);
  if (count !== acknowledged) problems.push(`${label}: ${acknowledged} answered 200 but ${count} messages reached the end of the flow`);
  for (const key of streams) {
    let left = 0;
    await until(async () => (left = await client.xLen(key)) === 0, 20000);
    if (left !== 0) problems.push(`${label}: ${left} entries of ${key} not finished (still in the stream 20 s after the load)`);
  }
  return count;
}

// ---------------------------------------------------------------- take

/** The script that took an event before issue 29 (lib/delivery/stream.ts, ADD): the body went in as
 *  ARGV[5], which Redis makes into a Lua string (hashing it) for every run. Kept only to measure against. */
const OLD_ADD = `
local len = redis.call('XLEN', KEYS[1])
local held = tonumber(redis.call('GET', KEYS[2]) or '0')
if len == 0 then held = 0 end
local mid = ARGV[7]
if mid ~= '' and len > 0 then
  local copy = redis.call('HGET', KEYS[3], mid)
  if copy then
    local pending = redis.pcall('XPENDING', KEYS[1], ARGV[1], copy, copy, 1)
    if type(pending) == 'table' and not pending.err and #pending > 0 then return {'held', copy} end
  end
end
local size = string.len(ARGV[5])
if len >= tonumber(ARGV[3]) then return {'events', len} end
if len > 0 and held + size > tonumber(ARGV[4]) then return {'bytes', held} end
local id = redis.call('XADD', KEYS[1], '*', 'body', ARGV[5], 'meta', ARGV[6])
local claimed = redis.pcall('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'FORCE', 'JUSTID')
if type(claimed) == 'table' and claimed.err then
  redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0')
  redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, id, 'FORCE', 'JUSTID')
end
redis.call('SET', KEYS[2], held + size)
if len == 0 then redis.call('DEL', KEYS[3]) end
if mid ~= '' then redis.call('HSET', KEYS[3], mid, id) end
return id
`;

async function takeCost({ url, client, redisPid, template, config, problems }) {
  const { RedisConnection } = require(path.join(DIST, 'redis', 'connection.js'));
  const { RedisStreamDelivery, STREAM_GROUP } = require(path.join(DIST, 'delivery', 'stream.js'));
  const connection = new RedisConnection({ url, prefix: PREFIX }, 'bench-take');
  connection.open();
  try {
    if (!(await until(() => connection.ready, 10000))) throw new Error(`could not connect to Redis at ${url}`);
    const big = 1e15;
    const { delivery } = await RedisStreamDelivery.open({
      connection,
      name: '/bench/take',
      maxEvents: 1e6,
      maxBytes: big,
      streamMaxEvents: 1e6,
      streamMaxBytes: big,
      claimAfterMs: 3_600_000,
      claimEveryMs: 3_600_000,
    });
    delivery.awaitCompletion = true;
    const key = delivery.key;
    const keys = [key, `${key}:bytes`, `${key}:ids`];
    // The same bytes every time (Redis's work does not depend on them); the messageIds differ.
    const body = template.buffer;
    let n = 0;
    const ways = {
      script: async () => {
        const mid = `take-${n++}`;
        const meta = JSON.stringify({ messageId: mid });
        await client.sendCommand(['EVAL', OLD_ADD, '3', ...keys, STREAM_GROUP, 'bench-take', '1000000', String(big), body, meta, mid]);
      },
      transaction: async () => {
        await delivery.take({ messageId: `take-${n++}` }, body, {});
      },
    };
    const cpu = { script: 0, transaction: 0 };
    const takes = { script: 0, transaction: 0 };
    const names = Object.keys(ways);
    for (let round = 0; round < config.rounds; round++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + round) % names.length];
        const c0 = cpuSecondsOf(redisPid);
        for (let k = 0; k < config.perRound; k++) await ways[name]();
        cpu[name] += cpuSecondsOf(redisPid) - c0;
        takes[name] += config.perRound;
        // Finished outside the measure: the next round starts from an empty stream.
        const left = await client.xLen(key);
        if (left !== config.perRound) problems.push(`redis take (${name}): ${config.perRound} taken but the stream holds ${left}`);
        const pending = await client.xPending(key, STREAM_GROUP);
        if (pending.pending !== left) problems.push(`redis take (${name}): ${left} entries but ${pending.pending} pending`);
        await client.del([key, `${key}:bytes`, `${key}:ids`]);
      }
    }
    await delivery.close();
    const per = (name) => {
      const ms = (cpu[name] * 1000) / takes[name];
      return { takes: takes[name], redisCpuMsPerTake: +ms.toFixed(3), eventsPerSecondOfOneRedis: ms > 0 ? Math.round(1000 / ms) : null };
    };
    const out = { bodyBytes: template.bytes, transaction: per('transaction'), script: per('script') };
    out.transactionToScriptEventsPerSecond = ratio(out.transaction.eventsPerSecondOfOneRedis, out.script.eventsPerSecondOfOneRedis);
    return out;
  } finally {
    await connection.close();
  }
}

// ---------------------------------------------------------------- stream memory

async function pendingMemory({ nr, client, token, template, config, problems }) {
  const key = `${PREFIX}stream:/bench/redis-held`;
  await client.del([key, `${key}:bytes`]);
  const before = await memoryInfo(client);
  const used0 = await settledUsedMemory(client);
  const r = await runLoad({
    url: `${nr.url}/bench/redis-held`,
    headers: { authorization: `Bearer ${token}` },
    body: template,
    connections: config.connections,
    maxRequests: config.pending,
    idPrefix: 'held',
  });
  if (r.ok !== config.pending)
    problems.push(`redis stream memory: ${r.ok} of ${config.pending} events answered 200 (${JSON.stringify({ ...r.statuses, ...r.errors })})`);
  const used1 = await settledUsedMemory(client);
  const after = await memoryInfo(client);
  const entries = await client.xLen(key);
  const pending = await client.xPending(key, 'detection-in');
  const usage = Number(await client.sendCommand(['MEMORY', 'USAGE', key, 'SAMPLES', '0']));
  // What one entry holds besides the body: its metadata (as written by the receiver).
  const [first] = await client.xRange(key, '-', '+', { COUNT: 1 });
  const metaBytes = first ? Buffer.byteLength(first.message.meta || '') : null;
  const bodyBytes = first ? Buffer.byteLength(first.message.body || '') : null;
  if (entries !== r.ok) problems.push(`redis stream memory: ${r.ok} answered 200 but the stream holds ${entries} entries`);
  if (pending.pending !== entries) problems.push(`redis stream memory: ${entries} entries but ${pending.pending} pending`);
  await client.del([key, `${key}:bytes`]);
  const used2 = await settledUsedMemory(client);
  const n = Math.max(1, entries);
  return {
    events: entries,
    pending: pending.pending,
    bodyBytes: bodyBytes ?? template.bytes,
    metaBytes,
    usedMemoryPerEvent: Math.round((used1 - used0) / n),
    memoryUsagePerEvent: Math.round(usage / n),
    usedMemoryBefore: used0,
    usedMemoryHeld: used1,
    usedMemoryAfterDelete: used2,
    luaMemoryBefore: before.used_memory_vm_eval ?? before.used_memory_lua ?? null,
    luaMemoryAfter: after.used_memory_vm_eval ?? after.used_memory_lua ?? null,
    perEventToBody: ratio((used1 - used0) / n, bodyBytes ?? template.bytes),
  };
}

// ---------------------------------------------------------------- the part

const CAVEAT = (cpus) =>
  `The load generator, Redis and both Node-RED instances share this machine's ${cpus} CPU${cpus === 1 ? '' : 's'}, so the ratio is a floor: ` +
  'a second instance can only use the CPU time the first one, Redis and the generator leave idle. Measuring the scaling properly takes ' +
  'the generator, Redis and each instance on machines of their own (or on cores of their own: taskset or cpusets, nothing else on them), ' +
  'a load balancer in front of the instances as in production (HAProxy, nginx, a Kubernetes Service), and enough generator capacity ' +
  '(several generator processes or machines, each checked to stay below saturation), with the network between them measured as well.';

/** `ctx`: {config, token, coreUrl, execArgv, log}. */
async function runRedis(ctx) {
  const { config, token, coreUrl, execArgv = [], log } = ctx;
  const reason = skipReason();
  if (reason) {
    log(`  redis: skipped: ${reason}`);
    return { skipped: reason, problems: [] };
  }
  const problems = [];
  const out = { version: /v=([\d.]+)/.exec(execFileSync(BINARY, ['--version'], { encoding: 'utf8' }))?.[1] ?? null, cpus: os.cpus().length };
  let server;
  let replica;
  let client;
  const nrs = [];
  const removeDir = () => server && fs.rmSync(server.dir, { recursive: true, force: true });
  try {
    server = await RedisServer.start();
    process.on('exit', removeDir);
    const child = server.child;
    children.add(child);
    child.once('exit', () => children.delete(child));
    log(`bench: redis-server ${out.version} at ${server.url}, pid ${child.pid}`);
    client = await redisClient(server.url);

    log('  redis: shared dedupe checks');
    out.dedupe = await sharedDedupe({ url: server.url, client, redisPid: child.pid, config: config.dedupe, log, problems });

    // Node-RED starts only once every route answers 200, the confirming one too: a replica for that,
    // stopped again before the first rounds.
    replica = await server.startReplica();
    children.add(replica.child);

    const started = await Promise.allSettled(['A', 'B'].map((name) => startNodeRed({ name, token, coreUrl, redisUrl: server.url, execArgv, log })));
    for (const s of started) if (s.status === 'fulfilled') nrs.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    const [a, b] = nrs;
    children.delete(replica.child);
    await replica.close();
    replica = undefined;
    const watch = { nodeRed: [a.pid, b.pid], redis: child.pid };
    const auth = { authorization: `Bearer ${token}` };
    const spec = config.receiver;
    const template = body('lpr', spec.bytes);
    const streams = [`${PREFIX}stream:/bench/redis`, `${PREFIX}stream:/bench/shared`, `${PREFIX}stream:/bench/redis-confirm`];

    // Receiver: memory against Redis stream, one Node-RED, one Redis (no replica to feed, as most sites run).
    let before = await flowCount(nrs);
    const receiver = await alternate({
      targets: {
        memory: { url: `${a.url}/bench/detections`, headers: auth, idPrefix: 'rm' },
        redis: { url: `${a.url}/bench/redis`, headers: auth, idPrefix: 'rr' },
        'redis + shared dedupe': { url: `${a.url}/bench/shared`, headers: auth, idPrefix: 'rs' },
      },
      spec,
      template,
      connections: spec.connections,
      watch,
      label: 'redis receiver',
      log,
      problems,
    });
    await checkDrained({ nrs, client, before, acknowledged: receiver.acknowledged, streams, label: 'redis receiver', problems });

    // Then Confirm on replicas 1 against the stream alone, both with a replica attached (the same way
    // the tests start one): every write reaches it whether confirmed or not, so its cost is in both.
    replica = await server.startReplica();
    children.add(replica.child);
    watch.replica = replica.child.pid;
    log(`bench: redis-server replica at ${replica.url}, pid ${replica.child.pid}`);
    before = await flowCount(nrs);
    // The confirming configuration node counts its replicas once a second: 503 until it has seen this one.
    const confirmReady = await firstAccepted({
      url: `${a.url}/bench/redis-confirm`,
      headers: auth,
      template,
      messageId: 'confirm-ready'.padEnd(ID_WIDTH, '-'),
    });
    if (!confirmReady.ok) problems.push(`redis confirm: no 200 within ${confirmReady.seconds} s of the replica linking up`);
    const waits0 = await waitCalls(client);
    const confirming = await alternate({
      targets: {
        'redis, replica attached': { url: `${a.url}/bench/redis`, headers: auth, idPrefix: 'rp' },
        'redis confirm 1': { url: `${a.url}/bench/redis-confirm`, headers: auth, idPrefix: 'rc' },
      },
      spec,
      template,
      connections: spec.connections,
      watch,
      label: 'redis confirm',
      log,
      problems,
    });
    await checkDrained({
      nrs,
      client,
      before,
      acknowledged: confirming.acknowledged + (confirmReady.ok ? 1 : 0),
      streams,
      label: 'redis confirm',
      problems,
    });
    // Only the confirming configuration node sends WAIT: proof that it confirmed, and how many events shared one.
    const waits = (await waitCalls(client)) - waits0;
    const t = { ...receiver.targets, ...confirming.targets };
    const attached = t['redis, replica attached'];
    const confirmed = t['redis confirm 1'].acknowledged;
    if (confirmed > 0 && !(waits > 0))
      problems.push(`redis receiver: ${confirmed} events answered 200 on Confirm on replicas 1 but Redis counted no WAIT`);
    // Stopped: the parts after this one measure Redis as before, without a replica to feed.
    children.delete(replica.child);
    await replica.close();
    replica = undefined;
    delete watch.replica;
    out.receiver = {
      bodyBytes: template.bytes,
      connections: spec.connections,
      rounds: spec.rounds,
      secondsPerRound: spec.seconds,
      targets: t,
      ratios: {
        redisToMemoryRps: ratio(t.redis.rps, t.memory.rps),
        sharedToMemoryRps: ratio(t['redis + shared dedupe'].rps, t.memory.rps),
        redisToMemoryP99: ratio(t.redis.p99Ms, t.memory.p99Ms),
        replicaToRedisRps: ratio(attached.rps, t.redis.rps),
        confirmToRedisRps: ratio(t['redis confirm 1'].rps, attached.rps),
        confirmToRedisP50: ratio(t['redis confirm 1'].p50Ms, attached.p50Ms),
        confirmToRedisP99: ratio(t['redis confirm 1'].p99Ms, attached.p99Ms),
      },
      confirm: {
        timeoutMs: CONFIRM_TIMEOUT_MS,
        waits,
        eventsPerWait: waits > 0 ? +(confirmed / waits).toFixed(2) : null,
      },
      // One Redis's own limit for plate events, all instances together: 1 / its CPU time per event
      // accepted in stream mode (taking, finishing and the claim passes, as the receiver runs them).
      redisEventsPerSecondOfOneRedis: t.redis.cpuMsPerRequest.redis > 0 ? Math.round(1000 / t.redis.cpuMsPerRequest.redis) : null,
    };

    log('  redis: Redis CPU per event taken, the transaction against the script of before');
    out.take = await takeCost({ url: server.url, client, redisPid: child.pid, template, config: config.take, problems });
    log(
      `  redis take: ${out.take.transaction.redisCpuMsPerTake} ms of Redis CPU per event (${out.take.transaction.eventsPerSecondOfOneRedis}/s of one Redis), ` +
        `the script of before ${out.take.script.redisCpuMsPerTake} ms (${out.take.script.eventsPerSecondOfOneRedis}/s)`,
    );

    // One instance against two, in Redis-stream mode (the local dedupe: the shared one
    // would add its own limit to what is compared, see the receiver's third target).
    before = await flowCount(nrs);
    const instances = await alternate({
      targets: {
        'one instance': { url: `${a.url}/bench/redis`, headers: auth, idPrefix: 'i1' },
        'two instances': { url: [`${a.url}/bench/redis`, `${b.url}/bench/redis`], headers: auth, idPrefix: 'i2' },
      },
      spec,
      template,
      connections: spec.connections,
      watch,
      label: 'redis instances',
      log,
      problems,
    });
    await checkDrained({ nrs, client, before, acknowledged: instances.acknowledged, streams, label: 'redis instances', problems });
    const i = instances.targets;
    out.instances = {
      bodyBytes: template.bytes,
      connections: spec.connections,
      rounds: spec.rounds,
      secondsPerRound: spec.seconds,
      targets: i,
      ratios: { twoToOneRps: ratio(i['two instances'].rps, i['one instance'].rps) },
      caveat: CAVEAT(out.cpus),
    };

    // Last: the held events stay in Node-RED's memory until it stops.
    log('  redis: stream memory per pending event');
    out.stream = await pendingMemory({
      nr: a,
      client,
      token,
      template,
      config: { connections: spec.connections, pending: config.pending },
      problems,
    });
  } finally {
    for (const nr of nrs) {
      for (const line of nr.errorLines()) {
        problems.push(`Node-RED logged: ${line.trim()}`);
        log(`  Node-RED logged: ${line.trim()}`);
      }
      await nr.dispose().catch(() => {});
    }
    if (client) await client.close().catch(() => client.destroy());
    if (replica) {
      children.delete(replica.child);
      await replica.close();
    }
    if (server) {
      await server.close();
      process.removeListener('exit', removeDir);
    }
  }
  out.problems = problems;
  return out;
}

module.exports = { runRedis, CAVEAT };
