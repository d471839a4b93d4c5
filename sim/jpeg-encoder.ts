/**
 * The JPEG encoder of the drawn pictures (pictures.ts): jpeg-js's, kept.
 * jpeg-js's encode() builds a new encoder on every call, and building one
 * (its tables: 65,535 entries) costs about five times the encoding of a
 * 320 × 240 picture (measured: 75 ms against 14 ms of CPU). Its module keeps
 * the encoder's class to itself, so the class is read here from that module's
 * own file, once, and one encoder serves every picture; should a later
 * jpeg-js lack it, encode() is used as it is. Node-RED-free.
 */
import { readFileSync } from 'node:fs';
import { compileFunction } from 'node:vm';
import * as jpeg from 'jpeg-js';

interface Raw {
  width: number;
  height: number;
  data: Uint8Array;
}

type Encoder = { encode(image: Raw, quality: number): Buffer };

let kept: Encoder | null | undefined;

function keptEncoder(quality: number): Encoder | null {
  if (kept === undefined) {
    kept = null;
    try {
      const source = readFileSync(require.resolve('jpeg-js/lib/encoder.js'), 'utf8');
      const load = compileFunction(`${source}\nreturn typeof JPEGEncoder === 'function' ? JPEGEncoder : undefined;`, [
        'module',
        'exports',
        'require',
      ]);
      const JPEGEncoder = load({ exports: {} }, {}, require) as (new (quality: number) => Encoder) | undefined;
      if (JPEGEncoder) kept = new JPEGEncoder(quality);
    } catch {
      // the public encode() below still works
    }
  }
  return kept;
}

/** A baseline JPEG of RGBA pixels at `quality` (1–100). */
export function encodeJpeg(image: Raw, quality: number): Buffer {
  const encoder = keptEncoder(quality);
  return encoder ? encoder.encode(image, quality) : jpeg.encode(image, quality).data;
}
