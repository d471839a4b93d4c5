'use strict';
/**
 * lib/alert/senders.ts: e-mail and Telegram as their senders read them
 * (node-red-node-email 61-email.js, node-red-contrib-telegrambot out-node.js),
 * the limits, urgent, and the picture left out with a note.
 */
const assert = require('node:assert/strict');
const { buildAlert, cut, cutBytes, emailText, telegramChatId, ALERT_SENDERS } = require('../../../dist/lib/alert');
const { optionRule } = require('../../../dist/lib/config/node-options');

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const picture = (data = JPEG) => ({ data, filename: 'lpr_X_Close.jpg', contentType: 'image/jpeg' });
const notes = { unsupported: 'NOTE: by URL only', tooLarge: 'NOTE: too large' };
const input = (extra = {}) => ({
  subject: 'Plate XYZ987 at Gate 2',
  body: 'Plate: XYZ987\nCamera: Gate 2',
  picture: picture(),
  urgent: false,
  tags: [],
  ...extra,
});

describe('alert senders', function () {
  it("the node's option offers exactly lib's senders, e-mail first", () => {
    const rule = optionRule('detection-alert', 'sender');
    assert.deepEqual([...rule.choices], [...ALERT_SENDERS]);
    assert.equal(rule.default, 'email');
    const image = (name) => optionRule('detection-image', name);
    for (const name of ['faceImage', 'faceFallback'])
      assert.deepEqual(optionRule('detection-alert', name), image(name), `${name}: detection image's rule`);
  });

  describe('e-mail', function () {
    it('subject in topic, plain text in payload, the picture as a nodemailer attachment', () => {
      const built = buildAlert('email', input(), { notes });
      assert.deepEqual(built.props, {
        topic: 'Plate XYZ987 at Gate 2',
        payload: 'Plate: XYZ987\nCamera: Gate 2',
        attachments: [{ filename: 'lpr_X_Close.jpg', content: JPEG, contentType: 'image/jpeg' }],
      });
      assert.equal(built.props.attachments[0].content, JPEG, 'the Buffer itself, not a copy');
      assert.equal(built.picture.filename, 'lpr_X_Close.jpg');
      assert.equal(
        'to' in built.props || 'from' in built.props || 'priority' in built.props,
        false,
        'no msg.to, msg.from without them; no priority unless urgent',
      );
    });

    it('To and From when typed; urgent is nodemailer priority high; no picture deletes a stale msg.attachments', () => {
      const built = buildAlert('email', input({ picture: null, urgent: true }), { to: 'a@example.com', from: 'alerts@example.com', notes });
      assert.equal(built.props.to, 'a@example.com');
      assert.equal(built.props.from, 'alerts@example.com', 'From when typed: a relay without login needs msg.from');
      assert.equal(built.props.priority, 'high');
      assert.ok('attachments' in built.props && built.props.attachments === undefined);
      assert.equal(built.picture, null);
    });

    it('a text the e-mail node would take for HTML stays text', () => {
      assert.equal(emailText('Name: <John> Doe'), 'Name: ‹John> Doe');
      assert.equal(/<[a-z][\s\S]*>/i.test(emailText('a <b> c <i>')), false);
      assert.equal(emailText('1 < 2 > 0'), '1 < 2 > 0', 'no tag-like text: unchanged');
    });
  });

  describe('Telegram', function () {
    it('with a picture: a photo, the caption subject, blank line, body; a number chat id as a number', () => {
      const built = buildAlert('telegram', input(), { chatId: '-1001234567890', notes });
      assert.deepEqual(built.props.payload, {
        chatId: -1001234567890,
        type: 'photo',
        content: JPEG,
        caption: 'Plate XYZ987 at Gate 2\n\nPlate: XYZ987\nCamera: Gate 2',
        options: {},
        fileOptions: { filename: 'lpr_X_Close.jpg', contentType: 'image/jpeg' },
      });
    });

    it('without a picture: a text message; @channel stays text', () => {
      const built = buildAlert('telegram', input({ picture: null }), { chatId: '@alerts', notes });
      assert.deepEqual(built.props.payload, {
        chatId: '@alerts',
        type: 'message',
        content: 'Plate XYZ987 at Gate 2\n\nPlate: XYZ987\nCamera: Gate 2',
        options: {},
      });
      assert.equal(telegramChatId(42), 42);
      assert.equal(telegramChatId(' 12 '), 12);
      assert.equal(telegramChatId(''), undefined);
    });

    it('caption at most 1,024 characters, text at most 4,096, cut with …', () => {
      const long = 'x'.repeat(5000);
      const photo = buildAlert('telegram', input({ body: long }), { chatId: '1', notes }).props.payload;
      assert.equal(photo.caption.length, 1024);
      assert.ok(photo.caption.endsWith('x…'));
      const text = buildAlert('telegram', input({ body: long, picture: null }), { chatId: '1', notes }).props.payload;
      assert.equal(text.content.length, 4096);
      assert.ok(text.content.endsWith('…'));
    });
  });

  it('cut never splits a character; cutBytes counts UTF-8', () => {
    assert.equal(cut('abc', 3), 'abc');
    assert.equal(cut('abcd', 3), 'ab…');
    assert.equal(cut('a😀b', 3), 'a…', 'the pair is not split');
    assert.equal(cutBytes('ääää', 8), 'ääää', 'fits: as it is');
    assert.equal(cutBytes('ääää', 7), 'ää…');
    assert.ok(Buffer.byteLength(cutBytes('ä'.repeat(3000), 4096)) <= 4096);
    assert.equal(cutBytes('abc', 3), 'abc');
  });

  it('a sender that cannot take the picture: left out, the note the last line of the body', () => {
    const slack = buildAlert('slack', input(), { notes });
    assert.equal(slack.picture, null);
    assert.equal(slack.dropped, 'unsupported');
    assert.equal(slack.body, 'Plate: XYZ987\nCamera: Gate 2\nNOTE: by URL only');
    assert.match(slack.props.payload.blocks[1].text.text, /NOTE: by URL only$/);
    const none = buildAlert('slack', input({ picture: null }), { notes });
    assert.equal(none.dropped, undefined, 'no picture to leave out: no note');
    assert.equal(none.body, 'Plate: XYZ987\nCamera: Gate 2');
  });
});
