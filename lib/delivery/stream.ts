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
 *
 * The class is cut in layers, each a file: what is held here and the steps
 * all share (stream-held.ts), taking, confirming and finishing
 * (stream-take.ts), claiming and recovering (stream-claim.ts), the Lua of
 * taking (stream-scripts.ts) and of dead letters (stream-dead-letters.ts);
 * this file opens it and serves the dead letters and the stats.
 */
import { BUFFER_REPLIES, runScript } from '../redis';
import { BusyError } from './budget';
import { DISCARD, REPLAY, deadLetterOf } from './stream-dead-letters';
import { StreamClaim } from './stream-claim';
import { oldestOf } from './oldest';
import { STREAM_GROUP, receivedAtOf, streamIdAfter, type StreamDeliveryOptions, type StreamDeliveryStats } from './stream-held';
import { type DeadLetter, type DeliveryRecord, type EventDelivery } from './types';

export { STREAM_GROUP, streamIdAfter, type StreamDeliveryOptions, type StreamDeliveryStats } from './stream-held';
export { PREPARE, TAKE } from './stream-scripts';

export class RedisStreamDelivery<M = unknown> extends StreamClaim<M> implements EventDelivery<M> {
  private readonly stopWatching: () => void;

  private constructor(options: StreamDeliveryOptions) {
    super(options);
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
    const group = this.groupPending === undefined ? {} : { groupPending: this.groupPending };
    const oldest = oldestOf(this.held.values(), (entry) => receivedAtOf(entry.meta), this.clock.now());
    return { ...this.counts, deadLetters: this.deadLetterCount, ...oldest, streamPending: this.streamPending, ...group };
  }

  /**
   * The group's pending count, read now (XPENDING's summary): every entry taken by any instance and not
   * acknowledged, what the metrics endpoint reports at each scrape; kept in stats as `groupPending`.
   * Rejects when Redis is out of reach or does not answer in time.
   */
  async readGroupPending(): Promise<number> {
    const connection = this.options.connection;
    connection.assertReady();
    const reply = (await connection.answer(connection.client.sendCommand(['XPENDING', this.streamKey, STREAM_GROUP]))) as unknown[] | null;
    this.groupPending = Number(reply?.[0] ?? 0);
    return this.groupPending;
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

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    this.stopWatching();
  }
}
