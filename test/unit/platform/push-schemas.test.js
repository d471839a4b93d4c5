'use strict';
/**
 * lib/platform/push-schemas.ts: the values the spec fixes for pushed data (plate
 * direction, gender, image crop), checked wherever the conventional field
 * names appear in an item; errors name the item and the field.
 */
const assert = require('node:assert/strict');
const path = require('node:path');

const dist = require('path').resolve(__dirname, '../../../dist');
const { checkPushItems, formatPushErrors, PushPlateDirection, PushGender, MAX_PUSH_ITEM_DEPTH } = require(
  path.join(dist, 'lib', 'platform', 'push-schemas'),
);
const { CROP_SIZE_NAMES } = require(path.join(dist, 'lib', 'events', 'schemas'));

const IMAGE = Buffer.from('a tiny jpeg stand-in').toString('base64');

describe('lib/platform/push-schemas', () => {
  it('accepts good items, extra fields untouched', () => {
    const items = [
      { transactionId: 't1', amount: 12.5, lines: [{ sku: 'A', qty: 1 }] },
      { plate: 'ABC123', direction: 0, plateDirection: 2, images: CROP_SIZE_NAMES.map((c) => ({ image: IMAGE, cropSizeName: c })) },
      { person: { gender: 'U', photo: { image: IMAGE, crop: 'Close' } }, anything: { deep: [{ gender: 'F' }, { gender: 'M' }] } },
      { direction: null, gender: null, image: null, note: 'null means not stated' },
      { image: IMAGE.replace(/=+$/, ''), cropSizeName: 'Other' },
      { image: `${IMAGE.slice(0, 8)}\n${IMAGE.slice(8)}`, cropSizeName: 'Car' },
    ];
    assert.deepEqual(checkPushItems(items), { ok: true });
    assert.deepEqual(checkPushItems([]), { ok: true });
  });

  it('plate direction must be the integer 0, 1 or 2', () => {
    for (const bad of [3, -1, 1.5, '1', true]) {
      const got = checkPushItems([{ direction: 1 }, { plateDirection: bad }]);
      assert.equal(got.ok, false, String(bad));
      assert.deepEqual(
        got.errors.map((e) => [e.item, e.path]),
        [[1, 'plateDirection']],
      );
      assert.match(got.errors[0].message, /^plateDirection must be the integer 0, 1 or 2, got /);
    }
    assert.equal(PushPlateDirection.safeParse(2).success, true);
    assert.equal(PushPlateDirection.safeParse(2.0000001).success, false);
  });

  it('gender must be exactly one of M, F, U', () => {
    for (const bad of ['m', 'Male', 'X', '', 'MF', 1]) {
      const got = checkPushItems([{ visitor: { gender: bad } }]);
      assert.equal(got.ok, false, String(bad));
      assert.deepEqual(
        got.errors.map((e) => [e.item, e.path]),
        [[0, 'visitor.gender']],
      );
      assert.match(got.errors[0].message, /^gender must be one character: M, F or U, got /);
    }
    assert.deepEqual(
      ['M', 'F', 'U'].map((g) => PushGender.safeParse(g).success),
      [true, true, true],
    );
  });

  it('every pushed image states its crop, with a known name', () => {
    const got = checkPushItems([
      { images: [{ image: IMAGE, cropSizeName: 'Close' }, { image: IMAGE }] },
      { snapshot: { image: IMAGE, cropSizeName: 'close' } },
      { snapshot: { image: IMAGE, crop: 'Tight' } },
    ]);
    assert.equal(got.ok, false);
    assert.deepEqual(
      got.errors.map((e) => [e.item, e.path]),
      [
        [0, 'images[1].cropSizeName'],
        [1, 'snapshot.cropSizeName'],
        [2, 'snapshot.crop'],
      ],
    );
    assert.match(got.errors[0].message, /^an image must state its crop: add cropSizeName \(one of Close, Medium, Car, FullFrame, Other\)$/);
    assert.equal(got.errors[1].message, 'cropSizeName must be one of Close, Medium, Car, FullFrame, Other, got "close"');
    assert.match(got.errors[2].message, /^crop must be one of /);
  });

  it('an image must be base64 text, not a data: URL or anything else', () => {
    const got = checkPushItems([
      { image: `data:image/jpeg;base64,${IMAGE}`, cropSizeName: 'Car' },
      { image: 'not base64 at all!', cropSizeName: 'Car' },
      { image: { url: 'http://x' }, cropSizeName: 'Car' },
      { image: '', cropSizeName: 'Car' },
      { image: 'x'.repeat(5000) + '!', cropSizeName: 'Car' },
    ]);
    assert.equal(got.ok, false);
    assert.deepEqual(
      got.errors.map((e) => [e.item, e.path]),
      [
        [0, 'image'],
        [1, 'image'],
        [2, 'image'],
        [3, 'image'],
        [4, 'image'],
      ],
    );
    assert.match(got.errors[0].message, /not a data: URL/);
    assert.equal(got.errors[1].message, 'image must be base64 text');
    assert.equal(got.errors[2].message, 'image must be a base64 string, got an object');
    assert.equal(got.errors[3].message, 'image must not be empty');
    assert.ok(!got.errors.some((e) => e.message.includes('xxxxxxxx')), 'a long value is not repeated');
  });

  it('lists every error with item and field, and formats them', () => {
    const got = checkPushItems([
      { ok: true },
      { lines: [{ gender: 'M' }, { gender: 'W' }], direction: 4 },
      'not an object',
      { plate: { plateDirection: '2', images: [{ image: IMAGE }] } },
    ]);
    assert.equal(got.ok, false);
    assert.deepEqual(
      got.errors.map((e) => `${e.item}:${e.path}`),
      ['1:direction', '1:lines[1].gender', '2:(root)', '3:plate.plateDirection', '3:plate.images[0].cropSizeName'],
    );
    assert.equal(got.errors[2].message, 'each pushed item must be a JSON object, got "not an object"');
    const text = formatPushErrors(got.errors, 2);
    assert.equal(
      text,
      'item 1, direction: direction must be the integer 0, 1 or 2, got 4; item 1, lines[1].gender: gender must be one character: M, F or U, got "W"; and 3 more',
    );
  });

  it('refuses a list that is not an array, and values nested too deep', () => {
    assert.deepEqual(checkPushItems({ items: [] }), {
      ok: false,
      errors: [
        {
          item: -1,
          path: '(root)',
          key: 'push-item.not-array',
          params: { got: 'an object' },
          message: 'the items to push must be an array, got an object',
        },
      ],
    });
    let deep = { gender: 'M' };
    for (let i = 0; i < MAX_PUSH_ITEM_DEPTH + 5; i++) deep = { next: deep };
    const got = checkPushItems([deep]);
    assert.equal(got.ok, false);
    assert.match(got.errors[0].message, /nests deeper than/);
    const cyclic = { a: {} };
    cyclic.a.back = cyclic;
    assert.deepEqual(checkPushItems([cyclic]), { ok: true }, 'a cycle is walked once');
  });
});
