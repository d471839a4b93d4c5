'use strict';
/** lib/http/net-errors.ts: telling outgoing-call failures apart, each a TransportError in words, and which may be retried. */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {
  errorCode,
  redactUserInfo,
  networkDetail,
  failureOf,
  isRetryableError,
  NETWORK_CODES,
  TIMEOUT_CODES,
} = require('../../../dist/lib/http/net-errors');
const { TransportError } = require('../../../dist/lib/http/transport-error');
const { ROOT } = require('../../support');

const coded = (code, message = `failed ${code}`) => Object.assign(new Error(message), { code });
/** undici wraps socket errors: the code is on the cause. */
const wrapped = (code) => Object.assign(new TypeError('fetch failed'), { cause: coded(code) });
const call = (o = {}) => ({
  service: 'platform',
  method: 'GET',
  url: 'https://core.example/api/v2/x',
  timeoutMs: 2500,
  timedOut: false,
  cancelled: false,
  ...o,
});
const catalog = JSON.parse(fs.readFileSync(path.join(ROOT, 'locales', 'en-US', 'shared.json'), 'utf8'));

describe('lib/http/net-errors', () => {
  it('errorCode: the first code along the cause chain', () => {
    assert.equal(errorCode(coded('ECONNRESET')), 'ECONNRESET');
    assert.equal(errorCode(wrapped('ENOTFOUND')), 'ENOTFOUND');
    assert.equal(errorCode(new Error('no code')), undefined);
    assert.equal(errorCode(undefined), undefined);
  });

  it('redactUserInfo hides user and password, even where the text is not a URL', () => {
    assert.equal(redactUserInfo('connect to https://me:secret@host:5022/api failed'), 'connect to https://host:5022/api failed');
    assert.equal(redactUserInfo('https://host/a@b'), 'https://host/a@b', 'an @ in the path is not user info');
  });

  it('networkDetail: worded codes as catalog keys the catalog has; others as Node said, redacted', () => {
    for (const code of [...NETWORK_CODES].filter((c) => !TIMEOUT_CODES.has(c))) {
      const detail = networkDetail(wrapped(code));
      assert.deepEqual(detail, { key: `transport.net.${code}`, params: { code } });
      assert.equal(typeof catalog.transport.net[code], 'string', code);
    }
    assert.deepEqual(networkDetail(coded('EWEIRD', 'odd at https://u:p@h/')), {
      key: 'transport.net.other',
      params: { message: 'odd at https://h/', code: 'EWEIRD' },
    });
    assert.equal(networkDetail(new Error('plain')), 'plain');
  });

  it('failureOf: timeout, aborted, certificate, closed or network; a TransportError unchanged', () => {
    assert.equal(failureOf(new Error('x'), call({ timedOut: true })).reason, 'timeout');
    assert.equal(failureOf(wrapped('UND_ERR_HEADERS_TIMEOUT'), call()).params.seconds, 2.5);
    assert.equal(failureOf(new Error('x'), call({ cancelled: true })).reason, 'aborted');
    const cert = failureOf(wrapped('DEPTH_ZERO_SELF_SIGNED_CERT'), call());
    assert.equal(cert.reason, 'certificate');
    assert.equal(cert.retryable, false);
    assert.equal(failureOf(coded('UND_ERR_DESTROYED'), call()).reason, 'closed');
    const network = failureOf(wrapped('ECONNREFUSED'), call());
    assert.equal(network.reason, 'network');
    assert.equal(network.code, 'ERR_PLATFORM_NETWORK');
    assert.equal(network.cause.cause.code, 'ECONNREFUSED');
    const own = new TransportError('platform', 'too-large', { limit: 1 });
    assert.equal(failureOf(own, call({ timedOut: true })), own);
  });

  it('isRetryableError: an error’s own verdict first, else a network code along its causes', () => {
    assert.equal(isRetryableError({ retryable: false, code: 'ECONNRESET' }), false);
    assert.equal(isRetryableError({ retryable: true }), true);
    assert.equal(isRetryableError(wrapped('ECONNRESET')), true);
    assert.equal(isRetryableError(coded('ERR_INVALID_ARG_TYPE')), false);
    assert.equal(isRetryableError(undefined), false);
  });
});
