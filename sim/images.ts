/**
 * Images of realistic size for the bridge simulator: a real small JPEG (one
 * of the built-in sample pictures, lib/bridge/sample-images.ts) grown to the
 * size asked for with JPEG comment segments (COM, FF FE) of pseudo-random
 * bytes, inserted after its JFIF header. Decoders skip comments, so every
 * image shows as the picture (a dashboard or an e-mail shows it) while the
 * event keeps the size of a real one; random bytes, so compression on the
 * way does not shrink them.
 *
 * Cheap and deterministic: one pool of pseudo-random bytes is made once
 * (xorshift32, fixed seed); each image is built and base64-encoded once per
 * (length, variant, picture) and cached: a run of thousands of events
 * allocates its images once. Node-RED-free.
 */
import { createHash } from 'node:crypto';
import { SAMPLE_PLATE_PICTURES } from '../lib/bridge';
import { BoundedCache } from './bounded-cache';

/** A comment segment: marker FF FE, a two-byte length (counting itself), at most 65,533 bytes of data. */
const COM_MAX_BYTES = 4 + 65_533;

/** Raw bytes in the pool: its base64 text (1 MiB) covers any single image we make. */
const POOL_BYTES = 768 * 1024;
let pool: Buffer | undefined;

function poolBytes(): Buffer {
  if (pool === undefined) {
    const buf = Buffer.allocUnsafe(POOL_BYTES);
    let x = 0x9e3779b9;
    for (let i = 0; i < POOL_BYTES; i += 4) {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      buf.writeUInt32LE(x, i);
    }
    pool = buf;
  }
  return pool;
}

/**
 * Grown images, bounded by their total size: 64 Mi characters (each up to
 * about 1 MB; a plate's four crops together about 1 MiB, so some 60 plates'
 * crops), least recently used evicted; and by entries, 4,096.
 */
export const FILLER_CACHE_MAX_CHARS = 64 * 1024 * 1024;
const cache = new BoundedCache<string, string>(4096, FILLER_CACHE_MAX_CHARS, (image) => image.length);

/** The cache of grown images, for tests (its size, total characters and bounds). */
export function fillerCache(): Pick<BoundedCache<string, string>, 'size' | 'weight' | 'maxWeight' | 'clear'> {
  return cache;
}

/** The largest image `fillerJpegBase64` makes, in base64 characters. */
export const MAX_FILLER_CHARS = (POOL_BYTES / 3) * 4;

/**
 * A base64 JPEG of about `chars` characters (rounded down to a multiple of
 * four): `picture` (base64 of a real JPEG; default the sample's car) padded
 * with comments. Never smaller than the picture. `variant` picks other
 * padding bytes, so the crops of one event differ. `pictureKey` names the
 * picture in the cache (default: a hash of it; a caller that has a name for
 * it saves that hash). The same arguments return the same string.
 */
export function fillerJpegBase64(chars: number, variant = 0, picture: string = SAMPLE_PLATE_PICTURES.Car, pictureKey?: string): string {
  const total = Math.min(MAX_FILLER_CHARS, Math.floor(chars / 4) * 4);
  const key = `${total}:${variant}:${pictureKey ?? createHash('sha1').update(picture).digest('base64')}`;
  let image = cache.get(key);
  if (image === undefined) {
    image = paddedJpeg(Buffer.from(picture, 'base64'), (total / 4) * 3, variant).toString('base64');
    cache.set(key, image);
  }
  return image;
}

/** `jpeg` with comment segments after its first segment (the JFIF APP0) so that it is `bytes` long. */
function paddedJpeg(jpeg: Buffer, bytes: number, variant: number): Buffer {
  let padding = bytes - jpeg.length;
  if (padding < 4) return jpeg;
  // SOI (2 bytes), then the APP0 segment: marker (2) and its length (which counts its own two bytes)
  const headEnd = jpeg[3] === 0xe0 ? 4 + jpeg.readUInt16BE(4) : 2;
  const out = Buffer.allocUnsafe(jpeg.length + padding);
  jpeg.copy(out, 0, 0, headEnd);
  let at = headEnd;
  const random = poolBytes();
  let from = (variant * 40_961) % random.length;
  // equal segments, so none is left shorter than a segment's four header bytes
  let segments = Math.ceil(padding / COM_MAX_BYTES);
  while (segments > 0) {
    const size = Math.ceil(padding / segments);
    out[at] = 0xff;
    out[at + 1] = 0xfe;
    out.writeUInt16BE(size - 2, at + 2);
    let filled = 4;
    while (filled < size) {
      const n = Math.min(size - filled, random.length - from);
      random.copy(out, at + filled, from, from + n);
      filled += n;
      from = (from + n) % random.length;
    }
    at += size;
    padding -= size;
    segments--;
  }
  jpeg.copy(out, at, headEnd);
  return out;
}

/** The size of decoded base64 text, in bytes. */
export function base64Bytes(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}
