'use strict';
/**
 * End to end: the test harnesses of the alert senders, proved with the real
 * sender nodes in a real Node-RED. node-red-node-email and
 * node-red-contrib-telegrambot (dev dependencies, packed from node_modules:
 * no network, the locked versions) are installed beside the packed module
 * into a fresh user directory, as a user would install them, and a flow sends
 * through them to this test's local SMTP server (test/support/smtp-server.js)
 * and fake Telegram Bot API (test/support/telegram-bot-api.js), both on
 * 127.0.0.1.
 *
 * The flow (the harness's proof, not a user example: a function node builds
 * the messages): an inject, clicked as the editor does, gives a function node
 * the plate sample's JPEG; it makes
 * - an e-mail without authentication (authtype NONE, `msg.from`, `msg.to`)
 *   and one with a user and password (authtype BASIC: any is accepted), each
 *   with a subject, a text and the JPEG attached: the SMTP server gets both,
 *   with those subjects, texts, addresses, the user, and the attachment's
 *   bytes equal to the JPEG's;
 * - a Telegram photo with a caption, then a text message, through a
 *   `telegram sender` whose bot is send-only (updatemode "none": no polling,
 *   no webhook): the fake API gets sendPhoto for the chat with the caption and
 *   the JPEG's bytes, then sendMessage with the text, and no other call (no
 *   getUpdates, getMe or webhook call before them); the sender passes each
 *   message on with the message_id the API gave.
 * Every message sent is finished (a Complete node per sender), none failed
 * (a Catch node), and Node-RED logged no error.
 *
 * Then the servers refuse: the SMTP server a recipient (550 at RCPT TO), the
 * API the photo (400 chat not found). The e-mail node fails that mail to
 * Catch and does not finish it; the Telegram sender (17.0.6) fails the photo
 * to Catch twice (node.error and done(error)) and then finishes it all the
 * same (done()); the other mail and the text message go.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT, nodeRedVersion, request, until } = require('../support');
const { NodeRedProcess, functionNode, packInstalled } = require('../support/nodered-process');
const { SmtpServer } = require('../support/smtp-server');
const { TelegramBotApi } = require('../support/telegram-bot-api');

const { SAMPLE_PLATE_PICTURES } = require(path.join(ROOT, 'dist', 'lib', 'bridge', 'sample-images'));
const JPEG = Buffer.from(SAMPLE_PLATE_PICTURES.Close, 'base64');

const EMAIL = 'node-red-node-email';
const TELEGRAM = 'node-red-contrib-telegrambot';
const TOKEN = '7000000001:AAFakeTokenForTheTestsOnly';
const CHAT_ID = 424242;
const TAB = 'e2esenderstab01';
const READY_PATH = '/senders/ready';

const ids = {
  inject: 'e2esendinject01',
  build: 'e2esendbuild001',
  emailNone: 'e2esendmailnone',
  emailBasic: 'e2esendmailauth',
  bot: 'e2esendbotconf1',
  sender: 'e2esendtelegram',
  sent: 'e2esendsentdbg1',
  complete: 'e2esendcomplete',
  completed: 'e2esendcompdbg1',
  catch: 'e2esendcatch001',
  caught: 'e2esendcaughtd1',
  readyIn: 'e2esendreadyin1',
  readyOut: 'e2esendreadyout',
};

/** The function node's body: msg.payload is the JPEG in base64; one message per output, the Telegram two in order. */
const BUILD = `
const jpeg = Buffer.from(msg.payload, 'base64');
const attachment = () => [{ filename: 'plate-XYZ987.jpg', contentType: 'image/jpeg', content: Buffer.from(jpeg) }];
const none = {
  kind: 'email-none',
  from: 'alerts@site.example',
  to: 'guard@site.example',
  topic: 'Plate XYZ987 at Gate 1',
  payload: 'Listed plate XYZ987 seen at Gate 1.',
  attachments: attachment(),
};
const basic = {
  kind: 'email-basic',
  topic: 'Plate XYZ987 at Gate 1 (authenticated)',
  payload: 'Listed plate XYZ987 seen at Gate 1, sent with a login.',
  attachments: attachment(),
};
const photo = {
  kind: 'telegram-photo',
  payload: {
    chatId: ${CHAT_ID},
    type: 'photo',
    content: Buffer.from(jpeg),
    caption: 'Plate XYZ987 at Gate 1',
    fileOptions: { filename: 'plate-XYZ987.jpg', contentType: 'image/jpeg' },
  },
};
const text = { kind: 'telegram-message', payload: { chatId: ${CHAT_ID}, type: 'message', content: 'Listed plate XYZ987 seen at Gate 1.' } };
return [none, basic, [photo, text]];
`;

/** A debug node showing `property` of each message in the sidebar only. */
function debugNode(id, property) {
  return {
    id,
    type: 'debug',
    z: TAB,
    name: '',
    active: true,
    tosidebar: true,
    console: false,
    tostatus: false,
    complete: property,
    targetType: property === 'true' ? 'full' : 'msg',
    wires: [],
  };
}

/** The flow: the senders as a user configures them, pointed at this test's servers. */
function sendersFlow(smtpPort, apiUrl) {
  return [
    { id: TAB, type: 'tab', label: 'senders' },
    {
      id: ids.inject,
      type: 'inject',
      z: TAB,
      name: 'plate picture',
      props: [{ p: 'payload' }],
      repeat: '',
      crontab: '',
      once: false,
      onceDelay: 0.1,
      topic: '',
      payload: JPEG.toString('base64'),
      payloadType: 'str',
      wires: [[ids.build]],
    },
    { ...functionNode(ids.build, TAB, BUILD), outputs: 3, wires: [[ids.emailNone], [ids.emailBasic], [ids.sender]] },
    // node-red-node-email's SMTP output. `name` is the To address (empty: msg.to); `tls` is
    // rejectUnauthorized; `secure` false is plain SMTP (STARTTLS only where the server offers it).
    {
      id: ids.emailNone,
      type: 'e-mail',
      z: TAB,
      server: '127.0.0.1',
      port: String(smtpPort),
      authtype: 'NONE',
      saslformat: true,
      token: 'oauth2Response.access_token',
      secure: false,
      tls: true,
      name: '',
      dname: 'mail, no login',
      credentials: {},
      wires: [],
    },
    {
      id: ids.emailBasic,
      type: 'e-mail',
      z: TAB,
      server: '127.0.0.1',
      port: String(smtpPort),
      authtype: 'BASIC',
      saslformat: true,
      token: 'oauth2Response.access_token',
      secure: false,
      tls: true,
      name: 'security@site.example',
      dname: 'mail, login',
      credentials: { userid: 'nodered@site.example', password: 'any password' },
      wires: [],
    },
    // node-red-contrib-telegrambot: the bot (a config node) in send-only mode, and its sender.
    {
      id: ids.bot,
      type: 'telegram bot',
      botname: 'detection_test_bot',
      usernames: '',
      chatids: '',
      baseapiurl: apiUrl,
      testenvironment: false,
      updatemode: 'none',
      addressfamily: '',
      pollinterval: 300,
      usesocks: false,
      sockshost: '',
      socksprotocol: 'socks5',
      socksport: 6667,
      socksusername: 'anonymous',
      sockspassword: '',
      bothost: '',
      botpath: '',
      localbothost: '0.0.0.0',
      localbotport: 8443,
      publicbotport: 8443,
      privatekey: '',
      certificate: '',
      useselfsignedcertificate: false,
      sslterminated: false,
      verboselogging: false,
      credentials: { token: TOKEN },
    },
    { id: ids.sender, type: 'telegram sender', z: TAB, name: '', bot: ids.bot, haserroroutput: false, outputs: 1, wires: [[ids.sent]] },
    debugNode(ids.sent, 'true'),
    {
      id: ids.complete,
      type: 'complete',
      z: TAB,
      name: '',
      scope: [ids.emailNone, ids.emailBasic, ids.sender],
      uncaught: false,
      wires: [[ids.completed]],
    },
    debugNode(ids.completed, 'kind'),
    { id: ids.catch, type: 'catch', z: TAB, name: '', scope: null, uncaught: false, wires: [[ids.caught]] },
    debugNode(ids.caught, 'true'),
    // Last, so that once it answers every node above is up.
    { id: ids.readyIn, type: 'http in', z: TAB, name: '', url: READY_PATH, method: 'get', upload: false, swaggerDoc: '', wires: [[ids.readyOut]] },
    { id: ids.readyOut, type: 'http response', z: TAB, name: '', statusCode: '200', headers: {}, wires: [] },
  ];
}

describe(`e2e: the sender harnesses (SMTP server, Telegram Bot API) with ${EMAIL} and ${TELEGRAM} in Node-RED ${nodeRedVersion()} (node ${process.version})`, function () {
  this.timeout(60000);
  let smtp;
  let telegram;
  let nr;
  let comms;

  before(async function () {
    this.timeout(180000);
    const modules = [await packInstalled(EMAIL), await packInstalled(TELEGRAM)];
    if (modules.includes(null)) {
      console.log(`      SKIPPED: this test needs ${EMAIL} and ${TELEGRAM} (dev dependencies: npm install); they are not installed here`);
      this.skip();
    }
    smtp = await SmtpServer.start();
    telegram = await TelegramBotApi.start({ token: TOKEN });
    nr = await NodeRedProcess.create({ modules });
    await nr.start();
    comms = await nr.openComms();
    await nr.deploy(sendersFlow(smtp.port, telegram.url), { [READY_PATH]: 200 });
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) {
      console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
      if (telegram) console.log(`Telegram calls: ${telegram.calls.map((c) => c.method).join(', ')}`);
      if (smtp) console.log(`mails: ${smtp.mails.map((m) => m.subject).join(', ')}; SMTP errors: ${smtp.errors.map((e) => e.message).join('; ')}`);
    }
  });

  after(async function () {
    this.timeout(30000);
    if (comms) comms.close();
    if (nr) await nr.cleanup();
    if (smtp) await smtp.close();
    if (telegram) await telegram.close();
  });

  /** The messages the Catch node got: [kind, error message]. */
  const caught = () =>
    comms
      .debug(ids.caught)
      .map((d) => (typeof d.msg === 'string' ? JSON.parse(d.msg) : d.msg))
      .map((m) => [m.kind, m.error.message]);
  /** The kinds of the messages the Complete node got, in order. */
  const completed = () => comms.debug(ids.completed).map((d) => d.msg);

  it('the inject sends two e-mails and a Telegram photo and message: each arrives whole, each message finishes, nothing fails', async () => {
    const clicked = await request(`${nr.url}/inject/${ids.inject}`, { method: 'POST' });
    assert.equal(clicked.status, 200, 'the inject button');

    // Both Telegram messages came (the sender makes both requests at once: in either order), and nothing else before them.
    const calls = await telegram.until(2, 20000);
    assert.deepEqual(calls.map((c) => c.method).sort(), ['sendMessage', 'sendPhoto'], 'send-only: no getUpdates, getMe or webhook call');
    const photo = calls.find((c) => c.method === 'sendPhoto');
    const message = calls.find((c) => c.method === 'sendMessage');
    assert.equal(photo.token, TOKEN);
    assert.equal(photo.chatId, String(CHAT_ID));
    assert.equal(photo.caption, 'Plate XYZ987 at Gate 1');
    assert.ok(
      Buffer.isBuffer(photo.photo) && photo.photo.equals(JPEG),
      `the photo's bytes are the JPEG's (${photo.photo && photo.photo.length} of ${JPEG.length})`,
    );
    assert.equal(photo.filename, 'plate-XYZ987.jpg');
    assert.equal(photo.contentType, 'image/jpeg');
    assert.equal(message.chatId, String(CHAT_ID));
    assert.equal(message.text, 'Listed plate XYZ987 seen at Gate 1.');
    assert.equal(message.photo, undefined);

    const mails = await smtp.until(2, 20000);
    const bySubject = (subject) => {
      const found = mails.filter((m) => m.subject === subject);
      assert.equal(found.length, 1, `one mail "${subject}" (got ${mails.map((m) => JSON.stringify(m.subject)).join(', ')})`);
      return found[0];
    };
    const none = bySubject('Plate XYZ987 at Gate 1');
    assert.equal(none.from, 'alerts@site.example');
    assert.equal(none.to, 'guard@site.example');
    assert.deepEqual(none.envelope, { from: 'alerts@site.example', to: ['guard@site.example'] });
    assert.equal(none.user, undefined, 'authtype NONE: no AUTH');
    assert.equal(none.text.trim(), 'Listed plate XYZ987 seen at Gate 1.');
    const basic = bySubject('Plate XYZ987 at Gate 1 (authenticated)');
    assert.equal(basic.from, 'nodered@site.example', 'from: the user id');
    assert.equal(basic.to, 'security@site.example', "to: the node's name field");
    assert.equal(basic.user, 'nodered@site.example', 'authtype BASIC: logged in with the user id');
    assert.equal(basic.text.trim(), 'Listed plate XYZ987 seen at Gate 1, sent with a login.');
    for (const mail of [none, basic]) {
      assert.equal(mail.attachments.length, 1, `one attachment in "${mail.subject}"`);
      const [attached] = mail.attachments;
      assert.equal(attached.filename, 'plate-XYZ987.jpg');
      assert.equal(attached.contentType, 'image/jpeg');
      assert.ok(attached.content.equals(JPEG), `the attachment's bytes are the JPEG's (${attached.content.length} of ${JPEG.length})`);
    }

    // Each of the four messages finished (done() without an error), none was caught.
    await until(
      () => comms.debug(ids.completed).length >= 4,
      20000,
      () => `4 messages finished, got ${JSON.stringify(comms.debug(ids.completed).map((d) => d.msg))}`,
    );
    assert.deepEqual(
      comms
        .debug(ids.completed)
        .map((d) => d.msg)
        .sort(),
      ['email-basic', 'email-none', 'telegram-message', 'telegram-photo'],
    );
    assert.deepEqual(caught(), [], 'no sender failed');

    // The sender passed each message on with the id of the message the API sent.
    await until(() => comms.debug(ids.sent).length >= 2, 10000, 'the sender passed both messages on');
    const passed = comms.debug(ids.sent).map((d) => (typeof d.msg === 'string' ? JSON.parse(d.msg) : d.msg));
    await until(() => photo.result && message.result, 10000, 'the API answered both');
    assert.deepEqual(passed.map((m) => [m.kind, m.payload.sentMessageId]).sort(), [
      ['telegram-message', message.result.message_id],
      ['telegram-photo', photo.result.message_id],
    ]);

    assert.deepEqual(nr.errorLines(), [], 'no error in the Node-RED log');
  });

  it('a recipient refused and a photo refused: each sender fails its message to Catch, the other two go', async () => {
    const mailsBefore = smtp.mails.length;
    const callsBefore = telegram.calls.length;
    const completedBefore = completed().length;
    smtp.failNext({ to: 'guard@site.example', code: 550, message: 'No such mailbox' });
    telegram.failNext('sendPhoto', 400, 'Bad Request: chat not found');
    const clicked = await request(`${nr.url}/inject/${ids.inject}`, { method: 'POST' });
    assert.equal(clicked.status, 200, 'the inject button');

    // Caught: the refused mail, and the refused photo twice (node-red-contrib-telegrambot 17.0.6 reports a
    // failed send with node.error() and again with done(error)).
    await until(
      () => caught().length >= 3,
      20000,
      () => `3 failures caught, got ${JSON.stringify(caught().map(([kind]) => kind))}`,
    );
    assert.deepEqual(
      caught()
        .map(([kind]) => kind)
        .sort(),
      ['email-none', 'telegram-photo', 'telegram-photo'],
    );
    for (const [kind, message] of caught()) {
      if (kind === 'email-none') assert.equal(message, "Error: Can't send mail - all recipients were rejected: 550 No such mailbox");
      else
        assert.match(message, /^Caught exception in sender node:\r\nError: ETELEGRAM: 400 Bad Request: chat not found\r\nwhen processing message: /);
    }
    assert.deepEqual(smtp.refused, [{ from: 'alerts@site.example', to: 'guard@site.example', code: 550, message: 'No such mailbox' }]);

    // The other two went: the authenticated mail, the text message.
    const mails = await smtp.until(mailsBefore + 1, 20000);
    assert.deepEqual(
      mails.slice(mailsBefore).map((m) => m.subject),
      ['Plate XYZ987 at Gate 1 (authenticated)'],
    );
    const calls = await telegram.until(callsBefore + 2, 20000);
    const now = calls.slice(callsBefore);
    assert.deepEqual(now.map((c) => c.method).sort(), ['sendMessage', 'sendPhoto']);
    const refusedPhoto = now.find((c) => c.method === 'sendPhoto');
    assert.ok(refusedPhoto.photo.equals(JPEG), 'the refused photo was sent whole');
    assert.equal(refusedPhoto.result, undefined, 'answered with an error');

    // Finished: the two that went, and (node-red-contrib-telegrambot 17.0.6) the refused photo too: its
    // sender calls done(error) and then done() for a file it could not send.
    await until(
      () => completed().length >= completedBefore + 3,
      20000,
      () => `3 more messages finished, got ${JSON.stringify(completed().slice(completedBefore))}`,
    );
    assert.deepEqual(completed().slice(completedBefore).sort(), ['email-basic', 'telegram-message', 'telegram-photo']);
    assert.deepEqual(nr.errorLines(), [], 'an error a Catch node handles is not logged');
  });
});
