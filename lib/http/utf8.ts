/**
 * UTF-8 check for request bodies. Decoding invalid bytes does not fail in
 * Node, it puts U+FFFD in their place, so a damaged plate or name would be
 * delivered as if it were right. One pass of `buffer.isUtf8` (native, far
 * cheaper than the JSON parse) finds out; only a body that fails is scanned
 * again here for where it breaks.
 */
import { isUtf8 } from 'node:buffer';

/** Byte offset of the first byte that is not part of a valid UTF-8
 *  sequence, or -1 when the whole buffer is valid UTF-8. */
export function invalidUtf8Offset(buf: Buffer): number {
  if (isUtf8(buf)) return -1;
  const n = buf.length;
  let i = 0;
  while (i < n) {
    const b = buf[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = buf[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return i;
    i += need + 1;
  }
  return -1;
}
