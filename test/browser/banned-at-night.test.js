'use strict';
// Functions run inside the page (page.evaluate) use the browser's and the editor's globals.
/* global $, document, RED */
/**
 * End to end: the banned-plate-at-night alert, built from the palette in
 * Chromium without a function node (issue 28).
 *
 * The packed module is installed into a fresh Node-RED; a headless Chromium
 * opens the editor and, as a person would, drags a detection in, a detection
 * filter, a dedupe and two debug nodes from the palette and sets each in its
 * dialog:
 *
 * - the filter: "Plate is one of" a typed list of banned plates; its Plate
 *   matching section (one look-alike, the default) and its preview, where
 *   `8OB123` is typed and the reads it accepts (80B123, BOB123, …) and those
 *   it does not are listed; "Time of detection" "is within" a night window
 *   set with the window editor (a weekday toggle, the from and to times),
 *   saved as text; the node's Time zone Europe/Berlin;
 * - the dedupe: cooldown, the key "plate, look-alikes as one", and a cap of
 *   2 messages per 5 seconds overall: the node gets its digest output;
 *
 * wires receiver → filter → dedupe → debug "alert", the dedupe's digest
 * output → debug "digest", and deploys with the Deploy button.
 *
 * Events are then POSTed over real HTTP to the receiver, without a time zone
 * of their own (the node's applies), in this order:
 *
 * 1. 8OB123 on a Tuesday at noon in Berlin: not at night, no alert;
 * 2. 8OB123 on a Sunday at 22:00 in Berlin: Sunday is not a day of the window;
 * 3. 80B123 on the Tuesday at 22:05 in Berlin (21:05 UTC, outside the window
 *    in UTC: only the node's zone puts it at night): an alert, msg.match a
 *    look-alike at position 2;
 * 4. BOB123 at 22:06: matched by the filter, dropped by the dedupe (the same
 *    car: look-alikes as one);
 * 5. 7KX25O at 22:07 (7KX250 is listed): the second alert;
 * 6. 5ZA771 at 22:08: matched, a new car, but the third within the cap's
 *    period: held back, and summed up in the digest when the period ends.
 *
 * One receiver emits in order and each node decides in order, so once the
 * alerts of the later events show, the earlier ones have been decided: the
 * filter's status counts two not matching, the dedupe's one dropped and one
 * held. The digest is waited for (the period is 5 seconds from the first
 * alert: the test does not sleep, it waits for the digest message). The
 * alerts and the digest are read from the editor's comms websocket and seen
 * in the debug sidebar.
 *
 * Skipped, with a message, only where /usr/bin/chromium is not installed.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, nodeRedVersion, postJson, translate, until } = require('../support');
const { EditorBrowser, SIDEBAR } = require('../support/editor-browser');
const { fullLpr } = require('../fixtures/events');

const { DEFAULT_LOOKALIKES } = require(path.join(ROOT, 'dist', 'lib'));

const ARTIFACTS = path.join(ROOT, 'test-artifacts', `banned-at-night-nr${nodeRedVersion().split('.')[0]}`);
const RECEIVER_PATH = '/e2e/banned-at-night';
/** The banned plates, typed into the filter's plate rule. */
const BANNED = '8OB123, 7KX250, 5ZA771';
/** The night window as the window editor writes it: 22:00-06:00 every day (a new rule's) without Sunday, from 21:30 to 05:30. */
const NIGHT = 'Mon-Sat 21:30-05:30';
const ZONE = 'Europe/Berlin';
const CAP = { count: 2, seconds: 5 };
const ALERT = 'alert';
const DIGEST = 'digest';

/** A plate event read at `utc` (no time zone of its own: the node's applies). */
function plateEvent(messageId, plate, utc) {
  const event = fullLpr();
  event.payload.messageId = messageId;
  event.payload.lprPlateInfo.plate = plate;
  event.payload.lprPlateInfo.similar1Plate = plate;
  event.payload.lprPlateInfo.tags = [];
  event.payload.detectionInfo.dateTimeUtc = utc;
  event.payload.detectionInfo.detectorName = 'Gate 1 LPR';
  delete event.payload.detectionInfo.timeZone;
  return event;
}

/** In the order they are sent (Berlin is UTC+1 in November; 2026-11-24 is a Tuesday). */
const EVENTS = [
  plateEvent('noon-8OB123', '8OB123', '2026-11-24T11:00:00Z'),
  plateEvent('sunday-8OB123', '8OB123', '2026-11-22T21:00:00Z'),
  plateEvent('night-80B123', '80B123', '2026-11-24T21:05:00Z'),
  plateEvent('night-BOB123', 'BOB123', '2026-11-24T21:06:00Z'),
  plateEvent('night-7KX25O', '7KX25O', '2026-11-24T21:07:00Z'),
  plateEvent('night-5ZA771', '5ZA771', '2026-11-24T21:08:00Z'),
];

describe(`e2e: the banned-plate-at-night alert built from the palette, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(60000);

  let browser;
  let nr;
  let page;
  let comms;
  /** The nodes placed from the palette, by role. */
  const ids = {};

  before(async function () {
    if (!EditorBrowser.available()) this.skip();
    this.timeout(180000);
    browser = await EditorBrowser.start({ viewport: { width: 1400, height: 1000 }, artifacts: ARTIFACTS });
    ({ nr, page } = browser);
    comms = await nr.openComms();
    await browser.openEditor(['detection-in', 'detection-filter', 'detection-dedupe', 'debug']);
  });

  afterEach(async function () {
    if (browser) await browser.screenshotIfFailed(this.currentTest);
  });

  after(async function () {
    this.timeout(60000);
    if (comms) comms.close();
    if (browser) await browser.close();
  });

  // ---- steps a person takes (those other tests share are the harness's: test/support/editor-browser.js) ----

  const fromPalette = (type, x, y) => browser.fromPalette(type, x, y);
  const wire = (from, port, to) => browser.wire(from, port, to);
  const done = () => browser.doneEdit();
  const chooseFromMenu = (trigger, value, isChosen, selector) => browser.chooseFromMenu(trigger, value, isChosen, selector);

  /** The node as the editor holds it. */
  function nodeState(id) {
    return page.evaluate((nodeId) => {
      const n = RED.nodes.node(nodeId);
      const props = {};
      for (const k of Object.keys(n._def.defaults || {})) props[k] = n[k];
      return { props, valid: n.valid, errors: n.validationErrors || [], outputs: n.outputs };
    }, id);
  }

  const outputPorts = (id) => page.locator(`[id="${id}"] .red-ui-flow-port-output`).count();
  const ruleRows = () => page.locator('#node-input-rule-container > li');
  const addRule = () =>
    page
      .locator('.red-ui-editableList', { has: page.locator('#node-input-rule-container') })
      .locator(':scope > .red-ui-editableList-addButton')
      .click();
  const trayOf = (form) => page.locator('.red-ui-tray').filter({ has: page.locator(form) });

  /** The messages a debug node sent the editor, decoded as the sidebar decodes them. */
  function debugMessages(id) {
    return comms.debug(id).map((d) => ({ ...d, msg: typeof d.msg === 'string' ? JSON.parse(d.msg) : d.msg }));
  }

  /** Every status text node `id` has shown, in order. */
  function statuses(id) {
    return comms.events.filter((e) => e.topic === `status/${id}`).map((e) => e.data.text);
  }

  // ---- the tests ----

  it('places a detection in, a detection filter, a dedupe and two debug nodes from the palette', async function () {
    // a step down the workspace each: the labels grow with what the dialogs set (the filter's names its rules)
    ids.receiver = await fromPalette('detection-in', 180, 80);
    ids.filter = await fromPalette('detection-filter', 300, 200);
    ids.dedupe = await fromPalette('detection-dedupe', 300, 320);
    ids.alert = await fromPalette('debug', 600, 320);
    ids.digest = await fromPalette('debug', 600, 440);
  });

  it('detection in: a path, no authentication', async function () {
    assert.ok(ids.receiver, 'the receiver from the test before');
    await browser.editNode(ids.receiver);
    await page.locator('#node-input-path').fill(RECEIVER_PATH);
    await page.locator('#node-input-auth').selectOption('none');
    await done();
    const state = await nodeState(ids.receiver);
    assert.equal(state.props.path, RECEIVER_PATH);
    assert.equal(state.props.auth, 'none');
    assert.equal(state.valid, true, `valid: ${state.errors}`);
  });

  it('detection filter: a banned plate list with look-alikes, the preview of 8OB123, a night window, the zone', async function () {
    assert.ok(ids.filter, 'the filter from the first test');
    await browser.editNode(ids.filter);
    assert.ok(!(await page.locator('#detection-filter-plates').isVisible()), 'no Plate matching section without a plate rule');

    // rule 1: Plate is one of, a typed list
    await addRule();
    const plateRow = ruleRows().nth(0);
    await plateRow.locator('select.node-input-rule-type').selectOption('plate');
    const plates = plateRow.locator('input.red-ui-typedInput-input').filter({ visible: true }).first();
    await plates.fill(BANNED);
    await plates.dispatchEvent('change');
    assert.ok(await page.locator('#detection-filter-plates').isVisible(), 'the Plate matching section shows with a plate rule');
    assert.equal(await page.locator('#node-input-plateLookalikes').inputValue(), '1', 'one look-alike allowed by default');
    assert.equal(await page.locator('#node-input-plateExtraMissing').inputValue(), '0', 'no extra or missing character by default');

    // the preview: 8OB123 typed, the reads it accepts and those it does not listed
    const entry = page.locator('#detection-filter-preview-entry');
    const preview = page.locator('#detection-filter-preview');
    await entry.scrollIntoViewIfNeeded();
    await entry.fill('');
    const hint = translate('detection-filter.preview.hint');
    await page.waitForFunction((h) => document.querySelector('#detection-filter-preview').textContent === h, hint);
    await entry.pressSequentially('8OB123');
    // the answer for the whole entry (one for a part of it may show while it is typed)
    const heading = translate('detection-filter.preview.accepted', { entry: '8OB123' });
    await page.waitForFunction(
      (h) =>
        $('#detection-filter-preview > div').first().text() === h && $('#detection-filter-preview .detection-filter-preview-refused li').length > 0,
      heading,
    );
    const accepted = await preview.locator('.detection-filter-preview-accepted li').allInnerTexts();
    const refused = await preview.locator('.detection-filter-preview-refused li').allInnerTexts();
    const line = (list, read) => list.find((l) => l.startsWith(`${read} `));
    const lookalike = (position, from, to) => translate('detection-filter.preview.look-alike', { position, entry: from, read: to });
    assert.ok(line(accepted, '80B123')?.includes(lookalike(2, 'O', '0')), `80B123 accepted, O read as 0: ${accepted.join(' | ')}`);
    assert.ok(line(accepted, 'BOB123')?.includes(lookalike(1, '8', 'B')), `BOB123 accepted, 8 read as B: ${accepted.join(' | ')}`);
    assert.ok(
      line(refused, 'B0B123')?.includes(translate('detection-filter.preview.refused-lookalikes', { count: 2, allowed: 1 })),
      `B0B123 refused, two look-alikes: ${refused.join(' | ')}`,
    );
    assert.ok(
      line(refused, '8OB1123')?.includes(translate('detection-filter.preview.refused-extra-none')),
      `8OB1123 refused, an extra character: ${refused.join(' | ')}`,
    );
    // every line is shown, none hidden in a scroll box of its own
    await preview.scrollIntoViewIfNeeded();
    for (const shown of await preview.locator('li').all()) assert.ok(await shown.isVisible(), `${await shown.innerText()} is shown`);
    assert.ok(
      await preview.evaluate((box) => box.scrollHeight <= box.clientHeight + 1),
      'the preview shows every read without a scroll bar of its own',
    );
    await trayOf('#dialog-form').screenshot({ path: path.join(ARTIFACTS, 'filter-preview.png') });

    // rule 2: Time of detection is within a night window, set with the window editor
    await addRule();
    const timeRow = ruleRows().nth(1);
    await timeRow.locator('select.node-input-rule-type').selectOption('time');
    await timeRow.locator('select.node-input-rule-when').selectOption('inside');
    const windows = timeRow.locator('.detection-filter-window');
    assert.equal(await windows.count(), 1, "a new time rule's window");
    const day = (d) => windows.first().locator(`.detection-filter-day[data-day="${d}"]`);
    const pressed = async () => Promise.all([0, 1, 2, 3, 4, 5, 6].map(async (d) => (await day(d).getAttribute('aria-pressed')) === 'true'));
    assert.deepEqual(await pressed(), [true, true, true, true, true, true, true], "every day pressed: a new rule's window is every night");
    await day(6).click();
    assert.deepEqual(await pressed(), [true, true, true, true, true, true, false], 'Sunday no longer pressed');
    assert.equal(await windows.first().locator('input.detection-filter-to').inputValue(), '06:00', "a new window's end");
    await windows.first().locator('input.detection-filter-from').fill('21:30');
    await windows.first().locator('input.detection-filter-to').fill('05:30');
    const windowsText = timeRow.locator('input.red-ui-typedInput-input').filter({ visible: true }).first();
    assert.equal(await windowsText.inputValue(), NIGHT, 'the window editor writes the windows as text');
    await timeRow.locator('.detection-filter-add-window').scrollIntoViewIfNeeded();
    assert.ok(await timeRow.locator('.detection-filter-add-window').isVisible(), 'the button that adds a window is shown');

    // the node's time zone
    await page.locator('#node-input-timeZone').fill(ZONE);
    await page.locator('#node-input-timeZone').dispatchEvent('change');
    assert.equal(await page.locator('#detection-filter-zone-tip').innerText(), translate('detection-filter.tip.time-zone-own', { zone: ZONE }));

    assert.ok(!(await page.locator('#detection-filter-rules-problem').isVisible()), 'no problem shown under the rules');
    assert.deepEqual(await page.evaluate(() => $('#dialog-form .input-error').length), 0, 'no field marked as an error');
    await page.locator('#node-input-rule-container').scrollIntoViewIfNeeded();
    await trayOf('#dialog-form').screenshot({ path: path.join(ARTIFACTS, 'filter-rules.png') });
    await done();

    const state = await nodeState(ids.filter);
    assert.equal(state.valid, true, `valid: ${state.errors}`);
    assert.deepEqual(state.props.rules, [
      { t: 'plate', v: BANNED, vt: 'list' },
      { t: 'time', k: 'inside', v: NIGHT, vt: 'windows' },
    ]);
    assert.equal(state.props.timeZone, ZONE);
    assert.equal(Number(state.props.plateLookalikes), 1);

    // opened again: the window editor is drawn from the saved text
    await browser.editNode(ids.filter);
    const reopened = ruleRows().nth(1).locator('.detection-filter-window');
    assert.equal(await reopened.count(), 1);
    assert.equal(await reopened.first().locator('input.detection-filter-from').inputValue(), '21:30');
    assert.equal(await reopened.first().locator('input.detection-filter-to').inputValue(), '05:30');
    assert.deepEqual(
      await reopened
        .first()
        .locator('.detection-filter-day')
        .evaluateAll((days) => days.map((d) => d.getAttribute('aria-pressed') === 'true')),
      [true, true, true, true, true, true, false],
    );
    await browser.cancelEdit();
  });

  it('dedupe: cooldown on the plate with look-alikes as one, capped: its digest output appears', async function () {
    assert.ok(ids.dedupe, 'the dedupe from the first test');
    assert.equal(await outputPorts(ids.dedupe), 1, 'one output before the cap');
    await browser.editNode(ids.dedupe);
    await page.locator('#node-input-mode').selectOption('cooldown');
    const key = page.locator('#node-input-key + .red-ui-typedInput-container');
    await chooseFromMenu(
      key.locator('button.red-ui-typedInput-option-trigger'),
      'plateLookalike',
      ([sel, v]) => $(sel).typedInput('value') === v,
      '#node-input-key',
    );
    assert.equal(await key.locator('.red-ui-typedInput-option-label').innerText(), translate('detection-dedupe.key.plateLookalike'));
    await page.locator('#node-input-cap').setChecked(true);
    await page.locator('#node-input-capCount').fill(String(CAP.count));
    await page.locator('#node-input-capPeriod').fill(String(CAP.seconds));
    await page.locator('#node-input-capUnits').selectOption('s');
    await page.locator('#node-input-capPer').selectOption('all');
    assert.deepEqual(await page.evaluate(() => $('#dialog-form .input-error').length), 0, 'no field marked as an error');
    await trayOf('#dialog-form').screenshot({ path: path.join(ARTIFACTS, 'dedupe.png') });
    await done();

    const state = await nodeState(ids.dedupe);
    assert.equal(state.valid, true, `valid: ${state.errors}`);
    for (const [k, v] of Object.entries({
      mode: 'cooldown',
      key: 'plateLookalike',
      keyType: 'event',
      cap: true,
      capCount: CAP.count,
      capPeriod: CAP.seconds,
      capUnits: 's',
      capPer: 'all',
    }))
      assert.ok(state.props[k] == v, `${k} saved as ${JSON.stringify(state.props[k])}, expected ${JSON.stringify(v)}`);
    assert.equal(Number(state.outputs), 2, 'two outputs: first sightings and the digest');
    await page.waitForFunction((id) => document.querySelectorAll(`[id="${id}"] .red-ui-flow-port-output`).length === 2, ids.dedupe);
    const labels = await page.evaluate((id) => {
      const n = RED.nodes.node(id);
      return [0, 1].map((i) => n._def.outputLabels.call(n, i));
    }, ids.dedupe);
    assert.deepEqual(
      labels,
      [translate('detection-dedupe.outputs.first'), translate('detection-dedupe.outputs.digest')],
      'the ports say what they send',
    );
  });

  it('debug nodes: "alert" shows the complete message, "digest" the digest', async function () {
    assert.ok(ids.alert && ids.digest, 'the debug nodes from the first test');
    await browser.editNode(ids.alert);
    const output = page.locator('#node-input-typed-complete + .red-ui-typedInput-container');
    await chooseFromMenu(
      output.locator('button.red-ui-typedInput-type-select'),
      'full',
      ([sel, v]) => $(sel).typedInput('type') === v,
      '#node-input-typed-complete',
    );
    await page.locator('#node-input-name').fill(ALERT);
    await done();
    await browser.editNode(ids.digest);
    await page.locator('#node-input-name').fill(DIGEST);
    await done();
    assert.equal((await nodeState(ids.alert)).props.complete, 'true', 'the alert debug shows msg as a whole (msg.match with it)');
  });

  it('wires receiver → filter → dedupe → alert, the digest output → digest, and deploys', async function () {
    assert.ok(ids.digest, 'the nodes from the tests before');
    await wire(ids.receiver, 0, ids.filter);
    await wire(ids.filter, 0, ids.dedupe);
    await wire(ids.dedupe, 0, ids.alert);
    await wire(ids.dedupe, 1, ids.digest);
    const links = await page.evaluate(() =>
      RED.nodes.filterLinks({}).map((l) => [l.source.type, Number(l.sourcePort), l.target.type === 'debug' ? l.target.name : l.target.type]),
    );
    assert.deepEqual(links.sort(), [
      ['detection-dedupe', 0, ALERT],
      ['detection-dedupe', 1, DIGEST],
      ['detection-filter', 0, 'detection-dedupe'],
      ['detection-in', 0, 'detection-filter'],
    ]);
    assert.deepEqual(
      await page.evaluate(() => RED.nodes.filterNodes({ z: RED.workspaces.active() }).map((n) => n.type)).then((t) => t.sort()),
      ['debug', 'debug', 'detection-dedupe', 'detection-filter', 'detection-in'],
      'no function node',
    );
    await page.locator('#red-ui-workspace-chart').screenshot({ path: path.join(ARTIFACTS, 'flow.png') });
    await browser.deploy();
    const listening = translate('detection-in.status.listening', { path: RECEIVER_PATH });
    await until(() => (comms.status(ids.receiver) || {}).text === listening, 20000, `the receiver's status "${listening}"`);
  });

  it('at night a look-alike read alerts with msg.match; by day, on a Sunday, the same car again and beyond the cap: none', async function () {
    assert.ok(ids.digest && comms.status(ids.receiver), 'the flow deployed by the test before');
    await browser.showSidebarTab('debug', '.red-ui-debug-content');
    // in order: one receiver emits in order, and each node decides in order
    for (const event of EVENTS) {
      const res = await postJson(`${nr.url}${RECEIVER_PATH}`, event);
      assert.equal(res.status, 200, `${event.payload.messageId}: ${res.text}`);
    }

    await until(() => debugMessages(ids.alert).length >= 2, 20000, 'two alerts');
    // the filter decided every event before the last alert left it: two did not match
    const counted = translate('detection-filter.status.counts', { matched: 4, not: 2 });
    await until(() => (comms.status(ids.filter) || {}).text === counted, 5000, `the filter's status "${counted}"`);
    const alerts = debugMessages(ids.alert).map((d) => d.msg);
    assert.deepEqual(
      alerts.map((m) => m.messageId),
      ['night-80B123', 'night-7KX25O'],
      'alerts for the look-alike reads at night only: not at noon, not on Sunday, not the same car again, not beyond the cap',
    );
    assert.deepEqual(alerts[0].match, {
      rule: 1,
      entry: '8OB123',
      read: '80B123',
      against: 'plate',
      kind: 'look-alike',
      differences: [{ position: 2, entry: 'O', read: '0', kind: 'look-alike' }],
      score: 0.9,
      // every rule that held, and one line saying so (Node-RED's language: English here)
      rules: [
        { rule: 1, type: 'plate', plate: '80B123', entry: '8OB123', kind: 'look-alike', score: 0.9 },
        { rule: 2, type: 'time', localTime: '2026-11-24 22:05:00', timeZone: ZONE, windows: 'Mon–Sat 21:30–05:30', inside: true },
      ],
      text: [
        translate('filter.why.plate-like', { plate: '80B123', entry: '8OB123', score: 0.9 }),
        translate('filter.why.time-inside', { time: '22:05', windows: 'Mon–Sat 21:30–05:30', zone: ZONE }),
      ].join(' · '),
    });
    assert.deepEqual(alerts[1].match.differences, [{ position: 6, entry: '0', read: 'O', kind: 'look-alike' }]);
    assert.equal(alerts[1].match.entry, '7KX250');

    // the dedupe: BOB123 is the car of 80B123 (dropped); 5ZA771 the third in the period (held)
    // ... and says that BOB123 was merged into 80B123's key as a look-alike
    const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const heldText = new RegExp(
      `^${escaped(translate('detection-dedupe.status.held', { passed: 2, dropped: 1, held: 1, at: '@' })).replace('@', '.+')}${escaped(
        translate('detection-dedupe.status.lookalikes', { count: 1 }),
      )}$`,
    );
    await until(() => statuses(ids.dedupe).some((t) => heldText.test(t)), 5000, `the dedupe's status ${heldText}`);

    // the digest, at the end of the period
    await until(() => debugMessages(ids.digest).length >= 1, CAP.seconds * 1000 + 15000, 'the digest');
    const digest = debugMessages(ids.digest)[0].msg;
    assert.equal(digest.held, 1, `one held: ${JSON.stringify(digest)}`);
    assert.equal(digest.passed, 2);
    assert.deepEqual(digest.cap, { count: CAP.count, periodMs: CAP.seconds * 1000, per: 'all' });
    assert.deepEqual(
      digest.keys.map((k) => [k.key, k.held]),
      [[DEFAULT_LOOKALIKES.fold('5ZA771'), 1]],
      'the key held: the plate with its look-alikes folded',
    );
    assert.equal(debugMessages(ids.alert).length, 2, 'no alert since');

    // the debug sidebar shows them as a person sees them
    const shown = (name) => page.locator(`${SIDEBAR} .red-ui-debug-msg`).filter({ has: page.locator('.red-ui-debug-msg-name', { hasText: name }) });
    await until(
      async () => (await shown(ALERT).count()) === 2 && (await shown(DIGEST).count()) === 1,
      10000,
      'two alerts and a digest in the sidebar',
    );
    const first = shown(ALERT).first();
    await first.locator('.red-ui-debug-msg-expandable').first().click();
    await first
      .locator('.red-ui-debug-msg-expandable')
      .filter({ has: page.locator('.red-ui-debug-msg-object-key', { hasText: /^match$/ }) })
      .first()
      .click();
    const matchText = await first.innerText();
    assert.match(matchText, /kind: "look-alike"/, `the sidebar shows msg.match: ${matchText}`);
    assert.match(matchText, /read: "80B123"/);
    const digestShown = shown(DIGEST).first();
    await digestShown.locator('.red-ui-debug-msg-expandable').first().click();
    assert.match(await digestShown.innerText(), /held: 1/, 'the sidebar shows the digest');
    await page
      .locator(SIDEBAR)
      .filter({ has: page.locator('.red-ui-debug-content') })
      .first()
      .screenshot({ path: path.join(ARTIFACTS, 'debug.png') });
  });

  it('saw no errors in the browser console and none in the Node-RED log', function () {
    assert.deepEqual(browser.problems, [], 'browser console errors, uncaught errors and failed requests');
    assert.deepEqual(browser.external, []);
    assert.deepEqual(nr.errorLines(), []);
  });
});
