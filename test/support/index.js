'use strict';
/**
 * Shared test support.
 *
 * NODE_RED_PATH selects the Node-RED under test (the CI run for Node-RED 5
 * points it at a separate install); by default the dev dependency.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const NODE_RED_DIR = process.env.NODE_RED_PATH ? path.resolve(process.env.NODE_RED_PATH) : path.dirname(require.resolve('node-red/package.json'));

function nodeRedVersion() {
  return require(path.join(NODE_RED_DIR, 'package.json')).version;
}

let helper;
/** node-red-node-test-helper, initialised against the Node-RED under test. */
function getHelper() {
  if (!helper) {
    helper = require('node-red-node-test-helper');
    helper.init(path.join(NODE_RED_DIR, 'lib', 'red.js'));
  }
  return helper;
}

/** The compiled node module as Node-RED loads it. */
function nodeModule(type) {
  return require(path.join(ROOT, 'dist', 'nodes', type, `${type}.js`));
}

let catalogs;
/** Every en-US message catalog of the package, merged (keys start with the node type). */
function catalog() {
  if (!catalogs) {
    const fs = require('node:fs');
    const dir = path.join(ROOT, 'locales', 'en-US');
    catalogs = Object.assign(
      {},
      ...fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))),
    );
  }
  return catalogs;
}

/** Translates a catalog key as Node-RED does, failing on a key the catalog lacks. */
function translate(key, vars = {}) {
  const find = (k) => k.split('.').reduce((o, part) => (o && typeof o === 'object' ? o[part] : undefined), catalog());
  // English plurals as i18next picks them: `key_plural` unless the count is 1
  const plural = typeof vars.count === 'number' && vars.count !== 1 ? find(`${key}_plural`) : undefined;
  const text = plural !== undefined ? plural : find(key);
  if (typeof text !== 'string') throw new Error(`missing catalog key ${key}`);
  return text.replace(/__(\w+)__/g, (_, name) => String(vars[name]));
}

/** The compiled node module with RED._ answering from the real en-US
 *  catalogs (the helper's RED._ returns keys), so errors and statuses read
 *  as users see them, and a missing key fails the test. */
function translatedModule(type) {
  const mod = nodeModule(type);
  return (RED) => {
    RED._ = translate;
    return mod(RED);
  };
}

/**
 * Loads a flow with the test helper and serves the helper's `RED.httpNode`
 * app on 127.0.0.1 (helper.request() only reaches httpAdmin). Returns the
 * base URL.
 */
async function loadWithHttp(modules, flow, credentials) {
  const h = getHelper();
  let httpNode;
  const capture = (RED) => {
    httpNode = RED.httpNode;
  };
  await h.load([capture, ...modules], flow, credentials || {});
  const server = http.createServer((req, res) =>
    httpNode(req, res, () => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no route');
    }),
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.add(server);
  return `http://127.0.0.1:${server.address().port}`;
}

const servers = new Set();
async function closeServers() {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  servers.clear();
}

/**
 * One raw HTTP request. `body` may be a string, a Buffer or an array of
 * chunks (sent with chunked transfer encoding). Resolves with status,
 * headers, text and parsed JSON (when the answer is JSON).
 * `onStaleSocket`: with a keep-alive `agent`, a request reset on a reused
 * connection before any answer is sent again once on a new one, and
 * onStaleSocket() called: the server closed that idle connection (Node's
 * 5 s keep-alive bound) as the request went out, a race of the client that
 * Node's documentation answers this way (http.ClientRequest reusedSocket).
 */
function request(url, options = {}) {
  const { method = 'POST', headers = {}, body, chunked = false, agent = false, onStaleSocket } = options;
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const outHeaders = { ...headers };
    const chunks = body === undefined ? [] : Array.isArray(body) ? body : [body];
    if (!chunked && body !== undefined && !Object.keys(outHeaders).some((h) => h.toLowerCase() === 'content-length')) {
      outHeaders['content-length'] = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
    }
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers: outHeaders, agent },
      (res) => {
        const parts = [];
        res.on('data', (c) => parts.push(c));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let json;
          if (/json/.test(res.headers['content-type'] || '')) json = JSON.parse(text);
          resolve({ status: res.statusCode, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    // A server may answer (413, 401) and close before the whole body is sent.
    req.on('error', (err) => {
      if (req.res) return;
      if (onStaleSocket && req.reusedSocket && err.code === 'ECONNRESET') {
        onStaleSocket();
        resolve(request(url, { ...options, onStaleSocket: undefined, agent: false }));
        return;
      }
      reject(err);
    });
    (async () => {
      for (const c of chunks) {
        if (!req.write(c)) await new Promise((r) => req.once('drain', r));
        if (req.destroyed) return;
      }
      req.end();
    })().catch(() => {});
  });
}

/**
 * A raw TCP client for what http.request hides: a body written in full before
 * anything is read, a body that stops half way, several requests on one
 * connection. `answer()` resolves with the next complete HTTP answer on the
 * connection (status, head, body, whether the server said it will close).
 */
async function rawClient(url) {
  const target = new URL(url);
  const socket = net.connect(Number(target.port), target.hostname);
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffered = Buffer.alloc(0);
  let closed = false;
  const waiters = new Set();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  socket.on('data', (c) => {
    buffered = Buffer.concat([buffered, c]);
    wake();
  });
  socket.on('close', () => {
    closed = true;
    wake();
  });
  socket.on('error', () => {});
  const tryAnswer = () => {
    const end = buffered.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const head = buffered.subarray(0, end).toString('latin1');
    const length = Number((/^content-length:\s*(\d+)/im.exec(head) || [])[1] || 0);
    if (buffered.length < end + 4 + length) return undefined;
    const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
    buffered = buffered.subarray(end + 4 + length);
    const status = Number(head.split(' ')[1]);
    return { status, head, body, json: /json/i.test(head) && body ? JSON.parse(body) : undefined, closing: /^connection:\s*close/im.test(head) };
  };
  return {
    socket,
    get closed() {
      return closed || socket.destroyed;
    },
    /** Writes and resolves once the bytes are handed to the kernel. */
    write(data) {
      return new Promise((resolve, reject) => socket.write(data, (err) => (err ? reject(err) : resolve())));
    },
    answer(timeoutMs = 10000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const got = tryAnswer();
          if (got) {
            cleanup();
            resolve(got);
          } else if (closed) {
            cleanup();
            reject(new Error(`connection closed before a complete answer (${buffered.length} bytes)`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error('no complete answer in time'));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    /** Resolves once the server has closed the connection. */
    whenClosed() {
      return until(() => closed, 10000, 'the server to close the connection');
    },
    close() {
      socket.destroy();
    },
  };
}

/** POST a JSON value. */
function postJson(url, value, headers = {}) {
  return request(url, { headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) });
}

/** Resolves with the next `count` messages a helper node receives. */
function collect(node, count, timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    const got = [];
    const timer = setTimeout(() => reject(new Error(`expected ${count} message(s), got ${got.length}`)), timeoutMs);
    node.on('input', (msg) => {
      got.push(msg);
      if (got.length === count) {
        clearTimeout(timer);
        resolve(got);
      }
    });
  });
}

/** Waits until `predicate()` is truthy, polling. The deadline is on the
 *  monotonic clock, so a test that holds Date.now() still can use it.
 *  `what` names the wait; a function is asked at the timeout (to say what was seen instead). */
async function until(predicate, timeoutMs = 5000, what = 'condition') {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (performance.now() > end) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Flow nodes that report each message node `id` has finished without an
 * error: a Complete node scoped to it, wired to the helper node
 * `${id}-finished`. Add them to a test flow and use trackFinished().
 */
function completeProbe(id, z) {
  return [
    { id: `${id}-complete`, type: 'complete', z, scope: [id], uncaught: false, wires: [[`${id}-finished`]] },
    { id: `${id}-finished`, type: 'helper', z },
  ];
}

/**
 * Counts the messages given to `node` through node.receive() and returns a
 * function that resolves once the node has finished every one of them (its
 * completeProbe fired as often). Only then is a message that did not come out
 * known to be dropped, not late. Messages the node fails go to Catch, not
 * Complete: use it where every message ends without an error.
 */
function trackFinished(node) {
  const h = getHelper();
  let given = 0;
  let finished = 0;
  const receive = node.receive.bind(node);
  node.receive = (msg) => {
    given++;
    return receive(msg);
  };
  h.getNode(`${node.id}-finished`).on('input', () => finished++);
  return async () => {
    await until(() => finished >= given && given > 0, 5000, `all ${given} messages finished`);
    assert.equal(finished, given, 'each message finished once');
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Deploys `flow` in the test helper's runtime (`type` full, flows or nodes) and
 * resolves once the flows have started, however long that takes up to `timeoutMs`.
 * The helper's own setFlows gives them 300 ms after the deploy returns, which a
 * busy CI machine exceeds ("timeout waiting event") while a flow closes and
 * reopens a Redis connection.
 */
async function deploy(flow, type = 'full', credentials = {}, timeoutMs = 30_000) {
  const h = getHelper();
  let onStarted;
  let timer;
  const started = new Promise((resolve, reject) => {
    onStarted = () => resolve();
    timer = setTimeout(() => reject(new Error(`the flows did not start within ${timeoutMs} ms of a ${type} deploy`)), timeoutMs);
    h._events.on('flows:started', onStarted);
  });
  started.catch(() => undefined); // a timeout while the deploy is still under way is thrown below, not unhandled
  try {
    await h._redNodes.setFlows(flow, credentials, type);
    await started;
  } finally {
    clearTimeout(timer);
    h._events.off('flows:started', onStarted);
  }
}

/** A key and self-signed certificate for 127.0.0.1, made in process by the
 *  package's own sim/tls.ts (no openssl needed). */
function selfSigned() {
  const { createSelfSignedCertificate } = require(path.join(ROOT, 'dist', 'sim', 'tls'));
  const { key, cert } = createSelfSignedCertificate({ names: ['127.0.0.1'], days: 1 });
  return { key, cert };
}

/**
 * The last status `node` set itself, or undefined. The test helper spies on Node.prototype.status, so
 * `node.status.lastCall` is the last status of any node in the flow (a receiver's throttled redraw can
 * come after the node under test's).
 */
function ownStatus(node) {
  const own = node.status.getCalls().filter((c) => c.thisValue === node);
  return own.length > 0 ? own[own.length - 1].args[0] : undefined;
}

/**
 * The sender nodes users wire alerts to, installed into a test's user directory from npm as a
 * user installs them (Manage palette), at the versions the alert tests were written against.
 * node-red-node-email is no dev dependency: it bundles a utf7 whose semver range its own bundle
 * does not hold, and `npm ci` refuses such a lock file ("Missing: semver@5.3.0").
 * node-red-contrib-telegrambot is one (the node tests of the alarm's Telegram buttons load it), and
 * its exact version there is the one installed here.
 */
const SENDER_MODULES = Object.freeze({
  email: 'node-red-node-email@5.2.5',
  telegram: `node-red-contrib-telegrambot@${require(path.join(ROOT, 'package.json')).devDependencies['node-red-contrib-telegrambot']}`,
});

module.exports = {
  ROOT,
  SENDER_MODULES,
  ownStatus,
  NODE_RED_DIR,
  nodeRedVersion,
  getHelper,
  nodeModule,
  translatedModule,
  translate,
  loadWithHttp,
  closeServers,
  request,
  rawClient,
  postJson,
  collect,
  until,
  completeProbe,
  trackFinished,
  sleep,
  deploy,
  selfSigned,
};
