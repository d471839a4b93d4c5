/**
 * msg.detection: a small flat view of a detection event, so a core switch,
 * template or dashboard widget reads `msg.detection.camera` instead of
 * `payload.payload.detectionInfo.detectorName`. Built from the event as
 * parsed, never from a copy; no images, no history.
 *
 * The event may be one a lenient receiver let through with deviations (a tag
 * list that is not a list, a name that is a number): every field is read
 * defensively and building a view never throws.
 */
import { parseIsoDate } from '../core/iso-date';
import { isTimeZone, wallClock } from '../core/time-zone';
import { PUBLISH_TYPE_FACE, PUBLISH_TYPE_LPR, type EventKind } from '../core/event-kinds';

/** The fields every view has; `null` where the event does not say. */
interface CommonView {
  kind: EventKind;
  /** `sourceName`: the site location. */
  site: string | null;
  /** `payload.detectionInfo.detectorName`. */
  camera: string | null;
  /** `payload.detectionInfo.dateTimeUtc` as an ISO 8601 UTC time (`…Z`, milliseconds). */
  time: string | null;
  /** The detection time on the site's clock, `YYYY-MM-DD HH:mm:ss`, in `timeZone`. */
  localTime: string | null;
  /** The zone `localTime` is in: the event's `timeZone`, or `UTC` when it gives none (or one not known here). */
  timeZone: string;
  /** `externalId`: set when this integrator enrolled the person or plate. */
  externalId: string | null;
  enrolled: boolean;
  /** `serverContext`: the administrators' key/value context of the originating server (the event's own object, not a copy); null when none is configured. */
  serverContext: Record<string, unknown> | null;
  /**
   * Names of the tags still valid at the detection time (a tag past its
   * `expires` does not count), exactly as the event spells them: a tag the
   * integrator created keeps the account's prefix (`partner-Banned`). The
   * receiver does not know the prefix, so the view never changes a name;
   * detection-filter's tag rules take the prefix off when comparing
   * (./tag-prefix.ts), so `Banned` matches either form.
   */
  tags: string[];
  /** Face confidence, a fraction from 0 to 1; null for plates (an LPR event has none). */
  confidence: number | null;
  messageId: string | null;
  resent: boolean;
}

export interface FaceView extends CommonView {
  kind: 'face';
  faceId: string | null;
  firstName: string | null;
  lastName: string | null;
  /** First, middle and last name joined by spaces. */
  fullName: string | null;
}

export interface PlateView extends CommonView {
  kind: 'lpr';
  plate: string | null;
  similar1Plate: string | null;
  vehicleMake: string | null;
  vehicleModel: string | null;
  vehicleColor: string | null;
  vehicleState: string | null;
}

export type DetectionView = FaceView | PlateView;

type Loose = Record<string, unknown>;

function objectAt(value: unknown): Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : {};
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A confidence as a fraction: one sent in percent (93, a deviation lenient
 *  mode lets through with a warning) reads as 0.93, so "at least 0.8" holds. */
function fraction(value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null;
  return value > 1 && value <= 100 ? value / 100 : value <= 1 ? value : null;
}

/** `YYYY-MM-DD HH:mm:ss` of `millis` in `zone`; null when the zone is unknown. */
export function localTimeIn(millis: number, zone: string): string | null {
  const wall = wallClock(millis, zone);
  return wall === null ? null : wall.toISOString().slice(0, 19).replace('T', ' ');
}

/** Names of the tags valid at `at` (ms): no `expires`, or one not yet past. An
 *  unreadable `expires` counts as valid: a tag is not dropped on a typo. */
export function validTagNames(tags: unknown, at: number): string[] {
  const names: string[] = [];
  if (!Array.isArray(tags)) return names;
  for (const tag of tags) {
    const { tagName, expires } = objectAt(tag);
    if (typeof tagName !== 'string' || tagName === '') continue;
    if (typeof expires === 'string' && parseIsoDate(expires) < at) continue;
    names.push(tagName);
  }
  return names;
}

/**
 * The view of `event` (of kind `kind`). `fallbackTime` (ms) is the time
 * tags are checked against when the event's own time cannot be read.
 */
export function detectionView(event: unknown, kind: EventKind, fallbackTime = Date.now()): DetectionView {
  const envelope = objectAt(event);
  const inner = objectAt(envelope.payload);
  const info = objectAt(inner.detectionInfo);
  const sent = typeof info.dateTimeUtc === 'string' ? parseIsoDate(info.dateTimeUtc) : NaN;
  const known = Number.isFinite(sent);
  const eventZone = text(info.timeZone);
  const timeZone = eventZone && isTimeZone(eventZone) ? eventZone : 'UTC';
  const externalId = text(envelope.externalId);
  const common = {
    site: text(envelope.sourceName),
    camera: text(info.detectorName),
    time: known ? new Date(sent).toISOString() : null,
    localTime: known ? localTimeIn(sent, timeZone) : null,
    timeZone,
    externalId,
    enrolled: externalId !== null,
    serverContext:
      envelope.serverContext !== null && typeof envelope.serverContext === 'object' && !Array.isArray(envelope.serverContext)
        ? (envelope.serverContext as Loose)
        : null,
    messageId: text(inner.messageId),
    resent: inner.resentEvent === true,
  };
  const at = known ? sent : fallbackTime;
  if (kind === 'face') {
    const person = objectAt(inner.personInfo);
    const firstName = text(person.firstName);
    const lastName = text(person.lastName);
    const names = [firstName, text(person.middleName), lastName].filter((name) => name !== null);
    return {
      kind,
      ...common,
      tags: validTagNames(person.tags, at),
      confidence: fraction(info.confidence),
      faceId: text(person.faceId),
      firstName,
      lastName,
      fullName: names.length > 0 ? names.join(' ') : null,
    };
  }
  const plate = objectAt(inner.lprPlateInfo);
  return {
    kind,
    ...common,
    tags: validTagNames(plate.tags, at),
    confidence: null,
    plate: text(plate.plate),
    similar1Plate: text(plate.similar1Plate),
    vehicleMake: text(plate.vehicleMake),
    vehicleModel: text(plate.vehicleModel),
    vehicleColor: text(plate.vehicleColor),
    vehicleState: text(plate.vehicleState),
  };
}

/** The view of an event of either kind, told apart by its `publishType`;
 *  undefined for anything else (a message that is not a detection event). */
export function viewOfEvent(event: unknown, fallbackTime = Date.now()): DetectionView | undefined {
  const publishType = objectAt(event).publishType;
  if (publishType === PUBLISH_TYPE_FACE) return detectionView(event, 'face', fallbackTime);
  if (publishType === PUBLISH_TYPE_LPR) return detectionView(event, 'lpr', fallbackTime);
  return undefined;
}
