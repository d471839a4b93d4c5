/**
 * The events a simulated bridge sends: the sample events of lib/events, made
 * to show a scenario's plate or person, camera, site and time (scenario.ts),
 * with real JPEG pictures that show the event's plate or name (the default;
 * pictures.ts), the same pictures grown to the bridge's real sizes (a plate
 * event with four crops is about 1 MiB), the two-byte fillers of the sample
 * endpoints, or no pictures at all; and the face/plate mix of a run.
 */
import { randomUUID } from 'node:crypto';
import { buildSampleEvent, SAMPLE_IMAGE } from '../lib/bridge';
import { CROP_SIZE_NAMES } from '../lib/core';
import type { CropSizeName, DetectionEvent, EventKind, WebHookFaceRecPayload, WebHookLprPayload } from '../lib/events';
import { fillerJpegBase64 } from './images';
import { drawnPicture, drawnPictureKey, type PictureName } from './pictures';
import { applyScene, type EventScene, type Scenario } from './scenario';

/**
 * What a delivered event's images are: `pictures`, small real JPEGs showing
 * the event's plate or name (a face, an enrolled photo, one picture per plate
 * crop; a few KiB each); `realistic`, the same pictures grown to the bridge's
 * real sizes with JPEG comments; `fillers`, the two-byte filler of the
 * bridge's sample endpoints (not a picture); `none`, no image fields at all
 * (no `detectionImages`, no `detectionImage` or `defaultPhoto`), as real
 * bridges sometimes send.
 */
export const IMAGE_MODES = ['pictures', 'realistic', 'fillers', 'none'] as const;
export type ImageMode = (typeof IMAGE_MODES)[number];

/** Approximate JSON size of an event with realistic images. */
export const REALISTIC_EVENT_BYTES: Readonly<Record<EventKind, number>> = { face: 370 * 1024, lpr: 1024 * 1024 };

/** How a plate event's image budget is shared by its four crops. */
const LPR_CROPS: ReadonlyArray<[CropSizeName, number]> = [
  ['Close', 0.1],
  ['Medium', 0.2],
  ['Car', 0.3],
  ['FullFrame', 0.4],
];
/** A face event's live capture and enrolled photo. */
const FACE_SHARES = { detectionImage: 0.65, defaultPhoto: 0.35 };

/** The kind of event number `seq` (from 1): after n events, floor(n × mix) are plates. */
export function kindForSeq(seq: number, mix: number): EventKind {
  return Math.floor(seq * mix + 1e-9) > Math.floor((seq - 1) * mix + 1e-9) ? 'lpr' : 'face';
}

/** Image sizes (base64 characters) that bring an event to its realistic size. */
const realisticSizes = new Map<EventKind, number[]>();

function imageSizes(kind: EventKind): number[] {
  let sizes = realisticSizes.get(kind);
  if (!sizes) {
    const bare = buildDeliveryEvent(kind, { messageId: randomUUID() });
    if (bare.publishType === 'WebHookLprPayload') for (const image of bare.payload.detectionImages ?? []) image.image = '';
    else {
      bare.payload.detectionImage = { image: '' };
      bare.payload.defaultPhoto = { image: '' };
    }
    const budget = REALISTIC_EVENT_BYTES[kind] - Buffer.byteLength(JSON.stringify(bare));
    const shares = kind === 'lpr' ? LPR_CROPS.map(([, share]) => share) : [FACE_SHARES.detectionImage, FACE_SHARES.defaultPhoto];
    sizes = shares.map((share) => Math.floor((budget * share) / 4) * 4);
    realisticSizes.set(kind, sizes);
  }
  return sizes;
}

export interface DeliveryEventOptions {
  messageId?: string;
  now?: Date;
  /** Default `fillers` here (the bench's bodies); a delivery run's default is `pictures`. */
  images?: ImageMode;
  /** Same as images: 'realistic' (kept for callers of the earlier option). */
  realisticImages?: boolean;
  /** What the event shows, drawn from `scenario` (ScenarioDraw.next). */
  scene?: EventScene;
  scenario?: Scenario;
  /** Changes made before the pictures are drawn (a delivery's enrolled plate or person), so that they show them. */
  edit?: (event: DetectionEvent) => void;
}

/**
 * One event as the simulator delivers it: the sample of the kind (lib/bridge/sample.ts)
 * with its own messageId, a detectId of its own, the detection time now (or
 * the scene's), the scene's plate or person, camera, site and zone, and the
 * images asked for: realistic ones are the plate's four crops Close, Medium,
 * Car, FullFrame, and the face's live capture and enrolled photo. A scene's
 * plate or person with `images: false` has none.
 */
export function buildDeliveryEvent(kind: EventKind, options: DeliveryEventOptions = {}): DetectionEvent {
  const messageId = options.messageId ?? randomUUID();
  const asked: ImageMode = options.realisticImages ? 'realistic' : (options.images ?? 'fillers');
  const event = buildSampleEvent(kind, { messageId, now: options.scene?.at ?? options.now, images: 'fillers' });
  if (options.scene && options.scenario) applyScene(event, options.scene, options.scenario);
  if (event.publishType === 'WebHookFaceRecPayload') (event as WebHookFaceRecPayload).payload.detectionInfo.detectId = `det-${messageId.slice(0, 8)}`;
  options.edit?.(event);
  const withoutPictures = options.scene?.plate?.images === false || options.scene?.face?.images === false;
  setImages(event, withoutPictures ? 'none' : asked);
  return event;
}

/** A drawn picture, grown to `chars` when realistic. */
function picture(mode: 'pictures' | 'realistic', name: PictureName, text: string, chars: number, variant: number): string {
  const drawn = drawnPicture(name, text);
  return mode === 'pictures' ? drawn : fillerJpegBase64(chars, variant, drawn, drawnPictureKey(name, text));
}

/** Puts the images of `mode` in an event built with fillers. */
function setImages(event: DetectionEvent, mode: ImageMode): void {
  if (mode === 'fillers') return;
  if (event.publishType === 'WebHookLprPayload') {
    const lpr = (event as WebHookLprPayload).payload;
    if (mode === 'none') {
      delete lpr.detectionImages;
      return;
    }
    const plate = lpr.lprPlateInfo.plate ?? '';
    if (mode === 'pictures')
      lpr.detectionImages = CROP_SIZE_NAMES.map((cropSizeName) => ({ image: picture(mode, cropSizeName, plate, 0, 0), cropSizeName }));
    else {
      const sizes = imageSizes('lpr');
      lpr.detectionImages = LPR_CROPS.map(([cropSizeName], i) => ({ image: picture(mode, cropSizeName, plate, sizes[i], 10 + i), cropSizeName }));
    }
    return;
  }
  const face = (event as WebHookFaceRecPayload).payload;
  // an enrollment's own photo (applyEnrollment) is kept as it is, but not sent without pictures
  const enrolledPhoto = face.defaultPhoto?.image !== SAMPLE_IMAGE;
  if (mode === 'none') {
    delete face.detectionImage;
    delete face.defaultPhoto;
    return;
  }
  const person = face.personInfo;
  const name = [person.firstName, person.middleName, person.lastName].filter(Boolean).join(' ');
  const [live, enrolled] = mode === 'realistic' ? imageSizes('face') : [0, 0];
  face.detectionImage = { image: picture(mode, 'detectionImage', name, live, 1) };
  if (!enrolledPhoto) face.defaultPhoto = { image: picture(mode, 'defaultPhoto', name, enrolled, 2) };
}
