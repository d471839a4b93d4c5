'use strict';
/** lib/core/event-kinds.ts: the bridge's publish types and the plate crop names, as the schemas and every subsystem read them. */
const assert = require('node:assert/strict');
const { CROP_SIZE_NAMES, CropSizeName, PUBLISH_TYPE_FACE, PUBLISH_TYPE_LPR } = require('../../../dist/lib/core/event-kinds');
const ev = require('../../fixtures/events');

describe('lib/core/event-kinds', () => {
  it('the publish types are those the bridge sends', () => {
    assert.equal(ev.fullFace().publishType, PUBLISH_TYPE_FACE);
    assert.equal(ev.fullLpr().publishType, PUBLISH_TYPE_LPR);
    assert.notEqual(PUBLISH_TYPE_FACE, PUBLISH_TYPE_LPR);
  });

  it('CropSizeName accepts exactly the five crop names, case and all', () => {
    assert.deepEqual([...CROP_SIZE_NAMES], ['Close', 'Medium', 'Car', 'FullFrame', 'Other']);
    for (const name of CROP_SIZE_NAMES) assert.equal(CropSizeName.safeParse(name).success, true, name);
    for (const bad of ['close', 'Full Frame', '', 'Huge', 3, null]) assert.equal(CropSizeName.safeParse(bad).success, false, String(bad));
  });
});
