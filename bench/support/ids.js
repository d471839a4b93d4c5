'use strict';
/** Message-id-like keys for the dedupe benches. */

const HEX = Buffer.from('0123456789abcdef', 'latin1');
const scratch = Buffer.alloc(36);

/**
 * A UUID-shaped id from n, as a flat string (a messageId parsed from JSON is
 * one; building it with += would make a rope of many small pieces instead).
 * The same n gives an equal but new string.
 */
function messageId(n) {
  let x = (n + 1) >>> 0;
  let y = (Math.floor(n / 4294967296) ^ 0x9e3779b9) >>> 0;
  let at = 0;
  for (let i = 0; i < 32; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    y = (y + x + 0x6d2b79f5) >>> 0;
    scratch[at++] = HEX[(x ^ y) & 15];
    if (i === 7 || i === 11 || i === 15 || i === 19) scratch[at++] = 0x2d;
  }
  return scratch.toString('latin1');
}

/**
 * The keys of `checks` checks against a window holding the ids of 0 … keys-1,
 * each a new string: even ones repeat one of those (picked at random), odd
 * ones are new (the ids of newFrom + i, so lists with newFrom far enough
 * apart share no new key).
 */
function checkList(keys, checks, { seed = 12345, newFrom = keys } = {}) {
  const list = new Array(checks);
  let r = seed;
  for (let i = 0; i < checks; i++) {
    r ^= r << 13;
    r >>>= 0;
    r ^= r >>> 17;
    r ^= r << 5;
    r >>>= 0;
    list[i] = i % 2 === 0 ? messageId(r % keys) : messageId(newFrom + i);
  }
  return list;
}

module.exports = { messageId, checkList };
