'use strict';
/**
 * End to end: the Node-RED editor in a real browser (issue 5).
 *
 * The packed module is installed into a fresh Node-RED (the one NODE_RED_PATH
 * selects: 4.1 from the dev dependencies, or 5) and a headless Chromium
 * (/usr/bin/chromium, driven by playwright-core) opens the editor and uses it
 * as a person would: the palette, dragging every node type onto the
 * workspace, its edit dialog (double-click, fill, Done), configuration nodes
 * through the pencil and plus buttons of the nodes that use them, the Help
 * sidebar tab. The browser console must stay free of errors throughout.
 * Of each dialog's invalid inputs (CASES), the first is made here and the
 * rest by the same validators in a VM (test/unit/editor-validators.test.js),
 * but those that need the dialog (test/support/editor-cases.js browserCases).
 * (The examples, imported through Menu → Import → Examples and opened, are
 * test/browser/examples-valid.test.js.)
 *
 * The node types come from package.json "node-red".nodes; the labels the
 * editor must show come from each type's message catalog as Node-RED serves
 * it. Screenshots of the palette, each dialog and each help text are
 * written to test-artifacts/editor-nr<major>/.
 *
 * Skipped, with a message, only where /usr/bin/chromium is not installed
 * (.ci/run installs it).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, nodeRedVersion, request } = require('../support');
const { MODULE } = require('../support/nodered-process');
const { EditorBrowser } = require('../support/editor-browser');
const { CASES, FLOW, CONFIG, timeoutForCases, browserCases } = require('../support/editor-cases');

const PKG = require(path.join(ROOT, 'package.json'));
/** Every node type the package registers. */
const TYPES = Object.keys(PKG['node-red'].nodes);
/** Configuration nodes: no palette entry, edited from the nodes that use them. */
const CONFIG_TYPES = TYPES.filter((t) => /\bcategory:\s*'config'/.test(fs.readFileSync(path.join(ROOT, 'dist', 'nodes', t, `${t}.html`), 'utf8')));
const FLOW_TYPES = TYPES.filter((t) => !CONFIG_TYPES.includes(t));
const CATEGORY = 'detection bridge';
const ARTIFACTS = path.join(ROOT, 'test-artifacts', `editor-nr${nodeRedVersion().split('.')[0]}`);

/** A message-catalog key shown as is: `detection-in.label.path` (every key
 *  of the package starts with its node type) or the namespaced
 *  `node-red-contrib-detection-bridge/detection-in:…`. */
// a catalog key shown as is (detection-in.label.path); not the name of a docs page (detection-in.md)
const RAW_KEY = new RegExp(`\\b(?:${TYPES.join('|')})\\.(?!md\\b)[a-zA-Z]|${MODULE}/`);

describe(`e2e: the editor in Chromium, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(30000);

  let browser;
  let nr;
  let page;
  /** Palette labels from each type's catalog as Node-RED serves it. */
  const labels = {};
  /** Each type's message catalog as Node-RED serves it. */
  const catalogs = {};
  /** Each type's definition as the editor holds it: category, icon, and the
   *  properties that refer to a configuration node. */
  let defs = {};
  /** The node each flow type's tests work on: its id. */
  const nodeIds = {};

  before(async function () {
    if (!EditorBrowser.available()) this.skip();
    this.timeout(180000);
    const started = Date.now();
    // Chromium starts while the module is packed and installed and Node-RED starts.
    browser = await EditorBrowser.start({
      viewport: { width: 1400, height: 1000 },
      artifacts: ARTIFACTS,
      timeout: 10000,
    });
    ({ nr, page } = browser);
    for (const type of TYPES) {
      const c = await request(`${nr.url}/locales/${MODULE}/${type}?lng=en-US`, { method: 'GET', headers: { accept: 'application/json' } });
      assert.equal(c.status, 200, `catalog of ${type}`);
      catalogs[type] = c.json[type];
      labels[type] = c.json[type].paletteLabel;
      assert.equal(typeof labels[type], 'string', `${type} has a palette label in its catalog`);
    }
    await browser.openEditor(TYPES);
    defs = await page.evaluate((types) => {
      const out = {};
      for (const t of types) {
        const d = RED.nodes.getType(t);
        const configRefs = Object.keys(d.defaults || {})
          .filter((k) => d.defaults[k].type && RED.nodes.getType(d.defaults[k].type) && RED.nodes.getType(d.defaults[k].type).category === 'config')
          // optional: none is a choice of its own (detection-in's listener), so no test has to choose one
          .map((k) => ({ prop: k, type: d.defaults[k].type, optional: !d.defaults[k].required && typeof d.defaults[k].validate !== 'function' }));
        out[t] = { category: d.category, icon: typeof d.icon === 'string' ? d.icon : null, configRefs };
      }
      return out;
    }, TYPES);
    for (const t of TYPES) assert.equal(defs[t].category === 'config', CONFIG_TYPES.includes(t), `${t}: category ${defs[t].category}`);
    console.log(
      `      (Node-RED ${nodeRedVersion()} and Chromium ${browser.context.browser() ? browser.context.browser().version() : ''} up, editor loaded in ${Date.now() - started} ms)`,
    );
  });

  /** Fails the test that made the browser report a problem. */
  function noNewProblems() {
    assert.deepEqual(browser.newProblems(), [], 'problems in the browser');
    assert.deepEqual(browser.external, [], 'requests off 127.0.0.1');
  }

  afterEach(async function () {
    if (!(this.currentTest && this.currentTest.state === 'failed' && page)) return;
    await browser.screenshotIfFailed(this.currentTest);
    // leave the editor usable for the next test: close edit trays and dialogs left open
    for (let i = 0; i < 3; i++) {
      await page
        .evaluate(() => {
          if ($('#node-config-dialog-cancel:visible').length) $('#node-config-dialog-cancel').trigger('click');
          else if ($('#node-dialog-cancel:visible').length) $('#node-dialog-cancel').trigger('click');
          $('.ui-dialog-content:visible').dialog('close');
        })
        .catch(() => {});
      await new Promise((r) => setTimeout(r, 400));
    }
  });

  after(async function () {
    this.timeout(60000);
    if (browser) await browser.close();
  });

  // ---- helpers that drive the editor ----

  const field = (name, prefix = FLOW) => page.locator(`#${prefix}-${name}`);

  /** A message of `type`'s catalog, by its key under the type (`validators.path`). */
  function text(type, key, vars) {
    const found = key.split('.').reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), catalogs[type]);
    assert.equal(typeof found, 'string', `${type}.${key} is in the catalog`);
    // `vars` fill the message's __placeholders__ (a case's reasonVars)
    return vars ? found.replace(/__(\w+)__/g, (whole, name) => (name in vars ? String(vars[name]) : whole)) : found;
  }

  /** Whether `errors` (a node's validation errors) hold the message of catalog key `key`
   *  (its `__name__` placeholders stand for any text). */
  function hasReason(errors, type, key, vars) {
    const template = text(type, key, vars);
    const pattern = new RegExp(
      `^${template
        .split(/__\w+__/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return errors.some((e) => pattern.test(String(e)));
  }

  /** What a CASES `check` may use in the open dialog. */
  const dialogHelpers = { step: (s, prefix) => step(s, prefix), hasInputError: (name, prefix, expect) => hasInputError(name, prefix, expect) };

  /** Sets one field as a person does (see CASES). */
  /**
   * Opens a TypedInput menu with `trigger` and clicks its item `value`, unless `isChosen` (run in the
   * page with [selector, value]) already holds. The menu slides down; on a loaded machine a click
   * during the slide is sometimes lost (seen in CI: the menu stays open, nothing chosen): clicked again.
   */
  async function chooseFromMenu(trigger, value, isChosen, selector) {
    const holds = (timeout) =>
      page.waitForFunction(isChosen, [selector, value], { timeout }).then(
        () => true,
        () => false,
      );
    for (let attempt = 1; !(await holds(attempt === 1 ? 200 : 2000)); attempt++) {
      assert.ok(attempt <= 3, `${selector}: "${value}" chosen from the TypedInput's menu`);
      if (!(await page.locator('.red-ui-typedInput-options:visible').count())) await trigger.click();
      await page.locator(`.red-ui-typedInput-options:visible a[value="${value}"]`).click();
    }
  }

  async function step(s, prefix = FLOW) {
    if (s.fill) {
      // a typedInput hides the original <input> and shows its own text box
      const typed = await field(s.fill, prefix).evaluate((e) => e.classList.contains('red-ui-typedInput'));
      const input = typed ? page.locator(`#${prefix}-${s.fill} + .red-ui-typedInput-container input.red-ui-typedInput-input`) : field(s.fill, prefix);
      await input.fill(s.value);
      // the editor validates on change/keyup
      await input.dispatchEvent('change');
    } else if (s.typed) {
      const box = page.locator(`#${prefix}-${s.typed} + .red-ui-typedInput-container`);
      const sel = `#${prefix}-${s.typed}`;
      await chooseFromMenu(box.locator('button.red-ui-typedInput-type-select'), s.type, ([id, v]) => $(id).typedInput('type') === v, sel);
      const options = box.locator('button.red-ui-typedInput-option-trigger');
      if (await options.isVisible()) {
        await chooseFromMenu(options, s.value, ([id, v]) => $(id).typedInput('value') === v, sel);
      } else {
        const input = box.locator('input.red-ui-typedInput-input');
        await input.fill(s.value);
        await input.dispatchEvent('change');
      }
    } else if (s.select) {
      await field(s.select, prefix).selectOption(s.value);
    } else if (s.check) {
      await field(s.check, prefix).setChecked(s.value);
    } else if (s.config) {
      const list = field(s.config, prefix);
      const value =
        s.value === 'none' ? '_ADD_' : await list.locator('option').evaluateAll((os) => os.map((o) => o.value).find((v) => v && v !== '_ADD_'));
      assert.ok(value, `a configuration node to choose in #${prefix}-${s.config}`);
      await list.selectOption(value);
    } else if (s.rule) {
      // row `rule` (from 1) of detection-filter's rule list, added with the list's add button when missing
      const list = page.locator(`#${prefix}-rule-container`);
      const rows = list.locator(':scope > li');
      while ((await rows.count()) < s.rule)
        await page.locator('.red-ui-editableList', { has: list }).locator(':scope > .red-ui-editableList-addButton').click();
      const row = rows.nth(s.rule - 1);
      if (s.type) await row.locator('select.node-input-rule-type').selectOption(s.type);
      if (s.key !== undefined) await row.locator('input.node-input-rule-key').fill(s.key);
      if (s.value !== undefined) {
        const input = row
          .locator(
            'input.red-ui-typedInput-input, input.node-input-rule-text, input.node-input-rule-number, select.node-input-rule-kind, input.node-input-rule-context',
          )
          .filter({ visible: true })
          .first();
        if ((await input.evaluate((e) => e.tagName)) === 'SELECT') await input.selectOption(s.value);
        else {
          await input.fill(s.value);
          await input.dispatchEvent('change');
        }
      }
    } else if (s.crop) {
      const row = page.locator(`#${prefix}-crops-list li`).filter({ has: page.locator('code', { hasText: new RegExp(`^${s.crop}$`) }) });
      await row.locator('input[type=checkbox]').setChecked(s.value);
    } else {
      throw new Error(`unknown step ${JSON.stringify(s)}`);
    }
  }

  /** A node (flow or configuration) as the editor holds it. */
  function nodeState(id) {
    return page.evaluate((nodeId) => {
      const n = RED.nodes.node(nodeId);
      if (!n) return null;
      const props = {};
      for (const k of Object.keys(n._def.defaults || {})) props[k] = n[k];
      return { type: n.type, props, valid: n.valid, validationErrors: n.validationErrors || [], changed: n.changed, outputs: n.outputs };
    }, id);
  }

  function assertProps(state, expect, what) {
    for (const [k, v] of Object.entries(expect)) {
      if (v !== null && typeof v === 'object') {
        assert.deepEqual(state.props[k], v, `${what}.${k}`);
        continue;
      }
      // the editor saves <input> values as strings: 32 is "32"
      assert.ok(state.props[k] == v, `${what}.${k} saved as ${JSON.stringify(state.props[k])}, expected ${JSON.stringify(v)}`);
    }
  }

  /**
   * Whether node `id` comes to show (`shown`) or to hide its error triangle: the
   * workspace draws it on its next redraw, late on a busy machine.
   */
  async function errorTriangleComes(id, shown) {
    return page
      .locator(`[id="${id}"] .red-ui-flow-node-error`)
      .waitFor({ state: shown ? 'visible' : 'hidden', timeout: 10000 })
      .then(() => true)
      .catch(() => false);
  }

  async function outputPorts(id) {
    return page.locator(`[id="${id}"] .red-ui-flow-port-output`).count();
  }

  /**
   * Clicks a node on the workspace, once the click cannot make a double-click
   * with the last one on it (see the harness's nodeClickSpacing: a person is
   * never that quick after Done, this test is). The two clicks of a
   * double-click are held 30 ms each (without, both can fall in the same
   * millisecond, and that is no double-click).
   */
  async function clickNode(id, options) {
    await browser.nodeClickSpacing(id);
    const node = page.locator(`[id="${id}"] .red-ui-flow-node`);
    await (options && options.double ? node.dblclick({ delay: 30 }) : node.click());
    browser.nodeClicked(id);
  }

  const settled = (selector, text) => browser.settled(selector, text);

  /** Double-clicks the node on the workspace and waits for its edit tray (the harness's
   *  editNode: clicked again when a busy machine took the double-click as two clicks). */
  async function openDialog(id) {
    await browser.editNode(id);
  }

  /** Opens the dialog of the selected node again as a person may, with the
   *  Enter key (Node-RED's core:edit-selected-node); a double-click would have
   *  to wait out the workspace's double-click interval. */
  async function reopenDialog(id) {
    assert.deepEqual(await page.evaluate(() => (RED.view.selection().nodes || []).map((n) => n.id)), [id], 'the node is still selected');
    await page.keyboard.press('Enter');
    await browser.trayOpened('#node-dialog-ok');
  }

  /** The node's dialog, as the previous test left it open, or opened. */
  async function ensureDialog(type, id) {
    if (await page.locator('#dialog-form').isVisible()) {
      const title = await page
        .locator('.red-ui-tray')
        .filter({ has: page.locator('#dialog-form') })
        .locator('.red-ui-tray-titlebar')
        .innerText();
      assert.ok(title.includes(labels[type]), `the open dialog is the ${type}'s: ${title}`);
    } else {
      await openDialog(id);
    }
  }

  /** Waits until the edit tray has slid out and been removed. */
  async function trayClosed() {
    await page.waitForFunction(
      () =>
        document.querySelectorAll('.red-ui-tray').length === 0 && !$('#red-ui-editor-shade').is(':visible') && RED.view.state() === RED.state.DEFAULT,
    );
  }

  async function clickDone() {
    await page.locator('#node-dialog-ok').click();
    await trayClosed();
  }

  async function clickCancel() {
    await page.locator('#node-dialog-cancel').click();
    await trayClosed();
  }

  /** In a node's open dialog: the plus (`add`) or pencil (`edit`) button next
   *  to a configuration node field; waits for the configuration node's tray. */
  async function openConfig(prop, button) {
    await page.locator(`#${FLOW}-btn-${prop}-${button}`).click();
    await browser.trayOpened('#node-config-dialog-ok');
  }

  /** Add/Update (`ok`) or Cancel (`cancel`) in a configuration node's tray;
   *  waits until the node's own dialog is back. */
  async function closeConfig(button) {
    await page.locator(`#node-config-dialog-${button}`).click();
    await page.waitForFunction(() => !document.querySelector('#node-config-dialog-edit-form'), null, { polling: 'raf' });
    await settled('#node-dialog-ok');
  }

  /** In a node's open dialog, chooses the configuration nodes it needs (those
   *  whose list the dialog shows): one there is from the list, or a new one
   *  (plus button, the configuration type's valid values, Add). Returns the
   *  properties chosen. */
  async function chooseConfigNodes(type) {
    const chosen = [];
    for (const ref of defs[type].configRefs) {
      if (ref.optional || !(await field(ref.prop).isVisible())) continue;
      chosen.push(ref.prop);
      const value = await field(ref.prop).inputValue();
      if (value && value !== '_ADD_') continue;
      const existing = await field(ref.prop)
        .locator('option')
        .evaluateAll((os) => os.map((o) => o.value).filter((v) => v && v !== '_ADD_'));
      if (existing.length) {
        await field(ref.prop).selectOption(existing[0]);
        continue;
      }
      assert.ok(
        CASES[ref.type],
        `${type}.${ref.prop} needs a ${ref.type}: add valid values for ${ref.type} to CASES in ${path.relative(ROOT, __filename)}`,
      );
      await openConfig(ref.prop, 'add');
      for (const s of CASES[ref.type].valid.steps) await step(s, CONFIG);
      await closeConfig('ok');
      const added = await field(ref.prop).inputValue();
      assert.ok(added && added !== '_ADD_', `${type}.${ref.prop}: the new ${ref.type} is chosen`);
    }
    return chosen;
  }

  /**
   * The first flow node type of ours with a field for configuration type
   * `type` and the node the tests made of it.
   */
  function userOf(type) {
    const user = FLOW_TYPES.find((t) => defs[t].configRefs.some((r) => r.type === type));
    assert.ok(user, `no node type of ${MODULE} uses ${type}: the editor offers no way to create one`);
    assert.ok(nodeIds[user], `the ${user} node from its tests`);
    return { user, id: nodeIds[user], prop: defs[user].configRefs.find((r) => r.type === type).prop };
  }

  const sidebarTab = (id) => browser.sidebarTab(id);

  /** Fields of an open dialog marked as errors. */
  function markedFields(form = '#dialog-form') {
    return page.evaluate(
      (f) =>
        $(`${f} .input-error`)
          .map((i, e) => e.id || e.className)
          .get(),
      form,
    );
  }

  /**
   * Whether field `name` is marked input-error, once it is as `expect`ed or 5 s have passed: the editor
   * marks a field from its change handler, which a loaded machine may run a moment after the event.
   */
  async function hasInputError(name, prefix = FLOW, expect = true) {
    const id = `${prefix}-${name}`;
    const marked = () =>
      page.evaluate((i) => {
        const input = $(`#${i}`);
        return input.hasClass('input-error') || input.next('.red-ui-typedInput-container').hasClass('input-error');
      }, id);
    const end = Date.now() + 5000;
    let state = await marked();
    while (state !== expect && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = await marked();
    }
    return state;
  }

  /**
   * The open dialog of `type` (form `form`, fields `prefix`-…): a screenshot,
   * its title names the node, no catalog key shows, every label has text and
   * every field a label.
   */
  async function checkDialog(type, form, prefix) {
    const tray = page.locator('.red-ui-tray').filter({ has: page.locator(form) });
    await tray.screenshot({ path: path.join(ARTIFACTS, `dialog-${type}.png`) });
    const title = (await tray.locator('.red-ui-tray-titlebar').innerText()).trim();
    assert.ok(title.includes(labels[type]), `the dialog title "${title}" names the node "${labels[type]}"`);
    const dialog = await page.evaluate(
      ([formSel, pre]) => {
        const f = document.querySelector(formSel);
        const attrs = [...f.querySelectorAll('[placeholder], [title]')]
          .flatMap((e) => [e.getAttribute('placeholder'), e.getAttribute('title')])
          .filter(Boolean);
        return {
          visibleText: f.closest('.red-ui-tray').innerText,
          allText: f.textContent,
          attrs,
          labels: [...f.querySelectorAll(`label[for^="${pre}"]`)].map((l) => ({
            for: l.getAttribute('for'),
            text: l.textContent.replace(/\s+/g, ' ').trim(),
            target: !!document.getElementById(l.getAttribute('for')),
            visible: l.offsetParent !== null,
          })),
          // form rows with a field the user sees but no label text
          unlabelled: [...f.querySelectorAll('.form-row')]
            .filter(
              (row) =>
                row.offsetParent !== null &&
                [...row.querySelectorAll('input, select, textarea')].some((i) => i.type !== 'hidden' && i.offsetParent !== null),
            )
            .filter((row) => ![...row.querySelectorAll('label')].some((l) => l.textContent.trim() !== ''))
            .map((row) => (row.querySelector('[id]') ? row.querySelector('[id]').id : row.outerHTML.slice(0, 120))),
        };
      },
      [form, prefix],
    );
    const raw = [...dialog.visibleText.split('\n'), ...dialog.allText.split('\n'), ...dialog.attrs].filter((t) => RAW_KEY.test(t));
    assert.deepEqual(raw, [], `${type}: text in the dialog that is an untranslated catalog key`);
    assert.ok(dialog.labels.length >= 2, `${type}: labelled fields: ${JSON.stringify(dialog.labels)}`);
    for (const l of dialog.labels) {
      assert.notEqual(l.text, '', `${type}: label[for=${l.for}] has text`);
      assert.ok(l.target, `${type}: label[for=${l.for}] points at an element of the dialog`);
    }
    assert.deepEqual(dialog.unlabelled, [], `${type}: shown fields without a label`);
    assert.ok(
      dialog.labels.some((l) => l.for === `${prefix}-name` && l.visible),
      `${type}: a Name field`,
    );
  }

  /** The Help tab (opened from the Info tab) shows the help of `type`;
   *  back to the Info tab after. */
  async function checkHelp(type, showTopic) {
    const title = page.locator('.red-ui-help-title').filter({ visible: true });
    assert.equal(await title.count(), 0, 'the Help tab is not open yet (the previous test went back to Info)');
    await sidebarTab('help').click();
    if (showTopic) await showTopic();
    await settled('.red-ui-help-title', labels[type]);
    const help = page.locator('.red-ui-help').filter({ has: title });
    const headings = (await help.locator('h3').allInnerTexts()).map((h) => h.trim());
    // a configuration node's help, as core's, has Details and no Inputs or Outputs (it has no ports)
    const config = CONFIG_TYPES.includes(type);
    for (const h of config ? ['Details'] : ['Outputs', 'Details']) assert.ok(headings.includes(h), `help has a ${h} heading: ${headings.join(', ')}`);
    if (config)
      for (const h of ['Inputs', 'Outputs']) assert.ok(!headings.includes(h), `configuration node help has no ${h} heading: ${headings.join(', ')}`);
    const text = await help.innerText();
    assert.ok(text.length > 200, 'help has some text');
    assert.doesNotMatch(text, RAW_KEY);
    // the part of the help the sidebar shows (it scrolls the rest)
    const clip = await title.evaluate((el) => {
      const r = el.closest('.red-ui-help').getBoundingClientRect();
      let [top, bottom, left, right] = [r.top, r.bottom, r.left, r.right];
      for (let p = el.parentElement; p; p = p.parentElement) {
        if (p.scrollHeight > p.clientHeight + 1 && /auto|scroll|hidden/.test(getComputedStyle(p).overflowY)) {
          const v = p.getBoundingClientRect();
          [top, bottom, left, right] = [Math.max(top, v.top), Math.min(bottom, v.bottom), Math.max(left, v.left), Math.min(right, v.right)];
          break;
        }
      }
      return { x: left, y: top, width: right - left, height: bottom - top };
    });
    await page.screenshot({ path: path.join(ARTIFACTS, `help-${type}.png`), clip });
    await sidebarTab('info').click();
    await title.waitFor({ state: 'hidden' });
  }

  /** The invalid cases of `type`, as CASES gives them or, for a flow type
   *  without an entry, every required plain text field left empty. */
  async function invalidCases(type, id) {
    // the rest of CASES[type].invalid: test/unit/editor-validators.test.js, by the same validators
    if (CASES[type]) return browserCases(type);
    await openDialog(id);
    const required = await page.evaluate((t) => {
      const defaults = RED.nodes.getType(t).defaults;
      return Object.keys(defaults).filter(
        (k) => defaults[k].required && !defaults[k].type && $(`#node-input-${k}`).is('input[type=text]:visible, input[type=number]:visible'),
      );
    }, type);
    await clickCancel();
    const state = await nodeState(id);
    if (!required.length) console.log(`      (no invalid case known for ${type}: add one to CASES in ${path.relative(ROOT, __filename)})`);
    return required.map((k) => ({ steps: [{ fill: k, value: '' }], error: k, restore: [{ fill: k, value: String(state.props[k]) }] }));
  }

  // ---- the tests ----

  it(`opens the editor: every node type is in the palette under "${CATEGORY}" with its icon and label`, async function () {
    const category = page.locator('#red-ui-palette .red-ui-palette-category').filter({
      has: page.locator('.red-ui-palette-header', { hasText: new RegExp(`^\\s*${CATEGORY}\\s*$`) }),
    });
    assert.equal(await category.count(), 1, `one palette category "${CATEGORY}"`);
    const inCategory = await category.locator('.red-ui-palette-node').evaluateAll((els) => els.map((e) => e.getAttribute('data-palette-type')));
    assert.deepEqual([...inCategory].sort(), [...FLOW_TYPES].sort(), `the node types under "${CATEGORY}"`);
    for (const type of CONFIG_TYPES) {
      assert.equal(
        await page.locator(`#red-ui-palette .red-ui-palette-node[data-palette-type="${type}"]`).count(),
        0,
        `${type} is a configuration node: not in the palette`,
      );
    }

    for (const type of FLOW_TYPES) {
      const node = category.locator(`.red-ui-palette-node[data-palette-type="${type}"]`);
      await node.scrollIntoViewIfNeeded();
      assert.ok(await node.isVisible(), `${type} is visible in the palette`);
      const label = (await node.locator('.red-ui-palette-label').innerText()).replace(/\s+/g, ' ').trim();
      assert.equal(label, labels[type], `${type}: palette label`);
      assert.doesNotMatch(label, RAW_KEY);

      // the icon the node declares, from this module (not a fallback of Node-RED's)
      assert.ok(defs[type].icon, `${type} declares an icon`);
      assert.ok(fs.existsSync(path.join(ROOT, 'icons', defs[type].icon)), `${type}: icons/${defs[type].icon} is in the package`);
      const icon = await node.locator('.red-ui-palette-icon').evaluate((el) => {
        const bg = getComputedStyle(el).backgroundImage;
        const m = /^url\("?(.*?)"?\)$/.exec(bg);
        const r = el.getBoundingClientRect();
        return { bg, url: m && new URL(m[1], location.href).href, width: r.width, height: r.height };
      });
      assert.ok(icon.url, `${type}: the icon has a background image (${icon.bg})`);
      assert.equal(new URL(icon.url).pathname, `/icons/${MODULE}/${defs[type].icon}`, `${type}: icon URL`);
      assert.ok(icon.width > 0 && icon.height > 0, `${type}: the icon has a size`);
      const res = await page.request.get(icon.url);
      assert.equal(res.status(), 200, `GET ${icon.url}`);
      assert.match(res.headers()['content-type'], /^image\/svg\+xml/);
      // the browser can render it
      const size = await page.evaluate(async (src) => {
        const img = new Image();
        img.src = src;
        await img.decode();
        return [img.naturalWidth, img.naturalHeight];
      }, icon.url);
      assert.ok(size[0] > 0 && size[1] > 0, `${type}: the icon decodes as an image (${size})`);
    }
    await category.scrollIntoViewIfNeeded();
    await category.screenshot({ path: path.join(ARTIFACTS, 'palette.png') });
    noNewProblems();
  });

  FLOW_TYPES.forEach((type, index) => {
    const cases = CASES[type];

    it(`${type}: drags onto the workspace and its edit dialog shows every field with its label`, async function () {
      const before = await page.evaluate(() => RED.nodes.filterNodes({ z: RED.workspaces.active() }).map((n) => n.id));
      const paletteNode = page.locator(`#red-ui-palette .red-ui-palette-node[data-palette-type="${type}"]`);
      await paletteNode.scrollIntoViewIfNeeded();
      await paletteNode.dragTo(page.locator('#red-ui-workspace-chart'), {
        targetPosition: { x: 140 + (index % 4) * 180, y: 80 + Math.floor(index / 4) * 100 },
      });
      const added = await page.evaluate(
        (ids) =>
          RED.nodes
            .filterNodes({ z: RED.workspaces.active() })
            .filter((n) => !ids.includes(n.id))
            .map((n) => ({ id: n.id, type: n.type })),
        before,
      );
      assert.equal(added.length, 1, `one node added: ${JSON.stringify(added)}`);
      assert.equal(added[0].type, type);
      const id = added[0].id;
      nodeIds[type] = id;
      // valid with its defaults, but for the configuration nodes still to choose (or invalid for `fresh`)
      const fresh = await nodeState(id);
      const toChoose = defs[type].configRefs.map((r) => r.prop);
      // what the configuration node fields say while none is chosen: their validator's message, or the property's name
      const unchosen = await page.evaluate(
        ([nodeId, props]) => {
          const n = RED.nodes.node(nodeId);
          return props.map((p) => {
            const def = n._def.defaults[p];
            const said = typeof def.validate === 'function' ? def.validate.call(n, n[p], {}) : false;
            return typeof said === 'string' ? said : p;
          });
        },
        [id, toChoose],
      );
      const invalid = fresh.validationErrors.filter((e) => !unchosen.includes(e) && !toChoose.includes(String(e).split(':')[0].trim()));
      if (cases && cases.fresh) {
        assert.deepEqual(invalid, [text(type, cases.fresh)], `a new ${type} is invalid with its defaults, and says why`);
        assert.equal(fresh.valid, false, `a new ${type} is invalid`);
        assert.ok(await errorTriangleComes(id, true), `a new ${type} shows the error triangle`);
      } else {
        assert.deepEqual(invalid, [], `a new ${type} is valid with its defaults`);
        if (!toChoose.length) assert.equal(fresh.valid, true, `a new ${type} is valid: ${fresh.validationErrors}`);
      }

      await openDialog(id);
      await checkDialog(type, '#dialog-form', FLOW);
      if (index === 0) {
        // Cancel leaves the node as it was
        await field('name').fill('not saved');
        await clickCancel();
        assert.equal((await nodeState(id)).props.name, '', 'Cancel discards the edit');
      }
      // else the dialog stays open for the next test
      noNewProblems();
    });

    it(`${type}: the dialog saves valid input`, async function () {
      const id = nodeIds[type];
      assert.ok(id, 'the node from the previous test');
      await ensureDialog(type, id);
      const valid = (cases && cases.valid) || { steps: [], expect: {} };
      for (const s of valid.before || []) await step(s);
      const chosen = await chooseConfigNodes(type);
      for (const s of valid.steps) await step(s);
      await step({ fill: 'name', value: `e2e ${type}` });
      if (valid.check) await valid.check(page, nr, dialogHelpers);
      assert.deepEqual(await markedFields(), [], 'no field is marked as an error');
      await clickDone();

      const state = await nodeState(id);
      assertProps(state, { ...valid.expect, name: `e2e ${type}` }, type);
      for (const prop of chosen) assert.ok(state.props[prop], `${type}.${prop} saved the configuration node chosen`);
      // every configuration node the node refers to (those its mode needs, chosen above or in `check`)
      for (const ref of defs[type].configRefs.filter((r) => state.props[r.prop])) {
        const config = await nodeState(state.props[ref.prop]);
        assert.ok(config && config.type === ref.type, `${type}.${ref.prop} is a ${ref.type}: ${JSON.stringify(config)}`);
        assert.equal(config.valid, true, `the ${ref.type} is valid: ${config.validationErrors}`);
        assertProps(config, CASES[ref.type].valid.expect, ref.type);
      }
      assert.equal(state.valid, true, `${type} is valid: ${state.validationErrors}`);
      assert.equal(state.changed, true, 'the node is marked changed');
      assert.ok(await errorTriangleComes(id, false), 'no error triangle');
      if (valid.ports !== undefined) assert.equal(await outputPorts(id), valid.ports, 'output ports shown on the workspace');
      assert.ok(
        (await page.locator(`[id="${id}"] .red-ui-flow-node-label`).textContent()).includes(`e2e ${type}`),
        'the workspace shows the new name',
      );
      noNewProblems();
    });

    it(`${type}: the dialog flags invalid input`, async function () {
      const id = nodeIds[type];
      assert.ok(id, 'the node from the previous tests');
      const invalid = await invalidCases(type, id);
      this.timeout(timeoutForCases(invalid.length));
      assert.equal((await nodeState(id)).valid, true, 'valid before');
      // One dialog session for all cases: make the value invalid, Done, the
      // node is invalid; reopen, put a valid value back (the mark goes) and go
      // on with the next case; Done at the end: valid again.
      await openDialog(id);
      let n = 0;
      for (const c of invalid) {
        n += 1;
        const what = `case ${n} (${JSON.stringify(c.steps)})`;
        assert.deepEqual(await markedFields(), [], `${what}: no field is marked before`);
        for (const s of c.steps) await step(s);
        if (c.error) assert.ok(await hasInputError(c.error), `${what}: #node-input-${c.error} is marked input-error`);
        if (c.errorShown) assert.ok(await page.locator(c.errorShown).isVisible(), `${what}: ${c.errorShown} is shown`);
        if (n === 1)
          await page
            .locator('.red-ui-tray')
            .filter({ has: page.locator('#dialog-form') })
            .screenshot({ path: path.join(ARTIFACTS, `dialog-${type}-invalid.png`) });
        await clickDone();
        const after = await nodeState(id);
        assert.equal(after.valid, false, `${what}: the node is invalid after Done`);
        // every case written in CASES names its message (the generic cases of a type without an entry cannot)
        assert.ok(c.reason || !CASES[type], `${what}: give the reason (the catalog key of the message its validator returns)`);
        if (c.reason)
          assert.ok(
            hasReason(after.validationErrors, type, c.reason, c.reasonVars),
            `${what}: the reason "${text(type, c.reason, c.reasonVars)}" in ${after.validationErrors}`,
          );
        assert.ok(await errorTriangleComes(id, true), `${what}: the node shows the error triangle`);

        await reopenDialog(id);
        for (const s of c.restore) await step(s);
        if (c.error) assert.ok(!(await hasInputError(c.error, FLOW, false)), `${what}: the error mark goes once the value is valid`);
      }
      assert.deepEqual(await markedFields(), [], 'no field is marked after the last restore');
      await clickDone();
      const fixed = await nodeState(id);
      assert.equal(fixed.valid, true, `valid again: ${fixed.validationErrors}`);
      assert.ok(await errorTriangleComes(id, false), 'no error triangle once fixed');
      noNewProblems();
    });

    it(`${type}: the Help sidebar tab shows its help`, async function () {
      const id = nodeIds[type];
      assert.ok(id, 'the node from the previous tests');
      await page.locator('#red-ui-workspace-chart').click({ position: { x: 20, y: 400 } }); // deselect
      await clickNode(id);
      assert.deepEqual(await page.evaluate(() => RED.view.selection().nodes.map((n) => n.id)), [id], 'the node is selected');
      await checkHelp(type);
      noNewProblems();
    });
  });

  CONFIG_TYPES.forEach((type) => {
    it(`${type} (configuration node): its dialog opens from the pencil button of a node that uses it`, async function () {
      const { user, id, prop } = userOf(type);
      if (!(await nodeState(id)).props[prop]) {
        // an optional one the node's own tests left unchosen: add one first
        await ensureDialog(user, id);
        await openConfig(prop, 'add');
        for (const s of CASES[type].valid.steps) await step(s, CONFIG);
        await closeConfig('ok');
        await clickDone();
      }
      await openDialog(id);
      await openConfig(prop, 'edit');
      await checkDialog(type, '#node-config-dialog-edit-form', CONFIG);
      // the dialog stays open for the next test
      noNewProblems();
    });

    it(`${type} (configuration node): the dialog saves valid input`, async function () {
      const { user, id, prop } = userOf(type);
      const configId = (await nodeState(id)).props[prop];
      if (!(await page.locator('#node-config-dialog-edit-form').isVisible())) {
        await ensureDialog(user, id);
        await openConfig(prop, 'edit');
      }
      await step({ fill: 'name', value: `e2e ${type}` }, CONFIG);
      if (CASES[type].valid.check) await CASES[type].valid.check(page, nr, dialogHelpers);
      assert.deepEqual(await markedFields('#node-config-dialog-edit-form'), [], 'no field is marked as an error');
      await closeConfig('ok');
      assert.equal(await field(prop).inputValue(), configId, 'still the same configuration node');
      assert.equal((await field(prop).locator('option:checked').innerText()).trim(), `e2e ${type}`, `${user}'s ${prop} list shows the new name`);
      await clickDone();
      const config = await nodeState(configId);
      assertProps(config, { ...CASES[type].valid.expect, name: `e2e ${type}` }, type);
      assert.equal(config.valid, true, `valid: ${config.validationErrors}`);
      assert.equal((await nodeState(id)).valid, true, `the ${user} is valid`);
      noNewProblems();
    });

    it(`${type} (configuration node): the dialog flags invalid input`, async function () {
      // the rest of CASES[type].invalid: test/unit/editor-validators.test.js, by the same validators
      const invalid = browserCases(type);
      this.timeout(timeoutForCases(invalid.length));
      const { user, id, prop } = userOf(type);
      const configId = (await nodeState(id)).props[prop];
      await ensureDialog(user, id);
      let n = 0;
      for (const c of invalid) {
        n += 1;
        const what = `case ${n} (${JSON.stringify(c.steps)})`;
        await openConfig(prop, 'edit');
        assert.deepEqual(await markedFields('#node-config-dialog-edit-form'), [], `${what}: no field is marked before`);
        for (const s of c.steps) await step(s, CONFIG);
        assert.ok(await hasInputError(c.error, CONFIG), `${what}: #${CONFIG}-${c.error} is marked input-error`);
        if (n === 1)
          await page
            .locator('.red-ui-tray')
            .filter({ has: page.locator('#node-config-dialog-edit-form') })
            .screenshot({ path: path.join(ARTIFACTS, `dialog-${type}-invalid.png`) });
        await closeConfig('ok');
        const after = await nodeState(configId);
        assert.equal(after.valid, false, `${what}: the ${type} is invalid after Update`);
        assert.ok(c.reason, `${what}: give the reason (the catalog key of the message its validator returns)`);
        assert.ok(hasReason(after.validationErrors, type, c.reason), `${what}: the reason "${text(type, c.reason)}" in ${after.validationErrors}`);

        await openConfig(prop, 'edit');
        for (const s of c.restore) await step(s, CONFIG);
        assert.ok(!(await hasInputError(c.error, CONFIG, false)), `${what}: the error mark goes once the value is valid`);
        await closeConfig('ok');
        assert.equal((await nodeState(configId)).valid, true, `${what}: valid again`);
      }
      await clickDone();
      assert.equal((await nodeState(id)).valid, true, 'the node that uses it is valid');
      noNewProblems();
    });

    it(`${type} (configuration node): the Help sidebar tab shows its help (from the tab's list of topics)`, async function () {
      await checkHelp(type, async () => {
        const toc = page.locator('.red-ui-sidebar-help-toc');
        const topic = (text) => toc.locator('.red-ui-treeList-label').filter({ hasText: new RegExp(`^\\s*${text}\\s*$`) });
        if (!(await topic(labels[type]).isVisible())) await topic(MODULE).click();
        await topic(labels[type]).click();
      });
      noNewProblems();
    });
  });

  // ---- the dialogs of issue 28 together, as the merge left them ----

  /** Drags `type` from the palette to (`x`, `y`) of the workspace; the new node's id. */
  async function dropFromPalette(type, x, y) {
    const before = await page.evaluate(() => RED.nodes.filterNodes({ z: RED.workspaces.active() }).map((n) => n.id));
    const paletteNode = page.locator(`#red-ui-palette .red-ui-palette-node[data-palette-type="${type}"]`);
    await paletteNode.scrollIntoViewIfNeeded();
    await paletteNode.dragTo(page.locator('#red-ui-workspace-chart'), { targetPosition: { x, y } });
    const added = await page.evaluate((known) => RED.nodes.filterNodes({ z: RED.workspaces.active() }).filter((n) => !known.includes(n.id)), before);
    assert.equal(added.length, 1, `one ${type} added`);
    return added[0].id;
  }

  /** The filter's rule list in the open dialog: its box, its scroll box's heights, and the form's. */
  function ruleListBox() {
    return page.evaluate(() => {
      const scroller = $('#node-input-rule-container').parent()[0];
      const list = $('#node-input-rule-container').closest('.red-ui-editableList')[0];
      const form = $('#dialog-form')[0];
      return {
        scroll: scroller.scrollHeight,
        client: scroller.clientHeight,
        // from the form's top to the list's bottom, and the form's height as oneditresize set it
        bottom: list.getBoundingClientRect().bottom - form.getBoundingClientRect().top,
        form: form.getBoundingClientRect().height,
      };
    });
  }

  /** Whether the element `selector` (the first match) is shown inside the rule list's scroll box. */
  function inRuleList(selector) {
    return page.evaluate((sel) => {
      const a = document.querySelector(sel).getBoundingClientRect();
      const b = $('#node-input-rule-container').parent()[0].getBoundingClientRect();
      return a.height > 0 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1 && a.left >= b.left - 1 && a.right <= b.right + 1;
    }, selector);
  }

  /** The rows of the open filter dialog whose shown TypedInput stops short of its box (by more than 2 px): [row, short by]. */
  function shortTypedInputs() {
    return page.evaluate(() =>
      $('#node-input-rule-container > li')
        .map((i, li) => {
          const typed = $(li).find('.red-ui-typedInput-container:visible').first();
          if (!typed.length) return [];
          const gap = typed.parent()[0].getBoundingClientRect().right - typed[0].getBoundingClientRect().right;
          return gap > 2 ? [[i + 1, Math.round(gap)]] : [];
        })
        .get(),
    );
  }

  it('detection-filter: a plate rule and a time rule together: every rule and window in view, plate matching and its preview, saved and drawn again', async function () {
    const id = await dropFromPalette('detection-filter', 140, 520);
    await openDialog(id);
    assert.ok(!(await page.locator('#detection-filter-plates').isVisible()), 'no plate matching without a plate rule');
    await step({ rule: 1, type: 'plate', value: '8OB123' });
    await step({ rule: 2, type: 'time' });
    // rule 1 marked urgent: saved as u: true; rule 2, not marked, saves no u
    const urgentBox = (rule) => page.locator(`#node-input-rule-container > li:nth-child(${rule}) input.node-input-rule-urgent`);
    await urgentBox(1).check();
    assert.ok(await page.locator('#detection-filter-plates').isVisible(), 'plate matching shows with a plate rule');
    assert.ok(await page.locator('#detection-filter-time-tip').isVisible(), 'the tip on windows shows with a time rule');

    // the preview starts from the first plate of the list, and shows every read it lists
    assert.equal(await page.locator('#detection-filter-preview-entry').inputValue(), '8OB123');
    const preview = page.locator('#detection-filter-preview');
    await preview.locator('.detection-filter-preview-refused li').first().waitFor();
    assert.ok(
      await preview.evaluate((box) => box.scrollHeight <= box.clientHeight + 1),
      'the preview lists every read without a scroll bar of its own (the refused ones came last, hidden)',
    );

    // every rule, the time rule's window and its add button in view: the list is as tall as its rules
    let box = await ruleListBox();
    assert.ok(box.scroll <= box.client + 1, `the rule list shows both rules without a scroll bar of its own: ${JSON.stringify(box)}`);
    const row = '#node-input-rule-container > li:nth-child(2)';
    assert.ok(await inRuleList(`${row} .detection-filter-add-window`), 'the add-window button is in view');
    // a window's from, to and remove stay on one line
    const line = await page.evaluate((r) => {
      const mid = (sel) => {
        const b = document.querySelector(`${r} .detection-filter-window ${sel}`).getBoundingClientRect();
        return b.top + b.height / 2;
      };
      return { to: mid('.detection-filter-to'), remove: mid('.detection-filter-remove-window') };
    }, row);
    assert.ok(Math.abs(line.to - line.remove) < 4, `a window's remove button beside its times: ${JSON.stringify(line)}`);
    await page.locator(`${row} .detection-filter-add-window`).click();
    assert.equal(await page.locator(`${row} .detection-filter-window`).count(), 2);
    box = await ruleListBox();
    assert.ok(box.scroll <= box.client + 1, `a window added: the list grows with it: ${JSON.stringify(box)}`);
    assert.deepEqual(await shortTypedInputs(), [], 'each rule value box fills its row');
    await page
      .locator('.red-ui-tray')
      .filter({ has: page.locator('#dialog-form') })
      .screenshot({ path: path.join(ARTIFACTS, 'dialog-detection-filter-plate-and-time.png') });
    await clickDone();
    const saved = await nodeState(id);
    assert.deepEqual(saved.props.rules, [
      { t: 'plate', v: '8OB123', vt: 'list', u: true },
      { t: 'time', k: 'inside', v: '22:00-06:00; 22:00-06:00', vt: 'windows' },
    ]);
    assert.equal(saved.valid, true, `valid: ${saved.validationErrors}`);

    // drawn again from what was saved, in a tray of the width it opens with
    await openDialog(id);
    assert.equal(await page.locator(`${row} .detection-filter-window`).count(), 2, 'both windows drawn again from the text');
    assert.deepEqual([await urgentBox(1).isChecked(), await urgentBox(2).isChecked()], [true, false], 'the urgent boxes drawn again');
    assert.ok(await page.locator('#detection-filter-plates').isVisible());
    box = await ruleListBox();
    assert.ok(box.scroll <= box.client + 1, `reopened: both rules in view: ${JSON.stringify(box)}`);
    assert.deepEqual(await shortTypedInputs(), [], 'reopened: each rule value box fills its row');

    // a low window: the list is no taller than the form leaves it, and scrolls; tall again, it shows every rule
    for (let n = 3; n <= 6; n++) await step({ rule: n, type: 'camera-match', value: `Gate ${n}*` });
    await page.setViewportSize({ width: 1400, height: 650 });
    await page.waitForFunction(() => $('#dialog-form').height() < 450);
    box = await ruleListBox();
    assert.ok(box.scroll > box.client, `six rules in a low tray: the list scrolls: ${JSON.stringify(box)}`);
    assert.ok(box.bottom <= box.form + 1, `the list ends inside the form: ${JSON.stringify(box)}`);
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.waitForFunction(() => {
      const scroller = $('#node-input-rule-container').parent()[0];
      return $('#dialog-form').height() > 700 && scroller.scrollHeight <= scroller.clientHeight + 1;
    });
    await clickCancel();
    assert.equal((await nodeState(id)).props.rules.length, 2, 'Cancel keeps the rules saved');
    noNewProblems();
  });

  it('detection-dedupe: the cap on, the duplicates output turned off and on: each wire stays with what it carries', async function () {
    const flow = [
      {
        id: 'e2e0000000d0d001',
        type: 'detection-dedupe',
        name: 'e2e capped',
        mode: 'cooldown',
        key: 'plateAtCamera',
        keyType: 'event',
        duplicatesOutput: true,
        cap: true,
        capCount: 5,
        capPeriod: 1,
        capUnits: 'm',
        capPer: 'all',
        outputs: 3,
        x: 180,
        y: 40,
        wires: [[], ['e2e0000000d0d002'], ['e2e0000000d0d003']],
      },
      { id: 'e2e0000000d0d002', type: 'debug', name: 'e2e duplicates', x: 420, y: 40, wires: [] },
      { id: 'e2e0000000d0d003', type: 'debug', name: 'e2e digest', x: 420, y: 100, wires: [] },
    ];
    await browser.pasteNodes(flow);
    await browser.place(60, -160);
    const id = await page.evaluate(
      () => RED.nodes.filterNodes({ z: RED.workspaces.active(), type: 'detection-dedupe' }).find((n) => n.name === 'e2e capped').id,
    );
    const wires = () =>
      page.evaluate((nodeId) => {
        const n = RED.nodes.node(nodeId);
        return {
          outputs: Number(n.outputs),
          wires: RED.nodes
            .filterLinks({ source: n })
            .map((l) => [Number(l.sourcePort), l.target.name])
            .sort(),
        };
      }, id);
    assert.deepEqual(await wires(), {
      outputs: 3,
      wires: [
        [1, 'e2e duplicates'],
        [2, 'e2e digest'],
      ],
    });
    await openDialog(id);
    await step({ check: 'duplicatesOutput', value: false });
    await clickDone();
    assert.deepEqual(
      await wires(),
      { outputs: 2, wires: [[1, 'e2e digest']] },
      'duplicates off: the digest moves up with its wire; the duplicates wire goes',
    );
    assert.equal(await outputPorts(id), 2);
    await openDialog(id);
    await step({ check: 'duplicatesOutput', value: true });
    await clickDone();
    assert.deepEqual(await wires(), { outputs: 3, wires: [[2, 'e2e digest']] }, 'duplicates on again: the digest moves down with its wire');
    await openDialog(id);
    await step({ check: 'cap', value: false });
    await clickDone();
    assert.deepEqual(await wires(), { outputs: 2, wires: [] }, 'the cap off: its digest wire goes');
    assert.equal(await outputPorts(id), 2);
    noNewProblems();
  });

  it('saw no errors in the browser console and none in the Node-RED log', function () {
    assert.deepEqual(browser.problems, [], 'browser console errors, uncaught errors and failed requests');
    assert.deepEqual(browser.external, []);
    assert.deepEqual(nr.errorLines(), []);
  });
});
