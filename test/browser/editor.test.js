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
const os = require('node:os');
const path = require('node:path');
const { ROOT, nodeRedVersion, request, translate } = require('../support');
const { MODULE } = require('../support/nodered-process');
const { EditorBrowser } = require('../support/editor-browser');

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

/** The address the detection-in dialog should suggest, as lib/http/addresses.ts picks
 *  it from this machine's interfaces; null when only loopback ones exist. */
function reachableAddress() {
  const all = Object.values(os.networkInterfaces()).flat();
  const external = all.filter((i) => !i.internal && !/^127\./.test(i.address) && i.address !== '::1');
  const v4 = external.find((i) => i.family === 'IPv4' || i.family === 4);
  if (v4) return v4.address;
  const v6 = external.find((i) => !/^fe80:/i.test(i.address));
  return v6 ? `[${v6.address}]` : null;
}

/** Field id prefixes: flow node dialogs, configuration node dialogs. */
const FLOW = 'node-input';
const CONFIG = 'node-config-input';

/**
 * What each dialog is driven with. A step sets one field as a person does:
 * `fill` (text, number and typedInput value boxes), `select`, `check`,
 * `typed` (a typedInput: `{ typed: field, type, value }`, the type from its
 * type menu, then the value from its option menu or typed in),
 * `crop` (a row of detection-image's crop list), `rule` (a row of
 * detection-filter's rule list: `{ rule: n, type, value, key }`), or `config` (a
 * configuration node list: value `first`, the first configuration node in
 * it, or `none`).
 *
 * `valid`: steps, then the node properties the editor must have saved
 *   (compared with ==, as the editor saves <input> values as strings),
 *   `ports`: the output ports the node then shows, `check`: more assertions
 *   made in the open dialog before Done (given the page, Node-RED and the
 *   dialog helpers). `before`: steps made before the configuration nodes
 *   are chosen (only those whose list the dialog shows are). For a
 *   configuration type, these steps fill the dialog the plus button next to
 *   a node's field opens.
 * `invalid`: each case starts from the valid node; after its steps the field
 *   `error` must be marked with the input-error class (or `errorShown`
 *   visible), and after Done the node is invalid (red triangle), with
 *   `reason` (a key of the type's message catalog: the message its validator
 *   returns, its placeholders filled from `reasonVars`) among its validation
 *   errors; then `restore` steps make it valid again.
 * `fresh`: the reason (a catalog key) a node of the type dropped on its
 *   defaults is invalid for; without it, a new node is valid.
 *
 * A flow node type without an entry (added later) gets the generic checks:
 * a new name saves, and every required plain text field left empty is
 * flagged. A configuration type needs an entry: the test cannot guess valid
 * values for it.
 */
const CASES = {
  'detection-in': {
    valid: {
      // written to Redis: its rows and its Redis server list are shown
      before: [{ select: 'ackMode', value: 'redis' }],
      steps: [
        { fill: 'path', value: '/e2e/cameras' },
        { select: 'auth', value: 'header' },
        { fill: 'headerName', value: 'X-Api-Key' },
        { fill: 'headerValue', value: 'secret-value' },
        { fill: 'maxBodyMiB', value: '32' },
        { select: 'validation', value: 'strict' },
        { fill: 'stallSeconds', value: '12.5' },
        { fill: 'streamMaxEvents', value: '5000' },
        { fill: 'streamMaxMiB', value: '64' },
        { fill: 'claimAfterSeconds', value: '30' },
      ],
      check: async (page, nr, ui) => {
        // the address the bridge can reach: this machine's own, not the browser's 127.0.0.1
        const reachable = reachableAddress();
        const port = new URL(nr.url).port;
        const expected = `http://${reachable || '127.0.0.1'}:${port}/e2e/cameras`;
        await page.waitForFunction((u) => document.querySelector('#detection-in-url').textContent === u, expected, { timeout: 5000 }).catch(() => {});
        assert.equal(await page.locator('#detection-in-url').innerText(), expected, 'the WebHook address tip: a reachable address, with the path');
        if (reachable) {
          assert.doesNotMatch(expected, /127\.0\.0\.1/);
          assert.ok(!(await page.locator('#detection-in-url-loopback').isVisible()), 'no loopback note: another address is known');
          // this Node-RED listens on 127.0.0.1 only (uiHost): the dialog says so
          assert.ok(await page.locator('#detection-in-url-local').isVisible(), 'the note that Node-RED listens on this machine only');
        } else {
          assert.ok(await page.locator('#detection-in-url-loopback').isVisible(), 'the loopback note is shown: no other address is known');
        }
        for (const row of ['.detection-in-row-header-name', '.detection-in-row-header-value']) {
          assert.ok(await page.locator(row).isVisible(), `${row} is shown for auth "header"`);
        }
        for (const row of ['.detection-in-row-user', '.detection-in-row-password', '.detection-in-row-token']) {
          assert.ok(!(await page.locator(row).isVisible()), `${row} is hidden for auth "header"`);
        }
        // the rows of each acknowledgement mode
        const redisFields = ['redis', 'streamMaxEvents', 'streamMaxMiB', 'claimAfterSeconds'];
        const shown = async (names) => Promise.all(names.map((n) => page.locator(`#node-input-${n}`).isVisible()));
        const rows = { memory: [], disk: ['journalMaxMiB'], redis: redisFields };
        for (const mode of ['memory', 'disk', 'redis']) {
          await ui.step({ select: 'ackMode', value: mode });
          for (const [other, fields] of Object.entries(rows)) {
            const visible = await shown(fields);
            assert.deepEqual(
              visible,
              fields.map(() => other === mode),
              `ackMode ${mode}: the ${other} rows (${fields}) are ${other === mode ? 'shown' : 'hidden'}`,
            );
          }
          assert.equal(await page.locator('#node-input-redeliverAfterSeconds').isVisible(), mode !== 'redis', `ackMode ${mode}: Redeliver after`);
        }
        // a Redis server is needed in redis mode only
        await ui.step({ config: 'redis', value: 'none' });
        assert.ok(await ui.hasInputError('redis'), 'no Redis server in redis mode: the list is marked');
        await ui.step({ select: 'ackMode', value: 'memory' });
        assert.ok(!(await ui.hasInputError('redis', undefined, false)), 'no Redis server in memory mode: not marked');
        await ui.step({ select: 'ackMode', value: 'redis' });
        assert.ok(await ui.hasInputError('redis'), 'back in redis mode: marked again');
        await ui.step({ config: 'redis', value: 'first' });
        assert.ok(!(await ui.hasInputError('redis', undefined, false)), 'a Redis server chosen: not marked');
      },
      expect: {
        path: '/e2e/cameras',
        auth: 'header',
        headerName: 'X-Api-Key',
        maxBodyMiB: 32,
        validation: 'strict',
        stallSeconds: 12.5,
        ackMode: 'redis',
        streamMaxEvents: 5000,
        streamMaxMiB: 64,
        claimAfterSeconds: 30,
      },
      ports: 3,
    },
    invalid: [
      {
        steps: [{ config: 'redis', value: 'none' }],
        error: 'redis',
        reason: 'validators.redis',
        restore: [{ config: 'redis', value: 'first' }],
      },
      {
        steps: [{ fill: 'streamMaxEvents', value: '1.5' }],
        error: 'streamMaxEvents',
        reason: 'validators.streamMaxEvents',
        restore: [{ fill: 'streamMaxEvents', value: '5000' }],
      },
      {
        steps: [{ fill: 'claimAfterSeconds', value: '0' }],
        error: 'claimAfterSeconds',
        reason: 'validators.claimAfterSeconds',
        restore: [{ fill: 'claimAfterSeconds', value: '30' }],
      },
      { steps: [{ fill: 'path', value: '' }], error: 'path', reason: 'validators.path-empty', restore: [{ fill: 'path', value: '/e2e/cameras' }] },
      {
        steps: [{ fill: 'path', value: '/e2e/front gate' }],
        error: 'path',
        reason: 'validators.path-spaces',
        restore: [{ fill: 'path', value: '/e2e/cameras' }],
      },
      {
        steps: [{ fill: 'maxBodyMiB', value: '513' }],
        error: 'maxBodyMiB',
        reason: 'validators.maxBodyMiB',
        restore: [{ fill: 'maxBodyMiB', value: '32' }],
      },
      {
        steps: [{ fill: 'stallSeconds', value: '0' }],
        error: 'stallSeconds',
        reason: 'validators.stallSeconds',
        restore: [{ fill: 'stallSeconds', value: '12.5' }],
      },
      {
        steps: [{ fill: 'headerValue', value: '' }],
        error: 'headerValue',
        reason: 'validators.credentials-header',
        restore: [{ fill: 'headerValue', value: 'secret-value' }],
      },
      {
        steps: [{ fill: 'headerName', value: 'bad header' }],
        error: 'headerName',
        reason: 'validators.headerName',
        restore: [{ fill: 'headerName', value: 'X-Api-Key' }],
      },
    ],
    // dropped on its defaults: Bearer, no token yet
    fresh: 'validators.credentials-bearer',
  },
  'detection-switch': {
    valid: {
      steps: [
        { fill: 'property', value: 'payload.event' },
        { check: 'otherOutput', value: false },
      ],
      expect: { property: 'payload.event', propertyType: 'msg', otherOutput: false, outputs: 2 },
      ports: 2,
    },
    invalid: [
      {
        steps: [{ fill: 'property', value: 'payload..event' }],
        error: 'property',
        reason: 'validators.property',
        restore: [{ fill: 'property', value: 'payload.event' }],
      },
    ],
  },
  'detection-filter': {
    valid: {
      steps: [
        { rule: 1, type: 'tag', value: 'VIP, Banned' },
        { rule: 2, type: 'camera-match', value: 'Gate*' },
        { select: 'combine', value: 'any' },
        { check: 'noMatchOutput', value: true },
        { fill: 'tagPrefix', value: 'partner-' },
      ],
      check: async (page) => {
        // the dialog says which tag prefix applies: its own, else the chosen events bridge's, else none
        const tip = () => page.locator('#detection-filter-prefix-tip').innerText();
        assert.match(await tip(), /with or without the prefix partner-: a rule on Banned passes Banned and partner-Banned/);
        await page.fill('#node-input-tagPrefix', '');
        const bridge = await page.locator('#node-input-bridge').inputValue();
        if (bridge && bridge !== '_ADD_')
          assert.match(await tip(), /with or without the prefix partner- \(set on the events bridge /, "the bridge's prefix");
        else assert.match(await tip(), /^No tag prefix: tags match exactly as written/);
        await page.fill('#node-input-tagPrefix', 'partner-');
        const row = page.locator('#node-input-rule-container > li').first();
        const options = await row.locator('select.node-input-rule-type option').allInnerTexts();
        assert.deepEqual(options.slice(0, 3), ['Has any of these tags', 'Camera is one of', 'Camera matches pattern'], 'rule types in plain words');
        assert.ok(!(await page.locator('#detection-filter-rules-problem').isVisible()), 'no problem shown while the rules are valid');
        // a node without a name is labelled with its rules
        const label = await page.evaluate(() => {
          const def = RED.nodes.getType('detection-filter');
          const rules = [
            { t: 'tag', v: 'VIP, Banned', vt: 'list' },
            { t: 'camera', v: 'Gate 2', vt: 'list' },
          ];
          return [def.label.call({ name: '', combine: 'all', rules, _: def._ }), def.label.call({ name: '', combine: 'any', rules: [], _: def._ })];
        });
        assert.deepEqual(label, ['tag VIP, Banned · camera Gate 2', 'detection filter']);
      },
      expect: {
        combine: 'any',
        noMatchOutput: true,
        outputs: 2,
        tagPrefix: 'partner-',
        rules: [
          { t: 'tag', v: 'VIP, Banned', vt: 'list' },
          { t: 'camera-match', v: 'Gate*' },
        ],
      },
      ports: 2,
    },
    invalid: [
      {
        steps: [{ rule: 2, type: 'camera', value: '' }],
        errorShown: '#detection-filter-rules-problem',
        reason: 'validators.camera',
        reasonVars: { rule: 2 },
        restore: [{ rule: 2, type: 'camera-match', value: 'Gate*' }],
      },
      {
        steps: [{ rule: 1, type: 'confidence', value: '80' }],
        errorShown: '#detection-filter-rules-problem',
        reason: 'validators.confidence',
        reasonVars: { rule: 1 },
        restore: [{ rule: 1, type: 'tag', value: 'VIP, Banned' }],
      },
      {
        steps: [{ fill: 'tagPrefix', value: 'part ner' }],
        error: 'tagPrefix',
        reason: 'validators.tagPrefix',
        restore: [{ fill: 'tagPrefix', value: 'partner' }],
      },
    ],
  },
  'detection-dedupe': {
    valid: {
      steps: [
        { select: 'mode', value: 'cooldown' },
        { fill: 'maxKeys', value: '5000' },
        { check: 'duplicatesOutput', value: true },
        { check: 'persist', value: true },
        { check: 'cap', value: true },
        { fill: 'capCount', value: '3' },
        { fill: 'capPeriod', value: '2' },
        { select: 'capUnits', value: 'h' },
        { select: 'capPer', value: 'key' },
      ],
      check: async (page, nr, ui) => {
        // switching the mode swaps in the cooldown defaults (key and window)
        const key = await page.evaluate(() => [$('#node-input-key').typedInput('type'), $('#node-input-key').typedInput('value')]);
        assert.deepEqual(key, ['event', 'plateAtCamera'], 'cooldown mode defaults to the key picked by name: plate (or person) at camera');
        // the choices are shown by name, not as an expression
        const shownKey = await page.evaluate(() =>
          $('.red-ui-typedInput-option-label:visible')
            .map((i, e) => $(e).text().trim())
            .get(),
        );
        assert.ok(shownKey.includes(translate('detection-dedupe.key.plateAtCamera')), `the key shown by name: ${shownKey.join(', ')}`);
        assert.ok(await page.locator('.detection-dedupe-event').isVisible(), 'where the event is read: shown for a key picked by name');
        assert.equal(await page.locator('#node-input-ttl').inputValue(), '60');
        assert.equal(await page.locator('#node-input-ttlUnits').inputValue(), 's');
        // the cooldown's origin: one choice, saved as refresh (from the last sighting) as before
        const from = page.locator('#detection-dedupe-cooldownFrom');
        assert.ok(await from.isVisible(), "the cooldown's origin is shown in cooldown mode");
        assert.ok(!(await page.locator('#node-input-refresh').isVisible()), 'as a choice, not a checkbox');
        assert.equal(await from.inputValue(), 'pass', 'from the last message let through by default');
        await from.selectOption('sighting');
        assert.equal(await page.locator('#node-input-refresh').isChecked(), true, 'from the last sighting: refresh');
        // the cap's rows with the cap on, and what happens to what it holds back
        assert.ok(await page.locator('#node-input-capPer').isVisible(), "the cap's rows are shown with the cap on");
        assert.match(await page.locator('.detection-dedupe-cap .form-tips').innerText(), /not lost/);
        assert.ok(await page.locator('#node-input-capUrgent').isVisible(), 'urgent messages: a row of the cap');
        assert.equal(await page.locator('#node-input-capUrgent').isChecked(), true, 'urgent messages always pass by default');
        await ui.step({ check: 'cap', value: false });
        assert.ok(!(await page.locator('#node-input-capCount').isVisible()), "the cap's rows are hidden with the cap off");
        await ui.step({ check: 'cap', value: true });
        assert.ok(await page.locator('#node-input-store').isVisible(), 'the store is shown when persisting');
        // the window kept in this Node-RED, or shared through Redis: each with its own rows
        const local = ['maxKeys', 'persist', 'store'];
        const shared = ['redis', 'whenUnreachable', 'sharedName'];
        const shown = async (names) => Promise.all(names.map((n) => page.locator(`#node-input-${n}`).isVisible()));
        assert.equal(await page.locator('#node-input-scope').inputValue(), 'local', 'the window is kept locally by default');
        assert.deepEqual(await shown(shared), [false, false, false], 'local window: the Redis rows are hidden');
        await ui.step({ select: 'scope', value: 'redis' });
        assert.deepEqual(await shown(shared), [true, true, true], 'shared window: the Redis rows are shown');
        assert.deepEqual(await shown(local), [false, false, false], 'shared window: keys held, persistence and store are hidden');
        assert.equal(await page.locator('#node-input-whenUnreachable').inputValue(), 'pass', 'pass (and warn) by default');
        // the Redis server detection in added is in the list, not chosen yet: needed now
        assert.ok(await ui.hasInputError('redis'), 'shared window without a Redis server: the list is marked');
        await ui.step({ select: 'scope', value: 'local' });
        assert.deepEqual(await shown(local), [true, true, true], 'local again: its rows are back (the store as persisting)');
        assert.deepEqual(await shown(shared), [false, false, false], 'local again: the Redis rows are hidden');
        assert.ok(!(await ui.hasInputError('redis', undefined, false)), 'local window: no Redis server needed');
        await ui.step({ select: 'scope', value: 'redis' });
        await ui.step({ config: 'redis', value: 'first' });
        await ui.step({ select: 'whenUnreachable', value: 'drop' });
        await ui.step({ fill: 'sharedName', value: 'e2e-window' });
        assert.ok(!(await ui.hasInputError('redis', undefined, false)), 'a Redis server chosen: not marked');
      },
      expect: {
        mode: 'cooldown',
        key: 'plateAtCamera',
        keyType: 'event',
        property: 'payload',
        propertyType: 'msg',
        ttl: 60,
        ttlUnits: 's',
        refresh: true,
        maxKeys: 5000,
        duplicatesOutput: true,
        persist: true,
        scope: 'redis',
        whenUnreachable: 'drop',
        sharedName: 'e2e-window',
        cap: true,
        capCount: 3,
        capPeriod: 2,
        capUnits: 'h',
        capPer: 'key',
        outputs: 3,
      },
      // first sightings, duplicates, the cap's digest
      ports: 3,
    },
    invalid: [
      { steps: [{ fill: 'ttl', value: '0' }], error: 'ttl', reason: 'validators.ttl', restore: [{ fill: 'ttl', value: '60' }] },
      { steps: [{ fill: 'ttl', value: '-5' }], error: 'ttl', reason: 'validators.ttl', restore: [{ fill: 'ttl', value: '60' }] },
      {
        // keys held is a row of the local window
        steps: [
          { select: 'scope', value: 'local' },
          { fill: 'maxKeys', value: '1.5' },
        ],
        error: 'maxKeys',
        reason: 'validators.maxKeys',
        restore: [
          { fill: 'maxKeys', value: '5000' },
          { select: 'scope', value: 'redis' },
        ],
      },
      {
        steps: [{ config: 'redis', value: 'none' }],
        error: 'redis',
        reason: 'validators.redis',
        restore: [{ config: 'redis', value: 'first' }],
      },
      {
        steps: [{ fill: 'sharedName', value: 'site:a' }],
        error: 'sharedName',
        reason: 'validators.sharedName',
        restore: [{ fill: 'sharedName', value: 'e2e-window' }],
      },
      { steps: [{ fill: 'capCount', value: '0' }], error: 'capCount', reason: 'validators.capCount', restore: [{ fill: 'capCount', value: '3' }] },
      { steps: [{ fill: 'capCount', value: '2.5' }], error: 'capCount', reason: 'validators.capCount', restore: [{ fill: 'capCount', value: '3' }] },
      {
        steps: [{ fill: 'capPeriod', value: '0' }],
        error: 'capPeriod',
        reason: 'validators.capPeriod',
        restore: [{ fill: 'capPeriod', value: '2' }],
      },
    ],
  },
  'detection-image': {
    valid: {
      steps: [
        { crop: 'Other', value: false },
        { crop: 'Car', value: false },
        { select: 'plateMode', value: 'all' },
        { select: 'format', value: 'base64' },
        { fill: 'outputProperty', value: 'image.data' },
        { select: 'noImage', value: 'error' },
      ],
      expect: { crops: 'Close,Medium,FullFrame', plateMode: 'all', format: 'base64', outputProperty: 'image.data', noImage: 'error', outputs: 1 },
      ports: 1,
    },
    invalid: [
      {
        steps: ['Close', 'Medium', 'FullFrame'].map((crop) => ({ crop, value: false })),
        errorShown: '#detection-image-crops-empty',
        reason: 'validators.crops',
        restore: [{ crop: 'Close', value: true }],
      },
      {
        steps: [{ fill: 'outputProperty', value: '' }],
        error: 'outputProperty',
        reason: 'validators.outputProperty-empty',
        restore: [{ fill: 'outputProperty', value: 'image.data' }],
      },
    ],
  },
  'detection-alert': {
    valid: {
      steps: [
        { select: 'sender', value: 'email' },
        { fill: 'to', value: 'security@site.example' },
        { fill: 'from', value: 'alerts@site.example' },
        { fill: 'body', value: 'Seen at {time}\n{why}' },
        { check: 'picture', value: true },
        { fill: 'crops', value: 'Close,Medium' },
        { select: 'faceImage', value: 'photo' },
        { check: 'faceFallback', value: true },
        { fill: 'tagPrefix', value: 'partner' },
      ],
      check: async (page, nr, ui) => {
        // each sender: its tip says what to wire it to, and only its own rows show
        const shown = async (names) => Promise.all(names.map((n) => page.locator(`#node-input-${n}`).isVisible()));
        const own = { email: ['to', 'from'], telegram: ['chatId'], pushover: ['pushoverToken', 'pushoverUser'] };
        const rows = Object.values(own).flat();
        for (const sender of ['email', 'telegram', 'ntfy', 'pushover', 'gotify', 'slack', 'teams']) {
          await ui.step({ select: 'sender', value: sender });
          assert.equal(
            await page.locator('#detection-alert-sender-tip').innerText(),
            translate(`detection-alert.tip.sender.${sender}`),
            `${sender}: the tip`,
          );
          assert.deepEqual(
            await shown(rows),
            rows.map((r) => (own[sender] || []).includes(r)),
            `${sender}: its own rows only (${own[sender] || 'none'}) of ${rows}`,
          );
        }
        await ui.step({ select: 'sender', value: 'email' });
        // empty templates show the catalog's defaults greyed
        assert.ok(
          (await page.locator('#node-input-subject').getAttribute('placeholder')).includes(translate('detection-alert.default.subject-lpr')),
          "the subject's placeholder: the plate default",
        );
        assert.equal(await page.locator('#node-input-body').getAttribute('placeholder'), translate('detection-alert.default.body'));
        // "Insert field" puts {field} at the cursor of the template beside it
        const subject = page.locator('#node-input-subject');
        const insert = page.locator('select.detection-alert-insert[data-target="node-input-subject"]');
        assert.equal(await insert.locator('option').first().innerText(), translate('detection-alert.field.choose'));
        await subject.fill('[{tags}] ');
        await insert.selectOption('plate');
        assert.equal(await subject.inputValue(), '[{tags}] {plate}');
        assert.equal(await insert.inputValue(), '', 'the list goes back to its prompt');
        await subject.press('End');
        await subject.pressSequentially(' at ');
        await insert.selectOption('camera');
        assert.equal(await subject.inputValue(), '[{tags}] {plate} at {camera}');
        // the picture's options only with the picture on
        await ui.step({ check: 'picture', value: false });
        assert.deepEqual(await shown(['crops', 'faceImage', 'faceFallback']), [false, false, false], 'no picture: its options hidden');
        await ui.step({ check: 'picture', value: true });
        assert.deepEqual(await shown(['crops', 'faceImage', 'faceFallback']), [true, true, true], 'the picture on: its options shown');
      },
      expect: {
        sender: 'email',
        to: 'security@site.example',
        from: 'alerts@site.example',
        subject: '[{tags}] {plate} at {camera}',
        body: 'Seen at {time}\n{why}',
        picture: true,
        crops: 'Close,Medium',
        faceImage: 'photo',
        faceFallback: true,
        tagPrefix: 'partner',
      },
      ports: 1,
    },
    invalid: [
      {
        steps: [{ fill: 'subject', value: '{plate} at {gate}' }],
        error: 'subject',
        reason: 'validators.unknown-field',
        reasonVars: { fields: '{gate}' },
        restore: [{ fill: 'subject', value: '[{tags}] {plate} at {camera}' }],
      },
      {
        steps: [{ fill: 'body', value: 'Seen at {time}\n{where} {when}' }],
        error: 'body',
        reason: 'validators.unknown-field',
        reasonVars: { fields: '{where}, {when}' },
        restore: [{ fill: 'body', value: 'Seen at {time}\n{why}' }],
      },
      {
        // Telegram without a chat id: marked as soon as Telegram is chosen
        steps: [{ select: 'sender', value: 'telegram' }],
        error: 'chatId',
        reason: 'validators.chatId',
        restore: [{ select: 'sender', value: 'email' }],
      },
      {
        steps: [
          { select: 'sender', value: 'telegram' },
          { fill: 'chatId', value: '12 34' },
        ],
        error: 'chatId',
        reason: 'validators.chatId',
        restore: [
          { fill: 'chatId', value: '-1001234567890' },
          { select: 'sender', value: 'email' },
        ],
      },
      {
        steps: [{ select: 'sender', value: 'pushover' }],
        error: 'pushoverToken',
        reason: 'validators.pushover',
        restore: [{ select: 'sender', value: 'email' }],
      },
      {
        steps: [{ fill: 'crops', value: 'Close,Tiny' }],
        error: 'crops',
        reason: 'validators.crops',
        restore: [{ fill: 'crops', value: 'Close,Medium' }],
      },
      {
        steps: [{ fill: 'tagPrefix', value: 'part ner' }],
        error: 'tagPrefix',
        reason: 'validators.tagPrefix',
        restore: [{ fill: 'tagPrefix', value: 'partner' }],
      },
    ],
  },
  'detection-sample': {
    valid: {
      // fetched from an events bridge: its list is shown (a new events bridge is added with the plus button)
      before: [{ select: 'source', value: 'bridge' }],
      steps: [
        { typed: 'kind', type: 'kind', value: 'lpr' },
        // Images: a row of the built-in source only
        { select: 'source', value: 'builtin' },
        { select: 'images', value: 'fillers' },
        { select: 'source', value: 'bridge' },
      ],
      check: async (page) => {
        assert.equal(
          await page.locator('#detection-sample-url').innerText(),
          'https://bridge-host:5022/api/v1/webhook-models/lpr',
          "the tip shows the address fetched: the events bridge's URL",
        );
        assert.ok(!(await page.locator('#node-input-images').isVisible()), 'no Images row for a fetched sample: it is sent as the bridge answered');
        assert.ok(!(await page.locator('#node-input-baseUrl').isVisible()), 'a new node has no URL of its own');
        assert.ok(await page.locator('#dialog-form').getByText('The sample endpoints need no token').isVisible(), 'the dialog says no token is sent');
        assert.equal(await page.evaluate(() => RED.nodes.getType('detection-sample').defaults.images.value), 'pictures', 'a new node sends pictures');
      },
      expect: { kind: 'lpr', kindType: 'kind', source: 'bridge', images: 'fillers', baseUrl: '', insecure: false },
      ports: 1,
    },
    invalid: [
      {
        steps: [{ config: 'bridge', value: 'none' }],
        error: 'bridge',
        reason: 'validators.bridge',
        restore: [{ config: 'bridge', value: 'first' }],
      },
      {
        steps: [{ typed: 'kind', type: 'msg', value: '' }],
        error: 'kind',
        reason: 'validators.kind-empty',
        restore: [{ typed: 'kind', type: 'kind', value: 'lpr' }],
      },
    ],
  },
  'platform-push': {
    // a POS instance is to be chosen (or msg.posId)
    fresh: 'validators.posId-empty',
    valid: {
      steps: [
        { select: 'operation', value: 'tito' },
        { fill: 'path', value: '/api/v2/tito/{siteId}' },
        { fill: 'batchSize', value: '10' },
        { fill: 'batchMs', value: '5000' },
        { fill: 'maxRetries', value: '3' },
      ],
      check: async (page) => {
        assert.ok(await page.locator('.platform-push-path').first().isVisible(), 'the path is asked for a push kind the spec gives no path for');
        assert.ok(!(await page.locator('.platform-push-pos').first().isVisible()), 'the POS instance is only asked for POS transactions');
        // the new server is not deployed: nothing to list its POS instances from yet
        assert.match(await page.locator('#platform-push-pos-tip').textContent(), /^Deploy the platform server/);
      },
      expect: { operation: 'tito', path: '/api/v2/tito/{siteId}', batchSize: 10, batchMs: 5000, maxRetries: 3 },
      ports: 1,
    },
    invalid: [
      {
        steps: [{ fill: 'path', value: '' }],
        error: 'path',
        reason: 'validators.path-empty',
        restore: [{ fill: 'path', value: '/api/v2/tito/{siteId}' }],
      },
      {
        steps: [{ fill: 'batchSize', value: '0' }],
        error: 'batchSize',
        reason: 'validators.batchSize',
        restore: [{ fill: 'batchSize', value: '10' }],
      },
      {
        steps: [{ fill: 'maxRetries', value: '-1' }],
        error: 'maxRetries',
        reason: 'validators.maxRetries',
        restore: [{ fill: 'maxRetries', value: '3' }],
      },
    ],
  },
  'platform-request': {
    valid: {
      steps: [
        { typed: 'method', type: 'method', value: 'POST' },
        { fill: 'path', value: '/api/v2/portal/{name}' },
        { select: 'errors', value: 'output' },
      ],
      expect: { method: 'POST', methodType: 'method', path: '/api/v2/portal/{name}', pathType: 'str', errors: 'output' },
      ports: 1,
    },
    invalid: [
      {
        steps: [{ fill: 'path', value: '/api/v2/with space' }],
        error: 'path',
        reason: 'validators.path-spaces',
        restore: [{ fill: 'path', value: '/api/v2/portal/{name}' }],
      },
      {
        steps: [{ fill: 'path', value: '' }],
        error: 'path',
        reason: 'validators.path-empty',
        restore: [{ fill: 'path', value: '/api/v2/portal/{name}' }],
      },
    ],
  },
  'detection-presence': {
    valid: {
      steps: [
        { select: 'keyBy', value: 'plate' },
        { fill: 'away', value: '2' },
        { select: 'awayUnits', value: 'h' },
        { fill: 'exitCameras', value: 'Gate 1 exit, Back gate' },
        { fill: 'stillHere', value: '0' },
        { fill: 'maxKeys', value: '500' },
      ],
      check: async (page, nr, ui) => {
        const shown = (names) => Promise.all(names.map((n) => page.locator(`#node-input-${n}`).isVisible()));
        assert.deepEqual(
          await shown(['lookalike', 'lookalikeClasses']),
          [true, true],
          'plates folded by look-alikes by default: the classes are shown',
        );
        assert.equal(await page.locator('#node-input-lookalikeClasses').inputValue(), '0ODQ 1I 2Z 5S 8B 6G');
        await ui.step({ check: 'lookalike', value: false });
        assert.deepEqual(await shown(['lookalikeClasses']), [false], 'not folded: no classes');
        await ui.step({ check: 'lookalike', value: true });
        await ui.step({ select: 'keyBy', value: 'face' });
        assert.deepEqual(await shown(['lookalike', 'lookalikeClasses']), [false, false], 'face ids: no plate options');
        await ui.step({ select: 'keyBy', value: 'externalId' });
        assert.deepEqual(
          await shown(['lookalike', 'lookalikeClasses']),
          [false, false],
          'externalIds: no plate options (an id is never a plate as read)',
        );
        await ui.step({ select: 'keyBy', value: 'plate' });
        const shared = ['redis', 'whenUnreachable', 'sharedName'];
        assert.deepEqual(await shown(shared), [false, false, false], 'kept in this Node-RED: the Redis rows are hidden');
        await ui.step({ select: 'scope', value: 'redis' });
        assert.deepEqual(await shown(shared), [true, true, true], 'shared: the Redis rows are shown');
        assert.ok(await ui.hasInputError('redis'), 'shared without a Redis server: the list is marked');
        await ui.step({ select: 'scope', value: 'local' });
        assert.ok(!(await ui.hasInputError('redis', undefined, false)), 'kept here: no Redis server needed');
      },
      ports: 4,
      expect: {
        keyBy: 'plate',
        lookalike: true,
        away: 2,
        awayUnits: 'h',
        exitCameras: 'Gate 1 exit, Back gate',
        stillHere: 0,
        maxKeys: 500,
        scope: 'local',
      },
    },
    invalid: [
      { steps: [{ fill: 'away', value: '0' }], error: 'away', reason: 'validators.away', restore: [{ fill: 'away', value: '2' }] },
      {
        steps: [{ fill: 'stillHere', value: '-1' }],
        error: 'stillHere',
        reason: 'validators.stillHere',
        restore: [{ fill: 'stillHere', value: '0' }],
      },
      {
        steps: [{ fill: 'maxKeys', value: '2000000' }],
        error: 'maxKeys',
        reason: 'validators.maxKeys',
        restore: [{ fill: 'maxKeys', value: '500' }],
      },
      {
        steps: [{ fill: 'lookalikeClasses', value: '0O O1' }],
        error: 'lookalikeClasses',
        reason: 'validators.classes-twice',
        reasonVars: { char: 'O', other: '0O', group: 'O1' },
        restore: [{ fill: 'lookalikeClasses', value: '0ODQ 1I 2Z 5S 8B 6G' }],
      },
    ],
  },
  'detection-monitor': {
    // metrics are never served without a credential unless the box says so
    fresh: 'validators.credential-needed',
    valid: {
      steps: [
        { fill: 'metricsPath', value: '/e2e/metrics' },
        { fill: 'healthPath', value: '/e2e/health' },
        { fill: 'token', value: 'scrape-token' },
      ],
      check: async (page, nr, ui) => {
        assert.equal(await page.locator('#detection-monitor-live').innerText(), '/e2e/health/live', 'the liveness address under the health path');
        assert.equal(await page.locator('#detection-monitor-ready').innerText(), '/e2e/health/ready');
        await ui.step({ check: 'health', value: false });
        assert.equal(await page.locator('#node-input-healthPath').isVisible(), false, 'health off: its rows hidden');
        await ui.step({ check: 'health', value: true });
        assert.equal(await page.locator('#node-input-healthPath').isVisible(), true);
      },
      expect: { metrics: true, metricsPath: '/e2e/metrics', metricsOpen: false, health: true, healthPath: '/e2e/health', healthAuth: false },
    },
    invalid: [
      {
        steps: [{ fill: 'metricsPath', value: 'with space' }],
        error: 'metricsPath',
        reason: 'validators.path',
        restore: [{ fill: 'metricsPath', value: '/e2e/metrics' }],
      },
      {
        // metrics without a credential only when the box says so
        steps: [{ fill: 'token', value: '' }],
        error: 'metricsOpen',
        reason: 'validators.credential-needed',
        restore: [{ fill: 'token', value: 'scrape-token' }],
      },
    ],
  },
  'detection-listener': {
    valid: {
      steps: [
        { fill: 'port', value: '18443' },
        { fill: 'host', value: '127.0.0.1' },
        { fill: 'allow', value: '127.0.0.1, 10.0.0.0/8\nfd00::/8' },
      ],
      check: async (page) => {
        const shown = async (sel) => page.locator(sel).first().isVisible();
        // self-signed (the default): the fingerprint the runtime made for it
        await page.waitForFunction(
          () => /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/.test(document.querySelector('#detection-listener-fingerprint').textContent),
          null,
          {
            timeout: 10000,
          },
        );
        assert.equal(await shown('.detection-listener-row-files'), false, 'self-signed: no file rows');
        await page.locator(`#${CONFIG}-tls`).selectOption('files');
        assert.equal(await shown('.detection-listener-row-files'), true, 'files: the file rows');
        await page.locator(`#${CONFIG}-tls`).selectOption('pem');
        assert.equal(await shown('.detection-listener-row-pem'), true, 'pasted: the PEM rows');
        await page.locator(`#${CONFIG}-tls`).selectOption('none');
        assert.equal(await shown('.detection-listener-row-fingerprint'), false, 'HTTP: no fingerprint');
        await page.locator(`#${CONFIG}-tls`).selectOption('self-signed');
      },
      expect: { port: 18443, host: '127.0.0.1', tls: 'self-signed' },
    },
    invalid: [
      { steps: [{ fill: 'port', value: '0' }], error: 'port', reason: 'validators.port', restore: [{ fill: 'port', value: '18443' }] },
      { steps: [{ fill: 'port', value: '70000' }], error: 'port', reason: 'validators.port', restore: [{ fill: 'port', value: '18443' }] },
      {
        steps: [{ fill: 'allow', value: '10.0.0.0/8, camera-1' }],
        error: 'allow',
        reason: 'validators.allow-address',
        restore: [{ fill: 'allow', value: '10.0.0.0/8' }],
      },
      {
        steps: [{ fill: 'allow', value: '10.0.0.0/33' }],
        error: 'allow',
        reason: 'validators.allow-prefix',
        restore: [{ fill: 'allow', value: '' }],
      },
    ],
  },
  'detection-redis': {
    valid: {
      steps: [
        { fill: 'url', value: 'redis://127.0.0.1:6390' },
        { fill: 'user', value: 'bridge' },
        { fill: 'password', value: 'secret' },
        { fill: 'database', value: '2' },
        { fill: 'prefix', value: 'e2e:' },
        { fill: 'instance', value: 'e2e-a' },
        { fill: 'confirmReplicas', value: '1' },
        { select: 'confirmFewer', value: 'connected' },
      ],
      check: async (page, nr, ui) => {
        const tlsRows = ['tlsInsecure', 'ca'];
        const shown = async (names) => Promise.all(names.map((n) => page.locator(`#${CONFIG}-${n}`).isVisible()));
        assert.deepEqual(await shown(tlsRows), [false, false], 'redis://: the TLS options are hidden');
        await ui.step({ fill: 'url', value: 'rediss://redis-host:6380' }, CONFIG);
        assert.deepEqual(await shown(tlsRows), [true, true], 'rediss://: the TLS options are shown');
        assert.ok(!(await page.locator('#detection-redis-insecure-warning').isVisible()), 'no warning while the certificate is checked');
        await ui.step({ check: 'tlsInsecure', value: true }, CONFIG);
        assert.ok(await page.locator('#detection-redis-insecure-warning').isVisible(), 'the warning shows with "Accept a self-signed certificate"');
        await ui.step({ check: 'tlsInsecure', value: false }, CONFIG);
        await ui.step({ fill: 'url', value: 'redis://127.0.0.1:6390' }, CONFIG);
        await ui.step({ check: 'tls', value: true }, CONFIG);
        assert.deepEqual(await shown(tlsRows), [true, true], 'Use TLS: the TLS options are shown');
        await ui.step({ check: 'tls', value: false }, CONFIG);
        assert.deepEqual(await shown(tlsRows), [false, false], 'TLS off again: hidden');
        // With fewer replicas: only once some are asked for
        const fewerShown = () => page.locator('.detection-redis-row-fewer').first().isVisible();
        assert.equal(await fewerShown(), true, 'Confirm on replicas 1: With fewer replicas is shown');
        await ui.step({ fill: 'confirmReplicas', value: '0' }, CONFIG);
        assert.equal(await fewerShown(), false, 'Confirm on replicas 0: With fewer replicas is hidden');
        await ui.step({ fill: 'confirmReplicas', value: '1' }, CONFIG);
        assert.equal(await fewerShown(), true, 'shown again');
      },
      expect: {
        url: 'redis://127.0.0.1:6390',
        database: 2,
        prefix: 'e2e:',
        instance: 'e2e-a',
        tls: false,
        tlsInsecure: false,
        confirmReplicas: 1,
        confirmFewer: 'connected',
      },
    },
    invalid: [
      {
        steps: [{ fill: 'url', value: '127.0.0.1:6379' }],
        error: 'url',
        reason: 'errors.url',
        restore: [{ fill: 'url', value: 'redis://127.0.0.1:6390' }],
      },
      {
        steps: [{ fill: 'url', value: 'http://127.0.0.1:6379' }],
        error: 'url',
        reason: 'errors.url',
        restore: [{ fill: 'url', value: 'redis://127.0.0.1:6390' }],
      },
      { steps: [{ fill: 'database', value: 'one' }], error: 'database', reason: 'errors.database', restore: [{ fill: 'database', value: '2' }] },
      { steps: [{ fill: 'database', value: '1001' }], error: 'database', reason: 'errors.database', restore: [{ fill: 'database', value: '' }] },
    ],
  },
  'detection-enroll': {
    valid: {
      steps: [
        { typed: 'action', type: 'action', value: 'enroll' },
        { typed: 'kind', type: 'kind', value: 'face' },
        { fill: 'externalId', value: 'payload.personId' },
        { fill: 'photo', value: 'payload.picture' },
        { fill: 'firstName', value: 'payload.first' },
        { fill: 'tags', value: 'payload.labels' },
      ],
      check: async (page, nr, ui) => {
        const shown = async (names) => Promise.all(names.map((n) => page.locator(`.detection-enroll-row-${n}`).first().isVisible()));
        const values = ['externalId', 'plate', 'photo', 'firstName', 'monitorReason', 'tags', 'additionalFields'];
        assert.deepEqual(await shown(values), [true, false, true, true, true, true, true], 'enroll a face: no plate');
        await ui.step({ typed: 'kind', type: 'kind', value: 'lpr' });
        assert.deepEqual(await shown(values), [true, true, false, false, true, true, true], 'enroll a plate: no photo or names');
        await ui.step({ typed: 'action', type: 'action', value: 'list' });
        assert.deepEqual(await shown(values), [false, false, false, false, false, false, false], 'list: nothing to read');
        assert.match(await page.locator('#detection-enroll-action-tip').innerText(), /one message per item/);
        await ui.step({ typed: 'action', type: 'action', value: 'unenroll' });
        assert.deepEqual(await shown(values), [true, false, false, false, false, false, false], 'unenroll: the externalId only');
        // read from each message: msg.action and msg.kind when no other property is named, and every value may be needed
        const typed = (f) => page.evaluate((name) => [$(`#node-input-${name}`).typedInput('type'), $(`#node-input-${name}`).typedInput('value')], f);
        for (const f of ['action', 'kind']) {
          const box = page.locator(`#node-input-${f} + .red-ui-typedInput-container`);
          await box.locator('button.red-ui-typedInput-type-select').click();
          await page.locator('.red-ui-typedInput-options:visible a[value="msg"]').click();
          assert.deepEqual(await typed(f), ['msg', f], `msg.${f} when msg is chosen`);
        }
        assert.deepEqual(await shown(values), [true, true, true, true, true, true, true], 'action and kind read per message: every value');
        assert.match(await page.locator('#detection-enroll-action-tip').innerText(), /^msg\.action says what to do with each message/);
        await ui.step({ typed: 'action', type: 'action', value: 'enroll' });
        await ui.step({ typed: 'kind', type: 'kind', value: 'face' });
        assert.deepEqual(await typed('action'), ['action', 'enroll']);
      },
      expect: {
        action: 'enroll',
        actionType: 'action',
        kind: 'face',
        kindType: 'kind',
        externalId: 'payload.personId',
        photo: 'payload.picture',
        firstName: 'payload.first',
        tags: 'payload.labels',
      },
      ports: 1,
    },
    invalid: [
      {
        steps: [{ fill: 'externalId', value: '' }],
        error: 'externalId',
        reason: 'validators.required',
        restore: [{ fill: 'externalId', value: 'payload.personId' }],
      },
      {
        steps: [{ fill: 'photo', value: 'payload..picture' }],
        error: 'photo',
        reason: 'validators.property',
        restore: [{ fill: 'photo', value: 'payload.picture' }],
      },
      {
        steps: [{ typed: 'action', type: 'msg', value: '' }],
        error: 'action',
        reason: 'validators.action-empty',
        restore: [{ typed: 'action', type: 'action', value: 'enroll' }],
      },
      {
        steps: [{ typed: 'kind', type: 'flow', value: 'site..kind' }],
        error: 'kind',
        reason: 'validators.kind',
        restore: [{ typed: 'kind', type: 'kind', value: 'face' }],
      },
    ],
  },
  'events-bridge': {
    valid: {
      steps: [
        { fill: 'url', value: 'https://bridge-host:5022' },
        { fill: 'token', value: 'header.payload.signature' },
        { fill: 'timeout', value: '45' },
        { check: 'insecure', value: true },
        { fill: 'pageQuery', value: 'page={page}&pageSize={size}' },
        { fill: 'pageSize', value: '250' },
        { fill: 'tagPrefix', value: 'partner' },
      ],
      check: async (page) => {
        assert.ok(await page.locator('#events-bridge-insecure-warning').isVisible(), 'the warning shows with "Accept a self-signed certificate"');
        assert.equal(await page.locator('#node-config-input-lprMonitorPath').inputValue(), '/api/v1/lpr/monitor/{externalId}', 'the documented path');
      },
      expect: {
        url: 'https://bridge-host:5022',
        timeout: 45,
        insecure: true,
        pageQuery: 'page={page}&pageSize={size}',
        pageSize: 250,
        photoField: 'faceImage',
        tagPrefix: 'partner',
      },
    },
    invalid: [
      {
        steps: [{ fill: 'url', value: 'bridge-host:5022' }],
        error: 'url',
        reason: 'validators.url-scheme',
        restore: [{ fill: 'url', value: 'https://bridge-host:5022' }],
      },
      {
        steps: [{ fill: 'lprMonitorPath', value: '/api/v1/lpr/monitor' }],
        error: 'lprMonitorPath',
        reason: 'validators.path-external-id',
        restore: [{ fill: 'lprMonitorPath', value: '/api/v1/lpr/monitor/{externalId}' }],
      },
      {
        steps: [{ fill: 'pageQuery', value: 'pageSize={size}' }],
        error: 'pageQuery',
        reason: 'validators.pageQuery-page',
        restore: [{ fill: 'pageQuery', value: 'page={page}&pageSize={size}' }],
      },
      { steps: [{ fill: 'pageSize', value: '0' }], error: 'pageSize', reason: 'validators.pageSize', restore: [{ fill: 'pageSize', value: '250' }] },
      {
        steps: [{ fill: 'tagPrefix', value: 'partner*' }],
        error: 'tagPrefix',
        reason: 'validators.tagPrefix',
        restore: [{ fill: 'tagPrefix', value: 'partner' }],
      },
    ],
  },
  'platform-server': {
    valid: {
      steps: [
        { fill: 'url', value: 'https://core-host' },
        { fill: 'userName', value: 'admin' },
        { fill: 'password', value: 'secret' },
        { fill: 'timeout', value: '45' },
        { check: 'insecure', value: true },
      ],
      check: async (page) => {
        assert.ok(await page.locator('#platform-server-insecure-warning').isVisible(), 'the warning shows with "Accept a self-signed certificate"');
      },
      expect: { url: 'https://core-host', timeout: 45, insecure: true },
    },
    invalid: [
      {
        steps: [{ fill: 'url', value: 'core-host' }],
        error: 'url',
        reason: 'validators.url-scheme',
        restore: [{ fill: 'url', value: 'https://core-host' }],
      },
      { steps: [{ fill: 'timeout', value: '-1' }], error: 'timeout', reason: 'validators.timeout', restore: [{ fill: 'timeout', value: '45' }] },
    ],
  },
};

/**
 * The time a test of `cases` invalid inputs may take: each opens a dialog twice (up to 4 s a case
 * on a slow, busy 2-core machine: the events bridge's 7 took 27 s there), over the 30 s of the rest.
 */
const timeoutForCases = (cases) => 30000 + 6000 * cases;

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
    if (CASES[type]) return CASES[type].invalid;
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
      this.timeout(timeoutForCases(CASES[type].invalid.length));
      const { user, id, prop } = userOf(type);
      const configId = (await nodeState(id)).props[prop];
      await ensureDialog(user, id);
      let n = 0;
      for (const c of CASES[type].invalid) {
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
