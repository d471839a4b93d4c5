/**
 * The simulator's own bitmap font, 5 × 7 dots: A–Z, 0–9, space, dash and dot,
 * and a box for any other character. The pictures draw a plate or a name with
 * it (pictures.ts, scaled up), and the tests read the drawn text back with it
 * (test/support/plate-reader.js), so the glyphs are chosen to differ: any two
 * differ in at least 3 of their 35 dots (O and 0 by 0's slash, D by its
 * rounded corners). Node-RED-free.
 */

export const GLYPH_COLUMNS = 5;
export const GLYPH_ROWS = 7;
/** A character's cell: its glyph and one blank column after it. */
export const CELL_COLUMNS = GLYPH_COLUMNS + 1;
/** What the font draws for a character it has no glyph for (and what a reader reads for that box). */
export const FALLBACK_CHAR = '\uFFFD';

/** Each glyph as its 7 rows, `#` a dot. */
const GLYPHS: Readonly<Record<string, string>> = {
  A: '.###. #...# #...# ##### #...# #...# #...#',
  B: '####. #...# #...# ####. #...# #...# ####.',
  C: '.###. #...# #.... #.... #.... #...# .###.',
  D: '###.. #..#. #...# #...# #...# #..#. ###..',
  E: '##### #.... #.... ####. #.... #.... #####',
  F: '##### #.... #.... ####. #.... #.... #....',
  G: '.###. #...# #.... #.### #...# #...# .####',
  H: '#...# #...# #...# ##### #...# #...# #...#',
  I: '.###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.',
  J: '..### ...#. ...#. ...#. ...#. #..#. .##..',
  K: '#...# #..#. #.#.. ##... #.#.. #..#. #...#',
  L: '#.... #.... #.... #.... #.... #.... #####',
  M: '#...# ##.## #.#.# #.#.# #...# #...# #...#',
  N: '#...# #...# ##..# #.#.# #..## #...# #...#',
  O: '.###. #...# #...# #...# #...# #...# .###.',
  P: '####. #...# #...# ####. #.... #.... #....',
  Q: '.###. #...# #...# #...# #.#.# #..#. .##.#',
  R: '####. #...# #...# ####. #.#.. #..#. #...#',
  S: '.#### #.... #.... .###. ....# ....# ####.',
  T: '##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..',
  U: '#...# #...# #...# #...# #...# #...# .###.',
  V: '#...# #...# #...# #...# #...# .#.#. ..#..',
  W: '#...# #...# #...# #.#.# #.#.# #.#.# .#.#.',
  X: '#...# #...# .#.#. ..#.. .#.#. #...# #...#',
  Y: '#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..',
  Z: '##### ....# ...#. ..#.. .#... #.... #####',
  '0': '.###. #...# #..## #.#.# ##..# #...# .###.',
  '1': '..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.',
  '2': '.###. #...# ....# ...#. ..#.. .#... #####',
  '3': '##### ...#. ..#.. ...#. ....# #...# .###.',
  '4': '...#. ..##. .#.#. #..#. ##### ...#. ...#.',
  '5': '##### #.... ####. ....# ....# #...# .###.',
  '6': '..##. .#... #.... ####. #...# #...# .###.',
  '7': '##### ....# ...#. ..#.. .#... .#... .#...',
  '8': '.###. #...# #...# .###. #...# #...# .###.',
  '9': '.###. #...# #...# .#### ....# ...#. .##..',
  ' ': '..... ..... ..... ..... ..... ..... .....',
  '-': '..... ..... ..... ##### ..... ..... .....',
  '.': '..... ..... ..... ..... ..... .##.. .##..',
  [FALLBACK_CHAR]: '##### #...# #.#.# #...# #.#.# #...# #####',
};

/** A glyph's dots, row by row (index row × 5 + column), 1 for a dot. */
export type Glyph = Uint8Array;

const BITMAPS: ReadonlyMap<string, Glyph> = new Map(
  Object.entries(GLYPHS).map(([char, rows]) => [char, Uint8Array.from(rows.replace(/ /g, ''), (dot) => (dot === '#' ? 1 : 0))]),
);

/** Every character the font draws, with its glyph (the fallback box under FALLBACK_CHAR). */
export function fontGlyphs(): ReadonlyMap<string, Glyph> {
  return BITMAPS;
}

/** The glyph a character of folded text is drawn with. */
export function glyphOf(char: string): Glyph {
  return BITMAPS.get(char) ?? (BITMAPS.get(FALLBACK_CHAR) as Glyph);
}

/**
 * Text as the font draws it: capitals, accents folded to their base letter
 * (É → E, Ø has none and draws as the box), runs of blanks as one space, trimmed.
 */
export function foldForFont(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase().replace(/\s+/g, ' ').trim();
}
