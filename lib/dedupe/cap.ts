/**
 * A cap on the messages a dedupe node lets through: at most `count` per
 * period, overall or per key. It is asked only about messages the window
 * lets through (a repeat the cooldown drops is never counted); past the
 * count a message is held back, and what a period held is summed up in one
 * digest at its end: how many, which keys (each with its count, first and
 * last time held), the period and the cap.
 *
 * Periods: one starts with the first message asked about while none runs and
 * lasts `periodMs`; the next message after its end starts the next one. Per
 * key, every key has its own count within the node's one period (one digest
 * per period, not one per key).
 *
 * Urgent messages (isUrgent: msg.priority urgent or high), when the node lets
 * them through uncapped, are asked about as such: they pass whatever the
 * count, do not use it up, and the digest counts them apart (`urgent`); they
 * still start a period when none runs, so the digest of the period they fall
 * in counts them.
 *
 * Bounded: a digest lists at most DIGEST_MAX_KEYS keys (messages held under
 * further keys are counted, `notListed`); per key, at most `maxKeys` keys are
 * counted at once, the oldest count forgotten past it.
 *
 * LocalCap keeps a period in this process (carried to the node's next instance
 * at a deploy, like the window); RedisCap (redis-cap.ts) shares it between
 * instances. Both answer through MessageCap.
 */

export type CapPer = 'all' | 'key';

export interface CapSettings {
  /** Most messages let through per period (overall, or per key). */
  count: number;
  periodMs: number;
  per: CapPer;
  /** Per key: most keys counted at once (the oldest key's count is forgotten past it). */
  maxKeys: number;
}

/** Keys a digest lists at most; messages held under further keys are counted (`notListed`). */
export const DIGEST_MAX_KEYS = 100;

/** One key a digest lists: how many of its messages were held, the first and the last time (ISO 8601). */
export interface DigestKey {
  /** null: messages without a key (passed as the node's "No key" says). */
  key: string | null;
  held: number;
  first: string;
  last: string;
}

/** What a period held back, sent as msg.payload of the digest. */
export interface Digest {
  /** The period (ISO 8601). */
  start: string;
  end: string;
  cap: { count: number; periodMs: number; per: CapPer };
  /** Messages let through in the period and counted against the cap (urgent ones apart), and held back. */
  passed: number;
  /** Urgent messages let through in the period, uncounted (with the node's "Urgent messages always pass"). */
  urgent: number;
  held: number;
  /** The keys held, most held first (at most DIGEST_MAX_KEYS). */
  keys: DigestKey[];
  /** Messages held under keys the list has no room for. */
  notListed: number;
}

/** What the cap says of a message the window lets through. */
export interface CapDecision {
  pass: boolean;
  /** The running period's end (epoch ms) and what it has held so far (by every instance, when shared). */
  end: number;
  held: number;
  /** The digest of an earlier period that ended with nobody to send it: claimed by this check, for the caller to send. */
  digest?: Digest;
}

/** Whether a period has ended: its digest (when it held anything), claimed by the caller; else the period still running. */
export interface CapClaim {
  digest?: Digest;
  running?: { end: number; held: number };
}

export interface MessageCap {
  /** Shared with other instances (Redis): a failed check is the caller's to decide (pass or drop). */
  readonly shared: boolean;
  /** Counts a message the window lets through (`key` null: it has none) and says whether it passes;
   *  `urgent`: it passes uncounted, counted in the digest's `urgent`. */
  check(key: string | null, now: number, urgent?: boolean): Promise<CapDecision>;
  /** At a period's end: takes its digest (exactly one caller gets it), or says which period runs. */
  claim(now: number): Promise<CapClaim>;
}

/** A period as stored: times in epoch ms, the listed keys as [field, held, first, last]. */
export interface PeriodRecord {
  start: number;
  end: number;
  passed: number;
  urgent: number;
  held: number;
  notListed: number;
  heldKeys: Array<[string, number, number, number]>;
}

/** How a key is stored: messages without a key under '' (a key is never empty). */
export function fieldOf(key: string | null): string {
  return key ?? '';
}

/** A period's digest, as sent. */
export function digestOf(record: PeriodRecord, settings: CapSettings): Digest {
  const keys = [...record.heldKeys]
    .sort((a, b) => b[1] - a[1] || a[2] - b[2])
    .map(([field, held, first, last]) => ({ key: field === '' ? null : field, held, first: iso(first), last: iso(last) }));
  return {
    start: iso(record.start),
    end: iso(record.end),
    cap: { count: settings.count, periodMs: settings.periodMs, per: settings.per },
    passed: record.passed,
    urgent: record.urgent,
    held: record.held,
    keys,
    notListed: record.notListed,
  };
}

/** Values of msg.priority that make a message urgent (any case, trimmed): detection filter sets 'urgent'. */
const URGENT_PRIORITIES = new Set(['urgent', 'high']);

/** Whether a message's priority (msg.priority) makes it urgent: the string urgent or high, in any case, spaces around ignored. */
export function isUrgent(priority: unknown): boolean {
  return typeof priority === 'string' && URGENT_PRIORITIES.has(priority.trim().toLowerCase());
}

function iso(ms: number): string {
  const date = new Date(ms);
  return Number.isFinite(date.getTime()) ? date.toISOString() : new Date(0).toISOString();
}

interface HeldEntry {
  held: number;
  first: number;
  last: number;
}

/** The running period of a local cap. */
export class CapPeriod {
  passed = 0;
  urgent = 0;
  held = 0;
  notListed = 0;
  /** Messages let through, per key ('' overall): kept in the order keys were first counted. */
  readonly counts = new Map<string, number>();
  readonly heldKeys = new Map<string, HeldEntry>();

  constructor(
    readonly start: number,
    public end: number,
  ) {}

  record(): PeriodRecord {
    return {
      start: this.start,
      end: this.end,
      passed: this.passed,
      urgent: this.urgent,
      held: this.held,
      notListed: this.notListed,
      heldKeys: [...this.heldKeys].map(([field, e]) => [field, e.held, e.first, e.last]),
    };
  }
}

/** A cap kept in this process. */
export class LocalCap implements MessageCap {
  readonly shared = false;
  private period: CapPeriod | undefined;

  /** `carried`: the period a previous instance of the node left running (a deploy). */
  constructor(
    readonly settings: CapSettings,
    carried?: CapPeriod,
  ) {
    if (!Number.isInteger(settings.count) || settings.count < 1) throw new RangeError('count must be a positive integer');
    if (!(settings.periodMs > 0)) throw new RangeError('periodMs must be a positive number');
    if (!Number.isInteger(settings.maxKeys) || settings.maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
    this.period = carried;
  }

  /** The running period (what the node's next instance takes over), if any. */
  get running(): CapPeriod | undefined {
    return this.period;
  }

  /** check, answered at once. */
  decide(key: string | null, now: number, urgent = false): CapDecision {
    const ended = this.period && now >= this.period.end ? this.end() : undefined;
    const period = (this.period ??= new CapPeriod(now, now + this.settings.periodMs));
    if (urgent) {
      period.urgent++;
      return withDigest({ pass: true, end: period.end, held: period.held }, ended);
    }
    const counted = this.settings.per === 'key' ? fieldOf(key) : '';
    const count = (period.counts.get(counted) ?? 0) + 1;
    if (count <= this.settings.count) {
      if (count === 1 && period.counts.size >= this.settings.maxKeys) {
        // the oldest key's count is forgotten: the bound holds, a key may pass again this period
        const oldest = period.counts.keys().next().value as string;
        period.counts.delete(oldest);
      }
      period.counts.set(counted, count);
      period.passed++;
      return withDigest({ pass: true, end: period.end, held: period.held }, ended);
    }
    period.held++;
    const field = fieldOf(key);
    const entry = period.heldKeys.get(field);
    if (entry) {
      entry.held++;
      entry.last = Math.max(entry.last, now);
    } else if (period.heldKeys.size < DIGEST_MAX_KEYS) period.heldKeys.set(field, { held: 1, first: now, last: now });
    else period.notListed++;
    return withDigest({ pass: false, end: period.end, held: period.held }, ended);
  }

  check(key: string | null, now: number, urgent = false): Promise<CapDecision> {
    return Promise.resolve(this.decide(key, now, urgent));
  }

  /** claim, answered at once. */
  claimNow(now: number): CapClaim {
    if (!this.period) return {};
    if (now < this.period.end) return { running: { end: this.period.end, held: this.period.held } };
    const digest = this.end();
    return digest ? { digest } : {};
  }

  claim(now: number): Promise<CapClaim> {
    return Promise.resolve(this.claimNow(now));
  }

  /** What the running period has held so far, as a digest (a node removed before its end says so). */
  pending(): Digest | undefined {
    return this.period && this.period.held > 0 ? digestOf(this.period.record(), this.settings) : undefined;
  }

  /** Ends the running period: its digest when it held anything. */
  private end(): Digest | undefined {
    const period = this.period;
    this.period = undefined;
    return period && period.held > 0 ? digestOf(period.record(), this.settings) : undefined;
  }
}

function withDigest(decision: CapDecision, digest: Digest | undefined): CapDecision {
  return digest ? { ...decision, digest } : decision;
}

/**
 * Running periods by node id, for the life of the process (as the windows,
 * local-window.ts): a node restarted by a deploy goes on counting in the
 * period its previous instance started, and sends its digest.
 */
const keptCaps = new Map<string, { period: CapPeriod; settings: CapSettings }>();

/** Keeps a stopped node's running period for its next instance. */
export function keepCap(nodeId: string, cap: LocalCap): void {
  const period = cap.running;
  if (period) keptCaps.set(nodeId, { period, settings: cap.settings });
  else keptCaps.delete(nodeId);
}

/**
 * The cap of node `nodeId`, going on with the period its previous instance
 * left running. Changed settings apply to it: its end follows the new period
 * (an end already past sends the digest at once); counts per key and overall
 * mean different things, so a change between them starts the counts afresh
 * (what was held stays for the digest).
 */
export function takeOverCap(nodeId: string, settings: CapSettings): LocalCap {
  const kept = keptCaps.get(nodeId);
  keptCaps.delete(nodeId);
  if (!kept) return new LocalCap(settings);
  const period = kept.period;
  period.end = period.start + settings.periodMs;
  if (kept.settings.per !== settings.per) period.counts.clear();
  return new LocalCap(settings, period);
}

/** Forgets the running period of node `nodeId` (removed, or its cap turned off): what it had held, for the node to say. */
export function dropCap(nodeId: string): Digest | undefined {
  const kept = keptCaps.get(nodeId);
  keptCaps.delete(nodeId);
  return kept ? new LocalCap(kept.settings, kept.period).pending() : undefined;
}
