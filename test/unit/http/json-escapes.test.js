'use strict';
/**
 * Escaped long strings on the large-body road of parseJsonBody (issue 29):
 * System.Text.Json writes every `+` of base64 as `\u002B`, other writers `/`
 * as `\/`. Each case is compared with JSON.parse on the same bytes: the same
 * value, or both refuse. JSONTestSuite-style cases, then a seeded fuzz.
 */
const assert = require('node:assert/strict');
const { parseJsonBody, parseLargeBody, decodeEscapedString, locateJsonError } = require('../../../dist/lib/http/json');

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const base64 = (n, seed = 0) => Array.from({ length: n }, (_, i) => B64[(i * 7 + seed) % 64]).join('');
/** A body of 64 KiB or more (the large-body road) whose string `a` is `content` (JSON text, as sent). */
const bodyWith = (content) => Buffer.from(`{"id":"e1","a":"${content}","pad":"${base64(70000)}","n":[1,2]}`, 'utf8');

/** parseJsonBody gives JSON.parse's value for `buf`, or both refuse (and at the same place). */
function sameAsJsonParse(buf, what) {
  const text = buf.toString('utf8');
  let expected;
  let threw = false;
  try {
    expected = JSON.parse(text);
  } catch {
    threw = true;
  }
  const result = parseJsonBody(buf);
  if (threw) {
    assert.equal(result.ok, false, `${what}: JSON.parse refuses it, so must parseJsonBody`);
    assert.equal(result.reason, 'syntax', what);
    assert.deepEqual(result.location, locateJsonError(text), what);
  } else {
    assert.equal(result.ok, true, `${what}: JSON.parse accepts it`);
    assert.deepStrictEqual(result.value, expected, what);
  }
  return !threw;
}

const run = base64(5000, 3);

describe('lib/http/json: escaped long strings', () => {
  const cases = {
    'each simple escape': String.raw`\" \\ \/ \b \f \n \r \t`,
    '\\u in upper and lower hex': String.raw`\u002B\u002b\u00E9\u00e9\uABCD\uabcd\uFFFF`,
    '\\u0000 and other control characters escaped': String.raw`\u0000\u0001\u001F\u007F`,
    'non-ASCII BMP escaped (2 and 3 UTF-8 bytes)': String.raw`\u00FF\u0100\u07FF\u0800\u20AC\uD7FF\uE000\uFFFD`,
    'a surrogate pair': String.raw`\uD83D\uDE00\udbff\udfff\uD800\uDC00`,
    'a lone high surrogate': String.raw`\uD83D`,
    'a lone high surrogate then text': String.raw`\uD83Dabc`,
    'a lone low surrogate': String.raw`\uDE00`,
    'a high surrogate then a non-surrogate escape': String.raw`\uD83D\u0041`,
    'two high surrogates': String.raw`\uD83D\uD83D\uDE00`,
    'a high surrogate then an escaped newline': String.raw`\uD83D\n`,
    'an escaped backslash before a quote': String.raw`\\" , "x":"`, // the `"` ends the string: its value stops there
    'escaped backslashes before a u': String.raw`\\u002B\\\u002B`,
    '\\u truncated': String.raw`\u12`,
    '\\u with a non-hex digit': String.raw`\u12G4`,
    '\\U (capital)': String.raw`\U002B`,
    'an invalid escape \\x': String.raw`\x41`,
    "an invalid escape \\'": String.raw`\'`,
    'an invalid escape \\0': String.raw`\0`,
    'a raw tab': '\t',
    'a raw newline': '\n',
    'a raw NUL': '\u0000',
    'a raw DEL (allowed)': '\u007f',
    'multibyte UTF-8 next to escapes': String.raw`é\u002B€\/😀\u00E9ß\nü`,
    'raw non-characters and a raw surrogate pair': '\uFFFE\uFFFF😀',
  };
  for (const [name, content] of Object.entries(cases)) {
    for (const [where, text] of [
      ['inside', `${run}${content}${run}`],
      ['at the start', `${content}${run}`],
      ['at the end', `${run}${content}`],
    ]) {
      it(`${name}, ${where} of a long string: same as JSON.parse`, () => {
        sameAsJsonParse(bodyWith(text), `${name} ${where}`);
      });
    }
  }

  it('a string that ends in an escape, and one that is nothing but escapes', () => {
    sameAsJsonParse(bodyWith(`${run}\\u002B`), 'ends in \\u002B');
    sameAsJsonParse(bodyWith(`${run}\\\\`), 'ends in \\\\');
    sameAsJsonParse(bodyWith(`${run}\\"`), 'ends in \\"');
    sameAsJsonParse(bodyWith('\\u002B'.repeat(2000)), 'only escapes');
    sameAsJsonParse(bodyWith('\\/'.repeat(3000)), 'only \\/');
  });

  it('an escape cut off by the closing quote, and a backslash escaping the quote', () => {
    for (const tail of ['\\u', '\\u0', '\\u00', '\\u002', '\\']) sameAsJsonParse(bodyWith(`${run}${tail}`), `ends in ${tail}`);
  });

  it('invalid UTF-8 bytes next to escapes: what JSON.parse gives after decoding the whole body', () => {
    const pieces = [
      [0xff],
      [0xc0, 0x80], // overlong NUL
      [0xe2, 0x82], // a cut three-byte sequence
      [0xf0, 0x9f, 0x98], // a cut four-byte sequence
      [0xed, 0xa0, 0x80], // a surrogate written as UTF-8
      [0x80, 0x80], // stray continuation bytes
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
    ];
    for (const bytes of pieces) {
      for (const escape of ['\\u002B', '\\u00E9', '\\u20AC', '\\uD83D\\uDE00', '\\/', '\\n']) {
        for (const content of [
          Buffer.concat([Buffer.from(run), Buffer.from(bytes), Buffer.from(escape), Buffer.from(run)]),
          Buffer.concat([Buffer.from(run), Buffer.from(escape), Buffer.from(bytes), Buffer.from(run)]),
          Buffer.concat([Buffer.from(escape), Buffer.from(bytes)]),
        ]) {
          const buf = Buffer.concat([Buffer.from('{"a":"'), content, Buffer.from(`","pad":"${base64(70000)}"}`)]);
          sameAsJsonParse(buf, `bytes ${bytes} with ${escape}`);
        }
      }
    }
  });

  it('System.Text.Json and \\/-escaped plate images take the large-body road, decoded from the bytes', () => {
    const images = [`IMG0${base64(300000, 1)}`, `IMG1${base64(200000, 2)}`, `IMG2${base64(90000, 5)}é€😀`];
    const event = { messageId: 'm1', images: images.map((image) => ({ image })) };
    const stj = JSON.stringify(event)
      .replace(/\+/g, '\\u002B')
      .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
    const slash = JSON.stringify(event).replaceAll('/', '\\/');
    for (const text of [stj, slash]) {
      const buf = Buffer.from(text);
      assert.ok(buf.includes('\\'), 'the body holds escapes');
      // The road itself answers (undefined would mean the plain road decides)...
      const fast = parseLargeBody(buf);
      assert.ok(fast, 'the large-body road parses it');
      assert.deepStrictEqual(fast.value, JSON.parse(text));
      // ...and it is the escaped strings that were decoded from the bytes: each long literal alone.
      images.forEach((image, k) => {
        const start = buf.indexOf(`"IMG${k}`) + 1;
        const end = buf.indexOf('"', start);
        assert.ok(decodeEscapedString(buf, start, end) === image, `image ${k} decoded from the bytes`);
      });
      assert.deepStrictEqual(parseJsonBody(buf).value, event);
    }
  });

  it('leaves to JSON.parse what it cannot reproduce: the plain road decides', () => {
    // \u00XX has a road of its own in the decoder: a bad first or second digit there too.
    for (const content of ['\\uD800', '\\uDC00', '\\x', '\\u12', '\u0001', '\\u00G0', '\\u002G', '\\u00+B', '\\u00 1']) {
      const text = `${run}${content}${run}`;
      const buf = bodyWith(text);
      const start = buf.indexOf(run);
      assert.equal(decodeEscapedString(buf, start, start + Buffer.byteLength(text)), undefined, content);
      // The body's only long string stays in the remainder: the road has nothing to cut.
      const only = Buffer.from(`{"a":"${text}"}`.padEnd(70000, ' '));
      assert.equal(parseLargeBody(only), undefined, content);
      sameAsJsonParse(only, content);
    }
  });

  it('a seeded fuzz of escaped long strings: the same as JSON.parse, body by body', () => {
    // mulberry32: a deterministic PRNG, so a failure is reproduced by its body number.
    let seed = 0x29;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = seed;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = (list) => list[Math.floor(random() * list.length)];
    const common = [
      '\\u002B',
      '\\u002b',
      '\\/',
      '\\\\',
      '\\"',
      '\\n',
      '\\r',
      '\\t',
      '\\b',
      '\\f',
      '\\u0000',
      '\\u00E9',
      '\\u20ac',
      '\\uD83D\\uDE00',
      '\\u0022',
    ];
    const raw = ['é', '€', '😀', 'ß', '\u007f'];
    const rare = ['\\uD800', '\\uDFFF', '\\x', "\\'", '\\u12', '\\u00G0', '\\u002G', '\u0001', '\t', Buffer.from([0xff]), Buffer.from([0xe2, 0x82])];
    const pad = base64(60000, 9);
    let accepted = 0;
    let refused = 0;
    let bodies = 0;
    for (let n = 0; n < 2500; n++) {
      const strings = [];
      for (let s = 1 + Math.floor(random() * 3); s > 0; s--) {
        const parts = [];
        let bytes = 0;
        const length = 4096 + Math.floor(random() * 6000);
        const spacing = 1 + Math.floor(random() * 120);
        while (bytes < length) {
          const r = random();
          let part;
          if (r < 0.55) part = base64(Math.floor(random() * spacing), Math.floor(random() * 64));
          else if (r < 0.9) part = pick(common);
          else part = pick(raw);
          parts.push(Buffer.isBuffer(part) ? part : Buffer.from(part));
          bytes += parts[parts.length - 1].length;
        }
        // One body in eight gets one thing JSON.parse refuses or that the road leaves to it.
        if (random() < 0.125) parts.splice(Math.floor(random() * (parts.length + 1)), 0, Buffer.from(pick(rare)));
        strings.push(Buffer.concat(parts));
      }
      const body = Buffer.concat([
        Buffer.from(`{"messageId":"fuzz-${n}","images":[`),
        ...strings.flatMap((s, i) => [Buffer.from(i ? ',"' : '"'), s, Buffer.from('"')]),
        Buffer.from(`],"pad":"${pad}"}`),
      ]);
      if (sameAsJsonParse(body, `fuzz body ${n}`)) accepted++;
      else refused++;
      bodies++;
    }
    assert.equal(bodies, 2500);
    // Both outcomes were exercised: most bodies valid, some refused.
    assert.ok(accepted > 1000 && refused > 100, `accepted ${accepted}, refused ${refused}`);
  });
});
