/**
 * A tracker's dead letters (tracker.ts): events kept aside after their last
 * attempt, out of the bounds, the oldest dropped past the cap (in memory,
 * where they hold their events, also past In flight's bytes); listed for the
 * operator without their bodies, taken back for a replay, or discarded. Their
 * records stay in the keeper's journal (keeper.ts) until then.
 */
import { kindOfPublishType } from '../core/event-kinds';
import type { JournalEntry } from './journal';
import type { Keeper } from './keeper';
import { eventMessageId, messageIdOf } from './resend';
import type { DeadLetter, DeliveryRecord, InFlight } from './types';

/** A dead letter: an event kept aside, with what replays it. */
export interface Dead<M> {
  id: number;
  bytes: number;
  meta: M;
  /** memory mode: the event, by reference (disk: its record stays in the journal). */
  event?: unknown;
  attempts: number;
  lastError: string;
  receivedAt: number;
  deadAt: number;
  /** The event's payload.payload.messageId and kind, for the operator's list. */
  messageId?: string;
  kind?: string;
}

/**
 * What the operator's list shows of an event: its messageId and kind, from its meta when the receiver
 * put them there (lib/delivery/session.ts always does), else from the event itself or its body (a
 * journal written before the meta carried them).
 */
export function describe(meta: unknown, event: unknown, body?: Buffer): { messageId?: string; kind?: string } {
  const known = (meta ?? {}) as { messageId?: unknown; kind?: unknown };
  const out: { messageId?: string; kind?: string } = {};
  if (typeof known.messageId === 'string') out.messageId = known.messageId;
  if (typeof known.kind === 'string') out.kind = known.kind;
  if (out.messageId !== undefined && out.kind !== undefined) return out;
  let value = event;
  if (value === undefined && body) {
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return out;
    }
  }
  const parsed = (value ?? {}) as { publishType?: unknown; payload?: { messageId?: unknown } | null };
  const id = parsed.payload && typeof parsed.payload === 'object' ? parsed.payload.messageId : undefined;
  if (out.messageId === undefined && typeof id === 'string') out.messageId = id;
  out.kind ??= kindOfPublishType(parsed.publishType);
  if (out.kind === undefined) delete out.kind;
  return out;
}

/** When a message's meta says it was received (an ISO time), else `fallback`. */
export function receivedAtOf(meta: unknown, fallback: number): number {
  const at = Date.parse(String((meta as { receivedAt?: unknown } | undefined)?.receivedAt ?? ''));
  return Number.isFinite(at) ? at : fallback;
}

/** An in-flight event made a dead letter at `now`, after its last attempt failed with `error`. */
export function deadLetterOf<M>(id: number, entry: InFlight<M>, error: string, now: number): Dead<M> {
  return {
    id,
    bytes: entry.bytes,
    meta: entry.meta,
    ...(entry.event !== undefined ? { event: entry.event } : {}),
    attempts: entry.attempts ?? 1,
    lastError: error,
    receivedAt: receivedAtOf(entry.meta, entry.takenAt ?? now),
    deadAt: now,
    ...describe(entry.meta, entry.event),
  };
}

/** A dead letter replayed at `now`: in flight again with a fresh count of attempts, due at once. */
export function replayed<M>(d: Dead<M>, now: number): InFlight<M> {
  return {
    bytes: d.bytes,
    meta: d.meta,
    ...(d.event !== undefined ? { event: d.event } : {}),
    attempts: 0,
    lastError: d.lastError,
    dueAt: now,
    takenAt: d.receivedAt,
  };
}

export class DeadShelf<M> {
  private readonly dead = new Map<number, Dead<M>>();
  deadLettered = 0;
  dropped = 0;

  /** `limits()`: the cap in letters, and in memory the bytes they may hold together. */
  constructor(
    private readonly keeper: () => Keeper,
    private readonly limits: () => { maxDeadLetters: number; maxBytes: number },
  ) {}

  get size(): number {
    return this.dead.size;
  }

  /** A dead letter read back from a journal. */
  restore(letter: Dead<M>): void {
    this.dead.set(letter.id, letter);
  }

  /** Keeps `letter` aside, dropping the oldest past the cap; false when it was dropped at once. */
  keep(letter: Dead<M>): boolean {
    const keeper = this.keeper();
    const { maxDeadLetters, maxBytes } = this.limits();
    this.dead.set(letter.id, letter);
    this.deadLettered++;
    while (this.dead.size > Math.max(0, maxDeadLetters) || (keeper.holdsEvents && this.dead.size > 0 && this.bytes() > maxBytes)) {
      const oldest = this.dead.keys().next().value as number;
      this.dead.delete(oldest);
      this.dropped++;
      keeper.done(oldest);
    }
    return this.dead.has(letter.id);
  }

  private bytes(): number {
    let bytes = 0;
    for (const d of this.dead.values()) bytes += d.bytes;
    return bytes;
  }

  /** Dead letters kept, oldest first, without their bodies. */
  list(): DeadLetter[] {
    return [...this.dead.values()].map((d) => {
      const letter: DeadLetter = {
        id: String(d.id),
        attempts: d.attempts,
        lastError: d.lastError,
        receivedAt: d.receivedAt,
        deadAt: d.deadAt,
        bytes: d.bytes,
      };
      if (d.messageId !== undefined) letter.messageId = d.messageId;
      if (d.kind !== undefined) letter.kind = d.kind;
      return letter;
    });
  }

  /** Takes every dead letter off the shelf with its body (its record marked done here), to hand them to another store. */
  async handOver(): Promise<Array<Dead<M> & { body?: Buffer }>> {
    const keeper = this.keeper();
    const out: Array<Dead<M> & { body?: Buffer }> = [];
    for (const d of this.take(undefined)) {
      out.push({ ...d, body: await keeper.body(d.id) });
      keeper.done(d.id);
    }
    return out;
  }

  /** Keeps dead letters another store handed over, as dead letters (on disk: written to this journal first). */
  async adopt(letters: Array<Dead<M> & { body?: Buffer }>): Promise<void> {
    const keeper = this.keeper();
    for (const l of letters) {
      const event = l.event ?? (keeper.holdsEvents && l.body ? JSON.parse(l.body.toString('utf8')) : undefined);
      const id = await keeper.commit(keeper.begin(l.meta, l.body), l.meta, event);
      const { body, ...letter } = l;
      if (
        this.keep({ ...letter, id, bytes: body?.length ?? l.bytes, ...(keeper.holdsEvents ? { event } : { event: undefined }) }) &&
        !keeper.holdsEvents
      )
        await keeper.dead(id, l.attempts, l.lastError, l.deadAt);
      this.deadLettered--;
    }
  }

  /** Takes the dead letters named by `ids` (all when omitted) off the shelf, oldest first. */
  take(ids: string[] | undefined): Dead<M>[] {
    const wanted = ids === undefined ? undefined : new Set(ids.map(String));
    const chosen = [...this.dead.values()].filter((d) => wanted === undefined || wanted.has(String(d.id)));
    for (const d of chosen) this.dead.delete(d.id);
    return chosen;
  }
}

/** What a journal read back holds, sorted for the tracker: dead letters, events to hold again, resends absorbed. */
export interface JournalReplay<M> {
  dead: Dead<M>[];
  live: Array<{ id: number; entry: InFlight<M>; record: DeliveryRecord<M> }>;
  /** Records of resends absorbed before a crash whose mark had not reached the disk (the first copy stands for them). */
  absorbed: number[];
}

/** Sorts a journal's entries read back at open (`now`: when, for an event without its time of receipt). */
export function replayJournal<M>(entries: JournalEntry[], now: number): JournalReplay<M> {
  const out: JournalReplay<M> = { dead: [], live: [], absorbed: [] };
  const held = new Set<string>();
  for (const e of entries) {
    const meta = e.meta as M;
    if (e.deadAt !== undefined) {
      const { seq: id, deadAt } = e;
      const describedBy = describe(e.meta, undefined, e.body);
      out.dead.push({
        id,
        bytes: e.body.length,
        meta,
        attempts: e.attempts,
        lastError: e.lastError ?? '',
        receivedAt: receivedAtOf(e.meta, deadAt),
        deadAt,
        ...describedBy,
      });
      continue;
    }
    // A journal written before the meta carried it: the messageId is read from the body.
    const messageId = messageIdOf(e.meta) ?? eventMessageId(e.body);
    if (messageId !== undefined && held.has(messageId)) {
      out.absorbed.push(e.seq);
      continue;
    }
    if (messageId !== undefined) held.add(messageId);
    // Emitted before the crash or stop, as far as anyone can tell: due for redelivery, as its next attempt.
    const entry: InFlight<M> = {
      bytes: e.body.length,
      meta,
      messageId,
      emittedAt: 0,
      attempts: e.attempts,
      ...(e.lastError ? { lastError: e.lastError, told: true } : {}),
      takenAt: receivedAtOf(e.meta, now),
    };
    out.live.push({ id: e.seq, entry, record: { id: e.seq, meta, body: e.body, attempt: e.attempts + 1 } });
  }
  return out;
}
