/**
 * The values of a template's fields, from the flat view of the event
 * (lib/events' detection view) and what the flow knows of it. No English
 * here: the kind's name comes translated from the node.
 */
import { withoutTagPrefix, type DetectionView } from '../events';
import type { AlertValues } from './template';

export interface FieldContext {
  /** The account's tag prefix ('' for none), taken off the tags shown. */
  tagPrefix: string;
  /** Why the event passed (msg.match.text), already in the runtime's language. */
  why?: unknown;
  /** The kind's name in the runtime's language (plate, face). */
  kindName: string;
}

/** The event's valid tags as a person reads them: without the account's prefix. */
export function alertTags(view: DetectionView, tagPrefix: string): string[] {
  return view.tags.map((tag) => withoutTagPrefix(tag, tagPrefix)).filter((tag) => tag !== '');
}

/** Each field of `view` as text, '' where the event does not say. */
export function alertValues(view: DetectionView, context: FieldContext): AlertValues {
  const plate = view.kind === 'lpr' ? view : undefined;
  const face = view.kind === 'face' ? view : undefined;
  const tags = alertTags(view, context.tagPrefix);
  return {
    plate: plate?.plate ?? '',
    person: face?.fullName ?? '',
    camera: view.camera ?? '',
    site: view.site ?? '',
    time: view.localTime ? `${view.localTime} ${view.timeZone}` : '',
    tags: tags.join(', '),
    why: typeof context.why === 'string' ? context.why.trim() : '',
    confidence: view.confidence === null ? '' : `${Math.round(view.confidence * 100)}%`,
    vehicle: plate ? [plate.vehicleMake, plate.vehicleModel, plate.vehicleColor].filter((part) => part !== null).join(' ') : '',
    kind: context.kindName,
    externalId: view.externalId ?? '',
    messageId: view.messageId ?? '',
  };
}

/** `msg.priority` `urgent` or `high`, in any case, marks an urgent alert. */
export function isUrgent(priority: unknown): boolean {
  if (typeof priority !== 'string') return false;
  const value = priority.trim().toLowerCase();
  return value === 'urgent' || value === 'high';
}
