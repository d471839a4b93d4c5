/**
 * A watch list of plates, compiled once into an index, then asked for each
 * plate read: is it on the list, allowing for what plate readers get wrong?
 *
 * What matches an entry (after normalisePlate on both sides):
 * - the entry itself (exact);
 * - the entry with up to `lookalikes` characters read as a look-alike of
 *   the same class (8OB123 read 80B123: O as 0);
 * - with `extraMissing` > 0, the entry with up to that many characters
 *   more (extra) or fewer (missing), and look-alikes as above. A read has
 *   either extra or missing characters, never some of each: so an
 *   unrelated character in place of another (1 read as 7) never matches,
 *   however many extra or missing characters are allowed.
 *
 * The index: every entry's look-alike-folded key (when no look-alike is
 * allowed, the plate as it is) in one open-addressing table of (32-bit
 * hash, entry id) pairs in a typed array; with extra or missing characters
 * allowed, a second table of the keys with 1..extraMissing characters
 * deleted (SymSpell). A read is looked up by its own key (same length),
 * its keys with characters deleted (the read has extras), and in the
 * deletion table (the read misses characters); each candidate is then
 * verified exactly (alignment below), so a hash collision costs a check,
 * never a wrong match. Nothing is scanned: a check costs the same for ten
 * entries and a million.
 */
import { DEFAULT_LOOKALIKES, normalisePlate, type Lookalikes } from './lookalike';
import { Folder, KeyHasher, PairTable } from './plate-index';

/** The most look-alikes, and the most extra or missing characters, a match may have. */
export const MAX_LOOKALIKES = 2;
export const MAX_EXTRA_MISSING = 2;

export interface PlateListOptions {
  /** Look-alike characters a match may have (0–2; default 0: exact). */
  lookalikes?: number;
  /** Extra or missing characters a match may have (0–2; default 0). */
  extraMissing?: number;
  /** The look-alike classes (default DEFAULT_LOOKALIKES). */
  classes?: Lookalikes;
  /** Whether the reader's second guess, similar1Plate, is tried too (default true). */
  similar1Plate?: boolean;
}

/** Why a read matched, from the best to the least: exact, the reader's similar1Plate, look-alikes, extra or missing characters. */
export type PlateMatchKind = 'exact' | 'similar1Plate' | 'look-alike' | 'extra-missing';

/** One character where the read differs from the entry. */
export interface PlateDifference {
  /**
   * 1-based, in the entry (without spaces and dashes). For an extra
   * character, the entry character it came before (the entry's length + 1:
   * after the last).
   */
  position: number;
  /** The entry's character ('' for an extra one). */
  entry: string;
  /** The read's character ('' for a missing one). */
  read: string;
  kind: 'look-alike' | 'extra' | 'missing';
}

/** How a read matched an entry of the list. */
export interface PlateListMatch {
  /** The entry as written in the list. */
  entry: string;
  /** The plate as the event had it (plate or similar1Plate, not normalised). */
  read: string;
  /** Which of the event's plates matched. */
  against: 'plate' | 'similar1Plate';
  kind: PlateMatchKind;
  /** Each differing character, by position; empty for exact and similar1Plate matches. */
  differences: PlateDifference[];
  /**
   * 1 − 0.1 per look-alike − 0.3 per extra or missing character − 0.05
   * when it is similar1Plate that matched: 1 exact, 0.95 similar1Plate, 0.9
   * one look-alike, 0.7 one extra or missing character. A higher score is
   * always the better kind (a look-alike match scores 0.75 or more, an
   * extra/missing one 0.7 or less).
   */
  score: number;
}

/** The score of a match, in hundredths (exact arithmetic; see PlateListMatch.score). */
function hundredths(lookalikes: number, extraMissing: number, similar: boolean): number {
  return 100 - 10 * lookalikes - 30 * extraMissing - (similar ? 5 : 0);
}

let compilations = 0;
/** How many plate lists were compiled in this process: tests count compilations with it (a list must be compiled once per change, not per message). */
export function plateListCompilations(): number {
  return compilations;
}
/** Scratch space for the one check running at a time (Node.js runs one at a time). */
let scratch = new Uint16Array(64);
const candidates: number[] = [];
const readHasher = new KeyHasher();

/** What verifying one candidate found: the fewest look-alikes, and the extra or missing characters; undefined: no match. */
interface Alignment {
  lookalikes: number;
  extraMissing: number;
}

const INF = 1 << 20;
let table = new Int32Array(32 * 32);

/**
 * The fewest look-alikes with which `read` is `entry` plus extra characters
 * (read longer) or minus missing ones (read shorter), never both; equal
 * lengths: look-alikes only. -1 when no such alignment exists. With
 * `differences`, the alignment's differing characters are pushed onto it.
 */
export function alignPlates(entry: string, read: string, classes: Lookalikes, differences?: PlateDifference[]): number {
  const n = entry.length;
  const m = read.length;
  if (n === m) {
    let count = 0;
    for (let i = 0; i < n; i++) {
      const a = entry[i];
      const b = read[i];
      if (a === b) continue;
      if (!classes.alike(a, b)) return -1;
      count++;
      differences?.push({ position: i + 1, entry: a, read: b, kind: 'look-alike' });
    }
    return count;
  }
  // dp[i][j]: the fewest look-alikes aligning entry[0, i) with read[0, j).
  const w = m + 1;
  const size = (n + 1) * w;
  if (table.length < size) table = new Int32Array(size);
  const dp = table;
  const extras = m > n;
  const sub = (i: number, j: number): number => (entry[i] === read[j] ? 0 : classes.alike(entry[i], read[j]) ? 1 : INF);
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= m; j++) {
      let best = INF;
      if (i === 0 && j === 0) best = 0;
      else {
        if (i > 0 && j > 0) best = Math.min(best, dp[(i - 1) * w + j - 1] + sub(i - 1, j - 1));
        // only the indels of one direction: extra read characters, or missing entry ones
        if (extras && j > 0) best = Math.min(best, dp[i * w + j - 1]);
        if (!extras && i > 0) best = Math.min(best, dp[(i - 1) * w + j]);
      }
      dp[i * w + j] = best;
    }
  }
  const cost = dp[n * w + m];
  if (cost >= INF) return -1;
  if (differences) {
    const found: PlateDifference[] = [];
    let i = n;
    let j = m;
    while (i > 0 || j > 0) {
      const here = dp[i * w + j];
      if (i > 0 && j > 0) {
        const s = sub(i - 1, j - 1);
        if (s < INF && dp[(i - 1) * w + j - 1] + s === here) {
          if (s === 1) found.push({ position: i, entry: entry[i - 1], read: read[j - 1], kind: 'look-alike' });
          i--;
          j--;
          continue;
        }
      }
      if (extras) {
        found.push({ position: i + 1, entry: '', read: read[j - 1], kind: 'extra' });
        j--;
      } else {
        found.push({ position: i, entry: entry[i - 1], read: '', kind: 'missing' });
        i--;
      }
    }
    differences.push(...found.reverse());
  }
  return cost;
}

/** A watch list compiled for matching: build with compilePlateList. */
export class PlateList {
  /** The entries as written, by id (entries empty once normalised are left out). */
  private readonly written: string[];
  private readonly keys: PairTable;
  /** The keys with 1..extraMissing characters deleted; null when no extra or missing character is allowed. */
  private readonly deletions: PairTable | null;
  private readonly folder: Folder;
  readonly lookalikes: number;
  readonly extraMissing: number;
  readonly classes: Lookalikes;
  readonly similar1Plate: boolean;

  constructor(entries: readonly string[], options: PlateListOptions = {}) {
    compilations++;
    this.lookalikes = allowed(options.lookalikes, MAX_LOOKALIKES);
    this.extraMissing = allowed(options.extraMissing, MAX_EXTRA_MISSING);
    this.classes = options.classes ?? DEFAULT_LOOKALIKES;
    this.similar1Plate = options.similar1Plate !== false;
    // No look-alike allowed: keys are the plates themselves (fewer candidates to verify).
    this.folder = new Folder(this.lookalikes > 0 ? this.classes : undefined);

    // First the folded keys, one after the other, to size the tables.
    const written: string[] = [];
    let codes = new Uint16Array(Math.max(16, entries.length * 8));
    const ends: number[] = [];
    let used = 0;
    let pairs = 0;
    const e = this.extraMissing;
    for (const text of entries) {
      const plate = normalisePlate(text);
      if (plate === '') continue;
      if (used + plate.length > codes.length) {
        const grown = new Uint16Array(Math.max(codes.length * 2, used + plate.length));
        grown.set(codes.subarray(0, used));
        codes = grown;
      }
      for (let i = 0; i < plate.length; i++) codes[used++] = this.folder.code(plate.charCodeAt(i));
      written.push(text);
      ends.push(used);
      const n = plate.length;
      if (e >= 1 && n > 1) pairs += n;
      if (e >= 2 && n > 2) pairs += (n * (n - 1)) / 2;
    }
    this.written = written;
    this.keys = new PairTable(written.length);
    this.deletions = e > 0 ? new PairTable(pairs) : null;
    const hasher = new KeyHasher();
    let from = 0;
    for (let id = 0; id < written.length; id++) {
      const to = ends[id];
      hasher.load(codes, from, to);
      this.keys.add(hasher.whole(), id);
      const deletions = this.deletions;
      if (deletions) {
        const n = to - from;
        for (let a = 0; a < n && n > 1; a++) {
          // deleting any one of a run of equal characters gives the same key
          if (a > 0 && codes[from + a] === codes[from + a - 1]) continue;
          deletions.add(hasher.without(a), id);
          if (e < 2 || n < 3) continue;
          for (let b = a + 1; b < n; b++) deletions.add(hasher.withoutTwo(a, b), id);
        }
      }
      from = to;
    }
  }

  /** The entries indexed. */
  get size(): number {
    return this.written.length;
  }

  /**
   * The best match of the plate read (and of similar1Plate, when the list
   * counts it), or undefined. Best: the highest score (exact, then
   * similar1Plate, then look-alikes, then extra or missing characters);
   * between equal scores the entry first in the list, the plate before
   * similar1Plate.
   */
  match(plate: string | null | undefined, similar1Plate?: string | null): PlateListMatch | undefined {
    if (this.written.length === 0) return undefined;
    const read = typeof plate === 'string' ? normalisePlate(plate) : '';
    const first = read === '' ? undefined : this.best(read);
    if (first && first.score === 100) return this.result(first, plate as string, 'plate');
    if (this.similar1Plate && typeof similar1Plate === 'string') {
      const other = normalisePlate(similar1Plate);
      if (other !== '' && other !== read) {
        const second = this.best(other);
        if (second && (!first || hundredths(second.lookalikes, second.extraMissing, true) > first.score))
          return this.result(second, similar1Plate, 'similar1Plate');
      }
    }
    return first ? this.result(first, plate as string, 'plate') : undefined;
  }

  /** The best entry for a normalised read: its id, its alignment and its score (hundredths, as against the plate). */
  private best(read: string): (Alignment & { id: number; entry: string; read: string; score: number }) | undefined {
    const m = read.length;
    if (scratch.length < m) scratch = new Uint16Array(m * 2);
    const codes = scratch;
    for (let i = 0; i < m; i++) codes[i] = this.folder.code(read.charCodeAt(i));
    candidates.length = 0;
    const hasher = readHasher;
    hasher.load(codes, 0, m);
    const key = hasher.whole();
    this.keys.collect(key, candidates);
    if (this.deletions) {
      // the read has extra characters: its key less those is an entry's key
      for (let a = 0; a < m && m > 1; a++) {
        if (a > 0 && codes[a] === codes[a - 1]) continue;
        this.keys.collect(hasher.without(a), candidates);
        if (this.extraMissing < 2 || m < 3) continue;
        for (let b = a + 1; b < m; b++) this.keys.collect(hasher.withoutTwo(a, b), candidates);
      }
      // the read misses characters: it is an entry's key less those
      this.deletions.collect(key, candidates);
    }
    let found: (Alignment & { id: number; entry: string; read: string; score: number }) | undefined;
    for (const id of candidates) {
      if (found && id === found.id) continue;
      const entry = normalisePlate(this.written[id]);
      const extraMissing = Math.abs(entry.length - m);
      if (extraMissing > this.extraMissing) continue;
      const lookalikes = alignPlates(entry, read, this.classes);
      if (lookalikes < 0 || lookalikes > this.lookalikes) continue;
      const score = hundredths(lookalikes, extraMissing, false);
      if (!found || score > found.score || (score === found.score && id < found.id)) found = { id, entry, read, lookalikes, extraMissing, score };
    }
    return found;
  }

  private result(
    found: { id: number; entry: string; read: string; lookalikes: number; extraMissing: number },
    read: string,
    against: 'plate' | 'similar1Plate',
  ): PlateListMatch {
    const differences: PlateDifference[] = [];
    alignPlates(found.entry, found.read, this.classes, differences);
    const similar = against === 'similar1Plate';
    const kind: PlateMatchKind = found.extraMissing > 0 ? 'extra-missing' : found.lookalikes > 0 ? 'look-alike' : similar ? 'similar1Plate' : 'exact';
    return {
      entry: this.written[found.id],
      read,
      against,
      kind,
      differences,
      score: hundredths(found.lookalikes, found.extraMissing, similar) / 100,
    };
  }
}

/** An allowed count: a whole number from 0 to `max` (anything else: 0). */
function allowed(value: number | undefined, max: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? Math.min(value, max) : 0;
}

/** Compiles a watch list (entries as written; empty ones are left out). */
export function compilePlateList(entries: readonly string[], options: PlateListOptions = {}): PlateList {
  return new PlateList(entries, options);
}
