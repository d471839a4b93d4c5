/**
 * Sample detection events, built locally the way the events bridge's sample
 * endpoints build theirs (spec, "Events bridge sample endpoints"):
 *
 * 1. static content, identical on every call except `messageId` and the timestamps;
 * 2. `serverContext` is null;
 * 3. every `image` is a two-byte filler in base64, not a photograph (the
 *    default, `images: 'fillers'`); with `images: 'pictures'` they are small
 *    real JPEGs instead (lib/bridge/sample-images.ts), for flows that use the
 *    image, and the rest of the event is the same;
 * 4. `dateTimeUtc` is the current time and history entries are one hour apart
 *    (now − 1 h, now − 2 h, …, counted separately in each history list);
 * 5. a top-level `fields` entry, tags, and every nested object populated;
 * 6. no failure path: building a sample never throws.
 *
 * Node-RED-free: the detection-sample node (pictures unless asked for
 * fillers) and the bridge simulator (GET /api/v1/webhook-models/{face,lpr},
 * fillers as the bridge sends them) both use it.
 */
import { randomUUID } from 'node:crypto';
import {
  CROP_SIZE_NAMES,
  PUBLISH_TYPE_FACE,
  PUBLISH_TYPE_LPR,
  type DetectionEvent,
  type EventKind,
  type WebHookFaceRecPayload,
  type WebHookLprPayload,
} from '../events';
import { SAMPLE_FACE_PICTURES, SAMPLE_PLATE_PICTURES } from './sample-images';

/** The two event kinds, in the order the bridge documents them. */
export const EVENT_KINDS: readonly EventKind[] = ['face', 'lpr'];

export function isEventKind(value: unknown): value is EventKind {
  return value === 'face' || value === 'lpr';
}

/** Path of the bridge's anonymous sample endpoint for a kind, below {base_url}. */
export function sampleModelPath(kind: EventKind): string {
  return `/api/v1/webhook-models/${kind}`;
}

/** The filler every sample image carries: two bytes (a JPEG start-of-image
 *  marker, FF D8) in base64, `/9g=`. Decodes, but is not a picture. */
export const SAMPLE_IMAGE = Buffer.from([0xff, 0xd8]).toString('base64');

/** What the sample's `image` fields hold: `fillers`, the two-byte filler
 *  exactly as the bridge's sample endpoints send it; `pictures`, small real
 *  JPEGs (a face, an enrolled photo, one plate image per `cropSizeName`). */
export const SAMPLE_IMAGE_MODES = ['fillers', 'pictures'] as const;
export type SampleImageMode = (typeof SAMPLE_IMAGE_MODES)[number];

export interface SampleOptions {
  /** The time the sample is made at: `dateTimeUtc`, and the base of the history. Default: now. */
  now?: Date;
  /** Default: a fresh UUID (crypto.randomUUID). */
  messageId?: string;
  /** Default: `fillers`, as the bridge's sample endpoints (and the simulator's) send them. */
  images?: SampleImageMode;
}

const HOUR_MS = 60 * 60 * 1000;

/** ISO 8601 UTC time `hours` hours before `now`. */
function hoursBefore(now: Date, hours: number): string {
  return new Date(now.getTime() - hours * HOUR_MS).toISOString();
}

/** A valid time: an invalid `now` (new Date(NaN)) falls back to the clock, so
 *  building a sample has no failure path. */
function timeOf(options: SampleOptions): Date {
  const now = options.now;
  return now instanceof Date && Number.isFinite(now.getTime()) ? now : new Date();
}

/** Pictures only when asked for by name: anything else keeps the bridge's fillers. */
const withPictures = (options: SampleOptions): boolean => options.images === 'pictures';

/** A face sample (`WebHookFaceRecPayload`) with every field populated. */
export function buildFaceSample(options: SampleOptions = {}): WebHookFaceRecPayload {
  const now = timeOf(options);
  const pictures = withPictures(options);
  return {
    publishType: PUBLISH_TYPE_FACE,
    sourceName: 'eConnect Site 1 FR',
    externalId: '12345',
    fields: [{ fieldName: 'TenantID', fieldValue: 'XYZ987' }],
    serverContext: null,
    payload: {
      personInfo: {
        faceId: 'abc12345',
        firstName: 'John',
        middleName: 'Michael',
        lastName: 'Doe',
        tags: [
          { tagName: 'VIP', expires: '2030-12-31T23:59:59Z' },
          { tagName: 'Advantage Player', expires: null },
        ],
        fields: [
          { fieldName: 'MemberLevel', stringValue: 'Gold', dateValue: null, numberValue: null, boolValue: null },
          { fieldName: 'MemberSince', stringValue: null, dateValue: '2019-05-01T00:00:00Z', numberValue: null, boolValue: null },
          { fieldName: 'Visits', stringValue: null, dateValue: null, numberValue: 42, boolValue: null },
          { fieldName: 'SelfExcluded', stringValue: null, dateValue: null, numberValue: null, boolValue: false },
        ],
        notes: [{ noteTitle: 'Monitor reason', noteBody: 'Sample person: notify the security desk on every detection' }],
      },
      detectionInfo: {
        dateTimeUtc: now.toISOString(),
        timeZone: 'America/Los_Angeles',
        confidence: 0.93,
        detectId: 'det-778899',
        detectorName: 'Entrance Cam 3',
      },
      detectionImage: { image: pictures ? SAMPLE_FACE_PICTURES.detectionImage : SAMPLE_IMAGE },
      defaultPhoto: { image: pictures ? SAMPLE_FACE_PICTURES.defaultPhoto : SAMPLE_IMAGE },
      detectionHistory: {
        visitHistory: [
          { dateTimeUtc: hoursBefore(now, 1), detectorName: 'Entrance Cam 3' },
          { dateTimeUtc: hoursBefore(now, 2), detectorName: 'Cage Cam 1' },
          { dateTimeUtc: hoursBefore(now, 3), detectorName: 'Parking Elevator Cam' },
        ],
        printHistory: [
          { dateTimeUtc: hoursBefore(now, 1), printerName: 'Players Club Printer' },
          { dateTimeUtc: hoursBefore(now, 2), printerName: 'Cage Card Printer' },
        ],
      },
      resentEvent: false,
      messageId: options.messageId ?? randomUUID(),
    },
  };
}

/** A plate sample (`WebHookLprPayload`) with every field populated and one
 *  image per `cropSizeName`. */
export function buildLprSample(options: SampleOptions = {}): WebHookLprPayload {
  const now = timeOf(options);
  const pictures = withPictures(options);
  return {
    publishType: PUBLISH_TYPE_LPR,
    sourceName: 'eConnect Site 1 LPR',
    externalId: '98765',
    fields: [{ fieldName: 'TenantID', fieldValue: 'ABC123' }],
    serverContext: null,
    payload: {
      lprPlateInfo: {
        plate: 'XYZ987',
        similar1Plate: 'XYZ987',
        vehicleMake: 'Toyota',
        vehicleModel: 'Camry',
        vehicleColor: 'Blue',
        vehicleState: 'CA',
        tags: [
          { tagName: 'VIP', expires: '2030-12-31T23:59:59Z' },
          { tagName: 'Staff Parking', expires: null },
        ],
        fields: [
          { fieldName: 'DriverLicenseNumber', stringValue: 'D1234567', dateValue: null, numberValue: null, boolValue: null },
          { fieldName: 'RegistrationExpires', stringValue: null, dateValue: '2027-06-30T00:00:00Z', numberValue: null, boolValue: null },
          { fieldName: 'Axles', stringValue: null, dateValue: null, numberValue: 2, boolValue: null },
          { fieldName: 'Permit', stringValue: null, dateValue: null, numberValue: null, boolValue: true },
        ],
      },
      detectionInfo: {
        dateTimeUtc: now.toISOString(),
        timeZone: 'America/New_York',
        detectorName: 'Gate 2 LPR',
      },
      detectionImages: CROP_SIZE_NAMES.map((cropSizeName) => ({
        image: pictures ? SAMPLE_PLATE_PICTURES[cropSizeName] : SAMPLE_IMAGE,
        cropSizeName,
      })),
      detectionHistory: {
        visitHistory: [
          { dateTimeUtc: hoursBefore(now, 1), detectorName: 'Gate 2 LPR' },
          { dateTimeUtc: hoursBefore(now, 2), detectorName: 'Gate 1 LPR' },
          { dateTimeUtc: hoursBefore(now, 3), detectorName: 'Garage Exit LPR' },
        ],
      },
      resentEvent: false,
      messageId: options.messageId ?? randomUUID(),
    },
  };
}

/** A fresh sample event of the given kind: a new object tree on every call. */
export function buildSampleEvent(kind: 'face', options?: SampleOptions): WebHookFaceRecPayload;
export function buildSampleEvent(kind: 'lpr', options?: SampleOptions): WebHookLprPayload;
export function buildSampleEvent(kind: EventKind, options?: SampleOptions): DetectionEvent;
export function buildSampleEvent(kind: EventKind, options: SampleOptions = {}): DetectionEvent {
  return kind === 'lpr' ? buildLprSample(options) : buildFaceSample(options);
}
