/**
 * What a receiver shows under itself, from its session's one status object:
 * what it received and warned about, and (from lib/receiver/refusals.ts) what
 * it refused and rejected lately; what it keeps until finished
 * (pending events, the journal's size, dead letters); in yellow, a receiver
 * waiting for a detection-done none downstream will ever send; in red, no
 * store, or a journal's disk full. Plain data, so the node only draws it
 * (with Redis's state added where it has a Redis).
 */
import type { SessionStatus } from './session';

export interface StatusView {
  fill: 'red' | 'green' | 'yellow';
  shape: 'dot' | 'ring';
  text: string;
}

/** The status of a receiver on `path`; `t` is detection-in's catalogue; `refusals`: lib/receiver's refusalView. */
export function sessionView(
  s: SessionStatus,
  path: string,
  t: (key: string, vars?: Record<string, string | number>) => string,
  refusals: { text: string; turningAway: boolean } = { text: '', turningAway: false },
): StatusView {
  if (s.failed !== undefined) return { fill: 'red', shape: 'ring', text: t('status.delivery-failed', { message: s.failed }) };
  const counts = s.counts;
  const params = { path, received: counts.received, warned: counts.warned };
  // Every event answered 503 until the journal has room again (it heals as events finish): red, first.
  let text = s.outOfSpace ? t('status.disk-full', { path }) : t(counts.warned > 0 ? 'status.counts-warned' : 'status.counts', params);
  // Refused and rejected lately, and the last one while requests are being turned away.
  text += refusals.text;
  // Held for a detection-done that none downstream will ever send: say so, in yellow.
  if (s.noDoneWired) text += t('status.no-done');
  if (s.pending !== undefined) text += t('status.pending', { pending: s.pending });
  if (s.journalBytes !== undefined) text += t('status.journal', { size: +(s.journalBytes / (1024 * 1024)).toFixed(1) });
  // Kept aside after their last attempt: shown, not red (the receiver still takes events).
  if (s.deadLetters > 0) text += t('status.dead', { count: s.deadLetters });
  if (s.outOfSpace) return { fill: 'red', shape: 'dot', text };
  return { fill: s.noDoneWired || refusals.turningAway ? 'yellow' : 'green', shape: 'dot', text };
}

/** Whether the counts replace "listening": once there is something to count, or a warning to show. */
export function hasSomethingToShow(s: SessionStatus): boolean {
  return s.noDoneWired || s.counts.received + s.counts.rejected + s.counts.invalid > 0;
}
