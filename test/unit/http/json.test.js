'use strict';
const assert = require('node:assert/strict');
const { parseJsonBody, locateJsonError, MAX_JSON_DEPTH } = require('../../../dist/lib/http/json');

const parse = (text) => parseJsonBody(Buffer.from(text, 'utf8'));

describe('lib/http/json', () => {
  it('parses JSON, with or without a byte order mark', () => {
    assert.deepEqual(parse('{"a":[1,2,{"b":null}]}'), { ok: true, value: { a: [1, 2, { b: null }] } });
    assert.deepEqual(parse('\ufeff{"a":1}'), { ok: true, value: { a: 1 } });
  });

  it('refuses an empty body', () => {
    for (const text of ['', '   \n']) {
      const result = parse(text);
      assert.equal(result.ok, false);
      assert.equal(result.reason, 'empty');
    }
  });

  it('says where malformed JSON broke', () => {
    const result = parse('{\n  "a": 1,\n  "b": }');
    assert.equal(result.ok, false);
    assert.equal(result.reason, 'syntax');
    assert.deepEqual(result.location, { position: 19, line: 3, column: 8 });
    assert.match(result.detail, /line 3, column 8/);
  });

  it('locates the usual mistakes', () => {
    const cases = [
      ['{"a":1,}', 7], // trailing comma
      ["{'a':1}", 1], // single quotes
      ['{"a":1', 6], // truncated
      ['{"a":1}}', 7], // extra close
      ['{"a" 1}', 5], // missing colon
      ['[1 2]', 3], // missing comma
      ['{"a":"x\ny"}', 7], // raw newline in a string
      ['{"a":"\\q"}', 7], // bad escape: points at the q
      ['{"a":tru}', 5],
      ['{"a":01}', 6], // leading zero: 0 is a number, then 1 is unexpected
      ['nul', 0],
    ];
    for (const [text, position] of cases) {
      assert.throws(() => JSON.parse(text));
      assert.equal(locateJsonError(text)?.position, position, text);
    }
  });

  it('finds no error in valid JSON', () => {
    for (const text of ['{}', '[]', ' {"a":[1,-2.5e3,true,false,null,"\\u00e9\\n"],"b":{}} ', '"s"', '0']) {
      JSON.parse(text);
      assert.equal(locateJsonError(text), undefined, text);
    }
  });

  it('removes __proto__ keys so no prototype can be changed later', () => {
    const result = parse('{"a":{"__proto__":{"polluted":true},"b":1},"__proto__":{"polluted":true},"c":[{"__proto__":{"x":1}}]}');
    assert.equal(result.ok, true);
    const value = result.value;
    assert.equal(Object.prototype.hasOwnProperty.call(value, '__proto__'), false);
    assert.equal(Object.prototype.hasOwnProperty.call(value.a, '__proto__'), false);
    assert.equal(Object.prototype.hasOwnProperty.call(value.c[0], '__proto__'), false);
    // Naive merging of the parsed value, as flow code might do, changes nothing.
    const target = {};
    Object.assign(target, value, value.a, value.c[0]);
    assert.equal(Object.getPrototypeOf(target), Object.prototype);
    assert.equal({}.polluted, undefined);
    assert.equal(target.polluted, undefined);
  });

  it('keeps constructor keys as plain data without touching prototypes', () => {
    const result = parse('{"constructor":{"prototype":{"polluted":true}}}');
    assert.equal(result.ok, true);
    assert.deepEqual(result.value.constructor, { prototype: { polluted: true } });
    assert.equal({}.polluted, undefined);
    assert.equal(Object.prototype.polluted, undefined);
  });

  it('refuses nesting deeper than the limit, without recursion', () => {
    const deep = '['.repeat(10000) + ']'.repeat(10000);
    const result = parse(deep);
    assert.equal(result.ok, false);
    assert.equal(result.reason, 'too-deep');
    const deepObject = '{"a":'.repeat(10000) + '1' + '}'.repeat(10000);
    assert.equal(parse(deepObject).reason, 'too-deep');
    const atLimit = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    assert.equal(parse(atLimit).ok, true);
    const overLimit = '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1);
    assert.equal(parse(overLimit).ok, false);
  });
});
