'use strict';
// Functions run inside the page (page.evaluate) use the browser's and the editor's globals.
/* global $, RED */
/**
 * End to end: "e-mail me when a plate tagged Banned is seen at the gate camera
 * at night, at most one mail per car per 10 minutes, with the plate close-up
 * attached", built from the palette with dialogs only, in English and in German.
 *
 * For each language: a fresh Node-RED with the packed module and
 * node-red-node-email installed from npm into its user directory
 * (SENDER_MODULES; the German one with
 * `lang: 'de'` in settings.js, so that the runtime speaks German), a local
 * SMTP server on 127.0.0.1 (test/support/smtp-server.js) and a headless
 * Chromium whose locale is the language (the editor takes it). As a person
 * would, without import and without a change, template or function node:
 *
 * - a detection in dropped from the palette, a path typed, deployed as the
 *   dialog leaves it: a new receiver asks for a Bearer token, so it is
 *   invalid and the editor asks before deploying (confirmed). Its status has no
 *   figures: the runtime sends the catalog key (detection-in.status.needs-token)
 *   and the workspace must show it in the editor's language; the runtime logs
 *   why, once. Then authentication none;
 * - a detection filter: "has any of these tags" Banned, "camera is one of"
 *   Gate 2 LPR, "time of detection" within the window a new time rule
 *   starts with (22:00-06:00, every day: each day toggle pressed), tag prefix
 *   partner (the bridge sends partner-Banned);
 * - a dedupe: cooldown of 10 minutes on the plate, look-alikes as one;
 * - an alert message: e-mail (the default), templates empty (the catalog's
 *   defaults), the picture on;
 * - node-red-node-email's e-mail node: 127.0.0.1, the SMTP server's port,
 *   not secure, TLS check off, BASIC login with the From address, To
 *   security@site.example;
 * - wired, deployed.
 *
 * Plate events built by the simulator (its pictures show the plate) are then
 * POSTed to the receiver: first those that must make no mail (Banned by day,
 * Banned at another camera, not tagged), proved decided by the filter's
 * status on the workspace (a status with figures: in the runtime's language);
 * then two cars Banned at night at Gate 2 LPR, each twice (the second read of
 * the first car a look-alike: the dedupe counts it), and a car Banned at night
 * whose event has no pictures. Three mails must arrive, and the dedupe's and
 * the alert node's statuses prove the duplicates made none. Each mail's subject
 * is the catalog's default with the plate and camera, its body has the local
 * time with its zone and the filter's why line; the two cars' mails carry a
 * JPEG from which test/support/plate-reader.js reads the plate; the third has
 * no attachment and the catalog's missing-picture line.
 *
 * Texts are compared with the catalogs: English through test/support's
 * translate(), German rendered from locales/de/*.json with the same values.
 * The browser must report no problem and make no request off 127.0.0.1, and
 * Node-RED log no error but the receiver's missing token.
 *
 * Skipped, with a message, where /usr/bin/chromium is missing.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, SENDER_MODULES, nodeRedVersion, postJson, translate, until } = require('../support');
const { EditorBrowser } = require('../support/editor-browser');
const { SmtpServer } = require('../support/smtp-server');
const { readPictureText } = require('../support/plate-reader');

const { buildDeliveryEvent } = require(path.join(ROOT, 'dist', 'sim'));
const { formatWindows, parseWindows } = require(path.join(ROOT, 'dist', 'lib'));

const RECEIVER_PATH = '/e2e/alert-from-palette';
const CAMERA = 'Gate 2 LPR';
const OTHER_CAMERA = 'Gate 1 LPR';
const TAG = 'Banned';
const PREFIX = 'partner';
const ZONE = 'Europe/Berlin';
const FROM = 'nodered@site.example';
const TO = 'security@site.example';

/** Every message catalog of `lang` (each node type's and shared.json), merged: keys start with the node type. */
function catalogOf(lang) {
  const dir = path.join(ROOT, 'locales', lang);
  return Object.assign(
    {},
    ...fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))),
  );
}

/** translate() of test/support for English; for another language its catalog, rendered the same way (plurals as i18next picks them). */
function translatorFor(lang) {
  if (lang === 'en-US') return translate;
  const catalog = catalogOf(lang);
  return (key, vars = {}) => {
    const find = (k) => k.split('.').reduce((o, part) => (o && typeof o === 'object' ? o[part] : undefined), catalog);
    const plural = typeof vars.count === 'number' && vars.count !== 1 ? find(`${key}_plural`) : undefined;
    const text = plural !== undefined ? plural : find(key);
    if (typeof text !== 'string') throw new Error(`missing catalog key ${key} in locales/${lang}`);
    return text.replace(/__(\w+)__/g, (_, name) => String(vars[name]));
  };
}

/** An alert template of the catalog (`{field}`) filled with `values`. */
function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, field) => {
    assert.ok(field in values, `a value for {${field}}`);
    return values[field];
  });
}

/**
 * A plate event as the simulator delivers it, its pictures drawn with `plate` (or none): tagged
 * `tags`, at `camera`, read at `utc` in Berlin.
 */
function plateEvent(messageId, plate, { utc, camera = CAMERA, tags = [`${PREFIX}-${TAG}`], pictures = true }) {
  return buildDeliveryEvent('lpr', {
    messageId,
    images: pictures ? 'pictures' : 'none',
    edit: (event) => {
      const { lprPlateInfo, detectionInfo } = event.payload;
      lprPlateInfo.plate = plate;
      lprPlateInfo.similar1Plate = plate;
      lprPlateInfo.tags = tags.map((tagName) => ({ tagName, expires: null }));
      detectionInfo.detectorName = camera;
      detectionInfo.dateTimeUtc = utc;
      detectionInfo.timeZone = ZONE;
    },
  });
}

/** Berlin is UTC+1 in November: 22:10 UTC is 23:10 there, 11:00 UTC noon. */
const NIGHT = (minute) => `2026-11-24T22:${String(minute).padStart(2, '0')}:00Z`;
const NOON = '2026-11-24T11:00:00Z';
/** The events that must make no mail, sent first. */
const NO_MAIL = [
  plateEvent('day-banned', 'DAY111', { utc: NOON }),
  plateEvent('night-other-camera', 'OTH222', { utc: NIGHT(5), camera: OTHER_CAMERA }),
  plateEvent('night-not-tagged', 'NOT333', { utc: NIGHT(6), tags: [] }),
];
/** The cars that must each make one mail: [plate, local time, pictures]. */
const CARS = {
  first: { plate: 'BAN123', local: '2026-11-24 23:10:00', pictures: true },
  second: { plate: 'KXR456', local: '2026-11-24 23:11:00', pictures: true },
  third: { plate: 'NOP789', local: '2026-11-24 23:14:00', pictures: false },
};
/** Then, in order: each car, the first two twice (the first car's second read a look-alike, 8 for B). */
const MAIL = [
  plateEvent('night-first', CARS.first.plate, { utc: NIGHT(10) }),
  plateEvent('night-second', CARS.second.plate, { utc: NIGHT(11) }),
  plateEvent('night-first-again', '8AN123', { utc: NIGHT(12) }),
  plateEvent('night-second-again', CARS.second.plate, { utc: NIGHT(13) }),
  plateEvent('night-third-no-picture', CARS.third.plate, { utc: NIGHT(14), pictures: false }),
];

function alertFromPalette(lang) {
  describe(`${lang}: the editor and Node-RED in ${lang}`, function () {
    this.timeout(60000);
    const say = translatorFor(lang);
    const ARTIFACTS = path.join(ROOT, 'test-artifacts', `alert-from-palette-nr${nodeRedVersion().split('.')[0]}`, lang);

    let browser;
    let nr;
    let page;
    let comms;
    let smtp;
    /** The nodes placed from the palette, by role. */
    const ids = {};

    before(async function () {
      if (!EditorBrowser.available()) this.skip();
      this.timeout(180000);
      smtp = await SmtpServer.start();
      browser = await EditorBrowser.start({
        locale: lang,
        modules: [SENDER_MODULES.email],
        settings: lang === 'de' ? { lang: 'de' } : {},
        viewport: { width: 1400, height: 1000 },
        artifacts: ARTIFACTS,
      });
      ({ nr, page } = browser);
      comms = await nr.openComms();
      await browser.openEditor(['detection-in', 'detection-filter', 'detection-dedupe', 'detection-alert', 'e-mail']);
    });

    afterEach(async function () {
      if (!browser) return;
      await browser.screenshotIfFailed(this.currentTest);
      if (this.currentTest && this.currentTest.state === 'failed') {
        console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
        if (smtp) console.log(`mails: ${smtp.mails.map((m) => m.subject).join(', ')}; SMTP errors: ${smtp.errors.map((e) => e.message).join('; ')}`);
      }
    });

    after(async function () {
      this.timeout(60000);
      if (comms) comms.close();
      if (browser) await browser.close();
      if (smtp) await smtp.close();
    });

    /** The node as the editor holds it. */
    function nodeState(id) {
      return page.evaluate((nodeId) => {
        const n = RED.nodes.node(nodeId);
        const props = {};
        for (const k of Object.keys(n._def.defaults || {})) props[k] = n[k];
        return { props, valid: n.valid, errors: n.validationErrors || [] };
      }, id);
    }

    /** The latest status text node `id` sent over the editor's comms, as the runtime sent it. */
    const sent = (id) => (comms.status(id) || {}).text;

    const ruleRows = () => page.locator('#node-input-rule-container > li');
    const addRule = () =>
      page
        .locator('.red-ui-editableList', { has: page.locator('#node-input-rule-container') })
        .locator(':scope > .red-ui-editableList-addButton')
        .click();
    /** Rule `n` (from 1): added, its type chosen; its list typed into its value box. */
    async function listRule(n, type, list) {
      await addRule();
      const row = ruleRows().nth(n - 1);
      await row.locator('select.node-input-rule-type').selectOption(type);
      const value = row.locator('input.red-ui-typedInput-input').filter({ visible: true }).first();
      await value.fill(list);
      await value.dispatchEvent('change');
      return row;
    }

    it('detection in from the palette, deployed as its dialog leaves it: the status without figures (a key) is shown in the language', async function () {
      ids.receiver = await browser.fromPalette('detection-in', 200, 80);
      await browser.editNode(ids.receiver);
      await page.locator('#node-input-path').fill(RECEIVER_PATH);
      assert.equal(await page.locator('#node-input-auth').inputValue(), 'bearer', 'a new receiver asks for a Bearer token');
      await browser.doneEdit();
      const state = await nodeState(ids.receiver);
      assert.equal(state.props.path, RECEIVER_PATH);
      assert.equal(state.valid, false, 'without its token the receiver is invalid');

      await browser.deploy({ confirm: true });
      const key = 'detection-in.status.needs-token';
      await until(
        () => sent(ids.receiver) === key,
        20000,
        () => `the runtime's status key ${key}, got ${JSON.stringify(sent(ids.receiver))}`,
      );
      await browser.statusShows(ids.receiver, say(key));
      // why, in the log, once: in the runtime's language
      const why = say('detection-in.errors.auth-config', { problem: say('auth.bearer-token') });
      await until(() => nr.errorLines().length > 0, 10000, 'the receiver logs why it cannot start');
      const errors = nr.errorLines();
      assert.equal(errors.length, 1, `one error logged: ${errors.join('\n')}`);
      assert.ok(errors[0].includes(why), `the log says "${why}": ${errors[0]}`);

      await browser.editNode(ids.receiver);
      await page.locator('#node-input-auth').selectOption('none');
      await browser.doneEdit();
      assert.equal((await nodeState(ids.receiver)).valid, true, 'valid without authentication');
    });

    it('detection filter: tag Banned, camera Gate 2 LPR, the time window a new time rule starts with, tag prefix partner', async function () {
      assert.ok(ids.receiver, 'the receiver from the test before');
      ids.filter = await browser.fromPalette('detection-filter', 360, 180);
      await browser.editNode(ids.filter);
      await listRule(1, 'tag', TAG);
      await listRule(2, 'camera', CAMERA);
      await addRule();
      const timeRow = ruleRows().nth(2);
      await timeRow.locator('select.node-input-rule-type').selectOption('time');
      assert.equal(await timeRow.locator('select.node-input-rule-when').inputValue(), 'inside', 'a new time rule: within the windows');
      const windows = timeRow.locator('.detection-filter-window');
      assert.equal(await windows.count(), 1, "a new time rule's window");
      const pressed = await windows
        .first()
        .locator('.detection-filter-day')
        .evaluateAll((days) => days.map((d) => d.getAttribute('aria-pressed') === 'true'));
      assert.deepEqual(pressed, [true, true, true, true, true, true, true], 'every day pressed');
      assert.equal(await windows.first().locator('input.detection-filter-from').inputValue(), '22:00');
      assert.equal(await windows.first().locator('input.detection-filter-to').inputValue(), '06:00');
      await page.locator('#node-input-tagPrefix').fill(PREFIX);
      await page.locator('#node-input-tagPrefix').dispatchEvent('change');
      assert.ok(!(await page.locator('#detection-filter-rules-problem').isVisible()), 'no problem shown under the rules');
      assert.equal(await page.evaluate(() => $('#dialog-form .input-error').length), 0, 'no field marked as an error');
      await browser.doneEdit();

      const state = await nodeState(ids.filter);
      assert.equal(state.valid, true, `valid: ${state.errors}`);
      assert.deepEqual(
        state.props.rules.map((r) => [r.t, r.v, r.vt, r.k]),
        [
          ['tag', TAG, 'list', undefined],
          ['camera', CAMERA, 'list', undefined],
          ['time', '22:00-06:00', 'windows', 'inside'],
        ],
      );
      assert.equal(state.props.tagPrefix, PREFIX);
      assert.equal(state.props.combine, 'all', 'every rule must hold');
    });

    it('dedupe: a cooldown of 10 minutes on the plate, look-alikes as one', async function () {
      assert.ok(ids.filter, 'the filter from the test before');
      ids.dedupe = await browser.fromPalette('detection-dedupe', 360, 280);
      await browser.editNode(ids.dedupe);
      await page.locator('#node-input-mode').selectOption('cooldown');
      const key = page.locator('#node-input-key + .red-ui-typedInput-container');
      await browser.chooseFromMenu(
        key.locator('button.red-ui-typedInput-option-trigger'),
        'plateLookalike',
        ([sel, v]) => $(sel).typedInput('value') === v,
        '#node-input-key',
      );
      assert.equal(await key.locator('.red-ui-typedInput-option-label').innerText(), say('detection-dedupe.key.plateLookalike'));
      await page.locator('#node-input-ttl').fill('10');
      await page.locator('#node-input-ttl').dispatchEvent('change');
      await page.locator('#node-input-ttlUnits').selectOption('m');
      assert.equal(await page.evaluate(() => $('#dialog-form .input-error').length), 0, 'no field marked as an error');
      await browser.doneEdit();
      const state = await nodeState(ids.dedupe);
      assert.equal(state.valid, true, `valid: ${state.errors}`);
      for (const [k, v] of Object.entries({ mode: 'cooldown', key: 'plateLookalike', keyType: 'event', ttl: 10, ttlUnits: 'm', cap: false }))
        assert.ok(state.props[k] == v, `${k} saved as ${JSON.stringify(state.props[k])}, expected ${JSON.stringify(v)}`);
    });

    it('alert message: e-mail, the default templates, the picture attached', async function () {
      assert.ok(ids.dedupe, 'the dedupe from the test before');
      ids.alert = await browser.fromPalette('detection-alert', 360, 380);
      await browser.editNode(ids.alert);
      assert.equal(await page.locator('#node-input-sender').inputValue(), 'email', 'e-mail by default');
      assert.equal(await page.locator('#detection-alert-sender-tip').innerText(), say('detection-alert.tip.sender.email'));
      assert.equal(await page.locator('#node-input-subject').inputValue(), '', 'the subject left empty: the default');
      assert.equal(await page.locator('#node-input-body').inputValue(), '', 'the body left empty: the default');
      assert.equal(
        await page.locator('#node-input-body').getAttribute('placeholder'),
        say('detection-alert.default.body'),
        'the default shown greyed',
      );
      await page.locator('#node-input-picture').setChecked(true);
      assert.ok(await page.locator('#node-input-crops').isVisible(), "the picture's options are shown");
      await browser.doneEdit();
      const state = await nodeState(ids.alert);
      assert.equal(state.valid, true, `valid: ${state.errors}`);
      assert.equal(state.props.sender, 'email');
      assert.equal(state.props.picture, true);
    });

    it('e-mail (node-red-node-email): the local SMTP server, not secure, TLS check off, a login, the To address', async function () {
      assert.ok(ids.alert, 'the alert message from the test before');
      ids.email = await browser.fromPalette('e-mail', 600, 460);
      await browser.editNode(ids.email);
      await page.locator('#node-input-name').fill(TO);
      await page.locator('#node-input-server').fill('127.0.0.1');
      await page.locator('#node-input-port').fill(String(smtp.port));
      await page.locator('#node-input-secure').setChecked(false);
      await page.locator('#node-input-authtype').selectOption('BASIC');
      await page.locator('#node-input-userid').fill(FROM);
      await page.locator('#node-input-password').fill('any password');
      await page.locator('#node-input-tls').setChecked(false);
      await browser.doneEdit();
      const state = await nodeState(ids.email);
      assert.equal(state.valid, true, `valid: ${state.errors}`);
      for (const [k, v] of Object.entries({ name: TO, server: '127.0.0.1', port: String(smtp.port), secure: false, tls: false, authtype: 'BASIC' }))
        assert.equal(state.props[k], v, `${k}`);
    });

    it('wires receiver → filter → dedupe → alert message → e-mail and deploys: the receiver listens', async function () {
      assert.ok(ids.email, 'the nodes from the tests before');
      await browser.wire(ids.receiver, 0, ids.filter);
      await browser.wire(ids.filter, 0, ids.dedupe);
      await browser.wire(ids.dedupe, 0, ids.alert);
      await browser.wire(ids.alert, 0, ids.email);
      assert.deepEqual(
        await page.evaluate(() => RED.nodes.filterNodes({ z: RED.workspaces.active() }).map((n) => n.type)).then((t) => t.sort()),
        ['detection-alert', 'detection-dedupe', 'detection-filter', 'detection-in', 'e-mail'],
        'no change, template or function node',
      );
      await browser.deploy();
      const listening = say('detection-in.status.listening', { path: RECEIVER_PATH });
      await until(
        () => sent(ids.receiver) === listening,
        20000,
        () => `the receiver's status "${listening}", got ${JSON.stringify(sent(ids.receiver))}`,
      );
      await browser.statusShows(ids.receiver, listening);
      await page.locator('#red-ui-workspace-chart').screenshot({ path: path.join(ARTIFACTS, 'flow.png') });
    });

    it('no mail by day, at another camera or without the tag; one per car at night, the plate read off its picture; a car without pictures: a mail that says so', async function () {
      assert.ok(sent(ids.receiver), 'the flow deployed by the test before');
      const post = async (event) => {
        const res = await postJson(`${nr.url}${RECEIVER_PATH}`, event);
        assert.equal(res.status, 200, `${event.payload.messageId}: ${res.text}`);
      };
      for (const event of NO_MAIL) await post(event);
      // decided: the filter counts them (a status with figures: the runtime's language)
      const none = say('detection-filter.status.counts', { matched: 0, not: NO_MAIL.length });
      await until(
        () => sent(ids.filter) === none,
        20000,
        () => `the filter's status "${none}", got ${JSON.stringify(sent(ids.filter))}`,
      );
      await browser.statusShows(ids.filter, none);
      assert.equal(smtp.mails.length, 0, 'no mail');

      for (const event of MAIL) await post(event);
      const mails = await smtp.until(3, 30000);
      // every event decided: the filter let the five through, the dedupe dropped the repeats (one a look-alike read)
      const matched = say('detection-filter.status.counts', { matched: MAIL.length, not: NO_MAIL.length });
      await until(
        () => sent(ids.filter) === matched,
        10000,
        () => `the filter's status "${matched}", got ${JSON.stringify(sent(ids.filter))}`,
      );
      const deduped =
        say('detection-dedupe.status.counts', { passed: 3, dropped: 2, keys: say('detection-dedupe.status.keys', { count: 3 }) }) +
        say('detection-dedupe.status.lookalikes', { count: 1 });
      await until(
        () => sent(ids.dedupe) === deduped,
        10000,
        () => `the dedupe's status "${deduped}", got ${JSON.stringify(sent(ids.dedupe))}`,
      );
      const alerted = say('detection-alert.status.counts', { alerts: 3, without: 1 });
      await until(
        () => sent(ids.alert) === alerted,
        10000,
        () => `the alert's status "${alerted}", got ${JSON.stringify(sent(ids.alert))}`,
      );
      // the workspace shows them as the runtime made them: in German in the German run
      await browser.statusShows(ids.alert, alerted);
      await browser.statusShows(ids.dedupe, deduped);
      await page.locator('#red-ui-workspace-chart').screenshot({ path: path.join(ARTIFACTS, 'statuses.png') });
      assert.equal(smtp.mails.length, 3, `three mails: ${smtp.mails.map((m) => m.subject).join(', ')}`);

      const windows = formatWindows(parseWindows('22:00-06:00').windows, '–');
      const bodyLines = say('detection-alert.default.body').split('\n');
      for (const car of Object.values(CARS)) {
        const values = {
          plate: car.plate,
          camera: CAMERA,
          time: `${car.local} ${ZONE}`,
          why: [
            say('filter.why.tag-sent-as', { tag: TAG, sent: `${PREFIX}-${TAG}` }),
            say('filter.why.camera', { camera: CAMERA }),
            say('filter.why.time-inside', { time: car.local.slice(11, 16), windows, zone: ZONE }),
          ].join(' · '),
        };
        const subject = fill(say('detection-alert.default.subject-lpr'), values);
        const found = mails.filter((m) => m.subject === subject);
        assert.equal(found.length, 1, `one mail "${subject}": ${mails.map((m) => JSON.stringify(m.subject)).join(', ')}`);
        const [mail] = found;
        assert.equal(mail.to, TO);
        assert.equal(mail.from, FROM);
        assert.deepEqual(mail.envelope, { from: FROM, to: [TO] });
        assert.equal(mail.user, FROM, 'logged in with the user id');
        const lines = mail.text.split('\n').map((l) => l.trim());
        for (const field of ['plate', 'camera', 'time', 'why']) {
          const line = fill(
            bodyLines.find((l) => l.includes(`{${field}}`)),
            values,
          );
          assert.ok(lines.includes(line), `${car.plate}: the body has "${line}": ${mail.text}`);
        }
        const missing = say('detection-alert.picture.none');
        if (car.pictures) {
          assert.equal(mail.attachments.length, 1, `${car.plate}: one attachment`);
          assert.equal(mail.attachments[0].contentType, 'image/jpeg');
          assert.equal(readPictureText(mail.attachments[0].content), car.plate, `${car.plate}: the plate read off the attached picture`);
          assert.ok(!lines.includes(missing), `${car.plate}: no missing-picture line`);
        } else {
          assert.deepEqual(mail.attachments, [], `${car.plate}: no attachment`);
          assert.ok(lines.includes(missing), `${car.plate}: the body says "${missing}": ${mail.text}`);
        }
      }
    });

    it('saw no problem in the browser, no request off 127.0.0.1 and no error in the Node-RED log but the missing token', function () {
      assert.deepEqual(browser.problems, [], 'browser console errors, uncaught errors and failed requests');
      assert.deepEqual(browser.external, [], 'requests off 127.0.0.1');
      assert.equal(nr.errorLines().length, 1, `only the receiver's missing token: ${nr.errorLines().join('\n')}`);
      assert.deepEqual(smtp.errors, [], 'the SMTP server parsed every mail');
    });
  });
}

describe(`e2e: an e-mail alert built from the palette, in English and German, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  for (const lang of ['en-US', 'de']) alertFromPalette(lang);
});
