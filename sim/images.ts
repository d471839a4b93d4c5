/**
 * Filler images of realistic size for the bridge simulator: base64 text that
 * decodes to bytes starting like a JPEG (FF D8 FF E0 00 10, the JFIF APP0
 * marker) and ending with the end-of-image marker FF D9, with pseudo-random
 * bytes between (so compression on the way does not shrink them).
 *
 * Cheap and deterministic: one pool of pseudo-random bytes is made once
 * (xorshift32, fixed seed) and base64-encoded once; every image is a slice of
 * that text between a fixed head and tail, cached by (length, variant). A run
 * of thousands of events allocates its images once. Node-RED-free.
 */

/** base64 of FF D8 FF E0 00 10: SOI and the start of a JFIF APP0 segment. */
const JPEG_HEAD_B64 = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]).toString('base64'); // "/9j/4AAQ"
/** base64 of FF D9, end of image. */
const JPEG_TAIL_B64 = Buffer.from([0xff, 0xd9]).toString('base64'); // "/9k="

/** Raw bytes in the pool: its base64 text (1 MiB) covers any single image we make. */
const POOL_BYTES = 768 * 1024;
let pool: string | undefined;

function poolText(): string {
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
    pool = buf.toString('base64');
  }
  return pool;
}

const cache = new Map<string, string>();

/** The largest image `fillerJpegBase64` makes, in base64 characters. */
export const MAX_FILLER_CHARS = (POOL_BYTES / 3) * 4 + JPEG_HEAD_B64.length + JPEG_TAIL_B64.length;

/**
 * A base64 "JPEG" of about `chars` characters (rounded down to a multiple of
 * four, at least 12). `variant` picks another slice of the pool, so the crops
 * of one event differ. The same arguments return the same string.
 */
export function fillerJpegBase64(chars: number, variant = 0): string {
  const total = Math.max(12, Math.min(MAX_FILLER_CHARS, Math.floor(chars / 4) * 4));
  const key = `${total}:${variant}`;
  let image = cache.get(key);
  if (image === undefined) {
    const text = poolText();
    const middle = total - JPEG_HEAD_B64.length - JPEG_TAIL_B64.length;
    const room = text.length - middle;
    // A multiple of 4 so the slice starts on a base64 quantum boundary.
    const offset = room > 0 ? ((variant * 40_961) % Math.floor(room / 4)) * 4 : 0;
    image = JPEG_HEAD_B64 + text.slice(offset, offset + middle) + JPEG_TAIL_B64;
    cache.set(key, image);
  }
  return image;
}

/** The size of decoded base64 text, in bytes. */
export function base64Bytes(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}
