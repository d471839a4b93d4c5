'use strict';
/** sim/webhook-delivery: events to the registered WebHooks over real HTTP(S) on 127.0.0.1: routing by kind, credentials, TLS, resilient or not. */
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const http = require('node:http');
const https = require('node:https');
const { buildSampleEvent } = require('../../../dist/lib/bridge');
const { createSelfSignedCertificate } = require('../../../dist/sim/tls');
const { WebHookStore } = require('../../../dist/sim/webhooks-server');
const { WebHookDelivery } = require('../../../dist/sim/webhook-delivery');

/** A receiver that records what it gets and answers the next status of `answers` (the last one repeats). */
async function receiver(tls) {
  const got = [];
  const answers = [200];
  const handler = (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.statusCode = answers.length > 1 ? answers.shift() : answers[0];
      res.end();
    });
  };
  const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, handler) : http.createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `${tls ? 'https' : 'http'}://127.0.0.1:${server.address().port}`;
  return { got, answers, base, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('sim/webhook-delivery', () => {
  let plain;
  let secure;
  let store;
  let delivery;
  const cert = createSelfSignedCertificate({ names: ['127.0.0.1'] });

  before(async () => {
    plain = await receiver();
    secure = await receiver(cert);
  });
  beforeEach(() => {
    plain.got.length = 0;
    secure.got.length = 0;
    plain.answers.splice(0, Infinity, 200);
    secure.answers.splice(0, Infinity, 200);
    store = new WebHookStore();
    delivery = new WebHookDelivery(store, { retries: 2, retryDelayMs: 5, timeoutMs: 5000 });
  });
  afterEach(() => delivery.close());
  after(() => Promise.all([plain.close(), secure.close()]));

  const register = (path, extra) =>
    store.put({
      hookId: crypto.randomUUID(),
      url: `${plain.base}${path}`,
      allowSelfSigned: false,
      resilient: false,
      webHookFaceRec: false,
      webHookLpr: false,
      ...extra,
    });

  it('sends face events only to face WebHooks and plate events only to plate WebHooks, each with its own credentials', async () => {
    register('/faces', { webHookFaceRec: true, basicUsername: 'anna', basicPassword: 's3cret' });
    register('/plates', { webHookLpr: true, headerKey: 'X-Api-Key', headerValue: 'k-1' });
    register('/both', { webHookFaceRec: true, webHookLpr: true });
    const face = buildSampleEvent('face');
    const plate = buildSampleEvent('lpr');
    const faceOutcomes = await delivery.deliver(face);
    const plateOutcomes = await delivery.deliver(plate);
    assert.deepEqual(
      faceOutcomes.map((o) => o.outcome),
      ['delivered', 'delivered'],
    );
    assert.deepEqual(
      plateOutcomes.map((o) => o.outcome),
      ['delivered', 'delivered'],
    );
    const seen = (path) => plain.got.filter((g) => g.path === path).map((g) => g.body.publishType);
    assert.deepEqual(seen('/faces'), ['WebHookFaceRecPayload'], 'the face-only WebHook gets no plate event');
    assert.deepEqual(seen('/plates'), ['WebHookLprPayload'], 'the plate-only WebHook gets no face event');
    assert.deepEqual(seen('/both'), ['WebHookFaceRecPayload', 'WebHookLprPayload']);
    const faces = plain.got.find((g) => g.path === '/faces');
    assert.equal(faces.headers.authorization, `Basic ${Buffer.from('anna:s3cret').toString('base64')}`);
    assert.equal(faces.body.payload.messageId, face.payload.messageId);
    const plates = plain.got.find((g) => g.path === '/plates');
    assert.equal(plates.headers['x-api-key'], 'k-1');
    assert.equal(plates.headers.authorization, undefined);
  });

  it('not resilient: a few retries with backoff, replays marked resent, then lost and counted', async () => {
    plain.answers.splice(0, Infinity, 500);
    const hook = register('/down', { webHookLpr: true });
    const attempts = [];
    delivery.on('attempt', (a) => attempts.push(a.status));
    const [outcome] = await delivery.deliver(buildSampleEvent('lpr'));
    assert.equal(outcome.outcome, 'lost');
    assert.equal(outcome.attempts, 3, 'the first attempt and 2 retries');
    assert.deepEqual(attempts, [500, 500, 500]);
    assert.deepEqual(
      plain.got.map((g) => g.body.payload.resentEvent),
      [false, true, true],
    );
    assert.deepEqual(delivery.counts.get(hook.hookId), { delivered: 0, retried: 2, lost: 1, abandoned: 0 });
    assert.equal(delivery.totals().lost, 1);
  });

  it('resilient: retried past the few retries and past a non-200 2xx until a 200', async () => {
    plain.answers.splice(0, Infinity, 500, 503, 500, 204, 200);
    register('/resilient', { webHookFaceRec: true, resilient: true });
    const [outcome] = await delivery.deliver(buildSampleEvent('face'));
    assert.equal(outcome.outcome, 'delivered');
    assert.equal(outcome.attempts, 5);
    assert.equal(plain.got.length, 5);
  });

  it('a WebHook deleted while its event is retried is abandoned', async () => {
    plain.answers.splice(0, Infinity, 500);
    const hook = register('/gone', { webHookFaceRec: true, resilient: true });
    delivery.once('attempt', () => store.delete(hook.hookId));
    const [outcome] = await delivery.deliver(buildSampleEvent('face'));
    assert.equal(outcome.outcome, 'abandoned');
    assert.equal(plain.got.length, 1);
  });

  it('TLS: a self-signed receiver is refused (lost) unless the WebHook allows self-signed certificates', async () => {
    const url = `${secure.base}/tls`;
    const strict = store.put({ hookId: crypto.randomUUID(), url, allowSelfSigned: false, resilient: false, webHookFaceRec: true, webHookLpr: false });
    const errors = [];
    delivery.on('attempt', (a) => a.hookId === strict.hookId && errors.push(a.error));
    const [refused] = await delivery.deliver(buildSampleEvent('face'));
    assert.equal(refused.outcome, 'lost');
    assert.ok(errors.every(Boolean), 'no attempt got an answer');
    assert.equal(secure.got.length, 0);
    store.put({ ...strict, allowSelfSigned: true });
    const [accepted] = await delivery.deliver(buildSampleEvent('face'));
    assert.equal(accepted.outcome, 'delivered');
    assert.equal(secure.got.length, 1);
  });
});
