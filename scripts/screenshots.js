#!/usr/bin/env node
/**
 * `npm run screenshots`: the two pictures of the README, taken from the real
 * editor and the real dashboard, never drawn by hand.
 *
 *   docs/images/editor-flow.png  the "live demo" tab of `npm start` in the Node-RED
 *                                editor, events flowing: each node's status and the
 *                                debug sidebar
 *   docs/images/dashboard.png    the live-dashboard example's page (FlowFuse Dashboard 2.0): open
 *                                alarms, present now, the latest plates and faces
 *
 * Builds the package, starts Node-RED (the dev dependency) on a free port of
 * 127.0.0.1 with this clone linked into a temporary user directory and the
 * flows of `npm start` (scripts/demo-flows.js; without Redis), starts the
 * bridge's sample and enrollment endpoints with the mock core and the
 * simulator's feeds, and photographs both pages in Chromium
 * (/usr/bin/chromium, through playwright-core, as the browser tests do).
 * Needs the dev dependencies (npm install); nothing leaves 127.0.0.1.
 */
'use strict';
/* global window, document, RED */
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const IMAGES = path.join(ROOT, 'docs', 'images');
const MODULE = require(path.join(ROOT, 'package.json')).name;
const {
  DASHBOARD,
  DEMO_IN,
  DEMO_TAB,
  DEMO_TOKEN,
  DEMO_BRIDGE_JWT,
  CORE_USER,
  CORE_PASSWORD,
  buildDemoFlows,
  demoUserSettings,
  startDemoFeeds,
} = require('./demo-flows');
const { NodeRedChild, freePort } = require('../test/support/nodered-launcher');
const { CHROMIUM, CHROMIUM_ARGS } = require('../test/support/editor-browser');

/** Detections per second for all tabs together while the pictures are taken. */
const RATE = 4;
/** Cards each list of the dashboard shows at most (KEEP in the example's templates). */
const KEEP = 9;

async function main() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is needed at ${CHROMIUM} (apt-get install chromium)`);
  const dashboardDir = path.join(ROOT, 'node_modules', DASHBOARD);
  if (!fs.existsSync(path.join(dashboardDir, 'package.json'))) throw new Error(`${DASHBOARD} is needed (a dev dependency: npm install)`);
  const { chromium } = require('playwright-core');

  console.log('Building…');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build.js')], { stdio: 'inherit', cwd: ROOT });
  const sim = require(path.join(ROOT, 'dist', 'sim'));

  const cleanup = [];
  try {
    // The bridge's endpoints and the mock platform core, on a free port.
    const core = sim.createMockCore({ userName: CORE_USER, password: CORE_PASSWORD });
    const enrollments = new sim.EnrollmentStore({ token: DEMO_BRIDGE_JWT });
    const sampleServer = await sim.startSampleServer({ port: 0, host: '127.0.0.1', fallback: core.handler, enrollments });
    cleanup.push(() => sampleServer.close());

    // Node-RED with this clone and the dashboard linked in, as `npm start` has it.
    const nr = new NodeRedChild(await fsp.mkdtemp(path.join(os.tmpdir(), 'detection-bridge-screenshots-')));
    cleanup.push(() => nr.dispose());
    await fsp.mkdir(path.join(nr.userDir, 'node_modules', '@flowfuse'), { recursive: true });
    await fsp.symlink(ROOT, path.join(nr.userDir, 'node_modules', MODULE), 'dir');
    await fsp.symlink(dashboardDir, path.join(nr.userDir, 'node_modules', DASHBOARD), 'dir');
    await fsp.writeFile(
      path.join(nr.userDir, 'package.json'),
      JSON.stringify({ name: 'detection-bridge-screenshots', private: true, dependencies: { [MODULE]: '*', [DASHBOARD]: '*' } }, null, 2),
    );
    const { flows, credentials } = buildDemoFlows({
      coreUrl: sampleServer.url,
      haveRedis: false,
      haveDashboard: true,
      token: DEMO_TOKEN,
      listenerPort: await freePort(),
    });
    await fsp.writeFile(path.join(nr.userDir, 'flows.json'), JSON.stringify(flows, null, 2));
    await fsp.writeFile(path.join(nr.userDir, 'flows_cred.json'), JSON.stringify(credentials, null, 2));
    await fsp.writeFile(path.join(nr.userDir, '.config.users.json'), JSON.stringify(demoUserSettings({}), null, 4));
    await nr.writeSettings({ editorTheme: { projects: { enabled: false }, tours: false } }, 'warn');
    console.log('Starting Node-RED…');
    await nr.start();
    await nr.answers('/dashboard/live', 200, 30000);

    const feeds = startDemoFeeds(sim, { base: nr.url, rate: RATE, enrollments, haveDashboard: true, token: DEMO_TOKEN, flows });
    cleanup.push(async () => {
      feeds.stop();
      await feeds.done.catch(() => undefined);
    });

    const userDataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'detection-bridge-screenshots-chromium-'));
    cleanup.push(() => fsp.rm(userDataDir, { recursive: true, force: true, maxRetries: 3 }));
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1600, height: 540 },
      locale: 'en-US',
    });
    cleanup.push(() => context.close());
    context.setDefaultTimeout(60000);
    // Nothing leaves this machine; the palette manager's catalogue gets an empty one.
    await context.route(
      (url) => url.hostname !== '127.0.0.1',
      (route) =>
        new URL(route.request().url()).hostname === 'catalogue.nodered.org'
          ? route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ name: 'catalogue', modules: [] }) })
          : route.abort(),
    );
    await fsp.mkdir(IMAGES, { recursive: true });

    // The dashboard: wait for an open alarm, a full list of plates, some faces and a few present, every picture decoded.
    console.log('The dashboard…');
    const dash = await context.newPage();
    await dash.setViewportSize({ width: 1440, height: 900 });
    await dash.goto(`${nr.url}/dashboard/live`);
    await dash.waitForFunction(
      (keep) => {
        const cards = [...document.querySelectorAll('.wall-card')];
        const pictures = [...document.querySelectorAll('img.wall-picture, img.here-picture')];
        const faces = document.querySelectorAll('.wall-card .wall-name').length;
        const present = document.querySelectorAll('.here-card').length;
        const alarms = document.querySelectorAll('.alarm-row').length;
        return cards.length >= keep + 3 && faces >= 3 && present >= 3 && alarms >= 1 && pictures.every((img) => img.complete && img.naturalWidth > 0);
      },
      KEEP,
      { timeout: 180000, polling: 500 },
    );

    // The editor: the demo tab once its receiver has taken a few dozen events, the debug sidebar open.
    console.log('The editor…');
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${nr.url}/#flow/${DEMO_TAB}`);
    await page.waitForFunction((tab) => window.RED && RED.workspaces && RED.workspaces.active() === tab, DEMO_TAB, { timeout: 60000 });
    // The sidebar's debug tab: a tab label or its icon button (Node-RED 4), a tab bar button (Node-RED 5).
    await page
      .locator('#red-ui-tab-debug .red-ui-tab-label, #red-ui-tab-debug-link-button, button[data-tab-id="debug"]')
      .filter({ visible: true })
      .first()
      .click();
    // No palette (the flow gets the room), no tooltip from the mouse.
    await page.evaluate(() => RED.menu.setSelected('menu-item-palette', false));
    await page.mouse.move(0, 0);
    await page.waitForFunction(
      (id) => {
        const status = document.querySelector(`[id="${id}"] .red-ui-flow-node-status-label`);
        const count = status && /(\d+) in\b/.exec(status.textContent);
        return count && Number(count[1]) >= 30 && document.querySelectorAll('.red-ui-debug-msg').length >= 4;
      },
      DEMO_IN,
      { timeout: 180000, polling: 500 },
    );
    // Stop the events, so both pictures show one settled moment.
    feeds.stop();
    await feeds.done.catch(() => undefined);
    await page.screenshot({ path: path.join(IMAGES, 'editor-flow.png') });
    await dash.bringToFront();
    await dash.waitForFunction(() =>
      [...document.querySelectorAll('img.wall-picture, img.here-picture')].every((img) => img.complete && img.naturalWidth > 0),
    );
    await dash.screenshot({ path: path.join(IMAGES, 'dashboard.png'), animations: 'disabled' });

    for (const name of ['editor-flow.png', 'dashboard.png']) {
      const { size } = fs.statSync(path.join(IMAGES, name));
      console.log(`  docs/images/${name}: ${Math.round(size / 1024)} KB`);
    }
  } finally {
    for (const step of cleanup.reverse()) await Promise.resolve(step()).catch((err) => console.error(`cleaning up: ${err.message}`));
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`npm run screenshots: ${err.stack || err.message}`);
    process.exit(1);
  },
);
