'use strict';
/** lib/http/content-type.ts: which Content-Types carry JSON, and why a request cannot be JSON as sent. */
const assert = require('node:assert/strict');
const { isJsonContentType, jsonRequestProblem } = require('../../../dist/lib/http/content-type');

describe('lib/http/content-type', () => {
  it('isJsonContentType: application/json, application/*+json and text/json, parameters and case allowed', () => {
    for (const yes of [
      'application/json',
      'Application/JSON; charset=utf-8',
      'application/problem+json',
      'application/vnd.api+json',
      'text/json',
      ['application/json', 'text/plain'],
    ]) {
      assert.equal(isJsonContentType(yes), true, String(yes));
    }
    for (const no of [undefined, '', 'text/plain', 'application/jsonx', 'application/x-json-stream', 'multipart/form-data', ['text/plain']]) {
      assert.equal(isJsonContentType(no), false, String(no));
    }
  });

  it('jsonRequestProblem: none for no Content-Type, JSON or text/plain in UTF-8, uncompressed', () => {
    for (const headers of [
      {},
      { 'content-type': 'application/json' },
      { 'content-type': 'text/plain; charset=utf-8' },
      { 'content-type': 'application/json; charset="UTF-8"' },
      { 'content-type': 'application/json', 'content-encoding': 'identity' },
    ]) {
      assert.equal(jsonRequestProblem(headers), null, JSON.stringify(headers));
    }
  });

  it('jsonRequestProblem: names the encoding, the type or the charset that is not', () => {
    assert.deepEqual(jsonRequestProblem({ 'content-encoding': 'gzip', 'content-type': 'application/json' }), {
      key: 'answer.encoding',
      params: { encoding: 'gzip' },
    });
    assert.deepEqual(jsonRequestProblem({ 'content-type': 'application/xml' }), { key: 'answer.content-type', params: { type: 'application/xml' } });
    assert.deepEqual(jsonRequestProblem({ 'content-type': 'application/json; charset=latin1' }), {
      key: 'answer.charset',
      params: { charset: 'latin1' },
    });
  });
});
