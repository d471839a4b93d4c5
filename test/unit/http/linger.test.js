'use strict';
/**
 * lib/http/linger.ts: an answer given before the body was read (413 here), over real HTTP on 127.0.0.1.
 * The rest of the body is read and dropped so the sender sees the status and may send again on the same
 * connection; past the bound of bytes or of time (the fake clock) the socket is closed.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const { discardRest, DEFAULT_LINGER } = require('../../../dist/lib/http/linger');
const { FakeClock } = require('../../support/fake-clock');

describe('lib/http/linger', () => {
  let server;
  let port;
  let bounds;
  let clock;
  before(async () => {
    server = http.createServer((req, res) => {
      res.writeHead(413, { 'Content-Length': '4' });
      res.end('big!');
      discardRest(req, bounds, clock);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = server.address().port;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  /** A raw socket that reads what the server sends and says when it closes. */
  function connect() {
    const socket = net.connect(port, '127.0.0.1');
    socket.text = '';
    socket.on('data', (d) => (socket.text += d));
    socket.gone = new Promise((resolve) => socket.on('close', resolve));
    socket.on('error', () => {});
    return new Promise((resolve) => socket.on('connect', () => resolve(socket)));
  }
  const answers = (socket, n) =>
    new Promise((resolve) => {
      const check = () => (socket.text.split('HTTP/1.1 413').length - 1 >= n ? resolve() : socket.once('data', check));
      check();
    });
  const head = (length) => `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n`;

  it('bounds by default: 8 MiB and 5 s', () => {
    assert.deepEqual(DEFAULT_LINGER, { maxBytes: 8 * 1024 * 1024, maxMs: 5000 });
  });

  it('drops the rest of the body and keeps the connection for the next request', async () => {
    bounds = { maxBytes: 1024 * 1024, maxMs: 5000 };
    clock = new FakeClock();
    const socket = await connect();
    socket.write(head(200000));
    await answers(socket, 1);
    assert.equal(clock.pending, 1, 'lingering on the unread body');
    socket.write(Buffer.alloc(200000, 0x61));
    socket.write(head(3) + 'abc');
    await answers(socket, 2);
    assert.equal(clock.pending, 0, 'no linger timer left once each body ended');
    assert.equal(socket.destroyed, false);
    socket.destroy();
  });

  it('closes the socket once more than maxBytes are dropped', async () => {
    bounds = { maxBytes: 1000, maxMs: 5000 };
    clock = new FakeClock();
    const socket = await connect();
    socket.write(head(100000));
    await answers(socket, 1);
    socket.write(Buffer.alloc(5000, 0x61));
    await socket.gone;
  });

  it('closes the socket when the rest does not come within maxMs', async () => {
    bounds = { maxBytes: 1024 * 1024, maxMs: 5000 };
    clock = new FakeClock();
    const socket = await connect();
    socket.write(head(100));
    await answers(socket, 1);
    await clock.advance(4999);
    assert.equal(clock.pending, 1, 'still lingering before maxMs');
    await clock.advance(1);
    await socket.gone;
  });
});
