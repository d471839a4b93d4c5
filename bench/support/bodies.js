'use strict';
/**
 * Request bodies for the bench, from the package's own simulator (the
 * sample events with every field filled in): a plate event with four base64
 * crops (Close, Medium, Car, FullFrame), a face event with its live capture
 * and enrolled photo, and the sample events with their tiny placeholder
 * images. Each carries the load generator's id placeholder as messageId.
 *
 * The same events as real senders write them: `-stj` as .NET's
 * System.Text.Json writes with its default encoder (every `+` of base64 as
 * `\u002B`), `-slash` with every `/` as `\/` (PHP's json_encode, some Java
 * writers).
 */
const path = require('node:path');
const { template, ID_PLACEHOLDER } = require('./load');

const DIST = path.resolve(__dirname, '..', '..', 'dist', 'sim');

const LPR_SHARES = [
  ['Close', 0.1],
  ['Medium', 0.2],
  ['Car', 0.3],
  ['FullFrame', 0.4],
];
const FACE_SHARES = [0.65, 0.35];

/** A plate event of about `bytes` of JSON (four crops), or face event, or the small sample. */
function event(kind, bytes) {
  const { buildDeliveryEvent } = require(DIST);
  const { fillerJpegBase64 } = require(path.join(DIST, 'images.js'));
  const e = buildDeliveryEvent(kind, { messageId: ID_PLACEHOLDER });
  if (!bytes) return e;
  if (kind === 'lpr') {
    e.payload.detectionImages = LPR_SHARES.map(([cropSizeName]) => ({ image: '', cropSizeName }));
    const budget = bytes - Buffer.byteLength(JSON.stringify(e));
    e.payload.detectionImages = LPR_SHARES.map(([cropSizeName, share], i) => ({
      image: fillerJpegBase64(Math.floor(budget * share), 10 + i),
      cropSizeName,
    }));
  } else {
    e.payload.detectionImage = { image: '' };
    e.payload.defaultPhoto = { image: '' };
    const budget = bytes - Buffer.byteLength(JSON.stringify(e));
    e.payload.detectionImage = { image: fillerJpegBase64(Math.floor(budget * FACE_SHARES[0]), 1) };
    e.payload.defaultPhoto = { image: fillerJpegBase64(Math.floor(budget * FACE_SHARES[1]), 2) };
  }
  return e;
}

/** Short escapes System.Text.Json writes; every other escaped character is `\uXXXX`, upper-case hex. */
const STJ_SHORT = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

/** A string as System.Text.Json's default encoder (JavaScriptEncoder.Default) writes it: only
 *  printable ASCII stays, less the HTML-sensitive `" & ' + < >` and `` ` ``; UTF-16 units one by one. */
function stjString(s) {
  return `"${s.replace(/[^\x20-\x7e]|["&'+<>`\\]/g, (c) => STJ_SHORT[c] || `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)}"`;
}

/** JSON text as System.Text.Json writes it (compact; numbers as JSON.stringify writes them). */
function stjStringify(value) {
  if (typeof value === 'string') return stjString(value);
  if (Array.isArray(value)) return `[${value.map(stjStringify).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${stjString(k)}:${stjStringify(v)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** JSON text with every `/` written `\/` (outside strings JSON has no `/`, and JSON.stringify never escapes one). */
const slashStringify = (value) => JSON.stringify(value).replaceAll('/', '\\/');

const WRITERS = { '': JSON.stringify, stj: stjStringify, slash: slashStringify };

/** The body template of `kind` at `bytes` (ignored for small): 'lpr' | 'face' | 'small', each
 *  optionally with `-stj` or `-slash` (the same event, written so; its body is larger). */
function body(kind, bytes) {
  const [base, writer = ''] = kind.split('-');
  if (!(writer in WRITERS) || !['lpr', 'face', 'small'].includes(base)) throw new Error(`unknown bench body ${kind}`);
  return template(base === 'small' ? event('lpr', 0) : event(base, bytes), WRITERS[writer]);
}

module.exports = { body, event, stjStringify };
