/**
 * Alerts for web hooks, each ready for Node-RED's http request node
 * (msg.payload and msg.headers; never msg.url: the service's URL carries the
 * user's secret, so it stays typed in the http request node). Each format
 * follows the service's own documentation, named at each function.
 */
import type { AlertPicture } from './picture';
import { cut, cutBytes, withLinkLine, type AlertInput, type AlertLink } from './text';

type Props = Record<string, unknown>;

// ---------------------------------------------------------------- ntfy

/** ntfy's message limit: 4,096 bytes (docs.ntfy.sh/publish, "Limitations"). */
export const NTFY_MESSAGE_MAX_BYTES = 4096;

/** Printable ASCII without `=?`, which needs no encoding in a header. */
const PLAIN_HEADER = /^[\x20-\x7e]*$/;

/**
 * A header value as RFC 2047 encoded-words (`=?UTF-8?B?…?=`) when it holds
 * anything but printable ASCII (Node's HTTP client refuses such header
 * values). Each word holds whole characters, at most 45 bytes (75 characters
 * a word, RFC 2047 section 2); words are separated by a space, which a
 * decoder drops between adjacent words (section 6.2).
 */
export function rfc2047(value: string): string {
  if (PLAIN_HEADER.test(value) && !value.includes('=?')) return value;
  const words: string[] = [];
  let chunk = '';
  for (const char of value) {
    if (Buffer.byteLength(chunk + char) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  if (chunk !== '') words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word).toString('base64')}?=`).join(' ');
}

/**
 * ntfy (docs.ntfy.sh/publish): one request to the topic's URL, POST or PUT.
 * With a picture, the picture is the body ("Attach local file": the body
 * with a Filename header) and the text goes in the Message header; without,
 * the text is the body. Title, Tags, X-Priority and Message are headers, each
 * RFC 2047-encoded where it is not ASCII, as ntfy documents for any header
 * ("List of all parameters"; the server decodes every header it reads).
 * Urgent: X-Priority high (4). The JSON form is not used: it must go to the
 * server's root URL and takes a picture only by URL. An alarm's link is a
 * view action ("Action buttons": header `Actions: view, <label>, <url>`),
 * a button under the notification, not a line of text.
 */
export function ntfyMessage(input: AlertInput): Props {
  const headers: Record<string, string> = {};
  if (input.subject !== '') headers.Title = rfc2047(input.subject);
  const tags = input.tags.map((tag) => rfc2047(tag.replace(/,/g, ' '))).join(',');
  if (tags !== '') headers.Tags = tags;
  // X-Priority, not its alias Priority: proxies (Cloudflare) set an HTTP Priority header of their own (RFC 9218), which ntfy ignores
  if (input.urgent) headers['X-Priority'] = 'high';
  // the label quoted: a comma or semicolon in it would split the action
  if (input.link) headers.Actions = rfc2047(`view, "${input.link.label.replace(/"/g, "'")}", ${input.link.url}`);
  const message = cutBytes(input.body, NTFY_MESSAGE_MAX_BYTES);
  if (input.picture) {
    headers.Filename = rfc2047(input.picture.filename);
    if (message !== '') headers.Message = rfc2047(message);
    headers['content-type'] = input.picture.contentType;
    return { payload: input.picture.data, headers };
  }
  headers['content-type'] = 'text/plain; charset=utf-8';
  return { payload: message, headers };
}

// ---------------------------------------------------------------- Pushover

/** Pushover's limits (pushover.net/api): message 1,024 characters, title 250, attachment 5,242,880 bytes. */
export const PUSHOVER_MESSAGE_MAX = 1024;
export const PUSHOVER_TITLE_MAX = 250;
export const PUSHOVER_MAX_ATTACHMENT = 5_242_880;
export const PUSHOVER_URL_MAX = 512;
export const PUSHOVER_URL_TITLE_MAX = 100;

/**
 * Pushover (pushover.net/api): POST to https://api.pushover.net/1/messages.json
 * with the parameters token, user, title, message, priority, and the picture
 * as attachment_base64 with attachment_type ("Attachments - Base64"). Sent
 * form-encoded: the http request node encodes an object payload so when
 * msg.headers' content-type says application/x-www-form-urlencoded. The
 * token and the user key are the node's credentials; the API takes them in
 * the body only. Urgent: priority 1 (high, past the user's quiet hours).
 * An alarm's link is the message's supplementary URL (url, url_title: at
 * most 512 and 100 characters, "Supplementary URLs").
 */
export function pushoverMessage(input: AlertInput, keys: { token: string; user: string }): Props {
  const payload: Record<string, string | number> = {
    token: keys.token,
    user: keys.user,
    message: cut(input.body === '' ? input.subject : input.body, PUSHOVER_MESSAGE_MAX),
  };
  if (input.subject !== '') payload.title = cut(input.subject, PUSHOVER_TITLE_MAX);
  if (input.urgent) payload.priority = 1;
  if (input.link && input.link.url.length <= PUSHOVER_URL_MAX) {
    payload.url = input.link.url;
    payload.url_title = cut(input.link.label, PUSHOVER_URL_TITLE_MAX);
  } else if (input.link) payload.message = withLinkLine(input.body === '' ? input.subject : input.body, PUSHOVER_MESSAGE_MAX, input.link);
  if (input.picture) {
    payload.attachment_base64 = input.picture.data.toString('base64');
    payload.attachment_type = input.picture.contentType;
  }
  return { payload, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
}

// ---------------------------------------------------------------- Gotify

/** Markdown's punctuation, escaped where it would format an event's text (CommonMark: any ASCII punctuation may be escaped). */
export function markdownText(text: string): string {
  return text
    .replace(/[\\`*_[\]()<>#!|~{}]/g, '\\$&')
    .replace(/^(\s*)([-+=]|\d+[.)])/gm, (_, space: string, mark: string) => `${space}${mark.replace(/([-+=.)])$/, '\\$1')}`);
}

/**
 * Gotify (gotify.net/docs/pushmsg, msgextras, priority): POST /message
 * with JSON { title, message, priority, extras }; the application token goes
 * in the http request node's URL (?token=) or its X-Gotify-Key header. The
 * message is Markdown (extras client::display contentType text/markdown),
 * the event's text escaped, each line a hard break, the picture a data URL
 * image at the end. Priority 5 (the Android app sounds), urgent 8 (and
 * vibrates). An alarm's link is a Markdown link after the text, and what a
 * tap on the notification opens (extras client::notification click.url).
 */
export function gotifyMessage(input: AlertInput): Props {
  const lines = input.body === '' ? [] : input.body.split('\n').map(markdownText);
  if (input.link) lines.push(`[${markdownText(input.link.label)}](${linkTarget(input.link.url)})`);
  if (input.picture) lines.push('', `![${markdownText(input.picture.filename)}](${dataUrl(input.picture)})`);
  return {
    payload: {
      title: input.subject,
      message: lines.join('  \n'),
      priority: input.urgent ? 8 : 5,
      extras: {
        'client::display': { contentType: 'text/markdown' },
        ...(input.link ? { 'client::notification': { click: { url: input.link.url } } } : {}),
      },
    },
    headers: { 'content-type': 'application/json' },
  };
}

/** A URL as a Markdown link's destination: the characters that would end it percent-encoded. */
function linkTarget(url: string): string {
  return url.replace(/[\s()<>]/g, (c) => encodeURIComponent(c));
}

function dataUrl(picture: AlertPicture): string {
  return `data:${picture.contentType};base64,${picture.data.toString('base64')}`;
}

// ---------------------------------------------------------------- Slack

/** Slack's Block Kit limits (docs.slack.dev/reference/block-kit/blocks): header text 150 characters, section text 3,000. */
export const SLACK_HEADER_MAX = 150;
export const SLACK_SECTION_MAX = 3000;

/** &, < and > escaped, as Slack asks of text not meant as its markup (api.slack.com/reference/surfaces/formatting#escaping). */
export function slackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Slack incoming webhook: JSON { text, blocks }, a header block with the
 * subject (docs.slack.dev/reference/block-kit/blocks/header-block), a
 * section with the body (.../section-block); with blocks, text is what
 * notifications show. Slack takes a picture by URL only
 * (image blocks), so none is sent. Slack has no priority. An alarm's link is
 * the section's last line, a link in Slack's markup (`<url|label>`).
 */
export function slackMessage(input: AlertInput): Props {
  const blocks: unknown[] = [];
  if (input.subject !== '') blocks.push({ type: 'header', text: { type: 'plain_text', text: cut(input.subject, SLACK_HEADER_MAX) } });
  const link = input.link ? { ...input.link, line: `<${input.link.url}|${slackText(input.link.label.replace(/\|/g, '/'))}>` } : undefined;
  const section = withLinkLine(slackText(input.body), SLACK_SECTION_MAX, link);
  if (section !== '') blocks.push({ type: 'section', text: { type: 'mrkdwn', text: section } });
  const text = slackText([input.subject, input.body, input.link?.line ?? ''].filter((part) => part !== '').join('\n'));
  return { payload: { text, blocks }, headers: { 'content-type': 'application/json' } };
}

// ---------------------------------------------------------------- Microsoft Teams

/**
 * Teams refuses a message over about 28 KB (learn.microsoft.com, "Create
 * Incoming Webhooks" and the Teams connector's known issues: "Request Entity
 * too large"). The workflow wraps the card in its own message: 2 KB are left
 * for that.
 */
export const TEAMS_MAX_BYTES = 26 * 1024;

function teamsCard(subject: string, body: string, picture: AlertPicture | null, urgent: boolean, link?: AlertLink): Props {
  const elements: unknown[] = [];
  if (subject !== '')
    elements.push({ type: 'TextBlock', text: subject, size: 'Large', weight: 'Bolder', wrap: true, ...(urgent ? { color: 'Attention' } : {}) });
  for (const line of body === '' ? [] : body.split('\n'))
    elements.push({ type: 'TextBlock', text: line === '' ? ' ' : line, wrap: true, spacing: 'None' });
  // Adaptive Cards take a data URI as an Image's url since version 1.2.
  if (picture) elements.push({ type: 'Image', url: dataUrl(picture), altText: picture.filename });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: elements,
          ...(link ? { actions: [{ type: 'Action.OpenUrl', title: link.label, url: link.url }] } : {}),
        },
      },
    ],
  };
}

/** Whether the card with `picture` stays within Teams' message size. */
export function teamsTakes(subject: string, body: string, picture: AlertPicture, urgent: boolean, link?: AlertLink): boolean {
  // base64 is 4/3 of the bytes: a large picture is refused before it is encoded
  if (Math.ceil(picture.data.length / 3) * 4 > TEAMS_MAX_BYTES) return false;
  return Buffer.byteLength(JSON.stringify(teamsCard(subject, body, picture, urgent, link))) <= TEAMS_MAX_BYTES;
}

/**
 * Microsoft Teams through a Workflows webhook ("When a Teams webhook request
 * is received", learn.microsoft.com .../connectors-using: Workflows take
 * Adaptive Cards only): JSON { type: 'message', attachments: [an Adaptive
 * Card] }, the subject in large bold (red when urgent: Teams has no
 * priority), each line of the body a text block, the picture a data URL image
 * when the whole fits (teamsTakes; else left out and said by the caller), an
 * alarm's link a button under the card (Action.OpenUrl).
 */
export function teamsMessage(input: AlertInput): Props {
  return { payload: teamsCard(input.subject, input.body, input.picture, input.urgent, input.link), headers: { 'content-type': 'application/json' } };
}
