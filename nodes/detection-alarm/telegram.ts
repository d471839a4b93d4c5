/**
 * An alert's Telegram buttons (Acknowledge, Snooze) pressed: the callback
 * node-red-contrib-telegrambot's event node (event callback_query) sends,
 * read here, and what goes back through its sender node (output 5): the
 * answer Telegram shows whoever pressed (answerCallbackQuery), and an edit
 * of the pressed message that takes its buttons off and says who answered.
 *
 * The shapes are node-red-contrib-telegrambot 17's (the same in 19):
 * lib/converter.js gives the event node's msg.payload { chatId, messageId,
 * inlineMessageId, type: 'callback_query', content: the button's
 * callback_data, callbackQueryId, from: Telegram's User }, and
 * nodes/event-node.js puts the whole CallbackQuery in msg.originalMessage,
 * whose `message` is the pressed message as Telegram holds it (a photo's
 * caption, or a text). The sender node (nodes/out-node.js) calls
 * node-telegram-bot-api with msg.payload: answerCallbackQuery(callbackQueryId,
 * options), editMessageCaption / editMessageText / editMessageReplyMarkup
 * (content, options), options being the Bot API's parameters (chat_id,
 * message_id or inline_message_id, reply_markup).
 */
import { z } from 'zod';
import type { ActionResult } from '../../lib/alarm';
import { cut, TELEGRAM_CAPTION_MAX, TELEGRAM_TEXT_MAX } from '../../lib/alert';
import { systemTimeZone, wallClock } from '../../lib/core';
import { BUTTON_PREFIX, snoozeLength, type MessageContext, type Msg } from './messages';

/** Telegram's limit of an answer's text (Bot API answerCallbackQuery), in characters. */
const ANSWER_MAX = 200;

export interface TelegramCallback {
  action: 'ack' | 'snooze';
  id: string;
  /** Who pressed: their name, and their @username when they have one. */
  by: string;
  callbackQueryId: string;
  chatId?: number | string;
  messageId?: number;
  /** A message sent through the bot inline (no chat of the bot's): edited by this id. */
  inlineMessageId?: string;
  /** The pressed message's text, where it is kept: a photo's caption or a message's text; undefined: not known. */
  pressed?: { field: 'caption' | 'text'; text: string };
}

const CallbackPayload = z.object({
  type: z.literal('callback_query'),
  content: z.string(),
  callbackQueryId: z.string().min(1),
  chatId: z.union([z.number(), z.string()]).optional(),
  messageId: z.number().optional(),
  inlineMessageId: z.string().optional(),
  from: z
    .object({ id: z.number().optional(), username: z.string().optional(), first_name: z.string().optional(), last_name: z.string().optional() })
    .optional(),
});

const PressedMessage = z.object({
  message: z.object({ text: z.string().optional(), caption: z.string().optional(), photo: z.array(z.unknown()).optional() }),
});

const DATA = new RegExp(`^${BUTTON_PREFIX}(ack|snooze):([a-z0-9]{1,32}):([0-9a-f]{8})$`);

/**
 * The button pressed, when `payload` is the event node's callback of one of
 * this node's alarm buttons (`alarm:<action>:<id>:<book>`, `book` this
 * node's bookTag); `other` for another alarm node's button (the node lets
 * it be: that node answers it); undefined for anything else, which the node
 * then reads as usual. `original` is msg.originalMessage.
 */
export function readTelegramCallback(payload: unknown, original: unknown, book: string): TelegramCallback | 'other' | undefined {
  const read = CallbackPayload.safeParse(payload);
  if (!read.success) return undefined;
  const button = DATA.exec(read.data.content);
  if (!button) return undefined;
  if (button[3] !== book) return 'other';
  const { from, chatId, messageId, inlineMessageId, callbackQueryId } = read.data;
  const name = [from?.first_name, from?.last_name]
    .filter((part) => part !== undefined && part.trim() !== '')
    .join(' ')
    .trim();
  const user = from?.username ? `@${from.username}` : '';
  const by = name && user ? `${name} (${user})` : name || user || (from?.id !== undefined ? String(from.id) : '');
  const callback: TelegramCallback = { action: button[1] as 'ack' | 'snooze', id: button[2], by, callbackQueryId };
  if (chatId !== undefined) callback.chatId = chatId;
  if (messageId !== undefined) callback.messageId = messageId;
  if (inlineMessageId !== undefined) callback.inlineMessageId = inlineMessageId;
  const message = PressedMessage.safeParse(original);
  if (message.success) {
    const { text, caption, photo } = message.data.message;
    if (caption !== undefined || photo !== undefined) callback.pressed = { field: 'caption', text: caption ?? '' };
    else if (text !== undefined) callback.pressed = { field: 'text', text };
  }
  return callback;
}

/**
 * The messages for the Telegram sender node after `callback` was acted on
 * (`result`, `reply`: what the node's act() answered): the answer to the
 * press, then the edit of the pressed message (none when it cannot be named).
 */
export function telegramReplies(callback: TelegramCallback, result: ActionResult | null, reply: Record<string, unknown>, c: MessageContext): Msg[] {
  const { t } = c;
  const when = (at: number): string => clockTime(at, c.now());
  let answer: string;
  let line: string;
  if (result === null) {
    answer = typeof reply.text === 'string' ? reply.text : '';
    line = '';
  } else if (result.ok && callback.action === 'snooze' && result.snooze) {
    answer = t('telegram.answer-snoozed', { time: snoozeLength(c) });
    line = t('telegram.snoozed', { time: snoozeLength(c), by: callback.by, until: when(result.snooze.until) });
  } else if (result.ok) {
    answer = t('telegram.answer-acknowledged');
    line = t('telegram.acknowledged', { by: callback.by, time: when(result.alarm.ackAt ?? c.now()) });
  } else if (result.reason === 'unknown') {
    answer = t('telegram.answer-unknown');
    line = t('telegram.gone');
  } else {
    // pressed after someone else answered (another chat, the mail link, a message): say who, and take the buttons off too
    const vars = { by: result.by || t('refused.itself'), time: when(result.at) };
    answer = t(`telegram.answer-${result.reason}`, vars);
    line = t(result.reason === 'already' ? 'telegram.acknowledged' : 'telegram.closed', vars);
  }
  const out: Msg[] = [
    {
      payload: {
        chatId: callback.chatId,
        type: 'answerCallbackQuery',
        callbackQueryId: callback.callbackQueryId,
        content: cut(answer, ANSWER_MAX),
        options: { text: cut(answer, ANSWER_MAX) },
      },
    },
  ];
  const edit = editOf(callback, line);
  if (edit) out.push({ payload: edit });
  return out;
}

/** The edit of the pressed message: `line` below its text, its buttons taken off. */
function editOf(callback: TelegramCallback, line: string): Record<string, unknown> | undefined {
  const target =
    callback.messageId !== undefined && callback.chatId !== undefined
      ? { chat_id: callback.chatId, message_id: callback.messageId }
      : callback.inlineMessageId !== undefined
        ? { inline_message_id: callback.inlineMessageId }
        : undefined;
  if (!target) return undefined;
  const noButtons = { inline_keyboard: [] };
  const { pressed } = callback;
  if (!pressed || line === '') return { chatId: callback.chatId, type: 'editMessageReplyMarkup', content: noButtons, options: { ...target } };
  const max = pressed.field === 'caption' ? TELEGRAM_CAPTION_MAX : TELEGRAM_TEXT_MAX;
  const text = pressed.text === '' ? cut(line, max) : `${cut(pressed.text, Math.max(1, max - line.length - 2))}\n\n${line}`;
  return {
    chatId: callback.chatId,
    type: pressed.field === 'caption' ? 'editMessageCaption' : 'editMessageText',
    content: text,
    options: { ...target, reply_markup: noButtons },
  };
}

/** `at` on Node-RED's clock as people read it: `22:06`, with the date when not today (`2026-03-01 22:06`). */
function clockTime(at: number, now: number): string {
  const zone = systemTimeZone();
  const wall = wallClock(at, zone);
  if (!wall) return new Date(at).toISOString();
  const today = wallClock(now, zone)?.toISOString().slice(0, 10);
  const [day, time] = [wall.toISOString().slice(0, 10), wall.toISOString().slice(11, 16)];
  return day === today ? time : `${day} ${time}`;
}
