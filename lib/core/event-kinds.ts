/**
 * The names every subsystem uses for the two kinds of detection event: the
 * bridge's publish types, the short kind, and the crop sizes of a plate
 * image. The event schemas (lib/events/schemas.ts) are built on them; the
 * platform's push schemas, images, samples and enrollment use them too.
 */
import { z } from 'zod';
import { CROP_SIZE_NAMES } from './crop-sizes';

export const PUBLISH_TYPE_FACE = 'WebHookFaceRecPayload';
export const PUBLISH_TYPE_LPR = 'WebHookLprPayload';

/** A face event or a licence-plate (LPR) event. */
export type EventKind = 'face' | 'lpr';

/** Values allowed for `cropSizeName` of a plate image (./crop-sizes.ts, which the editor runs too). */
export { CROP_SIZE_NAMES };

/** The kind of an event by its `publishType`, worked out here only; undefined for neither. */
export function kindOfPublishType(publishType: unknown): EventKind | undefined {
  return publishType === PUBLISH_TYPE_FACE ? 'face' : publishType === PUBLISH_TYPE_LPR ? 'lpr' : undefined;
}
export const CropSizeName = z.enum(CROP_SIZE_NAMES);
export type CropSizeName = z.infer<typeof CropSizeName>;
