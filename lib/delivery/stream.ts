/**
 * "Acknowledge after: written to Redis": the events of one receiver path in a
 * Redis Stream shared by every Node-RED instance that serves that path.
 *
 * - Taking an event: one script adds the body (the bytes as received) and its
 *   metadata with XADD and makes this instance its consumer (XCLAIM FORCE),
 *   so it is in the group's pending list from the first moment; past the
 *   stream's cap (entries or bytes) nothing is added and the receiver answers
 *   503 with Retry-After. Only then is the event answered 200.
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
 */
import { systemClock, type Clock } from '../core/clock';
import { BUFFER_REPLIES, luaScript, runScript, type RedisConnection } from '../redis';
import { BusyError, InFlightBudget } from './budget';
import type { DeadLetter, DeliveryId, DeliveryRecord, DeliveryStats, EventDelivery, FailureNotice, StagedDelivery } from './types';

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
  clock?: Clock;
}

/** The consumer group of every receiver stream. */
export const STREAM_GROUP = 'detection-in';
/** Entries fetched per command when claiming or recovering. */
const READ_COUNT = 50;
/** Completions kept for a retry while Redis is unreachable, at most. */
const MAX_UNACKED = 100_000;

const ADD = luaScript(`
local len = redis.call('XLEN', KEYS[1])
local held = tonumber(redis.call('GET', KEYS[2]) or '0')
if len == 0 then held = 0 end
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
return id
`);

/** ARGV[3]: the body's size, or -1 when this instance does not know it (read from the entry). */
const DONE = luaScript(`
redis.pcall('XACK', KEYS[1], ARGV[1], ARGV[2])
local size = tonumber(ARGV[3])
if size < 0 then
  size = 0
  local entry = redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2])
  if #entry == 0 then return 0 end
  local fields = entry[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'body' then size = string.len(fields[i + 1]) end
  end
end
if redis.call('XDEL', KEYS[1], ARGV[2]) == 0 then return 0 end
local held = tonumber(redis.call('GET', KEYS[2]) or '0') - size
if held < 0 or redis.call('XLEN', KEYS[1]) == 0 then held = 0 end
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
  emittedAt?: number;
}

/** A stream entry as node-redis returns it with Buffer replies: [id, [field, value, …]] or nil. */
type RawEntry = [Buffer, Buffer[] | null] | null;

export class RedisStreamDelivery<M = unknown> implements EventDelivery<M> {
  readonly mode = 'redis' as const;
  awaitCompletion = false;
  onComplete: (() => void) | undefined;
  onOverdue: (() => void) | undefined;
  /** Called when this instance's own pending entries were read back after open (Redis was not
   *  reachable then), with them: they are held, due for redelivery; set by the owner. */
  onRecovered: ((records: DeliveryRecord<M>[]) => void) | undefined;
  /** Entries claimed from the pending list so far (from any instance). */
  claimed = 0;

  private readonly held = new Map<string, Held<M>>();
  private readonly budget: InFlightBudget;
  private readonly streamKey: string;
  private readonly bytesKey: string;
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
    this.budget.check(bytes);
  }

  stage(_journalMeta: unknown, body: Buffer | undefined): StagedDelivery<M> {
    this.options.connection.assertReady();
    return this.budget.stage<M>(body?.length ?? 0, async (meta, event) => {
      const id = await this.add(body ?? Buffer.from(JSON.stringify(event)), meta);
      this.held.set(id, { bytes: body?.length ?? 0, meta, event });
      return id;
    });
  }

  async take(meta: M, body: Buffer | undefined, event: unknown): Promise<DeliveryId> {
    return this.stage(meta, body).commit(meta, event);
  }

  async adopt(records: DeliveryRecord<M>[]): Promise<void> {
    for (const record of records) {
      const id = await this.take(record.meta, record.body, record.event).catch(() => undefined);
      const entry = id === undefined ? undefined : this.held.get(String(id));
      if (entry) entry.emittedAt = 0;
    }
  }

  park(id: DeliveryId): void {
    const entry = this.held.get(String(id));
    if (entry) entry.emittedAt = 0;
  }

  emitted(id: DeliveryId): void {
    const entry = this.held.get(String(id));
    if (!entry) return;
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
    }
    void this.remove(key, entry ? entry.bytes : -1);
    this.onComplete?.();
    return entry !== undefined;
  }

  finishEmitted(): number {
    let count = 0;
    for (const [id, entry] of [...this.held.entries()]) {
      if (entry.emittedAt !== undefined && this.complete(id)) count++;
    }
    return count;
  }

  async unfinished(emittedBefore = Infinity): Promise<DeliveryRecord<M>[]> {
    const out: DeliveryRecord<M>[] = [];
    for (const [id, entry] of this.held) {
      if (entry.emittedAt === undefined || entry.emittedAt > emittedBefore) continue;
      out.push({ id, meta: entry.meta, event: entry.event, body: entry.body });
    }
    return out;
  }

  /**
   * Entries left pending longer than claimAfterMs, by any instance: claimed
   * for this one (XAUTOCLAIM), to emit again. Entries deleted meanwhile are
   * dropped from the pending list by Redis itself.
   */
  async overdue(): Promise<DeliveryRecord<M>[]> {
    const connection = this.options.connection;
    if (!connection.ready || this.closed || this.claiming) return [];
    this.claiming = true;
    const out: DeliveryRecord<M>[] = [];
    try {
      await this.claimInto(out);
    } catch {
      // Redis went away mid-pass: what was claimed is emitted; the rest waits for the next pass.
    } finally {
      this.claiming = false;
    }
    this.claimed += out.length;
    return out;
  }

  private async claimInto(out: DeliveryRecord<M>[]): Promise<void> {
    const connection = this.options.connection;
    let cursor = '0-0';
    // One pass over the pending list, bounded by what this instance may hold.
    do {
      const room = this.budget.room;
      if (room <= 0) break;
      const reply = (await connection.client.sendCommand(
        [
          'XAUTOCLAIM',
          this.streamKey,
          STREAM_GROUP,
          connection.instance,
          String(this.options.claimAfterMs),
          cursor,
          'COUNT',
          String(Math.min(READ_COUNT, room)),
        ],
        { typeMapping: BUFFER_REPLIES },
      )) as [Buffer, RawEntry[], Buffer[]];
      cursor = reply[0].toString();
      for (const raw of reply[1]) {
        const record = this.hold(raw);
        if (record) out.push(record);
      }
    } while (cursor !== '0-0' && !this.closed);
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

  // Attempts and dead letters in Redis are another change's (issue 27); until then none are kept here.
  onFailure: ((notice: FailureNotice<M>) => void) | undefined;
  fail(_id: DeliveryId, _error: string): boolean {
    return false;
  }
  deadLetters(): Promise<DeadLetter[]> {
    return Promise.resolve([]);
  }
  replay(_ids?: string[]): Promise<number> {
    return Promise.resolve(0);
  }
  discard(_ids?: string[]): Promise<number> {
    return Promise.resolve(0);
  }
  get stats(): DeliveryStats {
    return { redelivered: 0, failed: 0, deadLettered: 0, deadLettersDropped: 0, deadLetters: 0, oldestUnfinishedAt: undefined };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.stopWatching();
  }

  /** Adds an entry and makes this instance its consumer; BusyError past the stream's cap. */
  private async add(body: Buffer, meta: M): Promise<string> {
    const connection = this.options.connection;
    connection.assertReady();
    const reply = await runScript<string | [string, number]>(
      connection.client,
      ADD,
      [this.streamKey, this.bytesKey],
      [STREAM_GROUP, connection.instance, String(this.options.streamMaxEvents), String(this.options.streamMaxBytes), body, JSON.stringify(meta)],
    );
    if (typeof reply === 'string') return reply;
    const [reason, value] = reply;
    if (reason === 'events') throw new BusyError('stream', `the Redis stream holds ${value} events, its limit`);
    throw new BusyError('stream', `the Redis stream holds ${value} bytes of events, its limit is ${this.options.streamMaxBytes}`);
  }

  private async remove(id: string, size: number): Promise<void> {
    const connection = this.options.connection;
    try {
      connection.assertReady();
      await runScript<number>(connection.client, DONE, [this.streamKey, this.bytesKey], [STREAM_GROUP, id, String(size)]);
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

  /** This instance's own pending entries (XREADGROUP of its history), held for redelivery. */
  private async recoverOwn(): Promise<DeliveryRecord<M>[]> {
    const connection = this.options.connection;
    const out: DeliveryRecord<M>[] = [];
    let after = '0';
    // Read back late (Redis reached after open), this instance may be taking events meanwhile:
    // only what the stream held before this read is from an earlier instance (sent before any add).
    const last = (await connection.client.sendCommand(['XREVRANGE', this.streamKey, '+', '-', 'COUNT', '1'])) as Array<[string, unknown]> | null;
    const ceiling = last?.[0]?.[0] === undefined ? undefined : String(last[0][0]);
    if (ceiling === undefined) return out;
    for (;;) {
      let reply: unknown;
      try {
        reply = await connection.client.sendCommand(
          ['XREADGROUP', 'GROUP', STREAM_GROUP, connection.instance, 'COUNT', String(READ_COUNT), 'STREAMS', this.streamKey, after],
          { typeMapping: BUFFER_REPLIES },
        );
      } catch (err) {
        // No stream or no group yet: nothing of ours is pending.
        if (/NOGROUP/.test(String((err as Error).message))) return out;
        throw err;
      }
      const entries = entriesOf(reply);
      if (entries.length === 0) return out;
      for (const raw of entries) {
        if (!raw) continue;
        after = raw[0].toString();
        // finished already, its completion not written yet (handed over by a deploy): not emitted again
        if (this.unacked.has(after)) continue;
        // taken or claimed by this instance itself: tracked already
        if (this.held.has(after) || streamIdAfter(after, ceiling)) continue;
        const record = this.hold(raw);
        if (record) out.push(record);
        // Deleted since (finished, its acknowledgement lost): drop it from the pending list.
        else void connection.client.sendCommand(['XACK', this.streamKey, STREAM_GROUP, after]).catch(() => undefined);
      }
    }
  }

  /** Holds an entry read back from Redis; undefined when it was deleted meanwhile. */
  private hold(raw: RawEntry): DeliveryRecord<M> | undefined {
    if (!raw || !raw[1]) return undefined;
    const id = raw[0].toString();
    let body: Buffer | undefined;
    let meta: M | undefined;
    const fields = raw[1];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const name = fields[i].toString();
      if (name === 'body') body = fields[i + 1];
      else if (name === 'meta') {
        try {
          meta = JSON.parse(fields[i + 1].toString()) as M;
        } catch {
          meta = undefined;
        }
      }
    }
    if (!body) return undefined;
    meta ??= {} as M;
    const previous = this.held.get(id);
    if (previous) this.budget.remove(previous.bytes);
    this.held.set(id, { bytes: body.length, meta, body, event: previous?.event, emittedAt: 0 });
    this.budget.add(body.length);
    return { id, meta, body, event: previous?.event };
  }

  private schedule(): void {
    if (this.closed) return;
    const every = this.options.claimEveryMs ?? Math.min(5000, Math.max(100, this.options.claimAfterMs / 4));
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      if (this.closed) return;
      this.onOverdue?.();
      this.schedule();
    }, every);
  }
}

/** The entries of the one stream in an XREADGROUP reply: a map under RESP3, [[name, entries]] under RESP2. */
function entriesOf(reply: unknown): RawEntry[] {
  if (!reply) return [];
  if (Array.isArray(reply)) return ((reply[0] as [unknown, RawEntry[]] | undefined)?.[1] ?? []) as RawEntry[];
  if (reply instanceof Map) return ([...reply.values()][0] ?? []) as RawEntry[];
  return (Object.values(reply as Record<string, RawEntry[]>)[0] ?? []) as RawEntry[];
}

/** Whether stream entry id `id` (`ms-seq`) comes after `than`. */
export function streamIdAfter(id: string, than: string): boolean {
  const [ms, seq] = id.split('-').map(Number);
  const [thanMs, thanSeq] = than.split('-').map(Number);
  return ms > thanMs || (ms === thanMs && (seq ?? 0) > (thanSeq ?? 0));
}
