/**
 * JSON body parsing for untrusted input: V8's JSON.parse for speed, then one
 * iterative walk that removes `__proto__` keys and bounds nesting depth. When
 * parsing fails, a small scanner finds where it broke (Node 20's JSON.parse
 * messages carry no position), so the sender is told line and column.
 *
 * Large bodies (detection events carry about 1 MB of base64 images) take a
 * faster road to the same value: their long string values are cut out of the
 * bytes, the small remainder is parsed with JSON.parse, and each long string
 * is decoded straight from the body into its place. This skips building the
 * whole body as one string first, a copy into freshly mapped memory that cost
 * as much as JSON.parse itself (see bench/). Long strings with escapes, as
 * real senders write them (.NET's System.Text.Json writes every `+` of base64
 * as `\u002B`, others `/` as `\/`), are decoded from the bytes too, by a
 * small WebAssembly module (./unescape.ts). Anything unusual in a long string
 * (a lone surrogate, a malformed escape, a control character, invalid UTF-8
 * next to escapes) leaves that string to JSON.parse, and any error falls back
 * to the plain road, so results and error messages are the same either way.
 */
import { randomUUID } from 'node:crypto';
import { renderMessage, type Message } from '../core/messages';
import { decodeEscapedString } from './unescape';

export { decodeEscapedString };

/** Deeper than any detection event (about 6 levels); deep enough for extra
 *  fields a future bridge may add. Downstream Node-RED code (cloneMessage, the
 *  debug sidebar) recurses, so unbounded depth could exhaust the stack there. */
export const MAX_JSON_DEPTH = 64;

export interface JsonErrorLocation {
  /** Character offset of the first character that could not be parsed. */
  position: number;
  line: number;
  column: number;
}

export type JsonParseReason = 'empty' | 'syntax' | 'too-deep';

export type JsonParseResult =
  | { ok: true; value: unknown }
  | {
      ok: false;
      reason: JsonParseReason;
      /** What is wrong, for a translation; `detail` is its en-US text. */
      message: Message;
      detail: string;
      location?: JsonErrorLocation;
    };

function failed(reason: JsonParseReason, message: Message, location?: JsonErrorLocation): JsonParseResult {
  return { ok: false, reason, message, detail: renderMessage(message), ...(location ? { location } : {}) };
}

const tooDeep = (): JsonParseResult => failed('too-deep', { key: 'json.too-deep', params: { max: MAX_JSON_DEPTH } });

export function parseJsonBody(body: Buffer): JsonParseResult {
  if (body.length >= LARGE_BODY_BYTES) {
    const fast = parseLargeBody(body);
    if (fast) return fast;
  }
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return failed('empty', { key: 'json.empty' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const location = locateJsonError(text);
    const message = (err as Error).message;
    return location
      ? failed('syntax', { key: 'json.syntax-at', params: { ...location, message } }, location)
      : failed('syntax', { key: 'json.syntax', params: { message } });
  }
  const depth = sanitize(value, MAX_JSON_DEPTH);
  if (depth > MAX_JSON_DEPTH) return tooDeep();
  return { ok: true, value };
}

/** Bodies from this size on try the large-body road. */
const LARGE_BODY_BYTES = 64 * 1024;
/** String values from this many bytes on are cut out and decoded on their own. */
const LARGE_STRING_BYTES = 4 * 1024;
/** More string literals than this: not a body of a few large values; plain road. */
const MAX_SCANNED_STRINGS = 10_000;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
/** Stands in for a cut-out string: a NUL, a per-process random id, the index.
 *  A sender cannot guess the id, so no genuine value is mistaken for one. */
const CUT_MARKER = `\\u0000${randomUUID()}:`;
/** The marker as a decoded string (exported for the test that feeds it back in). */
export const CUT_MARKER_VALUE = JSON.parse(`"${CUT_MARKER}"`) as string;

function isJsonWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Whether any byte in [start, end) is below 0x20 (not allowed raw in a JSON string). */
function hasControlByte(buf: Buffer, start: number, end: number): boolean {
  let i = start;
  while (i < end && ((buf.byteOffset + i) & 3) !== 0) {
    if (buf[i] < 0x20) return true;
    i++;
  }
  const words = (end - i) >> 2;
  if (words > 0) {
    // Four bytes at a time: a byte below 0x20 borrows when 0x20 is taken from
    // it, and only such a byte sets its top bit that way (bytes >= 0x80 masked out).
    const view = new Int32Array(buf.buffer, buf.byteOffset + i, words);
    let k = 0;
    for (; k + 4 <= words; k += 4) {
      const a = view[k];
      const b = view[k + 1];
      const c = view[k + 2];
      const d = view[k + 3];
      if ((((a - 0x20202020) & ~a) | ((b - 0x20202020) & ~b) | ((c - 0x20202020) & ~c) | ((d - 0x20202020) & ~d)) & 0x80808080) return true;
    }
    for (; k < words; k++) {
      const w = view[k];
      if (((w - 0x20202020) & ~w & 0x80808080) !== 0) return true;
    }
    i += words * 4;
  }
  for (; i < end; i++) if (buf[i] < 0x20) return true;
  return false;
}

/**
 * The large-body road: undefined whenever the plain road must decide (no long
 * strings, a long key, any syntax error, too many strings), else exactly what
 * the plain road returns. A long string with anything unusual (a raw control
 * byte, an escape decodeEscapedString leaves to JSON.parse) stays in the
 * remainder, where JSON.parse judges it. Exported for the tests that show
 * which road a body takes.
 *
 * Why the value is the same: outside a string every `"` opens one and inside
 * the first `"` not escaped by an odd run of backslashes closes it, so the
 * literals found here are the JSON tokenizer's. A long literal without
 * backslashes or control bytes is valid string content whose value is its
 * UTF-8 text (its ends are ASCII quotes, so decoding it alone gives the same
 * characters as decoding the whole body); one with escapes is decoded by
 * JSON's rules. Replacing a valid string token by another keeps a document
 * valid or invalid alike.
 */
export function parseLargeBody(body: Buffer): JsonParseResult | undefined {
  const cuts: number[] = [];
  // Per cut: its decoded value when it held escapes, else undefined (decoded when placed).
  const decoded: Array<string | undefined> = [];
  let pos = 0;
  let strings = 0;
  for (;;) {
    const open = body.indexOf(QUOTE, pos);
    if (open < 0) break;
    if (++strings > MAX_SCANNED_STRINGS) return undefined;
    let close = open + 1;
    for (;;) {
      close = body.indexOf(QUOTE, close);
      if (close < 0) return undefined;
      let backslashes = 0;
      while (body[close - 1 - backslashes] === BACKSLASH) backslashes++;
      if ((backslashes & 1) === 0) break;
      close++;
    }
    const start = open + 1;
    if (close - start >= LARGE_STRING_BYTES) {
      let next = close + 1;
      while (isJsonWhitespace(body[next])) next++;
      if (body[next] === COLON) return undefined;
      if (body.subarray(start, close).indexOf(BACKSLASH) < 0) {
        if (!hasControlByte(body, start, close)) {
          cuts.push(start, close);
          decoded.push(undefined);
        }
      } else {
        const value = decodeEscapedString(body, start, close);
        if (value !== undefined) {
          cuts.push(start, close);
          decoded.push(value);
        }
      }
    }
    pos = close + 1;
  }
  if (cuts.length === 0) return undefined;

  const pieces: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < cuts.length; i += 2) {
    pieces.push(body.subarray(from, cuts[i]), Buffer.from(`${CUT_MARKER}${i >> 1}`, 'latin1'));
    from = cuts[i + 1];
  }
  pieces.push(body.subarray(from));
  let text = Buffer.concat(pieces).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }

  const count = cuts.length >> 1;
  const seen = new Uint8Array(count);
  let placed = 0;
  // A string that looks like a marker but is not one of ours in place (a
  // second copy, an index out of range) means the body itself holds the
  // marker text: the walk cannot tell which copy is real, so the plain road decides.
  let forged = false;
  const restore = (item: string): string | undefined => {
    if (!item.startsWith(CUT_MARKER_VALUE)) return undefined;
    const suffix = item.slice(CUT_MARKER_VALUE.length);
    const index = /^\d{1,6}$/.test(suffix) ? Number(suffix) : -1;
    if (index < 0 || index >= count || seen[index]) {
      forged = true;
      return undefined;
    }
    seen[index] = 1;
    placed++;
    return decoded[index] ?? body.toString('utf8', cuts[2 * index], cuts[2 * index + 1]);
  };
  if (typeof value === 'string') {
    const whole = restore(value);
    return whole === undefined || placed !== count ? undefined : { ok: true, value: whole };
  }
  const depth = sanitize(value, MAX_JSON_DEPTH, restore);
  if (depth > MAX_JSON_DEPTH) return tooDeep();
  return placed === count && !forged ? { ok: true, value } : undefined;
}

/**
 * Removes own `__proto__` properties (JSON.parse makes them plain data, but
 * code that later copies with `Object.assign` or `obj[key] = …` would change a
 * prototype) and measures depth. Stops as soon as depth passes `limit`.
 * Returns the depth reached. Iterative: no recursion on hostile input.
 */
function sanitize(root: unknown, limit: number, restore?: (item: string) => string | undefined): number {
  if (root === null || typeof root !== 'object') return 0;
  const stack: Array<[object, number]> = [[root, 1]];
  let deepest = 1;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > limit) return deepest;
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (item !== null && typeof item === 'object') stack.push([item, depth + 1]);
        else if (restore && typeof item === 'string') {
          const restored = restore(item);
          if (restored !== undefined) node[i] = restored;
        }
      }
      continue;
    }
    if (Object.prototype.hasOwnProperty.call(node, '__proto__')) delete (node as Record<string, unknown>)['__proto__'];
    for (const key in node) {
      const item = (node as Record<string, unknown>)[key];
      if (item !== null && typeof item === 'object') stack.push([item, depth + 1]);
      else if (restore && typeof item === 'string') {
        const restored = restore(item);
        if (restored !== undefined) (node as Record<string, unknown>)[key] = restored;
      }
    }
  }
  return deepest;
}

/** Position of the first JSON syntax error in `text`, or undefined if none is found. */
export function locateJsonError(text: string): JsonErrorLocation | undefined {
  const position = firstErrorOffset(text);
  if (position === undefined) return undefined;
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < position; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { position, line, column: position - lineStart + 1 };
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** A strict RFC 8259 scanner that only finds where input stops being JSON. */
function firstErrorOffset(text: string): number | undefined {
  let i = 0;
  const n = text.length;
  const skipWs = (): void => {
    while (i < n && WS.has(text.charCodeAt(i))) i++;
  };
  // Containers still open: '{' or '['; and what the scanner expects next.
  const open: string[] = [];
  type Expect = 'value' | 'key' | 'colon' | 'commaOrEnd' | 'done';
  let expect: Expect = 'value';
  const scanString = (): boolean => {
    i++; // opening quote
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            i++;
            return false;
          }
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) {
          i += 2;
        } else {
          i++;
          return false;
        }
        continue;
      }
      i++;
    }
    return false;
  };
  const afterValue = (): Expect => (open.length === 0 ? 'done' : 'commaOrEnd');
  while (true) {
    skipWs();
    if (expect === 'done') return i < n ? i : undefined;
    if (i >= n) return i;
    const ch = text[i];
    switch (expect) {
      case 'value':
        if (ch === '{') {
          open.push('{');
          i++;
          skipWs();
          if (text[i] === '}') {
            open.pop();
            i++;
            expect = afterValue();
          } else expect = 'key';
        } else if (ch === '[') {
          open.push('[');
          i++;
          skipWs();
          if (text[i] === ']') {
            open.pop();
            i++;
            expect = afterValue();
          } else expect = 'value';
        } else if (ch === '"') {
          if (!scanString()) return i;
          expect = afterValue();
        } else {
          const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
          if (!m) return i;
          i += m[0].length;
          expect = afterValue();
        }
        break;
      case 'key':
        if (ch !== '"' || !scanString()) return i;
        expect = 'colon';
        break;
      case 'colon':
        if (ch !== ':') return i;
        i++;
        expect = 'value';
        break;
      case 'commaOrEnd': {
        const top = open[open.length - 1];
        if (ch === ',') {
          i++;
          expect = top === '{' ? 'key' : 'value';
        } else if ((top === '{' && ch === '}') || (top === '[' && ch === ']')) {
          open.pop();
          i++;
          expect = afterValue();
        } else return i;
        break;
      }
    }
  }
}
