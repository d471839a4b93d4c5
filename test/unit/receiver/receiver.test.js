'use strict';
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const { createReceiver, MiB } = require('../../../dist/lib/receiver/receiver');
const ev = require('../../fixtures/events');
const { request, rawClient, postJson, until } = require('../../support');

/** A node:http server running the receiver, recording every hook call. */
async function startReceiver(options = {}, hookOverrides = {}) {
  const calls = { emitted: [], invalid: [], rejected: [] };
  const receive = createReceiver(
    { auth: { mode: 'none' }, maxBodyBytes: MiB, validation: 'strict', ...options },
    {
      emit(d) {
        calls.emitted.push(d);
      },
      onInvalid(d) {
        calls.invalid.push(d);
      },
      onRejected(p) {
        calls.rejected.push(p);
      },
      ...hookOverrides,
    },
  );
  const server = http.createServer((req, res) => {
    receive(req, res).catch((err) => {
      calls.crash = err;
      res.destroy();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const stop = () => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  };
  return { url, calls, stop, server };
}

describe('lib/receiver/receiver over node:http', () => {
  let r;
  afterEach(async () => {
    if (r) {
      assert.equal(r.calls.crash, undefined, 'the receiver never throws');
      await r.stop();
    }
    r = undefined;
  });

  it('answers 200 before emitting, with the message id', async () => {
    r = await startReceiver();
    const res = await postJson(r.url, ev.fullLpr());
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { status: 'accepted', messageId: 'msg-lpr-0001' });
    await until(() => r.calls.emitted.length === 1);
    assert.equal(r.calls.emitted[0].kind, 'lpr');
    assert.equal(r.calls.emitted[0].event.payload.lprPlateInfo.plate, 'XYZ987');
  });

  it('writes the answer before the emit hook runs', async () => {
    let answeredWhenEmitted;
    r = await startReceiver(
      {},
      {
        emit() {
          answeredWhenEmitted = lastRes.writableEnded;
        },
      },
    );
    let lastRes;
    r.server.prependListener('request', (_req, res) => {
      lastRes = res;
    });
    assert.equal((await postJson(r.url, ev.minimalFace())).status, 200);
    assert.equal(answeredWhenEmitted, true);
  });

  it('waits for enqueue, and answers 503 with Retry-After when it fails', async () => {
    // each enqueue stays pending until the test settles it
    const pending = [];
    r = await startReceiver({}, { enqueue: () => new Promise((resolve, reject) => pending.push({ resolve, reject })) });
    const answers = [];
    r.server.prependListener('request', (_req, res) => answers.push(res));
    const failing = postJson(r.url, ev.minimalFace());
    await until(() => pending.length === 1, 2000, 'the enqueue');
    assert.equal(answers[0].headersSent, false, 'no answer while the enqueue is pending');
    pending[0].reject(new Error('disk full'));
    const res = await failing;
    assert.equal(res.status, 503);
    assert.equal(res.headers['retry-after'], '1');
    assert.match(res.json.detail, /disk full/);
    assert.equal(r.calls.emitted.length, 0);
    const accepted = postJson(r.url, ev.minimalFace());
    await until(() => pending.length === 2, 2000, 'the second enqueue');
    assert.equal(answers[1].headersSent, false, 'no answer while the enqueue is pending');
    assert.equal(r.calls.emitted.length, 0, 'nothing emitted before it is enqueued');
    pending[1].resolve();
    assert.equal((await accepted).status, 200);
    assert.equal(r.calls.emitted.length, 1);
  });

  it('answers 200 to a resend the enqueue hook absorbed (its messageId held unfinished), and does not emit it', async () => {
    r = await startReceiver({}, { enqueue: (d) => void (d.absorbed = d.event.payload.messageId === 'msg-lpr-0001') });
    const res = await postJson(r.url, ev.fullLpr());
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { status: 'accepted', messageId: 'msg-lpr-0001' });
    // The emit hook runs right after the answer is written: none came.
    assert.equal(r.calls.emitted.length, 0);
    assert.equal((await postJson(r.url, ev.fullLpr({ payload: { ...ev.fullLpr().payload, messageId: 'other' } }))).status, 200);
    assert.deepEqual(
      r.calls.emitted.map((d) => d.event.payload.messageId),
      ['other'],
    );
  });

  it('refuses a declared Content-Length over the limit without reading the body', async () => {
    r = await startReceiver({ maxBodyBytes: 1000 });
    // Declare 5 GB but send one byte: the answer must come from the header alone.
    const client = await rawClient(r.url);
    await client.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000000000\r\n\r\n{');
    const answer = await client.answer();
    client.close();
    assert.equal(answer.status, 413);
    assert.match(answer.head, /application\/problem\+json/);
    assert.match(answer.json.detail, /over this receiver's limit of 1000 bytes/);
    assert.equal(r.calls.rejected[0].status, 413);
  });

  it('stops reading a chunked body once it passes the limit', async () => {
    r = await startReceiver({ maxBodyBytes: 64 * 1024 });
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    let written = 0;
    const res = await new Promise((resolve, reject) => {
      const port = Number(new URL(r.url).port);
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          agent: false,
        },
        (response) => {
          let text = '';
          response.on('data', (c) => {
            text += c;
          });
          response.on('end', () => resolve({ status: response.statusCode, text }));
        },
      );
      req.on('error', (err) => (req.res ? undefined : reject(err)));
      // Keep sending until the server answers: 100 MiB would be sent if it never did.
      const pump = () => {
        while (!req.destroyed && !req.res && written < 100 * MiB) {
          written += chunk.length;
          if (!req.write(chunk)) return req.once('drain', pump);
        }
      };
      pump();
    });
    assert.equal(res.status, 413);
    assert.ok(written < 20 * MiB, `the server stopped the upload early (client wrote ${written} bytes)`);
  });

  it('accepts a body exactly at the limit', async () => {
    const body = JSON.stringify(ev.minimalLpr());
    r = await startReceiver({ maxBodyBytes: Buffer.byteLength(body) });
    assert.equal((await request(r.url, { body, headers: { 'content-type': 'application/json' } })).status, 200);
    assert.equal((await request(r.url, { body: body + ' ', headers: { 'content-type': 'application/json' } })).status, 413);
  });

  it('accepts a chunked body under the limit', async () => {
    r = await startReceiver();
    const text = JSON.stringify(ev.fullFace());
    const res = await request(r.url, {
      chunked: true,
      headers: { 'content-type': 'application/json' },
      body: [text.slice(0, 100), text.slice(100, 500), text.slice(500)],
    });
    assert.equal(res.status, 200);
    assert.equal(r.calls.emitted[0].event.payload.personInfo.lastName, 'Doe');
  });

  it('answers 415 to non-JSON content types (text/plain aside), charsets and encodings', async () => {
    r = await startReceiver();
    const body = JSON.stringify(ev.minimalLpr());
    for (const headers of [
      { 'content-type': 'text/html' },
      { 'content-type': 'text/plain; charset=utf-16' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      { 'content-type': 'multipart/form-data; boundary=x' },
      { 'content-type': 'application/json; charset=latin1' },
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    ]) {
      const res = await request(r.url, { headers, body });
      assert.equal(res.status, 415, JSON.stringify(headers));
      assert.equal(res.headers['content-type'], 'application/problem+json');
    }
    for (const headers of [
      {},
      { 'content-type': 'application/json; charset=UTF-8' },
      { 'content-type': 'application/vnd.econnect+json' },
      { 'content-type': 'text/json' },
      // what .NET's new StringContent(json) sends
      { 'content-type': 'text/plain; charset=utf-8' },
      { 'content-type': 'text/plain' },
    ]) {
      assert.equal((await request(r.url, { headers, body })).status, 200, JSON.stringify(headers));
    }
  });

  it('answers 405 with Allow to other methods', async () => {
    r = await startReceiver();
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await request(r.url, { method });
      assert.equal(res.status, 405);
      assert.equal(res.headers.allow, 'POST');
      assert.equal(res.json.status, 405);
    }
  });

  it('answers 400 to empty and malformed bodies', async () => {
    r = await startReceiver();
    const empty = await request(r.url, { headers: { 'content-type': 'application/json' }, body: '' });
    assert.equal(empty.status, 400);
    assert.match(empty.json.detail, /empty/);
    const bad = await request(r.url, {
      headers: { 'content-type': 'application/json' },
      body: '{"publishType": "WebHookLprPayload",\n "payload": {]}',
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.line, 2);
    assert.equal(bad.json.column, 14);
  });

  it('answers 422 listing every failing path, and hands the event on', async () => {
    r = await startReceiver();
    const event = ev.fullFace();
    event.payload.detectionInfo.confidence = 93;
    delete event.payload.personInfo.faceId;
    const res = await postJson(r.url, event);
    assert.equal(res.status, 422);
    assert.equal(res.headers['content-type'], 'application/problem+json');
    assert.deepEqual(res.json.errors.map((e) => e.path).sort(), ['payload.detectionInfo.confidence', 'payload.personInfo.faceId']);
    assert.equal(r.calls.invalid.length, 1);
    assert.equal(r.calls.invalid[0].value.sourceName, 'eConnect Site 1 FR');
    assert.equal(r.calls.emitted.length, 0);
  });

  it('answers 202 to invalid events when told to accept them', async () => {
    r = await startReceiver({ validation: 'accept' });
    const res = await postJson(r.url, { publishType: 'WebHookLprPayload', payload: {} });
    assert.equal(res.status, 202);
    assert.equal(res.json.errors.length, 4);
    assert.equal(r.calls.invalid.length, 1);
    assert.equal(r.calls.rejected.length, 0);
  });

  it('refuses a 10,000-level nested body with 400', async () => {
    r = await startReceiver();
    const res = await request(r.url, { headers: { 'content-type': 'application/json' }, body: '{"a":'.repeat(10000) + '1' + '}'.repeat(10000) });
    assert.equal(res.status, 400);
    assert.match(res.json.detail, /deeper than 64/);
  });

  it('checks credentials before reading the body', async () => {
    r = await startReceiver({ auth: { mode: 'bearer', token: 't' } });
    let bodyRead = false;
    r.server.prependListener('request', (req) =>
      req.once('data', () => {
        bodyRead = true;
      }),
    );
    // Announce a body but hold it back: the 401 must come without it.
    const client = await rawClient(r.url);
    await client.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n');
    const answer = await client.answer();
    assert.equal(answer.status, 401);
    assert.match(answer.head, /WWW-Authenticate: Bearer realm="detection-in"/i);
    assert.equal(bodyRead, false);
    // The body sent after all is drained, and the connection serves the next request.
    await client.write('x'.repeat(100));
    const body = JSON.stringify(ev.minimalLpr());
    await client.write(
      `POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    assert.equal((await client.answer()).status, 200);
    client.close();
  });

  it('answers credentials of the wrong scheme as such (401, problem body), not as missing', async () => {
    r = await startReceiver({ auth: { mode: 'bearer', token: 'tok-1' } });
    for (const authorization of [`Basic ${Buffer.from('bridge:tok-1').toString('base64')}`, 'tok-1']) {
      const res = await postJson(r.url, ev.minimalLpr(), { authorization });
      assert.equal(res.status, 401);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.match(res.json.detail, /^expected a Bearer token/);
      assert.ok(!res.text.includes('tok-1'), 'what was sent is not repeated');
    }
    assert.match((await postJson(r.url, ev.minimalLpr())).json.detail, /^credentials are missing/);
  });

  it('tells its refusal log of every request turned away (with the event id once read) and every one accepted', async () => {
    const told = [];
    const refusals = {
      record: (answer, ip, messageId) => told.push(`${answer.status} ${ip} ${messageId ?? '-'}`),
      accepted: () => told.push('accepted'),
    };
    let full = false;
    r = await startReceiver(
      { refusals, validation: 'strict' },
      {
        enqueue() {
          if (full) throw new Error('in flight full');
        },
      },
    );
    assert.equal((await request(r.url, { method: 'GET' })).status, 405);
    assert.equal((await postJson(r.url, ev.fullLpr())).status, 200);
    const invalid = ev.fullFace();
    invalid.payload.messageId = 'bad-1';
    invalid.payload.detectionInfo.confidence = 93;
    assert.equal((await postJson(r.url, invalid)).status, 422);
    full = true;
    assert.equal((await postJson(r.url, ev.fullLpr())).status, 503);
    assert.deepEqual(told, ['405 127.0.0.1 -', 'accepted', '422 127.0.0.1 bad-1', '503 127.0.0.1 msg-lpr-0001']);
  });

  it('removes credential headers from what it hands on', async () => {
    r = await startReceiver({ auth: { mode: 'header', headerName: 'X-Api-Key', headerValue: 'k' } });
    await postJson(r.url, ev.minimalLpr(), { 'x-api-key': 'k', authorization: 'Basic abc', cookie: 'a=b', 'x-trace': '1' });
    const { headers, ip } = r.calls.emitted[0].meta;
    assert.equal(headers['x-trace'], '1');
    assert.equal(headers['x-api-key'], undefined);
    assert.equal(headers.authorization, undefined);
    assert.equal(headers.cookie, undefined);
    assert.equal(ip, '127.0.0.1');
  });

  it('survives a client that goes away mid-body', async () => {
    r = await startReceiver();
    // the server is reading the body once it has the request
    const reading = new Promise((resolve) => r.server.once('request', resolve));
    const socket = net.connect(Number(new URL(r.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"publishType":');
    await reading;
    socket.destroy();
    await until(() => r.calls.rejected.length === 1, 2000, 'the aborted request to be counted');
    assert.equal(r.calls.emitted.length, 0);
    // And it still serves the next request.
    assert.equal((await postJson(r.url, ev.minimalFace())).status, 200);
  });

  it('takes a body another middleware already parsed', async () => {
    const receive = createReceiver({ auth: { mode: 'none' }, maxBodyBytes: MiB, validation: 'strict' }, { emit: (d) => got.push(d) });
    const got = [];
    const server = http.createServer((req, res) => {
      const parts = [];
      req.on('data', (c) => parts.push(c));
      req.on('end', () => {
        req.body = JSON.parse(Buffer.concat(parts).toString());
        receive(req, res);
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await postJson(`http://127.0.0.1:${server.address().port}/`, ev.fullFace());
      assert.equal(res.status, 200);
      assert.equal(got[0].event.payload.personInfo.firstName, 'John');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
