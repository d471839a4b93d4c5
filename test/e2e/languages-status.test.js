'use strict';
/**
 * End to end: which language a status arrives in, in a real Node-RED started
 * with `lang: 'de'` in settings.js (the packed module, comms as the editor
 * gets them). A status with figures is made by the runtime, from the German
 * catalog; a status without figures arrives as its catalog key, for each
 * editor to show in its own language (docs/README.md#languages).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, nodeRedVersion, postJson, request, until } = require('../support');
const { MODULE, NodeRedProcess } = require('../support/nodered-process');
const ev = require('../fixtures/events');

const TAB = 'e2elangtab000001';
const PATH = '/e2e/languages';

/** `key` of locales/<lang>/<file>.json (a node type's, or shared), its placeholders filled as Node-RED's i18next does (`__name__`). */
function rendered(lang, file, key, vars) {
  const catalog = JSON.parse(fs.readFileSync(path.join(ROOT, 'locales', lang, `${file}.json`), 'utf8'));
  const template = key.split('.').reduce((o, part) => o?.[part], catalog);
  assert.equal(typeof template, 'string', `locales/${lang}/${file}.json has ${key}`);
  return template.replace(/__(\w+)__/g, (_, name) => {
    assert.ok(name in vars, `a value for __${name}__`);
    return String(vars[name]);
  });
}

const flow = [
  { id: TAB, type: 'tab', label: 'languages' },
  {
    id: 'e2elangin',
    type: 'detection-in',
    z: TAB,
    name: '',
    path: PATH,
    auth: 'none',
    headerName: '',
    maxBodyMiB: 16,
    validation: 'lenient',
    wires: [['e2elangsw'], []],
  },
  {
    id: 'e2elangsw',
    type: 'detection-switch',
    z: TAB,
    name: '',
    property: 'payload',
    propertyType: 'msg',
    otherOutput: true,
    outputs: 3,
    wires: [[], [], []],
  },
  // Bearer without its token: cannot start, and says why without figures
  {
    id: 'e2elangtoken',
    type: 'detection-in',
    z: TAB,
    name: '',
    path: '/e2e/no-token',
    auth: 'bearer',
    headerName: '',
    maxBodyMiB: 16,
    wires: [[], []],
  },
];

describe(`e2e: statuses in a Node-RED started with lang 'de' ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(30000);
  let nr;
  let comms;

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create({ settings: { lang: 'de' } });
    await nr.start();
    comms = await nr.openComms();
    await nr.deploy(flow);
    // the route is up once the receiver says it listens (a GET to see would count as rejected)
    const listening = rendered('de', 'detection-in', 'detection-in.status.listening', { path: PATH });
    await until(() => (comms.status('e2elangin') || {}).text === listening, 20000, `the receiver's status "${listening}"`);
  });

  afterEach(function () {
    if (!(this.currentTest && this.currentTest.state === 'failed' && nr)) return;
    const statuses = (comms ? comms.events : []).filter((e) => e.topic.startsWith('status/')).map((e) => `${e.topic}: ${JSON.stringify(e.data)}`);
    console.log(`\n---- Node-RED output ----\n${nr.logText()}\n---- statuses ----\n${statuses.join('\n')}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (comms) comms.close();
    if (nr) await nr.cleanup();
  });

  it("statuses with figures are made in the runtime's language: the receiver's and the switch's counts in German", async () => {
    const event = ev.fullLpr();
    event.payload.messageId = 'e2e-languages-plate';
    assert.equal((await postJson(`${nr.url}${PATH}`, event)).status, 200);

    const received = rendered('de', 'detection-in', 'detection-in.status.counts', { path: PATH, received: 1, rejected: 0 });
    // not the English text: the test tells the two apart
    assert.notEqual(received, rendered('en-US', 'detection-in', 'detection-in.status.counts', { path: PATH, received: 1, rejected: 0 }));
    await until(() => (comms.status('e2elangin') || {}).text === received, 10000, `the receiver's status "${received}"`);

    const routed = rendered('de', 'detection-switch', 'detection-switch.status.counts', { face: 0, plate: 1, other: 0 });
    assert.notEqual(routed, rendered('en-US', 'detection-switch', 'detection-switch.status.counts', { face: 0, plate: 1, other: 0 }));
    await until(() => (comms.status('e2elangsw') || {}).text === routed, 10000, `the switch's status "${routed}"`);
    assert.deepEqual(
      nr.errorLines().filter((l) => !l.includes('e2elangtoken')),
      [],
      'no error but the receiver without its token',
    );
  });

  it('a status without figures arrives as its catalog key, which the German catalog (and every other) has', async () => {
    await until(() => (comms.status('e2elangtoken') || {}).text !== undefined, 10000, 'the status of the receiver without its token');
    assert.deepEqual(comms.status('e2elangtoken'), { fill: 'red', shape: 'ring', text: 'detection-in.status.needs-token' });
    // every editor finds it in its catalog: the key is in each language's
    for (const lang of ['de', 'en-US', 'ja']) rendered(lang, 'detection-in', 'detection-in.status.needs-token', {});
    // while the log says why in the runtime's language
    const why = rendered('de', 'detection-in', 'detection-in.errors.auth-config', { problem: rendered('de', 'shared', 'auth.bearer-token', {}) });
    assert.ok(
      nr.errorLines().some((l) => l.includes('e2elangtoken') && l.includes(why)),
      `the log says "${why}":\n${nr.errorLines().join('\n')}`,
    );
  });

  it("the editor finds such a key in the node set's catalog, in each language: the node's own and setup's (shared.json's)", async () => {
    // The editor loads every node set's catalog from GET /nodes/messages and looks a status key up in
    // the node's set (`<module>/<type>:<key>`, RED.nodes' def._).
    const types = Object.keys(require(path.join(ROOT, 'package.json'))['node-red'].nodes);
    for (const lang of ['de', 'en-US', 'ja']) {
      const res = await request(`${nr.url}/nodes/messages?lng=${lang}`, { method: 'GET', headers: { accept: 'application/json' } });
      assert.equal(res.status, 200);
      const find = (type, key) => key.split('.').reduce((o, part) => o?.[part], res.json[`${MODULE}/${type}`]);
      assert.equal(
        find('detection-in', 'detection-in.status.needs-token'),
        rendered(lang, 'detection-in', 'detection-in.status.needs-token', {}),
        lang,
      );
      for (const type of types) assert.equal(find(type, 'setup.status'), rendered(lang, 'shared', 'setup.status', {}), `${lang}: ${type}`);
    }
  });
});
