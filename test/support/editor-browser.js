'use strict';
// Functions run inside the page (page.evaluate) use the browser's and the editor's globals.
/* global window, document, getComputedStyle, innerWidth, innerHeight, NodeFilter, RED, $ */
/**
 * The Node-RED editor in a headless Chromium, for the browser tests: a fresh
 * Node-RED with the packed module (NodeRedProcess) and Chromium start side by
 * side; every request off 127.0.0.1 is refused and recorded, except the
 * palette manager's fetch of the public node catalogue, which gets an empty
 * one (no network here, and that fetch is not about our nodes); console
 * errors and warnings, uncaught page errors, errors the editor caught from a
 * node definition and failed responses are collected in `problems`.
 *
 * Steps a person takes that several tests share live here too: waiting for a
 * tray or dialog to stop moving, the sidebar tab buttons of Node-RED 4 and 5,
 * Menu → Import → Examples, placing what was imported, Deploy.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('./index');
const { MODULE, NodeRedProcess } = require('./nodered-process');

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];
/** How the editor logs an error it caught from a node definition's function. */
const EDITOR_CAUGHT = /^(Definition error|oneditprepare|oneditsave|oneditcancel|oneditresize|oneditdelete|Validation error)\b/;
/** The sidebar's content: one element in Node-RED 4, a top and a bottom section in Node-RED 5. */
const SIDEBAR = ':is(#red-ui-sidebar-content, .red-ui-sidebar-content)';

class EditorBrowser {
  /** False (after saying why) where Chromium is not installed: the caller skips. */
  static available() {
    if (fs.existsSync(CHROMIUM)) return true;
    console.log(`      SKIPPED: the browser test needs Chromium at ${CHROMIUM} (apt-get install chromium); it is not installed here`);
    return false;
  }

  /**
   * Starts Node-RED (the packed module, `modules` installed beside it,
   * `settings` added; the welcome tour and the tips off) and Chromium (`locale`,
   * `viewport`) at once. `artifacts`: a directory emptied for screenshots.
   * `codeEditor`: the editor's code editor (its `editorTheme.codeEditor.lib`), Ace
   * unless a test asks for Monaco, Node-RED's default: every edit dialog builds one
   * for its Description tab, none of our dialogs uses one, and a dialog opened and
   * closed took 0.57 s of the machine's CPU with Ace, 0.86 s with Monaco (editor.test.js:
   * 94 s instead of 112 s; alone, 2026-12-04). languages.test.js keeps Monaco.
   */
  static async start({
    settings = {},
    modules = [],
    locale = 'en-US',
    viewport = { width: 1400, height: 1000 },
    artifacts,
    timeout = 15000,
    codeEditor = 'ace',
  } = {}) {
    let chromium;
    try {
      ({ chromium } = require('playwright-core'));
    } catch (err) {
      throw new Error(`playwright-core is not installed: it is a dev dependency of this package (npm install): ${err.message}`, { cause: err });
    }
    const browser = new EditorBrowser(artifacts);
    if (artifacts) {
      fs.rmSync(artifacts, { recursive: true, force: true });
      fs.mkdirSync(artifacts, { recursive: true });
    }
    browser.userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detection-bridge-chromium-'));
    const [launched, nodeRed] = await Promise.allSettled([
      chromium.launchPersistentContext(browser.userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport, locale }),
      (async () => {
        // tours: false — a fresh user directory opens with the "Welcome to Node-RED" tour, a modal over the editor.
        browser.nr = await NodeRedProcess.create({
          settings: { editorTheme: { tours: false, codeEditor: { lib: codeEditor } }, ...settings },
          modules,
        });
        // Tips off: Node-RED 5.0 starts the Help tab's tip timer (1 s) before the
        // tab has drawn its tip box, and on a slow machine the timer throws
        // "reading 'html'" into the page. "_" is the user without adminAuth.
        fs.writeFileSync(
          path.join(browser.nr.userDir, '.config.users.json'),
          JSON.stringify({ _: { editor: { view: { 'view-show-tips': false } } } }),
        );
        await browser.nr.start();
      })(),
    ]);
    if (launched.status === 'fulfilled') browser.context = launched.value;
    if (launched.status === 'rejected' || nodeRed.status === 'rejected') {
      await browser.close();
      if (launched.status === 'rejected') throw new Error(`Chromium (${CHROMIUM}) did not start: ${launched.reason.message}`);
      throw nodeRed.reason;
    }
    browser.context.setDefaultTimeout(timeout);
    // Animations off (CSS transitions and animations, jQuery's effects): what moves ends at once. The tests
    // check what dialogs and sidebars show, not how they slide in, and Chromium drew every frame of it:
    // editor.test.js alone took 281 s of the machine's CPU with them, 200 s without (two runs each).
    await browser.context.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        const style = document.createElement('style');
        style.textContent = '*, *::before, *::after { transition: none !important; animation: none !important; }';
        document.head.appendChild(style);
        if (window.jQuery) window.jQuery.fx.off = true;
      });
    });
    await browser.context.route(
      (url) => url.hostname !== '127.0.0.1',
      (route) => {
        const u = new URL(route.request().url());
        if (u.hostname === 'catalogue.nodered.org') {
          return route.fulfill({
            status: 200,
            contentType: 'application/json',
            body: JSON.stringify({ name: 'Node-RED Community catalogue', updated_at: new Date().toISOString(), modules: [] }),
          });
        }
        browser.external.push(route.request().url());
        return route.abort();
      },
    );
    browser.page = browser.context.pages()[0] || (await browser.context.newPage());
    browser.watch(browser.page);
    if (process.env.DETECTION_BRIDGE_SCREENSHOTS === 'failures') onlyFailureScreenshots(browser.page);
    return browser;
  }

  constructor(artifacts) {
    this.artifacts = artifacts;
    /** Browser console errors and warnings, uncaught page errors, errors the editor caught, failed requests. */
    this.problems = [];
    /** Requests that left 127.0.0.1. */
    this.external = [];
    this.problemsSeen = 0;
  }

  /** Collects what goes wrong in `page` into `problems`. Nothing in the console is ignored. */
  watch(page) {
    page.on('console', (m) => {
      const where = `(${m.location().url}:${m.location().lineNumber})`;
      if (m.type() === 'error' || m.type() === 'warning') this.problems.push(`console.${m.type()}: ${m.text()} ${where}`);
      // The editor catches what a node definition throws (label, oneditprepare, validate, …) and only console.logs it.
      else if (EDITOR_CAUGHT.test(m.text())) this.problems.push(`console.${m.type()} (an error the editor caught): ${m.text()} ${where}`);
    });
    page.on('pageerror', (err) => this.problems.push(`uncaught: ${err.stack || err.message}`));
    page.on('response', (r) => {
      if (r.status() >= 400) this.problems.push(`HTTP ${r.status()} for ${r.request().method()} ${r.url()}`);
    });
    page.on('requestfailed', (r) => {
      const why = r.failure() && r.failure().errorText;
      // Ace's syntax worker, fetched as a code editor opens, is cancelled by the editor when the dialog
      // closes first (a function node's Done on a busy machine): Node-RED's, not a failure.
      if (why === 'net::ERR_ABORTED' && /\/vendor\/ace\/worker-[\w-]+\.js$/.test(new URL(r.url()).pathname)) return;
      if (!this.external.includes(r.url())) this.problems.push(`request failed: ${r.url()} (${why})`);
    });
  }

  /** The problems seen since the last call. */
  newProblems() {
    const fresh = this.problems.slice(this.problemsSeen);
    this.problemsSeen = this.problems.length;
    return fresh;
  }

  /** Opens the editor (`query`, e.g. `?lang=de`) and waits until it is loaded with `types` registered. */
  async openEditor(types = [], query = '') {
    // the editor's first load fetches every script and catalog: on a loaded 2-core machine it took over 10 s
    await this.page.goto(`${this.nr.url}/${query}`, { timeout: 60000 });
    await this.page.waitForFunction(
      (ts) =>
        window.RED &&
        RED.nodes &&
        RED.workspaces &&
        RED.workspaces.active() &&
        ts.every((t) => RED.nodes.getType(t)) &&
        document.querySelectorAll('#red-ui-palette .red-ui-palette-node').length > 0,
      types,
      { timeout: 30000 },
    );
  }

  /**
   * Waits until an element matching `selector` (with `text`, the first whose
   * text is `text`) is inside the window and has stopped moving: trays and
   * dialogs slide in. Checks on every animation frame, where Playwright's own
   * waits back off to half a second between checks.
   */
  async settled(selector, text) {
    await this.page.waitForFunction(
      ([sel, txt]) => {
        const el = [...document.querySelectorAll(sel)].find((e) => txt === undefined || e.textContent.trim() === txt);
        const r = el && el.offsetParent !== null ? el.getBoundingClientRect() : null;
        const shown = r && r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;
        const key = shown ? `${sel}|${txt}|${r.left},${r.top},${r.width},${r.height}` : null;
        const same = key !== null && window.__e2eSettled === key;
        window.__e2eSettled = key;
        return same;
      },
      [selector, text],
      { polling: 'raf' },
    );
  }

  /**
   * Waits until the edit tray just opened is ready for typing: its `okButton` has stopped moving, and
   * Node-RED has ended its opening. 150 ms after it shows a tray, Node-RED focuses the tray's first
   * field and refreshes the sidebars; a value typed before that can be lost (seen with animations off,
   * where the tray stands still at once).
   */
  async trayOpened(okButton) {
    await this.settled(okButton);
    await this.page.waitForFunction(() => {
      const trays = document.querySelectorAll('.red-ui-tray');
      // Node-RED lowers the tray stack as a tray opens and raises it again once the tray's last
      // resize ran (tray.js raiseTrayZ, in 4 and 5): a dialog closed before that resize meets it
      // half taken down (the comment node's oneditresize, its text editor gone)
      const raised = getComputedStyle(document.getElementById('red-ui-editor-stack')).zIndex === '13';
      return raised && trays.length > 0 && trays[trays.length - 1].contains(document.activeElement);
    });
  }

  /**
   * The button that opens a sidebar tab. Node-RED 4: a tab of the sidebar's
   * tab strip, or its icon button (only the active tab has a label when the
   * sidebar is narrow); Node-RED 5: a button of the sidebar tab bar.
   */
  sidebarTab(id) {
    return this.page
      .locator(`#red-ui-tab-${id} .red-ui-tab-label, #red-ui-tab-${id}-link-button, button[data-tab-id="${id}"]`)
      .filter({ visible: true })
      .first();
  }

  /** Opens the sidebar tab `id` unless its content (`contentSelector`) is shown already (Node-RED 5's tab buttons toggle); waits until it shows. */
  async showSidebarTab(id, contentSelector) {
    if (!(await this.page.evaluate(sidebarShows, [contentSelector, SIDEBAR]))) await this.sidebarTab(id).click();
    await this.page.waitForFunction(sidebarShows, [contentSelector, SIDEBAR]);
  }

  /** Menu → Import, waiting for the dialog (it is built as it opens) to stand still. */
  async openImportDialog() {
    await this.page.locator('#red-ui-header-button-sidemenu').click();
    await this.page.locator('#menu-item-import').click();
    await this.settled('#red-ui-clipboard-dialog-ok');
  }

  /**
   * Menu → Import → Examples → `module` → `name`, imported into a new flow,
   * which becomes the active one. Resolves with the names the module's folder
   * listed. The imported nodes then hang on the mouse: see place().
   */
  async importExample(name, module = MODULE) {
    const page = this.page;
    const workspaceBefore = await page.evaluate(() => RED.workspaces.active());
    await this.openImportDialog();
    await page.locator('#red-ui-tab-red-ui-clipboard-dialog-import-tab-examples .red-ui-tab-label').click();
    const lib = page.locator('#red-ui-clipboard-dialog-import-tab-examples');
    const treeLabel = '#red-ui-clipboard-dialog-import-tab-examples .red-ui-treeList-label-text';
    await this.settled(treeLabel, module);
    const labelOf = (text) =>
      lib
        .locator('.red-ui-treeList-label')
        .filter({ has: page.locator('.red-ui-treeList-label-text', { hasText: new RegExp(`^${escape(text)}$`) }) });
    // The folder opens on a click; a click that lands while the tree is still being
    // drawn is sometimes lost (seen in Node-RED 4.1): click again while it is shut.
    for (let attempt = 1; ; attempt++) {
      await labelOf(module).click();
      const opened = await labelOf(name)
        .waitFor({ state: 'visible', timeout: 3000 })
        .then(
          () => true,
          () => false,
        );
      if (opened || attempt === 3) break;
    }
    // The folder lists 20 examples and more: one low in the list is shown once scrolled to.
    await labelOf(name).scrollIntoViewIfNeeded();
    await this.settled(treeLabel, name);
    const listed = await lib.locator('.red-ui-treeList-label-text').allInnerTexts();
    // Picking the example fetches its flow, then enables Import; a click lost while the
    // tree redraws (or a slow fetch on a busy machine) leaves it disabled: pick it again.
    const importButton = page.locator('#red-ui-clipboard-dialog-ok');
    for (let attempt = 1; ; attempt++) {
      await labelOf(name).click();
      const enabled = await page
        .waitForFunction(() => !document.querySelector('#red-ui-clipboard-dialog-ok')?.disabled, null, { timeout: 5000 })
        .then(
          () => true,
          () => false,
        );
      if (enabled || attempt === 3) break;
    }
    await page.locator('#red-ui-clipboard-dialog-import-opt-new').click();
    await importButton.click();
    await page.waitForFunction(
      (ws) => RED.workspaces.active() !== ws && RED.nodes.filterNodes({ z: RED.workspaces.active() }).length > 0,
      workspaceBefore,
    );
    return listed;
  }

  /** Menu → Import → the clipboard tab: pastes `nodes` (JSON) and imports them into the active flow. */
  async pasteNodes(nodes) {
    await this.openImportDialog();
    const pasteBox = this.page.locator('#red-ui-clipboard-dialog-import-text');
    await pasteBox.fill(JSON.stringify(nodes));
    await pasteBox.press('End'); // the dialog checks the JSON on keyup
    await this.page.locator('#red-ui-clipboard-dialog-ok').click();
  }

  /** Imported nodes hang on the mouse until a click on the workspace places them: clicks at (`dx`, `dy`) from its top left (negative: from the bottom). */
  async place(dx = 40, dy = 40) {
    const chart = await this.page.locator('#red-ui-workspace-chart').boundingBox();
    const x = chart.x + dx;
    const y = dy < 0 ? chart.y + chart.height + dy : chart.y + dy;
    await this.page.mouse.move(x, y);
    await this.page.mouse.click(x, y);
    await this.page.waitForFunction(() => RED.view.state() === RED.state.DEFAULT);
  }

  /** The nodes of the active flow: id, type, name, valid and validation errors. */
  flowNodes() {
    return this.page.evaluate(() =>
      RED.nodes
        .filterNodes({ z: RED.workspaces.active() })
        .map((n) => ({ id: n.id, type: n.type, name: n.name, valid: n.valid, errors: n.validationErrors || [] })),
    );
  }

  /**
   * The Deploy button; `confirm`: accept the editor's "flow has invalid nodes" question, with the
   * button the editor labels in its own language (its catalog's deploy.confirm.button.confirm:
   * "Confirm deploy" in English). Waits until deployed.
   */
  async deploy({ confirm = false } = {}) {
    await this.page.locator('#red-ui-header-button-deploy').click();
    if (confirm) {
      const label = await this.page.evaluate(() => RED._('deploy.confirm.button.confirm'));
      await this.page.getByRole('button', { name: label, exact: true }).click();
    }
    await this.page.waitForFunction(() => !RED.nodes.dirty(), null, { timeout: 30000 });
  }

  /** Drags `type` from the palette onto the workspace at (`x`, `y`), opening its palette category if it is shut; the new node's id. */
  async fromPalette(type, x, y) {
    const page = this.page;
    const before = await page.evaluate(() => RED.nodes.filterNodes({ z: RED.workspaces.active() }).map((n) => n.id));
    const paletteNode = page.locator(`#red-ui-palette .red-ui-palette-node[data-palette-type="${type}"]`);
    if (!(await paletteNode.isVisible())) {
      const category = page.locator('#red-ui-palette .red-ui-palette-category').filter({ has: paletteNode });
      await category.locator('.red-ui-palette-header').click();
      await paletteNode.waitFor({ state: 'visible' });
    }
    await paletteNode.scrollIntoViewIfNeeded();
    await paletteNode.dragTo(page.locator('#red-ui-workspace-chart'), { targetPosition: { x, y } });
    const added = await page.evaluate(
      (known) =>
        RED.nodes
          .filterNodes({ z: RED.workspaces.active() })
          .filter((n) => !known.includes(n.id))
          .map((n) => ({ id: n.id, type: n.type })),
      before,
    );
    assert.deepEqual(
      added.map((n) => n.type),
      [type],
      `one ${type} added from the palette`,
    );
    return added[0].id;
  }

  /** Drags a wire from output `port` of node `from` to the input of node `to`, and waits for the link. */
  async wire(from, port, to) {
    const page = this.page;
    const out = await page.locator(`[id="${from}"] .red-ui-flow-port-output`).nth(port).boundingBox();
    const into = await page.locator(`[id="${to}"] .red-ui-flow-port-input`).boundingBox();
    assert.ok(out && into, `the ports of ${from} (output ${port}) and ${to} are on the workspace`);
    await page.mouse.move(out.x + out.width / 2, out.y + out.height / 2);
    await page.mouse.down();
    await page.mouse.move(into.x + into.width / 2, into.y + into.height / 2, { steps: 10 });
    await page.mouse.up();
    await page.waitForFunction(
      ([f, p, t]) => RED.nodes.filterLinks({ source: RED.nodes.node(f), target: RED.nodes.node(t) }).some((l) => Number(l.sourcePort) === p),
      [from, port, to],
    );
  }

  /** Done in the open edit tray; waits until the tray has gone. */
  async doneEdit() {
    await this.page.locator('#node-dialog-ok').click();
    await this.page.waitForFunction(() => document.querySelectorAll('.red-ui-tray').length === 0 && RED.view.state() === RED.state.DEFAULT);
  }

  /**
   * Opens a TypedInput menu with `trigger` and clicks its item `value` until `isChosen` holds (run in
   * the page with [selector, value]). The menu slides down; on a loaded machine a click during the
   * slide is now and then lost (the menu stays open, nothing chosen): clicked again, at most thrice.
   */
  async chooseFromMenu(trigger, value, isChosen, selector) {
    const page = this.page;
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

  /** The status text the workspace shows under node `id` ('' when none). */
  statusShown(id) {
    return this.page.evaluate((nodeId) => {
      const label = document.querySelector(`[id="${nodeId}"] .red-ui-flow-node-status-label`);
      return label ? label.textContent : '';
    }, id);
  }

  /** Waits until the workspace shows `text` under node `id`; fails saying what it showed. */
  async statusShows(id, text, timeout = 20000) {
    await this.page
      .waitForFunction(
        ([nodeId, t]) => {
          const label = document.querySelector(`[id="${nodeId}"] .red-ui-flow-node-status-label`);
          return !!label && label.textContent === t;
        },
        [id, text],
        { timeout },
      )
      .catch(async () => {
        throw new Error(`the workspace shows "${await this.statusShown(id)}" under ${id}, not "${text}"`);
      });
  }

  /**
   * Waits until a click on node `id` cannot make a double-click with the last
   * click on it: the workspace makes its own double-click out of two mousedowns
   * on one node less than 650 ms apart (on two different nodes, never).
   */
  async nodeClickSpacing(id) {
    const last = this.lastNodeClick;
    const wait = last && last.id === id ? last.at + 700 - Date.now() : 0;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }

  /** Notes a click on node `id`, for nodeClickSpacing(). */
  nodeClicked(id) {
    this.lastNodeClick = { id, at: Date.now() };
  }

  /** Double-clicks node `id` on the workspace (see nodeClickSpacing) and waits for its edit tray. */
  async editNode(id) {
    await this.nodeClickSpacing(id);
    // On a busy machine a double-click is now and then taken as two clicks (the node is only
    // selected): clicked again while no tray has opened, at most three times.
    for (let attempt = 1; ; attempt++) {
      await this.page.locator(`[id="${id}"] .red-ui-flow-node`).dblclick({ delay: 30 });
      this.nodeClicked(id);
      const opened = await this.page
        .waitForFunction(() => document.querySelectorAll('.red-ui-tray').length > 0, null, { timeout: 5000 })
        .then(
          () => true,
          () => false,
        );
      if (opened || attempt === 3) break;
      await new Promise((r) => setTimeout(r, 700));
    }
    await this.trayOpened('#node-dialog-ok');
  }

  /** Cancel in the open edit tray; waits until the tray has gone. */
  async cancelEdit() {
    await this.page.locator('#node-dialog-cancel').click();
    await this.page.waitForFunction(() => document.querySelectorAll('.red-ui-tray').length === 0 && RED.view.state() === RED.state.DEFAULT);
  }

  /** In a node's open dialog: the pencil button next to configuration node field `prop`; waits for the configuration node's tray. */
  async editConfigOf(prop) {
    await this.page.locator(`#node-input-btn-${prop}-edit`).click();
    await this.trayOpened('#node-config-dialog-ok');
  }

  /** Cancel in a configuration node's tray; waits until the node's own dialog is back. */
  async cancelConfigEdit() {
    await this.page.locator('#node-config-dialog-cancel').click();
    await this.page.waitForFunction(() => !document.querySelector('#node-config-dialog-edit-form'), null, { polling: 'raf' });
    await this.settled('#node-dialog-ok');
  }

  /** The book button in the footer of the tray holding `form`: the Help sidebar shows that node type's help; waits until its title is `title`. */
  async helpFromTray(form, title) {
    const tray = this.page.locator('.red-ui-tray').filter({ has: this.page.locator(form) });
    await tray
      .locator('.red-ui-tray-footer button')
      .filter({ has: this.page.locator('i.fa-book') })
      .click();
    await this.settled('.red-ui-help-title', title);
  }

  /**
   * Every text the tray holding `form` shows or can show, whitespace
   * collapsed: each text node (of hidden rows too) and each element's whole
   * text (a sentence split by markup), placeholders, titles and aria-labels,
   * the lines the tray shows, and the entries of the TypedInput type menus.
   * Text inside <code> and <textarea> is left out: identifiers and values,
   * not words. With `cycle`, every <select> of the dialog but the
   * configuration node lists (whose "add new" would open another tray) is
   * set to each of its options in turn, as its change handlers then write
   * other texts (tips, problems); its value is put back after.
   */
  dialogTexts(form, { cycle = true } = {}) {
    return this.page.evaluate(
      ([formSel, cycleSelects]) => {
        const f = document.querySelector(formSel);
        const tray = f.closest('.red-ui-tray') || f;
        const texts = new Set();
        const add = (t) => {
          const s = (t || '').replace(/\s+/g, ' ').trim();
          if (s) texts.add(s);
        };
        const literal = (el) => el && el.closest('code, textarea, script, style');
        const collect = () => {
          const walker = document.createTreeWalker(tray, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) if (!literal(n.parentElement)) add(n.nodeValue);
          for (const el of tray.querySelectorAll('*')) {
            if (literal(el)) continue;
            if (el.children.length && el.textContent.length < 1000) {
              const copy = el.cloneNode(true);
              copy.querySelectorAll('code, textarea, script, style').forEach((c) => c.remove());
              add(copy.textContent);
            }
            for (const a of ['placeholder', 'title', 'aria-label']) add(el.getAttribute(a));
          }
          tray.innerText.split('\n').forEach(add);
          document.querySelectorAll('.red-ui-typedInput-options a').forEach((a) => add(a.textContent));
        };
        collect();
        if (cycleSelects) {
          for (const select of f.querySelectorAll('select')) {
            if (select.querySelector('option[value="_ADD_"]')) continue;
            const was = select.value;
            for (const option of [...select.options]) {
              $(select).val(option.value).trigger('change');
              collect();
            }
            $(select).val(was).trigger('change');
          }
        }
        return [...texts];
      },
      [form, cycle],
    );
  }

  /** A screenshot of the page into the artifacts when `test` failed (mocha's this.currentTest). */
  async screenshotIfFailed(test) {
    if (!(test && test.state === 'failed' && this.page && this.artifacts)) return;
    const file = path.join(this.artifacts, `FAILED-${test.title.replace(/[^\w.-]+/g, '_').slice(0, 80)}.png`);
    await this.page.screenshot({ path: file }).then(
      () => console.log(`      (screenshot of the failure: ${path.relative(ROOT, file)})`),
      () => {},
    );
  }

  /** Closes Chromium, removes its profile, stops Node-RED and removes its user directory; prints the problems seen. */
  async close() {
    if (this.problems.length) console.log(`\n---- browser problems ----\n${this.problems.join('\n')}\n----`);
    if (this.context) await this.context.close().catch((err) => console.log(`closing Chromium: ${err.message}`));
    if (this.userDataDir) fs.rmSync(this.userDataDir, { recursive: true, force: true, maxRetries: 3 });
    if (this.nr) await this.nr.cleanup();
  }
}

/**
 * DETECTION_BRIDGE_SCREENSHOTS=failures (.ci/pipeline.js): the screenshots the tests take for people
 * to look at are not taken, those of a failure (FAILED-*.png) are. No run keeps the others, and each
 * cost Chromium 0.3-0.5 s of a busy 2-core machine (about 90 a Node-RED version). What taking one
 * waits for stays: an element's screenshot waits until it is visible, so that wait is kept.
 */
function onlyFailureScreenshots(page) {
  const skip = (options) => !(options && typeof options.path === 'string' && path.basename(options.path).startsWith('FAILED-'));
  for (const proto of [Object.getPrototypeOf(page), Object.getPrototypeOf(page.locator('body'))]) {
    if (proto.screenshotTaken) continue;
    proto.screenshotTaken = proto.screenshot;
    const isPage = proto === Object.getPrototypeOf(page);
    proto.screenshot = async function (options) {
      if (!skip(options)) return this.screenshotTaken(options);
      if (!isPage) await this.waitFor({ state: 'visible', timeout: options && options.timeout });
      return Buffer.alloc(0);
    };
  }
}

/** The id of the one node of `nodes` (EditorBrowser.flowNodes) with `type` (and `name`); fails unless exactly one. */
function onlyNode(nodes, type, name) {
  const found = nodes.filter((n) => n.type === type && (name === undefined || n.name === name));
  assert.equal(found.length, 1, `one ${type}${name ? ` "${name}"` : ''} in the flow: ${JSON.stringify(nodes)}`);
  return found[0].id;
}

/** In the page: whether the element `sel` is shown inside the sidebar. */
function sidebarShows([sel, sidebar]) {
  const el = document.querySelector(sel);
  const box = el && el.closest(sidebar);
  const r = box && el.offsetParent !== null ? box.getBoundingClientRect() : null;
  return Boolean(r && r.width > 0 && r.height > 0);
}

/** `text` as a literal inside a RegExp. */
function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

module.exports = { CHROMIUM, CHROMIUM_ARGS, EDITOR_CAUGHT, SIDEBAR, EditorBrowser, onlyNode };
