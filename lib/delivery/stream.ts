/**
 * "Acknowledge after: written to Redis": the events of one receiver path in a
 * Redis Stream shared by every Node-RED instance that serves that path.
 *
 * - Taking an event: one transaction adds the body (the bytes as received)
 *   and its metadata with a plain XADD, and a script beside it makes this
 *   instance its consumer (XCLAIM FORCE), so it is in the group's pending list
 *   from the first moment; past the stream's cap (entries or bytes) the same
 *   script deletes it again, nothing is left added and the receiver answers
 *   503 with Retry-After. Only then is the event answered 200.
 * - A resend (the same messageId) while an entry of it is pending at any
 *   instance is not added: the same script looks its messageId up in a hash
 *   beside the stream (`<stream>:ids`), answers the pending entry instead and
 *   deletes the resend's own XADD in the same transaction.
 * - Finishing it (detection-done, or at once when the flows have none): XACK
 *   and XDEL in one script, and the byte count goes down.
 * - Entries pending longer than `claimAfterMs` (their instance died, or its
 *   flow is stuck) are claimed by a live instance with XAUTOCLAIM and emitted
 *   again, flagged as redelivered. An instance that restarts under the same
 *   name finds its own pending entries at once.
 *
 * The event itself stays in this process by reference while its flow runs;
 * bodies are read back from Redis only for entries claimed or recovered.
 * Redis unreachable: every new event is refused with 503 (the bridge keeps
 * it); completions that could not be written are retried once it is back.
 *
 * Attempts and dead letters (stream-dead-letters.ts): each emission is an
 * attempt, counted by the group's own delivery counter, so attempts count
 * across restarts and instances. A failed attempt (`fail()`, or claimed past
 * *claim after*) is paused and tried again (this instance keeps the entry's
 * idle time fresh meanwhile, so no other one claims it early), or, after
 * `maxAttempts`, moved to the dead letters shared by every instance.
 */
import { systemClock, type Clock } from '../core/clock';
import { BUFFER_REPLIES, luaScript, runScript, type RedisConnection } from '../redis';
import { takeEach } from './adopt';
import { BusyError, InFlightBudget } from './budget';
import { messageIdOf } from './resend';
import { CLAIM, DEAD, DISCARD, KEEP, RECOVER, REPLAY, deadLetterOf, formatFailure, parseFailure } from './stream-dead-letters';
import { DEFAULT_RETRY_POLICY, retryPause } from './retry';
import {
  type DeadLetter,
  type DeliveryId,
  type DeliveryRecord,
  type DeliveryStats,
  type EventDelivery,
  type FailureNotice,
  type RetryPolicy,
  type StagedDelivery,
} from './types';

export interface StreamDeliveryOptions {
  connection: RedisConnection;
  /** Names the stream: every instance serving this path shares it. */
  name: string;
  /** Events held by this instance at most (taken here or claimed, not finished). */
  maxEvents: number;
  /** Bytes of events held by this instance at most. */
  maxBytes: number;
  /** Entries in the stream at most (all instances). */
  streamMaxEvents: number;
  /** Bytes of bodies in the stream at most (all instances). */
  streamMaxBytes: number;
  /** Claim an entry left pending this long (by any instance, this one included). */
  claimAfterMs: number;
  /** How often to look for such entries; default a quarter of claimAfterMs, 100 ms to 5 s. */
  claimEveryMs?: number;
  /** Attempts, pauses and dead letters; DEFAULT_RETRY_POLICY when absent. */
  retry?: RetryPolicy;
  clock?: Clock;
}

/** DeliveryStats, and the entries of the stream now (every instance's events in flight), as last read. */
export interface StreamDeliveryStats extends DeliveryStats {
  /** XLEN of the stream, read with each claim pass (every claimEveryMs); undefined until read. */
  streamPending: number | undefined;
}

/** The consumer group of every receiver stream. */
export const STREAM_GROUP = 'detection-in';
/** Entries fetched per command when claiming or recovering. */
const READ_COUNT = 50;
/** Completions kept for a retry while Redis is unreachable, at most. */
const MAX_UNACKED = 100_000;
/** The shortest wait between two passes (a pause ending, a dead letter to write again). */
const MIN_TICK_MS = 100;
/** The last error of an attempt cut short by a restart or a deploy. */
const INTERRUPTED = 'Node-RED stopped or the flow was redeployed during this attempt';
/** An error is kept with its event (in Redis, and listed) up to this many characters. */
const MAX_ERROR_CHARS = 1000;
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
const DONE = luaScript(`
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

interface Held<M> {
  bytes: number;
  meta: M;
  /** Taken here: the parsed event, by reference. */
  event?: unknown;
  /** Claimed or recovered: the body read back from Redis. */
  body?: Buffer;
  /** When it was last emitted (0: due for redelivery); undefined: not in the flow (new, or paused). */
  emittedAt?: number;
  /** The number of its current or next emission; Redis's counter of the entry once it went out. */
  attempt: number;
  /** Emission `attempt` went out: emitting it again is the next attempt. */
  out: boolean;
  /** An attempt of it failed before (its first failure was told). */
  failedBefore: boolean;
  lastError?: string;
  /** Paused after a failure, or replayed: emitted by overdue() from then. */
  dueAt?: number;
  /** Paused: when its idle time in Redis was last reset. */
  keptAt?: number;
  /** To be dead-lettered with this error (Redis was out of reach, or read back exhausted). */
  bury?: string;
  /** Written, not confirmed on replicas or on disk (answered 503): handed out once a resend is confirmed. */
  unconfirmed?: boolean;
}

export class RedisStreamDelivery<M = unknown> implements EventDelivery<M> {
  readonly mode = 'redis' as const;
  awaitCompletion = false;
  onComplete: (() => void) | undefined;
  onOverdue: (() => void) | undefined;
  /** Called when this instance's own pending entries were read back after open (Redis was not
   *  reachable then), with them: they are held, due for redelivery; set by the owner. */
  onRecovered: ((records: DeliveryRecord<M>[]) => void) | undefined;
  /** Called on an event's first failure and when it is dead-lettered; set by the owner. */
  onFailure: ((notice: FailureNotice<M>) => void) | undefined;
  /** Entries claimed from the pending list so far (from any instance). */
  claimed = 0;
  /** Resends absorbed since this store opened: their messageId was pending in the stream already. */
  absorbed = 0;

  private readonly held = new Map<string, Held<M>>();
  private readonly budget: InFlightBudget;
  private readonly streamKey: string;
  private readonly bytesKey: string;
  /** messageId → entry id of the entries in the stream (resend.ts). */
  private readonly idsKey: string;
  /** Written and deleted inside each add's transaction (PREPARE → TAKE); never there between two. */
  private readonly scratchKey: string;
  /** stream, bytes, failures, dead letters, dead-letter index: the keys of the dead-letter scripts. */
  private readonly keys: string[];
  private readonly policy: RetryPolicy;
  /** Held entries paused, replayed or waiting to be dead-lettered: what overdue() looks at besides claims. */
  private readonly paused = new Set<string>();
  private counts = { redelivered: 0, failed: 0, deadLettered: 0, deadLettersDropped: 0 };
  private deadLetterCount = 0;
  private streamPending: number | undefined;
  /** A pass was asked for while one ran: run another after it. */
  private passAgain = false;
  private timerAt = Infinity;
  private readonly clock: Clock;
  private timer: unknown;
  private closed = false;
  private opened = false;
  private claiming = false;
  /** Completions not written yet (Redis unreachable): id → body size or -1. */
  private readonly unacked = new Map<string, number>();
  private readonly stopWatching: () => void;
  /** Once closed: the next instance of the receiver, which finishes what arrives here late. */
  private successor: RedisStreamDelivery<M> | undefined;
  /** Whether this instance's own pending entries have been read back. */
  private recovered = false;

  private constructor(private readonly options: StreamDeliveryOptions) {
    this.streamKey = options.connection.key('stream', options.name);
    this.bytesKey = `${this.streamKey}:bytes`;
    this.idsKey = `${this.streamKey}:ids`;
    this.scratchKey = `${this.streamKey}:adding`;
    this.keys = [this.streamKey, this.bytesKey, `${this.streamKey}:failures`, `${this.streamKey}:dead`, `${this.streamKey}:dead:index`];
    this.policy = options.retry ?? DEFAULT_RETRY_POLICY;
    this.clock = options.clock ?? systemClock;
    this.budget = new InFlightBudget(options.maxEvents, options.maxBytes, () => this.held.size);
    this.stopWatching = options.connection.use((state) => {
      if (state !== 'connected') return;
      void this.flushUnacked();
      // Opened while Redis was out of reach (Node-RED starting): read back what is ours now.
      if (!this.recovered && this.opened && !this.closed) {
        this.recovered = true;
        this.recoverOwn().then(
          (records) => {
            if (records.length > 0) this.onRecovered?.(records);
          },
          () => (this.recovered = false),
        );
      }
    });
  }

  /**
   * Opens the stream of `name`; `recovered` are the entries this instance
   * (by its name) left pending before a restart or a deploy, to emit again.
   * Redis unreachable now: opens anyway, with nothing recovered (they are
   * claimed later, by the time limit).
   */
  static async open<M>(
    options: StreamDeliveryOptions,
    /** The receiver's previous instance (closed), whose completions this one takes over. */
    previous?: RedisStreamDelivery<M>,
  ): Promise<{ delivery: RedisStreamDelivery<M>; recovered: DeliveryRecord<M>[] }> {
    const delivery = new RedisStreamDelivery<M>(options);
    previous?.handOver(delivery);
    let recovered: DeliveryRecord<M>[] = [];
    if (options.connection.ready) {
      delivery.recovered = true;
      recovered = await delivery.recoverOwn().catch(() => {
        delivery.recovered = false;
        return [];
      });
      delivery.deadLetterCount = await options.connection.answer(options.connection.client.hLen(delivery.keys[4])).catch(() => 0);
    }
    delivery.opened = true;
    delivery.schedule();
    return { delivery, recovered };
  }

  get pending(): { events: number; bytes: number } {
    return { events: this.held.size, bytes: this.budget.bytes };
  }

  get journalBytes(): number {
    return 0;
  }

  /** The stream's key in Redis. */
  get key(): string {
    return this.streamKey;
  }

  checkRoom(bytes = 0): void {
    this.options.connection.assertReady();
    this.options.connection.confirmer.assertConfirmable();
    this.budget.check(bytes);
  }

  stage(_journalMeta: unknown, body: Buffer | undefined): StagedDelivery<M> {
    const connection = this.options.connection;
    connection.assertReady();
    // Asked to confirm on disk where the server cannot: refused before anything is written.
    connection.confirmer.assertConfirmable();
    return this.budget.stage<M>(body?.length ?? 0, async (meta, event) => {
      const added = await this.add(body ?? Buffer.from(JSON.stringify(event)), meta);
      if (typeof added === 'object') {
        // A resend of an entry pending here or at another instance: that one is emitted (again) and finished.
        // Confirmed like a new one: this connection's WAIT comes after the pending entry's write, so covers it.
        await connection.confirmer.confirm();
        this.absorbed++;
        this.resent(added.absorbed);
        return added;
      }
      const entry: Held<M> = { bytes: body?.length ?? 0, meta, event, attempt: 1, out: false, failedBefore: false };
      this.held.set(added, entry);
      try {
        await connection.confirmer.confirm();
      } catch (err) {
        this.unconfirmed(added, entry);
        throw err;
      }
      return added;
    });
  }

  /**
   * An event written but not confirmed on replicas or on disk in time: it is answered 503 and stays
   * pending for this instance, held here but not handed out, so the bridge's resend is absorbed (the
   * same messageId pending) rather than taken twice; once a resend is confirmed (resent()), it goes out.
   * A resend that reaches another instance is absorbed there: then this one is handed out when claimed,
   * after claimAfterMs, as an event whose instance stopped.
   */
  private unconfirmed(id: string, entry: Held<M>): void {
    if (this.held.get(id) !== entry) return;
    // The staged bytes are given back by the failed commit: held now, they count here.
    this.budget.add(entry.bytes);
    entry.unconfirmed = true;
  }

  /** A resend absorbed by entry `id` and confirmed: if that one waits here unconfirmed, it is handed out now. */
  private resent(id: DeliveryId): void {
    const entry = this.held.get(String(id));
    if (!entry?.unconfirmed) return;
    entry.unconfirmed = false;
    const now = this.clock.now();
    entry.dueAt = now;
    entry.keptAt = now;
    this.paused.add(String(id));
    setImmediate(() => this.onOverdue?.());
  }

  async take(meta: M, body: Buffer | undefined, event: unknown): Promise<DeliveryId> {
    return this.stage(meta, body).commit(meta, event);
  }

  async adopt(records: DeliveryRecord<M>[]): Promise<void> {
    const counters: string[] = [];
    for (const { record, id } of await takeEach(this, records)) {
      const entry = this.held.get(String(id));
      if (!entry) continue;
      entry.emittedAt = 0;
      // Attempts made in the store it comes from (memory or disk mode) go on counting here.
      if (record.attempt !== undefined && record.attempt > 1) {
        entry.attempt = record.attempt;
        counters.push(String(id), String(record.attempt), '');
      }
    }
    if (counters.length > 0) await this.keep(counters).catch(() => undefined);
  }

  park(id: DeliveryId): void {
    const entry = this.held.get(String(id));
    if (entry) entry.emittedAt = 0;
  }

  emitted(id: DeliveryId): void {
    const entry = this.held.get(String(id));
    if (!entry) return;
    if (entry.emittedAt !== undefined || entry.attempt > 1) this.counts.redelivered++;
    entry.out = true;
    if (!this.awaitCompletion) {
      this.complete(id);
      return;
    }
    entry.emittedAt = this.clock.now();
  }

  /** Finishes the event: acknowledged and removed from the stream (retried later if Redis is unreachable). */
  complete(id: DeliveryId): boolean {
    const key = String(id);
    // Closed by a deploy: a message of the old flow finished late belongs to the next instance.
    if (this.successor) return this.successor.complete(key);
    if (this.closed) {
      if (this.unacked.size < MAX_UNACKED) this.unacked.set(key, this.held.get(key)?.bytes ?? -1);
      return this.held.has(key);
    }
    const entry = this.held.get(key);
    if (entry) {
      this.held.delete(key);
      this.budget.remove(entry.bytes);
      this.paused.delete(key);
    }
    void this.remove(key, entry ? entry.bytes : -1, messageIdOf(entry?.meta));
    this.onComplete?.();
    return entry !== undefined;
  }

  /**
   * The flow said the event failed: attempt n is counted. Past maxAttempts it
   * is dead-lettered (its slot freed once that is written); else it stays
   * pending for this instance, paused, and overdue() hands it out again when
   * the pause ends. Its failure is written to Redis, so another instance that
   * claims it (this one gone) knows the attempt and the pause.
   */
  fail(id: DeliveryId, reason: string): boolean {
    const key = String(id);
    if (this.successor) return this.successor.fail(key, reason);
    const error = String(reason).slice(0, MAX_ERROR_CHARS);
    const entry = this.held.get(key);
    if (this.closed || !entry || entry.emittedAt === undefined || !entry.out || entry.bury !== undefined) return false;
    this.counts.failed++;
    const first = !entry.failedBefore;
    entry.failedBefore = true;
    entry.lastError = error;
    entry.emittedAt = undefined;
    if (entry.attempt >= this.policy.maxAttempts) {
      void this.bury(key, entry, error);
      return true;
    }
    const now = this.clock.now();
    entry.dueAt = now + retryPause(this.policy, entry.attempt);
    entry.keptAt = now;
    this.paused.add(key);
    this.keep([key, '', formatFailure({ attempt: entry.attempt, dueAt: entry.dueAt, error })]).then(
      (mine) => {
        if (mine[0] === 0) this.letGo(key, entry);
      },
      // Redis out of reach: paused here all the same; should this instance die meanwhile, the
      // instance that claims the event counts the attempt as not finished in time instead.
      () => undefined,
    );
    if (first) this.notify('failed', key, entry, entry.attempt, error);
    if (entry.dueAt < this.timerAt) this.schedule();
    return true;
  }

  finishEmitted(): number {
    let count = 0;
    for (const [id, entry] of [...this.held.entries()]) {
      if (entry.emittedAt !== undefined && this.complete(id)) count++;
    }
    return count;
  }

  /**
   * Events emitted before `emittedBefore` and not finished, to emit again: each
   * is its next attempt (Redis's counter follows), and one whose last attempt
   * was cut short is dead-lettered instead. Paused events are not among them.
   */
  async unfinished(emittedBefore = Infinity): Promise<DeliveryRecord<M>[]> {
    const out: DeliveryRecord<M>[] = [];
    const counters: string[] = [];
    for (const [id, entry] of this.held) {
      if (entry.emittedAt === undefined || entry.emittedAt > emittedBefore || entry.bury !== undefined) continue;
      if (!this.nextAttempt(id, entry, INTERRUPTED, counters)) continue;
      out.push(this.recordOf(id, entry));
    }
    if (counters.length > 0) await this.keepOrLetGo(counters);
    return out.filter((record) => this.held.has(String(record.id)));
  }

  /**
   * What is due now: paused events whose pause ended (and replayed ones), then
   * entries left pending longer than claimAfterMs, by any instance, claimed for
   * this one (XAUTOCLAIM). Entries deleted meanwhile are dropped from the
   * pending list by Redis itself. Also dead-letters what could not be earlier,
   * and keeps paused entries from being claimed by another instance.
   */
  async overdue(): Promise<DeliveryRecord<M>[]> {
    const connection = this.options.connection;
    if (!connection.ready || this.closed) return [];
    if (this.claiming) {
      this.passAgain = true;
      return [];
    }
    this.claiming = true;
    const out: DeliveryRecord<M>[] = [];
    try {
      await this.dueInto(out);
      await this.claimInto(out);
    } catch {
      // Redis went away mid-pass: what was claimed is emitted; the rest waits for the next pass.
    } finally {
      this.claiming = false;
    }
    if (this.passAgain && !this.closed) {
      this.passAgain = false;
      setImmediate(() => this.onOverdue?.());
    }
    return out;
  }

  /** Dead letters of this receiver path (every instance's), oldest first, without their bodies. */
  async deadLetters(): Promise<DeadLetter[]> {
    this.options.connection.assertReady();
    const summaries = await this.options.connection.answer(this.options.connection.client.hVals(this.keys[4]));
    const letters = summaries.map((text) => deadLetterOf(text)).filter((letter) => letter !== undefined);
    letters.sort((a, b) => (a.at === b.at ? 0 : streamIdAfter(a.at, b.at) ? 1 : -1));
    this.deadLetterCount = letters.length;
    return letters.map(({ at: _at, ...letter }) => letter);
  }

  /**
   * Moves dead letters back into the stream, pending for this instance with
   * a fresh count of attempts (as many as this instance has room for), and
   * asks for a pass (onOverdue) that hands them out.
   */
  async replay(ids?: string[]): Promise<number> {
    const connection = this.options.connection;
    connection.assertReady();
    if (this.closed || (ids && ids.length === 0)) return 0;
    const room = this.budget.room;
    if (room <= 0) throw new BusyError('events', `${this.held.size} events are in flight, the limit of this receiver`);
    const [rows, kept] = await connection.answer(
      runScript<[Array<[Buffer, Buffer, Buffer, Buffer]>, number]>(
        connection.client,
        REPLAY,
        this.keys,
        [STREAM_GROUP, connection.instance, String(room), ...(ids ?? [])],
        BUFFER_REPLIES,
      ),
    );
    this.deadLetterCount = kept;
    const now = this.clock.now();
    for (const [id, body, meta] of rows) {
      const key = id.toString();
      const entry = this.hold(key, body, meta, 1);
      entry.emittedAt = undefined;
      entry.dueAt = now;
      entry.keptAt = now;
      this.paused.add(key);
    }
    if (rows.length > 0) setImmediate(() => this.onOverdue?.());
    return rows.length;
  }

  async discard(ids?: string[]): Promise<number> {
    this.options.connection.assertReady();
    if (ids && ids.length === 0) return 0;
    const [count, kept] = await this.options.connection.answer(
      runScript<[number, number]>(this.options.connection.client, DISCARD, [this.keys[3], this.keys[4]], ids ?? []),
    );
    this.deadLetterCount = kept;
    return count;
  }

  get stats(): StreamDeliveryStats {
    let oldest: number | undefined;
    for (const entry of this.held.values()) {
      const at = receivedAtOf(entry.meta);
      if (at !== undefined && (oldest === undefined || at < oldest)) oldest = at;
    }
    return { ...this.counts, deadLetters: this.deadLetterCount, oldestUnfinishedAt: oldest, streamPending: this.streamPending };
  }

  /** Paused, replayed and to-be-dead-lettered entries: hands out those due, keeps the others ours. */
  private async dueInto(out: DeliveryRecord<M>[]): Promise<void> {
    if (this.paused.size === 0) return;
    const now = this.clock.now();
    const counters: string[] = [];
    const due: string[] = [];
    for (const key of [...this.paused]) {
      const entry = this.held.get(key);
      if (!entry) {
        this.paused.delete(key);
        continue;
      }
      if (entry.bury !== undefined) await this.bury(key, entry, entry.bury);
      else if (entry.dueAt !== undefined && entry.dueAt <= now) {
        if (!this.nextAttempt(key, entry, entry.lastError ?? INTERRUPTED, counters)) continue;
        if (!counters.includes(key)) counters.push(key, '', '');
        due.push(key);
      } else if (now - (entry.keptAt ?? 0) >= this.options.claimAfterMs / 2) {
        // Not claimed by another instance while paused here (however long the pause).
        counters.push(key, '', '');
        entry.keptAt = now;
      }
    }
    if (counters.length > 0) await this.keepOrLetGo(counters);
    for (const key of due) {
      const entry = this.held.get(key);
      if (!entry) continue;
      this.paused.delete(key);
      entry.dueAt = undefined;
      entry.emittedAt = 0;
      out.push(this.recordOf(key, entry));
    }
  }

  private async claimInto(out: DeliveryRecord<M>[]): Promise<void> {
    const connection = this.options.connection;
    const timeout = `not finished within ${this.options.claimAfterMs / 1000} s of its emission`;
    let cursor = '0-0';
    // One pass over the pending list, bounded by what this instance may hold.
    do {
      const room = this.budget.room;
      if (room <= 0) break;
      const now = this.clock.now();
      const [next, rows, dropped, length, kept] = await connection.answer(
        runScript<[Buffer, Array<[Buffer, Buffer[], number, Buffer, Buffer, Buffer]>, number, number, number]>(
          connection.client,
          CLAIM,
          this.keys,
          [
            STREAM_GROUP,
            connection.instance,
            String(this.options.claimAfterMs),
            cursor,
            String(Math.min(READ_COUNT, room)),
            String(this.policy.maxAttempts),
            String(this.policy.maxDeadLetters),
            String(now),
            timeout,
          ],
          BUFFER_REPLIES,
        ),
      );
      cursor = next.toString();
      this.counts.deadLettersDropped += dropped;
      this.streamPending = length;
      this.deadLetterCount = kept;
      for (const [rawId, fields, attempt, rawKind, rawDue, rawError] of rows) {
        const id = rawId.toString();
        const kind = rawKind.toString();
        const error = rawError.toString();
        const { body, meta } = fieldsOf(fields);
        const previous = this.held.get(id);
        if (kind === 'dead') {
          this.counts.failed++;
          this.counts.deadLettered++;
          if (previous) this.letGo(id, previous);
          this.notify('dead-letter', id, { meta: parseMeta<M>(meta), event: previous?.event, body }, attempt, error);
          continue;
        }
        if (!body) continue;
        this.claimed++;
        const entry = this.hold(id, body, meta, attempt);
        entry.failedBefore = kind !== 'first';
        entry.lastError = error;
        if (kind === 'paused') {
          entry.out = true;
          entry.emittedAt = undefined;
          entry.dueAt = Number(rawDue.toString());
          entry.keptAt = now;
          this.paused.add(id);
          continue;
        }
        if (kind === 'first' || kind === 'failed') this.counts.failed++;
        if (kind === 'first') this.notify('failed', id, entry, attempt - 1, error);
        out.push(this.recordOf(id, entry));
      }
    } while (cursor !== '0-0' && !this.closed);
    if (this.paused.size > 0) this.schedule();
  }

  /**
   * Before an entry that went out is emitted again: the next attempt (its
   * counter in Redis set through `counters`), or, when its attempts are used
   * up, dead-lettered with `error` (false).
   */
  private nextAttempt(key: string, entry: Held<M>, error: string, counters: string[]): boolean {
    if (!entry.out) return true;
    if (entry.attempt >= this.policy.maxAttempts) {
      entry.emittedAt = undefined;
      void this.bury(key, entry, entry.lastError ?? error);
      return false;
    }
    entry.attempt++;
    entry.out = false;
    counters.push(key, String(entry.attempt), '');
    return true;
  }

  /** Runs KEEP; entries no longer pending for this instance (another claimed them) are let go. */
  private async keepOrLetGo(counters: string[]): Promise<void> {
    let mine: number[];
    try {
      mine = await this.keep(counters);
    } catch {
      return; // Redis out of reach: emitted anyway; its counter follows at the next failure or claim
    }
    for (let i = 0; i < mine.length; i++) {
      if (mine[i] !== 0) continue;
      const key = counters[i * 3];
      const entry = this.held.get(key);
      if (entry) this.letGo(key, entry);
    }
  }

  private async keep(counters: string[]): Promise<number[]> {
    const connection = this.options.connection;
    connection.assertReady();
    return connection.answer(
      runScript<number[]>(connection.client, KEEP, [this.streamKey, this.keys[2]], [STREAM_GROUP, connection.instance, ...counters]),
    );
  }

  /** Forgets an entry this instance no longer holds in Redis (dead-lettered, or claimed by another instance). */
  private letGo(key: string, entry: Held<M>): void {
    if (this.held.get(key) !== entry) return;
    this.held.delete(key);
    this.budget.remove(entry.bytes);
    this.paused.delete(key);
    this.onComplete?.();
  }

  /**
   * Dead-letters an entry held here, atomically (one script); its slot is freed
   * once that is written. Redis out of reach: marked, and tried again by the
   * next pass.
   */
  private async bury(key: string, entry: Held<M>, error: string): Promise<void> {
    const connection = this.options.connection;
    const first = entry.bury === undefined;
    entry.bury = error;
    this.paused.add(key);
    if (!connection.ready) {
      if (first) this.schedule();
      return;
    }
    let reply: [number, number, number];
    try {
      reply = await connection.answer(
        runScript<[number, number, number]>(connection.client, DEAD, this.keys, [
          STREAM_GROUP,
          connection.instance,
          key,
          String(entry.attempt),
          error,
          String(this.clock.now()),
          String(this.policy.maxDeadLetters),
        ]),
      );
    } catch {
      if (first) this.schedule();
      return;
    }
    const [moved, dropped, kept] = reply;
    this.deadLetterCount = kept;
    this.letGo(key, entry);
    if (moved !== 1) return;
    this.counts.deadLettered++;
    this.counts.deadLettersDropped += dropped;
    this.notify('dead-letter', key, entry, entry.attempt, error);
  }

  private notify(
    stage: FailureNotice<M>['stage'],
    id: string,
    entry: Pick<Held<M>, 'meta' | 'event' | 'body'>,
    attempts: number,
    error: string,
  ): void {
    const listener = this.onFailure;
    if (!listener) return;
    try {
      listener({ stage, record: { id, meta: entry.meta, event: entry.event, body: entry.body, attempt: attempts }, attempts, error });
    } catch {
      // the owner's listener failing must not stop delivery
    }
  }

  private recordOf(id: string, entry: Held<M>): DeliveryRecord<M> {
    return { id, meta: entry.meta, event: entry.event, body: entry.body, attempt: entry.attempt };
  }

  /**
   * The next instance of the same receiver (a deploy) takes over what this
   * closed one could not finish: completions not written yet (its connection
   * may be gone), and those that arrive from now on.
   */
  handOver(next: RedisStreamDelivery<M>): void {
    if (!this.closed || next === this) return;
    this.successor = next;
    for (const [id, size] of this.unacked) next.finishLater(id, size);
    this.unacked.clear();
  }

  /** A completion handed over by the previous instance: written now or once Redis is back, never emitted again. */
  private finishLater(id: string, size: number): void {
    if (this.held.has(id)) this.complete(id);
    else if (this.unacked.size < MAX_UNACKED) this.unacked.set(id, size);
    if (this.options.connection.ready) void this.flushUnacked();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    this.stopWatching();
  }

  /** Adds an entry and makes this instance its consumer; BusyError past the stream's cap; `{ absorbed }`
   *  with the pending entry of the same messageId instead of adding a resend of it. */
  private async add(body: Buffer, meta: M): Promise<string | { absorbed: string }> {
    const connection = this.options.connection;
    connection.assertReady();
    const keys = [this.streamKey, this.bytesKey, this.idsKey, this.scratchKey];
    // EVAL, not EVALSHA: a script unknown to Redis (restarted) would fail inside the transaction, after which
    // the XADD would still run; Redis finds a script it has by its source's hash, so this costs microseconds.
    const transaction = connection.client
      .multi()
      .addCommand(['EVAL', PREPARE, String(keys.length), ...keys])
      .addCommand(['XADD', this.streamKey, '*', 'body', body, 'meta', JSON.stringify(meta)])
      .addCommand([
        'EVAL',
        TAKE,
        String(keys.length),
        ...keys,
        STREAM_GROUP,
        connection.instance,
        String(this.options.streamMaxEvents),
        String(this.options.streamMaxBytes),
        String(body.length),
        messageIdOf(meta) ?? '',
      ])
      .exec();
    const replies = await connection.answer(transaction);
    const reply = replies[2] as unknown as string | [string, number | string];
    if (typeof reply === 'string') return reply;
    const [reason, value] = reply;
    if (reason === 'held') return { absorbed: String(value) };
    if (reason === 'events') throw new BusyError('stream', `the Redis stream holds ${value} events, its limit`);
    if (reason === 'bytes')
      throw new BusyError('stream', `the Redis stream holds ${value} bytes of events, its limit is ${this.options.streamMaxBytes}`);
    throw new Error(`the event could not be added to the Redis stream (${value})`);
  }

  /** Finishes entry `id` in Redis. Without its messageId (a completion written late) the entry's index
   *  line stays until the stream is next empty; ADD checks that an indexed entry is still pending. */
  private async remove(id: string, size: number, messageId?: string): Promise<void> {
    const connection = this.options.connection;
    try {
      connection.assertReady();
      await connection.answer(
        runScript<number>(
          connection.client,
          DONE,
          [this.streamKey, this.bytesKey, this.idsKey, this.keys[2]],
          [STREAM_GROUP, id, String(size), messageId ?? ''],
        ),
      );
      this.unacked.delete(id);
    } catch {
      // Until written, the entry stays pending: claimed and emitted again if Redis loses this retry too.
      if (this.unacked.size < MAX_UNACKED) this.unacked.set(id, size);
    }
  }

  private async flushUnacked(): Promise<void> {
    for (const [id, size] of [...this.unacked]) {
      if (!this.options.connection.ready) return;
      await this.remove(id, size);
    }
  }

  /**
   * This instance's own pending entries (by its name), read back after a
   * restart or a deploy: each is held for redelivery as its next attempt; one
   * paused by a failure stays paused until due; one whose last attempt was cut
   * short and was its last is dead-lettered at the next pass.
   */
  private async recoverOwn(): Promise<DeliveryRecord<M>[]> {
    const connection = this.options.connection;
    const out: DeliveryRecord<M>[] = [];
    // Read back late (Redis reached after open), this instance may be taking events meanwhile:
    // only what the stream held before this read is from an earlier instance (sent before any add).
    const last = (await connection.answer(connection.client.sendCommand(['XREVRANGE', this.streamKey, '+', '-', 'COUNT', '1']))) as Array<
      [string, unknown]
    > | null;
    const ceiling = last?.[0]?.[0] === undefined ? undefined : String(last[0][0]);
    if (ceiling === undefined) return out;
    const now = this.clock.now();
    let start = '-';
    for (;;) {
      const rows = await connection.answer(
        runScript<Array<[Buffer, Buffer[], number, Buffer]>>(
          connection.client,
          RECOVER,
          [this.streamKey, this.keys[2]],
          [STREAM_GROUP, connection.instance, start, String(READ_COUNT)],
          BUFFER_REPLIES,
        ),
      );
      const counters: string[] = [];
      const page: DeliveryRecord<M>[] = [];
      for (const [rawId, fields, count, rawFailure] of rows) {
        const id = rawId.toString();
        start = `(${id}`;
        // finished already, its completion not written yet (handed over by a deploy): not emitted again
        if (this.unacked.has(id)) continue;
        // taken or claimed by this instance itself: tracked already
        if (this.held.has(id) || streamIdAfter(id, ceiling)) continue;
        const { body, meta } = fieldsOf(fields);
        if (!body) {
          // Deleted since (finished, its acknowledgement lost): drop it from the pending list.
          void connection.client.sendCommand(['XACK', this.streamKey, STREAM_GROUP, id]).catch(() => undefined);
          continue;
        }
        const failure = parseFailure(rawFailure.toString());
        const entry = this.hold(id, body, meta, count);
        entry.out = true;
        entry.failedBefore = failure !== undefined;
        entry.lastError = failure?.error;
        const paused = failure !== undefined && failure.attempt === count;
        if (paused && failure.dueAt > now) {
          entry.emittedAt = undefined;
          entry.dueAt = failure.dueAt;
          entry.keptAt = now;
          this.paused.add(id);
          counters.push(id, '', '');
        } else if (count >= this.policy.maxAttempts) {
          entry.emittedAt = undefined;
          entry.bury = paused ? failure.error : INTERRUPTED;
          this.paused.add(id);
        } else {
          entry.attempt = count + 1;
          entry.out = false;
          counters.push(id, String(entry.attempt), '');
          page.push(this.recordOf(id, entry));
        }
      }
      if (counters.length > 0) await this.keepOrLetGo(counters);
      for (const record of page) if (this.held.has(String(record.id))) out.push(record);
      if (rows.length < READ_COUNT) break;
    }
    if (this.paused.size > 0) this.schedule();
    return out;
  }

  /** Holds an entry read back from Redis (claimed, recovered, replayed) as due for redelivery. */
  private hold(id: string, body: Buffer, rawMeta: Buffer | undefined, attempt: number): Held<M> {
    const previous = this.held.get(id);
    if (previous) this.budget.remove(previous.bytes);
    this.paused.delete(id);
    const entry: Held<M> = {
      bytes: body.length,
      meta: parseMeta<M>(rawMeta),
      body,
      event: previous?.event,
      emittedAt: 0,
      attempt,
      out: false,
      failedBefore: previous?.failedBefore ?? false,
    };
    this.held.set(id, entry);
    this.budget.add(body.length);
    return entry;
  }

  /** The next pass: every claimEveryMs, sooner when a pause ends or a dead letter waits to be written. */
  private schedule(): void {
    if (this.closed) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    const every = this.options.claimEveryMs ?? Math.min(5000, Math.max(100, this.options.claimAfterMs / 4));
    const now = this.clock.now();
    let delay = every;
    // Redis out of reach: nothing can be handed out or written before it is back.
    if (this.options.connection.ready)
      for (const key of this.paused) {
        const entry = this.held.get(key);
        if (!entry) continue;
        const at = entry.bury !== undefined ? now : (entry.dueAt ?? Infinity);
        delay = Math.min(delay, Math.max(MIN_TICK_MS, at - now));
      }
    this.timerAt = now + delay;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      if (this.closed) return;
      this.onOverdue?.();
      this.schedule();
    }, delay);
  }
}

/** The body and meta of an entry's flat field list [field, value, …]. */
function fieldsOf(fields: Buffer[] | null | undefined): { body: Buffer | undefined; meta: Buffer | undefined } {
  let body: Buffer | undefined;
  let meta: Buffer | undefined;
  if (!fields) return { body, meta };
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i].toString();
    if (name === 'body') body = fields[i + 1];
    else if (name === 'meta') meta = fields[i + 1];
  }
  return { body, meta };
}

function parseMeta<M>(raw: Buffer | undefined): M {
  if (!raw) return {} as M;
  try {
    return JSON.parse(raw.toString()) as M;
  } catch {
    return {} as M;
  }
}

/** When an event was received (its meta's receivedAt: an ISO time, or ms), in ms since the epoch. */
function receivedAtOf(meta: unknown): number | undefined {
  const value = (meta as { receivedAt?: unknown } | undefined)?.receivedAt;
  const at = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(at) ? at : undefined;
}

/** Whether stream entry id `id` (`ms-seq`) comes after `than`. */
export function streamIdAfter(id: string, than: string): boolean {
  const [ms, seq] = id.split('-').map(Number);
  const [thanMs, thanSeq] = than.split('-').map(Number);
  return ms > thanMs || (ms === thanMs && (seq ?? 0) > (thanSeq ?? 0));
}
