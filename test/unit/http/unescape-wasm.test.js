'use strict';
/**
 * The WebAssembly escape decoder (lib/http/unescape.wat): the module the
 * package ships is the compilation of its source, and its 16-byte blocks give
 * JSON.parse's value wherever an escape, a control byte or a non-ASCII byte
 * falls: in a block, across a block's edge, in the last, partial block.
 * (Whole bodies against JSON.parse: json-escapes.test.js.)
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { decodeEscapedString } = require('../../../dist/lib/http/unescape');
const { generated, TARGET } = require('../../../scripts/build-wasm');

/** What decodeEscapedString must give for literal content `bytes`: JSON.parse's
 *  value, or undefined where JSON.parse refuses or gives a lone surrogate (not
 *  UTF-8) or the raw bytes are not UTF-8. */
function expected(bytes) {
  if (!require('node:buffer').isUtf8(bytes)) return undefined;
  try {
    const value = JSON.parse(`"${bytes.toString('utf8')}"`);
    return value.isWellFormed() ? value : undefined;
  } catch {
    return undefined;
  }
}

function decodes(bytes, what) {
  // Inside a body, off any alignment.
  const body = Buffer.concat([Buffer.from('{"a":"'), bytes, Buffer.from('"}')]);
  const got = decodeEscapedString(body, 6, 6 + bytes.length);
  assert.ok(got === expected(bytes), `${what}: ${JSON.stringify(got)} !== ${JSON.stringify(expected(bytes))}`);
}

describe('lib/http/unescape: the WebAssembly escape decoder', () => {
  it('ships the compilation of lib/http/unescape.wat (npm run build:wasm after editing it)', async () => {
    const shipped = fs.readFileSync(path.join(__dirname, '../../..', TARGET), 'utf8');
    assert.equal(shipped, await generated());
  });

  it('every escape, control byte and non-ASCII byte at every place of literals up to 48 bytes', () => {
    const items = [
      '\\u002B',
      '\\/',
      '\\"',
      '\\u00E9',
      '\\u20AC',
      '\\uD83D\\uDE00',
      '\\uD800',
      '\\x',
      '\\u12G4',
      '\u0001',
      '\u001f',
      'é',
      '😀',
      '\u007f',
      Buffer.from([0xff]),
    ];
    let checked = 0;
    for (const item of items) {
      const piece = Buffer.isBuffer(item) ? item : Buffer.from(item);
      for (let length = 0; length <= 48; length++) {
        const fill = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.slice(0, length));
        for (let at = 0; at <= length; at++) {
          decodes(Buffer.concat([fill.subarray(0, at), piece, fill.subarray(at)]), `${JSON.stringify(String(item))} at ${at} of ${length}`);
          checked++;
        }
      }
    }
    assert.equal(checked, items.length * ((49 * 50) / 2));
  });

  it('a shorter literal after a longer one: bytes left past its end change nothing', () => {
    for (const stale of ['\u0001', '\\', 'é', '\\uD800']) {
      for (let length = 1; length < 40; length++) {
        const short = Buffer.from('\\/'.padEnd(length, 'x'));
        decodeEscapedString(Buffer.from(`${'y'.repeat(length)}${stale.repeat(40)}`), 0, length + 40 * Buffer.byteLength(stale));
        decodes(short, `${length} bytes after ${JSON.stringify(stale)}`);
      }
    }
  });

  it('without WebAssembly (node --jitless) escaped strings are left to JSON.parse, with the same result', () => {
    const script = `
      const { parseJsonBody, decodeEscapedString } = require(${JSON.stringify(path.join(__dirname, '../../../dist/lib/http/json'))});
      const text = JSON.stringify({ a: 'QUJD+/'.repeat(20000), n: [1, 2] }).replace(/\\+/g, '\\\\u002B');
      const body = Buffer.from(text);
      const parsed = parseJsonBody(body);
      process.stdout.write(JSON.stringify({
        wasm: typeof WebAssembly,
        decoded: decodeEscapedString(body, 6, body.indexOf('"', 6)) ?? null,
        same: parsed.ok && JSON.stringify(parsed.value) === JSON.stringify(JSON.parse(text)),
        escaped: text.includes('\\\\u002B'),
      }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--jitless', '-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    assert.deepEqual(out, { wasm: 'undefined', decoded: null, same: true, escaped: true });
  });

  it('literals larger than the kept memory, then small ones again', () => {
    const big = Buffer.from('QUJD\\u002B\\/'.repeat(300000)); // 3.3 MB: an instance of its own
    decodes(big, 'a 3.3 MB literal');
    decodes(Buffer.from('ab\\u002Bcd'), 'a small one after it');
    decodes(Buffer.from(`${'\\u002B'.repeat(200000)}é`), 'a 1.2 MB literal (the kept memory grows)');
    decodes(Buffer.from('\\/'), 'a small one after it');
  });
});
