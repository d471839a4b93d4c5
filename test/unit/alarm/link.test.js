'use strict';
/**
 * The mail link's token (lib/alarm/link.ts): it names one alarm, carries a
 * nonce and an expiry, and is signed with the node's secret and id; a token
 * changed in any part, signed with another secret or for another node, or
 * not shaped as one, is refused, and says why; it expires at its expiry.
 */
const assert = require('node:assert/strict');
const { makeLinkToken, readLinkToken, newLinkSecret } = require('../../../dist/lib/alarm/link');

const T0 = Date.parse('2026-03-01T08:00:00Z');
const HOUR = 3_600_000;
const SECRET = 'a-secret-of-the-node-0123456789';
const SCOPE = 'node-1';
const token = (alarm = 'k7m2qx9d', expires = T0 + HOUR) => makeLinkToken(SECRET, SCOPE, alarm, expires);
const refusal = (t, now = T0, secret = SECRET, scope = SCOPE) => {
  const result = readLinkToken(secret, scope, t, now);
  assert.equal(result.ok, false, `${t} was taken`);
  return result.refusal;
};
/** `t` with part `i` (0 alarm, 1 nonce, 2 expiry, 3 signature) made `value`. */
const withPart = (t, i, value) => {
  const parts = t.split('.');
  parts[i] = value;
  return parts.join('.');
};

describe('alarm mail links', () => {
  it('a token reads back as what it was made for, with a nonce of its own', () => {
    const t = token();
    assert.match(t, /^k7m2qx9d\.[A-Za-z0-9_-]{12}\.[a-z0-9]+\.[A-Za-z0-9_-]{43}$/, 'URL-safe: alarm, nonce, expiry, signature');
    assert.ok(t.length <= 80, `${t.length} characters`);
    const read = readLinkToken(SECRET, SCOPE, t, T0);
    assert.deepEqual(read, { ok: true, claim: { alarm: 'k7m2qx9d', nonce: t.split('.')[1], expires: T0 + HOUR } });
    const nonces = new Set(Array.from({ length: 50 }, () => token().split('.')[1]));
    assert.equal(nonces.size, 50, 'every link its own nonce');
  });

  it('expires at its expiry, not a moment later; an expiry within a second is rounded up to the second', () => {
    const t = token('k7m2qx9d', T0 + HOUR);
    assert.equal(readLinkToken(SECRET, SCOPE, t, T0 + HOUR - 1).ok, true);
    assert.equal(refusal(t, T0 + HOUR), 'expired');
    assert.equal(refusal(t, T0 + 10 * HOUR), 'expired');
    const odd = token('k7m2qx9d', T0 + 1500);
    assert.equal(readLinkToken(SECRET, SCOPE, odd, T0).claim.expires, T0 + 2000);
    assert.equal(refusal(odd, T0 + 2000), 'expired');
    assert.equal(refusal(token('k7m2qx9d', T0), T0), 'expired', 'made expired');
  });

  it('signed for one node with one secret: another secret or node is a forgery', () => {
    const t = token();
    assert.equal(refusal(t, T0, 'another-secret-0123456789'), 'forged');
    assert.equal(refusal(t, T0, SECRET, 'node-2'), 'forged');
    assert.equal(refusal(t, T0, SECRET, ''), 'forged');
    assert.equal(refusal(makeLinkToken(SECRET, 'node-2', 'k7m2qx9d', T0 + HOUR)), 'forged');
  });

  it('any part changed is a forgery: another alarm, nonce, a later expiry, the signature', () => {
    const t = token();
    const [, nonce, expiry, signature] = t.split('.');
    assert.equal(refusal(withPart(t, 0, 'k7m2qx9e')), 'forged');
    assert.equal(refusal(withPart(t, 0, 'k7m2qx9')), 'forged');
    assert.equal(
      refusal(
        withPart(
          t,
          1,
          nonce.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
        ),
      ),
      'forged',
    );
    assert.equal(refusal(withPart(t, 1, `${nonce}x`)), 'forged');
    const later = (parseInt(expiry, 36) + 3600).toString(36);
    assert.equal(refusal(withPart(t, 2, later)), 'forged');
    assert.equal(refusal(withPart(t, 2, `0${expiry}`)), 'forged', 'the same time written otherwise');
    assert.equal(
      refusal(
        withPart(
          t,
          3,
          signature.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
        ),
      ),
      'forged',
    );
    assert.equal(refusal(withPart(t, 3, token('k7m2qx9e').split('.')[3])), 'forged', 'the signature of another token');
    assert.equal(refusal(withPart(t, 3, 'A'.repeat(43))), 'forged');
  });

  it('a forgery says forged even when it has expired too (the signature is checked first)', () => {
    const t = token('k7m2qx9d', T0);
    assert.equal(refusal(t, T0 + HOUR, 'another-secret-0123456789'), 'forged');
  });

  it('not shaped as a token: malformed, before anything else is checked', () => {
    const t = token();
    const [alarm, nonce, expiry, signature] = t.split('.');
    const cases = [
      '',
      '...',
      `${alarm}.${nonce}.${expiry}`,
      `${t}.x`,
      `${alarm}.${nonce}.${expiry}.${signature}.`,
      withPart(t, 0, ''),
      withPart(t, 0, 'K7M2QX9D'),
      withPart(t, 0, 'k7m2-qx9d'),
      withPart(t, 0, 'a'.repeat(33)),
      withPart(t, 1, 'short12'),
      withPart(t, 1, 'a'.repeat(33)),
      withPart(t, 1, 'nonce+with/slash'),
      withPart(t, 2, ''),
      withPart(t, 2, expiry.toUpperCase() === expiry ? `${expiry}-` : expiry.toUpperCase()),
      withPart(t, 2, '-1'),
      withPart(t, 3, signature.slice(1)),
      withPart(t, 3, `${signature}A`),
      withPart(t, 3, `${signature.slice(0, 42)}=`),
      withPart(t, 3, `${signature.slice(0, 42)}+`),
      ` ${t}`,
      `${t}\n`,
      encodeURIComponent(t).replace(/\./g, '%2E'),
    ];
    for (const bad of cases) assert.equal(refusal(bad, T0, 'another-secret-0123456789'), 'malformed', JSON.stringify(bad));
  });

  it('a new secret is 32 random bytes, base64url', () => {
    const a = newLinkSecret();
    assert.match(a, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(a, 'base64url').length, 32);
    assert.notEqual(newLinkSecret(), a);
  });
});
