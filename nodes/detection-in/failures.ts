/**
 * What detection-in says in Node-RED's log (and so the debug sidebar) when
 * something fails, since an operator reads the log, not output 3 or a
 * metric: a request turned away (why, from where; lib/receiver/refusals.ts
 * also keeps it for the status), a dead letter (the event's id and why), a
 * listener that cannot open its port. Each repeats at most a few times a
 * minute (lib/core/rate-limit.ts); what was held back is counted once the
 * minute is over. Every line names the path; Node-RED adds the node's name.
 */
import type { Node } from 'node-red';
import { createRateLimit } from '../../lib/core';
import { RefusalLog, type Refusal } from '../../lib/receiver';

type Text = (key: string, vars?: Record<string, string | number>) => string;

/** Dead letters said one by one per minute, before the rest is counted. */
const DEAD_LETTERS_PER_MINUTE = 10;

export interface ReceiverFailures {
  /** Told of every request turned away and every one accepted; read by the status. */
  readonly refusals: RefusalLog;
  /** A message the session sends on output 3: a dead letter is said in the log. */
  failure(msg: Record<string, unknown>): void;
  /** The receiver's listener cannot open its port. */
  listenerFailed(port: number | string | undefined): void;
  close(): void;
}

export function receiverFailures(node: Node, t: Text, path: string, memoryOnly: boolean, changed: () => void): ReceiverFailures {
  const refusalText = (r: Refusal): string => {
    const vars = { path, ip: r.ip ?? '?', status: r.status, reason: r.reason, messageId: r.messageId ?? '' };
    return t(`warnings.${r.word}${r.messageId === undefined ? '' : '-event'}`, vars);
  };
  const refusals = new RefusalLog({
    warn: (r) => node.warn(refusalText(r)),
    heldBack: (r, count) => node.warn(t(`warnings.held-back-${r.word}`, { path, count, ip: r.ip ?? '?', reason: r.reason })),
    changed,
  });
  const deadLetters = createRateLimit({
    periodMs: 60_000,
    perPeriod: DEAD_LETTERS_PER_MINUTE,
    onHeldBack: (_kind, count) => node.warn(t('warnings.dead-letters-held-back', { path, count })),
  });
  let listenerSaid = false;
  return {
    refusals,
    failure(msg) {
      if (msg.topic !== 'dead-letter' || !deadLetters.pass()) return;
      const vars = { path, messageId: String(msg.messageId ?? '-'), attempts: Number(msg.attempt) || 0, error: String(msg.error ?? '') };
      node.warn(t(memoryOnly ? 'warnings.dead-letter-memory' : 'warnings.dead-letter', vars));
    },
    listenerFailed(port) {
      // One state event per start of the listener: said once per deploy.
      if (listenerSaid) return;
      listenerSaid = true;
      node.warn(t('warnings.listener-failed', { path, port: port ?? '' }));
    },
    close() {
      refusals.close();
      deadLetters.close();
    },
  };
}
