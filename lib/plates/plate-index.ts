/**
 * The parts of the plate-list index (plate-list.ts) below its matching: the
 * folding of look-alike characters to one, the hashes of a key with up to two
 * characters deleted, each in constant time, and the open-addressing table of
 * (hash, entry id) pairs. Apart because each is a small machine of its own,
 * read and tuned alone.
 */
import type { Lookalikes } from './lookalike';

/** A character code to its class's first character's code, per code unit (characters outside the Basic Multilingual Plane are left alone). */
export class Folder {
  private readonly low = new Uint16Array(256);
  private readonly high = new Map<number, number>();

  constructor(classes: Lookalikes | undefined) {
    for (let c = 0; c < 256; c++) this.low[c] = c;
    if (!classes) return;
    for (const group of classes.classes) {
      const chars = [...group].filter((char) => char.length === 1);
      if (chars.length < 2) continue;
      const first = chars[0].charCodeAt(0);
      for (const char of chars) {
        const c = char.charCodeAt(0);
        if (c < 256) this.low[c] = first;
        else this.high.set(c, first);
      }
    }
  }

  code(c: number): number {
    return c < 256 ? this.low[c] : (this.high.get(c) ?? c);
  }
}

/**
 * Hashes of a key and of the key with one or two characters deleted, each in
 * constant time once the key is loaded: a polynomial hash (mod 2^32) over
 * prefixes and suffixes, then a final mix so that every bit counts for the
 * slot. Collisions only cost a verification.
 */
export class KeyHasher {
  private pre = new Int32Array(65);
  private suf = new Int32Array(65);
  private pow = new Int32Array(65);
  private length = 0;

  constructor() {
    this.powers(64);
  }

  private powers(max: number): void {
    this.pow = new Int32Array(max + 1);
    this.pre = new Int32Array(max + 1);
    this.suf = new Int32Array(max + 1);
    this.pow[0] = 1;
    for (let i = 1; i <= max; i++) this.pow[i] = Math.imul(this.pow[i - 1], BASE);
  }

  /** Takes the key codes[from, to). */
  load(codes: Uint16Array, from: number, to: number): void {
    const n = to - from;
    if (n >= this.pow.length) this.powers(n * 2);
    const { pre, suf, pow } = this;
    pre[0] = 0;
    for (let i = 0; i < n; i++) pre[i + 1] = (Math.imul(pre[i], BASE) + codes[from + i]) | 0;
    suf[n] = 0;
    for (let i = n - 1; i >= 0; i--) suf[i] = (Math.imul(codes[from + i], pow[n - 1 - i]) + suf[i + 1]) | 0;
    this.length = n;
  }

  /** The whole key. */
  whole(): number {
    return mix(this.pre[this.length], this.length);
  }

  /** The key without its character `a` (from 0). */
  without(a: number): number {
    const n = this.length;
    return mix((Math.imul(this.pre[a], this.pow[n - 1 - a]) + this.suf[a + 1]) | 0, n - 1);
  }

  /** The key without its characters `a` < `b`. */
  withoutTwo(a: number, b: number): number {
    const { pre, suf, pow } = this;
    const n = this.length;
    const middle = (pre[b] - Math.imul(pre[a + 1], pow[b - a - 1])) | 0;
    return mix((Math.imul(pre[a], pow[n - 2 - a]) + Math.imul(middle, pow[n - 1 - b]) + suf[b + 1]) | 0, n - 2);
  }
}

const BASE = 0x01000193;

/** murmur3's finaliser over the polynomial and the length. */
function mix(h: number, length: number): number {
  h = (h + Math.imul(length, 0x9e3779b9)) | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** At most this share of a table's slots is used: short probe runs, 13 bytes per pair. */
const LOAD = 0.6;
const TWO_32 = 4294967296;

/**
 * An open-addressing table of (hash, id) pairs, two Uint32 per slot (id + 1;
 * 0 is an empty slot), linear probing. The same pair is kept once.
 */
export class PairTable {
  readonly slots: Uint32Array;
  readonly capacity: number;

  constructor(pairs: number) {
    this.capacity = Math.max(8, Math.ceil(pairs / LOAD));
    this.slots = new Uint32Array(this.capacity * 2);
  }

  start(hash: number): number {
    const slot = Math.floor((hash * this.capacity) / TWO_32);
    return slot < this.capacity ? slot : this.capacity - 1;
  }

  add(hash: number, id: number): void {
    const slots = this.slots;
    let s = this.start(hash);
    while (slots[2 * s + 1] !== 0) {
      if (slots[2 * s] === hash && slots[2 * s + 1] === id + 1) return;
      s = s + 1 === this.capacity ? 0 : s + 1;
    }
    slots[2 * s] = hash;
    slots[2 * s + 1] = id + 1;
  }

  /** Pushes the ids stored under `hash` onto `out`. */
  collect(hash: number, out: number[]): void {
    const slots = this.slots;
    let s = this.start(hash);
    for (;;) {
      const id = slots[2 * s + 1];
      if (id === 0) return;
      if (slots[2 * s] === hash) out.push(id - 1);
      s = s + 1 === this.capacity ? 0 : s + 1;
    }
  }
}
