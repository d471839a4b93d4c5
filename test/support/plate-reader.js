'use strict';
/**
 * Reads the text the simulator draws on its pictures (sim/pictures.ts) back
 * from the JPEG, for tests: decode (jpeg-js), threshold at mid-grey, find the
 * drawn box (white paper inside a black frame: a paper region whose bounding
 * box it fills, with ink inside), measure the text's scale from its ink
 * (every letter and digit is 7 dots tall), place the character cells as the
 * drawing centres them, and match each cell's 5 × 7 dots against the
 * simulator's own font (dist/sim) by Hamming distance. Block averages and a
 * best match keep it robust to JPEG artefacts.
 */
const path = require('node:path');
const jpeg = require('jpeg-js');
const { ROOT } = require('.');

// the simulator's font, from the build, as its pictures are drawn (loaded on first use: requiring
// this file does not need a built dist/)
let font;
function loadFont() {
  font ??= require(path.join(ROOT, 'dist', 'sim', 'font.js'));
  return font;
}

/** A cell is read only when its best glyph differs in at most this many dots. */
const MAX_DISTANCE = 4;

/** Grey levels (BT.601 luma) of a decoded JPEG. */
function luma(raw) {
  const grey = new Uint8Array(raw.width * raw.height);
  for (let i = 0; i < grey.length; i++) grey[i] = (299 * raw.data[4 * i] + 587 * raw.data[4 * i + 1] + 114 * raw.data[4 * i + 2]) / 1000;
  return grey;
}

/** Bright regions (4-connected, above mid-grey) that fill their bounding box but for ink inside: the candidate boxes. */
function paperBoxes(grey, width, height) {
  const { CELL_COLUMNS, GLYPH_ROWS } = loadFont();
  const label = new Int32Array(width * height).fill(-1);
  const boxes = [];
  const queue = new Int32Array(width * height);
  for (let start = 0; start < grey.length; start++) {
    if (label[start] !== -1 || grey[start] < 128) continue;
    const id = boxes.length;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    label[start] = id;
    let x0 = width;
    let y0 = height;
    let x1 = -1;
    let y1 = -1;
    while (head < tail) {
      const p = queue[head++];
      const x = p % width;
      const y = (p - x) / width;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      for (const q of [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, y > 0 ? p - width : -1, y < height - 1 ? p + width : -1]) {
        if (q >= 0 && label[q] === -1 && grey[q] >= 128) {
          label[q] = id;
          queue[tail++] = q;
        }
      }
    }
    boxes.push({ id, x: x0, y: y0, w: x1 - x0 + 1, h: y1 - y0 + 1, size: tail });
  }
  return boxes.filter((b) => {
    if (b.w < CELL_COLUMNS || b.h < GLYPH_ROWS + 2) return false;
    // its edge rows and columns are its own: a rectangle of paper, not a blob
    let own = 0;
    let edge = 0;
    for (let x = b.x; x < b.x + b.w; x++)
      for (const y of [b.y, b.y + b.h - 1]) {
        edge++;
        if (label[y * width + x] === b.id) own++;
      }
    for (let y = b.y; y < b.y + b.h; y++)
      for (const x of [b.x, b.x + b.w - 1]) {
        edge++;
        if (label[y * width + x] === b.id) own++;
      }
    return own >= 0.97 * edge && b.size < b.w * b.h;
  });
}

/** The 35 dots of the cell whose top left is (left, top) at `scale`: a dot is dark when its block's inner average is. */
function cellDots(grey, width, left, top, scale) {
  const { GLYPH_COLUMNS, GLYPH_ROWS } = loadFont();
  const trim = Math.floor(scale / 4);
  const dots = new Uint8Array(GLYPH_COLUMNS * GLYPH_ROWS);
  for (let r = 0; r < GLYPH_ROWS; r++)
    for (let c = 0; c < GLYPH_COLUMNS; c++) {
      let sum = 0;
      let n = 0;
      for (let y = top + r * scale + trim; y < top + (r + 1) * scale - trim; y++)
        for (let x = left + c * scale + trim; x < left + (c + 1) * scale - trim; x++) {
          sum += grey[y * width + x];
          n++;
        }
      dots[r * GLYPH_COLUMNS + c] = sum / n < 128 ? 1 : 0;
    }
  return dots;
}

/** The glyph nearest to `dots` and its distance. */
function nearest(dots) {
  const { FALLBACK_CHAR, fontGlyphs } = loadFont();
  let best = { char: FALLBACK_CHAR, distance: dots.length + 1 };
  for (const [char, glyph] of fontGlyphs()) {
    let distance = 0;
    for (let i = 0; i < dots.length; i++) if (glyph[i] !== dots[i]) distance++;
    if (distance < best.distance) best = { char, distance };
  }
  return best;
}

/** The text in one box, or null when it holds none the font reads. */
function readBox(grey, width, box) {
  const { CELL_COLUMNS, GLYPH_ROWS } = loadFont();
  let inkTop = Infinity;
  let inkBottom = -1;
  let inkLeft = Infinity;
  let inkRight = -1;
  for (let y = box.y; y < box.y + box.h; y++)
    for (let x = box.x; x < box.x + box.w; x++)
      if (grey[y * width + x] < 128) {
        inkTop = Math.min(inkTop, y);
        inkBottom = Math.max(inkBottom, y);
        inkLeft = Math.min(inkLeft, x);
        inkRight = Math.max(inkRight, x);
      }
  if (inkBottom < 0) return null;
  const scale = Math.round((inkBottom - inkTop + 1) / GLYPH_ROWS);
  if (scale < 1) return null;
  let best = null;
  // the fewest characters whose centred cells hold all the ink, and one more; a pixel of slack for the JPEG
  for (let chars = 1; (chars * CELL_COLUMNS - 1) * scale <= box.w; chars++) {
    const textW = (chars * CELL_COLUMNS - 1) * scale;
    const centred = box.x + Math.floor((box.w - textW) / 2);
    if (centred > inkLeft + 1 || centred + textW - 1 < inkRight - 1) continue;
    for (const left of [centred, centred - 1, centred + 1]) {
      let text = '';
      let total = 0;
      let worst = 0;
      for (let i = 0; i < chars; i++) {
        const { char, distance } = nearest(cellDots(grey, width, left + i * CELL_COLUMNS * scale, inkTop, scale));
        text += char;
        total += distance;
        worst = Math.max(worst, distance);
      }
      if (worst <= MAX_DISTANCE && (!best || total < best.total)) best = { text, total };
    }
    if (best) break;
  }
  return best && best.text.trim() ? { text: best.text.trim(), scale, box, distance: best.total } : null;
}

/**
 * Every drawn text in a JPEG (a Buffer), innermost boxes first: `{ text,
 * scale, box, distance }` (distance: dots that differ from the font, summed).
 */
function readPictureTexts(jpegBytes) {
  const raw = jpeg.decode(jpegBytes, { useTArray: true, formatAsRGBA: true });
  const grey = luma(raw);
  const reads = paperBoxes(grey, raw.width, raw.height)
    .map((box) => readBox(grey, raw.width, box))
    .filter(Boolean);
  const inside = (a, b) =>
    a !== b && a.box.x >= b.box.x && a.box.y >= b.box.y && a.box.x + a.box.w <= b.box.x + b.box.w && a.box.y + a.box.h <= b.box.y + b.box.h;
  return reads.filter((r) => !reads.some((other) => inside(other, r)));
}

/** The text drawn on a JPEG picture (a Buffer, or base64 text), or null when none is found. */
function readPictureText(picture) {
  const bytes = Buffer.isBuffer(picture) ? picture : Buffer.from(picture, 'base64');
  const reads = readPictureTexts(bytes);
  return reads.length ? reads[0].text : null;
}

module.exports = { readPictureText, readPictureTexts };
