'use strict';
// Functions run inside the page (page.evaluate) use the browser's and the editor's globals.
/* global $ */
/**
 * End to end: replaying a dead letter from the editor, without code (issue
 * 27). A receiver (Max attempts 1) whose function throws for a poison plate
 * on its first delivery, a Catch node feeding a detection done set to
 * "failed": the event posted over real HTTP is dead-lettered at once. The
 * receiver's dialog, opened in Chromium, lists it (messageId, attempts, last
 * error); its Replay button sends it through the flow again, where it now
 * passes (the function lets a redelivered message through: "fixed") and is
 * finished; the list is then empty.
 *
 * Skipped, with a message, only where /usr/bin/chromium is not installed.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, nodeRedVersion, request, postJson, until, translate } = require('../support');
const { EditorBrowser } = require('../support/editor-browser');
const { functionNode, fileNode, readProbeLines } = require('../support/nodered-process');
const ev = require('../fixtures/events');

const ARTIFACTS = path.join(ROOT, 'test-artifacts', `dead-letters-nr${nodeRedVersion().split('.')[0]}`);
const TAB = 'bdl-tab';

function flows(probeFile) {
  return [
    { id: TAB, type: 'tab', label: 'dead letters' },
    {
      id: 'bdl-in',
      type: 'detection-in',
      z: TAB,
      name: 'poison receiver',
      path: '/bdl',
      auth: 'none',
      maxAttempts: 1,
      wires: [['bdl-fn'], [], []],
    },
    functionNode(
      'bdl-fn',
      TAB,
      "if (msg.detection.plate === 'POISON' && !msg.redelivered) throw new Error('bad plate'); msg.payload = JSON.stringify({ messageId: msg.messageId, attempt: msg.attempt }); return msg;",
      'bdl-file',
    ),
    fileNode('bdl-file', TAB, probeFile, 'bdl-done'),
    { id: 'bdl-done', type: 'detection-done', z: TAB, passOn: false, outcome: 'finished', outputs: 0, wires: [] },
    { id: 'bdl-catch', type: 'catch', z: TAB, scope: ['bdl-fn'], uncaught: false, wires: [['bdl-failed']] },
    { id: 'bdl-failed', type: 'detection-done', z: TAB, passOn: false, outcome: 'failed', outputs: 0, wires: [] },
  ].map((node, i) => (node.type === 'tab' ? node : { x: 140 + 180 * (i % 4), y: 80 + 80 * Math.floor(i / 4), ...node }));
}

describe(`e2e: dead letters in the editor, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(60000);
  let browser;
  let page;
  let probeFile;

  before(async function () {
    if (!EditorBrowser.available()) this.skip();
    this.timeout(180000);
    browser = await EditorBrowser.start({ artifacts: ARTIFACTS });
    page = browser.page;
    probeFile = path.join(browser.nr.userDir, 'bdl.jsonl');
    await browser.nr.deploy(flows(probeFile), { '/bdl': 405 });
    await browser.openEditor(['detection-in', 'detection-done']);
  });

  afterEach(async function () {
    if (browser) await browser.screenshotIfFailed(this.currentTest);
  });

  after(async function () {
    this.timeout(60000);
    if (browser) await browser.close();
  });

  it('lists the dead letter in the receiver dialog; its Replay button sends it through and it is finished', async () => {
    const event = ev.fullLpr();
    event.payload.messageId = 'poison-browser';
    event.payload.lprPlateInfo.plate = 'POISON';
    assert.equal((await postJson(`${browser.nr.url}/bdl`, event)).status, 200);
    const listUrl = `${browser.nr.url}/detection-bridge/dead-letters/bdl-in`;
    await until(
      async () => (await request(listUrl, { method: 'GET', headers: { accept: 'application/json' } })).json.count === 1,
      15000,
      'the dead letter',
    );

    await browser.editNode('bdl-in');
    await page.waitForSelector('#detection-in-dead-list tr.detection-in-dead-row', { state: 'visible' });
    const shown = await page.evaluate(() => ({
      count: $('#detection-in-dead-count').text(),
      cells: $('#detection-in-dead-list tr.detection-in-dead-row td')
        .slice(0, 3)
        .map((_i, td) => $(td).text())
        .get(),
      replayAll: $('#detection-in-dead-replay-all').is(':visible'),
    }));
    assert.equal(shown.count, translate('detection-in.deadLetters.count', { count: 1 }));
    assert.deepEqual(shown.cells.slice(0, 2), ['poison-browser', '1']);
    assert.match(shown.cells[2], /bad plate/);
    assert.equal(shown.replayAll, true);

    await page.locator('#detection-in-dead-list tr.detection-in-dead-row .detection-in-dead-replay').click();
    await until(() => readProbeLines(probeFile).some((l) => l.messageId === 'poison-browser'), 15000, 'the replayed event through the flow');
    assert.deepEqual(readProbeLines(probeFile), [{ messageId: 'poison-browser', attempt: 1 }]);
    // The dialog lists what is left: none.
    await page.waitForFunction((none) => $('#detection-in-dead-count').text() === none, translate('detection-in.deadLetters.none'));
    assert.equal(await page.locator('#detection-in-dead-list').isVisible(), false);
    await browser.cancelEdit();
    const after = await request(listUrl, { method: 'GET', headers: { accept: 'application/json' } });
    assert.deepEqual(after.json, { count: 0, items: [] });
  });

  it('saw no errors in the browser console', function () {
    assert.deepEqual(browser.newProblems(), []);
    assert.deepEqual(browser.external, []);
  });
});
