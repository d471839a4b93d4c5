'use strict';
// Functions run inside the page (page.evaluate) use the browser's and the editor's globals.
/* global $ */
/**
 * End to end: a receiver deleted in the editor while it holds answered events
 * (issue 41, "nothing stranded"). Receiver A (/bs-old, finished when a
 * detection done marks it, none wired) answers three events 200 and holds
 * them. Deleted on the workspace in Chromium, the editor says at once how many
 * answered events it holds and what becomes of them; after the deploy, that
 * they were left behind on /bs-old. Receiver B's dialog (another path) lists
 * them under "Left behind"; its button hands them to B, whose flow finishes
 * each one once.
 *
 * Skipped, with a message, only where /usr/bin/chromium is not installed.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, nodeRedVersion, request, postJson, until, translate } = require('../support');
const { EditorBrowser } = require('../support/editor-browser');
const { functionNode, fileNode, readProbeLines } = require('../support/nodered-process');
const ev = require('../fixtures/events');

const ARTIFACTS = path.join(ROOT, 'test-artifacts', `stranded-nr${nodeRedVersion().split('.')[0]}`);
const TAB = 'bs-tab';

function flows(probeFile) {
  return [
    { id: TAB, type: 'tab', label: 'left behind' },
    { id: 'bs-a', type: 'detection-in', z: TAB, name: 'old receiver', path: '/bs-old', auth: 'none', finishedWhen: 'done', wires: [[], [], []] },
    { id: 'bs-b', type: 'detection-in', z: TAB, name: 'new receiver', path: '/bs-new', auth: 'none', wires: [['bs-fn'], [], []] },
    functionNode('bs-fn', TAB, 'msg.payload = JSON.stringify({ messageId: msg.messageId, redelivered: !!msg.redelivered }); return msg;', 'bs-file'),
    fileNode('bs-file', TAB, probeFile, 'bs-done'),
    { id: 'bs-done', type: 'detection-done', z: TAB, passOn: false, outcome: 'finished', outputs: 0, wires: [] },
  ].map((node, i) => (node.type === 'tab' ? node : { x: 140 + 200 * (i % 3), y: 80 + 100 * Math.floor(i / 3), ...node }));
}

/** Closes the notifications shown, as a click on each does once read (they lie over the tray's buttons). */
async function dismissNotifications(page) {
  await page.evaluate(() => $('.red-ui-notification').trigger('click'));
  await page.waitForFunction(() => $('.red-ui-notification:visible').length === 0);
}

/** The texts of the editor's notifications now shown. */
const notifications = (page) =>
  page.evaluate(() =>
    $('.red-ui-notification')
      .map((_i, el) => $(el).text())
      .get(),
  );

describe(`e2e: a receiver deleted with answered events, in the editor, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(90000);
  let browser;
  let page;
  let probeFile;
  const ids = ['left-1', 'left-2', 'left-3'];

  before(async function () {
    if (!EditorBrowser.available()) this.skip();
    this.timeout(180000);
    browser = await EditorBrowser.start({ artifacts: ARTIFACTS });
    page = browser.page;
    probeFile = path.join(browser.nr.userDir, 'bs.jsonl');
    await browser.nr.deploy(flows(probeFile), { '/bs-old': 405 });
    await browser.openEditor(['detection-in', 'detection-done']);
  });

  afterEach(async function () {
    if (browser) await browser.screenshotIfFailed(this.currentTest);
  });

  after(async function () {
    this.timeout(60000);
    if (browser) await browser.close();
  });

  it('says at once that the deleted receiver holds answered events, and after the deploy that they were left behind', async () => {
    for (const id of ids) {
      const event = ev.fullLpr();
      event.payload.messageId = id;
      assert.equal((await postJson(`${browser.nr.url}/bs-old`, event)).status, 200);
    }
    const held = () => request(`${browser.nr.url}/detection-bridge/held/bs-a`, { method: 'GET', headers: { accept: 'application/json' } });
    await until(async () => (await held()).json.events === 3, 15000, 'receiver A holding the three events');

    await browser.nodeClickSpacing('bs-a');
    await page.locator('[id="bs-a"] .red-ui-flow-node').click();
    browser.nodeClicked('bs-a');
    await page.keyboard.press('Delete');
    const deleted = translate('detection-in.stranded.deleted', { path: '/bs-old', events: 3, deadLetters: 0 });
    await until(async () => (await notifications(page)).some((t) => t.includes(deleted)), 15000, 'the warning on delete');

    await browser.deploy();
    const left = translate('detection-in.stranded.afterDeploy', {
      path: '/bs-old',
      events: 3,
      deadLetters: 0,
      where: translate('detection-in.stranded.inMemory'),
    });
    await until(async () => (await notifications(page)).some((t) => t.includes(left)), 15000, 'the warning after the deploy');
    const stranded = await request(`${browser.nr.url}/detection-bridge/stranded`, { method: 'GET', headers: { accept: 'application/json' } });
    assert.equal(stranded.json.count, 1);
    assert.equal(stranded.json.items[0].events, 3);
    await dismissNotifications(page);
  });

  it("lists them in another receiver's dialog, whose button hands them over: each finished once", async () => {
    await browser.editNode('bs-b');
    await page.waitForSelector('#detection-in-stranded .detection-in-stranded-row', { state: 'visible' });
    const row = await page.evaluate(() => $('#detection-in-stranded .detection-in-stranded-row span').first().text());
    assert.equal(
      row,
      translate('detection-in.stranded.item', { path: '/bs-old', events: 3, deadLetters: 0, where: translate('detection-in.stranded.inMemory') }),
    );
    await page.locator('#detection-in-stranded .detection-in-stranded-take').click();
    await until(() => readProbeLines(probeFile).length >= 3, 15000, 'the three events through receiver B');
    await page.waitForFunction(() => !$('#detection-in-stranded').is(':visible'));
    await dismissNotifications(page);
    await browser.cancelEdit();
    const lines = readProbeLines(probeFile);
    assert.deepEqual(lines.map((l) => l.messageId).sort(), ids);
    assert.ok(lines.every((l) => l.redelivered === true));
    const stranded = await request(`${browser.nr.url}/detection-bridge/stranded`, { method: 'GET', headers: { accept: 'application/json' } });
    assert.equal(stranded.json.count, 0);
  });

  it('saw no errors in the browser console', function () {
    assert.deepEqual(browser.newProblems(), []);
    assert.deepEqual(browser.external, []);
  });
});
