'use strict';
/**
 * lib/alert/alarm-notice.ts: msg.alarm read leniently (what cannot be used is
 * left out, never an error), and Telegram's limit on a button's data.
 */
const assert = require('node:assert/strict');
const { readAlarmNotice, isRepeatNotice, CALLBACK_DATA_MAX_BYTES } = require('../../../dist/lib/alert');

describe('alert: msg.alarm', function () {
  it('keeps the sentence, the link, the buttons and a summary’s subject', () => {
    const read = readAlarmNotice({
      id: 'k7m2qx9d',
      notice: 'reminder',
      text: 'Reminder 1 of 3',
      link: 'https://alarms.example.com/p/k7m2qx9d.x',
      buttons: [{ action: 'ack', text: 'Acknowledge', data: 'alarm:ack:k7m2qx9d' }],
      subject: 'Alarm: 8OB123',
    });
    assert.deepEqual(read, {
      notice: 'reminder',
      text: 'Reminder 1 of 3',
      link: 'https://alarms.example.com/p/k7m2qx9d.x',
      buttons: [{ text: 'Acknowledge', data: 'alarm:ack:k7m2qx9d' }],
      subject: 'Alarm: 8OB123',
    });
    assert.equal(isRepeatNotice(read), true);
    assert.equal(isRepeatNotice({ notice: 'opened' }), false);
  });

  it('leaves out what is not the alarm node’s: a link that is no web address, buttons Telegram would refuse', () => {
    const tooLong = 'x'.repeat(CALLBACK_DATA_MAX_BYTES + 1);
    const read = readAlarmNotice({ notice: 'opened', text: 42, link: 'javascript:alert(1)', buttons: [{ text: 'A', data: tooLong }] });
    assert.deepEqual([read.notice, read.text, read.link, read.buttons, read.subject], ['opened', undefined, undefined, undefined, undefined]);
    assert.equal(readAlarmNotice({ buttons: [{ text: ' ', data: 'a' }] }).buttons, undefined, 'a button needs a text');
    assert.equal(readAlarmNotice({ buttons: [{ text: 'Ä', data: 'é'.repeat(32) }] }).buttons.length, 1, '64 bytes of UTF-8 fit');
    assert.equal(readAlarmNotice({ buttons: [{ text: 'Ä', data: 'é'.repeat(33) }] }).buttons, undefined, '66 bytes do not');
  });

  it('no object: no notice', () => {
    for (const value of [undefined, null, 'alarm', 3, ['a']]) assert.equal(readAlarmNotice(value), undefined);
  });
});
