'use strict';
/** lib/core/schema-error.ts: a failing place of a schema as one dotted path, the same for every checker. */
const assert = require('node:assert/strict');
const { formatPath } = require('../../../dist/lib/core/schema-error');

describe('lib/core/schema-error', () => {
  it('formatPath joins keys with dots and puts indexes in brackets', () => {
    assert.equal(formatPath(['payload', 'detectionInfo', 'confidence']), 'payload.detectionInfo.confidence');
    assert.equal(formatPath(['payload', 'detectionImages', 2, 'cropSizeName']), 'payload.detectionImages[2].cropSizeName');
    assert.equal(formatPath([0, 'id']), '[0].id');
    assert.equal(formatPath(['items', 1, 3]), 'items[1][3]');
  });

  it('formatPath names the value itself (root) for an empty path', () => {
    assert.equal(formatPath([]), '(root)');
  });
});
