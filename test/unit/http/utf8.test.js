'use strict';
/** lib/http/utf8.ts: where a body stops being UTF-8, or -1 when it is. */
const assert = require('node:assert/strict');
const { invalidUtf8Offset } = require('../../../dist/lib/http/utf8');

const bytes = (...parts) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('lib/http/utf8', () => {
  it('-1 for valid UTF-8 of every length of sequence', () => {
    for (const text of ['', 'plain ASCII', 'Grüße', '株式会社', 'plate 🚗 seen', '\u{10ffff}']) {
      assert.equal(invalidUtf8Offset(Buffer.from(text, 'utf8')), -1, text);
    }
  });

  it('the offset of the first byte that is not part of a valid sequence', () => {
    assert.equal(invalidUtf8Offset(bytes('ab', [0xff], 'c')), 2, 'a byte that never starts a sequence');
    assert.equal(invalidUtf8Offset(bytes('ab', [0x80])), 2, 'a lone continuation byte');
    assert.equal(invalidUtf8Offset(bytes('Grü', [0xc3])), 4, 'a sequence cut off at the end');
    assert.equal(invalidUtf8Offset(bytes('x', [0xe6, 0xa0, 0x41])), 1, 'a sequence broken in the middle');
    assert.equal(invalidUtf8Offset(bytes([0xc0, 0xaf])), 0, 'an overlong form');
    assert.equal(invalidUtf8Offset(bytes([0xe0, 0x80, 0xaf])), 0, 'an overlong three-byte form');
    assert.equal(invalidUtf8Offset(bytes('ok', [0xed, 0xa0, 0x80])), 2, 'a surrogate');
    assert.equal(invalidUtf8Offset(bytes([0xf4, 0x90, 0x80, 0x80])), 0, 'past U+10FFFF');
  });

  it('finds the damage that decoding would hide behind U+FFFD', () => {
    const body = bytes('{"plate":"AB', [0xe2, 0x82], '"}');
    const offset = invalidUtf8Offset(body);
    assert.equal(offset, '{"plate":"AB'.length);
    assert.ok(body.toString('utf8').includes('\ufffd'), 'Node would have put U+FFFD there');
  });
});
