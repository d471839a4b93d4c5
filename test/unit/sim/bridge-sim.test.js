'use strict';
/**
 * The events bridge simulator (sim/ and bin/detection-bridge-sim)
 * through real HTTP on 127.0.0.1: the sample endpoints' six rules, 401 on
 * other /api/v1/ paths, delivery to a local receiver (counts, mix, auth,
 * resilient retries, timeouts, failures, realistic sizes, self-signed TLS),
 * and the command line.
 *
 * Runs against the package's dist/.
 */
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const os = require('node:os');
const path = require('node:path');

const dist = path.resolve(__dirname, '../../../dist');
const BIN = path.join(dist, 'bin', 'detection-bridge-sim.js');
const { readPictureText } = require('../../support/plate-reader');
// Loaded in the root `before`: a dist/ built without the simulator fails this
// suite only, not the loading of every other test file.
let sim;
let checkEvent;

/**
 * The program in this process (sim/cli.ts's main, which the bin runs): resolves like the tests' runCli. For the
 * usage errors, which end before anything starts: a process each cost a loaded 2-core machine 16 s
 * for 16 cases. Each test that uses it runs one of its cases through the bin too.
 */
async function runMain(args, env = {}) {
  const { main } = require(path.join(dist, 'sim', 'cli.js'));
  let stdout = '';
  let stderr = '';
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const code = await main(args, { out: (t) => (stdout += t), err: (t) => (stderr += t) });
    return { code, stdout, stderr };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const HOUR = 3600 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** GET/POST with node:http(s); resolves with status, headers, body text and parsed JSON. */
function call(url, { method = 'GET', headers = {}, body, insecure = false } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : http;
    const req = mod.request(u, { method, headers, rejectUnauthorized: !insecure, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A receiver on 127.0.0.1 that records every request. `answer(rec, res, requests)`
 * may answer itself (return true) or return a status; default 200.
 */
async function startReceiver({ answer, tls } = {}) {
  const requests = [];
  const timers = new Set();
  let inFlight = 0;
  let maxInFlight = 0;
  const handler = (req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let json;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        json = undefined;
      }
      const rec = { method: req.method, url: req.url, headers: req.headers, size: body.length, json, at: Date.now() };
      requests.push(rec);
      const reply = (status = 200) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status }));
      };
      const later = (ms, status) => {
        const t = setTimeout(() => {
          timers.delete(t);
          reply(status);
        }, ms);
        timers.add(t);
      };
      const result = answer ? answer(rec, { reply, later }, requests) : 200;
      if (typeof result === 'number') reply(result);
    });
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${server.address().port}/detections`;
  return {
    url,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    close() {
      for (const t of timers) clearTimeout(t);
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function waitFor(predicate, ms = 5000) {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    const tick = () => {
      if (predicate()) return resolve();
      if (Date.now() - start > ms) return reject(new Error('timed out waiting'));
      setTimeout(tick, 10);
    };
    tick();
  });
}

/** Every `image` value anywhere in a value. */
function images(value, out = []) {
  if (Array.isArray(value)) value.forEach((v) => images(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'image') out.push(v);
      else images(v, out);
    }
  }
  return out;
}

/** A copy without messageId and every dateTimeUtc. */
function withoutVolatile(event) {
  const copy = structuredClone(event);
  const strip = (v) => {
    if (Array.isArray(v)) v.forEach(strip);
    else if (v && typeof v === 'object') {
      delete v.dateTimeUtc;
      Object.values(v).forEach(strip);
    }
  };
  delete copy.payload.messageId;
  strip(copy);
  return copy;
}

/**
 * A JPEG read as a decoder does, segment by segment from SOI to the start of
 * scan, its comment segments (FF FE) left out: fails on a length that runs
 * past the data or a missing marker.
 */
function withoutComments(jpeg) {
  assert.deepEqual([...jpeg.subarray(0, 2)], [0xff, 0xd8], 'SOI');
  const kept = [jpeg.subarray(0, 2)];
  let at = 2;
  for (;;) {
    assert.equal(jpeg[at], 0xff, `a marker at ${at}`);
    const marker = jpeg[at + 1];
    if (marker === 0xda) break; // start of scan: the entropy-coded picture follows
    const end = at + 2 + jpeg.readUInt16BE(at + 2);
    assert.ok(end <= jpeg.length, `segment ${marker.toString(16)} at ${at} ends inside the data`);
    if (marker !== 0xfe) kept.push(jpeg.subarray(at, end));
    at = end;
  }
  kept.push(jpeg.subarray(at));
  assert.deepEqual([...jpeg.subarray(-2)], [0xff, 0xd9], 'EOI');
  return Buffer.concat(kept);
}

/** The local hour of an instant in a zone, read with Intl (not the simulator's own code). */
function localHour(iso, timeZone) {
  return Number(new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', hourCycle: 'h23' }).format(new Date(iso)));
}

describe('sim: the bridge simulator', function () {
  before(function () {
    sim = require(path.join(dist, 'sim', 'index'));
    ({ checkEvent } = require(path.join(dist, 'lib', 'events', 'schemas')));
  });

  describe('sample endpoints (GET /api/v1/webhook-models/{face,lpr})', function () {
    let server;
    const path = (kind) => `${server.url}/api/v1/webhook-models/${kind}`;

    before(async function () {
      server = await sim.startSampleServer({ port: 0, host: '127.0.0.1' });
    });
    after(async function () {
      await server?.close();
    });

    it('serves a valid event of each kind, anonymously, as JSON', async function () {
      for (const [kind, type] of [
        ['face', 'WebHookFaceRecPayload'],
        ['lpr', 'WebHookLprPayload'],
      ]) {
        const res = await call(path(kind));
        assert.equal(res.status, 200);
        assert.match(res.headers['content-type'], /^application\/json/);
        assert.equal(res.json.publishType, type);
        const checked = checkEvent(res.json);
        assert.ok(checked.ok, JSON.stringify(checked.errors));
      }
    });

    it('rule 1: identical on every call except messageId and the timestamps', async function () {
      for (const kind of ['face', 'lpr']) {
        const a = (await call(path(kind))).json;
        await new Promise((r) => setTimeout(r, 5));
        const b = (await call(path(kind))).json;
        assert.match(a.payload.messageId, UUID);
        assert.notEqual(a.payload.messageId, b.payload.messageId);
        assert.deepEqual(withoutVolatile(a), withoutVolatile(b));
      }
    });

    it('rule 2: serverContext is present and null', async function () {
      for (const kind of ['face', 'lpr']) {
        const event = (await call(path(kind))).json;
        assert.ok(Object.hasOwn(event, 'serverContext'));
        assert.equal(event.serverContext, null);
      }
    });

    it('rule 3: every image is a two-byte filler in base64', async function () {
      const face = (await call(path('face'))).json;
      const lpr = (await call(path('lpr'))).json;
      const all = [...images(face), ...images(lpr)];
      assert.ok(images(face).length >= 2 && images(lpr).length >= 4, 'face has live and enrolled images, lpr several crops');
      for (const image of all) {
        const bytes = Buffer.from(image, 'base64');
        assert.equal(bytes.length, 2, `"${image}" is not two bytes`);
        assert.equal(bytes.toString('base64'), image, 'valid base64');
      }
    });

    it('rule 4: dateTimeUtc is the time of the call, history entries one hour apart', async function () {
      for (const kind of ['face', 'lpr']) {
        const before = Date.now();
        const event = (await call(path(kind))).json;
        const after = Date.now();
        const now = Date.parse(event.payload.detectionInfo.dateTimeUtc);
        assert.ok(now >= before && now <= after, `${event.payload.detectionInfo.dateTimeUtc} outside the call`);
        const history = event.payload.detectionHistory;
        const lists = kind === 'face' ? [history.visitHistory, history.printHistory] : [history.visitHistory];
        for (const list of lists) {
          assert.ok(list.length >= 2);
          const times = list.map((e) => Date.parse(e.dateTimeUtc));
          assert.equal(times[0], now - HOUR);
          for (let i = 1; i < times.length; i++) assert.equal(times[i - 1] - times[i], HOUR);
        }
      }
    });

    it('rule 5: a fields entry, tags, and every nested object populated', async function () {
      const allowedNull =
        /^(serverContext|payload\.(personInfo|lprPlateInfo)\.fields\[\d+\]\.(stringValue|dateValue|numberValue|boolValue)|payload\.(personInfo|lprPlateInfo)\.tags\[\d+\]\.expires)$/;
      const walk = (value, at) => {
        if (value === null) {
          assert.match(at, allowedNull, `${at} is null`);
        } else if (Array.isArray(value)) {
          assert.ok(value.length > 0, `${at} is empty`);
          value.forEach((v, i) => walk(v, `${at}[${i}]`));
        } else if (typeof value === 'object') {
          assert.ok(Object.keys(value).length > 0, `${at} is empty`);
          for (const [k, v] of Object.entries(value)) walk(v, at ? `${at}.${k}` : k);
        } else {
          assert.notEqual(value, '', `${at} is an empty string`);
        }
      };
      const face = (await call(path('face'))).json;
      const lpr = (await call(path('lpr'))).json;
      for (const event of [face, lpr]) {
        walk(event, '');
        assert.ok(event.fields.length > 0);
        assert.equal(typeof event.fields[0].fieldName, 'string');
        assert.equal(typeof event.fields[0].fieldValue, 'string');
        assert.equal(typeof event.externalId, 'string');
        assert.equal(typeof event.sourceName, 'string');
      }
      const p = face.payload;
      for (const key of ['faceId', 'firstName', 'middleName', 'lastName', 'tags', 'fields', 'notes'])
        assert.ok(p.personInfo[key] != null, `personInfo.${key}`);
      for (const key of ['dateTimeUtc', 'timeZone', 'confidence', 'detectId', 'detectorName'])
        assert.ok(p.detectionInfo[key] != null, `detectionInfo.${key}`);
      assert.ok(p.detectionImage.image && p.defaultPhoto.image && p.detectionHistory.visitHistory.length && p.detectionHistory.printHistory.length);
      assert.ok(p.personInfo.tags[0].tagName && p.personInfo.notes[0].noteTitle && p.personInfo.notes[0].noteBody);
      const valueKeys = ['stringValue', 'dateValue', 'numberValue', 'boolValue'];
      for (const key of valueKeys)
        assert.ok(
          p.personInfo.fields.some((f) => f[key] != null),
          `a personInfo field with ${key}`,
        );
      const q = lpr.payload;
      for (const key of ['plate', 'similar1Plate', 'vehicleMake', 'vehicleModel', 'vehicleColor', 'vehicleState', 'tags', 'fields'])
        assert.ok(q.lprPlateInfo[key] != null, `lprPlateInfo.${key}`);
      for (const key of ['dateTimeUtc', 'timeZone', 'detectorName']) assert.ok(q.detectionInfo[key] != null, `detectionInfo.${key}`);
      assert.ok(q.lprPlateInfo.tags[0].tagName && q.detectionHistory.visitHistory.length);
      assert.deepEqual(q.detectionImages.map((i) => i.cropSizeName).sort(), ['Car', 'Close', 'FullFrame', 'Medium', 'Other']);
    });

    it('rule 6: no failure path: query, credentials, Accept and many calls at once all get 200', async function () {
      const variants = [
        { url: `${path('face')}?x=1&kind=lpr`, headers: {} },
        { url: `${path('lpr')}/`, headers: { authorization: 'Basic bm9ib2R5Ondyb25n' } },
        { url: path('face'), headers: { authorization: 'Bearer not-a-jwt' } },
        { url: path('lpr'), headers: { accept: 'text/html', 'content-type': 'text/plain' } },
        { url: path('face'), method: 'HEAD' },
      ];
      for (const v of variants) {
        const res = await call(v.url, v);
        assert.equal(res.status, 200, `${v.method ?? 'GET'} ${v.url}`);
        if (v.method !== 'HEAD') assert.ok(checkEvent(res.json).ok);
      }
      const many = await Promise.all(Array.from({ length: 20 }, (_, i) => call(path(i % 2 ? 'lpr' : 'face'))));
      assert.deepEqual([...new Set(many.map((r) => r.status))], [200]);
      assert.equal(new Set(many.map((r) => r.json.payload.messageId)).size, 20);
    });

    it('answers 401 with a problem body on any other /api/v1/ path without a JWT', async function () {
      for (const [method, p] of [
        ['GET', '/api/v1/webhooks'],
        ['PUT', '/api/v1/webhooks/3f2b'],
        ['GET', '/api/v1/'],
        ['POST', '/api/v1/webhooks/new'],
      ]) {
        for (const headers of [{}, { authorization: 'Bearer abc' }, { authorization: 'Basic dXNlcjpwdw==' }]) {
          const res = await call(`${server.url}${p}`, { method, headers });
          assert.equal(res.status, 401, `${method} ${p} ${JSON.stringify(headers)}`);
          assert.match(res.headers['content-type'], /^application\/problem\+json/);
          assert.match(res.headers['www-authenticate'], /^Bearer/);
          assert.equal(res.json.status, 401);
          assert.equal(res.json.title, 'Unauthorized');
          assert.match(res.json.detail, /JWT/);
        }
      }
      const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
      const withJwt = await call(`${server.url}/api/v1/webhooks`, { headers: { authorization: `Bearer ${jwt}` } });
      assert.equal(withJwt.status, 404, 'past the JWT check: not simulated');
    });

    it('serves below a base path and over HTTPS with a self-signed certificate', async function () {
      const tlsServer = await sim.startSampleServer({ port: 0, tls: 'self-signed', basePath: '/eventsbridge' });
      try {
        assert.match(tlsServer.url, /^https:\/\/127\.0\.0\.1:\d+\/eventsbridge$/);
        assert.match(tlsServer.fingerprint256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
        const res = await call(`${tlsServer.url}/api/v1/webhook-models/lpr`, { insecure: true });
        assert.equal(res.status, 200);
        assert.equal(res.json.publishType, 'WebHookLprPayload');
        await assert.rejects(call(`${tlsServer.url}/api/v1/webhook-models/lpr`), (err) => err.code === 'DEPTH_ZERO_SELF_SIGNED_CERT');
        const x509 = new crypto.X509Certificate(tlsServer.cert);
        assert.match(x509.subjectAltName, /IP Address:127\.0\.0\.1/);
      } finally {
        await tlsServer.close();
      }
    });
  });

  describe('delivery', function () {
    let receiver;
    afterEach(async function () {
      await receiver?.close();
      receiver = undefined;
    });

    it('sends the chosen count with fresh messageIds, valid bodies and the summary counts', async function () {
      receiver = await startReceiver();
      const sent = [];
      const run = sim.startDelivery({ url: receiver.url, count: 6, rate: 0, mix: 0.5 });
      run.on('sent', (s) => sent.push(s));
      const summary = await run.done;
      assert.equal(receiver.requests.length, 6);
      const ids = receiver.requests.map((r) => r.json.payload.messageId);
      assert.equal(new Set(ids).size, 6);
      for (const r of receiver.requests) {
        assert.equal(r.method, 'POST');
        assert.match(r.headers['content-type'], /^application\/json/);
        assert.match(r.json.payload.messageId, UUID);
        assert.equal(r.json.payload.resentEvent, false);
        assert.ok(checkEvent(r.json).ok);
        assert.equal(r.headers.authorization, undefined);
      }
      assert.equal(receiver.requests.filter((r) => r.json.publishType === 'WebHookLprPayload').length, 3);
      assert.deepEqual(sent.map((s) => s.messageId).sort(), [...ids].sort());
      assert.equal(summary.sent, 6);
      assert.deepEqual(summary.kinds, { face: 3, lpr: 3 });
      assert.equal(summary.attempts, 6);
      assert.equal(summary.acknowledged, 6);
      assert.equal(summary.retried, 0);
      assert.equal(summary.failed, 0);
      assert.equal(summary.abandoned, 0);
      assert.equal(summary.stopped, false);
      assert.deepEqual(summary.statusCodes, { 200: 6 });
      const l = summary.latencyMs;
      assert.equal(l.count, 6);
      assert.ok(l.p50 > 0 && l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.max);
      // the run lasts at least as long as its slowest attempt (Date.now's whole milliseconds against performance.now's)
      assert.ok(summary.durationMs + 1 >= l.max, `${summary.durationMs} ms run, slowest attempt ${l.max} ms`);
      assert.equal(
        summary.bytesSent,
        receiver.requests.reduce((n, r) => n + r.size, 0),
        'the bytes the receiver got',
      );
      const table = sim.formatSummary(summary);
      for (const word of ['sent', 'attempts', 'acknowledged', 'retried', 'failed', 'p50', 'p90', 'p99', 'max', '200 ×6'])
        assert.ok(table.includes(word), word);
    });

    it('mixes plates and faces as asked', async function () {
      receiver = await startReceiver();
      for (const [mix, plates] of [
        [0, 0],
        [0.3, 3],
        [1, 10],
      ]) {
        receiver.requests.length = 0;
        const summary = await sim.runDelivery({ url: receiver.url, count: 10, rate: 0, mix, concurrency: 8 });
        assert.equal(receiver.requests.filter((r) => r.json.publishType === 'WebHookLprPayload').length, plates, `mix ${mix}`);
        assert.deepEqual(summary.kinds, { face: 10 - plates, lpr: plates });
      }
    });

    it('sends the credentials of each mode', async function () {
      receiver = await startReceiver();
      const modes = [
        [{ mode: 'none' }, (h) => assert.equal(h.authorization, undefined)],
        [
          { mode: 'basic', user: 'bridge', password: 's3cr:et' },
          (h) => assert.equal(h.authorization, `Basic ${Buffer.from('bridge:s3cr:et').toString('base64')}`),
        ],
        [{ mode: 'bearer', token: 'xxx.yyy.zzz' }, (h) => assert.equal(h.authorization, 'Bearer xxx.yyy.zzz')],
        [
          { mode: 'header', headerName: 'X-Api-Key', headerValue: 'k-123' },
          (h) => {
            assert.equal(h['x-api-key'], 'k-123');
            assert.equal(h.authorization, undefined);
          },
        ],
      ];
      for (const [auth, check] of modes) {
        receiver.requests.length = 0;
        const summary = await sim.runDelivery({ url: receiver.url, count: 2, rate: 0, auth });
        assert.equal(summary.acknowledged, 2);
        assert.equal(receiver.requests.length, 2);
        receiver.requests.forEach((r) => check(r.headers));
      }
    });

    it('resilient: retries until a 200, replaying the same messageId with resentEvent true', async function () {
      const answers = [503, 500, 204, 200];
      receiver = await startReceiver({ answer: (rec, _res, all) => answers[all.length - 1] ?? 200 });
      const reports = [];
      const summary = await sim.runDelivery({ url: receiver.url, count: 1, resilient: true, retryDelayMs: 20, onAttempt: (r) => reports.push(r) });
      assert.equal(receiver.requests.length, 4, 'a 204 does not end a resilient delivery: only a 200 does');
      const ids = new Set(receiver.requests.map((r) => r.json.payload.messageId));
      assert.equal(ids.size, 1);
      assert.deepEqual(
        receiver.requests.map((r) => r.json.payload.resentEvent),
        [false, true, true, true],
      );
      assert.deepEqual(
        reports.map((r) => r.outcome),
        ['retry', 'retry', 'retry', 'acknowledged'],
      );
      assert.deepEqual(
        reports.map((r) => r.retryInMs),
        [20, 20, 20, undefined],
        'a constant pause',
      );
      assert.equal(summary.sent, 1);
      assert.equal(summary.attempts, 4);
      assert.equal(summary.retried, 3);
      assert.equal(summary.acknowledged, 1);
      assert.equal(summary.failed, 0);
      assert.equal(summary.mode, 'resilient');
      assert.deepEqual(summary.statusCodes, { 200: 1, 204: 1, 500: 1, 503: 1 });
      assert.equal(summary.latencyMs.count, 1);
    });

    it('a slow answer times out and is retried: the receiver sees the event twice, the summary one acknowledged event', async function () {
      // Slow for a while: until its first answer has gone out (5 s, far past the timeout).
      let slow = true;
      receiver = await startReceiver({
        answer: (rec, res) => {
          if (slow) {
            slow = false;
            res.later(5000, 200); // answers, but too late
            return true;
          }
          return 200;
        },
      });
      const summary = await sim.runDelivery({ url: receiver.url, count: 1, resilient: true, retryDelayMs: 100, timeoutMs: 800 });
      assert.equal(receiver.requests.length, 2);
      const [first, second] = receiver.requests;
      assert.equal(first.json.payload.messageId, second.json.payload.messageId);
      assert.equal(first.json.payload.resentEvent, false);
      assert.equal(second.json.payload.resentEvent, true);
      assert.equal(summary.sent, 1);
      assert.equal(summary.acknowledged, 1);
      assert.equal(summary.attempts, 2);
      assert.equal(summary.retried, 1);
      assert.deepEqual(summary.errors, { timeout: 1 });
      assert.deepEqual(summary.statusCodes, { 200: 1 });
    });

    it('counts non-2xx answers as failures, after retries with exponential backoff', async function () {
      const answers = [500, 404, 302, 401];
      receiver = await startReceiver({ answer: (rec, _res, all) => answers[(all.length - 1) % answers.length] });
      const once = await sim.runDelivery({ url: receiver.url, count: 4, rate: 0, retries: 0, concurrency: 1 });
      assert.equal(receiver.requests.length, 4);
      assert.equal(once.acknowledged, 0);
      assert.equal(once.failed, 4);
      assert.equal(once.retried, 0);
      assert.deepEqual(once.statusCodes, { 302: 1, 401: 1, 404: 1, 500: 1 });
      assert.equal(once.latencyMs.count, 0);
      assert.equal(once.latencyMs.p50, null);

      receiver.requests.length = 0;
      const reports = [];
      const retried = await sim.runDelivery({ url: receiver.url, count: 1, retries: 3, retryDelayMs: 10, onAttempt: (r) => reports.push(r) });
      assert.equal(receiver.requests.length, 4);
      assert.deepEqual(
        reports.map((r) => r.retryInMs),
        [10, 20, 40, undefined],
      );
      assert.deepEqual(
        reports.map((r) => r.outcome),
        ['retry', 'retry', 'retry', 'failed'],
      );
      assert.deepEqual(
        receiver.requests.map((r) => r.json.payload.resentEvent),
        [false, true, true, true],
      );
      assert.equal(new Set(receiver.requests.map((r) => r.json.payload.messageId)).size, 1);
      assert.equal(retried.failed, 1);
      assert.equal(retried.attempts, 4);
      assert.equal(retried.retried, 3);
      assert.equal(retried.mode, 'retries');
    });

    it('any 2xx acknowledges a delivery that is not resilient', async function () {
      receiver = await startReceiver({ answer: () => 202 });
      const summary = await sim.runDelivery({ url: receiver.url, count: 2, rate: 0 });
      assert.equal(summary.acknowledged, 2);
      assert.equal(receiver.requests.length, 2);
    });

    it('realistic images: a plate event near 1 MB with four named crops, a face event near 370 KB', async function () {
      receiver = await startReceiver();
      const summary = await sim.runDelivery({ url: receiver.url, count: 2, rate: 0, mix: 0.5, realisticImages: true });
      assert.equal(summary.acknowledged, 2);
      const plate = receiver.requests.find((r) => r.json.publishType === 'WebHookLprPayload');
      const face = receiver.requests.find((r) => r.json.publishType === 'WebHookFaceRecPayload');
      assert.ok(plate.size > 0.9 * 1024 * 1024 && plate.size < 1.1 * 1024 * 1024, `plate ${plate.size} bytes`);
      assert.ok(face.size > 330 * 1024 && face.size < 410 * 1024, `face ${face.size} bytes`);
      assert.deepEqual(
        plate.json.payload.detectionImages.map((i) => i.cropSizeName),
        ['Close', 'Medium', 'Car', 'FullFrame'],
      );
      for (const image of [...images(plate.json), ...images(face.json)]) {
        const bytes = Buffer.from(image, 'base64');
        assert.ok(bytes.length > 50 * 1024, 'hundreds of kilobytes, not a filler');
        assert.deepEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff], 'starts like a JPEG');
        assert.equal(bytes.toString('base64'), image, 'valid base64');
      }
      // each is the picture drawn for the event, grown with JPEG comment segments: without them, that picture itself
      for (const { image, cropSizeName } of plate.json.payload.detectionImages) {
        assert.equal(withoutComments(Buffer.from(image, 'base64')).toString('base64'), sim.drawnPicture(cropSizeName, 'XYZ987'), cropSizeName);
        assert.equal(readPictureText(Buffer.from(image, 'base64')), 'XYZ987', `${cropSizeName} shows the plate`);
      }
      for (const name of ['detectionImage', 'defaultPhoto']) {
        const jpeg = Buffer.from(face.json.payload[name].image, 'base64');
        assert.equal(withoutComments(jpeg).toString('base64'), sim.drawnPicture(name, 'John Michael Doe'), name);
        assert.equal(readPictureText(jpeg), 'JOHN MICHAEL DOE', `${name} shows the name`);
      }
      assert.ok(checkEvent(plate.json).ok && checkEvent(face.json).ok);
    });

    it('accepts a self-signed receiver certificate only with insecure', async function () {
      const { key, cert } = sim.createSelfSignedCertificate({ names: ['127.0.0.1'] });
      receiver = await startReceiver({ tls: { key, cert } });
      const strict = await sim.runDelivery({ url: receiver.url, count: 1, retries: 0 });
      assert.equal(strict.failed, 1);
      assert.equal(strict.acknowledged, 0);
      assert.deepEqual(Object.keys(strict.errors), ['DEPTH_ZERO_SELF_SIGNED_CERT']);
      assert.equal(receiver.requests.length, 0);
      const insecure = await sim.runDelivery({ url: receiver.url, count: 1, retries: 0, insecure: true });
      assert.equal(insecure.acknowledged, 1);
      assert.equal(receiver.requests.length, 1);
    });

    it('keeps at most `concurrency` events in flight', async function () {
      receiver = await startReceiver({
        answer: (rec, res) => {
          res.later(60, 200);
          return true;
        },
      });
      const summary = await sim.runDelivery({ url: receiver.url, count: 8, rate: 0, concurrency: 2 });
      assert.equal(summary.acknowledged, 8);
      assert.ok(receiver.maxInFlight <= 2, `max in flight ${receiver.maxInFlight}`);
    });

    it('several URLs: attempts go to them in turn, round robin, and a retry goes to the next one', async function () {
      const down = await startReceiver({ answer: () => 503 });
      receiver = await startReceiver();
      try {
        const reports = [];
        const summary = await sim.runDelivery({
          url: [down.url, receiver.url],
          count: 4,
          rate: 0,
          concurrency: 1,
          resilient: true,
          retryDelayMs: 10,
          onAttempt: (r) => reports.push(r),
        });
        assert.equal(summary.acknowledged, 4);
        assert.equal(summary.url, `${down.url}, ${receiver.url}`);
        // Events 1 and 3 go first to the instance that refuses, then to the next one; 2 and 4 start there.
        assert.deepEqual(
          reports.map((r) => [r.seq, r.attempt, r.url === down.url ? 'down' : 'up', r.outcome]),
          [
            [1, 1, 'down', 'retry'],
            [1, 2, 'up', 'acknowledged'],
            [2, 1, 'up', 'acknowledged'],
            [3, 1, 'down', 'retry'],
            [3, 2, 'up', 'acknowledged'],
            [4, 1, 'up', 'acknowledged'],
          ],
        );
        assert.deepEqual(
          down.requests.map((r) => r.json.payload.resentEvent),
          [false, false],
        );
        assert.deepEqual(
          receiver.requests.map((r) => r.json.payload.resentEvent),
          [true, false, true, false],
          'the retry at the next instance is a replay',
        );
        assert.deepEqual(summary.statusCodes, { 200: 4, 503: 2 });
        const single = await sim.runDelivery({ url: receiver.url, count: 1, rate: 0, onAttempt: (r) => reports.push(r) });
        assert.equal(single.url, receiver.url, 'one URL: the summary as before');
        assert.equal(reports.at(-1).url, receiver.url);
      } finally {
        await down.close();
      }
    });

    it('forever until the AbortSignal stops it', async function () {
      receiver = await startReceiver();
      const controller = new AbortController();
      const run = sim.startDelivery({ url: receiver.url, forever: true, rate: 100, signal: controller.signal });
      const sentIds = new Set();
      let sentAfterStop = 0;
      run.on('sent', (r) => {
        sentIds.add(r.messageId);
        if (controller.signal.aborted) sentAfterStop++;
      });
      await waitFor(() => receiver.requests.length >= 5);
      controller.abort();
      const summary = await run.done;
      assert.equal(summary.stopped, true);
      assert.ok(summary.sent >= 5);
      assert.equal(summary.sent, summary.acknowledged + summary.failed + summary.abandoned);
      assert.equal(sentAfterStop, 0, 'no event started after the stop');
      assert.equal(summary.sent, sentIds.size);
      for (const r of receiver.requests)
        assert.ok(sentIds.has(r.json.payload.messageId), 'every request received is one the run sent before it stopped');
    });

    it('rejects bad options with SimOptionError', function () {
      const bad = [
        [{ url: 'not a url' }, 'url'],
        [{ url: 'ftp://x/' }, 'url'],
        [{ url: 'http://u:p@127.0.0.1/' }, 'url'],
        [{ url: 'http://127.0.0.1/', rate: -1 }, 'rate'],
        [{ url: 'http://127.0.0.1/', mix: 1.5 }, 'mix'],
        [{ url: 'http://127.0.0.1/', count: 0 }, 'count'],
        [{ url: 'http://127.0.0.1/', concurrency: 1.5 }, 'concurrency'],
        [{ url: 'http://127.0.0.1/', auth: { mode: 'basic', user: 'u' } }, 'auth'],
        [{ url: [] }, 'url'],
        [{ url: ['http://127.0.0.1/a', 'ftp://x/'] }, 'url'],
      ];
      for (const [options, option] of bad) {
        assert.throws(
          () => sim.startDelivery(options),
          (err) => err instanceof sim.SimOptionError && err.option === option,
          JSON.stringify(options),
        );
      }
    });
  });

  describe('command line', function () {
    let receiver;
    let tmp;
    before(function () {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bridge-sim-'));
    });
    after(function () {
      fs.rmSync(tmp, { recursive: true, force: true });
    });
    afterEach(async function () {
      await receiver?.close();
      receiver = undefined;
    });

    /** Spawns the bin; resolves with code, stdout, stderr. `onStart(child)` may drive it. */
    function runCli(args, { onStart, env } = {}) {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('error', reject);
        child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
        const killer = setTimeout(() => child.kill('SIGKILL'), 60000);
        child.on('close', () => clearTimeout(killer));
        onStart?.(child, () => stdout);
      });
    }

    it('--help exits 0 and explains every option', async function () {
      const res = await runCli(['--help']);
      assert.equal(res.code, 0);
      const options = [
        'serve',
        'send',
        '--port',
        '--host',
        '--base-path',
        '--tls-self-signed',
        '--tls-cert',
        '--tls-key',
        '--core',
        '--url',
        '--count',
        '--forever',
        '--rate',
        '--mix',
        '--auth',
        '--user',
        '--password',
        '--token',
        '--header-name',
        '--header-value',
        '--images',
        '--realistic-images',
        '--scenario',
        '--plates',
        '--faces',
        '--cameras',
        '--sites',
        '--time-zone',
        '--time-of-day',
        '--tag-prefix',
        '--seed',
        '--resilient',
        '--retry-delay',
        '--timeout',
        '--retries',
        '--concurrency',
        '--insecure',
        '--summary-json',
        '--quiet',
        '--help',
      ];
      for (const option of options) assert.ok(res.stdout.includes(option), `help mentions ${option}`);
      assert.match(res.stdout, /--url URL[^\n]*repeat it[\s\S]*round\s+robin/, 'help says --url may be repeated, round robin');
      const sendHelp = await runCli(['send', '--help']);
      assert.equal(sendHelp.code, 0);
      assert.equal(sendHelp.stdout, res.stdout);
    });

    it('bad options exit 2 with a message on stderr', async function () {
      const cases = [
        [['send', '--url', 'http://127.0.0.1:9/x', '--bogus'], /--bogus/],
        [['send', '--url'], /--url/],
        [['send', '--url', 'http://127.0.0.1:9/x', '--rate', 'abc'], /--rate: "abc" is not a number/],
        [['send', '--url', 'http://127.0.0.1:9/x', '--mix', '2'], /--mix: must be at most 1/],
        [['send', '--url', 'http://127.0.0.1:9/x', '--count', '2.5'], /--count: expected a whole number/],
        [['send', '--url', 'not-a-url'], /--url: "not-a-url" is not an absolute URL/],
        [['send', '--url', 'http://127.0.0.1:9/x', '--auth', 'basic', '--token', 't'], /conflicting credentials/],
        [['send', '--url', 'http://127.0.0.1:9/x', '--user', 'u', '--token', 't'], /conflicting credentials/],
        [['send', '--url', 'http://127.0.0.1:9/x', '--auth', 'bearer'], /--auth bearer needs --token/],
        [['send', '--url', 'http://127.0.0.1:9/x', '--count', '3', '--forever'], /--count and --forever conflict/],
        [['send'], /--url is required/],
        [['send', '--url', 'http://127.0.0.1:9/x', '--url', 'ftp://x/'], /--url: expected http:\/\/ or https:\/\//],
        [['serve', '--port', '70000'], /--port: must be at most 65535/],
        [['serve', '--url', 'http://x'], /--url/],
        [['frobnicate'], /unknown command "frobnicate"/],
        [[], /a command is needed/],
      ];
      // the first through the bin (its exit code and stderr), the others in this process
      const results = [await runCli(cases[0][0], { env: { DETECTION_SIM_TOKEN: '' } })];
      for (const [args] of cases.slice(1)) results.push(await runMain(args, { DETECTION_SIM_TOKEN: '' }));
      results.forEach((res, i) => {
        const [args, message] = cases[i];
        assert.equal(res.code, 2, `${args.join(' ')}: exit ${res.code}, ${res.stderr}`);
        assert.match(res.stderr, message, args.join(' '));
        assert.match(res.stderr, /--help/);
        assert.equal(res.stdout, '');
      });
    });

    it('send --count 5 exits 0, prints the table and writes the JSON summary', async function () {
      receiver = await startReceiver();
      const file = path.join(tmp, 'summary.json');
      const res = await runCli([
        'send',
        '--url',
        receiver.url,
        '--count',
        '5',
        '--rate',
        '0',
        '--auth',
        'bearer',
        '--token',
        'tok',
        '--summary-json',
        file,
        '--quiet',
      ]);
      assert.equal(res.code, 0, res.stderr);
      assert.equal(res.stderr, '', '--quiet');
      assert.match(res.stdout, /delivery summary/);
      assert.match(res.stdout, /acknowledged\s+5/);
      const summary = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.equal(summary.sent, 5);
      assert.equal(summary.acknowledged, 5);
      assert.equal(summary.failed, 0);
      assert.deepEqual(summary.statusCodes, { 200: 5 });
      assert.equal(receiver.requests.length, 5);
      assert.ok(receiver.requests.every((r) => r.headers.authorization === 'Bearer tok'));
    });

    it('send with --url repeated spreads the events over the receivers in turn', async function () {
      receiver = await startReceiver();
      const other = await startReceiver();
      try {
        const res = await runCli(['send', '--url', receiver.url, '--url', other.url, '--count', '4', '--rate', '0', '--concurrency', '1']);
        assert.equal(res.code, 0, res.stderr);
        assert.match(res.stderr, /round robin/);
        assert.match(res.stdout, /acknowledged\s+4/);
        assert.equal(receiver.requests.length, 2);
        assert.equal(other.requests.length, 2);
      } finally {
        await other.close();
      }
    });

    it('send exits 1 when events failed', async function () {
      receiver = await startReceiver({ answer: () => 500 });
      const res = await runCli(['send', '--url', receiver.url, '--count', '2', '--rate', '0', '--retries', '0']);
      assert.equal(res.code, 1);
      assert.match(res.stdout, /failed\s+2/);
      assert.match(res.stderr, /attempt 1: 500 .*FAILED/);
    });

    it('send says of an attempt without an answer what went wrong and after how long', async function () {
      // a port nothing listens on
      const closed = http.createServer();
      await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = closed.address().port;
      await new Promise((resolve) => closed.close(resolve));
      const res = await runCli(['send', '--url', `http://127.0.0.1:${port}/detections`, '--count', '1', '--rate', '0', '--retries', '0']);
      assert.equal(res.code, 1);
      assert.match(res.stderr, /attempt 1: ECONNREFUSED after \d+ ms \(connect ECONNREFUSED 127\.0\.0\.1:\d+\) → FAILED/);
    });

    it('send --forever stops cleanly on SIGINT and prints the summary', async function () {
      receiver = await startReceiver();
      const file = path.join(tmp, 'forever.json');
      const res = await runCli(['send', '--url', receiver.url, '--forever', '--rate', '50', '--summary-json', file], {
        onStart: (child) => {
          waitFor(() => receiver.requests.length >= 3, 10000).then(
            () => child.kill('SIGINT'),
            () => child.kill('SIGKILL'),
          );
        },
      });
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /SIGINT: stopping/);
      assert.match(res.stdout, /\(stopped\)/);
      const summary = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.equal(summary.stopped, true);
      assert.ok(summary.sent >= 3);
    });

    it('serve answers the sample endpoints and stops on SIGINT', async function () {
      let got;
      const res = await runCli(['serve', '--port', '0', '--quiet'], {
        onStart: (child, stdout) => {
          waitFor(() => /sample endpoints at (\S+)/.test(stdout()), 10000)
            .then(async () => {
              const base = /sample endpoints at (\S+)/.exec(stdout())[1];
              got = await call(`${base}/api/v1/webhook-models/face`);
            })
            .catch(() => undefined)
            .finally(() => child.kill('SIGINT'));
        },
      });
      assert.equal(res.code, 0, res.stderr);
      assert.equal(got?.status, 200);
      assert.equal(got.json.publishType, 'WebHookFaceRecPayload');
    });
  });

  describe('scenarios: what the events show', function () {
    let receiver;
    let tmp;
    before(function () {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bridge-sim-scenario-'));
    });
    after(function () {
      fs.rmSync(tmp, { recursive: true, force: true });
    });
    afterEach(async function () {
      await receiver?.close();
      receiver = undefined;
    });

    function runCli(args) {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    }

    /** What an event shows, without what changes on every run (ids, UTC times, images). */
    function shown(e) {
      const p = e.payload;
      const who = p.lprPlateInfo ? p.lprPlateInfo.plate : [p.personInfo.firstName, p.personInfo.middleName, p.personInfo.lastName].join(' ');
      const tags = (p.lprPlateInfo ?? p.personInfo).tags.map((t) => `${t.tagName}@${t.expires}`);
      const at = new Intl.DateTimeFormat('en-GB', { timeZone: p.detectionInfo.timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
      return [
        e.publishType,
        who,
        tags.join('+'),
        p.detectionInfo.detectorName,
        e.sourceName,
        p.detectionInfo.timeZone,
        at.format(new Date(p.detectionInfo.dateTimeUtc)),
      ].join(' | ');
    }

    it('send --plates ABC123:Banned --time-of-day night --time-zone America/New_York: a Banned plate at night with JPEGs that decode', async function () {
      receiver = await startReceiver();
      const started = Date.now();
      const res = await runCli([
        'send',
        '--url',
        receiver.url,
        '--plates',
        'ABC123:Banned',
        '--time-of-day',
        'night',
        '--time-zone',
        'America/New_York',
        '--cameras',
        'Gate 2 LPR',
        '--count',
        '4',
        '--rate',
        '0',
      ]);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /pictures images, scenario with --seed \d+/, 'the seed is printed, so the run can be repeated');
      assert.equal(receiver.requests.length, 4);
      for (const { json: event } of receiver.requests) {
        assert.ok(checkEvent(event).ok, 'a valid event');
        assert.equal(event.publishType, 'WebHookLprPayload', 'only plates given: every event is a plate');
        const { lprPlateInfo, detectionInfo, detectionImages } = event.payload;
        assert.equal(lprPlateInfo.plate, 'ABC123');
        assert.deepEqual(lprPlateInfo.tags, [{ tagName: 'Banned', expires: null }]);
        assert.equal(detectionInfo.detectorName, 'Gate 2 LPR');
        assert.equal(detectionInfo.timeZone, 'America/New_York');
        const at = Date.parse(detectionInfo.dateTimeUtc);
        assert.ok(at <= Date.now() && at > started - 24 * HOUR, `${detectionInfo.dateTimeUtc}: within the last day, not in the future`);
        const hour = localHour(detectionInfo.dateTimeUtc, 'America/New_York');
        assert.ok(hour >= 22 || hour < 6, `night in New York: ${detectionInfo.dateTimeUtc} is ${hour}:xx there`);
        // real JPEGs, one per crop, readable segment by segment from SOI to EOI, each showing the plate
        assert.deepEqual(
          detectionImages.map((i) => i.cropSizeName),
          ['Close', 'Medium', 'Car', 'FullFrame', 'Other'],
        );
        for (const { image, cropSizeName } of detectionImages) {
          const jpeg = Buffer.from(image, 'base64');
          assert.ok(jpeg.length > 1000, `${cropSizeName}: a picture, not a two-byte filler`);
          assert.equal(withoutComments(jpeg).length, jpeg.length, `${cropSizeName}: no padding`);
          assert.equal(readPictureText(jpeg), 'ABC123', cropSizeName);
        }
      }
    });

    it("faces with and without tags, a tag prefix, and --images fillers for the sample endpoints' two-byte images", async function () {
      receiver = await startReceiver();
      const res = await runCli([
        'send',
        '--url',
        receiver.url,
        '--faces',
        'Jane Roe:VIP@2030-12-31,Max Mustermann',
        '--tag-prefix',
        'partner',
        '--time-of-day',
        '23:30',
        '--time-zone',
        'Europe/Berlin',
        '--images',
        'fillers',
        '--count',
        '6',
        '--rate',
        '0',
        '--seed',
        '11',
        '--quiet',
      ]);
      assert.equal(res.code, 0, res.stderr);
      const events = receiver.requests.map((r) => r.json);
      assert.ok(events.every((e) => e.publishType === 'WebHookFaceRecPayload'));
      const people = new Map(events.map((e) => [`${e.payload.personInfo.firstName} ${e.payload.personInfo.lastName}`, e.payload.personInfo]));
      assert.deepEqual([...people.keys()].sort(), ['Jane Roe', 'Max Mustermann'], 'six draws with seed 11 show both');
      assert.deepEqual(people.get('Jane Roe').tags, [{ tagName: 'partner-VIP', expires: '2030-12-31T23:59:59Z' }]);
      assert.deepEqual(people.get('Max Mustermann').tags, [], "no tag: nobody's VIP");
      for (const e of events) {
        const at = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
        assert.equal(at.format(new Date(e.payload.detectionInfo.dateTimeUtc)), '23:30');
        assert.deepEqual(images(e), ['/9g=', '/9g='], 'fillers');
      }
    });

    it('--images none: events without image fields; a scenario plate with "images": false has none while the others show theirs', async function () {
      receiver = await startReceiver();
      const none = await runCli(['send', '--url', receiver.url, '--images', 'none', '--count', '2', '--rate', '0', '--quiet']);
      assert.equal(none.code, 0, none.stderr);
      for (const { json: event } of receiver.requests) {
        assert.ok(checkEvent(event).ok);
        assert.deepEqual(images(event), [], event.publishType);
        assert.ok(!('detectionImages' in event.payload || 'detectionImage' in event.payload || 'defaultPhoto' in event.payload));
      }
      receiver.requests.length = 0;
      const file = path.join(tmp, 'mixed-pictures.json');
      fs.writeFileSync(file, JSON.stringify({ plates: [{ plate: 'BARE01', images: false }, 'SHOWN1'], seed: 5 }));
      const mixed = await runCli(['send', '--url', receiver.url, '--scenario', file, '--count', '12', '--rate', '0', '--quiet']);
      assert.equal(mixed.code, 0, mixed.stderr);
      const plates = new Map(receiver.requests.map(({ json: e }) => [e.payload.lprPlateInfo.plate, e.payload.detectionImages]));
      assert.deepEqual([...plates.keys()].sort(), ['BARE01', 'SHOWN1'], 'twelve draws with seed 5 show both');
      assert.equal(plates.get('BARE01'), undefined);
      assert.deepEqual(
        plates.get('SHOWN1').map((i) => readPictureText(Buffer.from(i.image, 'base64'))),
        ['SHOWN1', 'SHOWN1', 'SHOWN1', 'SHOWN1', 'SHOWN1'],
      );
    });

    it('the same seed gives the same events; the built-in mixed scenario has VIP and Banned, plates and faces, day and night', async function () {
      receiver = await startReceiver();
      const run = async (seed) => {
        receiver.requests.length = 0;
        const summary = await sim.runDelivery({
          url: receiver.url,
          count: 40,
          rate: 0,
          concurrency: 1,
          scenario: sim.BUILT_IN_SCENARIOS.mixed,
          seed,
        });
        assert.equal(summary.acknowledged, 40);
        return receiver.requests.map((r) => r.json);
      };
      const first = await run(42);
      const again = await run(42);
      const other = await run(43);
      assert.deepEqual(again.map(shown), first.map(shown), 'seed 42 twice: the same plates, people, tags, cameras, sites, zones and local times');
      assert.notDeepEqual(other.map(shown), first.map(shown), 'another seed, other events');
      assert.ok(first.every((e) => checkEvent(e).ok));
      const tags = new Set(first.flatMap((e) => (e.payload.lprPlateInfo ?? e.payload.personInfo).tags.map((t) => t.tagName)));
      assert.ok(tags.has('VIP') && tags.has('Banned'), [...tags].join(', '));
      assert.ok(
        first.some((e) => (e.payload.lprPlateInfo ?? e.payload.personInfo).tags.length === 0),
        'some untagged',
      );
      assert.deepEqual(new Set(first.map((e) => e.publishType)).size, 2);
      const hours = first.map((e) => localHour(e.payload.detectionInfo.dateTimeUtc, e.payload.detectionInfo.timeZone));
      assert.ok(hours.some((h) => h >= 22 || h < 6) && hours.some((h) => h >= 8 && h < 18), `night and day: ${hours.join(' ')}`);
      assert.ok(new Set(first.map((e) => e.payload.detectionInfo.detectorName)).size >= 4, 'several cameras');
      assert.ok(new Set(first.map((e) => e.payload.detectionInfo.timeZone)).size >= 2, 'several time zones');
      assert.ok(
        first.every((e) => e.serverContext && e.serverContext.SiteId),
        'each site has its serverContext',
      );
      // plate cameras see plates, face cameras faces
      const plateCams = new Set(first.filter((e) => e.payload.lprPlateInfo).map((e) => e.payload.detectionInfo.detectorName));
      assert.ok(
        [...plateCams].every((c) => /LPR/.test(c)),
        [...plateCams].join(', '),
      );
    });

    it('a scenario file: used as written; its mistakes say where they are and what to write', async function () {
      receiver = await startReceiver();
      const good = path.join(tmp, 'good.json');
      fs.writeFileSync(
        good,
        JSON.stringify({
          seed: 5,
          plates: [{ plate: 'jkr777', tags: [{ name: 'Banned', expires: null }], vehicle: { make: 'Ford' } }],
          cameras: [{ name: 'Dock LPR', kind: 'plate', site: 'Harbor', timeZone: 'America/Los_Angeles' }],
          sites: [{ name: 'Harbor', serverContext: { SiteId: '7' } }],
          timesOfDay: ['night'],
        }),
      );
      const ok = await runCli(['send', '--url', receiver.url, '--scenario', good, '--count', '2', '--rate', '0']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stderr, /--seed 5\b/, "the file's seed");
      for (const { json: e } of receiver.requests) {
        assert.equal(e.payload.lprPlateInfo.plate, 'JKR777');
        assert.equal(e.payload.lprPlateInfo.vehicleMake, 'Ford');
        assert.equal(e.sourceName, 'Harbor');
        assert.deepEqual(e.serverContext, { SiteId: '7' });
        assert.equal(e.payload.detectionInfo.detectorName, 'Dock LPR');
        const hour = localHour(e.payload.detectionInfo.dateTimeUtc, 'America/Los_Angeles');
        assert.ok(hour >= 22 || hour < 6, `night in Los Angeles: ${hour}`);
      }
      const write = (name, content) => {
        const file = path.join(tmp, name);
        fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
        return file;
      };
      const url = 'http://127.0.0.1:9/never';
      const cases = [
        [
          ['--scenario', write('date.json', { plates: [{ plate: 'A1', tags: ['VIP@2030-02-30'] }] })],
          /date\.json: plates\[0\]\.tags\[0\]\.expires: "2030-02-30" is not a date: write it as 2030-12-31/,
        ],
        [
          ['--scenario', write('zone.json', { timeZones: ['Mars/Base'] })],
          /timeZones\[0\]: "Mars\/Base" is not a time zone: use an IANA name such as America\/New_York/,
        ],
        [
          ['--scenario', write('time.json', { timesOfDay: ['midnight'] })],
          /timesOfDay\[0\]: "midnight" is not a time of day: use now, morning, day, afternoon, evening, night or a local time such as 23:30/,
        ],
        [['--scenario', write('key.json', { plate: ['A1'] })], /unknown key "plate"/],
        [['--scenario', write('kind.json', { cameras: [{ name: 'Cam', kind: 'car' }] })], /cameras\[0\]\.kind: expected "face", "plate" or "both"/],
        [['--scenario', write('face.json', { faces: [42] })], /faces\[0\]: expected a person: "Jane Roe"/],
        [['--scenario', write('broken.json', '{ "plates": [')], /broken\.json: not JSON/],
        [['--scenario', path.join(tmp, 'missing.json')], /cannot read .*missing\.json.*no such file.*built-in scenario: sample, mixed/],
        [['--plates', 'ABC123:Banned,XY#1'], /--plates: "XY#1" is not a plate: letters, digits/],
        [['--time-of-day', 'noonish'], /--time-of-day: "noonish" is not a time of day/],
        [['--time-zone', 'New York'], /--time-zone: "New York" is not a time zone/],
        [['--images', 'photos'], /--images: expected pictures, realistic, fillers, none, got "photos"/],
        [['--images', 'fillers', '--realistic-images'], /--realistic-images and --images fillers conflict/],
        [['--seed=-1'], /--seed: must be at least 0/],
        [['--seed', '2.5'], /--seed: expected a whole number/],
      ];
      // the first through the bin, the others in this process (runMain)
      const results = [await runCli(['send', '--url', url, ...cases[0][0]])];
      for (const [args] of cases.slice(1)) results.push(await runMain(['send', '--url', url, ...args]));
      results.forEach((res, i) => {
        const [args, message] = cases[i];
        assert.equal(res.code, 2, `${args.join(' ')}: exit ${res.code}, ${res.stderr}`);
        assert.match(res.stderr, message, args.join(' '));
        assert.equal(res.stdout, '');
      });
      assert.throws(
        () => sim.startDelivery({ url, scenario: { faces: ['Jane Roe:VIP@tomorrow'] } }),
        (e) => e.option === 'scenario' && /faces\[0\]\.tags\[0\]\.expires: "tomorrow" is not a date/.test(e.message),
      );
    });

    it("serve's sample endpoints keep the two-byte fillers", async function () {
      const server = await sim.startSampleServer({ port: 0, host: '127.0.0.1' });
      try {
        const res = await call(`${server.url}/api/v1/webhook-models/lpr`);
        assert.ok(images(res.json).every((i) => i === '/9g='));
        assert.equal(res.json.payload.lprPlateInfo.plate, 'XYZ987');
      } finally {
        await server.close();
      }
    });
  });

  describe("the demo's flows and feeds (scripts/demo-flows.js)", function () {
    const demo = require('../../../scripts/demo-flows');

    it('every tab with a receiver is fed at its own path, with the credentials it needs; ids are unique', function () {
      for (const [haveRedis, haveDashboard] of [
        [true, true],
        [false, false],
      ]) {
        const { flows, credentials, tabs } = demo.buildDemoFlows({
          coreUrl: 'http://127.0.0.1:5023',
          redisUrl: 'redis://127.0.0.1:5024',
          haveRedis,
          haveDashboard,
        });
        assert.equal(tabs[0].id, demo.DEMO_TAB, 'the demo tab first: the editor opens it');
        assert.equal(new Set(flows.map((n) => n.id)).size, flows.length, 'unique ids');
        assert.equal(credentials[demo.DEMO_IN].token, demo.DEMO_TOKEN);
        // a receiver on a listener has a port of its own, which the simulator's feeds leave alone
        const receivers = flows.filter((n) => n.type === 'detection-in' && !n.listener);
        assert.ok(
          flows.filter((n) => n.type === 'detection-listener').every((n) => n.host === '127.0.0.1'),
          'a listener of the demo listens on 127.0.0.1 only',
        );
        const feeds = demo.demoFeeds('http://127.0.0.1:1', { haveRedis, haveDashboard });
        for (const receiver of receivers) {
          const feed = feeds.find((f) => f.path === receiver.path);
          assert.ok(feed, `the receiver at ${receiver.path} is fed`);
          assert.equal(feed.tab, receiver.z, `${receiver.path}: the feed names its tab`);
        }
        assert.equal(feeds.length, receivers.length, 'no feed without a receiver');
        assert.ok(Math.abs(feeds.reduce((sum, f) => sum + f.fraction, 0) - 1) < 1e-9);
        assert.equal(
          flows.some((n) => n.type === 'detection-redis'),
          haveRedis,
        );
        assert.equal(
          flows.some((n) => n.type.startsWith('ui-')),
          haveDashboard,
        );
        const inline = demo.withCredentials(flows, credentials).find((n) => n.id === demo.DEMO_IN);
        assert.deepEqual(inline.credentials, { token: demo.DEMO_TOKEN });
      }
    });

    it('a receiver the demo does not know gets the mixed scenario; one on a listener of its own, a disabled one, none', function () {
      const { flows } = demo.buildDemoFlows({});
      const extra = [
        { id: 'newtab', type: 'tab', label: 'new example' },
        { id: 'new1', type: 'detection-in', z: 'newtab', path: '/new/detections' },
        { id: 'new2', type: 'detection-in', z: 'newtab', path: '/own/port', listener: 'lst1' },
        { id: 'new3', type: 'detection-in', z: 'newtab', path: '/off', d: true },
      ];
      const feeds = demo.demoFeeds('http://127.0.0.1:1', { flows: [...flows, ...extra] });
      const added = feeds.filter((f) => f.tab === 'newtab');
      assert.deepEqual(
        added.map((f) => [f.url, f.label, f.scenario]),
        [['http://127.0.0.1:1/new/detections', 'new example', 'mixed']],
      );
    });

    it("the alert example's feed opens with a VIP person at its face camera and a Banned plate at night at its gate", function () {
      const scenario = sim.parseScenario(demo.ALERT_SCENARIO);
      const draw = new sim.ScenarioDraw(scenario);
      const face = sim.buildDeliveryEvent('face', { scene: draw.next('face'), scenario });
      const plate = sim.buildDeliveryEvent('lpr', { scene: draw.next('lpr'), scenario });
      assert.equal(face.payload.personInfo.firstName, 'Jane');
      assert.deepEqual(
        face.payload.personInfo.tags.map((t) => t.tagName),
        ['VIP'],
      );
      assert.equal(face.payload.detectionInfo.detectorName, 'Entrance Cam 3');
      assert.equal(plate.payload.lprPlateInfo.plate, 'ABC123');
      assert.deepEqual(plate.payload.lprPlateInfo.tags, [{ tagName: 'Banned', expires: null }]);
      assert.equal(plate.payload.detectionInfo.detectorName, 'Gate 2 LPR');
      const hour = localHour(plate.payload.detectionInfo.dateTimeUtc, plate.payload.detectionInfo.timeZone);
      assert.ok(hour >= 22 || hour < 6, `night: ${hour}`);
    });

    it("presets the debug sidebar's filter to the tab on screen, keeping a user's own choice", function () {
      assert.deepEqual(demo.demoUserSettings({}), { _: { debug: { filter: 'filterCurrent' } } });
      const chosen = { _: { debug: { filter: 'filterAll' }, editor: { view: {} } } };
      assert.deepEqual(demo.demoUserSettings(chosen), chosen);
      assert.deepEqual(demo.demoUserSettings({ _: { editor: { x: 1 } } }), { _: { editor: { x: 1 }, debug: { filter: 'filterCurrent' } } });
    });
  });
});
