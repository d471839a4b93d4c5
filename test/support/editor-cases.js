'use strict';
// The CASES' checks run partly inside the page (page.evaluate): the browser's and the editor's globals.
/* global document, RED, $ */
/**
 * What test/browser/editor.test.js drives each dialog with (CASES), shared
 * with test/unit/editor-validators.test.js, which checks every invalid case's
 * verdict against the dialogs' validators in a VM (test/support/editor-defaults.js):
 * the browser test makes the first invalid case of each dialog in Chromium
 * (and those marked `browser: true`, which the VM cannot make), the VM all
 * of them.
 */
const assert = require('node:assert/strict');
const os = require('node:os');
const { translate } = require('./index');

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
  'detection-alarm': {
    valid: {
      steps: [
        { select: 'keyBy', value: 'subjectCamera' },
        { fill: 'remind', value: '2' },
        { fill: 'maxReminders', value: '4' },
        { fill: 'escalate', value: '10' },
        { fill: 'snoozeFor', value: '30' },
        { select: 'snoozeUnits', value: 'm' },
        { select: 'snoozeScope', value: 'camera' },
        { fill: 'linkBase', value: 'https://alarms.example.com:1880/' },
        { fill: 'linkPath', value: '/alarm/gate' },
      ],
      check: async (page, nr, ui) => {
        const shown = (names) => Promise.all(names.map((n) => page.locator(`#node-input-${n}`).isVisible()));
        assert.equal(
          await page.locator('#detection-alarm-path').innerText(),
          'https://alarms.example.com:1880/alarm/gate/…',
          'the page’s address as the links will carry it',
        );
        assert.deepEqual(await shown(['lookalike', 'lookalikeClasses']), [true, true], 'plates are a key: the look-alikes are shown');
        await ui.step({ select: 'keyBy', value: 'camera' });
        assert.deepEqual(await shown(['lookalike', 'lookalikeClasses']), [false, false], 'one alarm per camera: no plate options');
        await ui.step({ select: 'keyBy', value: 'subjectCamera' });
        assert.deepEqual(await shown(['redis', 'sharedName']), [false, false], 'kept here: the Redis rows are hidden');
        await ui.step({ select: 'scope', value: 'redis' });
        assert.deepEqual(await shown(['redis', 'sharedName']), [true, true]);
        assert.ok(await ui.hasInputError('redis'), 'shared without a Redis server: the list is marked');
        await ui.step({ select: 'scope', value: 'local' });
        assert.match(await page.locator('#detection-alarm-history').innerText(), /deployed/, 'the history waits for a deploy');
      },
      ports: 5,
      expect: {
        keyBy: 'subjectCamera',
        remind: 2,
        maxReminders: 4,
        escalate: 10,
        snoozeFor: 30,
        snoozeUnits: 'm',
        snoozeScope: 'camera',
        linkBase: 'https://alarms.example.com:1880/',
        linkPath: '/alarm/gate',
        scope: 'local',
      },
    },
    invalid: [
      {
        steps: [{ fill: 'linkBase', value: 'alarms.example.com' }],
        error: 'linkBase',
        reason: 'validators.linkBase',
        restore: [{ fill: 'linkBase', value: 'https://alarms.example.com:1880/' }],
      },
      {
        steps: [{ fill: 'linkPath', value: 'alarm page' }],
        error: 'linkPath',
        reason: 'validators.linkPath',
        restore: [{ fill: 'linkPath', value: '' }],
      },
      { steps: [{ fill: 'remind', value: '-1' }], error: 'remind', reason: 'validators.remind', restore: [{ fill: 'remind', value: '2' }] },
      {
        steps: [{ fill: 'maxReminders', value: '1.5' }],
        error: 'maxReminders',
        reason: 'validators.maxReminders',
        restore: [{ fill: 'maxReminders', value: '4' }],
      },
      {
        steps: [{ fill: 'snoozeFor', value: '0' }],
        error: 'snoozeFor',
        reason: 'validators.snoozeFor',
        restore: [{ fill: 'snoozeFor', value: '30' }],
      },
      {
        steps: [{ fill: 'linkHours', value: '1000' }],
        error: 'linkHours',
        reason: 'validators.linkHours',
        restore: [{ fill: 'linkHours', value: '24' }],
      },
      {
        steps: [{ fill: 'lookalikeClasses', value: '0' }],
        error: 'lookalikeClasses',
        reason: 'validators.classes',
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
        // Ready when: the named paths only under "named"; a path no receiver of the workspace has only warns
        assert.equal(await page.locator('#node-input-readyPaths').isVisible(), false, 'any (the default): no paths to name');
        await ui.step({ select: 'readyWhen', value: 'named' });
        await ui.step({ fill: 'readyPaths', value: '/nowhere-yet' });
        await page.locator('#detection-monitor-ready-unknown').waitFor({ state: 'visible' });
        assert.match(await page.locator('#detection-monitor-ready-unknown-text').innerText(), /\/nowhere-yet/);
        assert.equal(await ui.hasInputError('readyPaths', undefined, false), false, 'a path deployed later is no error');
        await ui.step({ fill: 'readyPaths', value: '' });
        await ui.step({ select: 'readyWhen', value: 'any' });
        assert.equal(await page.locator('#node-input-readyPaths').isVisible(), false, 'any: the paths hidden');
        assert.equal(await page.locator('#detection-monitor-ready-unknown').isVisible(), false);
      },
      expect: {
        metrics: true,
        metricsPath: '/e2e/metrics',
        metricsOpen: false,
        health: true,
        healthPath: '/e2e/health',
        healthAuth: false,
        readyWhen: 'any',
      },
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
      {
        // Ready when the receivers named: at least one path
        steps: [
          { select: 'readyWhen', value: 'named' },
          { fill: 'readyPaths', value: ' ' },
        ],
        error: 'readyPaths',
        reason: 'validators.ready-paths-empty',
        restore: [{ fill: 'readyPaths', value: '/e2e/in' }],
      },
      {
        // each a path, as the runtime reads them
        steps: [{ fill: 'readyPaths', value: '/e2e/in\n/a?b' }],
        error: 'readyPaths',
        reason: 'validators.ready-path',
        reasonVars: { entry: '/a?b' },
        restore: [{ select: 'readyWhen', value: 'any' }],
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

/** Step kinds a property of the node stands for, as the dialog saves it (a rule row's shape is the filter dialog's own). */
const PROPERTY_STEPS = ['fill', 'select', 'check', 'typed', 'config', 'crop'];

/**
 * Whether the VM (test/unit/editor-validators.test.js) can make invalid case `c`
 * of `type`: each step sets a property of the node's defaults (not a credential,
 * not a filter rule row), and the field it marks is one.
 */
function madeInVm(type, c) {
  const defaults = require('./editor-defaults').definitions()[type].defaults || {};
  const field = (s) => s[PROPERTY_STEPS.find((k) => k in s)];
  const sets = (s) => PROPERTY_STEPS.some((k) => k in s) && (s.crop ? 'crops' in defaults : field(s) in defaults);
  return [...c.steps, ...c.restore].every(sets) && (c.error === undefined || c.error in defaults) && !c.errorShown;
}

/**
 * The invalid cases of `type` made in Chromium: the first (the field marked,
 * the reason, the red triangle, the mark gone once fixed: Node-RED's handling
 * of our validators, once per dialog) and those the VM cannot make.
 */
function browserCases(type) {
  return CASES[type].invalid.filter((c, i) => i === 0 || !madeInVm(type, c));
}

module.exports = { CASES, FLOW, CONFIG, PROPERTY_STEPS, reachableAddress, timeoutForCases, madeInVm, browserCases };
