/**
 * The dedupe node's keys a person picks by name instead of writing an
 * expression: read from the event itself (the envelope detection-in emits as
 * msg.payload), without JSONata, so a check costs a few property reads.
 */
import { DEFAULT_LOOKALIKES, normalisePlate } from '../plates';

/** The keys offered by name, in the order the dialog lists them. */
export const KEY_CHOICES = ['plateAtCamera', 'plate', 'plateLookalikeAtCamera', 'plateLookalike', 'person', 'camera', 'messageId'] as const;
export type KeyChoice = (typeof KEY_CHOICES)[number];

/** The TypedInput type (`keyType`) of a key picked by name. */
export const KEY_CHOICE_TYPE = 'event';

export function isKeyChoice(value: unknown): value is KeyChoice {
  return typeof value === 'string' && (KEY_CHOICES as readonly string[]).includes(value);
}

function objectAt(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A text field as a key part: a non-empty string (numbers too, as text), else undefined. */
function part(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * The key `choice` makes for `event`, or undefined when the event lacks what it
 * needs (the node's "No key" setting then applies):
 * - plateAtCamera: `<plate> @ <camera>`; for a face, `<faceId> @ <camera>` (the key
 *   the old default expression made, so windows saved with it keep matching);
 * - plate: the plate (plate events only); person: the face's identity, `faceId`
 *   (face events only; names are not unique); camera: the detector's name;
 * - plateLookalike, plateLookalikeAtCamera: as plate and plateAtCamera, with the
 *   plate normalised and its look-alike characters folded (lib/plates, the
 *   default classes 0ODQ 1I 2Z 5S 8B 6G), so `8OB123` misread as `80B123` or
 *   `BOB123` is one key (`808123`) and a misread repeat does not pass again;
 * - messageId: the bridge's id of the delivery.
 */
export function choiceKey(choice: KeyChoice, event: unknown): string | undefined {
  const inner = objectAt(objectAt(event).payload);
  const plate = part(objectAt(inner.lprPlateInfo).plate);
  const person = part(objectAt(inner.personInfo).faceId);
  switch (choice) {
    case 'plateAtCamera': {
      const who = plate ?? person;
      const camera = part(objectAt(inner.detectionInfo).detectorName);
      return who === undefined || camera === undefined ? undefined : `${who} @ ${camera}`;
    }
    case 'plate':
      return plate;
    case 'plateLookalikeAtCamera': {
      const who = plate === undefined ? person : lookalikeKey(plate);
      const camera = part(objectAt(inner.detectionInfo).detectorName);
      return who === undefined || camera === undefined ? undefined : `${who} @ ${camera}`;
    }
    case 'plateLookalike':
      return plate === undefined ? undefined : lookalikeKey(plate);
    case 'person':
      return person;
    case 'camera':
      return part(objectAt(inner.detectionInfo).detectorName);
    case 'messageId':
      return part(inner.messageId);
  }
}

/** A plate with its look-alikes folded; a plate of spaces and dashes only is no key. */
function lookalikeKey(plate: string): string | undefined {
  const folded = DEFAULT_LOOKALIKES.fold(normalisePlate(plate));
  return folded === '' ? undefined : folded;
}

/** The keys that fold look-alikes: a repeat under them may be another reading of the plate that passed. */
export function foldsLookalikes(choice: KeyChoice): boolean {
  return choice === 'plateLookalike' || choice === 'plateLookalikeAtCamera';
}

/**
 * The plate as read, kept with a key that folds look-alikes (the window
 * remembers it for the key that passed); undefined for other keys and for
 * events without a plate (a face keyed at its camera).
 */
export function plateRead(choice: KeyChoice, event: unknown): string | undefined {
  if (!foldsLookalikes(choice)) return undefined;
  return part(objectAt(objectAt(objectAt(event).payload).lprPlateInfo).plate);
}

/**
 * Whether a repeat's plate is another reading of the plate that let its key
 * through (`A8C123` after `ABC123`): they differ once normalised, so spaces,
 * dashes and case alone do not count.
 */
export function isLookalikeRead(passed: string, read: string): boolean {
  return normalisePlate(passed) !== normalisePlate(read);
}
