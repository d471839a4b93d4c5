'use strict';
/**
 * End to end: alarms people answer (issue 43). The alarm example, as Import →
 * Examples serves it, in a real Node-RED with the packed module, its debug
 * nodes replaced by the real senders as a user does it: node-red-node-email's
 * e-mail node (to this test's SMTP server) and node-red-contrib-telegrambot's
 * senders (to a fake Bot API on 127.0.0.1), a Telegram event node for the
 * buttons. The alarm's times are the test's, in seconds, so reminders and the
 * escalation happen while it runs; every wait is on what arrives (a mail, a
 * Telegram call, the node's book on the admin API), never a sleep.
 *
 * - The simulator sends 8OB123, then JKR777 (banned, at night): one alarm
 *   each, one e-mail each; 80B123 (8OB123 misread) joins the open alarm.
 *   Unanswered, both remind after 5 s; a guard opens the mail link (the page
 *   shows the alarm, and opening it changed nothing), presses Acknowledge:
 *   8OB123 reminds no more and never escalates, JKR777 reminds again and
 *   escalates to the second chat at 16 s. The same link pressed again is
 *   refused: used.
 * - A snooze of Gate 2 LPR and an open alarm survive a SIGKILL: after the
 *   restart the alarm's reminders come (each once), and an alert at Gate 2 is
 *   held.
 * - Two Node-RED instances share one book in a real redis-server: an alert
 *   into one opens an alarm; its two reminders and its escalation reach the
 *   receiving end once each, from whichever instance swept first.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const { SENDER_MODULES, nodeRedVersion, request, until } = require('../support');
const { NodeRedProcess, runSimulator } = require('../support/nodered-process');
const { RedisServer } = require('../support/redis-server');
const { SmtpServer } = require('../support/smtp-server');
const { TelegramBotApi } = require('../support/telegram-bot-api');

const EXAMPLE = 'alarm-acknowledge-escalate';
const PATH = '/detections/alarms';
const TAB = 'e2ealarmtab00001';
const SHARED_TAB = 'e2ealarmshared01';
const SHARED_PATH = '/e2e/shared-alarms';
const TOKEN = '7000000003:AAFakeTokenForTheAlarmTestOnly';
const CHAT_ID = 616161;
const NEXT_CHAT_ID = 626262;
const TO = 'guards@site.example';
const ZONE = 'Europe/Berlin';

/** The example's node of `type` (named `name`, when given): exactly one. */
function only(nodes, type, name) {
  const found = nodes.filter((n) => n.type === type && (name === undefined || n.name === name));
  assert.equal(found.length, 1, `the example has one ${type}${name ? ` "${name}"` : ''}`);
  return found[0];
}

/** `node` made into another type: its id, place and wires kept, `props` instead of the rest. */
function replace(node, props) {
  for (const key of Object.keys(node)) if (!['id', 'x', 'y', 'wires', 'z'].includes(key)) delete node[key];
  Object.assign(node, props);
}

/** The simulator sends `count` events of `plate` (tagged Banned) at `camera`, at night. */
function send(url, plate, camera, count = 1) {
  return runSimulator([
    'send',
    '--url',
    url,
    '--plates',
    `${plate}:Banned`,
    '--cameras',
    camera,
    '--time-zone',
    ZONE,
    '--time-of-day',
    'night',
    '--images',
    'pictures',
    '--count',
    String(count),
    '--rate',
    '0',
    '--concurrency',
    '1',
    '--resilient',
    '--quiet',
  ]);
}

/** The shared-alarm tab of one instance: a receiver, the alarm in Redis, and what it sends POSTed to `sink` as `{instance, notice, id}`. */
function sharedTab(instance, redisUrl, sink) {
  const post = (id, x) => ({
    id,
    type: 'http request',
    z: SHARED_TAB,
    name: '',
    method: 'POST',
    ret: 'txt',
    paytoqs: 'ignore',
    url: `${sink}/got`,
    tls: '',
    persist: false,
    proxy: '',
    insecureHTTPParser: false,
    authType: '',
    senderr: false,
    headers: [],
    x,
    y: 200,
    wires: [[]],
  });
  const note = (id, next) => ({
    id,
    type: 'change',
    z: SHARED_TAB,
    name: '',
    rules: [
      {
        t: 'set',
        p: 'payload',
        pt: 'msg',
        to: `{"instance": "${instance}", "notice": alarm.notice, "id": alarm.id, "number": alarm.number}`,
        tot: 'jsonata',
      },
    ],
    x: 500,
    y: 200,
    wires: [[next]],
  });
  return [
    { id: SHARED_TAB, type: 'tab', label: 'shared alarms' },
    { id: 'e2esharedredis01', type: 'detection-redis', name: '', url: redisUrl, mode: 'single', keyPrefix: '' },
    {
      id: 'e2esharedin00001',
      type: 'detection-in',
      z: SHARED_TAB,
      name: '',
      path: SHARED_PATH,
      auth: 'none',
      x: 100,
      y: 200,
      wires: [['e2esharedalarm01'], [], []],
    },
    {
      id: 'e2esharedalarm01',
      type: 'detection-alarm',
      z: SHARED_TAB,
      name: 'shared',
      remind: 2,
      remindUnits: 's',
      maxReminders: 2,
      escalate: 6,
      escalateUnits: 's',
      quiet: 8,
      quietUnits: 's',
      scope: 'redis',
      redis: 'e2esharedredis01',
      sharedName: 'e2e-alarms',
      x: 300,
      y: 200,
      wires: [['e2esharednote001'], ['e2esharednote001'], [], []],
    },
    note('e2esharednote001', 'e2esharedpost001'),
    post('e2esharedpost001', 700),
  ];
}

describe(`e2e: alarms people answer, by e-mail, Telegram and the mail link's page, Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(90000);
  let smtp;
  let telegram;
  let redis;
  let sink;
  let nr;
  let other;
  let alarmId;
  const got = [];
  const cleanups = [];

  /** The book of the alarm node `id` of `instance`, as its dialog reads it. */
  async function book(id, instance = nr) {
    const res = await request(`${instance.url}/detection-bridge/alarms/${id}`, { method: 'GET' });
    assert.equal(res.status, 200, res.text);
    return JSON.parse(res.text);
  }
  const alarmOf = async (label) => (await book(alarmId)).alarms.find((a) => a.label === label);
  const mailsOf = (plate) => smtp.mails.filter((m) => m.subject.includes(plate));

  before(async function () {
    this.timeout(300000);
    smtp = await SmtpServer.start();
    telegram = await TelegramBotApi.start({ token: TOKEN });
    redis = await RedisServer.start();
    sink = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push(JSON.parse(body));
        res.end('ok');
      });
    });
    await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const sinkUrl = `http://127.0.0.1:${sink.address().port}`;

    nr = await NodeRedProcess.create({ modules: [SENDER_MODULES.email, SENDER_MODULES.telegram] });
    other = await NodeRedProcess.create();
    await Promise.all([nr.start(), other.start()]);

    const flow = await nr.example(EXAMPLE);
    const alarm = only(flow, 'detection-alarm');
    alarmId = alarm.id;
    // the test's times, in seconds; links to this Node-RED
    Object.assign(alarm, { remind: 5, remindUnits: 's', maxReminders: 2, escalate: 16, escalateUnits: 's', quiet: 0, linkBase: nr.url });
    // one more banned plate, for the snooze
    const filter = only(flow, 'detection-filter');
    filter.rules[0].v += ', HLD 404';
    replace(only(flow, 'debug', 'e-mail (put an e-mail node here)'), {
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
    const sender = { type: 'telegram sender', name: '', bot: 'e2ealarmbotconf1', haserroroutput: false, outputs: 1 };
    replace(only(flow, 'debug', 'Telegram (put a telegram sender here)'), sender);
    replace(only(flow, 'debug', 'escalation (a telegram sender)'), sender);
    replace(only(flow, 'debug', 'Telegram answers (a telegram sender)'), sender);
    only(flow, 'detection-alert', 'Telegram').chatId = String(CHAT_ID);
    only(flow, 'detection-alert', 'Telegram: the next person').chatId = String(NEXT_CHAT_ID);
    flow.push(
      {
        id: 'e2ealarmbotconf1',
        type: 'telegram bot',
        botname: 'detection_alarm_bot',
        usernames: '',
        chatids: '',
        baseapiurl: telegram.url,
        testenvironment: false,
        updatemode: 'polling',
        addressfamily: '',
        pollinterval: 300,
        usesocks: false,
        verboselogging: false,
        credentials: { token: TOKEN },
      },
      // the buttons' presses into the alarm, as its docs say: auto-answer off, the alarm answers
      {
        id: 'e2ealarmbuttons1',
        type: 'telegram event',
        name: '',
        bot: 'e2ealarmbotconf1',
        event: 'callback_query',
        autoanswer: false,
        x: 500,
        y: 700,
        wires: [[alarmId]],
      },
    );
    const tab = [{ id: TAB, type: 'tab', label: EXAMPLE }, ...flow.map((n) => (n.x === undefined ? n : { ...n, z: TAB }))];
    await Promise.all([nr.deploy([...tab, ...sharedTab('A', redis.url, sinkUrl)]), other.deploy(sharedTab('B', redis.url, sinkUrl))]);
    await Promise.all([nr.answers(PATH, 405), nr.answers(SHARED_PATH, 405), other.answers(SHARED_PATH, 405)]);
  });

  afterEach(async function () {
    const failed = this.currentTest && this.currentTest.state === 'failed';
    for (const cleanup of cleanups.splice(0)) await cleanup(failed);
    if (failed) for (const instance of [nr, other]) if (instance) console.log(`\n---- Node-RED output ----\n${instance.logText()}\n----`);
  });

  after(async function () {
    this.timeout(60000);
    for (const instance of [nr, other]) if (instance) await instance.cleanup();
    for (const server of [smtp, telegram, redis]) if (server) await server.close();
    if (sink) await new Promise((resolve) => sink.close(resolve));
  });

  async function sent(run, what) {
    cleanups.push(async () => run.stop());
    const { code, stdout, stderr } = await run;
    assert.equal(code, 0, `the simulator sent ${what}: ${stdout}\n${stderr.slice(-2000)}`);
  }

  it('opens one alarm per car, reminds, acknowledges from the mail link’s page, and escalates only the one nobody answered', async function () {
    await sent(send(`${nr.url}${PATH}`, '8OB123', 'Gate 2 LPR'), '8OB123');
    await until(async () => await alarmOf('8OB123'), 10000, 'the alarm of 8OB123');
    await sent(send(`${nr.url}${PATH}`, 'JKR777', 'Gate 2 LPR'), 'JKR777');
    await sent(send(`${nr.url}${PATH}`, '80B123', 'Gate 1 LPR'), '80B123');
    await until(async () => (await alarmOf('8OB123')).reads === 2, 10000, 'the misread 80B123 joined the alarm of 8OB123');
    const first = await until(() => mailsOf('8OB123')[0], 15000, 'the e-mail of 8OB123');
    assert.equal(mailsOf('80B123').length, 0, 'the misread sent no e-mail of its own');
    const photos = await telegram.until(2, 15000, 'sendPhoto');
    assert.deepEqual(photos.map((p) => p.replyMarkup.inline_keyboard[0].map((b) => b.text)).flat(), [
      'Acknowledge',
      'Snooze 1 h',
      'Acknowledge',
      'Snooze 1 h',
    ]);

    // unanswered: the reminder, with the link
    const reminder = await until(() => mailsOf('8OB123').find((m) => m.subject.startsWith('Reminder: ')), 20000, 'the reminder of 8OB123');
    assert.match(reminder.text, /Reminder 1 of 2: alarm [a-z2-9]{8} not acknowledged for \d+ min \(2 reads\)\./);
    const link = /Acknowledge or snooze: (\S+)/.exec(first.text)?.[1];
    assert.ok(link && link.startsWith(`${nr.url}/alarm/`), `the first e-mail carries the link: ${first.text}`);

    // the page shows the alarm; opening it changes nothing
    const page = await request(link, { method: 'GET' });
    assert.equal(page.status, 200);
    assert.match(page.text, /8OB123/);
    assert.match(page.text, /<img [^>]*src="data:image\/jpeg;base64,/, 'with its picture');
    assert.equal((await alarmOf('8OB123')).state, 'open', 'a GET acknowledged nothing');

    const press = await request(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=ack&name=Guard+Anna',
    });
    assert.equal(press.status, 200, press.text);
    assert.match(press.text, /Acknowledged by Guard Anna/);
    const acked = await alarmOf('8OB123');
    assert.deepEqual([acked.state, acked.ackBy], ['acknowledged', 'Guard Anna']);
    const again = await request(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'action=ack' });
    assert.equal(again.status, 410, 'a link works once');
    assert.match(again.text, /already used/);

    // JKR777, unanswered, escalates to the next person; by then 8OB123 (opened first) would have too
    const escalation = await until(
      () => telegram.calls.find((c) => c.method === 'sendPhoto' && String(c.chatId) === String(NEXT_CHAT_ID)),
      30000,
      'the escalation to the next person',
    );
    assert.match(escalation.caption, /^Escalated: .*JKR777/);
    const { history } = await book(alarmId);
    const of = (label, action) => history.filter((h) => h.label === label && h.action === action).length;
    assert.deepEqual(
      [of('8OB123', 'reminded'), of('8OB123', 'escalated'), of('JKR777', 'reminded'), of('JKR777', 'escalated')],
      [1, 0, 2, 1],
      'the acknowledgement stopped both for 8OB123',
    );
    assert.equal(telegram.calls.filter((c) => c.method === 'sendPhoto' && String(c.chatId) === String(NEXT_CHAT_ID)).length, 1);
    assert.equal(history.find((h) => h.action === 'acknowledged').via, 'link');
    assert.equal(mailsOf('8OB123').filter((m) => m.subject.startsWith('Reminder: ')).length, 1);
  });

  it('an open alarm and a snooze survive a SIGKILL: its reminders come once each, and the snoozed camera is held', async function () {
    const snooze = (await nr.example(EXAMPLE)).find((n) => n.type === 'inject' && n.topic === 'snooze');
    const injected = await request(`${nr.url}/inject/${snooze.id}`, { method: 'POST' });
    assert.equal(injected.status, 200);
    await until(async () => (await book(alarmId)).snoozes.length === 1, 10000, 'Gate 2 LPR snoozed');

    await sent(send(`${nr.url}${PATH}`, 'ABC123', 'Gate 1 LPR'), 'ABC123');
    await until(() => mailsOf('ABC123')[0], 15000, 'the e-mail of ABC123');
    await nr.stop('SIGKILL');
    await nr.start();
    // the flows start after the admin API answers: the alarm node is there once its book answers
    await nr.answers(PATH, 405);
    await until(
      async () => (await request(`${nr.url}/detection-bridge/alarms/${alarmId}`, { method: 'GET' })).status === 200,
      15000,
      'the alarm node started',
    );

    const after = await book(alarmId);
    assert.ok(
      after.alarms.some((a) => a.label === 'ABC123'),
      'the open alarm is back',
    );
    assert.equal(after.snoozes.length, 1, 'the snooze is back');
    await sent(send(`${nr.url}${PATH}`, 'HLD404', 'Gate 2 LPR'), 'HLD404');
    await until(async () => (await book(alarmId)).snoozes[0].held === 1, 10000, 'the alert at Gate 2 held by the snooze');
    await until(async () => (await alarmOf('ABC123')).reminders === 2, 30000, 'both reminders of ABC123');
    const reminders = await until(
      () => (mailsOf('ABC123').filter((m) => m.subject.startsWith('Reminder: ')).length === 2 ? mailsOf('ABC123') : undefined),
      15000,
      'two reminder e-mails',
    );
    assert.equal(reminders.length, 3, 'the first e-mail and two reminders, none twice');
    assert.equal(mailsOf('HLD404').length, 0, 'the held alert sent no e-mail');
  });

  it('two instances on one Redis: each reminder and the escalation reach the receiving end once', async function () {
    await sent(send(`${nr.url}${SHARED_PATH}`, 'SHR123', 'Gate 3 LPR'), 'SHR123');
    // the quiet close comes after every notice: then nothing more is due, from either instance
    await until(async () => (await book('e2esharedalarm01', other)).history.some((h) => h.action === 'closed'), 30000, 'the shared alarm closed');
    const notices = got.map((g) => `${g.notice}${g.number ? ` ${g.number}` : ''}`).sort();
    assert.deepEqual(notices, ['escalation', 'opened', 'reminder 1', 'reminder 2'], JSON.stringify(got));
    assert.equal(new Set(got.map((g) => g.id)).size, 1, 'one alarm');
    assert.ok(
      got.some((g) => g.instance === 'A'),
      'instance A (the alert’s) sent the first notice',
    );
  });
});
