/**
 * One found image as the node sends it: a Buffer (decoded), or the base64
 * text or a data URL (not decoded: only the first bytes are, to sniff the
 * type). A bad image field is an ImageError whose text is in the catalog.
 */
import { MessageError } from '../core/messages';
import { checkBase64, type Base64Reason } from '../core/base64';
import type { FoundImage } from './pick';

export const IMAGE_FORMATS = ['buffer', 'base64', 'dataurl'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

export const OCTET_STREAM = 'application/octet-stream';

/** Whether `b` holds `bytes` at `offset`. */
function bytesAt(b: Uint8Array, offset: number, bytes: readonly number[]): boolean {
  return b.length >= offset + bytes.length && bytes.every((byte, i) => b[offset + i] === byte);
}

/** The content type from the first bytes (JPEG, PNG, GIF, WebP), else application/octet-stream. */
export function sniffContentType(b: Uint8Array): string {
  if (bytesAt(b, 0, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (bytesAt(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (bytesAt(b, 0, [0x47, 0x49, 0x46, 0x38]) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61) return 'image/gif'; // GIF87a, GIF89a
  if (bytesAt(b, 0, [0x52, 0x49, 0x46, 0x46]) && bytesAt(b, 8, [0x57, 0x45, 0x42, 0x50])) return 'image/webp'; // RIFF....WEBP
  return OCTET_STREAM;
}

export interface ImageInfo {
  /** The `cropSizeName`, or `detection` / `photo` for faces. */
  source: string;
  contentType: string;
  /** Decoded length in bytes. */
  bytes: number;
}

export interface DecodedImage {
  value: Buffer | string;
  info: ImageInfo;
}

/** A bad image field; `path` says which (`payload.detectionImages[2].image`). */
export class ImageError extends MessageError {
  readonly code = 'INVALID_BASE64';
  constructor(
    readonly path: string,
    readonly reason: Base64Reason,
    readonly position: number,
    readonly char?: string,
  ) {
    super(`image.${reason}`, { path, position, char: char ?? '' });
    this.name = 'ImageError';
  }
}

/**
 * Checks and converts one found image. `buffer` decodes it; `base64` and
 * `dataurl` only decode the first bytes to sniff the type (the base64 text is
 * passed on, a substring when a data-URL prefix is dropped). Throws ImageError.
 */
export function decodeImage(found: FoundImage, format: ImageFormat): DecodedImage {
  const check = checkBase64(found.text);
  if (!check.ok) throw new ImageError(found.path, check.reason, check.position, check.char);
  const text = found.text as string;
  const data = check.start === 0 ? text : text.slice(check.start);
  if (format === 'buffer') {
    const value = Buffer.from(data, 'base64');
    return { value, info: { source: found.source, contentType: sniffContentType(value), bytes: value.length } };
  }
  const contentType = sniffContentType(Buffer.from(data.slice(0, 16), 'base64'));
  const value = format === 'dataurl' ? `data:${contentType};base64,${data}` : data;
  return { value, info: { source: found.source, contentType, bytes: check.bytes } };
}

/**
 * A copy of `obj` with `value` at `path` (as returned by Node-RED's
 * normalisePropertyExpression): every object along the path is copied
 * shallowly, everything else stays shared. Used for the messages of `all`
 * mode, which share the event but each carry their own image.
 */
export function withProperty<T extends object>(obj: T, path: ReadonlyArray<string | number>, value: unknown): T {
  const root = { ...obj } as Record<string | number, unknown>;
  let cur = root;
  for (let i = 0; i < path.length - 1; i++) {
    const next = cur[path[i]];
    const copy: Record<string | number, unknown> = Array.isArray(next)
      ? (next.slice() as unknown as Record<number, unknown>)
      : next !== null && typeof next === 'object' && !Buffer.isBuffer(next)
        ? { ...next }
        : typeof path[i + 1] === 'number'
          ? ([] as unknown as Record<number, unknown>)
          : {};
    cur[path[i]] = copy;
    cur = copy;
  }
  cur[path[path.length - 1]] = value;
  return root as T;
}
