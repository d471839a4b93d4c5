'use strict';
/**
 * platform-server, platform-push and platform-request in the Node-RED runtime
 * against the mock v2 core (sim/mock-core.ts) on 127.0.0.1.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { getHelper, translatedModule, collect, until, selfSigned } = require('../support');
const { startMockCore } = require('../../dist/sim/mock-core');

const helper = getHelper();
const modules = ['platform-server', 'platform-push', 'platform-request'].map(translatedModule);
const CREDS = { userName: 'integrator', password: 'pa55word' };

function flow(core, { server = {}, push = {}, request = {} } = {}) {
  return [
    { id: 'f1', type: 'tab', label: 'test' },
    { id: 'srv', type: 'platform-server', name: '', url: core.url, insecure: false, ca: '', timeout: 10, ...server },
    {
      id: 'push',
      type: 'platform-push',
      z: 'f1',
      server: 'srv',
      operation: 'pos',
      posId: 'pos-1',
      posIdType: 'str',
      path: '',
      pathType: 'str',
      batchSize: 100,
      batchMs: 50,
      maxRetries: 3,
      configVersion: 2,
      wires: [['pushed']],
      ...push,
    },
    {
      id: 'req',
      type: 'platform-request',
      z: 'f1',
      server: 'srv',
      method: 'GET',
      methodType: 'method',
      path: '/api/v2/portal/installed-plugins',
      pathType: 'str',
      errors: 'catch',
      configVersion: 2,
      wires: [['answers']],
      ...request,
    },
    { id: 'pushed', type: 'helper', z: 'f1' },
    { id: 'answers', type: 'helper', z: 'f1' },
    { id: 'c1', type: 'catch', z: 'f1', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper', z: 'f1' },
  ];
}

const tx = (i) => ({ transactionId: `tx-${i}`, terminal: 'T1', amount: 10 + i, type: 'SALE' });

describe('platform nodes against a mock v2 core', function () {
  this.timeout(20000);
  let core;

  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    if (core) await core.close();
    core = undefined;
  });

  async function start(options, coreOptions = {}) {
    core = core || (await startMockCore({ ...CREDS, ...coreOptions }));
    await helper.load(modules, flow(core, options), { srv: { ...CREDS } });
    return {
      push: helper.getNode('push'),
      req: helper.getNode('req'),
      pushed: helper.getNode('pushed'),
      answers: helper.getNode('answers'),
      caught: helper.getNode('caught'),
    };
  }

  describe('platform-request', () => {
    it('signs in once and lists the installed plugins', async () => {
      const { req, answers } = await start();
      const got = collect(answers, 2);
      req.receive({});
      req.receive({});
      const [a, b] = await got;
      assert.equal(a.statusCode, 200);
      assert.ok(JSON.stringify(a.payload).includes('pos'), JSON.stringify(a.payload));
      assert.equal(b.statusCode, 200);
      assert.equal(core.received.logins, 1, 'one sign-in shared by concurrent calls');
      const call = core.received.requests.find((r) => r.path.endsWith('/installed-plugins'));
      assert.match(call.headers.authorization, /^Bearer /, 'the mock records the header (token redacted)');
    });

    it('signs in again when the token expired, and after a 401', async () => {
      const { req, answers } = await start();
      let got = collect(answers, 1);
      req.receive({});
      await got;
      core.expireTokens();
      got = collect(answers, 1);
      req.receive({});
      assert.equal((await got)[0].statusCode, 200);
      assert.equal(core.received.logins, 2);
      core.failNext(1, { status: 401 });
      got = collect(answers, 1);
      req.receive({});
      assert.equal((await got)[0].statusCode, 200);
      assert.equal(core.received.logins, 3, 'exactly one more sign-in');
    });

    it('fills the path from the message, sends query and body', async () => {
      const { req, answers } = await start({ request: { method: 'POST', path: '/api/v2/pos/plugins/{posId}/things' } });
      const got = collect(answers, 1);
      req.receive({ posId: 'pos 2', query: { page: 2 }, payload: { a: 1 } });
      const [msg] = await got;
      assert.equal(msg.statusCode, 200);
      const seen = core.received.requests.find((r) => r.path.includes('/things'));
      assert.equal(seen.method, 'POST');
      assert.equal(seen.path, '/api/v2/pos/plugins/pos%202/things');
      assert.deepEqual(seen.query, { page: '2' });
      assert.deepEqual(seen.body, { a: 1 });
    });

    it('reads method and path from the message, flow context or an environment variable', async () => {
      process.env.E2E_PLATFORM_PATH = '/api/v2/env/{id}';
      try {
        const { req, answers, caught } = await start({ request: { method: 'verb', methodType: 'msg', path: 'where', pathType: 'flow' } });
        req.context().flow.set('where', '/api/v2/flow/{id}');
        let got = collect(answers, 1);
        req.receive({ verb: 'put', id: 7, payload: { a: 1 } });
        assert.equal((await got)[0].statusCode, 200);
        let seen = core.received.requests.at(-1);
        assert.deepEqual([seen.method, seen.path, seen.body], ['PUT', '/api/v2/flow/7', { a: 1 }], 'msg.verb, flow.where, {id} filled');
        const refused = collect(caught, 2);
        req.receive({ verb: 'FETCH' });
        req.receive({ payload: 1 });
        const messages = (await refused).map((m) => m.error.message);
        assert.deepEqual(messages, [
          'Error: msg.verb is "FETCH": the method must be GET, POST, PUT, PATCH or DELETE',
          'Error: msg.verb is undefined: the method must be GET, POST, PUT, PATCH or DELETE',
        ]);
        await helper.unload();
        await helper.load(modules, flow(core, { request: { path: 'E2E_PLATFORM_PATH', pathType: 'env' } }), { srv: { ...CREDS } });
        got = collect(helper.getNode('answers'), 1);
        helper.getNode('req').receive({ id: 'x y' });
        await got;
        seen = core.received.requests.at(-1);
        assert.deepEqual([seen.method, seen.path], ['GET', '/api/v2/env/x%20y']);
      } finally {
        delete process.env.E2E_PLATFORM_PATH;
      }
    });

    it('says when a path read from the message is missing, and refuses an empty path at deploy', async () => {
      const { req, caught } = await start({ request: { path: 'path', pathType: 'msg' } });
      const got = collect(caught, 2);
      req.receive({});
      req.receive({ path: { not: 'text' } });
      assert.deepEqual(
        (await got).map((m) => m.error.message),
        [
          'Error: no path: msg.path is undefined; it must hold the path as text, such as /api/v2/portal/installed-plugins',
          'Error: no path: msg.path is an object; it must hold the path as text, such as /api/v2/portal/installed-plugins',
        ],
      );
      await helper.unload();
      await helper.load(modules, flow(core, { request: { path: ' ', pathType: 'str' } }), { srv: { ...CREDS } });
      const empty = helper.getNode('req');
      await until(() => empty.error.called, 2000, 'the error at deploy');
      assert.equal(empty.error.firstCall.args[0], 'no path: enter one in the node, or read it from a message property such as msg.path');
    });

    it('sends non-2xx answers to Catch nodes, or to the output when chosen', async () => {
      const { req, caught } = await start();
      core.failNext(1, { status: 404, body: { title: 'Not Found' } });
      let got = collect(caught, 1);
      req.receive({});
      const [msg] = await got;
      assert.equal(msg.statusCode, 404);
      assert.deepEqual(msg.payload, { title: 'Not Found' });
      assert.match(msg.error.message, /GET \/api\/v2\/portal\/installed-plugins answered 404/);
      await helper.unload();
      await helper.load(modules, flow(core, { request: { errors: 'output' } }), { srv: { ...CREDS } });
      core.failNext(1, { status: 500 });
      got = collect(helper.getNode('answers'), 1);
      helper.getNode('req').receive({});
      assert.equal((await got)[0].statusCode, 500);
    });

    it('reports wrong credentials to Catch nodes without the password', async () => {
      core = await startMockCore({ ...CREDS, password: 'other' });
      const { req, caught } = await start();
      const got = collect(caught, 1);
      req.receive({});
      const [msg] = await got;
      assert.ok(msg.error.message.length > 0);
      assert.ok(!msg.error.message.includes(CREDS.password));
    });

    it('runs the platform-request example as imported: the installed modules, and why a call failed', async () => {
      const example = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'platform-request.json'), 'utf8'));
      core = await startMockCore({ ...CREDS });
      const byName = (name) => example.find((n) => n.name === name);
      const server = example.find((n) => n.type === 'platform-server');
      assert.equal(server.url, 'http://127.0.0.1:5023', 'the example points at the demo core');
      const request = example.find((n) => n.type === 'platform-request');
      assert.deepEqual([request.method, request.path], ['GET', '/api/v2/portal/installed-plugins']);
      assert.deepEqual(byName('list modules').wires, [[request.id]], 'the inject node starts the call');
      // the inject and comment nodes stay out (a click is a message to the request node); debug nodes become probes
      const nodes = example
        .filter((n) => n.type !== 'inject' && n.type !== 'comment')
        .map((n) => {
          if (n.type === 'platform-server') return { ...n, url: core.url };
          if (n.type === 'debug') return { id: n.id, type: 'helper', z: 'f1', name: n.name };
          return { ...n, z: 'f1' };
        });
      await helper.load(modules, [{ id: 'f1', type: 'tab', label: 'example' }, ...nodes], { [server.id]: { ...CREDS } });
      let got = collect(helper.getNode(byName('installed modules').id), 1);
      helper.getNode(request.id).receive({});
      const [answer] = await got;
      assert.equal(answer.statusCode, 200);
      assert.ok(JSON.stringify(answer.payload).includes('pos'), JSON.stringify(answer.payload));
      core.failNext(1, { status: 404, body: { title: 'Not Found' } });
      got = collect(helper.getNode(byName('why it failed').id), 1);
      helper.getNode(request.id).receive({});
      const [failed] = await got;
      assert.equal(failed.statusCode, 404);
      assert.match(failed.error.message, /answered 404/);
    });
  });

  describe('platform-push', () => {
    it('pushes POS transactions in batches, one output message per batch', async () => {
      const { push, pushed } = await start();
      const got = collect(pushed, 1);
      push.receive({ payload: [tx(1), tx(2)] });
      push.receive({ payload: tx(3) });
      const [batch] = await got;
      assert.equal(batch.statusCode, 200);
      assert.equal(batch.count, 3);
      assert.equal(batch.path, '/api/v2/pos/plugins/pos-1/events/batch');
      assert.equal(core.received.batchCount, 1);
      assert.deepEqual(
        core.received.batches[0].items.map((i) => i.transactionId),
        ['tx-1', 'tx-2', 'tx-3'],
      );
      assert.equal(core.received.batches[0].posId, 'pos-1');
    });

    it('takes the POS instance from msg.posId, or from flow context, when chosen so', async () => {
      const { push, pushed, caught } = await start({ push: { posId: 'posId', posIdType: 'msg' } });
      let got = collect(pushed, 1);
      push.receive({ payload: tx(1), posId: 'pos-2' });
      assert.equal((await got)[0].path, '/api/v2/pos/plugins/pos-2/events/batch');
      assert.equal(core.received.batches[0].posId, 'pos-2');
      const refused = collect(caught, 1);
      push.receive({ payload: tx(2) });
      assert.equal((await refused)[0].error.message, 'Error: no POS instance: msg.posId is undefined; it must hold the id of a POS module instance');
      await helper.unload();
      await helper.load(modules, flow(core, { push: { posId: 'pos', posIdType: 'flow' } }), { srv: { ...CREDS } });
      helper.getNode('push').context().flow.set('pos', 'pos-3');
      got = collect(helper.getNode('pushed'), 1);
      helper.getNode('push').receive({ payload: tx(3), posId: 'pos-2' });
      assert.equal((await got)[0].path, '/api/v2/pos/plugins/pos-3/events/batch', 'flow.pos, not msg.posId');
    });

    it('an id set in the node is the POS instance, whatever msg.posId says', async () => {
      const { push, pushed } = await start();
      const got = collect(pushed, 1);
      push.receive({ payload: tx(1), posId: 'pos-2' });
      assert.equal((await got)[0].path, '/api/v2/pos/plugins/pos-1/events/batch');
    });

    it('keeps the order of messages whose POS instance is read with JSONata', async () => {
      // JSONata answers asynchronously, the shorter branch first: without care the later message would overtake
      const expression = 'site = "a" ? "pos-1" : $lowercase($trim("  POS-1 "))';
      const { push, pushed } = await start({ push: { posId: expression, posIdType: 'jsonata', batchSize: 10 } });
      const got = collect(pushed, 1);
      for (let i = 0; i < 10; i++) push.receive({ payload: tx(i), site: i % 2 ? 'a' : 'b' });
      const [batch] = await got;
      assert.equal(batch.path, '/api/v2/pos/plugins/pos-1/events/batch');
      assert.deepEqual(
        core.received.batches[0].items.map((i) => i.transactionId),
        Array.from({ length: 10 }, (_, i) => `tx-${i}`),
      );
    });

    it('sends 1,000 single messages in at most ceil(1000/N)+1 requests, none lost or duplicated', async function () {
      this.timeout(30000);
      const N = 100;
      const { push, pushed } = await start({ push: { batchSize: N, batchMs: 200 } });
      for (let i = 0; i < 1000; i++) {
        push.receive({ payload: tx(i) });
      }
      // every batch has answered once the output messages account for all 1,000 items
      let reported = 0;
      pushed.on('input', (m) => (reported += m.count));
      await until(() => reported === 1000, 15000, 'a batch output for every item');
      const batches = core.received.batchCount;
      assert.ok(batches <= Math.ceil(1000 / N) + 1, `${batches} requests`);
      const ids = core.received.batches.flatMap((b) => b.items.map((i) => i.transactionId));
      assert.equal(ids.length, 1000);
      assert.equal(new Set(ids).size, 1000, 'no duplicates');
    });

    it('retries 429 honouring Retry-After, and 503, then succeeds', async () => {
      const { push, pushed } = await start({ push: { maxRetries: 3 } });
      core.failNext(1, { status: 429, retryAfter: 1 });
      let got = collect(pushed, 1);
      push.receive({ payload: tx(1) });
      assert.equal((await got)[0].statusCode, 200);
      const retrying = push.status
        .getCalls()
        .map((c) => c.args[0].text)
        .filter((text) => /^retrying/.test(text));
      assert.deepEqual(retrying, ['retrying in 1 s · 1 queued'], 'waited the 1 s the core asked for');
      core.failNext(2, { status: 503 });
      got = collect(pushed, 1);
      push.receive({ payload: tx(2) });
      assert.equal((await got)[0].statusCode, 200);
      const ids = core.received.batches.flatMap((b) => b.items.map((i) => i.transactionId));
      assert.deepEqual(ids, ['tx-1', 'tx-2'], 'each batch stored once');
    });

    it('does not retry a 400: every message of the batch goes to Catch with the answer', async () => {
      const { push, caught, pushed } = await start();
      let outputs = 0;
      pushed.on('input', () => outputs++);
      core.failNext(1, { status: 400, body: { title: 'Bad Request', detail: 'amount missing' } });
      const got = collect(caught, 2);
      push.receive({ payload: tx(1), n: 1 });
      push.receive({ payload: [tx(2), tx(3)], n: 2 });
      const msgs = await got;
      assert.deepEqual(msgs.map((m) => m.n).sort(), [1, 2]);
      for (const m of msgs) {
        assert.equal(m.statusCode, 400);
        assert.deepEqual(m.response, { title: 'Bad Request', detail: 'amount missing' });
      }
      // Catch saw the messages: their batch is finished, no retry can follow
      assert.equal(core.received.requests.filter((r) => r.path.endsWith('/events/batch')).length, 1, 'sent once, not retried');
      assert.equal(outputs, 0);
    });

    it('checks fixed values before sending: a bad item never leaves', async () => {
      const { push, caught } = await start({ push: { operation: 'plate-reads', path: '/api/v2/lpr/{siteId}/reads' } });
      const got = collect(caught, 3);
      push.receive({
        siteId: 's1',
        payload: [
          { plate: 'A1', direction: 1 },
          { plate: 'B2', direction: 3 },
        ],
      });
      push.receive({ siteId: 's1', payload: { plate: 'C3', gender: 'W' } });
      push.receive({ siteId: 's1', payload: { plate: 'D4', images: [{ image: '/9g=' }] } });
      const msgs = await got;
      const messages = msgs.map((m) => m.error.message).join('\n');
      assert.match(messages, /direction/);
      assert.match(messages, /gender/);
      assert.match(messages, /crop/i);
      // each message was refused before it reached the queue
      assert.equal(core.received.requestCount, 0, 'nothing was sent, not even a sign-in');
    });

    it('pushes other kinds to a path filled from the message', async () => {
      const { push, pushed, caught } = await start({ push: { operation: 'tito', path: '/api/v2/tito/{siteId}/tickets' } });
      const got = collect(pushed, 1);
      push.receive({ siteId: 'site 9', payload: { ticket: 'T-1', amount: 5 } });
      const [batch] = await got;
      assert.equal(batch.path, '/api/v2/tito/site%209/tickets');
      const seen = core.received.requests.find((r) => r.path.includes('/tito/'));
      assert.deepEqual(seen.body, [{ ticket: 'T-1', amount: 5 }]);
      const missing = collect(caught, 1);
      push.receive({ payload: { ticket: 'T-2' } });
      assert.match((await missing)[0].error.message, /needs \{siteId\} but msg\.siteId is not set/);
    });
  });

  describe('platform-server', () => {
    it('accepts a self-signed certificate only when told to', async () => {
      core = await startMockCore({ ...CREDS, tls: selfSigned() });
      assert.match(core.url, /^https:/);
      const { req, caught } = await start();
      const refused = collect(caught, 1);
      req.receive({});
      const [err] = await refused;
      assert.match(err.error.message, /certificate|self.signed/i);
      assert.equal(core.received.logins, 0);
      await helper.unload();
      await helper.load(modules, flow(core, { server: { insecure: true } }), { srv: { ...CREDS } });
      const got = collect(helper.getNode('answers'), 1);
      helper.getNode('req').receive({});
      assert.equal((await got)[0].statusCode, 200);
      assert.equal(core.received.logins, 1);
    });

    it('lists POS instances for the editor', async () => {
      await start();
      const res = await helper.request().get('/platform-server/srv/plugins').expect(200);
      assert.ok(res.body.pos.length >= 2, JSON.stringify(res.body));
      assert.ok(res.body.pos.every((p) => typeof p.id === 'string' && p.id));
      await helper.request().get('/platform-server/nope/plugins').expect(404);
    });

    it('reports missing credentials on every node that uses it', async () => {
      core = await startMockCore(CREDS);
      await helper.load(modules, flow(core), {});
      const req = helper.getNode('req');
      const push = helper.getNode('push');
      await until(() => req.error.called && push.error.called, 2000, 'errors');
      assert.equal(req.error.firstCall.args[0], 'the platform server needs a user name and a password');
      const caught = collect(helper.getNode('caught'), 1);
      push.receive({ payload: tx(1) });
      assert.equal((await caught)[0].error.message, 'Error: the platform server needs a user name and a password');
    });
  });
});
