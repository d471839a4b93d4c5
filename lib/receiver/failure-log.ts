/**
 * What a receiver says in Node-RED's log (and so the debug sidebar) when
 * something fails, since an operator reads the log, not output 3 or a
 * metric: a request turned away (why, from where: ./refusals.ts, which also
 * keeps it for the status), a dead letter (the event's id and why), a
 * listener that cannot open its port. Each repeats at most a few times a
 * minute (lib/core/rate-limit.ts); what was held back is counted once the
 * minute is over. Every line names the path (Node-RED adds the node's name);
 * the texts are detection-in's catalogue, in the runtime's language.
 */
import type { Clock } from '../core/clock';
import { createRateLimit } from '../core/rate-limit';
import { RefusalLog, type Refusal } from './refusals';

type Text = (key: string, vars?: Record<string, string | number>) => string;

/** Dead letters said one by one in a minute, before the rest is counted. */
export const DEAD_LETTERS_SAID_PER_MINUTE = 10;

export interface FailureLogOptions {
  /** The receiver's path, named in every line. */
  path: string;
  /** detection-in's catalogue (keys under `detection-in.`). */
  t: Text;
  /** Where to say it: Node-RED's node (its warn reaches the log and the debug sidebar). */
  log: { warn(text: string): void };
  /** Whether its dead letters are lost when Node-RED restarts (memory mode): the warning says so. */
  memoryOnly(): boolean;
  /** What the status shows of the refusals changed. */
  changed(): void;
  clock?: Clock;
}

/** Also createReceiver's `refusals`: told of every request turned away and every one accepted. */
export interface FailureLog extends Pick<RefusalLog, 'record' | 'accepted'> {
  /** What was turned away, for the status. */
  readonly refusals: RefusalLog;
  /** A `send(output, msg)` that also says each dead letter sent on output 3 (index 2). */
  watching<M extends object>(send: (output: 0 | 1 | 2, msg: M) => void): (output: 0 | 1 | 2, msg: M) => void;
  /** The receiver's listener cannot open its port: said once. */
  listenerFailed(port: number | string | undefined): void;
  close(): void;
}

export function createFailureLog(options: FailureLogOptions): FailureLog {
  const { path, t, clock } = options;
  const warn = (text: string): void => options.log.warn(text);
  const refusalText = (r: Refusal): string => {
    const vars = { path, ip: r.ip ?? '?', status: r.status, reason: r.reason, messageId: r.messageId ?? '' };
    return t(`warnings.${r.word}${r.messageId === undefined ? '' : '-event'}`, vars);
  };
  const refusals = new RefusalLog({
    clock,
    warn: (r) => warn(refusalText(r)),
    heldBack: (r, count) => warn(t(`warnings.held-back-${r.word}`, { path, count, ip: r.ip ?? '?', reason: r.reason })),
    changed: options.changed,
  });
  const deadLetters = createRateLimit({
    periodMs: 60_000,
    perPeriod: DEAD_LETTERS_SAID_PER_MINUTE,
    clock,
    onHeldBack: (_kind, count) => warn(t('warnings.dead-letters-held-back', { path, count })),
  });
  const deadLetter = (msg: Record<string, unknown>): void => {
    if (msg.topic !== 'dead-letter' || !deadLetters.pass()) return;
    const vars = { path, messageId: String(msg.messageId ?? '-'), attempts: Number(msg.attempt) || 0, error: String(msg.error ?? '') };
    warn(t(options.memoryOnly() ? 'warnings.dead-letter-memory' : 'warnings.dead-letter', vars));
  };
  let listenerSaid = false;
  return {
    refusals,
    record: (answer, ip, messageId) => refusals.record(answer, ip, messageId),
    accepted: () => refusals.accepted(),
    watching: (send) => (output, msg) => {
      if (output === 2) deadLetter(msg as Record<string, unknown>);
      send(output, msg);
    },
    listenerFailed(port) {
      // One state event per start of the listener: said once per deploy.
      if (listenerSaid) return;
      listenerSaid = true;
      warn(t('warnings.listener-failed', { path, port: port ?? '' }));
    },
    close() {
      refusals.close();
      deadLetters.close();
    },
  };
}
