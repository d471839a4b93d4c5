'use strict';
// Functions run inside the page (page.evaluate) use the browser's and the editor's globals.
/* global $, RED */
/**
 * End to end: "Finished when" in the detection-in dialog (issue 25). Two
 * tabs deployed over the admin API to a fresh Node-RED with the packed
 * module: a receiver with a detection done wired downstream (through a link
 * out → link in to a third tab), one without, and one set to wait for a done
 * node with none wired. Each one's dialog, opened in Chromium, tells what its
 * own wiring comes to, in the catalog's words, and only the last warns.
 *
 * Skipped, with a message, only where /usr/bin/chromium is not installed.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, nodeRedVersion, request, translate } = require('../support');
const { EditorBrowser } = require('../support/editor-browser');

const ARTIFACTS = path.join(ROOT, 'test-artifacts', `completion-nr${nodeRedVersion().split('.')[0]}`);

const receiver = (id, z, p, wires, extra = {}) => ({
  id,
  type: 'detection-in',
  z,
  name: id,
  path: p,
  auth: 'none',
  x: 160,
  y: 80,
  wires: [wires, []],
  ...extra,
});
const FLOWS = [
  { id: 'cw-tab-a', type: 'tab', label: 'with done' },
  { id: 'cw-tab-b', type: 'tab', label: 'without done' },
  { id: 'cw-tab-c', type: 'tab', label: 'finishing' },
  receiver('cw-in-a', 'cw-tab-a', '/cw-a', ['cw-out']),
  { id: 'cw-out', type: 'link out', z: 'cw-tab-a', mode: 'link', links: ['cw-link-in'], x: 360, y: 80, wires: [] },
  { id: 'cw-link-in', type: 'link in', z: 'cw-tab-c', links: ['cw-out'], x: 120, y: 80, wires: [['cw-done']] },
  { id: 'cw-done', type: 'detection-done', z: 'cw-tab-c', name: '', passOn: false, outputs: 0, x: 320, y: 80, wires: [] },
  receiver('cw-in-b', 'cw-tab-b', '/cw-b', []),
  receiver('cw-in-w', 'cw-tab-b', '/cw-w', [], { y: 160, finishedWhen: 'done' }),
];

describe(`e2e: Finished when in the editor, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(60000);
  let browser;
  let page;

  before(async function () {
    if (!EditorBrowser.available()) this.skip();
    this.timeout(180000);
    browser = await EditorBrowser.start({ artifacts: ARTIFACTS });
    page = browser.page;
    const deployed = await request(`${browser.nr.url}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'node-red-deployment-type': 'full' },
      body: JSON.stringify(FLOWS),
    });
    assert.equal(deployed.status, 204, deployed.text);
    await browser.openEditor(['detection-in', 'detection-done']);
  });

  afterEach(async function () {
    if (browser) await browser.screenshotIfFailed(this.currentTest);
  });

  after(async function () {
    this.timeout(60000);
    if (browser) await browser.close();
  });

  /** Opens receiver `id` on its tab; the tip under Finished when and whether the warning sign shows; Cancel. */
  async function finishedTip(id, tab) {
    await page.evaluate((t) => RED.workspaces.show(t), tab);
    await browser.editNode(id);
    const shown = await page.evaluate(() => ({
      choice: $('#node-input-finishedWhen').val(),
      tip: $('#detection-in-finished-tip').text(),
      warning: $('#detection-in-finished-warning').is(':visible'),
    }));
    await browser.cancelEdit();
    return shown;
  }

  it('a receiver with a detection done downstream (through link nodes): kept until done marks them', async () => {
    assert.deepEqual(await finishedTip('cw-in-a', 'cw-tab-a'), {
      choice: 'auto',
      tip: translate('detection-in.tip.finished-auto-done'),
      warning: false,
    });
  });

  it('a receiver without one, in another tab: finished when handed to the flow', async () => {
    assert.deepEqual(await finishedTip('cw-in-b', 'cw-tab-b'), {
      choice: 'auto',
      tip: translate('detection-in.tip.finished-auto-none'),
      warning: false,
    });
  });

  it('set to wait for a detection done with none wired: warns that events pile up', async () => {
    assert.deepEqual(await finishedTip('cw-in-w', 'cw-tab-b'), {
      choice: 'done',
      tip: translate('detection-in.tip.finished-no-done'),
      warning: true,
    });
  });

  it('saw no errors in the browser console', function () {
    assert.deepEqual(browser.newProblems(), []);
    assert.deepEqual(browser.external, []);
  });
});
