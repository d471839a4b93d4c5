/**
 * What a receiver remembers of the requests it turned away, so an operator
 * sees why without a packet capture: the last one (why, from which address,
 * when), how many in the last minutes (counts that fade, so a status does not
 * say "120 refused" for ever after Redis came back), and a warning for
 * Node-RED's log that repeats at most once a period per kind of answer.
 *
 * One word per meaning, as the metrics say it: a 503 is *refused* (for now;
 * the bridge keeps the event and sends it again), any other 4xx is *rejected*
 * (the request is wrong and sending it again will not help).
 */
import { systemClock, type Clock } from '../core/clock';
import { createRateLimit, type RateLimit } from '../core/rate-limit';

export type RefusalWord = 'refused' | 'rejected';

/** 503 (and 429): refused, the bridge sends it again; every other 4xx: rejected. */
export function refusalWord(status: number): RefusalWord {
  return status === 503 || status === 429 ? 'refused' : 'rejected';
}

/** One request turned away. */
export interface Refusal {
  word: RefusalWord;
  status: number;
  /** The answer's detail: why, in the words the sender got (never a credential). */
  reason: string;
  /** The client's address, when known. */
  ip: string | undefined;
  /** When (ms since the epoch). */
  at: number;
  /** The event's payload.messageId, when the body was read that far. */
  messageId?: string;
}

/** What a status shows of the refusals. */
export interface RecentRefusals {
  /** Counts of the last `windowMs`. */
  refused: number;
  rejected: number;
  windowMs: number;
  /** The last refusal, while nothing was accepted after it: the receiver is turning requests away now. */
  current: Refusal | undefined;
}

/** How long a refusal counts in the status. */
export const REFUSAL_WINDOW_MS = 10 * 60_000;
/** A kind of refusal is said in the log at most once per this period (then how many more there were). */
export const REFUSAL_WARN_PERIOD_MS = 60_000;
/** The window is counted in this many slices: a refusal leaves the counts at most a tenth of the window late. */
const SLICES = 10;

export interface RefusalLogOptions {
  windowMs?: number;
  warnPeriodMs?: number;
  clock?: Clock;
  /** A refusal to say in the log (the first of its kind in a period). */
  warn?(refusal: Refusal): void;
  /** A period has ended in which `count` more refusals like `sample` (the last of them) were not said. */
  heldBack?(sample: Refusal, count: number): void;
  /** What `recent()` answers changed: a refusal, an acceptance after one, counts leaving the window. */
  changed?(): void;
}

/** The answer a refusal was, as lib/http's Problem has it. */
export interface RefusalAnswer {
  type: string;
  status: number;
  detail: string;
}

interface Slice {
  start: number;
  refused: number;
  rejected: number;
}

export class RefusalLog {
  /** The last request turned away, kept until the receiver stops. */
  last: Refusal | undefined;
  private turningAway = false;
  private readonly slices: Slice[] = [];
  private readonly windowMs: number;
  private readonly sliceMs: number;
  private readonly clock: Clock;
  private readonly limit: RateLimit;
  /** The last refusal of each kind (answer type): what a held-back summary is about. */
  private readonly lastOfKind = new Map<string, Refusal>();
  private expiry: unknown;
  private closed = false;

  constructor(private readonly options: RefusalLogOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.windowMs = options.windowMs ?? REFUSAL_WINDOW_MS;
    this.sliceMs = Math.max(1, Math.floor(this.windowMs / SLICES));
    this.limit = createRateLimit({
      periodMs: options.warnPeriodMs ?? REFUSAL_WARN_PERIOD_MS,
      clock: this.clock,
      onHeldBack: (kind, count) => {
        const sample = this.lastOfKind.get(kind);
        if (sample) options.heldBack?.(sample, count);
      },
    });
  }

  /** A request was answered `answer` (a 4xx or 503) from `ip`. */
  record(answer: RefusalAnswer, ip: string | undefined, messageId?: string): Refusal {
    const now = this.clock.now();
    const refusal: Refusal = { word: refusalWord(answer.status), status: answer.status, reason: answer.detail, ip, at: now };
    if (messageId !== undefined) refusal.messageId = messageId;
    this.last = refusal;
    this.turningAway = true;
    if (this.closed) return refusal;
    const start = now - (now % this.sliceMs);
    let slice = this.slices[this.slices.length - 1];
    if (slice?.start !== start) {
      slice = { start, refused: 0, rejected: 0 };
      this.slices.push(slice);
    }
    slice[refusal.word]++;
    this.scheduleExpiry();
    this.lastOfKind.set(answer.type, refusal);
    if (this.limit.pass(answer.type)) this.options.warn?.(refusal);
    this.options.changed?.();
    return refusal;
  }

  /** A request was accepted: the last refusal is history (its counts stay for their window). */
  accepted(): void {
    if (!this.turningAway) return;
    this.turningAway = false;
    this.options.changed?.();
  }

  recent(): RecentRefusals {
    this.prune();
    let refused = 0;
    let rejected = 0;
    for (const slice of this.slices) {
      refused += slice.refused;
      rejected += slice.rejected;
    }
    return { refused, rejected, windowMs: this.windowMs, current: this.turningAway ? this.last : undefined };
  }

  /** The receiver stops: no more timers, warnings or summaries. */
  close(): void {
    this.closed = true;
    this.limit.close();
    if (this.expiry !== undefined) this.clock.clearTimeout(this.expiry);
    this.expiry = undefined;
  }

  /** Drops the slices wholly out of the window. */
  private prune(): boolean {
    const from = this.clock.now() - this.windowMs;
    let dropped = false;
    while (this.slices.length > 0 && this.slices[0].start + this.sliceMs <= from) {
      this.slices.shift();
      dropped = true;
    }
    return dropped;
  }

  /** Redraws the status when the oldest slice leaves the window. */
  private scheduleExpiry(): void {
    if (this.expiry !== undefined || this.slices.length === 0 || this.closed) return;
    const due = this.slices[0].start + this.sliceMs + this.windowMs - this.clock.now();
    this.expiry = this.clock.setTimeout(
      () => {
        this.expiry = undefined;
        if (this.prune()) this.options.changed?.();
        this.scheduleExpiry();
      },
      Math.max(0, due),
    );
    (this.expiry as { unref?: () => void } | undefined)?.unref?.();
  }
}

/** Longest reason shown under a node (the log has it whole). */
const STATUS_REASON_CHARS = 60;

/** `14:02:11`, the runtime's local time: a status is read on the day. */
function clockTime(at: number): string {
  return new Date(at).toTimeString().slice(0, 8);
}

/**
 * What a status adds for the refusals (detection-in's catalogue, `t`): the counts of the window, and
 * the last one while the receiver is turning requests away (`turningAway`: shown in yellow).
 */
export function refusalView(
  recent: RecentRefusals,
  t: (key: string, vars?: Record<string, string | number>) => string,
): { text: string; turningAway: boolean } {
  const minutes = Math.round(recent.windowMs / 60_000);
  const { refused, rejected } = recent;
  let text = '';
  if (refused > 0 && rejected > 0) text = t('status.recent-both', { refused, rejected, minutes });
  else if (refused > 0) text = t('status.recent-refused', { refused, minutes });
  else if (rejected > 0) text = t('status.recent-rejected', { rejected, minutes });
  const last = recent.current;
  if (last) {
    const reason = last.reason.length > STATUS_REASON_CHARS ? `${last.reason.slice(0, STATUS_REASON_CHARS - 1)}…` : last.reason;
    text += t(`status.last-${last.word}`, { time: clockTime(last.at), ip: last.ip ?? '?', status: last.status, reason });
  }
  return { text, turningAway: last !== undefined };
}
