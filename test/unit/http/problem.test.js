'use strict';
/** lib/http/problem.ts: problem details (RFC 9457) and JSON answers, as a client reads them over real HTTP on 127.0.0.1. */
const assert = require('node:assert/strict');
const http = require('node:http');
const { problem, sendJson, sendProblem, PROBLEMS, PROBLEM_CONTENT_TYPE, JSON_CONTENT_TYPE } = require('../../../dist/lib/http/problem');

describe('lib/http/problem', () => {
  let server;
  let base;
  let handler;
  before(async () => {
    server = http.createServer((req, res) => handler(req, res));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('problem: the kind as a stable type URI, its status and title, the detail and extras', () => {
    assert.deepEqual(problem('payloadTooLarge', 'over 1 MiB', { limit: 1048576 }), {
      type: 'urn:detection-bridge:problem:payload-too-large',
      title: 'Payload Too Large',
      status: 413,
      detail: 'over 1 MiB',
      limit: 1048576,
    });
    for (const kind of Object.keys(PROBLEMS)) {
      const p = problem(kind, 'd');
      assert.match(p.type, /^urn:detection-bridge:problem:[a-z0-9]+(-[a-z0-9]+)*$/, kind);
      assert.ok(p.status >= 400 && p.status < 600, kind);
    }
  });

  it('sendProblem answers with the status, application/problem+json, no-store, and the problem as body', async () => {
    handler = (req, res) => sendProblem(res, problem('invalidEvent', 'payload.plate is required'), { headers: { 'X-Extra': '1' } });
    const res = await fetch(`${base}/`);
    assert.equal(res.status, 422);
    assert.equal(res.headers.get('content-type'), PROBLEM_CONTENT_TYPE);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('x-extra'), '1');
    const body = await res.json();
    assert.equal(body.title, 'Invalid Detection Event');
    assert.equal(body.detail, 'payload.plate is required');
  });

  it('sendJson writes the value with its length; an answer to HEAD has the headers only', async () => {
    handler = (req, res) => sendJson(res, 201, { id: 'é1' }, { head: req.method === 'HEAD' });
    const res = await fetch(`${base}/`);
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('content-type'), JSON_CONTENT_TYPE);
    assert.equal(res.headers.get('content-length'), String(Buffer.byteLength('{"id":"é1"}')));
    assert.deepEqual(await res.json(), { id: 'é1' });
    const head = await fetch(`${base}/`, { method: 'HEAD' });
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength('{"id":"é1"}')));
    assert.equal(await head.text(), '');
  });

  it('close ends the connection after the answer', async () => {
    handler = (req, res) => sendProblem(res, problem('unauthorized', 'no token'), { close: true });
    const res = await fetch(`${base}/`);
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('connection'), 'close');
  });

  it('a problem after the answer started cuts the response off instead', async () => {
    handler = (req, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('partial');
      sendProblem(res, problem('internal', 'failed mid-way'));
    };
    // The client sees a broken answer (headers and part of a body, then the socket closed), never a problem after a 200.
    await assert.rejects(fetch(`${base}/`).then((res) => res.text()));
  });
});
