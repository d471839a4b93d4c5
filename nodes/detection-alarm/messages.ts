/**
 * The messages detection-alarm sends, in the runtime's language: notices
 * for people (the first, reminders, escalation, summaries after a snooze or
 * disarm), changes for dashboards and logs, and replies to whoever asked.
 * msg.alarm carries the alarm's facts (lib/alarm/notice.ts), a sentence for
 * people (`text`), the mail link (`link`) and the Telegram buttons
 * (`buttons`), which detection-alert puts in the message it builds.
 */
import { createHash } from 'node:crypto';
import type { NodeMessage } from 'node-red';
import {
  alarmFacts,
  makeLinkToken,
  snoozeFacts,
  type Alarm,
  type AlarmChange,
  type AlarmFacts,
  type AlarmNotice,
  type Snooze,
} from '../../lib/alarm';
import { viewOfEvent } from '../../lib/events';
import type { Vars } from '../shared/i18n';
import type { AlarmSettings } from './settings';

export type Msg = NodeMessage & Record<string, unknown>;

/** A button under an alert: its text and the data its press sends back (Telegram's callback_data, at most 64 bytes). */
export interface AlarmButton {
  action: 'ack' | 'snooze';
  text: string;
  data: string;
}

/**
 * The prefix of a button's callback data: `alarm:<action>:<id>:<book>`, the
 * book the short hash of the node's id (or of its shared name): a press
 * reaches every alarm node the Telegram event node is wired to, and only the
 * node that keeps the alarm answers it.
 */
export const BUTTON_PREFIX = 'alarm:';

/** The book part of a button's data: 8 hex digits of SHA-256 of the node's id, or of the shared name. */
export function bookTag(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 8);
}

export interface MessageContext {
  settings: AlarmSettings;
  nodeId: string;
  /** The book the node keeps (bookTag): in its buttons' data. */
  book: string;
  secret: string;
  /** httpNodeRoot, or '' on a listener's own port. */
  root: string;
  t: (key: string, vars?: Vars) => string;
  now: () => number;
}

const minutes = (ms: number): number => Math.max(1, Math.round(ms / 60_000));

/** How long the Snooze button snoozes, as people read it (`1 h`, `30 min`). */
export function snoozeLength(c: Pick<MessageContext, 'settings' | 't'>): string {
  const ms = c.settings.snoozeMs;
  if (ms % 3_600_000 === 0) return c.t('time.hours', { count: ms / 3_600_000 });
  if (ms >= 60_000) return c.t('time.minutes', { count: minutes(ms) });
  return c.t('time.seconds', { count: Math.round(ms / 1000) });
}

/** The mail link of `alarm`: a fresh token (each mail its own, each works once); '' without a base address. */
export function linkOf(c: MessageContext, alarm: Alarm): string {
  if (c.settings.linkBase === '') return '';
  const token = makeLinkToken(c.secret, c.nodeId, alarm.id, c.now() + c.settings.linkMs);
  return `${c.settings.linkBase}${c.root}${c.settings.linkPath}/${token}`;
}

function buttonsOf(c: MessageContext, alarm: Alarm): AlarmButton[] {
  return [
    { action: 'ack', text: c.t('button.ack'), data: `${BUTTON_PREFIX}ack:${alarm.id}:${c.book}` },
    { action: 'snooze', text: c.t('button.snooze', { time: snoozeLength(c) }), data: `${BUTTON_PREFIX}snooze:${alarm.id}:${c.book}` },
  ];
}

/** msg.alarm of a notice about `alarm`. */
export function noticeOf(c: MessageContext, alarm: Alarm, notice: AlarmNotice, text: string): AlarmFacts & Record<string, unknown> {
  const out: AlarmFacts & Record<string, unknown> = { ...alarmFacts(alarm), notice, text, buttons: buttonsOf(c, alarm) };
  const link = linkOf(c, alarm);
  if (link !== '') out.link = link;
  return out;
}

/** The sentence of a reminder or an escalation. */
export function dueText(c: MessageContext, alarm: Alarm, notice: 'reminder' | 'escalation', number = 0): string {
  const vars = { minutes: minutes(c.now() - alarm.openedAt), reads: alarm.reads, number, of: c.settings.book.maxReminders, id: alarm.id };
  return c.t(notice === 'reminder' ? 'notice.reminder' : 'notice.escalation', vars);
}

/**
 * A reminder or escalation: the alarm's kept event (slim: one picture) as
 * msg.payload, so detection-alert builds it as it built the first notice;
 * without one (lost in a crash), the sentence alone, as a summary is.
 */
export function dueMessage(c: MessageContext, alarm: Alarm, notice: 'reminder' | 'escalation', event: unknown, number?: number): Msg {
  const text = dueText(c, alarm, notice, number);
  const facts = noticeOf(c, alarm, notice, text);
  if (number !== undefined) Object.assign(facts, { number, of: c.settings.book.maxReminders });
  const view = event === undefined ? null : viewOfEvent(event);
  if (!view) {
    facts.subject = c.t('notice.subject', { label: alarm.label });
    return { topic: facts.subject as string, payload: text, alarm: facts };
  }
  const topic = (event as { publishType?: unknown }).publishType;
  return { topic: typeof topic === 'string' ? topic : undefined, payload: event, detection: view, kind: view.kind, alarm: facts };
}

/** The summary after a snooze ended or the node was armed again: what was held. */
export function summaryMessage(c: MessageContext, notice: 'resumed' | 'armed', held: number, snooze?: Snooze, by = ''): Msg {
  const subject =
    notice === 'resumed' ? c.t('notice.resumed-subject', { label: snooze?.label || c.t('notice.everything') }) : c.t('notice.armed-subject');
  const text = notice === 'resumed' ? c.t('notice.resumed', { held }) : c.t('notice.armed', { held, by: by || '-' });
  const alarm: Record<string, unknown> = { notice, subject, text, held };
  if (snooze) alarm.snooze = snoozeFacts(snooze);
  return { topic: subject, payload: text, alarm };
}

/** A change for dashboards and logs: topic the change, payload the alarm's (or snooze's) facts. */
export function changeMessage(change: AlarmChange, facts: object, extra?: Record<string, unknown>): Msg {
  return { topic: change, payload: facts, alarm: { ...facts, change, ...extra } };
}
