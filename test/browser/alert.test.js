'use strict';
// Functions run inside the page (page.evaluate) use the browser's and the editor's globals.
/* global document, RED */
/**
 * End to end: the "alert with picture" example in Chromium (issue 13).
 *
 * The packed module is installed into a fresh Node-RED; a headless Chromium
 * opens the editor, imports `alert-with-picture` from Menu → Import →
 * Examples as a person would, and deploys it with the Deploy button. Events
 * are then POSTed over real HTTP to the example's receiver
 * (/detections/alerts): built from the built-in samples, with a small real
 * JPEG as every picture, and changed per case:
 *
 * - the VIP plate at the example's camera (Gate 2 LPR): must make an alert;
 * - the same plate at another camera: must not;
 * - the same plate with its VIP tag expired before the detection: must not;
 * - a person tagged Banned at Entrance Cam 3: must make an alert.
 *
 * The negatives are posted first: one receiver emits in order and the filter
 * decides each message as it comes, so once the alerts of the later events
 * show, the negatives have been decided, and must have made none (the
 * filter's status counts them as not matching). No sleeping.
 *
 * The two alert message nodes shape each alert for the e-mail node and a
 * Telegram sender (the catalog's default subject and text: plate or name,
 * camera, local time with its zone, the filter's why); the debug sidebar must
 * show the e-mail message (its subject and an attachment whose file name ends
 * .jpg) and the Telegram message (a photo with the caption). The editor's own messages over its comms websocket are
 * read too, for the exact values.
 *
 * Skipped, with a message, only where /usr/bin/chromium is not installed.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, nodeRedVersion, postJson, translate, until } = require('../support');
const { EditorBrowser, SIDEBAR, onlyNode } = require('../support/editor-browser');

const EXAMPLE = 'alert-with-picture';
const ARTIFACTS = path.join(ROOT, 'test-artifacts', `alert-nr${nodeRedVersion().split('.')[0]}`);
const EMAIL_DEBUG = 'e-mail (put an e-mail node here)';
const TELEGRAM_DEBUG = 'Telegram (put a telegram sender here)';

/** A small real JPEG: SOI, a JFIF APP0 segment, EOI. The image node only sniffs the format. */
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9,
]).toString('base64');

const { buildSampleEvent } = require(path.join(ROOT, 'dist', 'lib'));

/** A sample event of `kind` with its own messageId, every picture the small JPEG, changed by `change`. */
function eventOf(kind, messageId, change = () => {}) {
  const event = buildSampleEvent(kind, { messageId });
  if (kind === 'lpr') for (const image of event.payload.detectionImages) image.image = JPEG;
  else {
    event.payload.detectionImage = { image: JPEG };
    event.payload.defaultPhoto = { image: JPEG };
  }
  change(event);
  return event;
}

describe(`e2e: the alert-with-picture example in Chromium, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(60000);

  let browser;
  let nr;
  let page;
  let comms;

  before(async function () {
    if (!EditorBrowser.available()) this.skip();
    this.timeout(180000);
    browser = await EditorBrowser.start({ viewport: { width: 1600, height: 1000 }, artifacts: ARTIFACTS });
    ({ nr, page } = browser);
    comms = await nr.openComms();
    await browser.openEditor(['detection-filter']);
  });

  afterEach(async function () {
    if (browser) await browser.screenshotIfFailed(this.currentTest);
  });

  after(async function () {
    this.timeout(60000);
    if (comms) comms.close();
    if (browser) await browser.close();
  });

  /** The messages a debug node sent the editor, decoded as the sidebar decodes them. */
  function debugMessages(id) {
    return comms.debug(id).map((d) => ({ ...d, msg: typeof d.msg === 'string' ? JSON.parse(d.msg) : d.msg }));
  }

  let ids;

  it(`imports the ${EXAMPLE} example from Menu → Import → Examples and deploys it`, async function () {
    await browser.importExample(EXAMPLE);

    const nodes = await browser.flowNodes();
    const one = (type, name) => onlyNode(nodes, type, name);
    ids = {
      receiver: one('detection-in'),
      filter: one('detection-filter'),
      dedupe: one('detection-dedupe'),
      email: one('debug', EMAIL_DEBUG),
      telegram: one('debug', TELEGRAM_DEBUG),
    };
    assert.deepEqual(
      nodes.filter((n) => n.valid === false).map((n) => `${n.type} "${n.name}": ${n.errors}`),
      [],
      'imported nodes that are invalid',
    );
    await browser.place();
    await browser.deploy();
    // the receiver says it listens once its route is mounted (no request made: it would count)
    const listening = translate('detection-in.status.listening', { path: '/detections/alerts' });
    await until(() => (comms.status(ids.receiver) || {}).text === listening, 20000, `the receiver's status "${listening}"`);
    await page.locator('#red-ui-workspace-chart').screenshot({ path: path.join(ARTIFACTS, `${EXAMPLE}-deployed.png`) });
  });

  it('alerts, with the picture, on a VIP plate at the chosen camera and a Banned person; not on another camera or an expired tag', async function () {
    assert.ok(ids, 'the example was deployed by the test before');
    const expires = (event) => {
      // expired an hour before the detection
      const at = Date.parse(event.payload.detectionInfo.dateTimeUtc);
      event.payload.lprPlateInfo.tags = [{ tagName: 'VIP', expires: new Date(at - 3600000).toISOString() }];
    };
    const events = {
      otherCamera: eventOf('lpr', 'e2e-other-camera', (e) => (e.payload.detectionInfo.detectorName = 'Gate 1 LPR')),
      expiredTag: eventOf('lpr', 'e2e-expired-tag', expires),
      vipPlate: eventOf('lpr', 'e2e-vip-plate'),
      bannedPerson: eventOf('face', 'e2e-banned-person', (e) => {
        e.payload.personInfo.tags = [{ tagName: 'Banned', expires: null }];
      }),
    };
    // sample sanity: the positive is what the example's filter is set up for
    assert.equal(events.vipPlate.payload.detectionInfo.detectorName, 'Gate 2 LPR');
    assert.ok(events.vipPlate.payload.lprPlateInfo.tags.some((t) => t.tagName === 'VIP' && Date.parse(t.expires) > Date.now()));
    assert.equal(events.bannedPerson.payload.detectionInfo.detectorName, 'Entrance Cam 3');

    // Node-RED 5's tab buttons toggle, and the debug tab may already be open in the sidebar's bottom section.
    await browser.showSidebarTab('debug', '.red-ui-debug-content');
    // negatives first: one receiver emits in order
    for (const key of ['otherCamera', 'expiredTag', 'vipPlate', 'bannedPerson']) {
      const res = await postJson(`${nr.url}/detections/alerts`, events[key]);
      assert.equal(res.status, 200, `${key}: ${res.text}`);
    }

    // the structured messages the debug nodes sent the editor
    await until(() => debugMessages(ids.email).length >= 2 && debugMessages(ids.telegram).length >= 2, 20000, 'two e-mail and two Telegram messages');
    const emails = debugMessages(ids.email).map((d) => d.msg);
    const telegrams = debugMessages(ids.telegram).map((d) => d.msg);
    assert.deepEqual(
      emails.map((m) => m.detection.messageId),
      ['e2e-vip-plate', 'e2e-banned-person'],
      'e-mails for the VIP plate and the Banned person only, in order',
    );
    assert.deepEqual(
      telegrams.map((m) => m.payload.caption && m.detection.messageId),
      ['e2e-vip-plate', 'e2e-banned-person'],
      'Telegram photos for the VIP plate and the Banned person only',
    );

    const [plateMail, faceMail] = emails;
    // the subjects and texts are the catalog's defaults for each kind (the templates are left empty)
    const fill = (template, fields) => template.replace(/\{(\w+)\}/g, (_, f) => fields[f]);
    assert.equal(plateMail.topic, fill(translate('detection-alert.default.subject-lpr'), { plate: 'XYZ987', camera: 'Gate 2 LPR' }));
    assert.equal(faceMail.topic, fill(translate('detection-alert.default.subject-face'), { person: 'John Michael Doe', camera: 'Entrance Cam 3' }));
    const lines = (mail) => mail.payload.split('\n');
    const line = (mail, label) => lines(mail).find((l) => l.startsWith(`${label}: `));
    assert.equal(line(plateMail, 'Plate'), 'Plate: XYZ987');
    assert.equal(line(plateMail, 'Camera'), 'Camera: Gate 2 LPR');
    assert.equal(line(plateMail, 'Person'), undefined, 'no Person line for a plate: its field is empty');
    assert.equal(line(faceMail, 'Person'), 'Person: John Michael Doe');
    for (const mail of emails) {
      assert.equal(line(mail, 'Time'), `Time: ${mail.detection.localTime} ${mail.detection.timeZone}`, 'the local time with its zone');
      assert.equal(line(mail, 'Why it matched'), `Why it matched: ${mail.match.text}`, "the filter's why");
      assert.match(mail.match.text, /VIP|Banned/, `why names the tag: ${mail.match.text}`);
      assert.match(line(mail, 'Tags'), /^Tags: .*(VIP|Banned)/, 'the tags without the account prefix');
      assert.doesNotMatch(line(mail, 'Tags'), /partner-/);
      assert.equal(mail.attachments.length, 1, 'one attachment');
      assert.match(mail.attachments[0].filename, /\.jpg$/, 'the attachment is named .jpg');
      assert.equal(mail.attachments[0].contentType, 'image/jpeg');
      assert.equal(mail.attachments[0].content.type, 'Buffer', 'the attachment content is a Buffer');
      assert.equal(Buffer.from(mail.attachments[0].content.data).toString('base64'), JPEG, 'the attachment is the picture sent');
      assert.equal(typeof mail.payload, 'string', 'the event in msg.payload was replaced by the text');
    }
    assert.match(plateMail.attachments[0].filename, /Close/, 'the plate picture is the Close crop');
    for (const [i, tg] of telegrams.entries()) {
      assert.equal(tg.payload.type, 'photo');
      assert.equal(typeof tg.payload.chatId, 'number', 'a chat id to replace');
      assert.equal(tg.payload.caption, `${emails[i].topic}\n\n${emails[i].payload}`, 'the caption is the subject and the text');
      assert.equal(tg.payload.content.type, 'Buffer', 'the photo is a Buffer');
      assert.equal(Buffer.from(tg.payload.content.data).toString('base64'), JPEG);
      assert.equal(tg.payload.fileOptions.contentType, 'image/jpeg');
    }

    // The filter decided the negatives before the positives (in order): two did not match.
    const counted = translate('detection-filter.status.counts', { matched: 2, not: 2 });
    await until(() => (comms.status(ids.filter) || {}).text === counted, 5000, `the filter's status "${counted}"`);

    // The debug sidebar shows them as a person sees them: the e-mail's subject (the text
    // line) in its header and, unfolded, the attachment's file name; the Telegram photo's caption.
    const shown = (name) => page.locator(`${SIDEBAR} .red-ui-debug-msg`).filter({ has: page.locator('.red-ui-debug-msg-name', { hasText: name }) });
    await until(
      async () => (await shown(EMAIL_DEBUG).count()) === 2 && (await shown(TELEGRAM_DEBUG).count()) === 2,
      10000,
      'two of each in the sidebar',
    );
    const unfold = async (message, keys) => {
      await message.locator('.red-ui-debug-msg-expandable').first().click();
      for (const key of keys) {
        const row = message
          .locator('.red-ui-debug-msg-expandable')
          .filter({ has: page.locator('.red-ui-debug-msg-object-key', { hasText: new RegExp(`^${key}$`) }) });
        await row.first().click();
      }
    };
    for (const [i, mail] of emails.entries()) {
      const message = shown(EMAIL_DEBUG).nth(i);
      assert.ok((await message.innerText()).includes(mail.topic), `the sidebar shows the subject "${mail.topic}"`);
      await unfold(message, ['attachments', '0']);
      assert.equal((await message.innerText()).match(/filename: "[^"]+\.jpg"/g).length, 1, 'the sidebar shows the attachment file name');
    }
    // The Telegram messages' values were read exactly above (comms); the sidebar lists both.
    assert.equal(await shown(TELEGRAM_DEBUG).count(), telegrams.length);
    await page
      .locator(SIDEBAR)
      .filter({ has: page.locator('.red-ui-debug-content') })
      .first()
      .screenshot({ path: path.join(ARTIFACTS, `${EXAMPLE}-debug.png`) });
  });

  it('saw no errors in the browser console and none in the Node-RED log', function () {
    assert.deepEqual(browser.problems, [], 'browser console errors, uncaught errors and failed requests');
    assert.deepEqual(browser.external, []);
    assert.deepEqual(nr.errorLines(), []);
  });

  it('a receiver that cannot start says why under it: no token, a path in use (by name and flow, not id)', async function () {
    assert.ok(ids, 'the example was deployed by the test before');
    const flowLabel = await page.evaluate(() => RED.nodes.workspace(RED.workspaces.active()).label);
    // Pasted into the example's flow, as a person copies a receiver from elsewhere:
    // one on the example's path, one on Bearer without its token.
    const pasted = [
      {
        id: 'e2e0000000000a01',
        type: 'detection-in',
        name: 'second receiver',
        path: '/detections/alerts',
        auth: 'none',
        x: 200,
        y: 700,
        wires: [[], []],
      },
      {
        id: 'e2e0000000000a02',
        type: 'detection-in',
        name: 'new receiver',
        path: '/detections/new',
        auth: 'bearer',
        x: 200,
        y: 780,
        wires: [[], []],
      },
    ];
    await browser.pasteNodes(pasted);
    await browser.place(60, -200);
    const added = await page.evaluate(
      (names) =>
        RED.nodes
          .filterNodes({ z: RED.workspaces.active(), type: 'detection-in' })
          .filter((n) => names.includes(n.name))
          .map((n) => ({ id: n.id, name: n.name, valid: n.valid, errors: n.validationErrors })),
      pasted.map((n) => n.name),
    );
    const byName = Object.fromEntries(added.map((n) => [n.name, n]));
    assert.equal(byName['new receiver'].valid, false, 'a pasted receiver on Bearer without its token is flagged');
    assert.ok(
      byName['new receiver'].errors.includes(translate('detection-in.validators.credentials-bearer')),
      `its message says what to do: ${byName['new receiver'].errors}`,
    );
    assert.equal(byName['second receiver'].valid, false, 'a pasted receiver on a path another one takes is flagged (issue 25)');
    assert.ok(
      byName['second receiver'].errors.some((e) => e.includes('/detections/alerts') && e.includes('is already taken by')),
      `its message names the other receiver: ${byName['second receiver'].errors}`,
    );

    // Deploy anyway: the editor asks to confirm a flow with an invalid node.
    await browser.deploy({ confirm: true });

    // Without figures the runtime sends the catalog key, which the editor shows in its language (below).
    await until(
      () => (comms.status(byName['new receiver'].id) || {}).text === 'detection-in.status.needs-token',
      20000,
      '"new receiver": detection-in.status.needs-token',
    );
    const needsToken = translate('detection-in.status.needs-token');
    // The example's receiver was deployed first and keeps its path.
    const inUse = translate('detection-in.status.path-in-use', { name: translate('detection-in.paletteLabel'), flow: flowLabel });
    await until(() => (comms.status(byName['second receiver'].id) || {}).text === inUse, 20000, `"second receiver": "${inUse}"`);
    // ... and the person sees it under each node in the workspace.
    const statusText = (id) =>
      page.evaluate((nodeId) => {
        const label = document.querySelector(`[id="${nodeId}"] .red-ui-flow-node-status-label`);
        return label ? label.textContent : null;
      }, id);
    await page.waitForFunction(
      ([a, b, ta, tb]) =>
        [
          [a, ta],
          [b, tb],
        ].every(([id, text]) => {
          const label = document.querySelector(`[id="${id}"] .red-ui-flow-node-status-label`);
          return label && label.textContent === text;
        }),
      [byName['new receiver'].id, byName['second receiver'].id, needsToken, inUse],
    );
    assert.equal(await statusText(byName['second receiver'].id), inUse);
    await page.locator('#red-ui-workspace-chart').screenshot({ path: path.join(ARTIFACTS, 'receivers-that-cannot-start.png') });

    // The log names the other receiver and its flow, never by id.
    const errors = nr.errorLines();
    const pathError = errors.find((l) => l.includes('/detections/alerts'));
    assert.ok(pathError, `the path in use is logged: ${errors.join('\n')}`);
    assert.ok(pathError.includes(`"${flowLabel}"`), `the log names the flow: ${pathError}`);
    assert.ok(!pathError.includes(ids.receiver), `the log does not name the node by id: ${pathError}`);
    // The example keeps working.
    const res = await postJson(`${nr.url}/detections/alerts`, eventOf('lpr', 'e2e-after-paste'));
    assert.equal(res.status, 200);
  });
});
