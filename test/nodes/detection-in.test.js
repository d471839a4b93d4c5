'use strict';
/**
 * detection-in inside the Node-RED runtime (node-red-node-test-helper), driven
 * through real HTTP: the helper's RED.httpNode app is served on 127.0.0.1.
 */
const assert = require('node:assert/strict');
const {
  getHelper,
  nodeModule,
  translatedModule,
  translate,
  loadWithHttp,
  closeServers,
  request,
  postJson,
  collect,
  until,
  ownStatus,
  deploy,
} = require('../support');
const ev = require('../fixtures/events');

const detectionIn = nodeModule('detection-in');
const helper = getHelper();
const MiB = 1024 * 1024;

function flow(config = {}) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    {
      id: 'in1',
      type: 'detection-in',
      z: 'f1',
      name: '',
      path: '/hooks/detections',
      auth: 'none',
      headerName: '',
      maxBodyMiB: 16,
      wires: [['ok'], ['bad']],
      ...config,
    },
    { id: 'ok', type: 'helper', z: 'f1' },
    { id: 'bad', type: 'helper', z: 'f1' },
  ];
}

const basic = (user, password) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('detection-in node', function () {
  let base;
  let url;

  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
    helper.settings({});
  });

  /** `module`: the node as loaded; translatedModule() answers with the en-US catalog's texts. */
  async function start(config, credentials, module = detectionIn) {
    base = await loadWithHttp([module], flow(config), credentials ? { in1: credentials } : {});
    url = `${base}${(config && config.path) || '/hooks/detections'}`;
    return { node: helper.getNode('in1'), ok: helper.getNode('ok'), bad: helper.getNode('bad') };
  }

  it('emits face and LPR events with the message contract', async () => {
    const { ok } = await start();
    const got = collect(ok, 2);
    const face = ev.fullFace();
    const before = Date.now();
    const r1 = await postJson(url, face, { 'x-request-id': 'r-1' });
    const r2 = await postJson(url, ev.fullLpr({ payload: { ...ev.fullLpr().payload, resentEvent: true } }));
    assert.equal(r1.status, 200);
    assert.equal(r2.status, 200);
    const [m1, m2] = await got;
    assert.deepEqual(m1.payload, face, 'the event exactly as sent, all fields');
    assert.equal(m1.topic, 'WebHookFaceRecPayload');
    assert.equal(m1.kind, 'face');
    assert.equal(m1.messageId, 'msg-face-0001');
    assert.equal(m1.resent, false);
    const receivedAt = Date.parse(m1.receivedAt);
    assert.ok(receivedAt >= before && receivedAt <= Date.now(), `received at ${m1.receivedAt}, while the request was under way`);
    assert.equal(m1.req.ip, '127.0.0.1');
    assert.equal(m1.req.headers['x-request-id'], 'r-1');
    assert.equal(m1.res, undefined, 'nothing to answer: the receiver already did');
    assert.equal(m2.topic, 'WebHookLprPayload');
    assert.equal(m2.kind, 'lpr');
    assert.equal(m2.messageId, 'msg-lpr-0001');
    assert.equal(m2.resent, true);
  });

  it('accepts events with only required fields, and with nulls in optional fields', async () => {
    const { ok } = await start();
    const got = collect(ok, 4);
    for (const event of [ev.minimalFace(), ev.minimalLpr(), ev.nullsFace(), ev.nullsLpr()]) {
      assert.equal((await postJson(url, event)).status, 200);
    }
    const msgs = await got;
    assert.deepEqual(
      msgs.map((m) => m.kind),
      ['face', 'lpr', 'face', 'lpr'],
    );
    assert.equal(msgs[0].messageId, undefined);
    assert.equal(msgs[2].messageId, undefined, 'a null messageId becomes undefined');
    assert.equal(msgs[3].payload.payload.detectionImages, null, 'nulls are kept as sent');
  });

  it('keeps unknown extra fields', async () => {
    const { ok } = await start();
    const got = collect(ok, 1);
    const event = ev.fullLpr({ bridgeVersion: '11.1' });
    event.payload.lprPlateInfo.direction = 1;
    await postJson(url, event);
    const [msg] = await got;
    assert.equal(msg.payload.bridgeVersion, '11.1');
    assert.equal(msg.payload.payload.lprPlateInfo.direction, 1);
  });

  it('accepts a 1 MB plate event with four crops', async () => {
    const { ok } = await start();
    const got = collect(ok, 1);
    const event = ev.bigLpr(1024 * 1024);
    const body = JSON.stringify(event);
    assert.ok(body.length > 1000 * 1000 && body.length <= 1024 * 1024, `body is ${body.length} bytes`);
    const res = await request(url, { headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 200);
    const [msg] = await got;
    assert.deepEqual(
      msg.payload.payload.detectionImages.map((i) => i.cropSizeName),
      ['Close', 'Medium', 'Car', 'FullFrame'],
    );
    assert.equal(msg.payload.payload.detectionImages[3].image, event.payload.detectionImages[3].image);
  });

  it('refuses a 20 MB body with 413 and emits nothing', async () => {
    const { ok, bad } = await start(undefined, undefined, translatedModule('detection-in'));
    const emitted = [];
    ok.on('input', (m) => emitted.push(m.messageId));
    bad.on('input', (m) => emitted.push(m.messageId));
    const body = JSON.stringify(ev.bigLpr(20 * MiB));
    const res = await request(url, { headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 413);
    assert.equal(res.headers['content-type'], 'application/problem+json');
    assert.match(res.json.detail, /16 MiB/);
    // A chunked 20 MB body too.
    const chunked = await request(url, {
      headers: { 'content-type': 'application/json' },
      chunked: true,
      body: [body.slice(0, 8 * MiB), body.slice(8 * MiB)],
    });
    assert.equal(chunked.status, 413);
    // Requests are handled in turn: once an event sent after them is out, the refused ones are known to have emitted nothing.
    assert.equal((await postJson(url, ev.fullFace())).status, 200);
    await until(() => emitted.length > 0, 3000, 'the event after them');
    assert.deepEqual(emitted, ['msg-face-0001']);
  });

  it('honours a smaller body limit', async () => {
    await start({ maxBodyMiB: 0.5 });
    assert.equal((await postJson(url, ev.bigLpr(MiB))).status, 413);
    assert.equal((await postJson(url, ev.fullLpr())).status, 200);
  });

  it('answers every rejection with a problem body and counts it in the status', async () => {
    const { node } = await start({ auth: 'bearer' }, { token: 'tok' }, translatedModule('detection-in'));
    const auth = { authorization: 'Bearer tok' };
    const cases = [
      [await request(url, { method: 'GET' }), 405],
      [await request(url, { method: 'PUT', headers: auth, body: '{}' }), 405],
      [await postJson(url, ev.fullFace()), 401],
      [await request(url, { headers: { ...auth, 'content-type': 'text/csv' }, body: 'a,b' }), 415],
      [await request(url, { headers: { ...auth, 'content-type': 'application/json' }, body: '' }), 400],
      [await request(url, { headers: { ...auth, 'content-type': 'application/json' }, body: '{"publishType":' }), 400],
      [await postJson(url, { publishType: 'WebHookFaceRecPayload' }, auth), 422],
    ];
    for (const [res, status] of cases) {
      assert.equal(res.status, status);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.equal(res.json.status, status);
      assert.ok(res.json.type && res.json.title && res.json.detail, JSON.stringify(res.json));
    }
    // every one a rejection (4xx), the last shown with its time, client and reason, in yellow: nothing accepted since
    const status = await until(
      () => {
        const last = ownStatus(node);
        return last && / · 0 in · 7 rejected in 10 min · rejected \(422\) at \d\d:\d\d:\d\d from 127\.0\.0\.1: /.test(last.text) ? last : null;
      },
      3000,
      () => `the status with the rejections, not ${(ownStatus(node) || {}).text}`,
    );
    assert.equal(status.fill, 'yellow');
  });

  it('strict: sends schema-invalid events to output 2 with the errors, and answers 422', async () => {
    const { ok, bad } = await start({ validation: 'strict' });
    let good = 0;
    ok.on('input', () => good++);
    const got = collect(bad, 1);
    const event = ev.fullLpr();
    event.payload.detectionImages[1].cropSizeName = 'Huge';
    const res = await postJson(url, event);
    assert.equal(res.status, 422);
    assert.deepEqual(
      res.json.errors.map((e) => e.path),
      ['payload.detectionImages[1].cropSizeName'],
    );
    const [msg] = await got;
    assert.deepEqual(msg.payload, event);
    assert.equal(msg.topic, 'WebHookLprPayload');
    assert.deepEqual(
      msg.errors.map((e) => e.path),
      ['payload.detectionImages[1].cropSizeName'],
    );
    assert.equal(good, 0);
  });

  it('accepts invalid events with 202 when set to (here by a flow saved before validation modes), on output 2 only', async () => {
    const { ok, bad } = await start({ invalidEvents: 'accept' });
    let good = 0;
    ok.on('input', () => good++);
    const got = collect(bad, 1);
    const res = await postJson(url, { publishType: 'WebHookLprPayload', sourceName: 's', payload: {} });
    assert.equal(res.status, 202);
    const [msg] = await got;
    assert.equal(msg.errors.length, 3);
    assert.equal(good, 0);
  });

  it('lenient by default, also for a flow saved with the old default "reject": warnings on the message, in the status, once per place in the log', async () => {
    const { node, ok, bad } = await start({ invalidEvents: 'reject' }, undefined, translatedModule('detection-in'));
    let refused = 0;
    bad.on('input', () => refused++);
    const got = collect(ok, 3);
    const first = ev.fullLpr();
    first.serverContext.Region = null;
    first.payload.detectionImages[0].cropSizeName = 'Wide';
    const second = ev.fullLpr();
    second.payload.messageId = 'msg-lpr-0002';
    second.serverContext.Region = null;
    second.payload.detectionImages[3].cropSizeName = 'Wide';
    second.payload.defaultPhoto = null;
    for (const event of [first, second, ev.fullFace()]) assert.equal((await postJson(url, event)).status, 200);
    const [m1, m2, m3] = await got;
    assert.deepEqual(
      m1.warnings.map((w) => w.path),
      ['serverContext.Region', 'payload.detectionImages[0].cropSizeName'],
    );
    assert.deepEqual(
      m2.warnings.map((w) => w.path),
      ['serverContext.Region', 'payload.detectionImages[3].cropSizeName'],
    );
    assert.equal('warnings' in m3, false, 'a clean event has no warnings property');
    assert.equal(refused, 0);
    // The second event repeats both places (an index aside): nothing new for the log.
    const warned = node.warn.getCalls().map((c) => c.args[0]);
    assert.equal(warned.length, 2, warned.join('\n'));
    assert.match(warned[0], /^event msg-lpr-0001 was delivered with a deviation from the spec at serverContext\.Region: /);
    assert.match(warned[1], /payload\.detectionImages\[0\]\.cropSizeName/);
    await until(() => /· 3 in · 2 with warnings$/.test((ownStatus(node) || {}).text), 3000, 'the status with warnings');
  });

  it('a stalled-body time that is not a number does not stop the node (the default applies)', async () => {
    const { node } = await start({ stallSeconds: 'soon' });
    assert.equal(node.error.called, false);
    assert.equal((await postJson(url, ev.minimalLpr())).status, 200);
  });

  describe('credentials', () => {
    const modes = [
      [
        'basic',
        { user: 'bridge', password: 's3cr3t' },
        { authorization: basic('bridge', 's3cr3t') },
        { authorization: basic('bridge', 'wrong') },
        /^Basic realm=/,
      ],
      ['bearer', { token: 'eyJ.token.sig' }, { authorization: 'Bearer eyJ.token.sig' }, { authorization: 'Bearer eyJ.token.bad' }, /^Bearer realm=/],
      ['header', { headerValue: 'key-1' }, { 'x-api-key': 'key-1' }, { 'x-api-key': 'key-2' }, undefined],
    ];
    for (const [mode, creds, good, wrong, challenge] of modes) {
      it(`${mode}: accepts the right credentials, refuses wrong and missing ones`, async () => {
        // translated, so the status and log say what a user reads
        const { node, ok } = await start({ auth: mode, headerName: mode === 'header' ? 'X-Api-Key' : '' }, creds, translatedModule('detection-in'));
        const got = collect(ok, 1);
        const accepted = await postJson(url, ev.fullFace(), good);
        assert.equal(accepted.status, 200);
        const [msg] = await got;
        for (const res of [await postJson(url, ev.fullFace(), wrong), await postJson(url, ev.fullFace())]) {
          assert.equal(res.status, 401);
          assert.equal(res.headers['content-type'], 'application/problem+json');
          if (challenge) assert.match(res.headers['www-authenticate'], challenge);
          else assert.equal(res.headers['www-authenticate'], undefined);
        }
        // No secret reaches the message, the status or the log.
        const secret = Object.values(creds)[Object.values(creds).length - 1];
        assert.ok(!JSON.stringify(msg.req).includes(secret));
        assert.equal(msg.req.headers.authorization, undefined);
        assert.equal(msg.req.headers['x-api-key'], undefined);
        // the status counts both rejections and shows the last (its redraw is throttled): they have been logged by then
        await until(
          () =>
            /· 1 in · 2 rejected in 10 min · rejected \(401\) at [\d:]+ from 127\.0\.0\.1: credentials are missing/.test(
              (ownStatus(node) || {}).text,
            ),
          3000,
          () => `the status after the rejections, not ${(ownStatus(node) || {}).text}`,
        );
        const seen = JSON.stringify([
          node.status.getCalls().map((c) => c.args),
          helper
            .log()
            .getCalls()
            .map((c) => c.args),
          node.error.getCalls().map((c) => c.args),
        ]);
        assert.ok(!seen.includes(secret), 'secret in status or log');
      });
    }

    it('none: accepts anything', async () => {
      await start({ auth: 'none' });
      assert.equal((await postJson(url, ev.minimalLpr())).status, 200);
      assert.equal((await postJson(url, ev.minimalLpr(), { authorization: 'Bearer whatever' })).status, 200);
    });

    it('reports an incomplete configuration and does not listen', async () => {
      const { node } = await start({ auth: 'bearer' }, {});
      await until(() => node.error.called, 2000, 'an error');
      assert.equal(node.error.firstCall.args[0], 'detection-in.errors.auth-config');
      assert.equal((await postJson(url, ev.minimalLpr())).status, 404);
    });
  });

  it('moves its route with its path, never doubles it on redeploy, and holds requests while the flows are stopped', async () => {
    await start();
    assert.equal((await postJson(url, ev.minimalLpr())).status, 200);
    // Redeploy the same flow twice (full deploy restarts every node).
    await deploy(flow(), 'full');
    await deploy(flow(), 'full');
    const ok = helper.getNode('ok');
    const seen = [];
    ok.on('input', (m) => seen.push(m.messageId));
    assert.equal((await postJson(url, ev.fullLpr())).status, 200);
    // a second event: once it is out, any copy of the first would have come before it
    assert.equal((await postJson(url, ev.fullFace())).status, 200);
    await until(() => seen.includes('msg-face-0001'), 3000, 'the second event');
    assert.deepEqual(seen, ['msg-lpr-0001', 'msg-face-0001'], 'one route, one message each');
    // Move to another path: the old one is gone.
    await deploy(flow({ path: '/hooks/other' }), 'full');
    assert.equal((await postJson(url, ev.minimalLpr())).status, 404);
    assert.equal((await postJson(`${base}/hooks/other`, ev.minimalLpr())).status, 200);
    // Stop the flows (as the editor's "stop flows" does): a request that comes meanwhile is held,
    // unread, and answered 200 by the receiver that starts next (a deploy refuses nothing).
    await helper._redNodes.stopFlows();
    const heldSeen = [];
    const during = postJson(`${base}/hooks/other`, ev.fullLpr());
    // Started again: the held request is served, then new ones, by one route.
    await helper._redNodes.startFlows();
    helper.getNode('ok').on('input', (m) => heldSeen.push(m.messageId));
    assert.equal((await during).status, 200);
    assert.equal((await postJson(`${base}/hooks/other`, ev.fullFace())).status, 200);
    await until(() => heldSeen.includes('msg-face-0001'), 3000, 'the event after the held one');
    assert.deepEqual(heldSeen, ['msg-lpr-0001', 'msg-face-0001'], 'the held event once, then the next');
  });

  it('refuses a second node on the same path', async () => {
    const twoNodes = [
      ...flow(),
      {
        id: 'in2',
        type: 'detection-in',
        z: 'f1',
        path: '/Hooks/Detections/',
        auth: 'none',
        maxBodyMiB: 16,
        wires: [['ok'], []],
      },
    ];
    base = await loadWithHttp([detectionIn], twoNodes, {});
    const second = helper.getNode('in2');
    await until(() => second.error.called, 2000, 'an error from the second node');
    assert.equal(second.error.firstCall.args[0], 'detection-in.errors.path-in-use');
    const ok = helper.getNode('ok');
    const seen = [];
    ok.on('input', (m) => seen.push(m.messageId));
    assert.equal((await postJson(`${base}/hooks/detections`, ev.fullLpr())).status, 200);
    // a second event: once it is out, any copy of the first would have come before it
    assert.equal((await postJson(`${base}/hooks/detections`, ev.fullFace())).status, 200);
    await until(() => seen.includes('msg-face-0001'), 3000, 'the second event');
    assert.deepEqual(seen, ['msg-lpr-0001', 'msg-face-0001'], 'the first node still owns the path, once');
  });

  describe('a receiver that cannot start says why under the node', () => {
    const detectionInText = translatedModule('detection-in');
    const lastStatus = (node) => ownStatus(node);

    // A status without figures goes as its catalog key: the editor shows it in its own language.
    it('Bearer without a token: "needs a token", and the reason in the log', async () => {
      const { node } = await start({ auth: 'bearer' }, {}, detectionInText);
      await until(() => node.error.called, 2000, 'an error');
      assert.deepEqual(lastStatus(node), { fill: 'red', shape: 'ring', text: 'detection-in.status.needs-token' });
      assert.equal(translate(lastStatus(node).text), 'needs a token');
      assert.match(node.error.firstCall.args[0], /credentials are incomplete/);
      assert.equal((await postJson(url, ev.minimalLpr())).status, 404);
    });

    it('Basic without a password: "needs a user name and password"', async () => {
      const { node } = await start({ auth: 'basic' }, { user: 'bridge' }, detectionInText);
      await until(() => node.error.called, 2000, 'an error');
      assert.equal(lastStatus(node).text, 'detection-in.status.needs-user');
      assert.equal(translate(lastStatus(node).text), 'needs a user name and password');
    });

    it('a path in use: names the other node by its name and flow, not its id', async () => {
      const twoNodes = [
        ...flow({ name: 'receive detections' }),
        { id: 'in2', type: 'detection-in', z: 'f1', name: '', path: '/hooks/detections', auth: 'none', maxBodyMiB: 16, wires: [[], []] },
      ];
      base = await loadWithHttp([detectionInText], twoNodes, {});
      const second = helper.getNode('in2');
      await until(() => second.error.called, 2000, 'an error from the second node');
      assert.deepEqual(lastStatus(second), { fill: 'red', shape: 'ring', text: 'path in use by "receive detections" (test)' });
      const logged = second.error.firstCall.args[0];
      assert.match(logged, /"receive detections" on flow "test"/);
      assert.doesNotMatch(logged, /\bin1\b/, 'not the id');
    });

    it('a path in use by an unnamed node: names it by its palette label', async () => {
      const twoNodes = [...flow(), { id: 'in2', type: 'detection-in', z: 'f1', path: '/hooks/detections', auth: 'none', wires: [[], []] }];
      base = await loadWithHttp([detectionInText], twoNodes, {});
      const second = helper.getNode('in2');
      await until(() => second.error.called, 2000, 'an error from the second node');
      assert.equal(lastStatus(second).text, 'path in use by "detection in" (test)');
    });

    it('a path in use: every editor is told at once (an error notification, kept until the node stops), in its own language', async () => {
      const path = require('node:path');
      const { NODE_RED_DIR } = require('../support');
      const { events } = require(require.resolve('@node-red/util', { paths: [NODE_RED_DIR] }));
      const published = [];
      const listen = (m) => {
        if (String(m.topic).startsWith('notification/detection-in')) published.push(m);
      };
      events.on('comms', listen);
      try {
        const twoNodes = [
          ...flow({ name: 'receive detections' }),
          { id: 'in2', type: 'detection-in', z: 'f1', name: 'gate <2>', path: '/hooks/detections', auth: 'none', wires: [[], []] },
        ];
        base = await loadWithHttp([detectionInText], twoNodes, {});
        await until(() => published.length > 0, 2000, 'a notification');
        assert.equal(published.length, 1, 'only the receiver that cannot listen');
        const [shown] = published;
        assert.equal(shown.topic, 'notification/detection-in-in2');
        assert.equal(shown.retain, true, 'an editor opened later sees it too');
        assert.deepEqual(shown.data, {
          text: `node-red-contrib-detection-bridge/detection-in:detection-in.notify.path-in-use`,
          type: 'error',
          timeout: 20000,
          path: '/hooks/detections',
          name: 'gate &lt;2&gt;',
          flow: 'test',
          other: 'receive detections',
          otherFlow: 'test',
        });
        // the key the editor translates is in the catalogs
        const en = require(path.join(__dirname, '..', '..', 'locales', 'en-US', 'detection-in.json'));
        assert.match(en['detection-in'].notify['path-in-use'], /is not listening/);
        assert.ok(helper.getNode('in2').error.called, 'and the error in the log, for Catch and the debug sidebar');
        await helper.unload();
        assert.deepEqual(published.at(-1), { topic: 'notification/detection-in-in2', data: {}, retain: false }, 'taken away when the node stops');
      } finally {
        events.removeListener('comms', listen);
      }
    });

    it('a journal that cannot be opened (an I/O error): red with the reason, 503 with Retry-After, in the log; Node-RED goes on', async () => {
      const fs = require('node:fs');
      const os = require('node:os');
      const path = require('node:path');
      const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'in-journal-'));
      try {
        // a directory where the journal file goes: opening it fails with EISDIR
        fs.mkdirSync(path.join(userDir, 'detection-bridge', 'journal-in1.log'), { recursive: true });
        await helper.stopServer();
        helper.settings({ userDir });
        await helper.startServer();
        const { node } = await start({ ackMode: 'disk' }, undefined, detectionInText);
        await until(() => node.error.called, 5000, 'an error');
        assert.match(node.error.firstCall.args[0], /^detection in cannot keep its events: .*EISDIR/);
        await until(() => lastStatus(node).fill === 'red', 5000, 'a red status');
        assert.equal(lastStatus(node).shape, 'ring');
        assert.match(lastStatus(node).text, /^cannot keep events: .*EISDIR/);
        const refused = await postJson(url, ev.minimalLpr());
        assert.equal(refused.status, 503);
        assert.equal(refused.headers['retry-after'], '1');
        assert.match(refused.json.detail, /EISDIR/);
        assert.equal(lastStatus(node).fill, 'red', 'still red after a request was refused');
      } finally {
        fs.rmSync(userDir, { recursive: true, force: true });
      }
    });

    it('a journal written by a later release (a newer format version): refused untouched, both versions named, 503 with Retry-After', async () => {
      const fs = require('node:fs');
      const os = require('node:os');
      const path = require('node:path');
      const { frame } = require('../../dist/lib/core/append-log');
      const { JOURNAL_VERSION, TYPE_FORMAT } = require('../../dist/lib/delivery/journal-records');
      const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'in-journal-'));
      try {
        const file = path.join(userDir, 'detection-bridge', 'journal-in1.log');
        fs.mkdirSync(path.dirname(file), { recursive: true });
        const stamp = { format: 'detection-bridge journal', version: JOURNAL_VERSION + 1 };
        fs.writeFileSync(file, Buffer.concat(frame(TYPE_FORMAT, [Buffer.from(JSON.stringify(stamp))])));
        const before = fs.readFileSync(file);
        await helper.stopServer();
        helper.settings({ userDir });
        await helper.startServer();
        const { node } = await start({ ackMode: 'disk' }, undefined, detectionInText);
        await until(() => node.error.called, 5000, 'an error');
        const versions = new RegExp(`format version ${JOURNAL_VERSION + 1}, newer than this package reads \\(version ${JOURNAL_VERSION}\\)`);
        assert.match(node.error.firstCall.args[0], versions);
        await until(() => lastStatus(node).fill === 'red', 5000, 'a red status');
        const refused = await postJson(url, ev.minimalLpr());
        assert.equal(refused.status, 503);
        assert.equal(refused.headers['retry-after'], '1');
        assert.match(refused.json.detail, versions);
        assert.ok(fs.readFileSync(file).equals(before), 'the file is left as the later release wrote it');
      } finally {
        fs.rmSync(userDir, { recursive: true, force: true });
      }
    });

    it('no path: "no path"', async () => {
      const { node } = await start({ path: '/' }, undefined, detectionInText);
      await until(() => node.error.called, 2000, 'an error');
      assert.equal(lastStatus(node).text, 'detection-in.status.no-path');
      assert.equal(translate(lastStatus(node).text), 'no path');
    });
  });

  it('answers the editor with addresses another machine can reach (GET /detection-in/addresses)', async () => {
    await start();
    const res = await helper.request().get('/detection-in/addresses').expect(200);
    assert.ok(Array.isArray(res.body.bases) && res.body.bases.length > 0, JSON.stringify(res.body));
    for (const b of res.body.bases) assert.match(b, /^https?:\/\/[^/]+$/);
    assert.equal(typeof res.body.loopbackOnly, 'boolean');
    if (!res.body.loopbackOnly && !res.body.localOnly)
      assert.ok(
        res.body.bases.every((b) => !/\/\/(127\.|\[::1\])/.test(b)),
        'no loopback address',
      );
  });

  it('runs httpNodeMiddleware before the receiver', async () => {
    const seen = [];
    helper.settings({
      httpNodeMiddleware: (req, res, next) => {
        seen.push(req.url);
        if (req.headers['x-block'] === 'yes') {
          res.statusCode = 403;
          res.end('blocked by middleware');
          return;
        }
        next();
      },
    });
    await start();
    assert.equal((await postJson(url, ev.minimalLpr(), { 'x-block': 'yes' })).status, 403);
    assert.equal((await postJson(url, ev.minimalLpr())).status, 200);
    assert.deepEqual(seen, ['/hooks/detections', '/hooks/detections']);
  });

  it('does not listen when httpNodeRoot is false', async () => {
    helper.settings({ httpNodeRoot: false });
    const { node } = await start();
    await until(() => node.error.called, 2000, 'an error');
    assert.equal(node.error.firstCall.args[0], 'detection-in.errors.http-disabled');
  });

  it('cannot have any prototype changed by a body', async () => {
    const { ok } = await start();
    const got = collect(ok, 1);
    const body = JSON.stringify(ev.fullFace())
      .replace(/^\{/, '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},')
      .replace('"personInfo":{', '"personInfo":{"__proto__":{"isAdmin":true},');
    const res = await request(url, { headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 200);
    const [msg] = await got;
    assert.equal({}.polluted, undefined);
    assert.equal(Object.prototype.polluted, undefined);
    assert.equal(Object.getPrototypeOf(msg.payload), Object.prototype);
    assert.equal(Object.getPrototypeOf(msg.payload.payload.personInfo), Object.prototype);
    assert.equal(msg.payload.payload.personInfo.isAdmin, undefined);
    assert.deepEqual(msg.payload.constructor, { prototype: { polluted: 'yes' } }, 'kept as plain data');
    // Node-RED clones messages for extra wires; the clone is clean too.
    const copy = helper._RED.util.cloneMessage(msg);
    assert.equal(Object.getPrototypeOf(copy.payload), Object.prototype);
    assert.equal({}.isAdmin, undefined);
  });

  it('answers a 10,000-level nested body with 400 and keeps serving', async () => {
    await start();
    const res = await request(url, { headers: { 'content-type': 'application/json' }, body: '['.repeat(10000) + ']'.repeat(10000) });
    assert.equal(res.status, 400);
    const wrapped = JSON.stringify(ev.minimalLpr()).replace(/\}$/, `,"extra":${'{"a":'.repeat(10000)}1${'}'.repeat(10000)}}`);
    assert.equal((await request(url, { headers: { 'content-type': 'application/json' }, body: wrapped })).status, 400);
    assert.equal((await postJson(url, ev.minimalLpr())).status, 200);
  });

  it('shows the path and counts in its status', async () => {
    const { node, ok } = await start();
    const got = collect(ok, 3);
    for (let i = 0; i < 3; i++) await postJson(url, ev.minimalLpr());
    await postJson(url, { nope: true });
    await got;
    const last = await until(
      () => {
        const calls = node.status.getCalls().map((c) => c.args[0]);
        const final = calls[calls.length - 1];
        return final && final.text === 'detection-in.status.counts' ? final : null;
      },
      3000,
      'status',
    );
    assert.equal(last.fill, 'green');
    assert.equal(node.status.firstCall.args[0].text, 'detection-in.status.listening');
  });
});
