'use strict';
/**
 * detection-alarm's mail link page inside the Node-RED runtime, over real
 * HTTP on 127.0.0.1, with a fake clock (detectionBridgeClock): opening a
 * link shows the alarm and changes nothing (the reminder still comes); its
 * button acknowledges or snoozes once, by the name typed, through the
 * node's own action path; a forged, altered, malformed, expired, used or
 * another node's link is refused with a page that says why; the page is
 * served on a detection-listener's own port too, and a deploy takes its
 * route away.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { getHelper, translatedModule, loadWithHttp, closeServers, request, until, completeProbe, trackFinished, deploy } = require('../support');
const { FakeClock } = require('../support/fake-clock');
const { freePort } = require('../support/nodered-launcher');
const { makeLinkToken, readableTime } = require('../../dist/lib/alarm');
const { systemTimeZone } = require('../../dist/lib/core');
const ev = require('../fixtures/events');

const helper = getHelper();
const alarmNode = translatedModule('detection-alarm');
const listenerNode = translatedModule('detection-listener');

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T22:00:00.000Z');
const OUTPUTS = ['notify', 'escalate', 'changes', 'replies'];
const BASE = 'https://alarms.example.com';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const NOT_VALID = 'This link is not valid: it was changed or not made by this Node-RED.';
const USED = 'This link was already used: a link works once.';

/** A plate event at `camera` with three crops; the alarm keeps the one an alert shows, Close (seed 2). */
function plateEvent(plate, camera = 'Gate 1') {
  const e = ev.fullLpr();
  e.payload.lprPlateInfo.plate = plate;
  e.payload.detectionInfo.detectorName = camera;
  e.payload.detectionImages = ['FullFrame', 'Close', 'Car'].map((cropSizeName, i) => ({ cropSizeName, image: ev.jpegBase64(8192, i + 1) }));
  return e;
}

function alarmConfig(id, config = {}) {
  return {
    id,
    type: 'detection-alarm',
    z: 'f1',
    name: '',
    remind: 5,
    remindUnits: 'm',
    maxReminders: 2,
    escalate: 15,
    escalateUnits: 'm',
    quiet: 60,
    quietUnits: 'm',
    snoozeFor: 30,
    snoozeUnits: 'm',
    linkBase: BASE,
    wires: OUTPUTS.map((o) => [o]),
    ...config,
  };
}

function flow(config = {}, extra = []) {
  return [
    { id: 'f1', type: 'tab', label: 'alarm link' },
    alarmConfig('al', config),
    ...OUTPUTS.map((id) => ({ id, type: 'helper', z: 'f1' })),
    ...completeProbe('al', 'f1'),
    ...extra,
  ];
}

/** The page's text without its tags, for reading what it says. */
const textOf = (html) =>
  html
    .replace(/<style>.*?<\/style>/s, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');

describe('detection-alarm mail link page', function () {
  this.timeout(30_000);
  let clock;
  let userDir;
  let ownServer;
  beforeEach(async () => {
    clock = new FakeClock(T0);
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'alarm-link-'));
    helper.settings({ detectionBridgeClock: clock, userDir });
    await helper.startServer();
  });
  afterEach(async () => {
    await helper.unload();
    await closeServers();
    if (ownServer) {
      ownServer.closeAllConnections();
      await new Promise((resolve) => ownServer.close(resolve));
      ownServer = undefined;
    }
    await helper.stopServer();
    helper.settings({});
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  function outputs() {
    const got = {};
    for (const id of OUTPUTS) {
      got[id] = [];
      helper.getNode(id).on('input', (m) => got[id].push(m));
    }
    return got;
  }

  /** Loads `flowNodes` and serves httpNode on 127.0.0.1; the links point there instead of BASE. */
  async function start(config, extra, credentials) {
    const served = await loadWithHttp([alarmNode, listenerNode], flow(config, extra), credentials);
    const node = helper.getNode('al');
    return { node, served, finished: trackFinished(node), out: outputs(), local: (link) => link.replace(BASE, served) };
  }

  /** Opens an alarm for `plate` and returns it as the notice says (with its link). */
  async function raise(node, finished, out, plate = 'AB123CD') {
    node.receive({ payload: plateEvent(plate) });
    await finished();
    return out.notify.at(-1).alarm;
  }

  const get = (url) => request(url, { method: 'GET' });
  const post = (url, body, headers = FORM) => request(url, { method: 'POST', headers, body });

  /** The alarm as the node lists it (topic list), or undefined when closed. */
  async function listed(node, finished, out, id) {
    node.receive({ topic: 'list' });
    await finished();
    return out.replies.at(-1).payload.alarms.find((a) => a.id === id);
  }

  it('opening a link shows the alarm and changes nothing; its button acknowledges by the name typed and stops the reminders and the escalation', async () => {
    const { node, finished, out, local } = await start();
    const alarm = await raise(node, finished, out);
    const url = local(alarm.link);

    const page = await get(url);
    assert.equal(page.status, 200);
    assert.match(page.headers['content-type'], /^text\/html; charset=utf-8/);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.match(page.headers['x-robots-tag'], /noindex/);
    const csp = page.headers['content-security-policy'];
    for (const part of ["default-src 'none'", 'img-src data:', "style-src 'unsafe-inline'", "form-action 'self'"]) assert.ok(csp.includes(part), csp);
    const said = textOf(page.text);
    assert.match(said, /Alarm: AB123CD/);
    assert.match(said, /Plate AB123CD/);
    assert.match(said, /Camera Gate 1/);
    assert.match(said, /Opened .* · 2026-03-01T22:00:00\.000Z/);
    assert.match(said, /Reads 1 State open, not acknowledged yet/);
    assert.ok(page.text.includes(`<img src="data:image/jpeg;base64,${ev.jpegBase64(8192, 2)}"`), 'the Close crop, inline');
    assert.match(page.text, /<form method="post">/);
    assert.match(page.text, /<input type="text" name="name"/);
    assert.match(page.text, /<button type="submit" name="action" value="ack">Acknowledge<\/button>/);
    assert.match(page.text, /<button type="submit" name="action" value="snooze">Snooze 30 min<\/button>/);

    // nothing changed: still open, and its reminder comes
    assert.deepEqual(
      out.changes.map((m) => m.topic),
      ['opened'],
    );
    assert.equal((await listed(node, finished, out, alarm.id)).state, 'open');
    await clock.advance(5 * MIN);
    await until(() => out.notify.length === 2, 5000, 'the reminder, 5 minutes after the alarm opened');
    assert.equal(out.notify[1].alarm.notice, 'reminder');

    const pressed = await post(url, 'action=ack&name=Anna+B%C3%B6hm');
    assert.equal(pressed.status, 200);
    assert.match(textOf(pressed.text), /Acknowledged by Anna Böhm at .*: the reminders and the escalation stop\./);
    const acked = await until(() => out.changes.find((m) => m.topic === 'acknowledged'), 5000, 'the acknowledgement on the changes output');
    assert.deepEqual([acked.alarm.id, acked.alarm.by, acked.alarm.via, acked.alarm.ackBy], [alarm.id, 'Anna Böhm', 'link', 'Anna Böhm']);

    // the same link again: used
    const again = await post(url, 'action=ack');
    assert.equal(again.status, 410);
    assert.ok(textOf(again.text).includes(USED), again.text);
    assert.equal((await get(url)).status, 410, 'opening a used link says so too');
    assert.equal(out.changes.filter((m) => m.topic === 'acknowledged').length, 1);

    // the next thing due is the quiet close, an hour after the read: no reminder or escalation before it
    await clock.advance(55 * MIN);
    await until(() => out.changes.some((m) => m.topic === 'closed'), 5000, 'closed when quiet');
    assert.equal(clock.now(), T0 + 60 * MIN);
    assert.equal(out.notify.length, 2, 'no reminder after the acknowledgement');
    assert.equal(out.escalate.length, 0, 'no escalation after the acknowledgement');

    // the reminder's own link, unused, now finds the alarm closed
    const closed = await get(local(out.notify[1].alarm.link));
    assert.equal(closed.status, 410);
    assert.ok(
      textOf(closed.text).includes(`Nothing to answer: the alarm was closed by itself (quiet) at ${readableTime(T0 + 60 * MIN, systemTimeZone())}.`),
    );
  });

  it('a forged, altered or malformed link is refused (403) and changes nothing; an expired one says when it expired (410)', async () => {
    const { node, finished, out, local } = await start({ linkHours: 1, remind: 0, escalate: 0, quiet: 0 });
    const alarm = await raise(node, finished, out);
    const url = local(alarm.link);
    const [pathPart, token] = [url.slice(0, url.lastIndexOf('/') + 1), url.slice(url.lastIndexOf('/') + 1)];
    const [id, nonce, expiry, signature] = token.split('.');
    const other = signature[0] === 'A' ? 'B' : 'A';
    const tokens = {
      'signature changed': [id, nonce, expiry, other + signature.slice(1)].join('.'),
      'alarm id changed': [id.slice(0, -1) + (id.endsWith('a') ? 'b' : 'a'), nonce, expiry, signature].join('.'),
      'expiry moved': [id, nonce, (parseInt(expiry, 36) + 3600).toString(36), signature].join('.'),
      'nonce changed': [id, nonce.slice(0, -1) + (nonce.endsWith('A') ? 'B' : 'A'), expiry, signature].join('.'),
    };
    for (const [what, changed] of Object.entries(tokens)) {
      for (const answer of [await get(pathPart + changed), await post(pathPart + changed, 'action=ack&name=Mallory')]) {
        assert.equal(answer.status, 403, what);
        assert.ok(textOf(answer.text).includes(NOT_VALID), `${what}: ${answer.text}`);
        assert.equal(answer.headers['cache-control'], 'no-store');
      }
    }
    for (const malformed of ['abc', `${id}.${nonce}.${expiry}`, `${token}.x`, token.slice(0, -5)]) {
      const answer = await get(pathPart + malformed);
      assert.equal(answer.status, 403, malformed);
      assert.ok(textOf(answer.text).includes(NOT_VALID), malformed);
    }
    assert.equal((await listed(node, finished, out, alarm.id)).state, 'open', 'no refused press acknowledged it');
    assert.equal(out.changes.filter((m) => m.topic === 'acknowledged').length, 0);

    await clock.advance(61 * MIN);
    const expires = parseInt(expiry, 36) * 1000;
    for (const answer of [await get(url), await post(url, 'action=ack')]) {
      assert.equal(answer.status, 410);
      assert.ok(textOf(answer.text).includes(`This link expired at ${readableTime(expires, systemTimeZone())}.`), answer.text);
    }
    assert.equal((await listed(node, finished, out, alarm.id)).state, 'open');
  });

  it('a link of another alarm node, signed with the same secret, does nothing at this node’s page; one of an alarm it never had: 404', async () => {
    const secret = 'one-secret-for-both-nodes-0123456789';
    const { node, finished, out, served } = await start({}, [alarmConfig('al2', { wires: [[], [], [], []] })], {
      al: { linkSecret: secret },
      al2: { linkSecret: secret },
    });
    const alarm = await raise(node, finished, out);
    const token = alarm.link.slice(alarm.link.lastIndexOf('/') + 1);
    assert.equal((await get(`${served}/detection-alarm/al/${token}`)).status, 200, 'its own page shows it');
    const elsewhere = await get(`${served}/detection-alarm/al2/${token}`);
    assert.equal(elsewhere.status, 403, 'refused as not made for this node, not looked up as an unknown alarm');
    assert.ok(textOf(elsewhere.text).includes(NOT_VALID));

    const never = await get(`${served}/detection-alarm/al/${makeLinkToken(secret, 'al', 'zz99zz99', T0 + 60 * MIN)}`);
    assert.equal(never.status, 404, 'signed right for an alarm this node never had');
    assert.ok(textOf(never.text).includes('Nothing to answer: no such alarm (it may have closed long ago).'));
  });

  it('opened twice, then pressed: snoozes once, by the mail link when no name is typed; pressed again: already used', async () => {
    const { node, finished, out, local } = await start();
    const alarm = await raise(node, finished, out);
    const url = local(alarm.link);
    assert.equal((await get(url)).status, 200);
    assert.equal((await request(url, { method: 'HEAD' })).status, 200);
    assert.equal((await get(url)).status, 200);
    const pressed = await post(url, 'action=snooze&name=');
    assert.equal(pressed.status, 200);
    assert.ok(
      textOf(pressed.text).includes(
        `Snoozed for 30 min by the mail link: alerts about AB123CD are held until ${readableTime(T0 + 30 * MIN, systemTimeZone())}, and the alarm is acknowledged.`,
      ),
      pressed.text,
    );
    const snoozed = await until(() => out.changes.find((m) => m.topic === 'snoozed'), 5000, 'the snooze on the changes output');
    assert.deepEqual(
      [snoozed.alarm.by, snoozed.alarm.via, snoozed.alarm.snooze.until],
      ['the mail link', 'link', new Date(T0 + 30 * MIN).toISOString()],
    );
    const second = await post(url, 'action=snooze');
    assert.equal(second.status, 410);
    assert.ok(textOf(second.text).includes(USED));
    assert.equal(out.changes.filter((m) => m.topic === 'snoozed').length, 1);

    node.receive({ payload: plateEvent('AB123CD') });
    await finished();
    assert.equal(out.changes.at(-1).alarm.change, 'held', 'the car’s next read is held by the snooze');
  });

  it('a fresh link of an alarm someone else acknowledged: the page says so, and its press refuses with who and when (409)', async () => {
    const { node, finished, out, local } = await start();
    const alarm = await raise(node, finished, out);
    node.receive({ topic: 'ack', payload: { id: alarm.id, by: 'Night guard' } });
    await finished();
    const page = await get(local(alarm.link));
    assert.equal(page.status, 200);
    assert.match(textOf(page.text), /State acknowledged by Night guard at /);
    assert.doesNotMatch(page.text, /value="ack"/, 'only Snooze is left to press');
    const pressed = await post(local(alarm.link), 'action=ack&name=Anna');
    assert.equal(pressed.status, 409);
    assert.match(textOf(pressed.text), /Nothing was changed: the alarm was already acknowledged by Night guard at /);
  });

  it('refuses what the page does not take: another method (405), another action (400), another body (415), a large one (413)', async () => {
    const { node, finished, out, local } = await start();
    const alarm = await raise(node, finished, out);
    const url = local(alarm.link);
    const put = await request(url, { method: 'PUT', headers: FORM, body: 'action=ack' });
    assert.deepEqual([put.status, put.headers.allow], [405, 'GET, HEAD, POST']);
    assert.equal((await post(url, 'action=close')).status, 400);
    assert.equal((await post(url, JSON.stringify({ action: 'ack' }), { 'content-type': 'application/json' })).status, 415);
    const large = await post(url, `action=ack&name=${'x'.repeat(5000)}`);
    assert.equal(large.status, 413);
    assert.match(textOf(large.text), /at most 4096 bytes/);
    assert.equal((await listed(node, finished, out, alarm.id)).state, 'open', 'none of them used the link or answered the alarm');
    assert.equal((await post(url, 'action=ack&name=Anna')).status, 200, 'the link still works');
  });

  it('with Node-RED’s admin app at / too (its default), a form its body parser already read is taken', async () => {
    let apps;
    const capture = (RED) => {
      apps = { admin: RED.httpAdmin, node: RED.httpNode };
    };
    await helper.load([capture, alarmNode], flow());
    const node = helper.getNode('al');
    const finished = trackFinished(node);
    const out = outputs();
    ownServer = http.createServer((req, res) =>
      apps.admin(req, res, () =>
        apps.node(req, res, () => {
          res.writeHead(404);
          res.end('no route');
        }),
      ),
    );
    await new Promise((resolve) => ownServer.listen(0, '127.0.0.1', resolve));
    const alarm = await raise(node, finished, out);
    const url = alarm.link.replace(BASE, `http://127.0.0.1:${ownServer.address().port}`);
    const pressed = await post(url, 'action=ack&name=Anna');
    assert.equal(pressed.status, 200, pressed.text);
    const acked = await until(() => out.changes.find((m) => m.topic === 'acknowledged'), 5000, 'acknowledged');
    assert.equal(acked.alarm.by, 'Anna');
  });

  it('served on a detection-listener’s own port; a deploy moves it to the new path and leaves nothing at the old one', async () => {
    const port = await freePort();
    const lst = { id: 'lst', type: 'detection-listener', host: '127.0.0.1', port, tls: 'none', allow: '' };
    const { node, finished, out, served } = await start({ listener: 'lst' }, [lst]);
    const alarm = await raise(node, finished, out);
    assert.match(alarm.link, new RegExp(`^${BASE}/detection-alarm/al/`), 'on a listener the link has no httpNodeRoot');
    const token = alarm.link.slice(alarm.link.lastIndexOf('/') + 1);
    const onPort = `http://127.0.0.1:${port}/detection-alarm/al/${token}`;
    const page = await until(() => get(onPort).catch(() => undefined), 10_000, 'the listener to serve the page');
    assert.equal(page.status, 200);
    assert.match(textOf(page.text), /Alarm: AB123CD/);
    assert.equal((await get(`${served}/detection-alarm/al/${token}`)).text, 'no route', 'not on Node-RED’s own port');

    await deploy(flow({ listener: 'lst', linkPath: '/alarms/gate' }, [lst]));
    assert.equal((await get(onPort)).status, 404, 'the old path is gone');
    const moved = await get(`http://127.0.0.1:${port}/alarms/gate/${token}`);
    assert.equal(moved.status, 200, 'the same link at the new path (the book and its secret are kept)');

    await deploy(flow({ linkPath: '/alarms/gate' }));
    const onNodeRed = await get(`${served}/alarms/gate/${token}`);
    assert.equal(onNodeRed.status, 200, 'back on Node-RED’s port');

    await deploy([{ id: 'f1', type: 'tab', label: 'alarm link' }]);
    assert.equal((await get(`${served}/alarms/gate/${token}`)).text, 'no route', 'the node removed: its route too');
  });

  it('two alarm nodes on one page path: the second says so and serves nothing, the first keeps answering', async () => {
    const { node, finished, out, served } = await start({ linkPath: '/alarms' }, [
      alarmConfig('al2', { linkPath: '/alarms', wires: [[], [], [], []] }),
    ]);
    const second = helper.getNode('al2');
    const errors = (n) =>
      n.error
        .getCalls()
        .filter((c) => c.thisValue === n)
        .map((c) => String(c.args[0]));
    assert.deepEqual(errors(second), ["the mail link's page is not served: /alarms is already served by another node (choose another Page path)"]);
    assert.deepEqual(errors(node), []);
    const alarm = await raise(node, finished, out);
    const token = alarm.link.slice(alarm.link.lastIndexOf('/') + 1);
    assert.equal((await get(`${served}/alarms/${token}`)).status, 200, 'the first node’s link works at the shared path');
  });

  it('unloaded: the page is gone', async () => {
    const { node, finished, out, local } = await start();
    const alarm = await raise(node, finished, out);
    assert.equal((await get(local(alarm.link))).status, 200);
    await helper.unload();
    const after = await get(local(alarm.link));
    assert.deepEqual([after.status, after.text], [404, 'no route']);
  });
});
