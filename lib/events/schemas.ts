/**
 * zod schemas for the events bridge payloads, field by field from the spec
 * ("Resources and their fields"). Types are inferred from the schemas.
 *
 * Every object schema is loose: unknown properties are kept, never stripped,
 * so a newer bridge that adds fields still validates (forward compatible).
 * R (required) fields must be present and non-null; O (optional) fields may be
 * null or absent (`nullish`).
 */
import { z } from 'zod';
import { isIsoDate } from '../core/iso-date';
import { CropSizeName, kindOfPublishType, PUBLISH_TYPE_FACE, PUBLISH_TYPE_LPR, type EventKind } from '../core/event-kinds';
import { formatPath, type SchemaError } from '../core/schema-error';

// The shared names the schemas are built on (lib/core), named here too: they are part of the event's shape.
export { CROP_SIZE_NAMES, CropSizeName, PUBLISH_TYPE_FACE, PUBLISH_TYPE_LPR, type EventKind } from '../core/event-kinds';
export { formatPath, type SchemaError } from '../core/schema-error';

/** ISO 8601 date or date-time, as .NET writes them (see lib/core/iso-date.ts). */
export const IsoDateTime = z.string().refine(isIsoDate, { message: 'expected an ISO 8601 date or date-time, such as 2024-05-01T12:30:00Z' });

/** Top-level `fields` entry: the integrator's additionalFields, replayed. */
export const TopLevelField = z.looseObject({
  fieldName: z.string(),
  fieldValue: z.string(),
});
export type TopLevelField = z.infer<typeof TopLevelField>;

const TYPED_VALUE_KEYS = ['stringValue', 'dateValue', 'numberValue', 'boolValue'] as const;

/** Custom field inside personInfo/lprPlateInfo: its value sits in exactly one
 *  of the four typed properties, the other three are null (or absent). */
export const TypedField = z
  .looseObject({
    fieldName: z.string(),
    stringValue: z.string().nullish(),
    dateValue: IsoDateTime.nullish(),
    numberValue: z.number().nullish(),
    boolValue: z.boolean().nullish(),
  })
  .superRefine((field, ctx) => {
    const set = TYPED_VALUE_KEYS.filter((key) => field[key] !== null && field[key] !== undefined);
    if (set.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          set.length === 0
            ? 'a typed field needs a value in one of stringValue, dateValue, numberValue, boolValue'
            : `a typed field carries exactly one value, found ${set.join(', ')}`,
      });
    }
  });
export type TypedField = z.infer<typeof TypedField>;

export const Tag = z.looseObject({
  tagName: z.string(),
  expires: IsoDateTime.nullish(),
});
export type Tag = z.infer<typeof Tag>;

export const Note = z.looseObject({
  noteTitle: z.string(),
  noteBody: z.string(),
});
export type Note = z.infer<typeof Note>;

export const Visit = z.looseObject({
  dateTimeUtc: IsoDateTime,
  detectorName: z.string(),
});
export type Visit = z.infer<typeof Visit>;

export const Print = z.looseObject({
  dateTimeUtc: IsoDateTime,
  printerName: z.string(),
});
export type Print = z.infer<typeof Print>;

/** An image as sent by the bridge: base64 text (a JPEG in live events). The
 *  content is not decoded here; detection-image does that on demand. */
export const ImageHolder = z.looseObject({
  image: z.string(),
});
export type ImageHolder = z.infer<typeof ImageHolder>;

export const DetectionImage = z.looseObject({
  image: z.string(),
  cropSizeName: CropSizeName,
});
export type DetectionImage = z.infer<typeof DetectionImage>;

export const PersonInfo = z.looseObject({
  faceId: z.string(),
  firstName: z.string().nullish(),
  lastName: z.string().nullish(),
  middleName: z.string().nullish(),
  tags: z.array(Tag).nullish(),
  fields: z.array(TypedField).nullish(),
  notes: z.array(Note).nullish(),
});
export type PersonInfo = z.infer<typeof PersonInfo>;

export const FaceDetectionInfo = z.looseObject({
  dateTimeUtc: IsoDateTime,
  timeZone: z.string().nullish(),
  /** A fraction from 0 to 1, not a percentage. */
  confidence: z.number().min(0).max(1),
  detectId: z.string(),
  detectorName: z.string(),
});
export type FaceDetectionInfo = z.infer<typeof FaceDetectionInfo>;

export const FaceDetectionHistory = z.looseObject({
  visitHistory: z.array(Visit).nullish(),
  printHistory: z.array(Print).nullish(),
});

export const FacePayload = z.looseObject({
  personInfo: PersonInfo,
  detectionInfo: FaceDetectionInfo,
  /** The live capture. */
  detectionImage: ImageHolder.nullish(),
  /** The enrolled reference photograph. */
  defaultPhoto: ImageHolder.nullish(),
  detectionHistory: FaceDetectionHistory.nullish(),
  resentEvent: z.boolean(),
  messageId: z.string().nullish(),
});
export type FacePayload = z.infer<typeof FacePayload>;

export const LprPlateInfo = z.looseObject({
  plate: z.string(),
  similar1Plate: z.string().nullish(),
  vehicleMake: z.string().nullish(),
  vehicleModel: z.string().nullish(),
  vehicleColor: z.string().nullish(),
  vehicleState: z.string().nullish(),
  tags: z.array(Tag).nullish(),
  fields: z.array(TypedField).nullish(),
});
export type LprPlateInfo = z.infer<typeof LprPlateInfo>;

/** An LPR detection has no confidence field. */
export const LprDetectionInfo = z.looseObject({
  dateTimeUtc: IsoDateTime,
  timeZone: z.string().nullish(),
  detectorName: z.string(),
});

export const LprDetectionHistory = z.looseObject({
  visitHistory: z.array(Visit).nullish(),
});

export const LprPayload = z.looseObject({
  lprPlateInfo: LprPlateInfo,
  detectionInfo: LprDetectionInfo,
  detectionImages: z.array(DetectionImage).nullish(),
  detectionHistory: LprDetectionHistory.nullish(),
  resentEvent: z.boolean(),
  messageId: z.string().nullish(),
});
export type LprPayload = z.infer<typeof LprPayload>;

const envelope = {
  sourceName: z.string(),
  /** Null when the person or plate was not enrolled by this integrator. */
  externalId: z.string().nullish(),
  fields: z.array(TopLevelField).nullish(),
  /** Administrator-configured context of the originating server. */
  serverContext: z.record(z.string(), z.string()).nullish(),
};

export const WebHookFaceRecPayload = z.looseObject({
  publishType: z.literal(PUBLISH_TYPE_FACE),
  ...envelope,
  payload: FacePayload,
});
export type WebHookFaceRecPayload = z.infer<typeof WebHookFaceRecPayload>;

export const WebHookLprPayload = z.looseObject({
  publishType: z.literal(PUBLISH_TYPE_LPR),
  ...envelope,
  payload: LprPayload,
});
export type WebHookLprPayload = z.infer<typeof WebHookLprPayload>;

/** Either event kind, told apart by `publishType`. */
export const DetectionEvent = z.discriminatedUnion('publishType', [WebHookFaceRecPayload, WebHookLprPayload]);
export type DetectionEvent = z.infer<typeof DetectionEvent>;

export function kindOf(event: Pick<DetectionEvent, 'publishType'>): EventKind {
  return kindOfPublishType(event.publishType) ?? 'lpr';
}

export type EventCheck = { ok: true; event: DetectionEvent } | { ok: false; errors: SchemaError[] };

/** Validates a parsed body and returns every failing path, not only the first.
 *  On success the event is the value passed in, not zod's copy: the caller
 *  keeps the body exactly as parsed and no second object tree is built. */
export function checkEvent(value: unknown): EventCheck {
  const result = DetectionEvent.safeParse(value);
  if (result.success) return { ok: true, event: value as DetectionEvent };
  return {
    ok: false,
    errors: result.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message })),
  };
}
