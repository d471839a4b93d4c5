'use strict';
// Functions run inside the page (page.evaluate, waitForFunction) use the browser's and the editor's globals.
/* global $, document, RED */
/**
 * End to end: platform request's operation picker in Chromium (issue 16).
 *
 * A platform server with the generated 688-operation OpenAPI document
 * (written for the tests, NOT the platform's; test/support/openapi-document.js),
 * saved in the Node-RED user directory, is deployed with a platform request
 * node typed as free text. The test opens the request's dialog, waits for the
 * picker to list the 688 operations (the time it takes is logged, never
 * asserted), searches, picks the POS events batch, sets its pos_id from
 * the POS instances the dialog offers from the mock core's installed plugins,
 * clicks Done and Deploy, injects, and finds the batch in the mock core's
 * request log with that instance filled in.
 *
 * Skipped, with a message, only where /usr/bin/chromium is not installed.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, nodeRedVersion, request, until } = require('../support');
const { EditorBrowser } = require('../support/editor-browser');
const { generatedDocument } = require('../support/openapi-document');
const { startMockCore } = require('../../dist/sim/mock-core');

const ARTIFACTS = path.join(ROOT, 'test-artifacts', `openapi-nr${nodeRedVersion().split('.')[0]}`);
const CREDS = { userName: 'integrator', password: 'pa55word' };
const BATCH = '/api/v2/pos/plugins/{pos_id}/events/batch';
const TX = { transactionId: 'e2e-1', terminal: 'T1', amount: 12.5, type: 'SALE' };

describe(`e2e: the OpenAPI operation picker in Chromium, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(60000);

  let browser;
  let nr;
  let page;
  let core;

  before(async function () {
    if (!EditorBrowser.available()) this.skip();
    this.timeout(180000);
    core = await startMockCore({ ...CREDS });
    browser = await EditorBrowser.start({ viewport: { width: 1600, height: 1000 }, artifacts: ARTIFACTS });
    ({ nr, page } = browser);
    fs.writeFileSync(path.join(nr.userDir, 'openapi-11.0.json'), JSON.stringify(generatedDocument()));
    const flow = [
      { id: 'oa-tab', type: 'tab', label: 'openapi' },
      {
        id: 'oa-srv',
        type: 'platform-server',
        url: core.url,
        insecure: false,
        ca: '',
        timeout: 10,
        openapi: 'openapi-11.0.json',
        credentials: CREDS,
      },
      {
        id: 'oa-inject',
        type: 'inject',
        z: 'oa-tab',
        name: 'batch',
        props: [{ p: 'payload', v: JSON.stringify([TX]), vt: 'json' }],
        repeat: '',
        once: false,
        x: 120,
        y: 80,
        wires: [['oa-req']],
      },
      {
        id: 'oa-req',
        type: 'platform-request',
        z: 'oa-tab',
        name: '',
        server: 'oa-srv',
        method: 'GET',
        methodType: 'method',
        path: '/api/v2/portal/installed-plugins',
        pathType: 'str',
        errors: 'catch',
        check: true,
        configVersion: 2,
        x: 360,
        y: 80,
        wires: [[]],
      },
    ];
    const deployed = await request(`${nr.url}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'node-red-deployment-type': 'full' },
      body: JSON.stringify(flow),
    });
    assert.equal(deployed.status, 204, deployed.text);
    await browser.openEditor(['platform-request']);
  });

  afterEach(async function () {
    if (browser) await browser.screenshotIfFailed(this.currentTest);
  });

  after(async function () {
    this.timeout(60000);
    if (browser) await browser.close();
    if (core) await core.close();
  });

  it('lists the 688 operations, finds and picks the POS batch, picks pos_id from the installed POS instances, and the batch reaches the core', async function () {
    const opened = Date.now();
    await browser.editNode('oa-req');
    await page.waitForFunction(() => document.querySelectorAll('#platform-request-ops .platform-request-op').length > 0, null, { timeout: 30000 });
    const shown = Date.now() - opened;
    const listing = await page.evaluate(() => ({
      rows: document.querySelectorAll('#platform-request-ops .platform-request-op').length,
      modules: document.querySelectorAll('#platform-request-ops .platform-request-op-module').length,
      ms: Number(document.querySelector('#platform-request-ops').getAttribute('data-ms')),
      tip: document.querySelector('#platform-request-op-tip').textContent,
    }));
    console.log(`      picker: 688 operations listed ${listing.ms} ms after the dialog asked for them (${shown} ms from the double-click)`);
    assert.equal(listing.rows, 688);
    assert.equal(listing.modules, 14);
    assert.match(listing.tip, /688/);
    assert.match(listing.tip, /11\.0/);

    await page.locator('#platform-request-op-search').fill('events batch');
    const visible = () =>
      page.evaluate(() =>
        $('#platform-request-ops .platform-request-op:visible')
          .map((_i, e) => e.getAttribute('data-id'))
          .get(),
      );
    await page.waitForFunction(() => $('#platform-request-ops .platform-request-op:visible').length < 688);
    assert.deepEqual(await visible(), ['pos_eventsBatch']);
    await page.locator('#platform-request-ops .platform-request-op[data-id="pos_eventsBatch"]').click();

    assert.deepEqual(
      await page.evaluate(() => ({
        method: $('#node-input-method').typedInput('value'),
        path: $('#node-input-path').typedInput('value'),
        operationId: $('#node-input-operationId').val(),
      })),
      { method: 'POST', path: BATCH, operationId: 'pos_eventsBatch' },
    );
    const body = await page.locator('#platform-request-body').textContent();
    assert.match(
      body,
      /^\[ \{ transactionId\*: string, terminal\*: string, amount\*: number, type\*: string, occurredAt: string, lines: \[ … \] \} \]$/,
    );

    // The one parameter row, pos_id: a POS instance picked from the server's installed plugins.
    const row = page.locator('.platform-request-param').filter({ has: page.locator('[data-name="pos_id"]') });
    assert.equal(await page.locator('.platform-request-param').count(), 1);
    const instances = page.locator('.platform-request-param-instances select');
    await instances.waitFor({ state: 'visible', timeout: 20000 });
    assert.deepEqual(await instances.locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent])), [
      ['', '— pick an instance —'],
      ['pos-main-bar', 'POS Main Bar (pos-main-bar)'],
      ['pos-restaurant', 'POS Restaurant (pos-restaurant)'],
    ]);
    assert.match(await page.locator('.platform-request-param-instances .form-tips').textContent(), /^2 pos instances/);
    // Left empty, the row reads msg.pos_id at run time: the empty field says so.
    const value = row.locator('input.red-ui-typedInput-input');
    assert.equal(await value.inputValue(), '');
    assert.equal(await value.getAttribute('placeholder'), 'when empty: msg.pos_id');
    await instances.selectOption('pos-restaurant');
    assert.equal(await value.inputValue(), 'pos-restaurant');
    await page.locator('#node-dialog-ok').click();
    await page.waitForFunction(() => document.querySelectorAll('.red-ui-tray').length === 0);
    const saved = await page.evaluate(() => {
      const n = RED.nodes.node('oa-req');
      return { method: n.method, path: n.path, operationId: n.operationId, params: n.params };
    });
    assert.deepEqual(saved, {
      method: 'POST',
      path: BATCH,
      operationId: 'pos_eventsBatch',
      params: [{ name: 'pos_id', in: 'path', value: 'pos-restaurant', type: 'str' }],
    });
    await browser.deploy();

    // The editor is done when the deploy is answered; the inject node's route answers 404 until its flow
    // has started (seen once under load): clicked until it answers. A 404 injected nothing.
    await until(
      async () => (await request(`${nr.url}/inject/oa-inject`, { method: 'POST' })).status === 200,
      10000,
      'the inject button of the deployed flow',
    );
    await until(() => core.received.batches.length > 0, 20000, 'the batch at the mock core');
    assert.equal(core.received.batches[0].posId, 'pos-restaurant');
    assert.deepEqual(core.received.batches[0].items, [TX]);
    assert.deepEqual(browser.newProblems(), [], 'problems in the browser');
  });
});
