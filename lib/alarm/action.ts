/**
 * What a message asks of the alarm node, read without code on the user's
 * side: `msg.topic` names the action (ack, snooze, close, resume, arm,
 * disarm, list) and `msg.payload` the alarm (its id as text, or an object
 * with `id`, `by`, `note`, `minutes`, and for a snooze without an alarm:
 * `camera`, `plate`, `faceId`, `externalId`, `key` or `all: true`; for an ack
 * or a close without an alarm, `all: true`: every open one); or a Telegram button's
 * callback (node-red-contrib-telegrambot's event node, ./telegram.ts). Any
 * other message is an alert.
 */
import { MAX_TEXT, type ActionVia, type SnoozeScope } from './types';

export const ALARM_ACTIONS = ['ack', 'snooze', 'close', 'resume', 'arm', 'disarm', 'list'] as const;
export type AlarmAction = (typeof ALARM_ACTIONS)[number];

/** A snooze's target when no alarm names it. */
export interface SnoozeTarget {
  scope: SnoozeScope;
  /** The camera, or the key as the node builds it (`lpr:…`, `face:…`): see ./alert-in.ts. */
  value: string;
  label: string;
}

export interface ActionRequest {
  action: AlarmAction;
  /** The alarm's id, when one is named. */
  id?: string;
  by: string;
  note?: string;
  /** snooze: how long, in ms (undefined: the node's snooze time). */
  ms?: number;
  /** snooze or resume without an alarm: what. */
  target?: SnoozeTarget;
  /** ack or close without an alarm: every one (a guard's one button: `all: true`). */
  all?: boolean;
  via: ActionVia;
}

export type ActionRead =
  | { ok: true; request: ActionRequest }
  /** Not an action: an alert. */
  | { ok: false; reason: 'alert' }
  /** An action the node cannot run: what is wrong, as a catalog key and values. */
  | { ok: false; reason: 'invalid'; problem: string; vars?: Record<string, string> };

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, MAX_TEXT) : typeof value === 'number' ? String(value) : undefined;

/**
 * The action `topic` and `payload` ask for. `plateKey` makes a plate into
 * the key the node's alarms use (normalised, look-alikes folded).
 */
export function readAction(topic: unknown, payload: unknown, plateKey: (plate: string) => string, fallbackBy: string): ActionRead {
  if (typeof topic !== 'string') return { ok: false, reason: 'alert' };
  const action = topic.trim().toLowerCase() as AlarmAction;
  if (!ALARM_ACTIONS.includes(action)) return { ok: false, reason: 'alert' };
  const fields: Record<string, unknown> =
    payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : { id: payload };
  const by = text(fields.by) ?? fallbackBy;
  const note = text(fields.note);
  const request: ActionRequest = { action, by, via: fields.via === 'dashboard' ? 'dashboard' : 'message' };
  if (note) request.note = note;
  const id = text(fields.id);
  if (id !== undefined) {
    if (!/^[a-z0-9]{1,32}$/.test(id)) return { ok: false, reason: 'invalid', problem: 'bad-id', vars: { id } };
    request.id = id;
  }
  if (fields.minutes !== undefined) {
    const minutes = typeof fields.minutes === 'string' ? Number(fields.minutes) : fields.minutes;
    if (typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes <= 0 || minutes > 60 * 24 * 366)
      return { ok: false, reason: 'invalid', problem: 'bad-minutes', vars: { minutes: String(fields.minutes) } };
    request.ms = Math.round(minutes * 60_000);
  }
  if ((action === 'snooze' || action === 'resume') && id === undefined) {
    const camera = text(fields.camera);
    const plate = text(fields.plate);
    // a plate of nothing but spaces and dashes keys nothing (lib/presence/sighting.ts reads no key from it)
    const plateValue = plate === undefined ? '' : plateKey(plate);
    const faceId = text(fields.faceId);
    const externalId = text(fields.externalId);
    const key = text(fields.key);
    if (fields.all === true) request.target = { scope: 'all', value: '', label: '' };
    else if (camera) request.target = { scope: 'camera', value: camera, label: camera };
    else if (plate && plateValue !== '') request.target = { scope: 'key', value: `lpr:${plateValue}`, label: plate };
    else if (faceId) request.target = { scope: 'key', value: `face:${faceId}`, label: faceId };
    else if (externalId) request.target = { scope: 'key', value: `ext:${externalId}`, label: externalId };
    else if (key) request.target = { scope: 'key', value: key, label: key };
    else return { ok: false, reason: 'invalid', problem: 'no-target' };
  }
  if ((action === 'ack' || action === 'close') && id === undefined) {
    if (fields.all !== true) return { ok: false, reason: 'invalid', problem: 'no-id' };
    request.all = true;
  }
  return { ok: true, request };
}
