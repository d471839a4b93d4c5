/**
 * Taking and finishing events in a receiver's Redis stream: the one
 * transaction that adds an event (stream-scripts.ts), its confirmation on
 * replicas or disk, an unconfirmed one held until a resend is, and the
 * completion (XACK and XDEL) or failure the flow reports; completions Redis
 * could not take are kept and written once it is back.
 */
import { runScript } from '../redis';
import { takeEach } from './adopt';
import { messageIdOf } from './resend';
import { BusyError } from './budget';
import { formatFailure } from './stream-dead-letters';
import { DONE, PREPARE, TAKE } from './stream-scripts';
import { MAX_ERROR_CHARS, MAX_UNACKED, STREAM_GROUP, StreamHeld, type Held } from './stream-held';
import { retryPause } from './retry';
import { type DeliveryId, type DeliveryRecord, type StagedDelivery } from './types';

/** Taking, confirming, finishing and failing entries; claiming and recovering are StreamClaim's (stream-claim.ts). */
export abstract class StreamTake<M> extends StreamHeld<M> {
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
  protected unconfirmed(id: string, entry: Held<M>): void {
    if (this.held.get(id) !== entry) return;
    // The staged bytes are given back by the failed commit: held now, they count here.
    this.budget.add(entry.bytes);
    entry.unconfirmed = true;
  }

  /** A resend absorbed by entry `id` and confirmed: if that one waits here unconfirmed, it is handed out now. */
  protected resent(id: DeliveryId): void {
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

  /** A completion handed over by the previous instance: written now or once Redis is back, never emitted again. */
  protected finishLater(id: string, size: number): void {
    if (this.held.has(id)) this.complete(id);
    else if (this.unacked.size < MAX_UNACKED) this.unacked.set(id, size);
    if (this.options.connection.ready) void this.flushUnacked();
  }

  /** Adds an entry and makes this instance its consumer; BusyError past the stream's cap; `{ absorbed }`
   *  with the pending entry of the same messageId instead of adding a resend of it. */
  protected async add(body: Buffer, meta: M): Promise<string | { absorbed: string }> {
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
  protected async remove(id: string, size: number, messageId?: string): Promise<void> {
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

  protected async flushUnacked(): Promise<void> {
    for (const [id, size] of [...this.unacked]) {
      if (!this.options.connection.ready) return;
      await this.remove(id, size);
    }
  }
}
