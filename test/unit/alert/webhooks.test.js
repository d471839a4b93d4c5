'use strict';
/** lib/alert/webhooks.ts: ntfy, Pushover, Gotify, Slack and Teams as their documentation asks. */
const assert = require('node:assert/strict');
const {
  buildAlert,
  rfc2047,
  markdownText,
  slackText,
  TEAMS_MAX_BYTES,
  PUSHOVER_MAX_ATTACHMENT,
  NTFY_MESSAGE_MAX_BYTES,
} = require('../../../dist/lib/alert');

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const picture = (data = JPEG) => ({ data, filename: 'lpr_X_Close.jpg', contentType: 'image/jpeg' });
const notes = { unsupported: 'by URL only', tooLarge: 'too large' };
const input = (extra = {}) => ({
  subject: 'Plate XYZ987 at Gate 2',
  body: 'Plate: XYZ987\nCamera: Gate 2',
  picture: picture(),
  urgent: false,
  tags: ['VIP'],
  ...extra,
});
const build = (sender, extra, options = {}) => buildAlert(sender, input(extra), { notes, ...options });

/** RFC 2047 B words decoded as ntfy's server (Go's mime.WordDecoder) does: adjacent words joined without their space. */
function decode2047(value) {
  return value.replace(/=\?UTF-8\?B\?([^?]*)\?=(?:\s+(?==\?))?/g, (_, b64) => Buffer.from(b64, 'base64').toString('utf8'));
}

describe('alert web hooks', function () {
  it('no web hook sets msg.url (the URL, which holds the secret, stays in the http request node)', () => {
    for (const sender of ['ntfy', 'pushover', 'gotify', 'slack', 'teams']) {
      const built = build(sender, {}, { pushover: { token: 't', user: 'u' } });
      assert.equal('url' in built.props, false, sender);
      assert.equal(typeof built.props.headers, 'object', sender);
    }
  });

  describe('ntfy', function () {
    it('with a picture: the picture is the body, the text in headers', () => {
      const { props } = build('ntfy', { urgent: true });
      assert.equal(props.payload, JPEG);
      assert.deepEqual(props.headers, {
        Title: 'Plate XYZ987 at Gate 2',
        Tags: 'VIP',
        'X-Priority': 'high',
        Filename: 'lpr_X_Close.jpg',
        Message: rfc2047('Plate: XYZ987\nCamera: Gate 2'),
        'content-type': 'image/jpeg',
      });
      assert.equal(decode2047(props.headers.Message), 'Plate: XYZ987\nCamera: Gate 2', 'the new line survives, encoded');
    });

    it('without a picture: the text is the body; no X-Priority unless urgent', () => {
      const { props } = build('ntfy', { picture: null, tags: [] });
      assert.equal(props.payload, 'Plate: XYZ987\nCamera: Gate 2');
      assert.deepEqual(props.headers, { Title: 'Plate XYZ987 at Gate 2', 'content-type': 'text/plain; charset=utf-8' });
      const long = build('ntfy', { picture: null, body: 'ü'.repeat(5000) }).props.payload;
      assert.ok(Buffer.byteLength(long) <= NTFY_MESSAGE_MAX_BYTES);
    });

    it('header values that are not ASCII: RFC 2047 words of at most 75 characters, whole characters each', () => {
      const title = 'Kennzeichen XYZ987 an Einfahrt Süd — 車両 😀 '.repeat(3);
      const encoded = rfc2047(title);
      assert.match(encoded, /^[\x20-\x7e]+$/, 'printable ASCII only');
      for (const word of encoded.split(' ')) assert.ok(word.length <= 75, word);
      assert.equal(decode2047(encoded), title);
      assert.equal(rfc2047('plain ASCII'), 'plain ASCII');
      assert.match(rfc2047('a =?x?= b'), /^=\?UTF-8\?B\?/, 'text that looks encoded is encoded');
      const tags = build('ntfy', { tags: ['VIP', 'Bänned'] }).props.headers.Tags;
      assert.equal(tags.split(',').map(decode2047).join(','), 'VIP,Bänned');
    });
  });

  describe('Pushover', function () {
    it('form-encoded token, user, title, message, the picture as attachment_base64; urgent priority 1', () => {
      const { props } = build('pushover', { urgent: true }, { pushover: { token: 'tok', user: 'usr' } });
      assert.deepEqual(props.headers, { 'content-type': 'application/x-www-form-urlencoded' });
      assert.deepEqual(props.payload, {
        token: 'tok',
        user: 'usr',
        title: 'Plate XYZ987 at Gate 2',
        message: 'Plate: XYZ987\nCamera: Gate 2',
        priority: 1,
        attachment_base64: JPEG.toString('base64'),
        attachment_type: 'image/jpeg',
      });
    });

    it('message 1,024 characters, title 250; a picture over 5 MB is left out and said', () => {
      const built = build(
        'pushover',
        { subject: 't'.repeat(300), body: 'b'.repeat(2000), picture: picture(Buffer.alloc(PUSHOVER_MAX_ATTACHMENT + 1)) },
        { pushover: { token: 'a', user: 'b' } },
      );
      assert.equal(built.props.payload.title.length, 250);
      assert.equal(built.props.payload.message.length, 1024);
      assert.equal(built.props.payload.attachment_base64, undefined);
      assert.equal(built.dropped, 'too-large');
      assert.equal(built.picture, null);
      const small = build('pushover', { picture: picture(Buffer.alloc(PUSHOVER_MAX_ATTACHMENT)) }, { pushover: { token: 'a', user: 'b' } });
      assert.equal(small.dropped, undefined, 'exactly 5 MB is taken');
      assert.equal('priority' in small.props.payload, false);
    });
  });

  describe('Gotify', function () {
    it('JSON title, Markdown message with the picture as a data URL, priority 5, urgent 8', () => {
      const { props } = build('gotify', { body: 'Person: *John* [x](y)\n- Banned' });
      assert.deepEqual(props.headers, { 'content-type': 'application/json' });
      assert.equal(props.payload.title, 'Plate XYZ987 at Gate 2');
      assert.equal(props.payload.priority, 5);
      assert.deepEqual(props.payload.extras, { 'client::display': { contentType: 'text/markdown' } });
      const lines = props.payload.message.split('  \n');
      assert.deepEqual(lines.slice(0, 2), ['Person: \\*John\\* \\[x\\]\\(y\\)', '\\- Banned'], "the event's text cannot format");
      assert.equal(lines[3], `![lpr\\_X\\_Close.jpg](data:image/jpeg;base64,${JPEG.toString('base64')})`);
      assert.equal(build('gotify', { urgent: true }).props.payload.priority, 8);
      assert.equal(markdownText('1. one'), '1\\. one');
    });
  });

  describe('Slack', function () {
    it('a header and a mrkdwn section, &<> escaped, the fallback text; no picture, said', () => {
      const built = build('slack', { subject: 'A & B', body: 'x <!channel> y' });
      assert.deepEqual(built.props.payload, {
        text: 'A &amp; B\nx &lt;!channel&gt; y\nby URL only',
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: 'A & B' } },
          { type: 'section', text: { type: 'mrkdwn', text: 'x &lt;!channel&gt; y\nby URL only' } },
        ],
      });
      assert.equal(built.picture, null);
      assert.equal(slackText('&'), '&amp;');
      const long = build('slack', { subject: 's'.repeat(200), body: 'b'.repeat(4000), picture: null }).props.payload.blocks;
      assert.equal(long[0].text.text.length, 150);
      assert.equal(long[1].text.text.length, 3000);
    });
  });

  describe('Microsoft Teams', function () {
    it('an Adaptive Card message; a small picture as a data URL image; urgent title in Attention', () => {
      const { props, picture: attached } = build('teams', { urgent: true });
      assert.equal(props.payload.type, 'message');
      const [attachment] = props.payload.attachments;
      assert.equal(attachment.contentType, 'application/vnd.microsoft.card.adaptive');
      assert.equal(attachment.content.type, 'AdaptiveCard');
      const body = attachment.content.body;
      assert.deepEqual(body[0], {
        type: 'TextBlock',
        text: 'Plate XYZ987 at Gate 2',
        size: 'Large',
        weight: 'Bolder',
        wrap: true,
        color: 'Attention',
      });
      assert.deepEqual(
        body.slice(1, 3).map((b) => b.text),
        ['Plate: XYZ987', 'Camera: Gate 2'],
      );
      assert.deepEqual(body[3], { type: 'Image', url: `data:image/jpeg;base64,${JPEG.toString('base64')}`, altText: 'lpr_X_Close.jpg' });
      assert.ok(attached);
      assert.equal(build('teams').props.payload.attachments[0].content.body[0].color, undefined);
    });

    it("a picture that would take the message past Teams' limit is left out and said", () => {
      const big = build('teams', { picture: picture(Buffer.alloc(20 * 1024, 1)) });
      assert.equal(big.dropped, 'too-large');
      const body = big.props.payload.attachments[0].content.body;
      assert.equal(
        body.some((b) => b.type === 'Image'),
        false,
      );
      assert.equal(body[body.length - 1].text, 'too large');
      const fits = build('teams', { picture: picture(Buffer.alloc(10 * 1024, 1)) });
      assert.ok(Buffer.byteLength(JSON.stringify(fits.props.payload)) <= TEAMS_MAX_BYTES);
      assert.ok(fits.picture);
    });
  });
});
