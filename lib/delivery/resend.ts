/**
 * Resends: the bridge sends an event again when it got no 200 for it (a
 * crash, a failover, a slow answer). While an earlier copy of the same
 * messageId is held unfinished, the resend is absorbed: answered 200 and
 * neither kept nor emitted, because the held copy is emitted (again) and
 * finished in its place. These are the helpers every store shares.
 */

/** The messageId in a meta given at commit (the event's payload.messageId); undefined: never absorbed. */
export function messageIdOf(meta: unknown): string | undefined {
  const id = (meta as { messageId?: unknown } | null | undefined)?.messageId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/**
 * `payload.messageId` of a stored event body, as JSON.parse would answer it
 * for any body JSON.parse accepts (the last of repeated keys, escapes
 * decoded), without parsing the body: strings, images included, are skipped
 * with indexOf. Used to rebuild the index of held events when a journal is
 * opened. Undefined when there is none, it is not a non-empty string, or the
 * body is not an object.
 */
export function eventMessageId(body: Buffer): string | undefined {
  let found: string | undefined;
  let i = skipSpace(body, 0);
  if (body[i] === 0xef && body[i + 1] === 0xbb && body[i + 2] === 0xbf) i = skipSpace(body, i + 3);
  const ok = members(body, i, (key, at) => {
    if (key !== 'payload') return skipValue(body, at);
    found = undefined;
    if (body[at] !== OPEN_OBJECT) return skipValue(body, at);
    return members(body, at, (inner, valueAt) => {
      if (inner !== 'messageId') return skipValue(body, valueAt);
      const end = body[valueAt] === QUOTE ? stringEnd(body, valueAt) : -1;
      if (end < 0) {
        found = undefined;
        return skipValue(body, valueAt);
      }
      found = stringAt(body, valueAt, end);
      return end;
    });
  });
  return ok >= 0 && found !== '' ? found : undefined;
}

/** Walks the members of the object at `i` ('{'), calling `member` with each key and where its value starts; answers where the object ends, or -1. */
function members(body: Buffer, i: number, member: (key: string, valueAt: number) => number): number {
  if (body[i] !== OPEN_OBJECT) return -1;
  i = skipSpace(body, i + 1);
  if (body[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    if (body[i] !== QUOTE) return -1;
    const keyEnd = stringEnd(body, i);
    if (keyEnd < 0) return -1;
    const key = stringAt(body, i, keyEnd);
    i = skipSpace(body, keyEnd);
    if (body[i] !== COLON) return -1;
    i = member(key, skipSpace(body, i + 1));
    if (i < 0) return -1;
    i = skipSpace(body, i);
    if (body[i] === CLOSE_OBJECT) return i + 1;
    if (body[i] !== COMMA) return -1;
    i = skipSpace(body, i + 1);
  }
}

/** Where the value at `i` ends (any JSON value), or -1. */
function skipValue(body: Buffer, i: number): number {
  const first = body[i];
  if (first === QUOTE) return stringEnd(body, i);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // a number, true, false or null: up to the next delimiter
    while (i < body.length && body[i] !== COMMA && body[i] !== CLOSE_OBJECT && body[i] !== CLOSE_ARRAY && !isSpace(body[i])) i++;
    return i;
  }
  let depth = 0;
  while (i < body.length) {
    const c = body[i];
    if (c === QUOTE) {
      i = stringEnd(body, i);
      if (i < 0) return -1;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return i + 1;
    i++;
  }
  return -1;
}

/** Where the string starting at `i` ('"') ends (past its closing quote), or -1. */
function stringEnd(body: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const quote = body.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    let escapes = 0;
    while (body[quote - 1 - escapes] === BACKSLASH) escapes++;
    if (escapes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The string from `i` ('"') to `end`, decoded as JSON.parse would (JSON.parse itself when it holds an escape). */
function stringAt(body: Buffer, i: number, end: number): string {
  const slice = body.subarray(i + 1, end - 1);
  if (slice.indexOf(BACKSLASH) < 0) return slice.toString('utf8');
  try {
    return JSON.parse(body.toString('utf8', i, end)) as string;
  } catch {
    return '';
  }
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(body: Buffer, i: number): number {
  while (isSpace(body[i])) i++;
  return i;
}
