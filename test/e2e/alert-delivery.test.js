'use strict';
/**
 * End to end: the last step to a person (issue 40). The banned-plate-at-night
 * example, as Import → Examples serves it, with its two debug nodes replaced by
 * the real senders as a user does it ("put an e-mail node here"): the e-mail
 * node of node-red-node-email and the telegram sender of
 * node-red-contrib-telegrambot, both installed from npm beside the packed
 * module into a fresh user directory, at pinned versions (SENDER_MODULES). They send to this test's SMTP server
 * (test/support/smtp-server.js) and fake Telegram Bot API, which the bot
 * configuration's "Bot API URL" points at (test/support/telegram-bot-api.js),
 * both on 127.0.0.1. The only other change is the chat id typed into the
 * Telegram alert message node. The deployed flow holds no change, template or
 * function node and no JSONata field (read from the flow).
 *
 * The simulator (the built bin) sends, resiliently as the bridge does, plates
 * of the example's banned list tagged `partner-Banned` at Gate 2 LPR at night
 * in Berlin, with the pictures it draws (each shows the event's plate):
 * 8OB123 three times, JKR777 three times, 80B123 once (8OB123 misread), then
 * ABC123 once with no picture at all. The dedupe lets one alert per car
 * through (its status counts what it dropped, and the look-alike): three
 * e-mails and three Telegram messages, no more (the dedupe's counts prove
 * every event was decided). Each e-mail's subject names the plate and the
 * camera, its text the local time with its zone and why it matched (the
 * filter's msg.match.text), its attachment a JPEG that decodes (jpeg-js) and
 * shows that plate (test/support/plate-reader.js reads it off the picture);
 * the event without pictures still gets its e-mail, saying the picture is
 * missing, and a Telegram text instead of a photo.
 */
const assert = require('node:assert/strict');
const jpeg = require('jpeg-js');
const { SENDER_MODULES, nodeRedVersion, request, translate, until } = require('../support');
const { NodeRedProcess, runSimulator } = require('../support/nodered-process');
const { SmtpServer } = require('../support/smtp-server');
const { TelegramBotApi } = require('../support/telegram-bot-api');
const { readPictureText } = require('../support/plate-reader');

const EXAMPLE = 'banned-plate-at-night';
const PATH = '/detections/banned-at-night';
const TAB = 'e2ealertdeliver1';
const TOKEN = '7000000002:AAFakeTokenForTheAlertTestOnly';
const CHAT_ID = 515151;
const TO = 'security@site.example';
const CAMERA = 'Gate 2 LPR';
const ZONE = 'Europe/Berlin';

/** The example's node of `type` (named `name`, when given): exactly one. */
function only(nodes, type, name) {
  const found = nodes.filter((n) => n.type === type && (name === undefined || n.name === name));
  assert.equal(found.length, 1, `the example has one ${type}${name ? ` "${name}"` : ''}`);
  return found[0];
}

/** Every property of every node whose value says it is read as JSONata (TypedInput types, change rules, debug output). */
function jsonataFields(nodes) {
  const found = [];
  const visit = (value, where) => {
    if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${where}[${i}]`));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, `${where}.${k}`);
    else if (value === 'jsonata') found.push(where);
  };
  for (const node of nodes) visit(node, `${node.type} ${node.id}`);
  return found;
}

/** The catalog's default subject of a plate alert, for `plate` at the camera. */
const subjectOf = (plate) => translate('detection-alert.default.subject-lpr').replace('{plate}', plate).replace('{camera}', CAMERA);

describe(`e2e: banned plates at night by e-mail and Telegram through the real sender nodes, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(60000);
  let smtp;
  let telegram;
  let nr;
  let comms;
  let flow;
  const cleanups = [];

  before(async function () {
    this.timeout(240000);
    smtp = await SmtpServer.start();
    telegram = await TelegramBotApi.start({ token: TOKEN });
    nr = await NodeRedProcess.create({ modules: [SENDER_MODULES.email, SENDER_MODULES.telegram] });
    await nr.start();
    comms = await nr.openComms();

    flow = await nr.example(EXAMPLE);
    // What a user does: the e-mail node and the telegram sender in place of the debug nodes that say so.
    const emailDebug = only(flow, 'debug', 'e-mail (put an e-mail node here)');
    const telegramDebug = only(flow, 'debug', 'Telegram (put a telegram sender here)');
    Object.keys(emailDebug).forEach((k) => ['id', 'x', 'y', 'wires'].includes(k) || delete emailDebug[k]);
    Object.assign(emailDebug, {
      type: 'e-mail',
      server: '127.0.0.1',
      port: String(smtp.port),
      authtype: 'BASIC',
      saslformat: true,
      token: 'oauth2Response.access_token',
      secure: false,
      tls: true,
      name: TO,
      dname: '',
      credentials: { userid: 'nodered@site.example', password: 'any password' },
    });
    Object.keys(telegramDebug).forEach((k) => ['id', 'x', 'y', 'wires'].includes(k) || delete telegramDebug[k]);
    Object.assign(telegramDebug, { type: 'telegram sender', name: '', bot: 'e2ealertbotconf1', haserroroutput: false, outputs: 1 });
    flow.push({
      id: 'e2ealertbotconf1',
      type: 'telegram bot',
      botname: 'detection_alert_bot',
      usernames: '',
      chatids: '',
      baseapiurl: telegram.url,
      testenvironment: false,
      updatemode: 'none',
      addressfamily: '',
      pollinterval: 300,
      usesocks: false,
      verboselogging: false,
      credentials: { token: TOKEN },
    });
    // ... and the chat id typed into the Telegram alert message node
    const telegramAlert = only(flow, 'detection-alert', 'Telegram');
    assert.equal(telegramAlert.sender, 'telegram');
    telegramAlert.chatId = String(CHAT_ID);

    const tab = [{ id: TAB, type: 'tab', label: EXAMPLE }, ...flow.map((n) => (n.x === undefined ? n : { ...n, z: TAB }))];
    await nr.deploy(tab);
    await nr.answers(PATH, 405);
  });

  afterEach(async function () {
    const failed = this.currentTest && this.currentTest.state === 'failed';
    for (const cleanup of cleanups.splice(0)) await cleanup(failed);
    if (failed && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(60000);
    if (comms) comms.close();
    if (nr) await nr.cleanup();
    if (smtp) await smtp.close();
    if (telegram) await telegram.close();
  });

  it('the deployed flow holds no change, template or function node and no JSONata field', async function () {
    const res = await request(`${nr.url}/flows`, { method: 'GET' });
    assert.equal(res.status, 200);
    const deployed = JSON.parse(res.text);
    const types = new Set(deployed.map((n) => n.type));
    for (const type of ['change', 'template', 'function']) assert.ok(!types.has(type), `no ${type} node`);
    assert.deepEqual(jsonataFields(deployed), [], 'no JSONata field');
    for (const type of ['detection-in', 'detection-filter', 'detection-dedupe', 'detection-alert', 'e-mail', 'telegram sender'])
      assert.ok(types.has(type), `the flow has a ${type}`);
  });

  it('one e-mail and one Telegram message per car, its subject, local time, why, and the plate on its picture; without pictures it still goes out', async function () {
    this.timeout(180000);
    const send = (plate, count, images = 'pictures') =>
      runSimulator([
        'send',
        '--url',
        `${nr.url}${PATH}`,
        '--plates',
        `${plate}:Banned`,
        '--tag-prefix',
        'partner',
        '--cameras',
        CAMERA,
        '--time-zone',
        ZONE,
        '--time-of-day',
        'night',
        '--images',
        images,
        '--count',
        String(count),
        '--rate',
        '0',
        '--concurrency',
        '1',
        '--resilient',
        '--quiet',
      ]);
    const runs = [
      ['8OB123', 3],
      ['JKR777', 3],
      ['80B123', 1], // 8OB123 misread: the same car, inside the cooldown
      ['ABC123', 1, 'none'],
    ];
    for (const [plate, count, images] of runs) {
      const run = send(plate, count, images);
      cleanups.push(async () => run.stop());
      const { code, stdout, stderr } = await run;
      assert.equal(code, 0, `the simulator sent ${plate}: ${stdout}\n${stderr.slice(-2000)}`);
    }

    // Every event decided: the dedupe let three cars through and dropped the five repeats, one a look-alike.
    const dedupe = only(flow, 'detection-dedupe');
    const counted = translate('detection-dedupe.status.counts', {
      passed: 3,
      dropped: 5,
      keys: translate('detection-dedupe.status.keys', { count: 3 }),
    });
    await until(() => ((comms.status(dedupe.id) || {}).text || '').startsWith(counted), 30000, `the dedupe's status "${counted} …"`);
    await until(() => / · 1 look-alike$/.test((comms.status(dedupe.id) || {}).text || ''), 10000, 'the look-alike in the dedupe status');

    await smtp.until(3, 30000);
    await telegram.until(3, 30000);
    assert.equal(smtp.mails.length, 3, 'three e-mails, one per car');
    const bySubject = new Map(smtp.mails.map((m) => [m.subject, m]));
    assert.deepEqual(
      [...bySubject.keys()].sort(),
      [subjectOf('8OB123'), subjectOf('ABC123'), subjectOf('JKR777')].sort(),
      'the subjects name plate and camera',
    );

    for (const plate of ['8OB123', 'JKR777', 'ABC123']) {
      const mail = bySubject.get(subjectOf(plate));
      assert.deepEqual(mail.envelope.to, [TO], `${plate}: to the e-mail node's recipient`);
      const lines = mail.text.trim().split(/\r?\n/);
      const line = (label) => lines.find((l) => l.startsWith(`${label}: `));
      assert.equal(line('Plate'), `Plate: ${plate}`);
      assert.equal(line('Tags'), 'Tags: Banned', `${plate}: the tag without the account prefix`);
      assert.equal(line('Camera'), `Camera: ${CAMERA}`);
      // the local time on the camera's clock with its zone, at night
      const time = /^Time: (\d{4}-\d\d-\d\d) (\d\d):\d\d:\d\d (\S+)$/.exec(line('Time') || '');
      assert.ok(time, `${plate}: the local time with its zone: ${mail.text}`);
      assert.equal(time[3], ZONE);
      assert.ok(Number(time[2]) >= 22 || Number(time[2]) < 6, `${plate}: detected at night: ${line('Time')}`);
      // why it matched: the plate rule and the night window, judged in Berlin
      const why = line('Why it matched') || '';
      assert.ok(why.includes(`plate ${plate}`), `${plate}: the plate rule that held: ${why}`);
      assert.ok(why.includes(ZONE) && /22:00/.test(why), `${plate}: the window and the zone judged: ${why}`);
    }

    for (const plate of ['8OB123', 'JKR777']) {
      const mail = bySubject.get(subjectOf(plate));
      assert.equal(mail.attachments.length, 1, `${plate}: the picture attached`);
      const [picture] = mail.attachments;
      assert.equal(picture.contentType, 'image/jpeg');
      assert.match(picture.filename, /Close\.jpg$/, `${plate}: the plate's close-up: ${picture.filename}`);
      const decoded = jpeg.decode(picture.content, { useTArray: true });
      assert.ok(decoded.width > 0 && decoded.height > 0, `${plate}: a JPEG that decodes`);
      assert.equal(readPictureText(picture.content), plate, `${plate}: the picture shows that plate`);
    }
    const bare = bySubject.get(subjectOf('ABC123'));
    assert.equal(bare.attachments.length, 0, 'the event without pictures: no attachment');
    assert.equal(bare.text.trim().split(/\r?\n/).pop(), translate('detection-alert.picture.none'), '... and the e-mail says so');

    // Telegram: a photo with its caption per car with pictures, a text for the one without
    const calls = telegram.calls.filter((c) => c.method === 'sendPhoto' || c.method === 'sendMessage');
    assert.equal(calls.length, 3, `three Telegram messages: ${telegram.calls.map((c) => c.method)}`);
    for (const call of calls) assert.equal(String(call.chatId), String(CHAT_ID));
    const photos = calls.filter((c) => c.method === 'sendPhoto');
    assert.deepEqual(photos.map((c) => readPictureText(c.photo)).sort(), ['8OB123', 'JKR777'], 'each photo shows its plate');
    for (const photo of photos)
      assert.ok(photo.caption.startsWith(subjectOf(readPictureText(photo.photo))), `the caption starts with the subject: ${photo.caption}`);
    const [text] = calls.filter((c) => c.method === 'sendMessage');
    assert.ok(text.text.startsWith(subjectOf('ABC123')), `the event without pictures: a text: ${text.text}`);
    assert.ok(text.text.includes(translate('detection-alert.picture.none')));

    // the alert nodes say what they did, with figures
    const emailAlert = only(flow, 'detection-alert', 'e-mail');
    const alerted = translate('detection-alert.status.counts', { alerts: 3, without: 1 });
    await until(() => (comms.status(emailAlert.id) || {}).text === alerted, 10000, `the alert node's status "${alerted}"`);
    assert.deepEqual(nr.errorLines(), []);
  });
});
