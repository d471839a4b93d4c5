'use strict';
const assert = require('node:assert/strict');
const {
  checkAuth,
  authConfigProblem: configProblem,
  authFailureMessage,
  safeEqual,
  credentialHeaderNames,
} = require('../../../dist/lib/receiver/auth');
const { renderMessage } = require('../../../dist/lib/core/messages');

/** The problem as text (en-US), or null. */
const authConfigProblem = (config) => {
  const problem = configProblem(config);
  return problem && renderMessage(problem);
};

const basic = (user, password) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('lib/receiver/auth', () => {
  it('none lets everything through', () => {
    assert.deepEqual(checkAuth({ mode: 'none' }, {}), { ok: true });
  });

  it('basic checks user and password', () => {
    const config = { mode: 'basic', user: 'bridge', password: 'p:ss wörd' };
    assert.equal(checkAuth(config, { authorization: basic('bridge', 'p:ss wörd') }).ok, true);
    assert.equal(
      checkAuth(config, { authorization: `basic ${Buffer.from('bridge:p:ss wörd').toString('base64')}` }).ok,
      true,
      'scheme is case-insensitive',
    );
    const wrong = checkAuth(config, { authorization: basic('bridge', 'nope') });
    assert.deepEqual(wrong, { ok: false, reason: 'mismatch', wwwAuthenticate: 'Basic realm="detection-in", charset="UTF-8"' });
    assert.equal(checkAuth(config, { authorization: basic('other', 'p:ss wörd') }).ok, false);
    assert.equal(checkAuth(config, {}).reason, 'missing');
    assert.equal(checkAuth(config, { authorization: '' }).reason, 'missing');
    assert.equal(checkAuth(config, { authorization: 'Bearer p:ss wörd' }).reason, 'scheme', 'credentials of another scheme are not missing');
  });

  it('bearer checks the token', () => {
    const config = { mode: 'bearer', token: 'tok-123' };
    assert.equal(checkAuth(config, { authorization: 'Bearer tok-123' }).ok, true);
    const wrong = checkAuth(config, { authorization: 'Bearer tok-124' });
    assert.equal(wrong.ok, false);
    assert.match(wrong.wwwAuthenticate, /^Bearer realm="detection-in", error="invalid_token"$/);
    assert.equal(checkAuth(config, { authorization: 'Bearer tok-1234' }).ok, false, 'a longer token is not a match');
    assert.equal(checkAuth(config, { authorization: 'Bearer ' }).ok, false);
    const missing = checkAuth(config, {});
    assert.equal(missing.reason, 'missing');
    assert.equal(missing.wwwAuthenticate, 'Bearer realm="detection-in"');
  });

  it('header checks any header name and value', () => {
    const config = { mode: 'header', headerName: 'X-Api-Key', headerValue: 'k1' };
    assert.equal(checkAuth(config, { 'x-api-key': 'k1' }).ok, true);
    assert.equal(checkAuth(config, { 'x-api-key': 'k2' }).ok, false);
    assert.equal(checkAuth(config, { authorization: 'k1' }).reason, 'scheme', 'sent, but in Authorization');
    assert.equal(checkAuth(config, { 'x-other': 'k1' }).reason, 'missing');
    assert.equal(checkAuth(config, {}).wwwAuthenticate, undefined);
  });

  it('credentials of the wrong scheme are answered as such, with the challenge of the right one', () => {
    const bearer = { mode: 'bearer', token: 'tok-123' };
    for (const authorization of [basic('bridge', 'tok-123'), 'tok-123', 'Bearer', 'Token tok-123', 'bearer:tok-123']) {
      const result = checkAuth(bearer, { authorization });
      assert.deepEqual(result, { ok: false, reason: 'scheme', wwwAuthenticate: 'Bearer realm="detection-in"' }, authorization);
    }
    const basicConfig = { mode: 'basic', user: 'u', password: 'p' };
    assert.equal(checkAuth(basicConfig, { authorization: 'Bearer tok' }).reason, 'scheme');
    assert.match(checkAuth(basicConfig, { authorization: 'Bearer tok' }).wwwAuthenticate, /^Basic realm=/);
  });

  it('says what was expected, never what was sent', () => {
    const text = (config, reason) => renderMessage(authFailureMessage(config, reason));
    assert.match(
      text({ mode: 'bearer', token: 't' }, 'scheme'),
      /^expected a Bearer token: the Authorization header sent does not start with "Bearer "/,
    );
    assert.match(text({ mode: 'basic', user: 'u', password: 'p' }, 'scheme'), /^expected Basic credentials/);
    assert.match(
      text({ mode: 'header', headerName: 'X-Api-Key', headerValue: 'k' }, 'scheme'),
      /^expected the header X-Api-Key: credentials were sent in the Authorization header instead/,
    );
    assert.match(text({ mode: 'bearer', token: 't' }, 'missing'), /^credentials are missing/);
    assert.match(text({ mode: 'bearer', token: 't' }, 'mismatch'), /^the credentials sent do not match/);
  });

  it('says what a configuration lacks', () => {
    assert.equal(authConfigProblem({ mode: 'none' }), null);
    assert.match(authConfigProblem({ mode: 'basic', user: 'u' }), /password/);
    assert.match(authConfigProblem({ mode: 'basic', password: 'p' }), /user/);
    assert.match(authConfigProblem({ mode: 'basic', user: 'a:b', password: 'p' }), /":"/);
    assert.match(authConfigProblem({ mode: 'bearer' }), /token/);
    assert.match(authConfigProblem({ mode: 'header', headerName: 'bad header', headerValue: 'v' }), /header name/);
    assert.match(authConfigProblem({ mode: 'header', headerName: 'X-Key' }), /value/);
    assert.equal(authConfigProblem({ mode: 'header', headerName: 'X-Key', headerValue: 'v' }), null);
  });

  it('compares in constant time regardless of content and length', () => {
    assert.equal(safeEqual('abc', 'abc'), true);
    assert.equal(safeEqual('abc', 'abd'), false);
    assert.equal(safeEqual('abc', 'abcd'), false);
    assert.equal(safeEqual('', ''), true);
  });

  it('names the headers that carry credentials', () => {
    assert.deepEqual(credentialHeaderNames({ mode: 'header', headerName: 'X-Api-Key' }), [
      'authorization',
      'proxy-authorization',
      'cookie',
      'x-api-key',
    ]);
    assert.deepEqual(credentialHeaderNames({ mode: 'bearer' }), ['authorization', 'proxy-authorization', 'cookie']);
  });
});
