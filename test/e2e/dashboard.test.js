'use strict';
// Functions run inside the page (page.evaluate) use the browser's and the editor's globals.
/* global document */
/**
 * End to end: the "live dashboard" example with FlowFuse Dashboard 2.0 in
 * Chromium (issue 14).
 *
 * The packed module and the dashboard (the dev dependency, packed from
 * node_modules: no network) are installed into a fresh Node-RED; Chromium
 * opens the editor, imports `live-dashboard` from Menu → Import → Examples
 * and deploys it with the Deploy button, then opens the dashboard page in a
 * second tab at the size of a wall screen (1920×1080). Then:
 *
 * - the simulator's command line sends plates and faces to the example's
 *   receiver: their cards appear, each with its picture decoded by the
 *   browser (the simulator's images are the sample pictures grown to a
 *   realistic size with JPEG comments). Each message the browser got over the dashboard's websocket is the card with
 *   one picture, not the event (about 1 MiB with all its crops);
 * - plate events with real pictures are POSTed over HTTP, one resent: the
 *   page shows the newest nine, newest first, the resent one once, each
 *   picture decoded by the browser (naturalWidth > 0);
 * - the example's "face sample" button in the editor: the face appears, with
 *   its picture, name, confidence and tags.
 *
 * Every wait is on what the page shows (no sleeping). No console errors or
 * warnings on either page, no request off 127.0.0.1, no error in the Node-RED
 * log. Screenshots: test-artifacts/dashboard-nr<major>/.
 *
 * Skipped, with a message, where /usr/bin/chromium or the dashboard (a dev
 * dependency: npm install) is not installed.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, nodeRedVersion, postJson, translate, until } = require('../support');
const { EditorBrowser, onlyNode } = require('../support/editor-browser');
const { packInstalled, runSimulator } = require('../support/nodered-process');

const EXAMPLE = 'live-dashboard';
const DASHBOARD = '@flowfuse/node-red-dashboard';
const RECEIVER_PATH = '/detections/dashboard';
const PAGE_PATH = '/dashboard/live';
/** Cards each list keeps (KEEP in the example's templates). */
const KEEP = 9;
const ARTIFACTS = path.join(ROOT, 'test-artifacts', `dashboard-nr${nodeRedVersion().split('.')[0]}`);

const { buildSampleEvent } = require(path.join(ROOT, 'dist', 'lib'));
const { REALISTIC_EVENT_BYTES } = require(path.join(ROOT, 'dist', 'sim'));

/** Plates as a wall would show them; all different, so order can be checked. */
const PLATES = ['KL 4411', '7ABC123', 'B MW 2020', 'M AB 123', 'HH 4711', 'S DX 812', 'XYZ988', 'F 1234', 'DD 2468', 'N 35711', '8KPL442'];

describe(`e2e: the live-dashboard example in Chromium, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(60000);

  let browser;
  let nr;
  let page;
  let comms;
  let dash;
  let ids;
  /** socket.io events the dashboard page received over its websocket: [name, msg, size in characters]. */
  const received = [];

  before(async function () {
    if (!EditorBrowser.available()) this.skip();
    this.timeout(240000);
    const dashboard = await packInstalled(DASHBOARD);
    if (!dashboard) {
      console.log(`      SKIPPED: the dashboard test needs ${DASHBOARD} (a dev dependency: npm install); it is not installed here`);
      this.skip();
    }
    browser = await EditorBrowser.start({ modules: [dashboard], viewport: { width: 1600, height: 1000 }, artifacts: ARTIFACTS, timeout: 20000 });
    ({ nr, page } = browser);
    comms = await nr.openComms();
    await browser.openEditor(['detection-image', 'ui-template', 'ui-base']);
  });

  afterEach(async function () {
    if (browser) await browser.screenshotIfFailed(this.currentTest);
    const test = this.currentTest;
    if (dash && test && test.state === 'failed') await dash.screenshot({ path: path.join(ARTIFACTS, 'FAILED-dashboard.png') }).catch(() => {});
  });

  after(async function () {
    this.timeout(60000);
    if (comms) comms.close();
    if (browser) await browser.close();
  });

  /** The plate (or name) of each card in the group titled `title`, top to bottom, and how its picture shows. */
  function cardsIn(title) {
    return dash.evaluate((groupTitle) => {
      const group = [...document.querySelectorAll('.nrdb-ui-group')].find((g) => g.querySelector('.v-card-title')?.textContent.trim() === groupTitle);
      if (!group) return null;
      return [...group.querySelectorAll('.wall-card')].map((card) => {
        const img = card.querySelector('img.wall-picture');
        return {
          title: (card.querySelector('.wall-plate, .wall-name')?.textContent || '').trim(),
          text: card.innerText,
          picture: img ? (img.complete ? img.naturalWidth : 'loading') : card.querySelector('.wall-no-picture') ? 'none' : 'missing',
          newest: card.classList.contains('wall-newest'),
        };
      });
    }, title);
  }

  /** Waits until the cards of group `title` satisfy `predicate`; fails with what they were. */
  async function cardsUntil(title, predicate, what, timeoutMs = 20000) {
    let last;
    try {
      await until(
        async () => {
          last = await cardsIn(title);
          return last !== null && predicate(last);
        },
        timeoutMs,
        what,
      );
    } catch (err) {
      err.message += `; the "${title}" cards were ${JSON.stringify(last)}`;
      throw err;
    }
    return last;
  }

  it(`imports the ${EXAMPLE} example from Menu → Import → Examples and deploys it`, async function () {
    await browser.importExample(EXAMPLE);
    const nodes = await browser.flowNodes();
    const one = (type, name) => onlyNode(nodes, type, name);
    ids = {
      receiver: one('detection-in'),
      plates: one('ui-template', 'latest plates'),
      faces: one('ui-template', 'latest faces'),
      faceSample: one('inject', 'face sample'),
    };
    assert.deepEqual(
      nodes.filter((n) => n.valid === false).map((n) => `${n.type} "${n.name}": ${n.errors}`),
      [],
      'imported nodes that are invalid',
    );
    await browser.place();
    await browser.deploy();
    const listening = translate('detection-in.status.listening', { path: RECEIVER_PATH });
    await until(() => (comms.status(ids.receiver) || {}).text === listening, 20000, `the receiver's status "${listening}"`);
    await page.locator('#red-ui-workspace-chart').screenshot({ path: path.join(ARTIFACTS, `${EXAMPLE}-deployed.png`) });
  });

  it(`opens the dashboard page at ${PAGE_PATH}: plates and faces, waiting for events`, async function () {
    assert.ok(ids, 'the example was deployed by the test before');
    dash = await browser.context.newPage();
    browser.watch(dash);
    await dash.setViewportSize({ width: 1920, height: 1080 });
    dash.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => {
        // socket.io: "42" + JSON [event name, ...arguments]
        if (typeof payload !== 'string' || !payload.startsWith('42')) return;
        const [name, msg] = JSON.parse(payload.slice(2));
        received.push([name, msg, payload.length]);
      }),
    );
    await dash.goto(`${nr.url}${PAGE_PATH}`);
    await cardsUntil('Latest plates', (cards) => cards.length === 0, 'the plates group');
    await cardsUntil('Latest faces', (cards) => cards.length === 0, 'the faces group');
    await dash.getByText('Waiting for the first plate…').waitFor();
    await dash.getByText('Waiting for the first face…').waitFor();
  });

  it("shows the simulator's plates and faces as they arrive: one small card per event, not the event", async function () {
    assert.ok(dash, 'the dashboard page was opened by the test before');
    // faces and plates alternate (--mix 0.5); events of realistic size: four crops, about 1 MiB a plate
    const sim = await runSimulator([
      'send',
      '--url',
      `${nr.url}${RECEIVER_PATH}`,
      '--count',
      '4',
      '--mix',
      '0.5',
      '--rate',
      '0',
      '--realistic-images',
      '--quiet',
    ]);
    assert.equal(sim.code, 0, `the simulator: ${sim.stdout}\n${sim.stderr}`);

    const plates = await cardsUntil('Latest plates', (cards) => cards.length === 2, 'two plate cards');
    const faces = await cardsUntil('Latest faces', (cards) => cards.length === 2, 'two face cards');
    for (const card of plates) {
      assert.equal(card.title, 'XYZ987');
      assert.match(card.text, /\d\d:\d\d:\d\d/, 'the local time');
      assert.match(card.text, /Gate 2 LPR · eConnect Site 1 LPR/, 'camera and site');
      assert.match(card.text, /VIP/, 'the tags');
    }
    for (const card of faces) assert.equal(card.title, 'John Michael Doe');
    await cardsUntil('Latest plates', (cards) => cards.every((c) => c.picture > 0), 'every plate picture decoded by the browser (naturalWidth > 0)');
    await cardsUntil('Latest faces', (cards) => cards.every((c) => c.picture > 0), 'every face picture decoded by the browser (naturalWidth > 0)');

    // What crossed the websocket: per event the card with one picture (a data: URL), not the event.
    const cards = received.filter(([name]) => name === `msg-input:${ids.plates}` || name === `msg-input:${ids.faces}`);
    assert.equal(cards.length, 4, `four card messages over the websocket: ${received.map(([n]) => n)}`);
    for (const [name, msg, size] of cards) {
      const text = JSON.stringify(msg);
      assert.equal(text.match(/data:image\//g).length, 1, `${name}: one picture`);
      assert.ok(
        typeof msg.payload.picture === 'string' && msg.payload.picture.startsWith('data:image/jpeg;base64,'),
        `${name}: the picture in the card`,
      );
      assert.ok(!/detectionImages|detectionImage"|defaultPhoto/.test(text), `${name}: no event in the message`);
      assert.ok(size < REALISTIC_EVENT_BYTES.lpr / 2, `${name}: ${size} characters, less than half a plate event`);
    }
  });

  it(`keeps the newest ${KEEP} plates, newest first, a resent event once, each picture decoded by the browser`, async function () {
    assert.ok(dash, 'the dashboard page was opened by the test before');
    const sent = [];
    const post = async (plate, change = () => {}) => {
      const event = buildSampleEvent('lpr', { messageId: `e2e-dashboard-${plate}`, images: 'pictures' });
      event.payload.lprPlateInfo.plate = plate;
      change(event);
      const res = await postJson(`${nr.url}${RECEIVER_PATH}`, event);
      assert.equal(res.status, 200, `${plate}: ${res.text}`);
      sent.push(event);
    };
    // one receiver emits in order, and the page gets them in order
    for (const plate of PLATES.slice(0, -1)) await post(plate);
    // the bridge resends the last one (same messageId), then a new plate comes
    const last = PLATES[PLATES.length - 2];
    await post(last, (e) => (e.payload.resentEvent = true));
    await post(PLATES[PLATES.length - 1]);

    const expected = [...PLATES].reverse().slice(0, KEEP);
    const cards = await cardsUntil('Latest plates', (c) => c.length > 0 && c[0].title === expected[0], `the newest plate ${expected[0]} on top`);
    assert.deepEqual(
      cards.map((c) => c.title),
      expected,
      `the newest ${KEEP}, newest first, ${last} once`,
    );
    assert.deepEqual(
      cards.map((c) => c.newest),
      expected.map((_, i) => i === 0),
      'the newest card is the large one',
    );
    const decoded = await cardsUntil('Latest plates', (c) => c.every((card) => typeof card.picture === 'number'), 'every picture loaded');
    assert.deepEqual(
      decoded.filter((c) => !(c.picture > 0)).map((c) => c.title),
      [],
      'every picture decoded by the browser (naturalWidth > 0)',
    );
    await dash.screenshot({ path: path.join(ARTIFACTS, `${EXAMPLE}-plates.png`), animations: 'disabled' });
  });

  it("shows a face with its picture, name, confidence and tags from the example's face sample button", async function () {
    assert.ok(dash, 'the dashboard page was opened by the test before');
    const before = (await cardsIn('Latest faces')).length;
    // the inject node's button on the workspace, as a person clicks it
    await page.bringToFront();
    await page.locator(`[id="${ids.faceSample}"] .red-ui-flow-node-button`).click();
    await dash.bringToFront();
    const faces = await cardsUntil(
      'Latest faces',
      (c) => c.length === before + 1 && typeof c[0].picture === 'number',
      'a new face card on top, its picture loaded',
    );
    const [face] = faces;
    assert.equal(face.title, 'John Michael Doe');
    assert.ok(face.picture > 0, `the face picture decoded by the browser: naturalWidth ${face.picture}`);
    assert.match(face.text, /Entrance Cam 3 · eConnect Site 1 FR · 93 %/, 'camera, site and confidence');
    assert.match(face.text, /VIP/);
    assert.match(face.text, /\d{4}-\d\d-\d\d/, 'the date of the local time');
    await dash.screenshot({ path: path.join(ARTIFACTS, `${EXAMPLE}.png`), animations: 'disabled' });
  });

  it('saw no errors in the browser console (editor and dashboard) and none in the Node-RED log', function () {
    assert.deepEqual(browser.problems, [], 'browser console errors and warnings, uncaught errors and failed requests');
    assert.deepEqual(browser.external, [], 'requests off 127.0.0.1');
    assert.deepEqual(nr.errorLines(), []);
  });
});
