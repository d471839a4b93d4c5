/**
 * The alarm book: open alarms, snoozes, the armed state and the history of
 * what people did, with the rules that change them. No I/O and no timers:
 * each call takes `now` (the caller's clock, epoch ms) and returns what
 * happened; the node sends, the store keeps (./local-store.ts in a file,
 * ./redis-store.ts shared, both running these same rules).
 *
 * - An alert opens an alarm, or joins the one open for its key (one alarm
 *   per visit, not per read). While its key, its camera or everything is
 *   snoozed, or while the book is disarmed, it is held: counted, and the
 *   count summed up when the snooze ends or the book is armed again. An
 *   urgent alert pierces a snooze when the node says so.
 * - Unacknowledged, an alarm reminds every `remindMs` after it opened (at
 *   most `maxReminders` times) and escalates once at `escalateMs`; an
 *   acknowledgement stops both.
 * - After `quietMs` without a read it closes by itself: an acknowledged
 *   one at once, an unanswered one only once nothing is left to send (its
 *   reminders and escalation done), so quiet never silences an alarm
 *   nobody saw.
 */
import { randomBytes } from 'node:crypto';
import {
  MAX_TEXT,
  MAX_USED_LINKS,
  type ActionResult,
  type Actor,
  type Alarm,
  type AlertIn,
  type BookOptions,
  type BookState,
  type DueItem,
  type HistoryEntry,
  type RaiseResult,
  type Snooze,
  type SnoozeScope,
} from './types';

const cut = (text: string): string => (text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text);
const copy = <T>(value: T): T => structuredClone(value);

/** A short random id: 8 letters and digits (no look-alikes), for people and links. */
export function newAlarmId(): string {
  const letters = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(8);
  let id = '';
  for (const byte of bytes) id += letters[byte % letters.length];
  return id;
}

export function emptyBook(): BookState {
  return { alarms: [], snoozes: [], armed: true, heldDisarmed: 0, history: [] };
}

export class AlarmBook {
  private readonly newId: () => string;

  constructor(
    private state: BookState,
    private options: BookOptions,
  ) {
    this.newId = options.newId ?? newAlarmId;
  }

  /** A copy of the whole book, to keep. */
  snapshot(): BookState {
    return copy(this.state);
  }

  get armed(): boolean {
    return this.state.armed;
  }

  get heldDisarmed(): number {
    return this.state.heldDisarmed;
  }

  /** Open and acknowledged alarms, oldest first (copies). */
  alarms(): Alarm[] {
    return copy(this.state.alarms);
  }

  get size(): number {
    return this.state.alarms.length;
  }

  /** Snoozes in force at `now` (copies). */
  snoozes(now: number): Snooze[] {
    return copy(this.state.snoozes.filter((s) => s.until > now));
  }

  /** The history, newest first (copies). */
  history(): HistoryEntry[] {
    return copy(this.state.history).reverse();
  }

  find(id: string): Alarm | undefined {
    const alarm = this.state.alarms.find((a) => a.id === id);
    return alarm ? copy(alarm) : undefined;
  }

  /** New settings: due times follow from them. */
  reconfigure(options: BookOptions): void {
    this.options = { ...options, newId: this.options.newId };
  }

  raise(alert: AlertIn, now: number): RaiseResult {
    const s = this.state;
    if (!s.armed) {
      s.heldDisarmed++;
      return { outcome: 'held', why: 'disarmed' };
    }
    const camera = alert.camera === null ? null : cut(alert.camera);
    const snooze = this.snoozeFor(alert, camera, now);
    if (snooze && !(alert.urgent && this.options.urgentPierces)) {
      snooze.held++;
      return { outcome: 'held', why: 'snoozed', snooze: copy(snooze) };
    }
    const open = s.alarms.find((a) => a.key === alert.key);
    if (open) {
      open.reads++;
      open.lastSeen = Math.max(open.lastSeen, now);
      if (alert.urgent) open.urgent = true;
      return { outcome: 'joined', alarm: copy(open) };
    }
    let closed: Alarm | undefined;
    if (s.alarms.length >= this.options.maxOpen) {
      const oldest = s.alarms.find((a) => a.state === 'acknowledged');
      if (!oldest) return { outcome: 'untracked' };
      closed = this.closeAlarm(oldest, now, { by: '', via: 'editor' });
    }
    const alarm: Alarm = {
      id: this.uniqueId(),
      key: alert.key,
      label: cut(alert.label),
      kind: alert.kind,
      camera,
      state: 'open',
      urgent: alert.urgent,
      openedAt: now,
      lastSeen: now,
      reads: 1,
      reminders: 0,
      escalated: false,
      usedLinks: [],
    };
    s.alarms.push(alarm);
    this.record(now, { action: 'opened', alarm: alarm.id, label: alarm.label, by: '' });
    return closed ? { outcome: 'opened', alarm: copy(alarm), closed } : { outcome: 'opened', alarm: copy(alarm) };
  }

  acknowledge(id: string, actor: Actor, now: number): ActionResult {
    const alarm = this.state.alarms.find((a) => a.id === id);
    if (!alarm) return this.missing(id);
    if (alarm.state === 'acknowledged') return { ok: false, reason: 'already', by: alarm.ackBy ?? '', at: alarm.ackAt ?? now };
    this.ack(alarm, actor, now);
    return { ok: true, alarm: copy(alarm), state: alarm.state };
  }

  close(id: string, actor: Actor, now: number): ActionResult {
    const alarm = this.state.alarms.find((a) => a.id === id);
    if (!alarm) return this.missing(id);
    const closed = this.closeAlarm(alarm, now, actor);
    return { ok: true, alarm: closed, state: 'closed' };
  }

  /**
   * Snoozes what alarm `id` is about (its key, or its camera) for `ms`, and
   * acknowledges it: whoever snoozes it has seen it.
   */
  snoozeAlarm(id: string, scope: 'key' | 'camera', ms: number, actor: Actor, now: number): ActionResult {
    const alarm = this.state.alarms.find((a) => a.id === id);
    if (!alarm) return this.missing(id);
    if (alarm.state === 'open') this.ack(alarm, actor, now);
    const onCamera = scope === 'camera' && alarm.camera !== null;
    const snooze = this.snooze(
      onCamera ? 'camera' : 'key',
      onCamera ? (alarm.camera as string) : alarm.key,
      onCamera ? (alarm.camera as string) : alarm.label,
      ms,
      actor,
      now,
    );
    return { ok: true, alarm: copy(alarm), state: alarm.state, snooze };
  }

  /** Snoozes a camera, a key or everything for `ms` (a snooze of the same one is replaced, its count kept). */
  snooze(scope: SnoozeScope, value: string, label: string, ms: number, actor: Actor, now: number): Snooze {
    const s = this.state;
    const wanted = scope === 'all' ? '' : scope === 'camera' ? cut(value).trim().toLowerCase() : value;
    let snooze = s.snoozes.find((x) => x.scope === scope && x.value === wanted);
    if (!snooze) {
      snooze = { scope, value: wanted, label: cut(label), until: now, by: '', at: now, held: 0 };
      s.snoozes.push(snooze);
    }
    snooze.until = now + ms;
    snooze.by = cut(actor.by);
    snooze.at = now;
    this.record(now, { action: 'snoozed', label: snooze.label, by: snooze.by, via: actor.via, note: actor.note });
    return copy(snooze);
  }

  /** Ends a snooze before its time; undefined when there is none. */
  resume(scope: SnoozeScope, value: string, actor: Actor, now: number): Snooze | undefined {
    const wanted = scope === 'camera' ? cut(value).trim().toLowerCase() : scope === 'all' ? '' : value;
    const at = this.state.snoozes.findIndex((x) => x.scope === scope && x.value === wanted && x.until > now);
    if (at < 0) return undefined;
    const [snooze] = this.state.snoozes.splice(at, 1);
    this.record(now, { action: 'resumed', label: snooze.label, by: cut(actor.by), via: actor.via, held: snooze.held });
    return snooze;
  }

  /** Disarms: every alert is held (counted) until armed again. False when already disarmed. */
  disarm(actor: Actor, now: number): boolean {
    if (!this.state.armed) return false;
    this.state.armed = false;
    this.state.heldDisarmed = 0;
    this.record(now, { action: 'disarmed', label: '', by: cut(actor.by), via: actor.via, note: actor.note });
    return true;
  }

  /** Arms again; the count of alerts held while disarmed, or undefined when it was armed. */
  arm(actor: Actor, now: number): number | undefined {
    if (this.state.armed) return undefined;
    const held = this.state.heldDisarmed;
    this.state.armed = true;
    this.state.heldDisarmed = 0;
    this.record(now, { action: 'armed', label: '', by: cut(actor.by), via: actor.via, held });
    return held;
  }

  /**
   * Marks link `nonce` of alarm `id` used; false when it was used before (a
   * link works once). The alarm must be open or acknowledged.
   */
  useLink(id: string, nonce: string): boolean {
    const alarm = this.state.alarms.find((a) => a.id === id);
    if (!alarm || alarm.usedLinks.includes(nonce)) return false;
    alarm.usedLinks.push(nonce);
    if (alarm.usedLinks.length > MAX_USED_LINKS) alarm.usedLinks.shift();
    return true;
  }

  /** Whether link `nonce` of alarm `id` was used. */
  linkUsed(id: string, nonce: string): boolean {
    return this.state.alarms.find((a) => a.id === id)?.usedLinks.includes(nonce) ?? false;
  }

  /** How alarm `id` ended, from the history: for a page or an answer that says why. */
  closedEntry(id: string): HistoryEntry | undefined {
    for (let i = this.state.history.length - 1; i >= 0; i--) {
      const entry = this.state.history[i];
      if (entry.alarm === id && entry.action === 'closed') return copy(entry);
    }
    return undefined;
  }

  /** What fell due by `now`: reminders, escalations, quiet closes, snoozes ended; each once. */
  due(now: number): DueItem[] {
    const { remindMs, maxReminders, escalateMs, quietMs } = this.options;
    const items: DueItem[] = [];
    for (const alarm of [...this.state.alarms]) {
      if (alarm.state === 'open') {
        if (escalateMs > 0 && !alarm.escalated && alarm.openedAt + escalateMs <= now) {
          alarm.escalated = true;
          this.record(now, { action: 'escalated', alarm: alarm.id, label: alarm.label, by: '' });
          items.push({ type: 'escalation', alarm: copy(alarm) });
        }
        if (remindMs > 0 && alarm.reminders < maxReminders && alarm.openedAt + remindMs * (alarm.reminders + 1) <= now) {
          // after a long stop, one reminder for all those missed
          alarm.reminders = Math.min(maxReminders, Math.floor((now - alarm.openedAt) / remindMs));
          this.record(now, { action: 'reminded', alarm: alarm.id, label: alarm.label, by: '' });
          items.push({ type: 'reminder', alarm: copy(alarm), number: alarm.reminders });
        }
      }
      if (quietMs > 0 && alarm.lastSeen + quietMs <= now && this.nothingPending(alarm)) {
        items.push({ type: 'closed', alarm: this.closeAlarm(alarm, now, { by: '', via: 'editor' }) });
      }
    }
    const ended = this.state.snoozes.filter((x) => x.until <= now);
    if (ended.length > 0) {
      this.state.snoozes = this.state.snoozes.filter((x) => x.until > now);
      for (const snooze of ended) {
        this.record(now, { action: 'resumed', label: snooze.label, by: '', held: snooze.held });
        items.push({ type: 'resumed', snooze: copy(snooze) });
      }
    }
    this.prune(now);
    return items;
  }

  /** When something falls due next (Infinity: nothing will). */
  nextDue(): number {
    const { remindMs, maxReminders, escalateMs, quietMs } = this.options;
    let next = Infinity;
    for (const alarm of this.state.alarms) {
      if (alarm.state === 'open') {
        if (escalateMs > 0 && !alarm.escalated) next = Math.min(next, alarm.openedAt + escalateMs);
        if (remindMs > 0 && alarm.reminders < maxReminders) next = Math.min(next, alarm.openedAt + remindMs * (alarm.reminders + 1));
      }
      if (quietMs > 0 && this.nothingPending(alarm)) next = Math.min(next, alarm.lastSeen + quietMs);
    }
    for (const snooze of this.state.snoozes) next = Math.min(next, snooze.until);
    const oldest = this.state.history[0];
    if (oldest) next = Math.min(next, oldest.at + this.options.historyMaxAgeMs);
    return next;
  }

  private nothingPending(alarm: Alarm): boolean {
    if (alarm.state === 'acknowledged') return true;
    const { remindMs, maxReminders, escalateMs } = this.options;
    return (remindMs <= 0 || alarm.reminders >= maxReminders) && (escalateMs <= 0 || alarm.escalated);
  }

  private snoozeFor(alert: AlertIn, camera: string | null, now: number): Snooze | undefined {
    const cam = camera?.trim().toLowerCase();
    const held = (x: Snooze): boolean =>
      x.scope === 'all' || (x.scope === 'camera' ? x.value === cam : x.value === alert.key || x.value === alert.subject);
    return this.state.snoozes.find((x) => x.until > now && held(x));
  }

  private ack(alarm: Alarm, actor: Actor, now: number): void {
    alarm.state = 'acknowledged';
    alarm.ackBy = cut(actor.by);
    alarm.ackAt = now;
    if (actor.note) alarm.note = cut(actor.note);
    this.record(now, { action: 'acknowledged', alarm: alarm.id, label: alarm.label, by: alarm.ackBy, via: actor.via, note: alarm.note });
  }

  private closeAlarm(alarm: Alarm, now: number, actor: Actor): Alarm {
    this.state.alarms = this.state.alarms.filter((a) => a !== alarm);
    const by = cut(actor.by);
    this.record(now, { action: 'closed', alarm: alarm.id, label: alarm.label, by, via: by === '' ? undefined : actor.via, note: actor.note });
    return copy(alarm);
  }

  private missing(id: string): ActionResult {
    const closed = this.closedEntry(id);
    return closed ? { ok: false, reason: 'closed', by: closed.by, at: closed.at } : { ok: false, reason: 'unknown' };
  }

  private uniqueId(): string {
    for (;;) {
      const id = this.newId();
      if (!this.state.alarms.some((a) => a.id === id)) return id;
    }
  }

  private record(now: number, entry: Omit<HistoryEntry, 'at'>): void {
    const kept: HistoryEntry = { at: now, ...entry };
    if (kept.note === undefined || kept.note === '') delete kept.note;
    else kept.note = cut(kept.note);
    if (kept.via === undefined) delete kept.via;
    if (kept.alarm === undefined) delete kept.alarm;
    if (kept.held === undefined) delete kept.held;
    this.state.history.push(kept);
    this.prune(now);
  }

  /** History bounded in count and age. */
  private prune(now: number): void {
    const h = this.state.history;
    const { historyMax, historyMaxAgeMs } = this.options;
    let drop = Math.max(0, h.length - historyMax);
    while (drop < h.length && h[drop].at + historyMaxAgeMs <= now) drop++;
    if (drop > 0) h.splice(0, drop);
  }
}
