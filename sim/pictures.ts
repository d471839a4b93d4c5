/**
 * The simulator's pictures show what its events say: the plate the event
 * sends, in black on a white plate area of each plate crop, and the person's
 * name, in capitals, on a caption bar of the live capture and the enrolled
 * photo. Each built-in sample picture (lib/bridge/sample-images.ts) is decoded
 * once (jpeg-js), the text drawn with the simulator's font (font.ts) scaled
 * up, and the result encoded once per (text, picture) and cached.
 *
 * The drawn area is a white box in a black frame, the text centred in it:
 * test/support/plate-reader.js finds it by that frame and reads it back.
 * Node-RED-free.
 */
import * as jpeg from 'jpeg-js';
import type { CropSizeName } from '../lib/core';
import { SAMPLE_FACE_PICTURES, SAMPLE_PLATE_PICTURES } from '../lib/bridge';
import { BoundedCache } from './bounded-cache';
import { CELL_COLUMNS, GLYPH_COLUMNS, GLYPH_ROWS, foldForFont, glyphOf } from './font';
import { encodeJpeg } from './jpeg-encoder';

/** A picture the simulator draws on: a plate crop, or a face's live capture or enrolled photo. */
export type PictureName = CropSizeName | 'detectionImage' | 'defaultPhoto';

/** The frame's width and the blank margin inside it, in pixels. */
export const FRAME_PIXELS = 2;
const MARGIN_PIXELS = 2;

/** Where a picture's text goes: a box (the frame's outside) over the drawn plate, or a caption bar at the bottom. */
type TextPlace = { box: { x: number; y: number; w: number; h: number }; maxScale: number } | { caption: true; maxScale: number };

/** Over the plate's own characters in each crop (the drawings of scripts/make-sample-images.js). */
const PLACES: Readonly<Record<PictureName, TextPlace>> = {
  Close: { box: { x: 6, y: 29, w: 188, h: 58 }, maxScale: 6 },
  Medium: { box: { x: 73, y: 57, w: 134, h: 41 }, maxScale: 4 },
  Car: { box: { x: 118, y: 160, w: 84, h: 40 }, maxScale: 3 },
  FullFrame: { box: { x: 127, y: 168, w: 46, h: 21 }, maxScale: 2 },
  Other: { box: { x: 53, y: 59, w: 134, h: 41 }, maxScale: 4 },
  detectionImage: { caption: true, maxScale: 3 },
  defaultPhoto: { caption: true, maxScale: 3 },
};

const BASE64: Readonly<Record<PictureName, string>> = { ...SAMPLE_PLATE_PICTURES, ...SAMPLE_FACE_PICTURES };

/** JPEG quality of a drawn picture: high enough that the text stays crisp. */
const QUALITY = 80;

interface Raw {
  width: number;
  height: number;
  data: Uint8Array;
}

/** The decoded sample pictures: one per PictureName (seven, about 1.6 MB of RGBA), decoded on first use. */
const decoded = new Map<PictureName, Raw>();

function basePicture(name: PictureName): Raw {
  let raw = decoded.get(name);
  if (!raw) {
    raw = jpeg.decode(Buffer.from(BASE64[name], 'base64'), { useTArray: true, formatAsRGBA: true });
    decoded.set(name, raw);
  }
  return raw;
}

/**
 * Drawn pictures by (picture, text): at most 256, least recently used
 * evicted. A drawn picture is a few KiB of base64 (about 4 MB at most in all),
 * and each costs a JPEG encode (a few ms): a run of thousands of events with
 * a few dozen plates and people encodes each once.
 */
export const DRAWN_PICTURES_MAX = 256;
const drawnCache = new BoundedCache<string, string>(DRAWN_PICTURES_MAX);

/** The cache of drawn pictures, for tests (its size and bound). */
export function drawnPictureCache(): Pick<BoundedCache<string, string>, 'size' | 'maxEntries' | 'clear'> {
  return drawnCache;
}

/** The cache key of a drawn picture, also the realistic images' name for it (images.ts). */
export function drawnPictureKey(name: PictureName, text: string): string {
  return `${name}|${foldForFont(text)}`;
}

/**
 * The sample picture `name` with `text` drawn on it (folded: capitals,
 * accents off), as base64 JPEG; the same arguments, the same string (cached).
 * A plate too long for a crop's box leaves it blank (the far FullFrame crop
 * holds six characters); a name too long for the caption bar is cut.
 */
export function drawnPicture(name: PictureName, text: string): string {
  const key = drawnPictureKey(name, text);
  let image = drawnCache.get(key);
  if (image === undefined) {
    image = drawText(name, foldForFont(text));
    drawnCache.set(key, image);
  }
  return image;
}

/** The largest scale at which `chars` characters fit in an inner area, capped; 0 when none fits. */
export function textScale(innerW: number, innerH: number, chars: number, maxScale: number): number {
  const width = chars * CELL_COLUMNS - 1;
  return Math.max(0, Math.min(maxScale, Math.floor((innerH - 2 * MARGIN_PIXELS) / GLYPH_ROWS), Math.floor((innerW - 2 * MARGIN_PIXELS) / width)));
}

function drawText(name: PictureName, text: string): string {
  const base = basePicture(name);
  const { width, height } = base;
  const data = Uint8Array.from(base.data);
  const place = PLACES[name];
  let box: { x: number; y: number; w: number; h: number };
  let scale: number;
  if ('caption' in place) {
    const innerW = width - 2 * FRAME_PIXELS;
    // the longest text that fits at the smallest scale; the bar's height follows the scale
    while (text.length > 1 && textScale(innerW, Infinity, text.length, 1) === 0) text = text.slice(0, -1).trimEnd();
    scale = textScale(innerW, Infinity, text.length, place.maxScale);
    const h = GLYPH_ROWS * scale + 2 * (FRAME_PIXELS + MARGIN_PIXELS + scale);
    box = { x: 0, y: height - h, w: width, h };
  } else {
    box = place.box;
    scale = textScale(box.w - 2 * FRAME_PIXELS, box.h - 2 * FRAME_PIXELS, text.length, place.maxScale);
  }
  const fill = (x: number, y: number, w: number, h: number, value: number): void => {
    for (let row = Math.max(0, y); row < Math.min(height, y + h); row++) {
      const start = (row * width + Math.max(0, x)) * 4;
      const end = (row * width + Math.min(width, x + w)) * 4;
      for (let i = start; i < end; i += 4) {
        data[i] = data[i + 1] = data[i + 2] = value;
        data[i + 3] = 255;
      }
    }
  };
  fill(box.x, box.y, box.w, box.h, 0);
  const inner = { x: box.x + FRAME_PIXELS, y: box.y + FRAME_PIXELS, w: box.w - 2 * FRAME_PIXELS, h: box.h - 2 * FRAME_PIXELS };
  fill(inner.x, inner.y, inner.w, inner.h, 255);
  if (scale > 0) {
    const textW = (text.length * CELL_COLUMNS - 1) * scale;
    const left = inner.x + Math.floor((inner.w - textW) / 2);
    const top = inner.y + Math.floor((inner.h - GLYPH_ROWS * scale) / 2);
    for (let i = 0; i < text.length; i++) {
      const glyph = glyphOf(text[i]);
      for (let r = 0; r < GLYPH_ROWS; r++)
        for (let c = 0; c < GLYPH_COLUMNS; c++)
          if (glyph[r * GLYPH_COLUMNS + c]) fill(left + (i * CELL_COLUMNS + c) * scale, top + r * scale, scale, scale, 0);
    }
  }
  return encodeJpeg({ width, height, data }, QUALITY).toString('base64');
}
