'use strict';
// Functions run inside the page (page.evaluate) use the browser's and the editor's globals.
/* global document, DOMParser, RED */
/**
 * End to end: the editor in German and in Japanese (issue 14).
 *
 * For each language a fresh Node-RED with the packed module and a headless
 * Chromium whose locale is that language open the editor as a German or
 * Japanese user's browser does. Which language the editor takes: Node-RED's
 * editor (RED.i18n in @node-red/editor-client, 4.1 and 5.0 alike) uses the
 * "editor-language" the user picked in User Settings (localStorage), else
 * navigator.language, which Chromium's locale sets; a `?lang=` in the address
 * is read by nothing, so none is given.
 *
 * Then, for every node type of package.json "node-red".nodes: its palette
 * label is the language's; one node of each is pasted onto the workspace
 * (the configuration nodes with them) and its labels there are the
 * language's; its edit dialog (a configuration node's from the pencil button
 * of a node that uses it) shows no raw catalog key and no English of our
 * catalogs that the language says otherwise (every <select> is set to each
 * of its options, as some texts only show for one); the book button of the
 * dialog opens the language's help. The browser must report no problem and
 * make no request off 127.0.0.1. Screenshots of each dialog are written to
 * test-artifacts/languages-nr<major>/<lang>-<type>.png.
 *
 * DETECTION_BRIDGE_LANGS (e.g. `de`) picks the languages; .ci/pipeline.js
 * runs German on one Node-RED and Japanese on the other, each once (that
 * every language has every text of en-US is test/unit/locales.test.js).
 *
 * Skipped, with a message, only where /usr/bin/chromium is not installed.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, NODE_RED_DIR, nodeRedVersion } = require('../support');
const { MODULE } = require('../support/nodered-process');
const { EditorBrowser } = require('../support/editor-browser');

const ALL_LANGS = ['de', 'ja'];
const LANGS = process.env.DETECTION_BRIDGE_LANGS ? process.env.DETECTION_BRIDGE_LANGS.split(',') : ALL_LANGS;
for (const lang of LANGS) if (!ALL_LANGS.includes(lang)) throw new Error(`DETECTION_BRIDGE_LANGS: ${lang} is not one of ${ALL_LANGS}`);
const LOCALES = path.join(ROOT, 'locales');
const TYPES = Object.keys(require(path.join(ROOT, 'package.json'))['node-red'].nodes);
const CONFIG_TYPES = TYPES.filter((t) => /\bcategory:\s*'config'/.test(fs.readFileSync(path.join(ROOT, 'dist', 'nodes', t, `${t}.html`), 'utf8')));
const FLOW_TYPES = TYPES.filter((t) => !CONFIG_TYPES.includes(t));
const ARTIFACTS = path.join(ROOT, 'test-artifacts', `languages-nr${nodeRedVersion().split('.')[0]}`);
/** A catalog key shown as is: `detection-in.label.path`, or the namespaced `node-red-contrib-detection-bridge/…`. */
const RAW_KEY = new RegExp(`\\b(?:${TYPES.join('|')})\\.[a-zA-Z]|${MODULE}/`);
/** English longer than this is also found inside a longer text; shorter only as the whole text. */
const CONTAINED = 12;

/** One node of each type, with the settings that show the most of each dialog: detection in
 *  answers after writing to Redis (its Redis server list and pencil button are shown), the
 *  platform nodes use a server, the sample and enroll nodes an events bridge, the filter has a
 *  rule row. Pasted as a user pastes a flow. */
const FLOW = [
  { id: 'lang-redis', type: 'detection-redis', url: 'redis://127.0.0.1:6379' },
  { id: 'lang-server', type: 'platform-server', url: 'https://core-host' },
  { id: 'lang-bridge', type: 'events-bridge', url: 'https://bridge-host:5022' },
  { id: 'lang-listener', type: 'detection-listener', host: '127.0.0.1', port: 18444 },
  { id: 'lang-in', type: 'detection-in', auth: 'none', ackMode: 'redis', redis: 'lang-redis', listener: 'lang-listener', wires: [[], []] },
  { id: 'lang-switch', type: 'detection-switch', wires: [[], [], []] },
  { id: 'lang-filter', type: 'detection-filter', rules: [{ t: 'tag', v: 'VIP', vt: 'list' }], wires: [[]] },
  { id: 'lang-dedupe', type: 'detection-dedupe', wires: [[]] },
  { id: 'lang-image', type: 'detection-image', wires: [[], []] },
  // e-mail (its To and From rows), the picture on (its crop and face rows), an events bridge for the tag prefix
  { id: 'lang-alert', type: 'detection-alert', sender: 'email', picture: true, bridge: 'lang-bridge', wires: [[]] },
  { id: 'lang-sample', type: 'detection-sample', source: 'bridge', bridge: 'lang-bridge', wires: [[]] },
  { id: 'lang-done', type: 'detection-done', wires: [] },
  { id: 'lang-push', type: 'platform-push', server: 'lang-server', wires: [[]] },
  { id: 'lang-request', type: 'platform-request', server: 'lang-server', wires: [[]] },
  { id: 'lang-enroll', type: 'detection-enroll', bridge: 'lang-bridge', wires: [[]] },
  { id: 'lang-monitor', type: 'detection-monitor', wires: [] },
  { id: 'lang-presence', type: 'detection-presence', scope: 'redis', redis: 'lang-redis', exitCameras: 'Gate 1 exit', wires: [[], [], [], []] },
  // the link rows filled, so the page's address is shown
  { id: 'lang-alarm', type: 'detection-alarm', linkBase: 'https://alarms.example.com', wires: [[], [], [], [], []] },
].map((n, i) => (n.wires ? { ...n, x: 120 + (i % 3) * 220, y: 60 + Math.floor(i / 3) * 80 } : n));
/** The node of the flow that uses configuration type `type`, and its property for it. */
const USERS = {
  'detection-redis': ['lang-in', 'redis'],
  'detection-listener': ['lang-in', 'listener'],
  'platform-server': ['lang-push', 'server'],
  'events-bridge': ['lang-sample', 'bridge'],
};

/** Every leaf of a catalog: [dotted key, text]. */
function leaves(value, at = '', out = []) {
  if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, at ? `${at}.${k}` : k, out);
  else out.push([at, String(value)]);
  return out;
}

/** All the catalogs of `lang` (every node type's and shared.json) as one map: key → text. */
function catalog(lang) {
  const dir = path.join(LOCALES, lang);
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  return new Map(files.flatMap((f) => leaves(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')))));
}

const norm = (s) => String(s).replace(/\s+/g, ' ').trim();
const literal = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The English of our en-US catalogs that must not show in `lang`: every text
 * whose `lang` translation differs, and that `lang` does not use anywhere
 * (the same word may be right: "URL", "Redis", "Token"). A __placeholder__
 * stands for any text.
 */
function englishFor(lang) {
  const translated = catalog(lang);
  const used = new Set([...translated.values()].map(norm));
  const out = [];
  for (const [key, text] of catalog('en-US')) {
    const english = norm(text);
    const theirs = translated.get(key) ?? translated.get(key.replace(/_plural$/, ''));
    if (theirs !== undefined && norm(theirs) === english) continue;
    if (used.has(english)) continue;
    const parts = english.split(/__\w+__/).map(literal);
    const letters = english.replace(/__\w+__/g, '').replace(/[^\p{L}]/gu, '');
    if (!letters) continue;
    const pattern = parts.join('.+?');
    out.push({
      key,
      english,
      whole: new RegExp(`^${pattern}$`),
      within: english.replace(/__\w+__/g, '').length > CONTAINED ? new RegExp(pattern) : null,
    });
  }
  return out;
}

/** What among `texts` is a raw key or English of `english`: each key once, with the shortest text it is in. */
function untranslated(texts, english) {
  const shortest = (found) => found.reduce((a, b) => (b.length < a.length ? b : a));
  const raw = texts.filter((t) => RAW_KEY.test(t));
  const out = raw.length ? [`raw key: "${shortest(raw)}"`] : [];
  for (const e of english) {
    const found = texts.filter((t) => e.whole.test(t) || (e.within && e.within.test(t)));
    if (found.length) out.push(`English of ${e.key} ("${e.english}"): "${shortest(found)}"`);
  }
  return out;
}

/** The help of `type` in `lang` as written: the inside of its <script> element. */
function helpSource(lang, type) {
  const file = fs.readFileSync(path.join(LOCALES, lang, `${type}.html`), 'utf8');
  const m = /<script type="text\/html" data-help-name="[^"]+">([\s\S]*)<\/script>/.exec(file);
  assert.ok(m, `locales/${lang}/${type}.html is a help script`);
  return m[1];
}

/** The label text of `key` of `lang`, its __placeholders__ filled from `vars`. */
function say(lang, key, vars = {}) {
  const text = catalog(lang).get(key);
  assert.equal(typeof text, 'string', `locales/${lang}: ${key}`);
  return text.replace(/__(\w+)__/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

describe(`e2e: the editor in ${LANGS.join(' and ')}, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  before(function () {
    if (!EditorBrowser.available()) this.skip();
    fs.rmSync(ARTIFACTS, { recursive: true, force: true });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });

  for (const lang of LANGS) {
    describe(lang, function () {
      this.timeout(30000);
      const english = englishFor(lang);
      const paletteLabel = (type) => say(lang, `${type}.paletteLabel`);
      let browser;
      let page;

      before(async function () {
        if (!EditorBrowser.available()) this.skip();
        this.timeout(180000);
        // Monaco, Node-RED's default code editor, which the other browser files leave for Ace
        browser = await EditorBrowser.start({ locale: lang, viewport: { width: 1400, height: 1000 }, timeout: 15000, codeEditor: 'monaco' });
        // one folder for both languages: set here, as start() would empty it
        browser.artifacts = ARTIFACTS;
        page = browser.page;
        await browser.openEditor(TYPES);
      });

      afterEach(async function () {
        if (!(browser && this.currentTest && this.currentTest.state === 'failed')) return;
        await browser.screenshotIfFailed(this.currentTest);
        // leave the editor usable for the next test: close the trays left open
        await page
          .evaluate(() => {
            if (document.querySelector('#node-config-dialog-cancel')) document.querySelector('#node-config-dialog-cancel').click();
          })
          .catch(() => {});
        if (await page.locator('#node-dialog-cancel').isVisible()) await browser.cancelEdit().catch(() => {});
      });

      after(async function () {
        this.timeout(60000);
        if (browser) await browser.close();
      });

      function noNewProblems() {
        assert.deepEqual(browser.newProblems(), [], 'problems in the browser');
        assert.deepEqual(browser.external, [], 'requests off 127.0.0.1');
      }

      /** The help the sidebar shows is the `lang` help of `type`: its headings and its first paragraph. */
      async function checkHelp(type, form) {
        await browser.helpFromTray(form, paletteLabel(type));
        const shown = await page.evaluate(
          ([ownSource, enSource]) => {
            const title = [...document.querySelectorAll('.red-ui-help-title')].find((t) => t.offsetParent !== null);
            const help = title.closest('.red-ui-help');
            const text = (el) => (el ? el.textContent.replace(/\s+/g, ' ').trim() : null);
            const parse = (source) => new DOMParser().parseFromString(source, 'text/html').body;
            const own = parse(ownSource);
            const en = parse(enSource);
            return {
              headings: [...help.querySelectorAll('h3')].map(text),
              paragraphs: [...help.querySelectorAll('p')].map(text),
              ownHeadings: [...own.querySelectorAll('h3')].map(text),
              ownFirst: text(own.querySelector('p')),
              enFirst: text(en.querySelector('p')),
            };
          },
          [helpSource(lang, type), helpSource('en-US', type)],
        );
        assert.deepEqual(shown.headings, shown.ownHeadings, `${type}: the help's headings are those of locales/${lang}/${type}.html`);
        assert.ok(
          shown.paragraphs.includes(shown.ownFirst),
          `${type}: the help shows the first paragraph of locales/${lang}/${type}.html: ${shown.ownFirst}`,
        );
        assert.notEqual(shown.ownFirst, shown.enFirst, `${type}: the ${lang} help is not the English one`);
        assert.ok(!shown.paragraphs.includes(shown.enFirst), `${type}: the help does not show the English first paragraph`);
      }

      /** The dialog in the tray holding `form`: a screenshot, then no raw key and no English in any of its texts. */
      async function checkDialog(type, form) {
        await page
          .locator('.red-ui-tray')
          .filter({ has: page.locator(form) })
          .screenshot({ path: path.join(ARTIFACTS, `${lang}-${type}.png`) });
        const texts = await browser.dialogTexts(form);
        assert.ok(texts.length > 5, `${type}: the dialog has texts: ${texts}`);
        assert.deepEqual(untranslated(texts, english), [], `${type}: the ${lang} dialog shows untranslated text`);
      }

      it(`the editor runs in ${lang}, the language of the browser`, async function () {
        const state = await page.evaluate(() => ({
          navigator: navigator.language,
          chosen: localStorage.getItem('editor-language'),
          editor: RED.i18n.lang(),
        }));
        assert.deepEqual(state, { navigator: lang, chosen: null, editor: lang });
        // Node-RED's own words are in the language too: the Deploy button
        const client = path.dirname(require.resolve('@node-red/editor-client/package.json', { paths: [NODE_RED_DIR] }));
        const deploy = JSON.parse(fs.readFileSync(path.join(client, 'locales', lang, 'editor.json'), 'utf8')).deploy.deploy;
        assert.equal((await page.locator('#red-ui-header-button-deploy').innerText()).trim(), deploy);
        noNewProblems();
      });

      it(`the palette shows every node type with its ${lang} label`, async function () {
        const shown = await page.evaluate((types) => {
          const out = {};
          for (const t of types) {
            const el = document.querySelector(`#red-ui-palette .red-ui-palette-node[data-palette-type="${t}"] .red-ui-palette-label`);
            out[t] = el ? el.textContent.replace(/\s+/g, ' ').trim() : null;
          }
          return out;
        }, FLOW_TYPES);
        assert.deepEqual(shown, Object.fromEntries(FLOW_TYPES.map((t) => [t, paletteLabel(t)])));
        await page.locator('#red-ui-palette').screenshot({ path: path.join(ARTIFACTS, `${lang}-palette.png`) });
        noNewProblems();
      });

      it(`places one node of each type; its labels on the workspace and its ports are in ${lang}`, async function () {
        // every property a node has, as a flow saved by the editor has them
        const flow = await page.evaluate(
          (nodes) =>
            nodes.map((n) => {
              const defaults = RED.nodes.getType(n.type).defaults;
              const values = Object.fromEntries(Object.keys(defaults).map((k) => [k, JSON.parse(JSON.stringify(defaults[k].value))]));
              return { ...values, ...n };
            }),
          FLOW,
        );
        await browser.pasteNodes(flow);
        await browser.place(40, 40);
        // the editor's note of what was imported would cover the dialogs' titles: closed with a click, as a person does
        // the first each time: once one has closed, a list of them by position (locator.all()) names one that is gone
        const notes = page.locator('.red-ui-notification');
        for (let n = await notes.count(); n > 0; n--) await notes.first().click();
        await page.waitForFunction(() => !document.querySelector('.red-ui-notification'));
        const nodes = await browser.flowNodes();
        assert.deepEqual(nodes.map((n) => n.type).sort(), [...FLOW_TYPES].sort(), 'one node of each flow type');
        const labels = await page.evaluate(() =>
          RED.nodes.filterNodes({ z: RED.workspaces.active() }).map((n) => {
            const call = (f, ...args) => (typeof f === 'function' ? f.call(n, ...args) : f);
            const ports = [];
            for (let i = 0; i < n.outputs; i++) ports.push(call(n._def.outputLabels, i));
            const shown = document.querySelector(`[id="${n.id}"] .red-ui-flow-node-label`);
            return {
              id: n.id,
              shown: shown ? shown.textContent.replace(/\s+/g, ' ').trim() : null,
              texts: [call(n._def.label), call(n._def.inputLabels, 0), ...ports].filter((t) => typeof t === 'string'),
            };
          }),
        );
        const byId = Object.fromEntries(labels.map((l) => [l.id, l.shown]));
        // labels written from the catalog, for a few types
        assert.equal(
          byId['lang-dedupe'],
          `${say(lang, 'detection-dedupe.label.dedupeShort')} ${say(lang, 'detection-dedupe.unitsShort.h', { n: 1 })}`,
        );
        assert.equal(byId['lang-push'], `${say(lang, 'platform-push.label.short')} ${say(lang, 'platform-push.operation.pos')}`);
        assert.equal(byId['lang-filter'], say(lang, 'detection-filter.summary.tag', { list: 'VIP' }));
        assert.equal(byId['lang-done'], paletteLabel('detection-done'));
        assert.equal(byId['lang-alert'], paletteLabel('detection-alert'));
        const all = labels.flatMap((l) => [l.shown, ...l.texts]);
        assert.deepEqual(untranslated(all, english), [], `labels and port labels in ${lang}`);
        noNewProblems();
      });

      for (const type of FLOW_TYPES) {
        const node = FLOW.find((n) => n.type === type);
        it(`${type}: its dialog and its help are in ${lang}`, async function () {
          assert.ok(node, `a ${type} node in FLOW`);
          await browser.editNode(node.id);
          await checkDialog(type, '#dialog-form');
          await checkHelp(type, '#dialog-form');
          await browser.cancelEdit();
          noNewProblems();
        });
      }

      for (const type of CONFIG_TYPES) {
        const [user, prop] = USERS[type] || [];
        it(`${type} (configuration node, from the pencil button of ${user}): its dialog and its help are in ${lang}`, async function () {
          assert.ok(user, `a node of the flow that uses ${type}: add it to USERS`);
          await browser.editNode(user);
          await browser.editConfigOf(prop);
          await checkDialog(type, '#node-config-dialog-edit-form');
          await checkHelp(type, '#node-config-dialog-edit-form');
          await browser.cancelConfigEdit();
          await browser.cancelEdit();
          noNewProblems();
        });
      }

      it('saw no problem in the browser, no request off 127.0.0.1 and no error in the Node-RED log', function () {
        assert.deepEqual(browser.problems, []);
        assert.deepEqual(browser.external, []);
        assert.deepEqual(browser.nr.errorLines(), []);
      });
    });
  }
});
