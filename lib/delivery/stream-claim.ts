/**
 * Handing events out again from a receiver's Redis stream: what a deploy or
 * a restart left unfinished, paused events whose pause ended, entries another
 * instance left pending too long (XAUTOCLAIM, in the CLAIM script of
 * stream-dead-letters.ts), and this instance's own pending entries read back
 * after a restart.
 */
import { BUFFER_REPLIES, runScript } from '../redis';
import { CLAIM, RECOVER, parseFailure } from './stream-dead-letters';
import { INTERRUPTED, READ_COUNT, STREAM_GROUP, fieldsOf, parseMeta, streamIdAfter } from './stream-held';
import { StreamTake } from './stream-take';
import { type DeliveryRecord } from './types';

/** Claiming and recovering; the class a receiver uses, with its dead letters, is RedisStreamDelivery (stream.ts). */
export abstract class StreamClaim<M> extends StreamTake<M> {
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

  /** Paused, replayed and to-be-dead-lettered entries: hands out those due, keeps the others ours. */
  protected async dueInto(out: DeliveryRecord<M>[]): Promise<void> {
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

  protected async claimInto(out: DeliveryRecord<M>[]): Promise<void> {
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
   * This instance's own pending entries (by its name), read back after a
   * restart or a deploy: each is held for redelivery as its next attempt; one
   * paused by a failure stays paused until due; one whose last attempt was cut
   * short and was its last is dead-lettered at the next pass.
   */
  protected async recoverOwn(): Promise<DeliveryRecord<M>[]> {
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
}
