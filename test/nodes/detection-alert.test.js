'use strict';
/**
 * detection-alert inside the Node-RED runtime (node-red-node-test-helper):
 * e-mail and Telegram messages as their senders read them, a web hook
 * through Node-RED's own http request node to a server on 127.0.0.1, with
 * and without a picture, and the errors Catch nodes see.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { NODE_RED_DIR, getHelper, translatedModule, until } = require('../support');
const ev = require('../fixtures/events');

const TYPE = 'detection-alert';
const helper = getHelper();
const httpRequest = require(path.join(NODE_RED_DIR, '..', '@node-red', 'nodes', 'core', 'network', '21-httprequest.js'));

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 1, 2, 3, 4]);

function flow(config = {}, extra = []) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    { id: 'alert', type: TYPE, z: 'f1', name: '', property: 'payload', propertyType: 'msg', sender: 'email', wires: [['out']], ...config },
    { id: 'out', type: 'helper', z: 'f1' },
    { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper', z: 'f1' },
    ...extra,
  ];
}

async function start(config, { extra = [], credentials = {}, modules = [] } = {}) {
  await helper.load([translatedModule(TYPE), ...modules], flow(config, extra), { alert: credentials });
  const node = helper.getNode('alert');
  const got = { out: [], caught: [] };
  for (const id of Object.keys(got)) helper.getNode(id).on('input', (msg) => got[id].push(msg));
  return { node, got };
}

/** A plate event whose Close crop is JPEG. */
function plate() {
  const e = ev.fullLpr();
  e.payload.lprPlateInfo.tags = [{ tagName: 'acme-VIP' }];
  e.payload.detectionImages = [{ cropSizeName: 'Close', image: JPEG.toString('base64') }];
  return e;
}

const lastStatus = (node) => {
  const calls = node.status.getCalls();
  return calls.length ? calls[calls.length - 1].args[0] : undefined;
};
const statusIs = (node, text) =>
  until(
    () => {
      const s = lastStatus(node);
      return s && s.text === text ? s : null;
    },
    3000,
    `status "${text}"`,
  );

describe('detection-alert node', function () {
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
  });

  it('e-mail: subject, plain body from the defaults, the picture attached; the rest of the message stays', async () => {
    const { node, got } = await start({ tagPrefix: 'acme' });
    const event = plate();
    const delivery = { id: 'd1' };
    const msg = {
      payload: event,
      _delivery: delivery,
      detection: { camera: 'x' },
      match: { text: 'plate XYZ987 on the watch list' },
      priority: 'URGENT',
    };
    node.receive(msg);
    await until(() => got.out.length === 1, 3000, 'an alert');
    const [out] = got.out;
    assert.equal(out.topic, 'Plate XYZ987 at Car Park Gate 2');
    assert.equal(
      out.payload,
      [
        'Plate: XYZ987',
        'Vehicle: Toyota Camry Blue',
        'Tags: VIP',
        'Camera: Car Park Gate 2',
        'Site: eConnect Site 1 LPR',
        'Time: 2026-11-21 13:04:05 America/New_York',
        'Why it matched: plate XYZ987 on the watch list',
      ].join('\n'),
    );
    assert.equal(out.attachments.length, 1);
    assert.deepEqual(out.attachments[0], {
      filename: 'lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_Close.jpg',
      content: JPEG,
      contentType: 'image/jpeg',
    });
    assert.equal(out.priority, 'high', 'urgent: nodemailer priority high');
    assert.equal(out.to, undefined, 'no To typed: the e-mail node decides');
    assert.equal(out._delivery, delivery, 'msg._delivery stays, for detection done');
    assert.deepEqual(out.detection, { camera: 'x' });
    assert.deepEqual(out.alert, {
      sender: 'email',
      subject: 'Plate XYZ987 at Car Park Gate 2',
      text: out.payload,
      picture: { filename: 'lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_Close.jpg', contentType: 'image/jpeg', bytes: JPEG.length },
      urgent: true,
    });
    const status = await statusIs(node, '1 alerts · 0 without picture');
    assert.equal(status.fill, 'green');
    assert.equal(got.caught.length, 0);
  });

  it('without a picture the alert still goes out, saying so; an unreadable one also warns with its path', async () => {
    const { node, got } = await start({ to: 'ops@example.com', subject: '{kind}: {plate}', body: 'Plate {plate}\nPerson {person}' });
    const none = plate();
    none.payload.detectionImages = [];
    node.receive({ payload: none });
    await until(() => got.out.length === 1, 3000, 'the first alert');
    assert.equal(got.out[0].topic, 'plate: XYZ987');
    assert.equal(got.out[0].payload, 'Plate XYZ987\nNo picture came with this event.');
    assert.equal(got.out[0].to, 'ops@example.com');
    assert.equal(got.out[0].attachments, undefined);
    assert.equal(got.out[0].alert.picture, null);
    const yellow = await statusIs(node, '1 alerts · 1 without picture');
    assert.equal(yellow.fill, 'yellow');

    const bad = plate();
    bad.payload.detectionImages[0].image = 'not*base64';
    node.receive({ payload: bad });
    await until(() => got.out.length === 2, 3000, 'the second alert');
    assert.equal(got.out[1].payload, 'Plate XYZ987\nThe picture of this event could not be read.');
    assert.ok(
      node.warn.getCalls().some((c) => /payload\.detectionImages\[0\]\.image/.test(String(c.args[0]))),
      'a warning names the image',
    );

    node.receive({ payload: plate() });
    await until(() => got.out.length === 3, 3000, 'the third alert');
    const green = await statusIs(node, '3 alerts · 2 without picture');
    assert.equal(green.fill, 'green', 'the last one had its picture');
    assert.equal(got.caught.length, 0, 'never an error for a picture');
  });

  it('Telegram: a photo with its caption to the chat of the node, or of msg.chatId', async () => {
    const { node, got } = await start({ sender: 'telegram', chatId: '-100123' });
    node.receive({ payload: plate() });
    const face = ev.fullFace();
    face.payload.detectionImage = { image: null };
    face.payload.defaultPhoto = { image: null };
    node.receive({ payload: face, chatId: '@night_shift' });
    await until(() => got.out.length === 2, 3000, 'two alerts');
    const [photo, text] = got.out.map((m) => m.payload);
    assert.equal(photo.chatId, -100123);
    assert.equal(photo.type, 'photo');
    assert.deepEqual(photo.content, JPEG);
    assert.deepEqual(photo.fileOptions, { filename: 'lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_Close.jpg', contentType: 'image/jpeg' });
    assert.match(photo.caption, /^Plate XYZ987 at Car Park Gate 2\n\nPlate: XYZ987\n/);
    assert.deepEqual(photo.options, {});
    assert.equal(text.chatId, '@night_shift');
    assert.equal(text.type, 'message');
    assert.match(text.content, /^John Michael Doe at Entrance Cam 3\n\nPerson: John Michael Doe\n/);
    assert.match(text.content, /Confidence: 93%\nNo picture came with this event\.$/);
  });

  it('ntfy through the http request node: the picture as the body, the text in headers; without one, the text', async () => {
    const requests = [];
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        requests.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
        res.end('{"id":"x"}');
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${server.address().port}/alerts-topic`;
      const request = { id: 'req', type: 'http request', z: 'f1', method: 'POST', ret: 'txt', url, wires: [['sent']] };
      const { node, got } = await start(
        { sender: 'ntfy', subject: 'Kennzeichen {plate} – Süd', wires: [['req']] },
        { extra: [request, { id: 'sent', type: 'helper', z: 'f1' }], modules: [httpRequest] },
      );
      const sent = [];
      helper.getNode('sent').on('input', (m) => sent.push(m));
      node.receive({ payload: plate(), priority: 'high' });
      const noPicture = plate();
      noPicture.payload.detectionImages = [];
      node.receive({ payload: noPicture });
      await until(() => sent.length === 2, 5000, 'two requests answered');
      assert.equal(got.caught.length, 0);
      const withPicture = requests.find((r) => r.headers['content-type'] === 'image/jpeg');
      const without = requests.find((r) => r !== withPicture);
      assert.ok(withPicture && without, 'one request of each');
      assert.equal(withPicture.method, 'POST');
      assert.equal(withPicture.url, '/alerts-topic');
      assert.deepEqual(withPicture.body, JPEG);
      assert.equal(withPicture.headers.filename, 'lpr_XYZ987_Car-Park-Gate-2_20261121T180405Z_Close.jpg');
      assert.equal(withPicture.headers['x-priority'], 'high');
      const decode = (v) => v.replace(/=\?UTF-8\?B\?([^?]*)\?=\s?/g, (_, b) => Buffer.from(b, 'base64').toString('utf8'));
      assert.equal(decode(withPicture.headers.title), 'Kennzeichen XYZ987 – Süd');
      assert.match(decode(withPicture.headers.message), /^Plate: XYZ987\nVehicle: Toyota Camry Blue\n/);
      assert.equal(without.headers['content-type'], 'text/plain; charset=utf-8');
      assert.match(without.body.toString('utf8'), /\nNo picture came with this event\.$/);
      assert.equal(without.headers['x-priority'], undefined);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('Pushover through the http request node: a form-encoded body with the picture as base64', async () => {
    const requests = [];
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.end('{"status":1}');
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${server.address().port}/1/messages.json`;
      const request = { id: 'req', type: 'http request', z: 'f1', method: 'POST', ret: 'txt', url, wires: [['sent']] };
      const { node } = await start(
        { sender: 'pushover', wires: [['req']] },
        {
          extra: [request, { id: 'sent', type: 'helper', z: 'f1' }],
          modules: [httpRequest],
          credentials: { pushoverToken: 'tok', pushoverUser: 'usr' },
        },
      );
      const sent = [];
      helper.getNode('sent').on('input', (m) => sent.push(m));
      node.receive({ payload: plate(), priority: 'urgent' });
      await until(() => sent.length === 1, 5000, 'the request answered');
      const [got] = requests;
      assert.equal(got.headers['content-type'], 'application/x-www-form-urlencoded');
      const form = new URLSearchParams(got.body);
      assert.equal(form.get('token'), 'tok');
      assert.equal(form.get('user'), 'usr');
      assert.equal(form.get('title'), 'Plate XYZ987 at Car Park Gate 2');
      assert.match(form.get('message'), /^Plate: XYZ987\n/);
      assert.equal(form.get('priority'), '1');
      assert.deepEqual(Buffer.from(form.get('attachment_base64'), 'base64'), JPEG);
      assert.equal(form.get('attachment_type'), 'image/jpeg');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('Pushover: the keys are credentials and go in the body only; missing keys stop the node', async () => {
    const { node, got } = await start({ sender: 'pushover' }, { credentials: { pushoverToken: 'app-token', pushoverUser: 'user-key' } });
    node.receive({ payload: plate() });
    await until(() => got.out.length === 1, 3000, 'an alert');
    const [out] = got.out;
    assert.equal(out.payload.token, 'app-token');
    assert.equal(out.payload.user, 'user-key');
    assert.equal(out.payload.attachment_base64, JPEG.toString('base64'));
    assert.equal(JSON.stringify(out.alert).includes('app-token'), false, 'no key in msg.alert');
    assert.equal(JSON.stringify(out.headers).includes('app-token'), false, 'no key in the headers');
    await helper.unload();

    const again = await start({ sender: 'pushover' });
    again.node.receive({ payload: plate() });
    await until(() => again.got.caught.length === 1, 3000, 'the Catch node');
    assert.equal(again.got.caught[0].error.code, 'CONFIG');
    assert.equal(lastStatus(again.node).text, 'detection-alert.status.pushover-keys', 'a status without figures is its catalog key');
  });

  it('Teams: a picture too large for a card is left out, said in the card, and counted', async () => {
    const { node, got } = await start({ sender: 'teams' });
    const big = plate();
    big.payload.detectionImages[0].image = Buffer.concat([JPEG, Buffer.alloc(40 * 1024, 7)]).toString('base64');
    node.receive({ payload: big });
    await until(() => got.out.length === 1, 3000, 'an alert');
    const card = got.out[0].payload.attachments[0].content;
    assert.equal(
      card.body.some((b) => b.type === 'Image'),
      false,
    );
    assert.equal(card.body[card.body.length - 1].text, 'The picture is not attached: it is too large for Microsoft Teams.');
    assert.equal(got.out[0].alert.picture, null);
    assert.deepEqual(got.out[0].headers, { 'content-type': 'application/json' });
    assert.equal((await statusIs(node, '1 alerts · 1 without picture')).fill, 'yellow');
  });

  it('not a detection event: Catch gets NOT_A_DETECTION, nothing is sent', async () => {
    const { node, got } = await start();
    node.receive({ payload: { hello: 'world' } });
    node.receive({ payload: 'text' });
    await until(() => got.caught.length === 2, 3000, 'two errors');
    for (const m of got.caught) assert.equal(m.error.code, 'NOT_A_DETECTION');
    assert.match(got.caught[0].error.message, /msg\.payload holds no detection event/);
    assert.equal(got.out.length, 0);
  });

  it('an unknown field is a configuration error: red status, every message answered with CONFIG', async () => {
    const { node, got } = await start({ subject: 'Plate {plates}', body: 'At {camera} {where}' });
    await until(() => node.error.called, 2000, 'the problem logged');
    assert.match(node.error.firstCall.args[0], /\{plates\}, \{where\}/);
    const status = lastStatus(node);
    assert.deepEqual(status, { fill: 'red', shape: 'ring', text: 'detection-alert.status.unknown-field' });
    node.receive({ payload: plate() });
    await until(() => got.caught.length === 1, 2000, 'the Catch node');
    assert.equal(got.caught[0].error.code, 'CONFIG');
    assert.equal(got.out.length, 0);
  });

  it("the tags shown lose the events bridge's prefix; a bridge that is not deployed stops the node", async () => {
    const bridge = { id: 'eb', type: 'events-bridge', name: '', url: 'https://bridge.invalid', timeout: 10, tagPrefix: 'acme' };
    const { node, got } = await start(
      { bridge: 'eb', subject: '{tags}', body: '' },
      { extra: [bridge], modules: [translatedModule('events-bridge')] },
    );
    node.receive({ payload: plate() });
    await until(() => got.out.length === 1, 3000, 'an alert');
    assert.equal(got.out[0].topic, 'VIP');
    await helper.unload();

    const gone = await start({ bridge: 'no-such-bridge' });
    gone.node.receive({ payload: plate() });
    await until(() => gone.got.caught.length === 1, 3000, 'the Catch node');
    assert.equal(gone.got.caught[0].error.code, 'CONFIG');
    assert.equal(lastStatus(gone.node).text, 'detection-alert.status.no-bridge');
  });

  it('Telegram without a chat id is a configuration error', async () => {
    const { node, got } = await start({ sender: 'telegram', chatId: ' ' });
    node.receive({ payload: plate() });
    await until(() => got.caught.length === 1, 2000, 'the Catch node');
    assert.equal(got.caught[0].error.code, 'CONFIG');
    assert.equal(lastStatus(node).text, 'detection-alert.status.chat-id');
  });

  describe('a notice of detection-alarm (msg.alarm)', function () {
    const LINK = 'https://alarms.example.com/detection-alarm/al/k7m2qx9d.AbCdEfGh1.m7k2a.sig';
    const BUTTONS = [
      { action: 'ack', text: 'Acknowledge', data: 'alarm:ack:k7m2qx9d' },
      { action: 'snooze', text: 'Snooze 1 h', data: 'alarm:snooze:k7m2qx9d' },
    ];
    const notice = (extra) => ({ id: 'k7m2qx9d', notice: 'opened', text: '', link: LINK, buttons: BUTTONS, ...extra });
    const REMIND = 'Reminder 1 of 3: alarm k7m2qx9d not acknowledged for 5 min (2 reads).';

    it('e-mail: a reminder or escalation says so in the subject, its sentence first, the link last', async () => {
      const { node, got } = await start();
      node.receive({ payload: plate(), alarm: notice() });
      node.receive({ payload: plate(), alarm: notice({ notice: 'reminder', text: REMIND }) });
      node.receive({ payload: plate(), alarm: notice({ notice: 'escalation', text: 'Escalated: alarm k7m2qx9d.', link: undefined }) });
      await until(() => got.out.length === 3, 3000, 'three alerts');
      const [first, reminder, escalation] = got.out;
      assert.equal(first.topic, 'Plate XYZ987 at Car Park Gate 2');
      assert.match(first.payload, /^Plate: XYZ987\n/, 'the first notice has no sentence of its own');
      assert.equal(first.payload.split('\n').at(-1), `Acknowledge or snooze: ${LINK}`);
      assert.equal(reminder.topic, 'Reminder: Plate XYZ987 at Car Park Gate 2');
      assert.deepEqual(reminder.payload.split('\n').slice(0, 2), [REMIND, 'Plate: XYZ987']);
      assert.equal(reminder.alert.text, reminder.payload);
      assert.equal(reminder.attachments.length, 1, 'the picture as for any alert');
      assert.equal(escalation.topic, 'Escalated: Plate XYZ987 at Car Park Gate 2');
      assert.equal(escalation.payload.includes('Acknowledge or snooze'), false, 'no link: no line');
      assert.equal(got.caught.length, 0);
    });

    it('Telegram: the buttons as an inline keyboard; the link line stays whole when the caption is cut', async () => {
      const { node, got } = await start({ sender: 'telegram', chatId: '616161', body: 'x'.repeat(1100) });
      node.receive({ payload: plate(), alarm: notice({ notice: 'reminder', text: REMIND }) });
      await until(() => got.out.length === 1, 3000, 'an alert');
      const photo = got.out[0].payload;
      assert.equal(photo.type, 'photo');
      assert.deepEqual(photo.options, {
        reply_markup: {
          inline_keyboard: [
            [
              { text: 'Acknowledge', callback_data: 'alarm:ack:k7m2qx9d' },
              { text: 'Snooze 1 h', callback_data: 'alarm:snooze:k7m2qx9d' },
            ],
          ],
        },
      });
      assert.equal(photo.caption.length, 1024);
      assert.ok(photo.caption.startsWith(`Reminder: Plate XYZ987 at Car Park Gate 2\n\n${REMIND}\nxxx`), photo.caption.slice(0, 200));
      assert.ok(photo.caption.endsWith(`x…\nAcknowledge or snooze: ${LINK}`), photo.caption.slice(-200));
    });

    it('a summary comes without an event: built from its subject and sentence, no picture missing; without a subject it is no alert', async () => {
      const { node, got } = await start({ sender: 'telegram', chatId: '616161' });
      const text = '3 alerts arrived while snoozed; they were held, not sent.';
      node.receive({ topic: 'Snooze ended: gate 1', payload: text, alarm: { notice: 'resumed', subject: 'Snooze ended: gate 1', text, held: 3 } });
      // a reminder whose event was lost: its facts, still with its buttons and link
      node.receive({ topic: 'Alarm: 8OB123', payload: REMIND, alarm: notice({ notice: 'reminder', subject: 'Alarm: 8OB123', text: REMIND }) });
      node.receive({ payload: 'just text', alarm: { notice: 'resumed', text } });
      await until(() => got.out.length === 2 && got.caught.length === 1, 3000, 'two alerts and an error');
      const [summary, reminder] = got.out.map((m) => m.payload);
      assert.deepEqual(summary, { chatId: 616161, type: 'message', content: `Snooze ended: gate 1\n\n${text}`, options: {} });
      assert.equal(reminder.content, `Reminder: Alarm: 8OB123\n\n${REMIND}\nAcknowledge or snooze: ${LINK}`);
      assert.equal(reminder.options.reply_markup.inline_keyboard[0].length, 2);
      assert.equal(got.caught[0].error.code, 'NOT_A_DETECTION');
      assert.equal((await statusIs(node, '2 alerts · 0 without picture')).fill, 'green', 'a summary has no picture to miss');
    });

    it('web hooks take the link their own way: ntfy and Teams a button, Pushover its URL, Gotify and Slack a link', async () => {
      const built = {};
      for (const sender of ['ntfy', 'pushover', 'gotify', 'slack', 'teams']) {
        const { node, got } = await start({ sender }, { credentials: { pushoverToken: 't', pushoverUser: 'u' } });
        node.receive({ payload: plate(), alarm: notice() });
        await until(() => got.out.length === 1, 3000, `the ${sender} alert`);
        built[sender] = got.out[0];
        await helper.unload();
      }
      assert.equal(built.ntfy.headers.Actions, `view, "Acknowledge or snooze", ${LINK}`);
      assert.equal(built.ntfy.headers.Message.includes(LINK), false, 'a button, not a line');
      assert.deepEqual([built.pushover.payload.url, built.pushover.payload.url_title], [LINK, 'Acknowledge or snooze']);
      const gotify = built.gotify.payload;
      assert.ok(gotify.message.includes(`  \n[Acknowledge or snooze](${LINK})`), gotify.message);
      assert.deepEqual(gotify.extras['client::notification'], { click: { url: LINK } });
      assert.ok(built.slack.payload.blocks[1].text.text.endsWith(`\n<${LINK}|Acknowledge or snooze>`));
      assert.deepEqual(built.teams.payload.attachments[0].content.actions, [{ type: 'Action.OpenUrl', title: 'Acknowledge or snooze', url: LINK }]);
    });
  });

  it('runs with the defaults of a node written with only its type: e-mail, picture on', async () => {
    await helper.load(translatedModule(TYPE), [
      { id: 'f1', type: 'tab' },
      { id: 'alert', type: TYPE, z: 'f1', wires: [['out']] },
      { id: 'out', type: 'helper', z: 'f1' },
    ]);
    const got = [];
    helper.getNode('out').on('input', (m) => got.push(m));
    helper.getNode('alert').receive({ payload: plate() });
    await until(() => got.length === 1, 3000, 'an alert');
    assert.equal(got[0].alert.sender, 'email');
    assert.equal(got[0].alert.picture.bytes, JPEG.length);
    assert.equal(got[0].topic, 'Plate XYZ987 at Car Park Gate 2');
  });
});
