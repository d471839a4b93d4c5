'use strict';
// Functions run inside the page (page.evaluate) use the browser's and the editor's globals.
/* global $, document, RED */
/**
 * End to end: configuration versions in the editor (issue 14).
 *
 * Flows saved by the release before versions existed (written by hand as
 * its editor saved them: "From msg.kind", "set by msg.method", an empty
 * path, a POS instance msg.posId could override, a sample fetched from a
 * Bridge URL of its own, no configVersion) reach the
 * editor of the packed module in a fresh Node-RED two ways: deployed over
 * the admin API before the editor opens (the editor loads them), and pasted
 * with Menu → Import. In both, the edit dialogs show the new TypedInputs
 * (msg.kind, msg.method, msg.path, the JSONata POS instance) and the nodes
 * are valid; after Deploy, GET /flows over HTTP has every node of the
 * package in the current shape with its configVersion. A sample node with a
 * Bridge URL of its own keeps it (shown read-only, with what to do) until an
 * events bridge is chosen, which drops it. The browser console must stay
 * free of errors throughout.
 *
 * Skipped, with a message, only where /usr/bin/chromium is not installed.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, nodeRedVersion, request } = require('../support');
const { EditorBrowser } = require('../support/editor-browser');
const { startMockCore } = require('../../dist/sim/mock-core');

const ARTIFACTS = path.join(ROOT, 'test-artifacts', `migration-nr${nodeRedVersion().split('.')[0]}`);

const CREDS = { userName: 'integrator', password: 'pa55word' };

/** The nodes as the editor of the release before versions saved them, using the platform core at `url`; `tag` makes their ids and names unique. */
function oldNodes(tag, url, z) {
  const at = (i) => ({ x: 160 + (i % 3) * 200, y: 80 + Math.floor(i / 3) * 80 });
  const node = (i, fields, suffix = '') => ({
    id: `${tag}-${fields.type}${suffix}`,
    ...(z ? { z } : {}),
    name: `${tag} ${fields.type}${suffix}`,
    ...at(i),
    wires: [],
    ...fields,
  });
  return [
    { id: `${tag}-platform-server`, type: 'platform-server', name: `${tag} server`, url, insecure: false, ca: '', timeout: 30 },
    node(0, { type: 'detection-sample', kind: 'msg', source: 'builtin', images: 'pictures', baseUrl: '', insecure: false, timeout: 10, wires: [[]] }),
    node(1, { type: 'platform-request', server: `${tag}-platform-server`, method: 'msg', path: '', errors: 'catch', wires: [[]] }),
    node(2, {
      type: 'platform-push',
      server: `${tag}-platform-server`,
      operation: 'pos',
      posId: 'pos-main-bar',
      path: '',
      batchSize: 100,
      batchMs: 1000,
      maxRetries: 5,
      wires: [[]],
    }),
    node(3, { type: 'detection-switch', property: 'payload', propertyType: 'msg', otherOutput: true, outputs: 3, wires: [[], [], []] }),
    // fetched from a bridge of its own, with a self-signed certificate
    node(
      4,
      { type: 'detection-sample', kind: 'lpr', source: 'bridge', images: 'pictures', baseUrl: OWN_URL, insecure: true, timeout: 20, wires: [[]] },
      '-fetched',
    ),
  ];
}

/** The Bridge URL of its own the fetching sample node was saved with. */
const OWN_URL = 'https://old-bridge:5022/eventsbridge';
/** What the new shape of that node holds: no events bridge yet, its own URL, TLS option and timeout as saved. */
const FETCHED = { kind: 'lpr', kindType: 'kind', bridge: '', baseUrl: OWN_URL, insecure: true, timeout: 20, configVersion: 3 };

/** What the new shape of those nodes holds (the rest is as saved). */
const MIGRATED = {
  'detection-sample': { kind: 'kind', kindType: 'msg', bridge: '', configVersion: 3 },
  'platform-request': { method: 'method', methodType: 'msg', path: 'path', pathType: 'msg', configVersion: 2 },
  'platform-push': { posId: '$exists(posId) ? posId : "pos-main-bar"', posIdType: 'jsonata', pathType: 'str', configVersion: 2 },
  'detection-switch': { configVersion: 1 },
  'platform-server': { configVersion: 1 },
};

describe(`e2e: configuration versions in the editor, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(60000);

  let browser;
  let nr;
  let page;
  let core;

  before(async function () {
    if (!EditorBrowser.available()) this.skip();
    this.timeout(180000);
    // the platform core the server nodes use: the push dialog lists its POS instances
    core = await startMockCore({ ...CREDS });
    browser = await EditorBrowser.start({ artifacts: ARTIFACTS });
    ({ nr, page } = browser);
    const loaded = oldNodes('loaded', core.url, 'loaded-tab');
    loaded[0].credentials = { ...CREDS };
    // a flow of the earlier release, deployed before the editor opens: the editor loads it
    const deployed = await request(`${nr.url}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'node-red-deployment-type': 'full' },
      body: JSON.stringify([{ id: 'loaded-tab', type: 'tab', label: 'saved earlier' }, ...loaded]),
    });
    assert.equal(deployed.status, 204, deployed.text);
    await browser.openEditor(Object.keys(MIGRATED));
  });

  afterEach(async function () {
    if (browser) await browser.screenshotIfFailed(this.currentTest);
  });

  after(async function () {
    this.timeout(60000);
    if (browser) await browser.close();
    if (core) await core.close();
  });

  function noNewProblems() {
    assert.deepEqual(browser.newProblems(), [], 'problems in the browser');
    assert.deepEqual(browser.external, [], 'requests off 127.0.0.1');
  }

  /** The node `id` as the editor holds it: the properties of MIGRATED[type], valid, validation errors. */
  function editorNode(id) {
    return page.evaluate((nodeId) => {
      const n = RED.nodes.node(nodeId);
      const props = {};
      for (const k of Object.keys(n._def.defaults)) props[k] = n[k];
      return { type: n.type, props, valid: n.valid, errors: n.validationErrors || [] };
    }, id);
  }

  /** Double-clicks the node and waits for its tray (the harness's editNode: spaced from the last
   *  double-click so the workspace does not join them, clicked again when a busy machine took it as two clicks). */
  async function openDialog(id) {
    await browser.editNode(id);
  }

  /** Double-clicks the node, checks what its dialog's TypedInputs show (`field` → [type, value, visible type label]) and `more`, then Cancel. */
  async function checkDialog(id, expected, more) {
    await openDialog(id);
    for (const [field, [type, value, label]] of Object.entries(expected)) {
      const shown = await page.evaluate((f) => [$(`#node-input-${f}`).typedInput('type'), $(`#node-input-${f}`).typedInput('value')], field);
      assert.deepEqual(shown, [type, value], `${id}: ${field}`);
      if (label !== undefined) {
        const box = page.locator(`#node-input-${field} + .red-ui-typedInput-container`);
        assert.equal((await box.locator('.red-ui-typedInput-type-label').innerText()).trim(), label, `${id}: ${field}'s type as shown`);
        assert.equal(await box.locator('input.red-ui-typedInput-input').inputValue(), value, `${id}: ${field}'s value as shown`);
      }
    }
    assert.deepEqual(await page.evaluate(() => $('#dialog-form .input-error').length), 0, `${id}: no field marked as an error`);
    if (more) await more();
    await page.locator('#node-dialog-cancel').click();
    await page.waitForFunction(() => document.querySelectorAll('.red-ui-tray').length === 0 && RED.view.state() === RED.state.DEFAULT);
  }

  /** Every node `tag` made is migrated in the editor and valid, and its dialogs show the TypedInputs. */
  async function checkMigrated(tag) {
    for (const [type, props] of Object.entries(MIGRATED)) {
      const node = await editorNode(`${tag}-${type}`);
      for (const [k, v] of Object.entries(props)) assert.deepEqual(node.props[k], v, `${tag} ${type}.${k}`);
      assert.deepEqual(node.errors, [], `${tag} ${type}: no validation errors`);
      assert.equal(node.valid, true, `${tag} ${type} is valid`);
    }
    await checkDialog(`${tag}-detection-sample`, { kind: ['msg', 'kind', 'msg.'] });
    const fetched = await editorNode(`${tag}-detection-sample-fetched`);
    for (const [k, v] of Object.entries(FETCHED)) assert.deepEqual(fetched.props[k], v, `${tag} fetching sample.${k}`);
    assert.deepEqual(fetched.errors, [], 'the fetching sample is valid: it still has its own URL');
    await checkDialog(`${tag}-detection-sample-fetched`, { kind: ['kind', 'lpr'] }, async () => {
      // its own URL, read-only, with what to do, and the address it fetches
      const own = page.locator('#node-input-baseUrl');
      assert.ok(await own.isVisible(), 'the URL of its own is shown');
      assert.equal(await own.inputValue(), OWN_URL);
      assert.equal(await own.getAttribute('readonly'), '', 'read-only');
      assert.ok(await page.locator('#dialog-form').getByText('Saved by an earlier version').isVisible(), 'the tip says what it is and what to do');
      assert.ok(
        await page.locator('#dialog-form').getByText('It accepts a self-signed certificate').isVisible(),
        'and that it accepts a self-signed certificate',
      );
      assert.equal(await page.locator('#detection-sample-url').innerText(), `${OWN_URL}/api/v1/webhook-models/lpr`);
    });
    await checkDialog(`${tag}-platform-request`, { method: ['msg', 'method', 'msg.'], path: ['msg', 'path', 'msg.'] });
    await checkDialog(`${tag}-platform-push`, { posId: ['jsonata', MIGRATED['platform-push'].posId] });
    noNewProblems();
  }

  it('migrates the nodes of a flow saved earlier as the editor loads them, without marking them changed', async function () {
    await page.evaluate(() => RED.workspaces.show('loaded-tab'));
    await checkMigrated('loaded');
    assert.equal(await page.evaluate(() => RED.nodes.dirty()), false, 'nothing to deploy: the runtime runs the same steps');
  });

  it('migrates pasted nodes (Menu → Import), and Deploy saves every node in the current shape with its version', async function () {
    // into a flow of their own (the editor's "add flow" action), not over the loaded nodes
    await page.evaluate(() => RED.actions.invoke('core:add-flow'));
    await browser.pasteNodes(oldNodes('pasted', core.url));
    await browser.place(40, 40);
    await checkMigrated('pasted');
    await browser.deploy();
    const res = await request(`${nr.url}/flows`, { method: 'GET', headers: { accept: 'application/json' } });
    assert.equal(res.status, 200);
    for (const tag of ['loaded', 'pasted']) {
      for (const [type, props] of Object.entries(MIGRATED)) {
        const saved = res.json.find((n) => n.id === `${tag}-${type}`);
        assert.ok(saved, `${tag}-${type} is saved`);
        for (const [k, v] of Object.entries(props)) assert.deepEqual(saved[k], v, `saved ${tag} ${type}.${k}`);
      }
      const fetched = res.json.find((n) => n.id === `${tag}-detection-sample-fetched`);
      for (const [k, v] of Object.entries(FETCHED)) assert.deepEqual(fetched[k], v, `saved ${tag} fetching sample.${k}`);
    }
    noNewProblems();
  });

  it('choosing an events bridge for a sample node with a URL of its own drops that URL and its TLS option', async function () {
    const id = 'pasted-detection-sample-fetched';
    await openDialog(id);
    // the plus button next to the events bridge list: a new one, with the old address and the same TLS option
    await page.locator('#node-input-btn-bridge-add').click();
    await browser.trayOpened('#node-config-dialog-ok');
    await page.locator('#node-config-input-url').fill(OWN_URL);
    await page.locator('#node-config-input-insecure').setChecked(true);
    await page.locator('#node-config-dialog-ok').click();
    await page.waitForFunction(() => !document.querySelector('#node-config-dialog-edit-form'), null, { polling: 'raf' });
    await browser.settled('#node-dialog-ok');
    const bridgeId = await page.locator('#node-input-bridge').inputValue();
    assert.ok(bridgeId && bridgeId !== '_ADD_', 'the new events bridge is chosen');
    // hidden as the list's change reaches the dialog, a moment after the configuration tray closed
    await page
      .locator('#node-input-baseUrl')
      .waitFor({ state: 'hidden', timeout: 10000 })
      .catch(() => undefined);
    assert.ok(!(await page.locator('#node-input-baseUrl').isVisible()), 'the URL of its own is no longer shown');
    assert.equal(await page.locator('#detection-sample-url').innerText(), `${OWN_URL}/api/v1/webhook-models/lpr`, "the bridge's address");
    await page.locator('#node-dialog-ok').click();
    await page.waitForFunction(() => document.querySelectorAll('.red-ui-tray').length === 0 && RED.view.state() === RED.state.DEFAULT);
    const node = await editorNode(id);
    assert.deepEqual(
      { bridge: node.props.bridge, baseUrl: node.props.baseUrl, insecure: node.props.insecure },
      { bridge: bridgeId, baseUrl: '', insecure: false },
    );
    assert.equal(node.valid, true, `valid: ${node.errors}`);
    await browser.deploy();
    const res = await request(`${nr.url}/flows`, { method: 'GET', headers: { accept: 'application/json' } });
    const saved = res.json.find((n) => n.id === id);
    assert.deepEqual([saved.bridge, saved.baseUrl, saved.insecure], [bridgeId, '', false]);
    const bridge = res.json.find((n) => n.id === bridgeId);
    assert.deepEqual([bridge.type, bridge.url, bridge.insecure], ['events-bridge', OWN_URL, true]);
    noNewProblems();
  });
});
