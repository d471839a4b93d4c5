'use strict';
/** lib/core/crop-sizes: the crop names and a crop preference list (the picture dialogs run it too). */
const assert = require('node:assert/strict');
const { CROP_SIZE_NAMES, parseCropList } = require('../../../dist/lib/core/crop-sizes');
const kinds = require('../../../dist/lib/core/event-kinds');
const image = require('../../../dist/lib/image');

describe('lib/core/crop-sizes', () => {
  it('the names the event schema allows, in the default order', () => {
    assert.deepEqual([...CROP_SIZE_NAMES], ['Close', 'Medium', 'Car', 'FullFrame', 'Other']);
    assert.equal(kinds.CROP_SIZE_NAMES, CROP_SIZE_NAMES);
    assert.deepEqual(kinds.CropSizeName.options, [...CROP_SIZE_NAMES]);
    assert.equal(image.parseCropList, parseCropList);
  });

  it('a list: known names, each once, at least one; empty items of a text are skipped', () => {
    assert.deepEqual(parseCropList(' Car , Close '), ['Car', 'Close']);
    assert.deepEqual(parseCropList('Close,,Medium'), ['Close', 'Medium']);
    assert.deepEqual(parseCropList(['Other']), ['Other']);
    for (const bad of ['', ' , ', 'Close,Close', 'close', 'Close,Wide', ['Close', ''], 7, null, undefined])
      assert.equal(parseCropList(bad), null, JSON.stringify(bad));
  });
});
