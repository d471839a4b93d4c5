/**
 * Confirm on replicas, confirm on disk: a write the primary has taken is
 * confirmed, before its event is answered 200, by `WAIT <replicas> <ms>`
 * (that many replicas have it) and/or `WAITAOF 1 <replicas> <ms>` (it is in
 * the primary's append-only file, and the replicas' with *replicas*), sent on
 * the connection that made the write.
 *
 * Both cover every write the connection made before them, not one command:
 * the replication stream is one ordered log, and Redis waits for the
 * connection's last write offset. So one WAIT confirms every event taken on
 * this connection before it was sent, and the confirmations of one
 * connection go as a group: one in flight at a time; a caller that comes
 * while one is under way (sent, perhaps, before its own write) joins the next,
 * sent once that one ends. Neither can run inside MULTI (Redis answers it at
 * once there, without waiting), so it follows EXEC.
 *
 * WAIT and WAITAOF block the connection while they wait: the other commands
 * of the same connection (the other receivers, dedupes and presence of the
 * same configuration node) wait behind them, at most the timeout.
 *
 * With fewer replicas online than asked (one died, or a failover promoted the
 * only one), `fewer` chooses: `refuse` (every take times out: 503 until they
 * are back; nothing answered 200 rests on one machine) or `connected` (confirm
 * on those online, down to the primary alone, and say so). The count comes
 * from `INFO replication`, read at each connect and every second.
 */
import type { RedisClientType } from 'redis';
import { systemClock, type Clock } from '../core/clock';
import { renderMessage, type Message } from '../core/messages';
import { answerWithin } from './answer-within';

/** What Confirm on disk asks: nothing, the primary's append-only file, or the primary's and each confirmed replica's. */
export const CONFIRM_AOF = ['off', 'primary', 'replicas'] as const;
export type ConfirmAof = (typeof CONFIRM_AOF)[number];
/** With fewer replicas online than asked: refuse every event (503), or confirm on those online. */
export const CONFIRM_FEWER = ['refuse', 'connected'] as const;
export type ConfirmFewer = (typeof CONFIRM_FEWER)[number];

export interface ConfirmSettings {
  /** Replicas that must have each write (WAIT); 0: none. */
  replicas: number;
  /** How long Redis may take to confirm (ms, at least 1: `WAIT n 0` would wait for ever). */
  timeoutMs: number;
  aof: ConfirmAof;
  /** Fewer replicas online than `replicas`: refuse (absent: refuse, as before), or confirm on those online. */
  fewer?: ConfirmFewer;
}

/** Confirming on fewer replicas than asked (`fewer: connected`): how many are online, of how many asked. */
export interface Shortfall {
  online: number;
  asked: number;
}

export const NO_CONFIRM: ConfirmSettings = { replicas: 0, timeoutMs: 1000, aof: 'off' };

/** A write Redis took but did not confirm as asked (in time, or at all): the event is answered 503. */
export class ConfirmError extends Error {
  readonly code = 'ERR_REDIS_CONFIRM';
  constructor(readonly detail: Message) {
    super(renderMessage(detail));
  }
}

/** How long past the timeout the client waits for Redis's own answer before giving up on it. */
const ANSWER_MARGIN_MS = 500;
/** While the server cannot confirm on disk, how often a refused take looks again (it may have been fixed). */
const PROBE_AGAIN_MS = 5000;
/** How often the replicas online are counted (`fewer: connected`). */
const COUNT_EVERY_MS = 1000;

/** Replicas in sync with the primary (`state=online`) in an `INFO replication` answer. */
export function onlineReplicas(info: string): number {
  return (info.match(/^slave\d+:.*\bstate=online\b/gm) ?? []).length;
}

type Client = Pick<RedisClientType, 'sendCommand'>;

export class WriteConfirmer {
  /** Why the server cannot give the confirmation asked for (no WAITAOF, no append-only file), or undefined. */
  problem: Message | undefined;
  /** Called when `problem` changes (set or cleared); set by the owner (a log line, a status). */
  onProblem: ((problem: Message | undefined) => void) | undefined;
  /** Confirming on fewer replicas than asked, and how many (`fewer: connected`); undefined otherwise. */
  shortfall: Shortfall | undefined;
  /** Called when `shortfall` changes; set by the owner. */
  onShortfall: ((shortfall: Shortfall | undefined) => void) | undefined;
  /** Replicas online on the primary in use, as last counted; undefined until counted (or after a reconnect). */
  private online: number | undefined;
  private countTimer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private probedAt = -Infinity;
  private probing: Promise<void> | undefined;

  constructor(
    private readonly client: () => Client,
    readonly settings: ConfirmSettings,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Whether writes are confirmed at all (else confirm() resolves at once). */
  get enabled(): boolean {
    return this.settings.replicas > 0 || this.settings.aof !== 'off';
  }

  /** Whether the replicas online are counted: asked for some, and to confirm on those online when fewer. */
  get counts(): boolean {
    return this.settings.replicas > 0 && this.settings.fewer === 'connected';
  }

  /** Replicas each write must reach now: as asked, or (`fewer: connected`) as many as are online. */
  private replicasNow(): number {
    const { replicas } = this.settings;
    return this.counts && this.online !== undefined ? Math.min(replicas, this.online) : replicas;
  }

  /**
   * Connected (again), perhaps to another primary: counts its replicas now and
   * every second after (`fewer: connected`). Until counted, all those asked.
   */
  startCounting(): void {
    if (!this.counts) return;
    this.stopCounting();
    void this.countReplicas();
    this.countTimer = setInterval(() => void this.countReplicas(), COUNT_EVERY_MS);
    this.countTimer.unref();
  }

  /** Disconnected or closed: the count no longer holds. */
  stopCounting(): void {
    if (this.countTimer) clearInterval(this.countTimer);
    this.countTimer = undefined;
    this.online = undefined;
  }

  /** Reads how many replicas are online (never rejects: a failed read keeps the last count). */
  private async countReplicas(): Promise<void> {
    try {
      const info = await answerWithin(this.client().sendCommand(['INFO', 'replication']), this.settings.timeoutMs + ANSWER_MARGIN_MS);
      this.online = onlineReplicas(String(info));
      const asked = this.settings.replicas;
      this.setShortfall(this.online < asked ? { online: this.online, asked } : undefined);
    } catch {
      // a passing error: counted again next time
    }
  }

  /**
   * Throws ConfirmError while the server is known unable to give the
   * confirmation asked for: the event is refused before anything is written.
   * Looks again now and then (an upgrade, `CONFIG SET appendonly yes`).
   */
  assertConfirmable(): void {
    if (!this.problem) return;
    if (this.clock.now() - this.probedAt >= PROBE_AGAIN_MS) void this.probe();
    throw new ConfirmError(this.problem);
  }

  /**
   * After the connection (re)connects: whether the server can confirm on disk
   * (WAITAOF exists, Redis 7.2 or later, and the primary has an append-only file).
   * Never rejects.
   */
  probe(): Promise<void> {
    if (this.settings.aof === 'off') return Promise.resolve();
    this.probedAt = this.clock.now();
    this.probing ??= (async () => {
      try {
        // WAITAOF 1 0 on a connection that wrote nothing: answered at once, or refused.
        await answerWithin(this.client().sendCommand(['WAITAOF', '1', '0', '1']), 1 + ANSWER_MARGIN_MS);
        this.setProblem(undefined);
      } catch (err) {
        const problem = problemOf(err);
        // a passing error (a timeout, the connection lost) says nothing about the server
        if (problem.key !== 'redis-confirm.failed') this.setProblem(problem);
      } finally {
        this.probing = undefined;
      }
    })();
    return this.probing;
  }

  /**
   * Resolves once every write this connection sent before the call is
   * confirmed as the settings ask; rejects with ConfirmError when it is not
   * (fewer replicas in time, no answer, a refusal).
   */
  confirm(): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    if (!this.inFlight) {
      this.inFlight = this.run().finally(() => (this.inFlight = undefined));
      return this.inFlight;
    }
    // The one under way may have been sent before this caller's write: the caller joins the next one.
    this.next ??= this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.confirm();
      });
    return this.next;
  }

  private async run(): Promise<void> {
    const { timeoutMs, aof } = this.settings;
    const replicas = this.replicasNow();
    const client = this.client();
    const started = this.clock.now();
    try {
      if (aof !== 'off') {
        const onReplicas = aof === 'replicas' ? replicas : 0;
        const reply = (await answerWithin(
          client.sendCommand(['WAITAOF', '1', String(onReplicas), String(timeoutMs)]),
          timeoutMs + ANSWER_MARGIN_MS,
        )) as [number, number];
        const [local, remote] = reply.map(Number);
        if (local < 1) throw new ConfirmError({ key: 'redis-confirm.aof-timeout', params: { ms: timeoutMs } });
        if (remote < onReplicas)
          throw new ConfirmError({ key: 'redis-confirm.aof-replicas-timeout', params: { count: remote, replicas: onReplicas, ms: timeoutMs } });
        if (onReplicas > 0) return; // on the replicas' disks: they have it
      }
      if (replicas > 0) {
        const left = Math.max(1, timeoutMs - (this.clock.now() - started));
        const count = Number(await answerWithin(client.sendCommand(['WAIT', String(replicas), String(left)]), left + ANSWER_MARGIN_MS));
        if (count < replicas) throw new ConfirmError({ key: 'redis-confirm.timeout', params: { count, replicas, ms: timeoutMs } });
      }
    } catch (err) {
      if (err instanceof ConfirmError) throw err;
      const problem = problemOf(err);
      if (problem.key !== 'redis-confirm.failed') this.setProblem(problem);
      throw new ConfirmError(problem);
    }
  }

  private setShortfall(shortfall: Shortfall | undefined): void {
    if (shortfall?.online === this.shortfall?.online && shortfall?.asked === this.shortfall?.asked) return;
    this.shortfall = shortfall;
    try {
      this.onShortfall?.(shortfall);
    } catch {
      // the owner's listener failing must not stop confirmations
    }
  }

  private setProblem(problem: Message | undefined): void {
    if (problem?.key === this.problem?.key) return;
    this.problem = problem;
    try {
      this.onProblem?.(problem);
    } catch {
      // the owner's listener failing must not stop confirmations
    }
  }
}

/** What an error of WAIT or WAITAOF says about the server. */
function problemOf(err: unknown): Message {
  const message = String((err as Error | undefined)?.message ?? err);
  if (/unknown command/i.test(message)) return { key: 'redis-confirm.no-waitaof' };
  if (/appendonly/i.test(message)) return { key: 'redis-confirm.no-aof' };
  return { key: 'redis-confirm.failed', params: { message } };
}
