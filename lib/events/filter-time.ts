/**
 * When detection-filter's time rules judge an event, and in which zone: the
 * event's own detection time and zone when it has them (an event resent
 * hours later is judged by when it happened), else the time it is handled
 * and the node's zone. ./filter.ts compiles the rules that use it.
 */
import type { DetectionView } from './detection-view';
import { parseIsoDate } from '../core/iso-date';
import { timeEntry, type RuleEntry } from './filter-explain';
import { isInside, knownTimeZone, type TimeWindow } from './time-window';

/**
 * When an event is judged by time rules, and in which zone: its detection
 * time (`payload.detectionInfo.dateTimeUtc`), so an event resent hours later
 * is judged by when it happened, else the time the message is handled.
 */
export interface DetectionTime {
  /** The instant judged (ms since the epoch). */
  millis: number;
  /** True: the event's detection time; false: it has none that reads as a date, so the time it was handled. */
  fromEvent: boolean;
  /** The event's `detectionInfo.timeZone` as Intl names it; null when it gives none Intl knows. */
  zone: string | null;
}

function objectAt(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** When `event` happened and its own zone (see DetectionTime); `now` (ms) when its `dateTimeUtc` does not read as a date. */
export function detectionTime(event: unknown, now: number): DetectionTime {
  const info = objectAt(objectAt(objectAt(event).payload).detectionInfo);
  const sent = typeof info.dateTimeUtc === 'string' ? parseIsoDate(info.dateTimeUtc) : NaN;
  const zone = knownTimeZone(info.timeZone) ?? null;
  return Number.isFinite(sent) ? { millis: sent, fromEvent: true, zone } : { millis: now, fromEvent: false, zone };
}

/** A DetectionTime from a view alone (for callers of `matches` that give none): its `time`, its zone unless `UTC`. */
function timeOfView(view: DetectionView): DetectionTime {
  const millis = view.time === null ? NaN : Date.parse(view.time);
  const zone = view.timeZone === 'UTC' ? null : view.timeZone;
  return Number.isFinite(millis) ? { millis, fromEvent: true, zone } : { millis: Date.now(), fromEvent: false, zone };
}

/** Whether `when` is inside the windows, in the event's own zone or else `zone`. */
export function inside(windows: readonly TimeWindow[], view: DetectionView, when: DetectionTime | undefined, zone: string): boolean {
  const at = when ?? timeOfView(view);
  return isInside(windows, at.millis, at.zone ?? zone);
}

/** What a time rule held on: the local time judged, in the zone it was judged in, and the windows. */
export function judgedTime(
  position: number,
  view: DetectionView,
  when: DetectionTime | undefined,
  zone: string,
  windows: string,
  holds: boolean,
): RuleEntry {
  const at = when ?? timeOfView(view);
  return timeEntry(position, at.millis, at.zone ?? zone, windows, holds);
}
