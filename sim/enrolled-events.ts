/**
 * Events of enrolled plates and faces, as the spec says the bridge sends
 * them: `externalId` is the id given at enrollment (null for a detection
 * this integrator did not enroll), `fields` replays the enrollment's
 * `additionalFields` as `{fieldName, fieldValue}` (null when none were
 * given), a face's `monitorReason` appears in `personInfo.notes`, and the
 * integrator's tags carry the account's field prefix, `<prefix>-<name>`.
 * The detected plate is the enrolled one; a face shows the enrolled photo as
 * `defaultPhoto`. Node-RED-free.
 */
import { createHash } from 'node:crypto';
import type { DetectionEvent, EventKind, WebHookFaceRecPayload, WebHookLprPayload } from '../lib/events';
import type { EnrollmentStore, SimEnrollment } from './enroll-server';

/** The account's field prefix the simulator puts before the integrator's tags. */
export const ENROLLED_TAG_PREFIX = 'partner';

/**
 * Which events are of enrolled items: of the events of one kind, the n-th is
 * drawn from the enrolled ones when floor(n × share) grows (as the plate mix
 * is spread), and then from the next enrolled item in turn.
 */
export class EnrolledDraw {
  private readonly seen: Record<EventKind, number> = { face: 0, lpr: 0 };
  private readonly drawn: Record<EventKind, number> = { face: 0, lpr: 0 };

  constructor(
    private readonly store: EnrollmentStore,
    private readonly share: number,
  ) {}

  /** The enrollment the next event of `kind` shows, or null for one not enrolled. */
  next(kind: EventKind): SimEnrollment | null {
    const n = ++this.seen[kind];
    const count = this.store.count(kind);
    if (count === 0 || Math.floor(n * this.share + 1e-9) === Math.floor((n - 1) * this.share + 1e-9)) return null;
    const list = this.store.list(kind);
    return list[this.drawn[kind]++ % list.length];
  }
}

const tagsOf = (item: SimEnrollment): Array<{ tagName: string; expires: null }> =>
  item.tags.map((name) => ({ tagName: `${ENROLLED_TAG_PREFIX}-${name}`, expires: null }));

/** A plate no enrolled item reads, for an event that is not of an enrolled plate. */
function freePlate(store: EnrollmentStore, plate: string): string {
  if (!store.plateEnrolled(plate)) return plate;
  for (let i = 1; ; i++) {
    const candidate = `SIM${String(i).padStart(4, '0')}`;
    if (!store.plateEnrolled(candidate)) return candidate;
  }
}

/**
 * Makes a simulated event (built from the samples) the event of `item`, or,
 * with null, of a plate or face nobody enrolled: externalId and fields null,
 * and a plate that is not enrolled.
 */
export function applyEnrollment(event: DetectionEvent, item: SimEnrollment | null, store: EnrollmentStore): DetectionEvent {
  event.externalId = item ? item.externalId : null;
  event.fields = item && item.additionalFields.length ? item.additionalFields.map((f) => ({ ...f })) : null;
  if (event.publishType === 'WebHookLprPayload') {
    const info = (event as WebHookLprPayload).payload.lprPlateInfo;
    const plate = item?.plate ?? freePlate(store, info.plate);
    info.plate = plate;
    info.similar1Plate = plate;
    if (item) info.tags = tagsOf(item);
    return event;
  }
  if (!item) return event;
  const face = (event as WebHookFaceRecPayload).payload;
  const person = face.personInfo;
  person.faceId = `enr-${createHash('sha256').update(item.externalId).digest('hex').slice(0, 12)}`;
  person.firstName = item.firstName ?? null;
  person.middleName = item.middleName ?? null;
  person.lastName = item.lastName ?? null;
  person.tags = tagsOf(item);
  person.notes = item.monitorReason ? [{ noteTitle: 'Monitor reason', noteBody: item.monitorReason }] : [];
  if (item.photo) face.defaultPhoto = { image: item.photo };
  return event;
}
