'use strict';
/** lib/image/decode.ts: what an image's first bytes say it is, decoding a picked image to each output form, and setting it on a message. */
const assert = require('node:assert/strict');
const { decodeImage, sniffContentType, extensionFor, withProperty, ImageError } = require('../../../dist/lib/image');
const ev = require('../../fixtures/events');

describe('lib/image/decode', () => {
  describe('sniffContentType', () => {
    it('recognises JPEG, PNG, GIF and WebP from the first bytes', () => {
      assert.equal(sniffContentType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])), 'image/jpeg');
      assert.equal(sniffContentType(Buffer.from([0xff, 0xd8, 0xff])), 'image/jpeg');
      assert.equal(sniffContentType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])), 'image/png');
      assert.equal(sniffContentType(Buffer.from('GIF89a\x01\x00', 'latin1')), 'image/gif');
      assert.equal(sniffContentType(Buffer.from('GIF87a', 'latin1')), 'image/gif');
      assert.equal(sniffContentType(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1')), 'image/webp');
    });

    it('falls back to application/octet-stream', () => {
      for (const bytes of [
        [],
        [0xff, 0xd8],
        [0xff, 0xd8, 0xfe],
        [0x89, 0x50, 0x4e, 0x47],
        [0x25, 0x50, 0x44, 0x46],
        [0x47, 0x49, 0x46, 0x38, 0x38, 0x61],
      ]) {
        assert.equal(sniffContentType(Buffer.from(bytes)), 'application/octet-stream', JSON.stringify(bytes));
      }
      assert.equal(sniffContentType(Buffer.from('RIFF\x10\x00\x00\x00WAVE', 'latin1')), 'application/octet-stream');
    });

    it('gives extensions', () => {
      assert.equal(extensionFor('image/jpeg'), 'jpg');
      assert.equal(extensionFor('image/png'), 'png');
      assert.equal(extensionFor('image/gif'), 'gif');
      assert.equal(extensionFor('image/webp'), 'webp');
      assert.equal(extensionFor('application/octet-stream'), 'bin');
    });
  });

  describe('decodeImage', () => {
    const jpeg = ev.jpegBase64(1000, 4);
    const found = (text) => ({ source: 'Close', path: 'payload.detectionImages[0].image', text });

    it('decodes to a Buffer with its info', () => {
      const { value, info } = decodeImage(found(jpeg), 'buffer');
      assert.ok(Buffer.isBuffer(value));
      assert.deepEqual(value, Buffer.from(jpeg, 'base64'));
      assert.deepEqual(info, { source: 'Close', contentType: 'image/jpeg', bytes: 1000 });
    });

    it('passes base64 on as the same string, without decoding it', () => {
      const { value, info } = decodeImage(found(jpeg), 'base64');
      assert.equal(value, jpeg);
      assert.deepEqual(info, { source: 'Close', contentType: 'image/jpeg', bytes: 1000 });
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('base64');
      assert.equal(decodeImage(found(`data:image/jpeg;base64,${png}`), 'base64').value, png, 'prefix dropped');
      assert.equal(decodeImage(found(png), 'base64').info.contentType, 'image/png', 'sniffed, not taken from the prefix');
    });

    it('builds a data URL with the sniffed type', () => {
      const { value, info } = decodeImage(found(jpeg), 'dataurl');
      assert.equal(value, `data:image/jpeg;base64,${jpeg}`);
      assert.equal(info.bytes, 1000);
      const two = decodeImage(found('/9g='), 'dataurl');
      assert.equal(two.value, 'data:application/octet-stream;base64,/9g=');
      assert.deepEqual(two.info, { source: 'Close', contentType: 'application/octet-stream', bytes: 2 });
      assert.equal(decodeImage(found(`data:image/png;base64,${jpeg}`), 'dataurl').value, `data:image/jpeg;base64,${jpeg}`);
    });

    it('gives the same bytes count in every format', () => {
      for (let n = 1; n < 30; n++) {
        const text = Buffer.alloc(n, 0xff)
          .toString('base64')
          .replace(/=+$/, n % 2 ? '' : '$&');
        const counts = ['buffer', 'base64', 'dataurl'].map((f) => decodeImage(found(text), f).info.bytes);
        assert.deepEqual(counts, [n, n, n], text);
      }
    });

    it('throws an ImageError naming the field', () => {
      for (const format of ['buffer', 'base64', 'dataurl']) {
        assert.throws(
          () => decodeImage({ source: 'Car', path: 'payload.detectionImages[2].image', text: '/9j/!!!!' }, format),
          (err) => {
            assert.ok(err instanceof ImageError);
            assert.equal(err.code, 'INVALID_BASE64');
            assert.equal(err.path, 'payload.detectionImages[2].image');
            assert.equal(err.reason, 'char');
            assert.equal(err.position, 4);
            assert.match(err.message, /^payload\.detectionImages\[2\]\.image /);
            return true;
          },
        );
      }
    });
  });

  describe('withProperty', () => {
    it('copies only the objects along the path', () => {
      const event = ev.fullLpr();
      const msg = { payload: event, topic: 't', data: { keep: 1, nested: { a: 1 } } };
      const a = withProperty(msg, ['image'], 'A');
      assert.notEqual(a, msg);
      assert.equal(a.payload, event, 'event shared, not cloned');
      assert.equal(a.image, 'A');
      assert.equal(msg.image, undefined, 'input untouched');
      const b = withProperty(msg, ['data', 'nested', 'image'], 'B');
      assert.equal(b.data.nested.image, 'B');
      assert.equal(b.data.keep, 1);
      assert.equal(msg.data.nested.image, undefined, 'shared nested object untouched');
      assert.equal(b.payload, event);
      const c = withProperty(msg, ['out', 'image'], 'C');
      assert.deepEqual(c.out, { image: 'C' });
      assert.equal(msg.out, undefined);
    });
  });
});
