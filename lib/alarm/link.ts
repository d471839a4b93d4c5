/**
 * The mail link: a token that names one alarm, expires, and is signed with
 * the node's secret (HMAC-SHA256), so nobody makes one for another alarm or
 * moves its expiry. Each link carries a nonce the book marks used when its
 * button is pressed (./book.ts useLink): a link works once. Opening it only
 * shows the page (mail scanners follow links); the page's buttons POST.
 *
 * Token: `<alarm id>.<nonce>.<expiry, seconds base 36>.<signature base64url>`,
 * all URL-safe, about 70 characters.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Why a link is refused, in the order checked. */
export type LinkRefusal = 'malformed' | 'forged' | 'expired';

export interface LinkClaim {
  alarm: string;
  nonce: string;
  /** Epoch ms. */
  expires: number;
}

const PART = /^[a-z0-9]{1,32}$/;
const NONCE = /^[A-Za-z0-9_-]{8,32}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/** A new secret for a node that has none: 32 random bytes, base64url. */
export function newLinkSecret(): string {
  return randomBytes(32).toString('base64url');
}

function sign(secret: string, scope: string, body: string): string {
  return createHmac('sha256', secret).update(`${scope}\n${body}`).digest('base64url');
}

/**
 * A token for alarm `alarm`, valid until `expires` (epoch ms). `scope`
 * (the node's id) is signed too: a link of one alarm node does nothing at
 * another's path.
 */
export function makeLinkToken(secret: string, scope: string, alarm: string, expires: number): string {
  const nonce = randomBytes(9).toString('base64url');
  const body = `${alarm}.${nonce}.${Math.ceil(expires / 1000).toString(36)}`;
  return `${body}.${sign(secret, scope, body)}`;
}

/**
 * What `token` claims, or why it is refused (the book then says whether it
 * was used, or the alarm closed); an expired one says when (its page does).
 */
export function readLinkToken(
  secret: string,
  scope: string,
  token: string,
  now: number,
): { ok: true; claim: LinkClaim } | { ok: false; refusal: Exclude<LinkRefusal, 'expired'> } | { ok: false; refusal: 'expired'; expires: number } {
  const parts = token.split('.');
  if (parts.length !== 4) return { ok: false, refusal: 'malformed' };
  const [alarm, nonce, expiry, signature] = parts;
  if (!PART.test(alarm) || !NONCE.test(nonce) || !PART.test(expiry) || !SIGNATURE.test(signature)) return { ok: false, refusal: 'malformed' };
  const expected = Buffer.from(sign(secret, scope, `${alarm}.${nonce}.${expiry}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, refusal: 'forged' };
  const expires = parseInt(expiry, 36) * 1000;
  if (!(expires > now)) return { ok: false, refusal: 'expired', expires };
  return { ok: true, claim: { alarm, nonce, expires } };
}
