'use strict';
/**
 * Request bodies for the bench, from the package's own simulator (the
 * sample events with every field filled in): a plate event with four base64
 * crops (Close, Medium, Car, FullFrame), a face event with its live capture
 * and enrolled photo, and the sample events with their tiny placeholder
 * images. Each carries the load generator's id placeholder as messageId.
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

/** The body template of `kind` ('lpr' | 'face' | 'small') at `bytes` (ignored for small). */
function body(kind, bytes) {
  if (kind === 'small') return template(event('lpr', 0));
  return template(event(kind, bytes));
}

module.exports = { body, event };
