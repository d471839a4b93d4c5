'use strict';
/** lib/core/base64.ts: checking a base64 image in place, without decoding it, and saying where it goes wrong. */
const assert = require('node:assert/strict');
const { checkBase64 } = require('../../../dist/lib/core/base64');
const ev = require('../../fixtures/events');

describe('lib/core/base64', () => {
  describe('checkBase64', () => {
    it('accepts standard base64 with and without padding', () => {
      assert.deepEqual(checkBase64('/9j/'), { ok: true, start: 0, bytes: 3 });
      assert.deepEqual(checkBase64('/9g='), { ok: true, start: 0, bytes: 2 });
      assert.deepEqual(checkBase64('/9g'), { ok: true, start: 0, bytes: 2 });
      assert.deepEqual(checkBase64('/w=='), { ok: true, start: 0, bytes: 1 });
      assert.deepEqual(checkBase64('/w'), { ok: true, start: 0, bytes: 1 });
      const big = ev.jpegBase64(300000, 3);
      assert.deepEqual(checkBase64(big), { ok: true, start: 0, bytes: 300000 });
      for (let n = 1; n < 40; n++) {
        const b64 = Buffer.alloc(n, n).toString('base64');
        assert.deepEqual(checkBase64(b64), { ok: true, start: 0, bytes: n }, b64);
        assert.deepEqual(checkBase64(b64.replace(/=+$/, '')), { ok: true, start: 0, bytes: n }, `${b64} unpadded`);
      }
    });

    it('tolerates a data URL prefix', () => {
      assert.deepEqual(checkBase64('data:image/jpeg;base64,/9j/'), { ok: true, start: 23, bytes: 3 });
      assert.deepEqual(checkBase64('DATA:image/png;charset=x;BASE64,iVBORw=='), { ok: true, start: 32, bytes: 4 });
      assert.deepEqual(checkBase64('data:;base64,/9j/'), { ok: true, start: 13, bytes: 3 });
    });

    it('refuses invalid characters and says where', () => {
      assert.deepEqual(checkBase64('/9j/4AAQ!kZJRg=='), { ok: false, reason: 'char', position: 8, char: '!' });
      assert.deepEqual(checkBase64('/9j/4AAQ\nSkZJRg=='), { ok: false, reason: 'char', position: 8, char: 'U+000A' });
      assert.deepEqual(checkBase64('/9j/ 4AA'), { ok: false, reason: 'char', position: 4, char: 'U+0020' });
      assert.deepEqual(checkBase64('/9j-_w'), { ok: false, reason: 'char', position: 3, char: '-' }, 'URL-safe alphabet');
      assert.deepEqual(checkBase64('data:image/jpeg;base64,/9j*'), { ok: false, reason: 'char', position: 26, char: '*' }, 'position in the field');
      assert.deepEqual(checkBase64('/9jé'), { ok: false, reason: 'char', position: 3, char: 'U+00E9' });
      // One bad character deep inside a big image.
      const big = ev.jpegBase64(300000, 5);
      const bad = `${big.slice(0, 250000)}%${big.slice(250001)}`;
      assert.deepEqual(checkBase64(bad), { ok: false, reason: 'char', position: 250000, char: '%' });
    });

    it('refuses bad lengths and misplaced padding', () => {
      assert.deepEqual(checkBase64('/9j/4'), { ok: false, reason: 'length', position: 5 });
      assert.deepEqual(checkBase64('A'), { ok: false, reason: 'length', position: 1 });
      assert.deepEqual(checkBase64('/9g=='), { ok: false, reason: 'padding', position: 3 }, 'padding past a multiple of 4');
      assert.deepEqual(checkBase64('/9='), { ok: false, reason: 'padding', position: 2 });
      assert.deepEqual(checkBase64('/9j/4A=Q'), { ok: false, reason: 'padding', position: 6 });
      assert.deepEqual(checkBase64('/w==/9j/'), { ok: false, reason: 'padding', position: 2 });
      assert.deepEqual(checkBase64('/w==='), { ok: false, reason: 'padding', position: 2 });
      assert.deepEqual(checkBase64('===='), { ok: false, reason: 'padding', position: 0 });
    });

    it('refuses empty data, a data URL that is not base64, and non-strings', () => {
      assert.deepEqual(checkBase64(''), { ok: false, reason: 'empty', position: 0 });
      assert.deepEqual(checkBase64('data:image/jpeg;base64,'), { ok: false, reason: 'empty', position: 23 });
      assert.deepEqual(checkBase64('data:text/plain,hello'), { ok: false, reason: 'data-url', position: 0 });
      assert.deepEqual(checkBase64('data:image/jpeg;base64'), { ok: false, reason: 'data-url', position: 0 });
      for (const v of [null, undefined, 42, {}, Buffer.from('/9j/')]) {
        assert.deepEqual(checkBase64(v), { ok: false, reason: 'not-a-string', position: 0 });
      }
    });

    // How fast is the benchmark's business, not a test's: here, that 1 MB is read to its end.
    it('checks 1 MB to its last character', () => {
      const big = ev.jpegBase64(768 * 1024, 9);
      assert.equal(big.length, 1024 * 1024);
      assert.deepEqual(checkBase64(big), { ok: true, start: 0, bytes: 768 * 1024 });
      const flawed = `${big.slice(0, -5)}#${big.slice(-4)}`;
      assert.deepEqual(checkBase64(flawed), { ok: false, reason: 'char', position: 1024 * 1024 - 5, char: '#' });
    });
  });
});
