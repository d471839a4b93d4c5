'use strict';
/**
 * A fake Telegram Bot API for tests, on 127.0.0.1 on a free port: point a bot
 * at `url` (node-red-contrib-telegrambot's bot config node: `baseapiurl`;
 * node-telegram-bot-api: `baseApiUrl`) and it gets Telegram's answers from
 * here. Requests are what node-telegram-bot-api sends: POST
 * `<url>/bot<token>/<method>`, its parameters in the query string, an
 * urlencoded form (sendMessage), JSON, or a multipart form carrying the file
 * (sendPhoto with a Buffer: the `photo` part, with its filename and content
 * type).
 *
 * It answers getMe, sendMessage, sendPhoto, sendDocument, and what a bot may
 * call around them (deleteWebhook, setWebhook, getWebhookInfo, getUpdates,
 * setMyCommands, deleteMyCommands), with Telegram's `{ ok: true, result }`
 * shapes; an unknown method 404, another token than `token` 401, a send
 * without chat_id (or a message without text, a photo without a photo) 400,
 * as Telegram does. `failNext(method, status, description)` makes the next
 * call of a method fail that way.
 *
 * Buttons: a message sent with `reply_markup` keeps it (the Message's
 * `reply_markup`, and the call's `replyMarkup`, parsed). `pressButton(message,
 * data, from)` queues a callback_query update as Telegram makes one when a
 * button of that message is pressed; getUpdates hands queued updates out
 * (long polling: it holds the request until one is queued or its `timeout`
 * runs out; updates below its `offset` are confirmed and dropped).
 * answerCallbackQuery, editMessageCaption, editMessageText and
 * editMessageReplyMarkup act on the messages sent here: an edit of no such
 * message, or one that changes nothing, is refused (400) as Telegram refuses it.
 *
 * Every call is kept in `calls`, in the order it came:
 *
 *   { method, token, chatId, text, caption, photo, filename, contentType, params, files, result }
 *
 * `chatId` as sent (a string on the wire: '123456', '@channel'); `text` (sendMessage),
 * `caption`; `photo` (sendPhoto) the uploaded bytes, a Buffer, with the `filename`
 * and `contentType` of its part (a photo sent as a file_id or URL is that string
 * instead, without filename); `params` every non-file parameter as a string;
 * `files` every file part { field, filename, contentType, content }; `result` what the call
 * was answered (the sent Message, with its message_id), once answered, undefined for an error.
 * Calls made at once (a sender's photo and text) may come in either order.
 *
 *   const telegram = await TelegramBotApi.start({ token: '123:abc' });
 *   … a bot with baseApiUrl telegram.url sends …
 *   const [call] = await telegram.until(1);
 *   await telegram.close();
 */
const http = require('node:http');

/** The bot user getMe answers (Telegram's User object). */
const BOT_USER = Object.freeze({
  id: 7000000001,
  is_bot: true,
  first_name: 'Detection test bot',
  username: 'detection_test_bot',
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
});

class TelegramBotApi {
  /** `token`: the only token accepted (any, when not given). */
  constructor({ token } = {}) {
    this.token = token;
    /** Every call received, in order (see above). */
    this.calls = [];
    /** Requests that could not be read (their answer was 400). */
    this.errors = [];
    this.url = undefined;
    this.port = undefined;
    this.waiters = new Set();
    this.failures = new Map();
    this.nextMessageId = 1;
    /** Messages sent, by message_id, as edits leave them. */
    this.messages = new Map();
    this.updates = [];
    this.nextUpdateId = 1;
    this.nextQueryId = 1;
    /** getUpdates requests held, each a function answering it now. */
    this.polls = new Set();
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        this.errors.push(err);
        this.wake();
        if (!res.headersSent) answer(res, 400, { ok: false, error_code: 400, description: `Bad Request: ${err.message}` });
      });
    });
  }

  /** Starts listening on 127.0.0.1 on a free port; resolves with the fake. */
  static async start(options) {
    const api = new TelegramBotApi(options);
    await new Promise((resolve, reject) => {
      api.server.once('error', reject);
      api.server.listen(0, '127.0.0.1', () => {
        api.server.off('error', reject);
        resolve();
      });
    });
    api.port = api.server.address().port;
    api.url = `http://127.0.0.1:${api.port}`;
    return api;
  }

  /** The next call of `method` is answered with this error (Telegram's shape), then calls succeed again. */
  failNext(method, status = 400, description = 'Bad Request: chat not found') {
    if (!this.failures.has(method)) this.failures.set(method, []);
    this.failures.get(method).push({ status, description });
  }

  async handle(req, res) {
    const url = new URL(req.url, this.url);
    const route = /^\/bot([^/]+)\/(?:test\/)?([A-Za-z]+)$/.exec(url.pathname);
    const body = await readBody(req);
    if (!route) return answer(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const [, token, method] = route;
    const { params, files } = await parameters(url, req.headers['content-type'], body);
    const photo = files.find((f) => f.field === 'photo');
    const call = {
      method,
      token: decodeURIComponent(token),
      chatId: params.chat_id,
      text: params.text,
      caption: params.caption,
      photo: photo ? photo.content : params.photo || undefined,
      filename: photo ? photo.filename : undefined,
      contentType: photo ? photo.contentType : undefined,
      params,
      files,
      replyMarkup: params.reply_markup ? JSON.parse(params.reply_markup) : undefined,
    };
    this.calls.push(call);
    this.wake();
    if (this.token !== undefined && call.token !== this.token) return answer(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const failures = this.failures.get(method);
    if (failures && failures.length) {
      const { status, description } = failures.shift();
      return answer(res, status, { ok: false, error_code: status, description });
    }
    const result = method === 'getUpdates' ? await this.poll(params, res) : this.result(call);
    if (res.destroyed) return undefined;
    if (result === undefined) return answer(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (result instanceof Error) return answer(res, 400, { ok: false, error_code: 400, description: result.message });
    call.result = result;
    this.wake();
    return answer(res, 200, { ok: true, result });
  }

  /** Telegram's result for a call: a value, an Error (400, its message the description) or undefined (unknown method). */
  result(call) {
    const { method, params, files } = call;
    switch (method) {
      case 'getMe':
        return BOT_USER;
      case 'deleteWebhook':
      case 'setWebhook':
      case 'setMyCommands':
      case 'deleteMyCommands':
        return true;
      case 'getWebhookInfo':
        return { url: '', has_custom_certificate: false, pending_update_count: 0 };
      case 'getUpdates':
        return [];
      case 'sendMessage':
        if (!params.chat_id) return new Error('Bad Request: chat_id is empty');
        if (!params.text) return new Error('Bad Request: message text is empty');
        return this.message(params, { text: params.text });
      case 'sendPhoto': {
        if (!params.chat_id) return new Error('Bad Request: chat_id is empty');
        const file = files.find((f) => f.field === 'photo');
        if (!file && !params.photo) return new Error('Bad Request: there is no photo in the request');
        const size = file ? file.content.length : 0;
        const id = `photo-${this.nextMessageId}`;
        const photo = [{ file_id: id, file_unique_id: `u${id}`, width: 320, height: 240, file_size: size }];
        return this.message(params, { photo, ...(params.caption ? { caption: params.caption } : {}) });
      }
      case 'answerCallbackQuery':
        if (!params.callback_query_id) return new Error('Bad Request: query is too old and response timeout expired or query ID is invalid');
        return true;
      case 'editMessageText':
        if (!params.text) return new Error('Bad Request: message text is empty');
        return this.edit(params, { text: params.text, reply_markup: keyboard(params.reply_markup) });
      case 'editMessageCaption':
        return this.edit(params, { caption: params.caption || undefined, reply_markup: keyboard(params.reply_markup) });
      case 'editMessageReplyMarkup':
        return this.edit(params, { reply_markup: keyboard(params.reply_markup) });
      case 'sendDocument': {
        if (!params.chat_id) return new Error('Bad Request: chat_id is empty');
        const file = files.find((f) => f.field === 'document');
        if (!file && !params.document) return new Error('Bad Request: there is no document in the request');
        const id = `document-${this.nextMessageId}`;
        const document = file
          ? { file_id: id, file_unique_id: `u${id}`, file_name: file.filename, mime_type: file.contentType, file_size: file.content.length }
          : { file_id: params.document, file_unique_id: `u${id}` };
        return this.message(params, { document, ...(params.caption ? { caption: params.caption } : {}) });
      }
      default:
        return undefined;
    }
  }

  /**
   * Queues the update Telegram sends when `from` (a User: { id, first_name, last_name?, username? })
   * presses the button `data` under `message` (a sent Message, as a call's `result`). Resolves with
   * the update once a getUpdates call took it.
   */
  pressButton(message, data, from) {
    const update = {
      update_id: this.nextUpdateId++,
      callback_query: { id: `cbq-${this.nextQueryId++}`, from: { is_bot: false, ...from }, message, chat_instance: '-4000000000000000001', data },
    };
    this.updates.push(update);
    for (const answerNow of [...this.polls]) answerNow();
    return this.until(1, 10000, 'getUpdates', (c) => (c.result || []).some((u) => u.update_id === update.update_id)).then(() => update);
  }

  /** getUpdates: the updates from `offset` on, at once or as soon as one is queued; [] after `timeout` seconds. */
  poll(params, res) {
    const offset = Number(params.offset) || 0;
    this.updates = this.updates.filter((u) => u.update_id >= offset);
    if (this.updates.length > 0 || !(Number(params.timeout) > 0)) return Promise.resolve([...this.updates]);
    return new Promise((resolve) => {
      const answerNow = () => {
        clearTimeout(timer);
        this.polls.delete(answerNow);
        resolve([...this.updates]);
      };
      const timer = setTimeout(answerNow, Math.min(Number(params.timeout), 30) * 1000);
      this.polls.add(answerNow);
      res.on('close', answerNow);
    });
  }

  /** An edit of a sent message, named by its chat (id or @username) and message id; `change` what the edit sets. */
  edit(params, change) {
    const message = this.messages.get(Number(params.message_id));
    const chat = message && [String(message.chat.id), `@${message.chat.username}`];
    if (!message || !chat.includes(String(params.chat_id))) return new Error('Bad Request: message to edit not found');
    const media = message.photo !== undefined || message.document !== undefined;
    if ('caption' in change && !media) return new Error('Bad Request: there is no caption in the message to edit');
    if ('text' in change && media) return new Error('Bad Request: there is no text in the message to edit');
    const edited = { ...message, ...change, edit_date: Math.floor(Date.now() / 1000) };
    for (const [key, value] of Object.entries(change)) if (value === undefined) delete edited[key];
    const same = (key) => JSON.stringify(edited[key]) === JSON.stringify(message[key]);
    if (same('text') && same('caption') && same('reply_markup'))
      return new Error(
        'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      );
    this.messages.set(edited.message_id, edited);
    return edited;
  }

  /** A sent Message in the chat `params.chat_id`. */
  message(params, content) {
    const chatId = params.chat_id;
    const numeric = /^-?\d+$/.test(chatId);
    const chat = numeric
      ? Number(chatId) < 0
        ? { id: Number(chatId), type: 'group', title: 'Test group' }
        : { id: Number(chatId), type: 'private', first_name: 'Test user' }
      : { id: -1001000000001, type: 'channel', title: 'Test channel', username: chatId.replace(/^@/, '') };
    const markup = params.reply_markup ? JSON.parse(params.reply_markup) : undefined;
    const sent = { message_id: this.nextMessageId++, from: BOT_USER, chat, date: Math.floor(Date.now() / 1000), ...content };
    // Telegram's Message holds an inline keyboard only, not an empty one
    if (markup && markup.inline_keyboard && markup.inline_keyboard.some((row) => row.length > 0)) sent.reply_markup = markup;
    this.messages.set(sent.message_id, sent);
    return sent;
  }

  wake() {
    for (const w of [...this.waiters]) w();
  }

  /**
   * Resolves with the calls once `n` have come (of `method` only, when given, and only those `which`
   * accepts; at once if they already have); rejects after `timeoutMs` saying which calls came.
   */
  until(n, timeoutMs = 10000, method, which = () => true) {
    const mine = () => this.calls.filter((c) => (method === undefined || c.method === method) && which(c));
    return new Promise((resolve, reject) => {
      const check = () => {
        const got = mine();
        if (got.length < n) return;
        cleanup();
        resolve(got);
      };
      const timer = setTimeout(() => {
        cleanup();
        const seen = this.calls.map((c) => c.method).join(', ') || 'none';
        const errors = this.errors.length ? `; unreadable requests: ${this.errors.map((e) => e.message).join('; ')}` : '';
        reject(
          new Error(`expected ${n} ${method ? `${method} ` : ''}call(s) within ${timeoutMs} ms, ${mine().length} came (calls: ${seen})${errors}`),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Stops listening and cuts the connections a client keeps alive. */
  close() {
    for (const answerNow of [...this.polls]) answerNow();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/** An edit's reply_markup as the message keeps it: an inline keyboard with buttons, else none. */
function keyboard(text) {
  const markup = text ? JSON.parse(text) : undefined;
  return markup && markup.inline_keyboard && markup.inline_keyboard.some((row) => row.length > 0) ? markup : undefined;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The call's parameters: the query string, then the body (JSON, urlencoded or multipart). */
async function parameters(url, contentType = '', body) {
  const params = {};
  const files = [];
  for (const [key, value] of url.searchParams) params[key] = value;
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type === 'application/json' && body.length) {
    for (const [key, value] of Object.entries(JSON.parse(body.toString('utf8')))) {
      params[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  } else if (type === 'application/x-www-form-urlencoded') {
    for (const [key, value] of new URLSearchParams(body.toString('utf8'))) params[key] = value;
  } else if (type === 'multipart/form-data') {
    // Node's fetch Response reads a multipart body as the standard FormData.
    const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
    for (const [key, value] of form) {
      if (typeof value === 'string') params[key] = value;
      else files.push({ field: key, filename: value.name, contentType: value.type, content: Buffer.from(await value.arrayBuffer()) });
    }
  }
  return { params, files };
}

function answer(res, status, value) {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

module.exports = { TelegramBotApi, BOT_USER };
