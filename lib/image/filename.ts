/**
 * A suggested file name for an image: kind, plate or face, detector and UTC
 * time of the event, and the image's source, with the extension of its type.
 */
import type { EventKind } from '../core/event-kinds';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp' };

export function extensionFor(contentType: string): string {
  return EXTENSIONS[contentType] ?? 'bin';
}

/** Letters and digits only (accents folded), other runs become one `-`. */
export function safeFilenamePart(value: unknown, max = 48): string {
  if (typeof value !== 'string' && typeof value !== 'number') return '';
  return String(value)
    .slice(0, max * 4)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, max)
    .replace(/-+$/, '');
}

const ISO_PARTS = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;
const pad2 = (n: number): string => String(n).padStart(2, '0');

/**
 * `2026-11-21T18:04:05.1234567Z` → `20261121T180405Z`. A time with an offset
 * is turned into UTC; one without a zone is kept as written, without `Z`.
 * Anything else gives ''.
 */
export function compactTime(value: unknown): string {
  if (typeof value !== 'string') return '';
  const m = ISO_PARTS.exec(value.trim());
  if (!m) return '';
  const [, y, mo, d, h, mi, s = '00', z, sign, oh, om] = m;
  if (!sign) return `${y}${mo}${d}T${h}${mi}${s}${z ? 'Z' : ''}`;
  const offsetMin = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const t = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) - offsetMin * 60000);
  if (Number.isNaN(t.getTime())) return '';
  return `${t.getUTCFullYear()}${pad2(t.getUTCMonth() + 1)}${pad2(t.getUTCDate())}T${pad2(t.getUTCHours())}${pad2(t.getUTCMinutes())}${pad2(t.getUTCSeconds())}Z`;
}

/**
 * The event part of a suggested file name: kind, plate (or faceId), detector
 * and UTC time, e.g. `lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z`. Parts
 * the event lacks are left out.
 */
export function filenameBase(event: unknown, kind: EventKind): string {
  const payload = isObject(event) && isObject(event.payload) ? event.payload : {};
  const info = isObject(payload.detectionInfo) ? payload.detectionInfo : {};
  const who =
    kind === 'lpr'
      ? isObject(payload.lprPlateInfo)
        ? payload.lprPlateInfo.plate
        : undefined
      : isObject(payload.personInfo)
        ? payload.personInfo.faceId
        : undefined;
  return [kind, safeFilenamePart(who, 32), safeFilenamePart(info.detectorName, 48), compactTime(info.dateTimeUtc)].filter(Boolean).join('_');
}

/** `<base>_<source>.<ext>`, e.g. `lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_Close.jpg`. */
export function imageFilename(base: string, source: string, contentType: string): string {
  return `${[base, safeFilenamePart(source, 16)].filter(Boolean).join('_')}.${extensionFor(contentType)}`;
}
