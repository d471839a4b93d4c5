/**
 * msg.alarm: what flows, the alert node and the dashboard read of an alarm.
 * Times as ISO text; no event, no pictures. The node adds what needs its
 * settings or its language: the sentence for people (`text`), the mail link
 * (`link`) and the Telegram buttons (`buttons`).
 */
import type { Alarm, HistoryEntry, Snooze } from './types';

/** Why a message leaves on the notify or escalation output. */
export type AlarmNotice = 'opened' | 'reminder' | 'escalation' | 'resumed' | 'armed';
/** Why a message leaves on the changes output. */
export type AlarmChange =
  'joined' | 'held' | 'acknowledged' | 'snoozed' | 'closed' | 'resumed' | 'armed' | 'disarmed' | 'opened' | 'reminded' | 'escalated';

export interface AlarmFacts {
  id: string;
  key: string;
  label: string;
  kind: string;
  camera: string | null;
  state: 'open' | 'acknowledged' | 'closed';
  urgent: boolean;
  openedAt: string;
  lastSeen: string;
  reads: number;
  reminders: number;
  escalated: boolean;
  ackBy?: string;
  ackAt?: string;
  note?: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** An alarm as flows read it; `state` overrides its own (a closed alarm is no longer in the book). */
export function alarmFacts(alarm: Alarm, state?: AlarmFacts['state']): AlarmFacts {
  const facts: AlarmFacts = {
    id: alarm.id,
    key: alarm.key,
    label: alarm.label,
    kind: alarm.kind,
    camera: alarm.camera,
    state: state ?? alarm.state,
    urgent: alarm.urgent,
    openedAt: iso(alarm.openedAt),
    lastSeen: iso(alarm.lastSeen),
    reads: alarm.reads,
    reminders: alarm.reminders,
    escalated: alarm.escalated,
  };
  if (alarm.ackBy !== undefined) facts.ackBy = alarm.ackBy;
  if (alarm.ackAt !== undefined) facts.ackAt = iso(alarm.ackAt);
  if (alarm.note !== undefined) facts.note = alarm.note;
  return facts;
}

export interface SnoozeFacts {
  scope: Snooze['scope'];
  value: string;
  label: string;
  until: string;
  by: string;
  held: number;
}

export function snoozeFacts(snooze: Snooze): SnoozeFacts {
  return { scope: snooze.scope, value: snooze.value, label: snooze.label, until: iso(snooze.until), by: snooze.by, held: snooze.held };
}

export interface HistoryFacts extends Omit<HistoryEntry, 'at'> {
  at: string;
}

export function historyFacts(entry: HistoryEntry): HistoryFacts {
  return { ...entry, at: iso(entry.at) };
}
