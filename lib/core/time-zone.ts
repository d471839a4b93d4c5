/**
 * Local time in an IANA zone, from the database built into Node.js (Intl),
 * never from an offset written here: the detection view's local time
 * (msg.detection.localTime) and detection filter's time windows read the
 * same offsets. One bounded cache of formatters by zone, one of offsets by
 * zone and quarter hour: every zone's offset is a multiple of 15 minutes and
 * changes at a local whole or half hour, so it is constant within a UTC
 * quarter hour, and events arrive in real time, so one Intl call (~7 µs)
 * serves a zone for 15 minutes.
 *
 * nodes/shared/editor-script.ts serves this file's compiled text to the
 * editor (time-window.ts needs it there): it imports nothing and uses nothing
 * a browser lacks.
 */

/** Zones seen so far → their formatter (null: not a zone this runtime knows). Bounded. */
const formatters = new Map<string, Intl.DateTimeFormat | null>();
const MAX_ZONES = 64;

function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(zone);
  if (formatter !== undefined) return formatter;
  try {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
  } catch {
    formatter = null; // RangeError: a zone Intl does not know
  }
  if (formatters.size >= MAX_ZONES) formatters.delete(formatters.keys().next().value as string);
  formatters.set(zone, formatter);
  return formatter;
}

/** Whether Intl knows `zone` (as it is written). */
export function isTimeZone(zone: string): boolean {
  return formatterFor(zone) !== null;
}

/** The zone's name as Intl writes it (`europe/berlin` → `Europe/Berlin`), or undefined when Intl does not know it. */
export function knownTimeZone(zone: unknown): string | undefined {
  if (typeof zone !== 'string' || zone.trim() === '') return undefined;
  const formatter = formatterFor(zone.trim());
  return formatter ? formatter.resolvedOptions().timeZone : undefined;
}

/** Node-RED's own zone: the process's (its TZ), as Intl reports it. */
export function systemTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** `zone quarter` → ms to add to UTC. Bounded. */
const offsets = new Map<string, number>();
const MAX_OFFSETS = 256;
const QUARTER_HOUR_MS = 15 * 60_000;

/** Milliseconds to add to the instant `millis` for the wall clock of `zone`; null when the zone is unknown. */
export function zoneOffset(millis: number, zone: string): number | null {
  if (!Number.isFinite(millis)) return null;
  const key = `${zone} ${Math.floor(millis / QUARTER_HOUR_MS)}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  const formatter = formatterFor(zone);
  if (!formatter) return null;
  const part: Record<string, number> = {};
  for (const { type, value } of formatter.formatToParts(millis)) part[type] = Number(value);
  const wall = Date.UTC(part.year, part.month - 1, part.day, part.hour % 24, part.minute, part.second);
  const offset = wall - (millis - (((millis % 1000) + 1000) % 1000));
  if (offsets.size >= MAX_OFFSETS) offsets.delete(offsets.keys().next().value as string);
  offsets.set(key, offset);
  return offset;
}

/** The wall clock of `zone` at `millis`, as a Date whose UTC fields are the local ones; null when the zone is unknown. */
export function wallClock(millis: number, zone: string): Date | null {
  const offset = zone === 'UTC' ? 0 : zoneOffset(millis, zone);
  return offset === null || !Number.isFinite(millis) ? null : new Date(millis + offset);
}
