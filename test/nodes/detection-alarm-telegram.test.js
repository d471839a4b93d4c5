'use strict';
const { createHash } = require('node:crypto');
/**
 * detection-alarm's Telegram buttons through the real nodes of
 * node-red-contrib-telegrambot (the dev dependency), wired as users wire
 * them: detection-alarm notify → detection-alert (Telegram) → telegram
 * sender; telegram event (callback_query) → detection-alarm → the same
 * sender (output 5). The bot's "Bot API URL" points at a fake Telegram Bot
 * API on 127.0.0.1 (test/support/telegram-bot-api.js), which long-polls
 * updates to the bot and keeps what was sent and edited. A fake clock drives
 * the alarm node (its reminders); the bot runs on real time.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { getHelper, translatedModule, until } = require('../support');
const { FakeClock } = require('../support/fake-clock');
const { TelegramBotApi } = require('../support/telegram-bot-api');
const ev = require('../fixtures/events');

const helper = getHelper();
/** The book part of the alarm node `al`'s buttons: 8 hex digits of SHA-256 of its id. */
const BOOK = createHash('sha256').update('al').digest('hex').slice(0, 8);
const telegrambot = require('node-red-contrib-telegrambot/telegrambot/99-telegrambot.js');

const TOKEN = '7000000003:AAFakeTokenForTheAlarmTestOnly';
const CHAT_ID = 616161;
const MIN = 60_000;
const T0 = Date.parse('2026-03-01T22:00:00.000Z');
const ANNA = { id: 4242, first_name: 'Anna', last_name: 'Berg', username: 'anna_b' };
const BOB = { id: 4343, first_name: 'Bob' };

/** A plate event at Gate 1; with a picture (a photo is sent) or without (a text). */
function plateEvent(plate, picture = true) {
  const e = ev.fullLpr();
  e.payload.lprPlateInfo.plate = plate;
  e.payload.detectionInfo.detectorName = 'Gate 1';
  e.payload.detectionImages = picture ? [{ cropSizeName: 'Close', image: ev.jpegBase64(2048, 1) }] : [];
  return e;
}

/** `ms` on the runtime's clock as the edit says it (HH:MM: the same day as the fake clock). */
const hhmm = (ms) => new Date(ms).toTimeString().slice(0, 5);

function flow(apiUrl) {
  return [
    { id: 'f1', type: 'tab', label: 'alarm by Telegram' },
    {
      id: 'bot',
      type: 'telegram bot',
      botname: 'detection_alarm_bot',
      usernames: '',
      chatids: '',
      baseapiurl: apiUrl,
      testenvironment: false,
      updatemode: 'polling',
      pollinterval: 300,
      addressfamily: '',
      usesocks: false,
      verboselogging: false,
    },
    { id: 'buttons', type: 'telegram event', z: 'f1', name: '', bot: 'bot', event: 'callback_query', autoanswer: false, wires: [['al']] },
    {
      id: 'al',
      type: 'detection-alarm',
      z: 'f1',
      name: '',
      remind: 5,
      remindUnits: 'm',
      maxReminders: 2,
      escalate: 0,
      snoozeFor: 1,
      snoozeUnits: 'h',
      linkBase: 'https://alarms.example.com',
      wires: [['alert'], [], ['changes'], [], ['send']],
    },
    { id: 'alert', type: 'detection-alert', z: 'f1', name: '', sender: 'telegram', chatId: String(CHAT_ID), wires: [['send']] },
    { id: 'send', type: 'telegram sender', z: 'f1', name: '', bot: 'bot', haserroroutput: false, outputs: 1, wires: [['sent']] },
    { id: 'changes', type: 'helper', z: 'f1' },
    { id: 'sent', type: 'helper', z: 'f1' },
    { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper', z: 'f1' },
  ];
}

describe('detection-alarm: Telegram buttons through node-red-contrib-telegrambot', function () {
  this.timeout(30_000);
  let telegram;
  let clock;
  let userDir;
  let got;

  beforeEach(async () => {
    telegram = await TelegramBotApi.start({ token: TOKEN });
    clock = new FakeClock(T0);
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'alarm-telegram-'));
    helper.settings({ detectionBridgeClock: clock, userDir });
    await helper.startServer();
    await helper.load([translatedModule('detection-alarm'), translatedModule('detection-alert'), telegrambot], flow(telegram.url), {
      bot: { token: TOKEN },
    });
    got = { changes: [], sent: [], caught: [] };
    for (const id of Object.keys(got)) helper.getNode(id).on('input', (m) => got[id].push(m));
    // the bot polls before a button is pressed, as it does once deployed
    await telegram.until(1, 10_000, 'getUpdates');
  });
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    helper.settings({});
    await telegram.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  const opened = () => until(() => got.changes.find((m) => m.topic === 'opened'), 5000, 'the alarm opened').then((m) => m.alarm);
  const change = (topic, n = 1) =>
    until(
      () => got.changes.filter((m) => m.topic === topic)[n - 1],
      10_000,
      () =>
        `change ${topic} #${n} (changes: ${got.changes.map((m) => m.topic).join(', ')}; errors: ${JSON.stringify(got.caught.map((m) => m.error))})`,
    );

  it('the photo carries Acknowledge and Snooze; a press acknowledges, is answered, and the photo loses its buttons; a press on the reminder is told who did', async () => {
    helper.getNode('al').receive({ payload: plateEvent('8OB123') });
    const { id } = await opened();
    const [photo] = await telegram.until(1, 10_000, 'sendPhoto');
    assert.equal(photo.chatId, String(CHAT_ID));
    assert.deepEqual(photo.replyMarkup, {
      inline_keyboard: [
        [
          { text: 'Acknowledge', callback_data: `alarm:ack:${id}:${BOOK}` },
          { text: 'Snooze 1 h', callback_data: `alarm:snooze:${id}:${BOOK}` },
        ],
      ],
    });
    assert.match(photo.caption, /^Plate 8OB123 at Gate 1\n\nPlate: 8OB123\n/);
    assert.match(photo.caption, new RegExp(`\\nAcknowledge or snooze: https://alarms\\.example\\.com/detection-alarm/al/${id}\\.\\S+$`));

    // five minutes unanswered: a reminder, its own photo with the same buttons
    await clock.advance(5 * MIN);
    const [, reminder] = await telegram.until(2, 10_000, 'sendPhoto');
    assert.match(
      reminder.caption,
      new RegExp(`^Reminder: Plate 8OB123 at Gate 1\\n\\nReminder 1 of 2: alarm ${id} not acknowledged for 5 min \\(1 reads\\)\\.\\n`),
    );
    assert.deepEqual(reminder.replyMarkup, photo.replyMarkup);

    await clock.advance(1 * MIN);
    const press = await telegram.pressButton(photo.result, `alarm:ack:${id}:${BOOK}`, ANNA);
    const acked = await change('acknowledged');
    assert.deepEqual(
      [acked.alarm.id, acked.alarm.state, acked.alarm.ackBy, acked.alarm.by, acked.alarm.via],
      [id, 'acknowledged', 'Anna Berg (@anna_b)', 'Anna Berg (@anna_b)', 'telegram'],
    );
    const [answer] = await telegram.until(1, 10_000, 'answerCallbackQuery');
    assert.deepEqual([answer.params.callback_query_id, answer.params.text], [press.callback_query.id, 'Acknowledged']);
    const [edit] = await telegram.until(1, 10_000, 'editMessageCaption');
    assert.deepEqual([edit.chatId, edit.params.message_id], [String(CHAT_ID), String(photo.result.message_id)]);
    const line = `✅ Acknowledged by Anna Berg (@anna_b), ${hhmm(T0 + 6 * MIN)}`;
    assert.equal(edit.caption, `${photo.caption}\n\n${line}`);
    assert.ok(edit.result, `the edit was taken (${JSON.stringify(telegram.calls.filter((c) => c.method === 'editMessageCaption').length)})`);
    assert.equal(edit.result.reply_markup, undefined, 'the photo has no buttons any more');
    assert.equal(edit.result.caption, `${photo.caption}\n\n${line}`);

    // Bob presses Acknowledge under the reminder, sent before Anna answered
    await clock.advance(1 * MIN);
    const second = await telegram.pressButton(reminder.result, `alarm:ack:${id}:${BOOK}`, BOB);
    const answers = await telegram.until(2, 10_000, 'answerCallbackQuery');
    assert.deepEqual(
      [answers[1].params.callback_query_id, answers[1].params.text],
      [second.callback_query.id, `Already acknowledged by Anna Berg (@anna_b), ${hhmm(T0 + 6 * MIN)}`],
    );
    const edits = await telegram.until(2, 10_000, 'editMessageCaption');
    assert.equal(edits[1].params.message_id, String(reminder.result.message_id));
    assert.equal(edits[1].result.caption, `${reminder.caption}\n\n${line}`, 'the reminder says who acknowledged, and when');
    assert.equal(edits[1].result.reply_markup, undefined);
    assert.equal(got.changes.filter((m) => m.topic === 'acknowledged').length, 1, 'acknowledged once, by Anna');
    assert.equal(got.caught.length, 0, JSON.stringify(got.caught.map((m) => m.error)));
  });

  it('Snooze under a text alert: snoozed for the button’s hour, answered, and the text edited; the next read is held', async () => {
    helper.getNode('al').receive({ payload: plateEvent('KX42LP', false) });
    const { id } = await opened();
    const [text] = await telegram.until(1, 10_000, 'sendMessage');
    assert.deepEqual(
      text.replyMarkup.inline_keyboard[0].map((b) => b.callback_data),
      [`alarm:ack:${id}:${BOOK}`, `alarm:snooze:${id}:${BOOK}`],
    );

    await clock.advance(2 * MIN);
    await telegram.pressButton(text.result, `alarm:snooze:${id}:${BOOK}`, BOB);
    const snoozed = await change('snoozed');
    assert.deepEqual([snoozed.alarm.by, snoozed.alarm.via, snoozed.alarm.snooze.until], ['Bob', 'telegram', new Date(T0 + 62 * MIN).toISOString()]);
    const [answer] = await telegram.until(1, 10_000, 'answerCallbackQuery');
    assert.equal(answer.params.text, 'Snoozed 1 h');
    const [edit] = await telegram.until(1, 10_000, 'editMessageText');
    assert.equal(edit.result.text, `${text.text}\n\n💤 Snoozed 1 h by Bob (until ${hhmm(T0 + 62 * MIN)})`);
    assert.equal(edit.result.reply_markup, undefined);

    helper.getNode('al').receive({ payload: plateEvent('KX42LP', false) });
    const held = await until(() => got.changes.find((m) => m.alarm.change === 'held'), 5000, 'the next read held');
    assert.equal(held.alarm.held, 'snoozed');
    assert.equal(telegram.calls.filter((c) => c.method === 'sendMessage').length, 1, 'nothing more was sent');
    assert.equal(got.caught.length, 0, JSON.stringify(got.caught.map((m) => m.error)));
  });

  it('a callback that is not an alarm button is no action: it reaches Catch as the event it is not', async () => {
    helper.getNode('al').receive({ payload: plateEvent('ZZ1234', false) });
    const [text] = await telegram.until(1, 10_000, 'sendMessage');
    await telegram.pressButton(text.result, 'menu:open', ANNA);
    const caught = await until(() => got.caught[0], 10_000, 'the Catch node');
    assert.equal(caught.error.code, 'NOT_A_DETECTION');
    assert.equal(caught.payload.content, 'menu:open');
    assert.equal(telegram.calls.filter((c) => c.method === 'answerCallbackQuery').length, 0);
  });

  it('a button of another alarm node’s book is left to that node: no answer, no edit, no error here', async () => {
    helper.getNode('al').receive({ payload: plateEvent('YY9876', false) });
    const { id } = await opened();
    const [text] = await telegram.until(1, 10_000, 'sendMessage');
    const other = createHash('sha256').update('another-alarm-node').digest('hex').slice(0, 8);
    await telegram.pressButton(text.result, `alarm:ack:${id}:${other}`, ANNA);
    // then this node's own button: its answer comes after the other was passed over
    const own = await telegram.pressButton(text.result, `alarm:ack:${id}:${BOOK}`, BOB);
    const answers = await telegram.until(1, 10_000, 'answerCallbackQuery');
    assert.equal(answers[0].params.callback_query_id, own.callback_query.id, 'the first answer is to the press of this node’s button');
    assert.equal((await change('acknowledged')).alarm.by, 'Bob', 'Anna’s press of the other book’s button acknowledged nothing');
    assert.equal(got.caught.length, 0, JSON.stringify(got.caught.map((m) => m.error)));
  });
});
