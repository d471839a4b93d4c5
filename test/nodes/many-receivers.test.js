'use strict';
/**
 * Twenty receivers in one runtime (issue 41): every one hears of deploys
 * through one watch, so a start and a redeploy add no `flows:started`
 * listener per receiver and Node.js prints no MaxListenersExceededWarning
 * (which an operator reads as a leak). Each receiver still takes events.
 */
const assert = require('node:assert/strict');
const { getHelper, translatedModule, loadWithHttp, closeServers, postJson, deploy } = require('../support');
const ev = require('../fixtures/events');

const helper = getHelper();
const detectionIn = translatedModule('detection-in');

const receivers = (count, tag) => [
  { id: `tab-${tag}`, type: 'tab' },
  ...Array.from({ length: count }, (_, i) => ({
    id: `many-${tag}-${i}`,
    type: 'detection-in',
    z: `tab-${tag}`,
    path: `/many/${i}`,
    auth: 'none',
    wires: [[], [], []],
  })),
];

describe('twenty receivers', function () {
  const warnings = [];
  const onWarning = (w) => warnings.push(w);

  before(() => process.on('warning', onWarning));
  after(() => process.off('warning', onWarning));
  afterEach(async () => {
    await helper.unload();
    await closeServers();
  });

  it('deploy and redeploy with one flows:started listener for all of them, and no MaxListenersExceededWarning', async () => {
    const base1 = await loadWithHttp([detectionIn], receivers(1, 'one'));
    const withOne = helper._events.listenerCount('flows:started');
    assert.equal((await postJson(`${base1}/many/0`, ev.fullLpr())).status, 200);
    await helper.unload();
    await closeServers();

    const base = await loadWithHttp([detectionIn], receivers(20, 'twenty'));
    assert.equal(helper._events.listenerCount('flows:started'), withOne);
    await deploy(receivers(20, 'again'));
    assert.equal(helper._events.listenerCount('flows:started'), withOne);
    for (const i of [0, 7, 19]) assert.equal((await postJson(`${base}/many/${i}`, ev.fullLpr())).status, 200);
    const leaks = warnings.filter((w) => w.name === 'MaxListenersExceededWarning');
    assert.deepEqual(
      leaks.map((w) => w.message),
      [],
    );
  });
});
