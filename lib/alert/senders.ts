/**
 * The message each common sender takes, built from an alert's subject, body
 * and picture. The properties returned are set on the flow's message (the
 * event in msg.payload is replaced; nothing else of the message changes but
 * what a sender reads).
 *
 * e-mail and Telegram are checked against their senders' sources:
 * node-red-node-email 5.2 (61-email.js: msg.topic the subject, msg.payload
 * the text, msg.attachments nodemailer's attachments, msg.priority, msg.to)
 * and node-red-contrib-telegrambot 17 (telegrambot/nodes/out-node.js:
 * msg.payload { chatId, type, content, caption, options, fileOptions };
 * `options` goes to node-telegram-bot-api's sendPhoto or sendMessage as the
 * Bot API's optional parameters, so `options.reply_markup` carries buttons).
 * The web hooks are in ./webhooks.ts. An alarm's link is the body's last
 * line where a sender has no link of its own.
 */
import type { AlertButton } from './alarm-notice';
import type { AlertPicture } from './picture';
import { cut, withLinkLine, type AlertInput, type AlertLink } from './text';
import { gotifyMessage, ntfyMessage, pushoverMessage, PUSHOVER_MAX_ATTACHMENT, slackMessage, teamsMessage, teamsTakes } from './webhooks';

/** The senders an alert is shaped for; lib/config/node-options.ts restates the list. */
export const ALERT_SENDERS = ['email', 'telegram', 'ntfy', 'pushover', 'gotify', 'slack', 'teams'] as const;
export type AlertSender = (typeof ALERT_SENDERS)[number];

/** Telegram's limits (Bot API sendPhoto caption, sendMessage text), in characters. */
export const TELEGRAM_CAPTION_MAX = 1024;
export const TELEGRAM_TEXT_MAX = 4096;

export { cut, type AlertInput, type AlertLink };

export interface SenderOptions {
  /** e-mail: the recipients typed in the node (empty: the e-mail node's own). */
  to?: string;
  /** e-mail: the sender's address (empty: the e-mail node's login); an SMTP relay without login needs it. */
  from?: string;
  /** Telegram: the chat (a number, or @channel). */
  chatId?: string | number;
  /** Pushover: the application token and the user key (node credentials). */
  pushover?: { token: string; user: string };
  /** The last line of the body when a sender cannot take the picture: by URL only (Slack), too large. */
  notes: { unsupported: string; tooLarge: string };
}

export interface BuiltAlert {
  /** Message properties to set; undefined: to delete (a sender would read a stale one). */
  props: Record<string, unknown>;
  /** The picture attached, or null. */
  picture: AlertPicture | null;
  /** The body as sent, with the note when the picture was left out here, and the link's line where it is one. */
  body: string;
  /** Why the sender left the picture out. */
  dropped?: 'unsupported' | 'too-large';
}

/** A number chat id as a number; @channel (or anything else) as text. */
export function telegramChatId(value: string | number | undefined): string | number | undefined {
  if (typeof value === 'number') return value;
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  return /^-?\d{1,16}$/.test(text) ? Number(text) : text;
}

/** Whether a text would be taken for HTML by the e-mail node (61-email.js sends it as HTML then). */
const LOOKS_LIKE_HTML = /<[a-z][\s\S]*>/i;

/** Plain text the e-mail node sends as text: a `<` before a letter becomes ‹, which it does not take for a tag. */
export function emailText(text: string): string {
  return LOOKS_LIKE_HTML.test(text) ? text.replace(/<(?=[a-z])/gi, '‹') : text;
}

function withLine(body: string, line: string): string {
  return body === '' ? line : `${body}\n${line}`;
}

/** Telegram's inline keyboard of `buttons`, one row (Bot API InlineKeyboardMarkup). */
export function telegramKeyboard(buttons: readonly AlertButton[]): { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> } {
  return { inline_keyboard: [buttons.map((b) => ({ text: b.text, callback_data: b.data }))] };
}

/** The message `sender` takes for `input`. */
export function buildAlert(sender: AlertSender, input: AlertInput, options: SenderOptions): BuiltAlert {
  let { body, picture } = input;
  let dropped: BuiltAlert['dropped'];
  const drop = (why: 'unsupported' | 'too-large'): void => {
    if (!picture) return;
    dropped = why;
    body = withLine(body, why === 'unsupported' ? options.notes.unsupported : options.notes.tooLarge);
    picture = null;
  };
  if (sender === 'slack') drop('unsupported');
  if (sender === 'pushover' && picture && picture.data.length > PUSHOVER_MAX_ATTACHMENT) drop('too-large');
  if (sender === 'teams' && picture && !teamsTakes(input.subject, body, picture, input.urgent, input.link)) drop('too-large');

  const content = { ...input, body, picture };
  const { link } = input;
  let sent = body;
  let props: Record<string, unknown>;
  switch (sender) {
    case 'email':
      if (link) sent = withLine(body, link.line);
      props = {
        topic: input.subject,
        payload: emailText(sent),
        attachments: picture ? [{ filename: picture.filename, content: picture.data, contentType: picture.contentType }] : undefined,
      };
      if (options.to) props.to = options.to;
      if (options.from) props.from = options.from;
      // nodemailer's priority: high, normal or low
      if (input.urgent) props.priority = 'high';
      break;
    case 'telegram': {
      const text = input.subject === '' ? body : body === '' ? input.subject : `${input.subject}\n\n${body}`;
      const chatId = telegramChatId(options.chatId);
      const sendOptions = input.buttons && input.buttons.length > 0 ? { reply_markup: telegramKeyboard(input.buttons) } : {};
      if (link) sent = withLine(body, link.line);
      props = {
        payload: picture
          ? {
              chatId,
              type: 'photo',
              content: picture.data,
              caption: withLinkLine(text, TELEGRAM_CAPTION_MAX, link),
              options: sendOptions,
              fileOptions: { filename: picture.filename, contentType: picture.contentType },
            }
          : { chatId, type: 'message', content: withLinkLine(text, TELEGRAM_TEXT_MAX, link), options: sendOptions },
      };
      break;
    }
    case 'ntfy':
      props = ntfyMessage(content);
      break;
    case 'pushover':
      props = pushoverMessage(content, options.pushover ?? { token: '', user: '' });
      break;
    case 'gotify':
      props = gotifyMessage(content);
      if (link) sent = withLine(body, link.line);
      break;
    case 'slack':
      props = slackMessage(content);
      if (link) sent = withLine(body, link.line);
      break;
    case 'teams':
      props = teamsMessage(content);
      break;
  }
  return { props, picture, body: sent, dropped };
}
