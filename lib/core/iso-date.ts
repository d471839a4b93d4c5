/**
 * ISO 8601 dates as real senders write them. The spec asks for nothing more
 * than "ISO 8601", and the bridge is a .NET service: 7 fractional digits
 * (ticks), an offset with or without a colon, no zone at all
 * (DateTimeKind.Unspecified), or a date without a time (`"expires":
 * "2024-12-31"`). All of these are read; a value that is not a calendar date
 * (month 13, 30 February) is not.
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * Milliseconds since the epoch for an ISO 8601 date or date-time, or NaN when
 * `text` is not one. A value without a zone is read as UTC (the bridge's
 * times are `dateTimeUtc`); digits past milliseconds are dropped.
 */
export function parseIsoDate(text: string): number {
  const m = ISO_DATE.exec(text);
  if (!m) return NaN;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]) return NaN;
  if (month === 2 && day === 29 && !isLeapYear(year)) return NaN;
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  // 24:00 is not taken; 60 seconds is (a leap second), read as the next minute.
  if (hour > 23 || minute > 59 || second > 60) return NaN;
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const offsetHours = Number(m[10]);
    const offsetMins = m[11] === undefined ? 0 : Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return NaN;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, millis);
  return utc.getTime() - offsetMinutes * 60_000;
}

export function isIsoDate(text: string): boolean {
  return !Number.isNaN(parseIsoDate(text));
}
