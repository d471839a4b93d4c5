/**
 * Time windows: weekdays and from–to local times ("Mon-Fri 22:00-06:00;
 * Sat,Sun"), and whether an instant falls inside them in an IANA time zone.
 *
 * The local time of an instant comes from the IANA database through Intl
 * (lib/core/time-zone.ts, shared with the detection view's local time), never
 * from an offset written here, so it is right across daylight-saving changes: windows compare local wall-clock
 * times; a time skipped when the clocks go forward never occurs, and the hour
 * repeated when they go back is inside a window that covers it, both times.
 *
 * A window whose `to` is not after its `from` runs across midnight: it starts
 * on each of its days at `from` and ends the next day at `to`, so
 * "Mon 22:00-06:00" covers Monday 22:00 to Tuesday 06:00. The days name the
 * day a window starts on.
 *
 * nodes/shared/editor-script.ts serves this file's compiled text to the
 * editor (the dialog's structured editor and validators read windows with it):
 * it imports only lib/core/time-zone.ts at run time (served before it) and
 * uses nothing a browser lacks. Problems
 * are Messages, keys under `time.` in locales/<lang>/shared.json.
 */
import type { Message, MessageParams } from '../core/messages';
import { knownTimeZone, systemTimeZone, wallClock } from '../core/time-zone';

/** The weekdays in the order windows number them: 0 is Monday. */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
const DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const SHORT_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
/** Every day: the mask of a window that names no days. */
export const EVERY_DAY = 0b1111111;
/** Minutes in a day: `to` of a window that ends at midnight (24:00). */
export const DAY_MINUTES = 1440;

/** One window: `days` a mask (bit 0 Monday … bit 6 Sunday), `from` and `to` minutes of the day. */
export interface TimeWindow {
  readonly days: number;
  /** 0 (00:00) to 1439 (23:59). */
  readonly from: number;
  /** 1 to 1440 (24:00, the end of the day). Not after `from`: the window ends the next day. */
  readonly to: number;
}

export type WindowsResult = { ok: true; windows: TimeWindow[] } | { ok: false; problem: Message };

const problemOf = (key: string, params?: MessageParams): Message => (params === undefined ? { key: `time.${key}` } : { key: `time.${key}`, params });
const fail = (key: string, params?: MessageParams): { ok: false; problem: Message } => ({ ok: false, problem: problemOf(key, params) });

/** A value as a problem names it: text quoted and cut short, other values by kind. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value !== null && typeof value === 'object') return 'an object';
  return String(value);
}

/** A weekday by its English name or its first two or more letters (`Mo`, `Tue`, `thurs`), any case; -1 when none. */
export function weekdayOf(text: string): number {
  const name = text.trim().toLowerCase();
  if (name.length < 2) return -1;
  return DAY_NAMES.findIndex((full) => full.startsWith(name));
}

/** `HH:MM` (or `H:MM`), 00:00 to 24:00, as minutes; undefined when it is not a time. */
export function minutesOf(text: string): number | undefined {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const hours = Number(m[1]);
  const minutes = Number(m[2]);
  if (minutes > 59 || hours > 24 || (hours === 24 && minutes !== 0)) return undefined;
  return hours * 60 + minutes;
}

/** Minutes of the day as `HH:MM` (1440 as 24:00). */
export function clockText(minutes: number): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** The dashes people type between days or times: -, the en dash, the em dash. */
const DASHES = /\s*[-\u2010-\u2015]\s*/g;

/** The days of a window as a mask: `Mon-Fri`, `Sat,Sun`, `Fri-Mon` (a range may wrap past Sunday), `Mon Wed Fri`. */
function parseDays(text: string): { ok: true; days: number } | { ok: false; problem: Message } {
  const items = text
    .replace(DASHES, '-')
    .split(/[\s,]+/)
    .filter((item) => item !== '');
  let days = 0;
  for (const item of items) {
    const ends = item.split('-');
    if (ends.length > 2) return fail('day', { text: item });
    const first = weekdayOf(ends[0]);
    if (first < 0) return fail('day', { text: ends[0] === '' ? item : ends[0] });
    const last = ends.length === 2 ? weekdayOf(ends[1]) : first;
    if (last < 0) return fail('day', { text: ends[1] === '' ? item : ends[1] });
    for (let day = first; ; day = (day + 1) % 7) {
      days |= 1 << day;
      if (day === last) break;
    }
  }
  return { ok: true, days: items.length === 0 ? EVERY_DAY : days };
}

/** A window from its days' mask and its from and to texts (both missing: the whole day). */
function makeWindow(
  days: number,
  fromText: string | undefined,
  toText: string | undefined,
): { ok: true; window: TimeWindow } | { ok: false; problem: Message } {
  if (fromText === undefined && toText === undefined) return { ok: true, window: { days, from: 0, to: DAY_MINUTES } };
  if (fromText === undefined || toText === undefined) return fail('from-to');
  const from = minutesOf(fromText);
  if (from === undefined) return fail('time', { text: fromText.trim() });
  const end = minutesOf(toText);
  if (end === undefined) return fail('time', { text: toText.trim() });
  if (from === DAY_MINUTES) return fail('from-24');
  // 00:00 as an end is the midnight that ends the day: 22:00-00:00 is 22:00-24:00, 00:00-00:00 the whole day
  const to = end === 0 ? DAY_MINUTES : end;
  if (to === from) return fail('same', { time: clockText(from) });
  return { ok: true, window: { days, from, to } };
}

/** A window's text: `Mon-Fri 22:00-06:00`, `Sat,Sun` (the whole day), `22:00-06:00` (every day). */
function parseWindowText(text: string): { ok: true; window: TimeWindow } | { ok: false; problem: Message } {
  const normal = text.replace(DASHES, '-').trim();
  // the times come last: two items that start with a digit, joined by a dash
  const times = /^(.*?)\s*(\d[^\s,-]*)-(\d[^\s,-]*)$/.exec(normal);
  if (!times) {
    const digit = /\d\S*/.exec(normal);
    if (digit) return fail('range', { text: digit[0] });
    const days = parseDays(normal);
    return days.ok ? makeWindow(days.days, undefined, undefined) : days;
  }
  const days = parseDays(times[1]);
  return days.ok ? makeWindow(days.days, times[2], times[3]) : days;
}

/** A window as an object `{days, from, to}`: days a list of names or text such as `mon-fri` (missing: every day). */
function parseWindowObject(value: Record<string, unknown>): { ok: true; window: TimeWindow } | { ok: false; problem: Message } {
  let days = EVERY_DAY;
  if (value.days !== undefined && value.days !== null) {
    const list = typeof value.days === 'string' ? [value.days] : Array.isArray(value.days) ? value.days : undefined;
    if (!list || !list.every((d) => typeof d === 'string')) return fail('days', { got: shown(value.days) });
    const parsed = parseDays((list as string[]).join(','));
    if (!parsed.ok) return parsed;
    days = parsed.days;
  }
  const time = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : typeof v === 'string' ? v : String(v));
  return makeWindow(days, time(value.from), time(value.to));
}

/**
 * Time windows from what a person types or a flow sets: text with windows
 * separated by `;` or new lines (`Mon-Fri 22:00-06:00; Sat,Sun 00:00-24:00`),
 * a list of such texts, or a list of objects `{days: ['mon', 'tue'] | 'mon-fri', from: '22:00', to: '06:00'}`
 * (one object alone is one window). Days: English names or their first two
 * or more letters, any case; no days is every day. No times is the whole
 * day; `24:00` (or `00:00` as `to`) is the end of the day.
 */
export function parseWindows(value: unknown): WindowsResult {
  let pieces: unknown[];
  if (typeof value === 'string') pieces = value.split(/[;\r\n]+/).filter((piece) => piece.trim() !== '');
  else if (Array.isArray(value)) pieces = value;
  else if (value !== null && typeof value === 'object') pieces = [value];
  else return fail('not-windows', { got: shown(value) });
  if (pieces.length === 0) return fail('empty');
  const windows: TimeWindow[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    let result: { ok: true; window: TimeWindow } | { ok: false; problem: Message };
    if (typeof piece === 'string') result = parseWindowText(piece);
    else if (piece !== null && typeof piece === 'object' && !Array.isArray(piece)) result = parseWindowObject(piece as Record<string, unknown>);
    else result = fail('not-window', { got: shown(piece) });
    if (!result.ok) {
      if (pieces.length === 1) return result;
      const params: MessageParams =
        typeof piece === 'string' ? { index: i + 1, text: piece.trim(), problem: result.problem } : { index: i + 1, problem: result.problem };
      return fail(typeof piece === 'string' ? 'window' : 'window-at', params);
    }
    windows.push(result.window);
  }
  return { ok: true, windows };
}

/** A days mask as text: `Mon-Fri`, `Sat,Sun`, `Mon,Wed-Fri`; '' for every day. Runs of three or more days are ranges. */
export function daysText(days: number, dash = '-'): string {
  if ((days & EVERY_DAY) === EVERY_DAY) return '';
  const parts: string[] = [];
  for (let day = 0; day < 7; day++) {
    if (!(days & (1 << day))) continue;
    let last = day;
    while (last + 1 < 7 && days & (1 << (last + 1))) last++;
    if (last - day >= 2) parts.push(`${SHORT_NAMES[day]}${dash}${SHORT_NAMES[last]}`);
    else for (let d = day; d <= last; d++) parts.push(SHORT_NAMES[d]);
    day = last;
  }
  return parts.join(',');
}

/**
 * Windows as the text parseWindows reads back: `Mon-Fri 22:00-06:00; Sat,Sun 00:00-24:00`.
 * `dash`: what goes between the ends of a range (`–` for a label).
 */
export function formatWindows(windows: readonly TimeWindow[], dash = '-'): string {
  return windows
    .map((w) => {
      const days = daysText(w.days, dash);
      const times = `${clockText(w.from)}${dash}${clockText(w.to)}`;
      return days === '' ? times : `${days} ${times}`;
    })
    .join('; ');
}

/** The zone's name as Intl writes it, or undefined (lib/core/time-zone.ts); Node-RED's own zone. */
export { knownTimeZone, systemTimeZone };

/** Zones whose last part is `name` (`Berlin` → Europe/Berlin, `new york` → America/New_York). */
function zonesNamed(name: string): string[] {
  const supported = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf;
  if (typeof supported !== 'function') return [];
  const wanted = name.trim().toLowerCase().replace(/\s+/g, '_');
  if (wanted === '') return [];
  return supported('timeZone').filter((zone) => zone.toLowerCase().split('/').pop() === wanted);
}

/** What is wrong with a zone typed in (empty is fine: Node-RED's own), or undefined. */
export function timeZoneProblem(zone: unknown): Message | undefined {
  if (zone === undefined || zone === null || (typeof zone === 'string' && zone.trim() === '')) return undefined;
  if (typeof zone !== 'string') return problemOf('zone', { zone: shown(zone) });
  if (knownTimeZone(zone)) return undefined;
  const like = zonesNamed(zone);
  if (like.length > 0) return problemOf('zone-like', { zone: zone.trim(), suggestion: like.slice(0, 3).join(' or ') });
  return problemOf('zone', { zone: zone.trim() });
}

/** The local weekday (0 Monday) and minute of the day of an instant in `zone`; null when the zone is unknown. */
export function localClock(millis: number, zone: string): { weekday: number; minute: number } | null {
  const wall = wallClock(millis, zone);
  if (wall === null) return null;
  return { weekday: (wall.getUTCDay() + 6) % 7, minute: wall.getUTCHours() * 60 + wall.getUTCMinutes() };
}

/** Whether the local clock (weekday, minute) is inside one of the windows. */
export function clockInside(windows: readonly TimeWindow[], weekday: number, minute: number): boolean {
  const today = 1 << weekday;
  const yesterday = 1 << ((weekday + 6) % 7);
  for (const w of windows) {
    if (w.from < w.to) {
      if (w.days & today && minute >= w.from && minute < w.to) return true;
    } else {
      // across midnight: the start day's evening, or the morning after a start day
      if (w.days & today && minute >= w.from) return true;
      if (w.days & yesterday && minute < w.to) return true;
    }
  }
  return false;
}

/** Whether the instant `millis` is inside one of the windows, on the clocks of `zone`; false when the zone is unknown. */
export function isInside(windows: readonly TimeWindow[], millis: number, zone: string): boolean {
  const clock = localClock(millis, zone);
  return clock !== null && clockInside(windows, clock.weekday, clock.minute);
}

/**
 * parseWindows with a memory of the last value: the same text, or a list or
 * object with the same content, is not parsed again. A value read from
 * context for each message is so parsed once per change, not per message.
 */
export function windowsReader(): (value: unknown) => WindowsResult {
  let lastKey: string | undefined;
  let last: WindowsResult = fail('empty');
  return (value) => {
    // a list changed in place (flow.get(...).push) has new content, and a new key
    let key: string | undefined;
    if (typeof value === 'string') key = `s${value}`;
    else if (value !== null && typeof value === 'object') {
      try {
        key = `j${JSON.stringify(value)}`;
      } catch {
        key = undefined; // a cycle: parsed every time, and refused
      }
    }
    if (key !== undefined && key === lastKey) return last;
    lastKey = key;
    last = parseWindows(value);
    return last;
  };
}
