/**
 * The alarm book's shapes: an alarm, a snooze, a history entry, the whole
 * book as kept, its options, and what its calls answer (./book.ts).
 */
import type { EventKind } from '../core/event-kinds';

export type AlarmState = 'open' | 'acknowledged' | 'closed';
/** Where an action came from: a button in Telegram, the mail link's page, the dashboard, a message. */
export type ActionVia = 'telegram' | 'link' | 'dashboard' | 'message' | 'editor';

/** Longest label, camera, author or note kept, in characters: the book stays small. */
export const MAX_TEXT = 200;
/** Most link nonces remembered as used per alarm (each mail sent carries one). */
export const MAX_USED_LINKS = 50;

export interface Alarm {
  /** Short, random, for people and links (`k7m2qx9d`). */
  id: string;
  /** What joins reads into one alarm (`lpr:AB123CD`, `camera:gate 2`). */
  key: string;
  /** What people read: the plate as read, the person's name, the camera. */
  label: string;
  kind: EventKind;
  camera: string | null;
  state: Exclude<AlarmState, 'closed'>;
  urgent: boolean;
  openedAt: number;
  lastSeen: number;
  /** Alerts joined into it, the first included. */
  reads: number;
  /** Reminders sent. */
  reminders: number;
  escalated: boolean;
  ackBy?: string;
  ackAt?: number;
  note?: string;
  /** Nonces of mail links already used. */
  usedLinks: string[];
}

export type SnoozeScope = 'all' | 'camera' | 'key';

export interface Snooze {
  scope: SnoozeScope;
  /** The camera (lower case) or the key; '' for all. */
  value: string;
  /** What people read. */
  label: string;
  until: number;
  by: string;
  at: number;
  /** Alerts held by it. */
  held: number;
}

export type HistoryAction = 'opened' | 'reminded' | 'escalated' | 'acknowledged' | 'snoozed' | 'resumed' | 'closed' | 'disarmed' | 'armed';

export interface HistoryEntry {
  at: number;
  action: HistoryAction;
  /** The alarm's id, when the action was on one. */
  alarm?: string;
  /** The alarm's or the snooze's label. */
  label: string;
  /** Who did it; '' for the node itself (a reminder, a quiet close, a snooze that ended). */
  by: string;
  via?: ActionVia;
  note?: string;
  /** Alerts held (resumed, armed). */
  held?: number;
}

/** The whole book as kept in a file or in Redis. */
export interface BookState {
  alarms: Alarm[];
  snoozes: Snooze[];
  armed: boolean;
  /** Alerts held while disarmed. */
  heldDisarmed: number;
  history: HistoryEntry[];
}

export interface BookOptions {
  /** Remind every this long while unacknowledged; 0: never. */
  remindMs: number;
  maxReminders: number;
  /** Escalate this long after opening while unacknowledged; 0: never. */
  escalateMs: number;
  /** Close after this long without a read; 0: never by itself. */
  quietMs: number;
  /** Most open alarms; past it the oldest acknowledged one is closed, or the alert goes out untracked. */
  maxOpen: number;
  /** Urgent alerts go through a snooze. */
  urgentPierces: boolean;
  historyMax: number;
  historyMaxAgeMs: number;
  newId?: () => string;
}

/** An alert as the book sees it: its key and what people read. */
export interface AlertIn {
  key: string;
  /** The plate, face or externalId alone (`lpr:AB123CD`), when the key holds more or other: a snooze of it holds the alert too. */
  subject?: string;
  label: string;
  kind: EventKind;
  camera: string | null;
  urgent: boolean;
}

export type RaiseResult =
  | { outcome: 'opened'; alarm: Alarm; closed?: Alarm }
  | { outcome: 'joined'; alarm: Alarm }
  | { outcome: 'held'; why: 'disarmed' }
  | { outcome: 'held'; why: 'snoozed'; snooze: Snooze }
  /** The book is full of unanswered alarms: the alert goes out, not kept as one. */
  | { outcome: 'untracked' };

export interface Actor {
  by: string;
  via: ActionVia;
  note?: string;
}

export type ActionResult =
  | { ok: true; alarm: Alarm; state: AlarmState; snooze?: Snooze }
  | { ok: false; reason: 'unknown' }
  | { ok: false; reason: 'closed'; by: string; at: number }
  | { ok: false; reason: 'already'; by: string; at: number };

/** What fell due: notices to send, and changes to report. */
export type DueItem =
  | { type: 'reminder'; alarm: Alarm; number: number }
  | { type: 'escalation'; alarm: Alarm }
  | { type: 'closed'; alarm: Alarm }
  | { type: 'resumed'; snooze: Snooze };
