'use strict';
/**
 * lib/receiver/body.ts: reading a request body with a byte cap, a stall timer (on the fake clock) and a
 * shared memory budget, over real HTTP on 127.0.0.1.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const { readBody, createByteBudget, declaredLength } = require('../../../dist/lib/receiver/body');
const { FakeClock } = require('../../support/fake-clock');

describe('lib/receiver/body', () => {
  let server;
  let port;
  /** What the server does with the next request: (req) => Promise of readBody's result. */
  let read;
  let results;
  const clients = [];

  before(async () => {
    server = http.createServer((req, res) => {
      read(req).then((result) => {
        results.push(result);
        res.end(result.ok ? 'ok' : result.reason);
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = server.address().port;
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.destroy();
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  /** Starts a POST; the caller writes and ends it. Resolves with the server's result once it has one. */
  function post(headers = {}) {
    results = [];
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/', agent: false, headers });
    req.on('error', () => {});
    clients.push(req);
    const answered = new Promise((resolve) => req.on('response', (res) => res.resume().on('end', () => resolve(results[0]))));
    return { req, answered };
  }

  it('reads a body to its end; bytes in chunks are joined', async () => {
    read = (req) => readBody(req, { maxBytes: 100 });
    const { req, answered } = post({ 'Transfer-Encoding': 'chunked' });
    req.write('{"a":');
    req.end('1}');
    const result = await answered;
    assert.equal(result.ok, true);
    assert.equal(result.body.toString(), '{"a":1}');
  });

  it('refuses a declared length over the cap before reading; a chunked body as it passes the cap', async () => {
    read = (req) => readBody(req, { maxBytes: 4 });
    const declared = post({ 'Content-Length': '10' });
    declared.req.end('0123456789');
    assert.deepEqual(await declared.answered, { ok: false, reason: 'too-large', declared: 10 });
    const chunked = post({ 'Transfer-Encoding': 'chunked' });
    chunked.req.write('0123456789');
    assert.deepEqual(await chunked.answered, { ok: false, reason: 'too-large' });
  });

  it('gives up a body that makes no progress for stallMs, measured from its last byte', async () => {
    const clock = new FakeClock();
    let byte;
    const arrived = new Promise((resolve) => (byte = resolve));
    read = (req) => {
      req.once('data', byte);
      return readBody(req, { maxBytes: 100, stallMs: 1000, clock });
    };
    const { req, answered } = post({ 'Transfer-Encoding': 'chunked' });
    await clock.advance(600);
    req.write('{"a"');
    await arrived;
    await clock.advance(999);
    assert.deepEqual(results, [], 'not yet: the last byte came 999 ms ago');
    await clock.advance(1);
    assert.deepEqual(await answered, { ok: false, reason: 'stalled' });
  });

  it('takes the bytes from the shared budget while reading and gives them back; busy when it is full', async () => {
    const budget = createByteBudget(8);
    read = (req) => readBody(req, { maxBytes: 100, budget });
    const fits = post({ 'Content-Length': '6' });
    fits.req.end('abcdef');
    assert.equal((await fits.answered).ok, true);
    assert.equal(budget.held, 0, 'released once read');
    assert.equal(budget.take(4), true);
    const over = post({ 'Content-Length': '6' });
    over.req.end('abcdef');
    assert.deepEqual(await over.answered, { ok: false, reason: 'busy' });
    assert.equal(budget.held, 4, 'only what others hold');
    budget.release(10);
    assert.equal(budget.held, 0, 'never below 0');
  });

  it('a body another middleware read already: its buffer or text, its parsed value, or nothing left', async () => {
    const done = { headers: {}, readableEnded: true };
    assert.deepEqual(await readBody({ ...done, body: Buffer.from('{}') }, { maxBytes: 10 }), { ok: true, body: Buffer.from('{}') });
    assert.deepEqual(await readBody({ ...done, body: 'é' }, { maxBytes: 10 }), { ok: true, body: Buffer.from('é') });
    assert.deepEqual(await readBody({ ...done, body: 'x'.repeat(11) }, { maxBytes: 10 }), { ok: false, reason: 'too-large' });
    assert.deepEqual(await readBody({ ...done, body: { a: 1 } }, { maxBytes: 10 }), { ok: true, parsed: { a: 1 } });
    assert.deepEqual(await readBody(done, { maxBytes: 10 }), { ok: false, reason: 'error', message: { key: 'answer.body-consumed' } });
  });

  it('declaredLength: a Content-Length of digits only', () => {
    assert.equal(declaredLength({ headers: { 'content-length': '42' } }), 42);
    for (const bad of [undefined, '', '-1', '4.2', '0x10', '1e3'])
      assert.equal(declaredLength({ headers: { 'content-length': bad } }), undefined, bad);
  });
});
