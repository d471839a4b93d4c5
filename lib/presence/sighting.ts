/**
 * A detection event as a sighting of a key: what the key is (a plate folded
 * by look-alike classes, so 8OB123 and BOB123 are one car; a face id; an
 * externalId), a label for people (the plate as read, the person's name;
 * never images), the camera, and when: the detection time, never later than
 * now, or now when the event gives none it can read.
 */
import { parseIsoDate } from '../core/iso-date';
import type { DetectionView } from '../events';
import { normalisePlate, type Lookalikes } from '../plates';
import { MAX_TEXT, type SightingInput } from './table';

/** What a presence is keyed by: a plate for plate events and a face id for face events, or one of them, or the integrator's externalId. */
export const PRESENCE_KEYS = ['plateOrFace', 'plate', 'face', 'externalId'] as const;
export type PresenceKeyBy = (typeof PRESENCE_KEYS)[number];

export interface Keying {
  by: PresenceKeyBy;
  /** Plates are folded by these classes (undefined: compared as read, after normalising). */
  lookalikes?: Lookalikes;
  /** Exit cameras' names, trimmed and in lower case. */
  exitCameras: ReadonlySet<string>;
}

/** A camera name as exit cameras are compared: trimmed, any case. */
export function cameraName(name: string): string {
  return name.trim().toLowerCase();
}

/** Exit cameras as a person types them: names separated by commas or new lines. */
export function parseCameraList(text: unknown): Set<string> {
  const names = typeof text === 'string' ? text.split(/[,\n]/) : [];
  return new Set(names.map(cameraName).filter((name) => name !== ''));
}

/** What keys mean: a kept or saved table of another definition holds other keys. */
export function keyDefinition(keying: Keying): string {
  return JSON.stringify([keying.by, keying.lookalikes?.text ?? null]);
}

/** A key part: text, or a number as text (a lenient event's face id may be one). */
function keyPart(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function shortText(text: string): string {
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
}

export type SightingRead = { ok: true; sighting: SightingInput } | { ok: false; reason: 'no-key' | 'key-too-long' };

/**
 * The sighting `view` makes (the detection view of the event, with `event`
 * itself for ids a lenient receiver let through as numbers), or why it
 * makes none: the event lacks the key (a face event where plates are
 * counted, an event without externalId), or the key is too long to be one.
 */
export function sightingOf(view: DetectionView, event: unknown, keying: Keying, now: number): SightingRead {
  const inner = (event as { payload?: { personInfo?: { faceId?: unknown } } } | null)?.payload;
  const plate = (): string | undefined => {
    const read = view.kind === 'lpr' && view.plate !== null ? normalisePlate(view.plate) : '';
    if (read === '') return undefined;
    return keying.lookalikes ? keying.lookalikes.fold(read) : read;
  };
  const faceId = view.kind === 'face' ? (view.faceId ?? keyPart(inner?.personInfo?.faceId)) : undefined;
  const by = keying.by === 'plateOrFace' ? (view.kind === 'lpr' ? 'plate' : 'face') : keying.by;
  const prefix = by === 'plate' ? 'lpr' : by === 'face' ? 'face' : 'ext';
  const key =
    by === 'plate'
      ? plate()
      : by === 'face'
        ? faceId
        : (keyPart((event as { externalId?: unknown } | null)?.externalId) ?? view.externalId ?? undefined);
  if (key === undefined) return { ok: false, reason: 'no-key' };
  if (key.length > MAX_TEXT) return { ok: false, reason: 'key-too-long' };
  const detected = view.time === null ? NaN : parseIsoDate(view.time);
  const time = Number.isFinite(detected) ? Math.min(Math.round(detected), now) : now;
  const label = view.kind === 'lpr' ? (view.plate ?? key) : (view.fullName ?? faceId ?? key);
  const camera = view.camera === null ? null : shortText(view.camera);
  return {
    ok: true,
    sighting: {
      id: `${prefix}:${key}`,
      key,
      kind: view.kind,
      label: shortText(label),
      camera,
      time,
      exit: camera !== null && keying.exitCameras.has(cameraName(camera)),
    },
  };
}
