'use strict';
/** lib/delivery/types.ts: what every store of events in flight shares; at run time, only the acknowledgement modes. */
const assert = require('node:assert/strict');
const { ACK_MODES } = require('../../../dist/lib/delivery/types');

describe('lib/delivery/types', () => {
  it('ACK_MODES: memory, disk and redis, in the order the dialog offers them', () => {
    assert.deepEqual([...ACK_MODES], ['memory', 'disk', 'redis']);
  });
});
