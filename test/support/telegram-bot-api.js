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
    };
    this.calls.push(call);
    this.wake();
    if (this.token !== undefined && call.token !== this.token) return answer(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const failures = this.failures.get(method);
    if (failures && failures.length) {
      const { status, description } = failures.shift();
      return answer(res, status, { ok: false, error_code: status, description });
    }
    const result = this.result(call);
    if (result === undefined) return answer(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (result instanceof Error) return answer(res, 400, { ok: false, error_code: 400, description: result.message });
    call.result = result;
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

  /** A sent Message in the chat `params.chat_id`. */
  message(params, content) {
    const chatId = params.chat_id;
    const numeric = /^-?\d+$/.test(chatId);
    const chat = numeric
      ? Number(chatId) < 0
        ? { id: Number(chatId), type: 'group', title: 'Test group' }
        : { id: Number(chatId), type: 'private', first_name: 'Test user' }
      : { id: -1001000000001, type: 'channel', title: 'Test channel', username: chatId.replace(/^@/, '') };
    return { message_id: this.nextMessageId++, from: BOT_USER, chat, date: Math.floor(Date.now() / 1000), ...content };
  }

  wake() {
    for (const w of [...this.waiters]) w();
  }

  /**
   * Resolves with the calls once `n` have come (of `method` only, when given; at once if they
   * already have); rejects after `timeoutMs` saying which calls came.
   */
  until(n, timeoutMs = 10000, method) {
    const mine = () => this.calls.filter((c) => method === undefined || c.method === method);
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
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
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
