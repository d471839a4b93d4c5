/**
 * A detection event as the alarm book sees it: the key that joins its reads
 * into one alarm (the plate, look-alikes folded as presence folds them; the
 * person; the camera; both; the externalId), what people read, and a slim
 * copy kept for reminders and the mail link's page: the event without its
 * pictures but the one an alert shows, so a reminder is built like the
 * first notice from a few kilobytes, not a megabyte.
 */
import type { DetectionView } from '../events';
import { DEFAULT_PICK_OPTIONS, pickImages } from '../image';
import type { Lookalikes } from '../plates';
import { sightingOf } from '../presence';
import { MAX_TEXT, type AlertIn } from './types';

/** What an alarm is keyed by: the plate or person, the camera, the plate or person at a camera, the externalId. */
export const ALARM_KEYS = ['subject', 'camera', 'subjectCamera', 'externalId'] as const;
export type AlarmKeyBy = (typeof ALARM_KEYS)[number];

export type AlertRead = { ok: true; alert: AlertIn } | { ok: false; reason: 'no-key' | 'key-too-long' };

/** The alert `view` (with its `event`) makes, keyed by `by`. */
export function alertOf(view: DetectionView, event: unknown, by: AlarmKeyBy, lookalikes: Lookalikes | undefined, urgent: boolean): AlertRead {
  const camera = view.camera === null || view.camera.trim() === '' ? null : view.camera.slice(0, MAX_TEXT);
  const cameraKey = camera === null ? undefined : `camera:${camera.trim().toLowerCase()}`;
  if (by === 'camera') {
    if (cameraKey === undefined) return { ok: false, reason: 'no-key' };
    const subject = sightingOf(view, event, { by: 'plateOrFace', lookalikes, exitCameras: new Set() }, 0);
    const alert: AlertIn = { key: cameraKey, label: camera as string, kind: view.kind, camera, urgent };
    if (subject.ok) alert.subject = subject.sighting.id;
    return { ok: true, alert };
  }
  const read = sightingOf(view, event, { by: by === 'externalId' ? 'externalId' : 'plateOrFace', lookalikes, exitCameras: new Set() }, 0);
  if (!read.ok) return read;
  const { id, label } = read.sighting;
  if (by === 'subjectCamera') {
    if (cameraKey === undefined) return { ok: false, reason: 'no-key' };
    return { ok: true, alert: { key: `${id}@${cameraKey}`, subject: id, label: `${label} · ${camera as string}`, kind: view.kind, camera, urgent } };
  }
  return { ok: true, alert: { key: id, label, kind: view.kind, camera, urgent } };
}

/** Strings longer than this are pictures (or as big as one): left out of a slim event. */
const BIG_STRING = 4096;

/**
 * A copy of `event` without its large strings (base64 pictures), but the
 * one picture an alert shows by default (lib/image's default choice), known
 * by where it is (another crop of the same text goes too); small fields are
 * shared with the event, not copied.
 */
export function slimEvent(event: unknown): unknown {
  const picked = pickImages(event, { ...DEFAULT_PICK_OPTIONS, plateMode: 'first' });
  const keep = picked.ok ? picked.images[0]?.path : undefined;
  const walk = (value: unknown, path: string, depth: number): unknown => {
    if (typeof value === 'string') return value.length > BIG_STRING && path !== keep ? undefined : value;
    if (value === null || typeof value !== 'object' || depth > 12) return value;
    if (Array.isArray(value)) return value.map((item, i) => walk(item, `${path}[${i}]`, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      const kept = walk(item, path === '' ? name : `${path}.${name}`, depth + 1);
      if (kept !== undefined) out[name] = kept;
    }
    return out;
  };
  return walk(event, '', 0);
}
