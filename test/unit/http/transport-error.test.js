'use strict';
/** lib/http/transport-error.ts: the one error of lib's outgoing calls: a stable code, whether to retry, and its text's parameters. */
const assert = require('node:assert/strict');
const { TransportError, isRetryableStatus, callParams, statusText, bodyExcerpt, answerParams } = require('../../../dist/lib/http/transport-error');

describe('lib/http/transport-error', () => {
  it('code from service and reason; key with its variant; message the en-US text', () => {
    const err = new TransportError('platform', 'timeout', { method: 'GET', url: 'https://core/api', seconds: 2.5 });
    assert.equal(err.name, 'TransportError');
    assert.equal(err.code, 'ERR_PLATFORM_TIMEOUT');
    assert.equal(err.key, 'transport.platform.timeout');
    assert.equal(err.message, 'GET https://core/api timed out after 2.5 s');
    assert.equal(err.url, 'https://core/api');
    assert.equal(new TransportError('platform', 'token-fields', {}).code, 'ERR_PLATFORM_TOKEN_FIELDS');
    assert.equal(new TransportError('push', 'closed', {}, { variant: 'unsent' }).key, 'transport.push.closed-unsent');
    assert.equal(new TransportError('push', 'closed', {}).url, undefined);
  });

  it('retryable by default: network, timeout, and a status or login answered 408, 429 or 5xx', () => {
    const retry = (reason, status) => new TransportError('platform', reason, {}, { status }).retryable;
    assert.equal(retry('network'), true);
    assert.equal(retry('timeout'), true);
    assert.equal(retry('status', 503), true);
    assert.equal(retry('login', 429), true);
    assert.equal(retry('status', 400), false);
    assert.equal(retry('status'), false);
    assert.equal(retry('certificate'), false);
    assert.equal(retry('too-large'), false);
    assert.equal(new TransportError('platform', 'network', {}, { retryable: false }).retryable, false, 'told otherwise');
    for (const s of [408, 429, 500, 599]) assert.equal(isRetryableStatus(s), true, String(s));
    for (const s of [200, 400, 401, 404, 600]) assert.equal(isRetryableStatus(s), false, String(s));
  });

  it('callParams: the bridge texts say GET themselves', () => {
    assert.deepEqual(callParams('bridge', 'GET', 'u'), { url: 'u' });
    assert.deepEqual(callParams('platform', 'POST', 'u'), { method: 'POST', url: 'u' });
  });

  it('bodyExcerpt: one line, secrets blanked, cut at max; answerParams around it', () => {
    assert.equal(bodyExcerpt({ error: 'bad\n  token abc123' }, ['abc123']), '{"error":"bad\\n token ***"}');
    assert.equal(bodyExcerpt('a\n\n b   c'), 'a b c');
    assert.equal(bodyExcerpt(Buffer.from('buf')), 'buf');
    assert.equal(bodyExcerpt('x'.repeat(10), [], 4), 'xxxx…');
    assert.equal(bodyExcerpt('pw is ab', ['ab']), 'pw is ab', 'a secret under 3 characters is not searched for');
    for (const none of [undefined, null, '']) assert.equal(bodyExcerpt(none), '');
    const circular = {};
    circular.self = circular;
    assert.equal(bodyExcerpt(circular), '[object Object]');
    assert.equal(statusText(502), 'Bad Gateway');
    assert.equal(statusText(799), 'unexpected status');
    assert.deepEqual(answerParams(404, 'gone'), { status: 404, statusText: 'Not Found', excerpt: ': gone' });
    assert.deepEqual(answerParams(500, ''), { status: 500, statusText: 'Internal Server Error', excerpt: '' });
  });
});
