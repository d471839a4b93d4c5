'use strict';
/**
 * The large-body road of parseJsonBody (bodies of 64 KiB or more with long
 * string values) must give exactly what JSON.parse gives, and keep every
 * guard of the plain road.
 */
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { parseJsonBody, locateJsonError, CUT_MARKER_VALUE } = require('../../../dist/lib/http/json');
const ev = require('../../fixtures/events');

const big = (n, ch = 'A') => ch.repeat(n);

describe('lib/http/json: large bodies', () => {
  it('parses a 1 MB plate event to exactly what JSON.parse gives', () => {
    const text = JSON.stringify(ev.bigLpr(1024 * 1024));
    const result = parseJsonBody(Buffer.from(text));
    assert.equal(result.ok, true);
    assert.deepEqual(result.value, JSON.parse(text));
  });

  it('keeps multi-byte UTF-8, escapes and short strings exact', () => {
    const value = {
      a: `${big(70000)}é€😀${big(5000, 'ß')}`,
      b: `${big(10000)}"quoted"\\slash\n${big(10000)}`, // escapes: this one takes the plain road
      c: ['short', big(8000, 'x'), { d: big(9000, 'ü') }],
      e: 'ok',
    };
    const text = JSON.stringify(value);
    assert.deepEqual(parseJsonBody(Buffer.from(text)).value, value);
    const spaced = JSON.stringify(value, null, 2);
    assert.deepEqual(parseJsonBody(Buffer.from(spaced)).value, value);
  });

  it('treats a long key like the plain road does', () => {
    const value = { [big(5000, 'k')]: big(70000) };
    assert.deepEqual(parseJsonBody(Buffer.from(JSON.stringify(value))).value, value);
  });

  it('still removes __proto__ keys and refuses deep nesting', () => {
    const text = `{"__proto__":{"polluted":1},"a":"${big(70000)}","b":{"__proto__":{"x":1}}}`;
    const result = parseJsonBody(Buffer.from(text));
    assert.equal(result.ok, true);
    assert.equal(Object.prototype.hasOwnProperty.call(result.value, '__proto__'), false);
    assert.equal(Object.prototype.hasOwnProperty.call(result.value.b, '__proto__'), false);
    assert.equal(result.value.a.length, 70000);
    const deep = `{"img":"${big(70000)}","x":${'['.repeat(100)}${']'.repeat(100)}}`;
    assert.equal(parseJsonBody(Buffer.from(deep)).reason, 'too-deep');
  });

  it('reports syntax errors where they are, before, inside and after long strings', () => {
    const cases = [
      `{"a" "${big(70000)}"}`, // before
      `{"a":"${big(70000)}" "b":1}`, // after
      `{"a":"${big(70000)}","b":tru}`,
      `{"a":"${big(35000)}\u0001${big(35000)}"}`, // a raw control byte inside
      `{"a":"${big(70000)}`, // unterminated
      `{"a":"${big(70000)}"}}`,
    ];
    for (const text of cases) {
      assert.throws(() => JSON.parse(text));
      const result = parseJsonBody(Buffer.from(text));
      assert.equal(result.ok, false, text.slice(0, 20));
      assert.equal(result.reason, 'syntax');
      assert.deepEqual(result.location, locateJsonError(text));
    }
  });

  it('cannot be fooled by a value equal to its internal marker', () => {
    // the process's real marker, as a sender could only guess it: the body's own strings
    // that look like cut references stay strings
    const fake = `${CUT_MARKER_VALUE}0`;
    const value = { a: big(70000), b: fake, c: [fake, `${CUT_MARKER_VALUE}1`], d: big(70000, 'b') };
    const result = parseJsonBody(Buffer.from(JSON.stringify(value)));
    assert.deepEqual(result.value, value);
    // a copy placed before the long string it names, alone: met first by the walk
    for (const first of [
      { b: `${CUT_MARKER_VALUE}0`, a: big(70000) },
      { b: [`${CUT_MARKER_VALUE}0`], a: big(70000) },
      { a: big(70000), b: `${CUT_MARKER_VALUE}0` },
    ]) {
      const text = JSON.stringify(first);
      assert.deepEqual(parseJsonBody(Buffer.from(text)).value, JSON.parse(text));
    }
  });

  it('draws its marker anew in each process, so a sender cannot know it', () => {
    const module = path.join(__dirname, '..', '..', '..', 'dist', 'lib', 'http', 'json');
    const markerOfAProcess = () =>
      JSON.parse(execFileSync(process.execPath, ['-e', `process.stdout.write(JSON.stringify(require(${JSON.stringify(module)}).CUT_MARKER_VALUE))`]));
    const markers = [CUT_MARKER_VALUE, markerOfAProcess(), markerOfAProcess()];
    assert.equal(new Set(markers).size, 3, 'three processes, three markers');
    for (const marker of markers) {
      assert.equal(marker[0], '\u0000', 'a NUL first: no text a sender means to send starts so');
      assert.match(marker.slice(1), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}:$/, 'then a random (v4) UUID');
    }
  });

  it('parses a top-level long string and arrays of them', () => {
    for (const value of [big(70000), [big(70000), big(70000, 'b')], { list: Array.from({ length: 20 }, (_, i) => big(5000, String(i % 10))) }]) {
      assert.deepEqual(parseJsonBody(Buffer.from(JSON.stringify(value))).value, value);
    }
  });
});
