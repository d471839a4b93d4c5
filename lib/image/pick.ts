/**
 * Which image of a detection event to send: a plate crop by `cropSizeName`
 * (never by array position) or the live / enrolled face image. Images are
 * found by reference: nothing here copies an event or an image string.
 */
import { optionDefault } from '../config';
import { CROP_SIZE_NAMES, PUBLISH_TYPE_FACE, PUBLISH_TYPE_LPR, type CropSizeName, type EventKind } from '../core/event-kinds';

/** Default preference: the tightest plate crop first. */
export const DEFAULT_CROP_ORDER: readonly CropSizeName[] = CROP_SIZE_NAMES;

/** `first`: one message with the best crop; `all`: one message per crop. */
export const PLATE_MODES = ['first', 'all'] as const;
export type PlateMode = (typeof PLATE_MODES)[number];

/** `detection`: the live capture (`payload.detectionImage`); `photo`: the enrolled photograph (`payload.defaultPhoto`). */
export const FACE_CHOICES = ['detection', 'photo'] as const;
export type FaceChoice = (typeof FACE_CHOICES)[number];

/** `output`: messages without an image go to output 2; `error`: they fail with an error. */
export const NO_IMAGE_POLICIES = ['output', 'error'] as const;
export type NoImagePolicy = (typeof NO_IMAGE_POLICIES)[number];

export interface PickOptions {
  /** Crop names in order of preference; crops not listed are never picked. */
  crops: readonly string[];
  plateMode: PlateMode;
  face: FaceChoice;
  /** Use the other face image when the chosen one is absent. */
  faceFallback: boolean;
}

/** What detection image picks when not told: its dialog's defaults (lib/config/node-options.ts). */
export const DEFAULT_PICK_OPTIONS: PickOptions = {
  crops: DEFAULT_CROP_ORDER,
  plateMode: optionDefault('detection-image', 'plateMode'),
  face: optionDefault('detection-image', 'faceImage'),
  faceFallback: optionDefault('detection-image', 'faceFallback'),
};

/** One image found in an event, not decoded yet. */
export interface FoundImage {
  /** The `cropSizeName` of a plate crop, or `detection` / `photo` for a face. */
  source: string;
  /** Where the image is in the event, e.g. `payload.detectionImages[2].image`. */
  path: string;
  /** The field's value as sent (a reference, never a copy). */
  text: unknown;
}

export type PickResult =
  | { ok: true; kind: EventKind; images: FoundImage[] }
  | { ok: false; problem: 'not-an-event' }
  | { ok: false; problem: 'unknown-kind'; publishType: string };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
/** An image field counts as present unless it is absent, null or an empty string. */
const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

/**
 * Finds the image(s) to send, by `cropSizeName` for plates (never by array
 * position) and by the face choice for faces. An empty `images` list means
 * the event has no image that matches.
 */
export function pickImages(event: unknown, options: PickOptions): PickResult {
  if (!isObject(event)) return { ok: false, problem: 'not-an-event' };
  const type = event.publishType;
  const payload = isObject(event.payload) ? event.payload : {};
  if (type === PUBLISH_TYPE_LPR) return { ok: true, kind: 'lpr', images: pickPlate(payload.detectionImages, options) };
  if (type === PUBLISH_TYPE_FACE) return { ok: true, kind: 'face', images: pickFace(payload, options) };
  if (type === undefined || type === null) return { ok: false, problem: 'not-an-event' };
  return { ok: false, problem: 'unknown-kind', publishType: String(type) };
}

function pickPlate(list: unknown, options: PickOptions): FoundImage[] {
  if (!Array.isArray(list)) return [];
  const { crops } = options;
  const found = (i: number): FoundImage => ({
    source: (list[i] as { cropSizeName: string }).cropSizeName,
    path: `payload.detectionImages[${i}].image`,
    text: (list[i] as { image: unknown }).image,
  });
  const rankOf = (item: unknown): number =>
    isObject(item) && typeof item.cropSizeName === 'string' && present(item.image) ? crops.indexOf(item.cropSizeName) : -1;

  if (options.plateMode === 'all') {
    const ranked: Array<{ rank: number; index: number }> = [];
    for (let i = 0; i < list.length; i++) {
      const rank = rankOf(list[i]);
      if (rank >= 0) ranked.push({ rank, index: i });
    }
    ranked.sort((a, b) => a.rank - b.rank || a.index - b.index);
    return ranked.map((r) => found(r.index));
  }
  let best = -1;
  let bestRank = Infinity;
  for (let i = 0; i < list.length; i++) {
    const rank = rankOf(list[i]);
    if (rank >= 0 && rank < bestRank) {
      best = i;
      bestRank = rank;
      if (rank === 0) break;
    }
  }
  return best >= 0 ? [found(best)] : [];
}

const FACE_FIELDS: Record<FaceChoice, string> = { detection: 'detectionImage', photo: 'defaultPhoto' };

function pickFace(payload: Record<string, unknown>, options: PickOptions): FoundImage[] {
  const order: FaceChoice[] = options.face === 'photo' ? ['photo', 'detection'] : ['detection', 'photo'];
  if (!options.faceFallback) order.length = 1;
  for (const source of order) {
    const holder = payload[FACE_FIELDS[source]];
    if (isObject(holder) && present(holder.image)) return [{ source, path: `payload.${FACE_FIELDS[source]}.image`, text: holder.image }];
  }
  return [];
}

/** A crop preference list from the node's configuration (lib/core/crop-sizes.ts, which the editor runs too). */
export { parseCropList } from '../core/crop-sizes';
