'use strict';
const assert = require('node:assert/strict');
const { createWarningGate, warningPlace } = require('../../../dist/lib/receiver/warning-gate');
const { FakeClock } = require('../../support/fake-clock');

const paths = (list) => list.map((e) => e.path);

describe('lib/receiver/warning-gate', () => {
  it('lets a place through once per period, array indexes aside', async () => {
    const clock = new FakeClock(1_000_000);
    const gate = createWarningGate(60_000, clock);
    const w = (path) => ({ path, message: 'm' });
    assert.deepEqual(paths(gate.pass([w('serverContext.Region'), w('payload.detectionImages[1].cropSizeName')])), [
      'serverContext.Region',
      'payload.detectionImages[1].cropSizeName',
    ]);
    await clock.advance(59_999);
    assert.deepEqual(paths(gate.pass([w('serverContext.Region'), w('payload.detectionImages[3].cropSizeName'), w('payload.defaultPhoto.image')])), [
      'payload.defaultPhoto.image',
    ]);
    await clock.advance(1);
    assert.deepEqual(paths(gate.pass([w('serverContext.Region'), w('payload.detectionImages[0].cropSizeName')])), [
      'serverContext.Region',
      'payload.detectionImages[0].cropSizeName',
    ]);
    assert.equal(warningPlace('a[12].b[3]'), 'a[].b[]');
  });
});
