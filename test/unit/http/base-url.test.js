'use strict';
/** lib/http/base-url.ts: a base URL as users paste it, its path prefix kept and a pasted endpoint dropped. */
const assert = require('node:assert/strict');
const { parseBaseUrl } = require('../../../dist/lib/http/base-url');

const SUFFIX = /\/api\/v2$/;
const prefixOf = (text) => {
  const parsed = parseBaseUrl(text, SUFFIX);
  assert.equal(parsed.ok, true, text);
  return parsed.base.prefix;
};

describe('lib/http/base-url', () => {
  it('keeps the path prefix without its trailing slashes', () => {
    assert.equal(prefixOf('https://host:5022'), '');
    assert.equal(prefixOf('https://host:5022/'), '');
    assert.equal(prefixOf('https://tenant/core/'), '/core');
    assert.equal(prefixOf('http://tenant/a/b//'), '/a/b');
  });

  it('drops the pasted suffix, and only at the end', () => {
    assert.equal(prefixOf('https://host/api/v2'), '');
    assert.equal(prefixOf('https://host/core/api/v2/'), '/core');
    assert.equal(prefixOf('https://host/api/v2/extra'), '/api/v2/extra');
  });

  it('keeps the user info in the parsed URL (the caller decides what it means)', () => {
    const parsed = parseBaseUrl('https://user:pw@host/core', SUFFIX);
    assert.equal(parsed.ok, true);
    assert.equal(parsed.base.url.username, 'user');
    assert.equal(parsed.base.url.password, 'pw');
  });

  it('names the problem of what is not an http(s) base URL', () => {
    assert.deepEqual(parseBaseUrl('', SUFFIX), { ok: false, problem: 'empty' });
    assert.deepEqual(parseBaseUrl('host:5022/core', SUFFIX), { ok: false, problem: 'protocol' });
    assert.deepEqual(parseBaseUrl('/core', SUFFIX), { ok: false, problem: 'not-absolute' });
    assert.deepEqual(parseBaseUrl('ftp://host/', SUFFIX), { ok: false, problem: 'protocol' });
    assert.deepEqual(parseBaseUrl('https://host/?a=1', SUFFIX), { ok: false, problem: 'query' });
    assert.deepEqual(parseBaseUrl('https://host/#top', SUFFIX), { ok: false, problem: 'query' });
  });
});
