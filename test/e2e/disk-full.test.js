'use strict';
/**
 * A full disk heals itself (issue 27): detection-in in disk mode with its
 * journal on a 6 MiB tmpfs, a flow that holds every event (a gate that opens
 * on an HTTP call, as a mail server that comes back), events sent until the
 * disk is full. Refused with 503 + Retry-After and the status says so, in red;
 * once the held events are finished, new events are taken again within 10 s,
 * without a restart, and none is lost. Mounting a tmpfs needs root (CI runs as
 * root); anywhere else this test fails saying so.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { nodeRedVersion, postJson, request, until } = require('../support');
const { NodeRedProcess, readProbeLines, fileNode } = require('../support/nodered-process');
const { mountTmpfs } = require('../support/tmpfs');
const ev = require('../fixtures/events');

const TAB = 'e2ediskfulltab01';
const BODY_BYTES = 256 * 1024;

/** in → gate (holds events until POST /full/gate) → done → finished file. */
function diskFullFlow(finished) {
  return [
    { id: TAB, type: 'tab', label: 'disk full' },
    {
      id: 'full-in',
      type: 'detection-in',
      z: TAB,
      name: '',
      path: '/full/in',
      auth: 'none',
      headerName: '',
      maxBodyMiB: 16,
      validation: 'lenient',
      ackMode: 'disk',
      wires: [['full-gate'], []],
    },
    { id: 'full-open', type: 'http in', z: TAB, name: '', url: '/full/gate', method: 'post', upload: false, swaggerDoc: '', wires: [['full-gate']] },
    {
      id: 'full-gate',
      type: 'function',
      z: TAB,
      name: '',
      outputs: 2,
      timeout: 0,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      // Held in memory until the gate opens; from then on, events go straight through.
      func: [
        "const held = context.get('held') || [];",
        'if (msg.res) {',
        "  context.set('open', true);",
        "  context.set('held', []);",
        '  for (const m of held) node.send([m, null]);',
        '  msg.payload = { released: held.length };',
        '  return [null, msg];',
        '}',
        "if (context.get('open')) return [msg, null];",
        'held.push(msg);',
        "context.set('held', held);",
        'return null;',
      ].join('\n'),
      wires: [['full-done'], ['full-answer']],
    },
    { id: 'full-answer', type: 'http response', z: TAB, name: '', statusCode: '', headers: {}, wires: [] },
    { id: 'full-done', type: 'detection-done', z: TAB, name: '', passOn: true, outputs: 1, wires: [['full-line']] },
    {
      id: 'full-line',
      type: 'function',
      z: TAB,
      name: '',
      outputs: 1,
      timeout: 0,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [],
      func: 'return { payload: JSON.stringify({ messageId: msg.messageId, redelivered: msg.redelivered === true }) };',
      wires: [['full-finished']],
    },
    fileNode('full-finished', TAB, finished),
    // Health for a load balancer: not ready while the receiver refuses for a full disk.
    {
      id: 'full-monitor',
      type: 'detection-monitor',
      z: TAB,
      name: '',
      metrics: false,
      metricsPath: '/detection-bridge/metrics',
      metricsOpen: false,
      health: true,
      healthPath: '/detection-bridge/health',
      healthAuth: false,
      wires: [],
    },
  ];
}

describe(`e2e: a full disk heals itself, disk journal on a 6 MiB tmpfs, Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(120000);
  let nr;
  let disk;
  let comms;
  let finished;

  before(async function () {
    this.timeout(180000);
    disk = mountTmpfs('6m');
    nr = await NodeRedProcess.create();
    // The receiver's journal is <userDir>/detection-bridge/journal-<id>.log: that directory on the tmpfs.
    fs.symlinkSync(disk.dir, path.join(nr.userDir, 'detection-bridge'));
    finished = path.join(nr.userDir, 'finished.jsonl');
    await nr.start();
    await nr.deploy(diskFullFlow(finished), { '/full/in': 405 });
    comms = await nr.openComms();
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    comms?.close();
    if (nr) await nr.cleanup();
    disk?.unmount();
  });

  it('refuses with 503 + Retry-After while held events fill the disk, says so in red, and takes events again within 10 s once they are finished, losing none', async () => {
    const send = (id) => postJson(`${nr.url}/full/in`, ev.bigLpr(BODY_BYTES, id));
    const status = () => comms.status('full-in');

    // Held events until the disk is full (6 MiB of 256 KiB bodies: about 23).
    const accepted = [];
    let refusal;
    for (let i = 0; i < 60 && !refusal; i++) {
      const res = await send(`held-${i}`);
      if (res.status === 200) accepted.push(`held-${i}`);
      else refusal = { id: `held-${i}`, res };
    }
    assert.ok(refusal, `still accepting after ${accepted.length} events of ${BODY_BYTES} bytes on a 6 MiB disk`);
    assert.equal(refusal.res.status, 503, refusal.res.text);
    assert.equal(refusal.res.headers['retry-after'], '1');
    assert.ok(accepted.length >= 10, `${accepted.length} events held before the disk was full`);
    const refused = [refusal.id];
    for (let i = 0; i < 2; i++) {
      const res = await send(`refused-${i}`);
      assert.equal(res.status, 503, 'still full: refused again');
      refused.push(`refused-${i}`);
    }
    await until(() => status()?.fill === 'red' && /disk full · refusing/.test(status().text), 10000, 'a red "disk full · refusing" status');
    const notReady = await request(`${nr.url}/detection-bridge/health/ready/full/in`, { method: 'GET' });
    assert.equal(notReady.status, 503, notReady.text);
    assert.deepEqual(
      notReady.json.receivers[0].problems.map((p) => p.code),
      ['disk-full'],
      'not ready: its disk is full',
    );
    const warnings = () => nr.logText(100000).match(/The disk of the journal .* is full/g) || [];
    assert.equal(warnings().length, 1, 'warned once, not once per refused request');

    // The flow finishes every held event (the mail server is back): its room comes back.
    const opened = await request(`${nr.url}/full/gate`, { method: 'POST' });
    assert.equal(opened.status, 200, opened.text);
    assert.equal(JSON.parse(opened.text).released, accepted.length);
    const reopened = performance.now();
    // The bridge resends what was refused, after Retry-After: the first 200 within 10 s is the promise.
    await until(
      async () => (await send(refused[0])).status === 200,
      10000,
      'a 200 within 10 s of the held events being finished (the bridge resending the first refused event)',
    );
    assert.ok(performance.now() - reopened < 10000);
    for (const id of refused.slice(1)) assert.equal((await send(id)).status, 200, `${id} taken on its resend`);
    for (let i = 0; i < 3; i++) assert.equal((await send(`after-${i}`)).status, 200);

    const all = [...accepted, ...refused, 'after-0', 'after-1', 'after-2'];
    const done = () => readProbeLines(finished).map((l) => l.messageId);
    await until(() => all.every((id) => done().includes(id)), 20000, 'every event accepted, or refused and resent, at the end of the flow');
    assert.deepEqual([...done()].sort(), [...all].sort(), 'each exactly once, none lost');
    await until(() => status()?.fill === 'green', 10000, 'the status back to normal once events are taken again');
    assert.doesNotMatch(status().text, /disk full/);
    assert.equal((await request(`${nr.url}/detection-bridge/health/ready/full/in`, { method: 'GET' })).status, 200, 'ready again');
    assert.match(nr.logText(100000), /Room on the disk again/);
    assert.deepEqual(nr.errorLines(), []);
  });
});
