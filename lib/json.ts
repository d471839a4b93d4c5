/**
 * JSON body parsing for untrusted input: V8's JSON.parse for speed, then one
 * iterative walk that removes `__proto__` keys and bounds nesting depth. When
 * parsing fails, a small scanner finds where it broke (Node 20's JSON.parse
 * messages carry no position), so the sender is told line and column.
 */

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

export type JsonParseResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'empty' | 'syntax' | 'too-deep'; detail: string; location?: JsonErrorLocation };

export function parseJsonBody(body: Buffer): JsonParseResult {
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return { ok: false, reason: 'empty', detail: 'the request body is empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const location = locateJsonError(text);
    const where = location ? ` at line ${location.line}, column ${location.column} (offset ${location.position})` : '';
    return { ok: false, reason: 'syntax', detail: `the body is not valid JSON${where}: ${(err as Error).message}`, location };
  }
  const depth = sanitize(value, MAX_JSON_DEPTH);
  if (depth > MAX_JSON_DEPTH) {
    return { ok: false, reason: 'too-deep', detail: `the body nests deeper than ${MAX_JSON_DEPTH} levels` };
  }
  return { ok: true, value };
}

/**
 * Removes own `__proto__` properties (JSON.parse makes them plain data, but
 * code that later copies with `Object.assign` or `obj[key] = …` would change a
 * prototype) and measures depth. Stops as soon as depth passes `limit`.
 * Returns the depth reached. Iterative: no recursion on hostile input.
 */
function sanitize(root: unknown, limit: number): number {
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
      for (const item of node) if (item !== null && typeof item === 'object') stack.push([item, depth + 1]);
      continue;
    }
    if (Object.prototype.hasOwnProperty.call(node, '__proto__')) delete (node as Record<string, unknown>)['__proto__'];
    for (const key in node) {
      const item = (node as Record<string, unknown>)[key];
      if (item !== null && typeof item === 'object') stack.push([item, depth + 1]);
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
