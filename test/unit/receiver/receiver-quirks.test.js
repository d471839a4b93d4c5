'use strict';
/**
 * lib/receiver against real senders' quirks, over real sockets: validation
 * modes, invalid UTF-8, stalled bodies (on a fake clock), the memory budget,
 * and early answers that survive a sender writing its whole body first.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const { createReceiver, MiB } = require('../../../dist/lib/receiver/receiver');
const { FakeClock } = require('../../support/fake-clock');
const { request, rawClient, postJson, until } = require('../../support');
const ev = require('../../fixtures/events');

async function startReceiver(options = {}) {
  const calls = { emitted: [], invalid: [], rejected: [] };
  const receive = createReceiver(
    { auth: { mode: 'none' }, maxBodyBytes: 16 * MiB, validation: 'lenient', ...options },
    {
      emit: (d) => calls.emitted.push(d),
      onInvalid: (d) => calls.invalid.push(d),
      onRejected: (p) => calls.rejected.push(p),
    },
  );
  const requests = [];
  const server = http.createServer((req, res) => {
    requests.push(req);
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
  return { url, calls, stop, server, requests };
}

const head = (length, extra = '') => `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}Content-Length: ${length}\r\n\r\n`;

describe('lib/receiver/receiver with real senders', () => {
  let r;
  afterEach(async () => {
    if (r) {
      assert.equal(r.calls.crash, undefined, 'the receiver never throws');
      await r.stop();
    }
    r = undefined;
  });

  describe('validation modes', () => {
    it('lenient (the default in the node): each deviating event answered 200 and delivered once, with its warnings', async () => {
      r = await startReceiver();
      const cases = ev.deviatingEvents();
      for (const { name, event, paths } of cases) {
        const res = await postJson(r.url, event);
        assert.equal(res.status, 200, `${name}: ${res.text}`);
        assert.deepEqual(
          res.json.warnings.map((w) => w.path),
          paths,
          name,
        );
      }
      assert.equal(r.calls.emitted.length, cases.length);
      assert.deepEqual(
        r.calls.emitted.map((d) => d.warnings.map((w) => w.path)),
        cases.map((c) => c.paths),
      );
      assert.deepEqual(r.calls.emitted[1].event, cases[1].event, 'the event as sent, nulls kept');
      assert.equal(r.calls.invalid.length, 0);
    });

    it('lenient: .NET dates are no deviation at all', async () => {
      r = await startReceiver({ validation: 'strict' });
      const res = await postJson(r.url, ev.dotnetDates());
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.warnings, undefined);
      assert.deepEqual(r.calls.emitted[0].warnings, []);
    });

    it('lenient: refuses with 422 only what a flow cannot use, and hands it to output 2', async () => {
      r = await startReceiver();
      const cases = ev.unusableEvents();
      for (const { name, event, path } of cases) {
        const res = await postJson(r.url, event);
        assert.equal(res.status, 422, name);
        assert.equal(res.headers['content-type'], 'application/problem+json');
        assert.ok(
          res.json.errors.some((e) => e.path === path),
          `${name}: ${res.text}`,
        );
      }
      assert.equal(r.calls.emitted.length, 0);
      assert.equal(r.calls.invalid.length, cases.length);
    });

    it('strict: every deviation refused with 422, as before', async () => {
      r = await startReceiver({ validation: 'strict' });
      for (const { name, event, paths } of ev.deviatingEvents()) {
        const res = await postJson(r.url, event);
        assert.equal(res.status, 422, name);
        assert.deepEqual(
          res.json.errors.map((e) => e.path),
          paths,
          name,
        );
      }
      assert.equal(r.calls.emitted.length, 0);
    });

    it('accept all: a deviating event answered 202 and handed to output 2 only', async () => {
      r = await startReceiver({ validation: 'accept' });
      const [{ event }] = ev.deviatingEvents();
      const res = await postJson(r.url, event);
      assert.equal(res.status, 202);
      assert.equal(r.calls.invalid.length, 1);
      assert.equal(r.calls.emitted.length, 0);
    });

    it('says which property is in the wrong case and that the bridge sends camelCase', async () => {
      r = await startReceiver();
      const event = ev.minimalLpr();
      event.PublishType = event.publishType;
      delete event.publishType;
      const res = await postJson(r.url, event);
      assert.equal(res.status, 422);
      assert.match(res.json.detail, /"PublishType" is present in another case: the events bridge sends camelCase property names \("publishType"\)/);
    });
  });

  describe('UTF-8', () => {
    it('refuses invalid UTF-8 with 400 and the byte offset, in a small body and in a large one, in any field', async () => {
      r = await startReceiver();
      const small = Buffer.from(JSON.stringify(ev.minimalLpr()));
      const large = Buffer.from(JSON.stringify(ev.bigLpr(MiB)));
      const places = [
        [small, small.indexOf('ABC123') + 1, 'the plate'],
        [small, small.indexOf('Gate'), 'the camera name'],
        [large, large.indexOf('XYZ987') + 2, 'the plate of a 1 MB event'],
        [large, large.indexOf('"image":"') + 5000, 'inside a base64 image'],
        [large, large.length - 3, 'near the end'],
      ];
      for (const [source, offset, name] of places) {
        const body = Buffer.from(source);
        body[offset] = 0xff;
        const res = await request(r.url, { headers: { 'content-type': 'application/json' }, body });
        assert.equal(res.status, 400, name);
        assert.equal(res.json.type, 'urn:detection-bridge:problem:invalid-utf8', name);
        assert.equal(res.json.position, offset, name);
        assert.match(res.json.detail, new RegExp(`offset ${offset} \\(0xFF\\)`), name);
      }
      // a truncated sequence and an encoded surrogate
      for (const bad of [Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80])]) {
        const body = Buffer.concat([Buffer.from('{"publishType":"'), bad, Buffer.from('"}')]);
        const res = await request(r.url, { headers: { 'content-type': 'application/json' }, body });
        assert.equal(res.json.position, 16);
      }
      assert.equal(r.calls.emitted.length, 0);
    });

    it('delivers valid multi-byte text intact', async () => {
      r = await startReceiver();
      const event = ev.fullFace();
      event.payload.personInfo.firstName = 'Zoë 李 🚗';
      event.payload.personInfo.lastName = 'Müller';
      const res = await postJson(r.url, event);
      assert.equal(res.status, 200);
      assert.equal(r.calls.emitted[0].event.payload.personInfo.firstName, 'Zoë 李 🚗');
    });
  });

  describe('stalled bodies', () => {
    it('answers 408 with a problem body and closes once no byte arrived for the stall time', async () => {
      const clock = new FakeClock(0);
      r = await startReceiver({ stallMs: 30_000, clock });
      const body = JSON.stringify(ev.minimalLpr());
      const client = await rawClient(r.url);
      await client.write(head(body.length) + body.slice(0, 20));
      await until(() => r.requests.length === 1 && clock.pending > 0, 5000, 'the server reading the body');
      let seen = 0;
      r.requests[0].on('data', (c) => (seen += c.length));
      // Progress at 20 s moves the deadline to 50 s.
      await clock.advance(20_000);
      await client.write(body.slice(20, 40));
      await until(() => seen === 20, 5000, 'the second part read by the receiver');
      await clock.advance(29_999);
      assert.equal(r.calls.rejected.length, 0, 'not stalled: a part came 29.999 s ago');
      await clock.advance(1);
      const answer = await client.answer();
      assert.equal(answer.status, 408);
      assert.equal(answer.json.type, 'urn:detection-bridge:problem:request-timeout');
      assert.match(answer.json.detail, /no part of the body arrived for 30 s/);
      assert.equal(answer.closing, true);
      await client.whenClosed();
      assert.equal(r.calls.emitted.length, 0);
      // the receiver goes on serving
      assert.equal((await postJson(r.url, ev.minimalLpr())).status, 200);
    });

    it('bounds what bodies still arriving may hold: past it, 503 with Retry-After', async () => {
      r = await startReceiver({ maxPendingBytes: 64 * 1024 });
      const first = await rawClient(r.url);
      await first.write(head(60 * 1024) + 'x'.repeat(50 * 1024));
      await until(() => r.requests.length === 1 && r.requests[0].socket.bytesRead > 50 * 1024, 5000, 'the first body half in');
      const second = await rawClient(r.url);
      await second.write(head(60 * 1024) + 'y'.repeat(30 * 1024));
      const answer = await second.answer();
      assert.equal(answer.status, 503);
      assert.match(answer.head, /Retry-After: 1/i);
      assert.match(answer.json.detail, /retry shortly/);
      second.close();
      // The first one, once complete, is read (it is not JSON, so 400): its bytes were its own.
      await first.write('x'.repeat(10 * 1024));
      assert.equal((await first.answer()).status, 400);
      first.close();
      // and the budget is free again
      assert.equal((await postJson(r.url, ev.bigLpr(60 * 1024))).status, 200);
    });
  });

  describe('early answers', () => {
    it('a 4 MB body with a wrong token, written in full before reading, still gets its 401', async () => {
      r = await startReceiver({ auth: { mode: 'bearer', token: 'right' } });
      const body = JSON.stringify(ev.bigLpr(4 * MiB));
      const client = await rawClient(r.url);
      // Everything goes out before a byte is read, as Python's http.client does.
      await client.write(head(Buffer.byteLength(body), 'Authorization: Bearer wrong\r\n') + body);
      const answer = await client.answer();
      assert.equal(answer.status, 401);
      assert.equal(answer.json.type, 'urn:detection-bridge:problem:unauthorized');
      // The connection is still good for the next request.
      const ok = JSON.stringify(ev.minimalLpr());
      await client.write(head(ok.length, 'Authorization: Bearer right\r\n') + ok);
      assert.equal((await client.answer()).status, 200);
      client.close();
      assert.equal(r.calls.emitted.length, 1);
    });

    it('a 413 survives too, and 415', async () => {
      r = await startReceiver({ maxBodyBytes: MiB });
      const body = 'x'.repeat(3 * MiB);
      const client = await rawClient(r.url);
      await client.write(head(body.length) + body);
      assert.equal((await client.answer()).status, 413);
      client.close();
      const typed = await rawClient(r.url);
      await typed.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      assert.equal((await typed.answer()).status, 415);
      typed.close();
    });

    it('stops draining past the bound and closes the connection', async () => {
      r = await startReceiver({ auth: { mode: 'bearer', token: 'right' }, linger: { maxBytes: 256 * 1024, maxMs: 60_000 } });
      const client = await rawClient(r.url);
      await client.write(head(64 * MiB, 'Authorization: Bearer wrong\r\n'));
      const answer = await client.answer();
      assert.equal(answer.status, 401);
      // Keep sending: the server reads 256 KiB more at most, then closes.
      let sent = 0;
      while (!client.closed && sent < 64 * MiB) {
        const written = await client.write(Buffer.alloc(64 * 1024, 0x20)).then(
          () => true,
          () => false,
        );
        if (written) sent += 64 * 1024;
      }
      await client.whenClosed();
      assert.ok(sent < 64 * MiB, `the server closed before the 64 MiB were sent (${sent} bytes sent)`);
    });
  });
});
