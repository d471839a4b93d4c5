'use strict';
/**
 * Over 5,000 generated bad requests (test/fixtures/hostile.js, plus stalled
 * bodies) against detection-in in a real Node-RED process, with valid events
 * interleaved: strict mode with the disk journal answers every bad one 4xx
 * with a problem body and delivers every valid one once; lenient mode
 * refuses what is unusable and delivers each usable one once, with warnings.
 * Node-RED stays up, its memory flat, nothing polluted.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { nodeRedVersion, request, rawClient, postJson, until } = require('../support');
const { NodeRedProcess, readProbeLines, functionNode, fileNode } = require('../support/nodered-process');
const { corpus, pollutingEvents } = require('../fixtures/hostile');
const ev = require('../fixtures/events');

const TAB = 'e2ehostiletab001';
const TOKEN = 'e2e-hostile-token';
const MiB = 1024 * 1024;

function hostileFlow(probeFile) {
  const receiver = (id, extra) => ({
    id,
    type: 'detection-in',
    z: TAB,
    name: '',
    auth: 'bearer',
    headerName: '',
    maxBodyMiB: 1,
    stallSeconds: 0.5,
    credentials: { token: TOKEN },
    wires: [['h-probe'], []],
    ...extra,
  });
  return [
    { id: TAB, type: 'tab', label: 'hostile' },
    receiver('h-strict', { path: '/h/strict', validation: 'strict', ackMode: 'disk' }),
    receiver('h-lenient', { path: '/h/lenient', validation: 'lenient', ackMode: 'memory' }),
    functionNode(
      'h-probe',
      TAB,
      "msg.payload = JSON.stringify({ corpus: msg.req.headers['x-corpus-id'], messageId: msg.messageId, warnings: (msg.warnings || []).length, polluted: ({}).polluted, redelivered: msg.redelivered === true }); return msg;",
      'h-file',
    ),
    fileNode('h-file', TAB, probeFile, 'h-done'),
    { id: 'h-done', type: 'detection-done', z: TAB, name: '', passOn: false, outputs: 0, wires: [] },
  ];
}

/** Runs `tasks` (functions returning promises) with `width` in flight. */
async function pool(tasks, width) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
}

function rssOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) * 1024;
}

describe(`e2e: a hostile corpus against detection-in, Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(240000);
  let nr;
  let probeFile;
  const items = corpus({ token: TOKEN, maxBodyBytes: MiB });
  const lines = () => readProbeLines(probeFile);

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create();
    probeFile = path.join(nr.userDir, 'hostile.jsonl');
    await nr.start();
    await nr.deploy(hostileFlow(probeFile), { '/h/strict': 405, '/h/lenient': 405 });
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (nr) await nr.cleanup();
  });

  /** Sends the corpus to `target`, a valid event after every 25 items, and stalled bodies. */
  async function barrage(target, mode) {
    const url = `${nr.url}${target}`;
    const answers = new Array(items.length);
    const valid = [];
    // Kept-alive connections, as the bridge's HTTP client keeps them: an answer given before the
    // body is read (401, 413) is followed by the rest of the body being drained, not by a close.
    // (With Connection: close the server closes once it has answered, and a client still writing
    // may see EPIPE before it reads the answer: a race of that client, not of the receiver.)
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    // A request reset on a kept-alive connection the server had just closed as idle (this client
    // stalled over 5 s on a busy machine) is sent again on a new one, as Node's documentation
    // advises; counted, and bounded below: a receiver that closed its connections itself would
    // have hundreds of them.
    let resent = 0;
    const tasks = items.map((item, i) => async () => {
      const headers = { ...item.headers, 'x-corpus-id': `${mode}-${i}` };
      answers[i] = await request(url, {
        headers,
        body: item.chunked ? [item.body.subarray(0, 1000), item.body.subarray(1000)] : item.body,
        chunked: !!item.chunked,
        agent,
        onStaleSocket: () => resent++,
      });
      if (i % 25 === 0) {
        const event = ev.fullFace();
        event.payload.messageId = `${mode}-valid-${i}`;
        const res = await postJson(url, event, { authorization: `Bearer ${TOKEN}`, 'x-corpus-id': `${mode}-valid-${i}` });
        assert.equal(res.status, 200, `valid event ${i}: ${res.text}`);
        valid.push(event.payload.messageId);
      }
    });
    const stalled = Array.from({ length: 20 }, () => async () => {
      const client = await rawClient(nr.url);
      await client.write(
        `POST ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"publishType":`,
      );
      const answer = await client.answer();
      client.close();
      return answer;
    });
    const stalledAnswers = [];
    try {
      await pool([...tasks, ...stalled.map((s) => async () => stalledAnswers.push(await s()))], 16);
    } finally {
      agent.destroy();
    }
    if (resent) console.log(`      (${mode}: ${resent} of ${items.length} requests sent again: their kept-alive connection had been closed as idle)`);
    assert.ok(resent <= items.length / 50, `${resent} of ${items.length} requests met a connection closed under them`);
    return { answers, valid, stalledAnswers };
  }

  function assertProblem(res, what) {
    assert.equal(res.headers['content-type'], 'application/problem+json', what);
    assert.ok(res.json && res.json.type && res.json.title && res.json.detail && res.json.status === res.status, `${what}: ${res.text.slice(0, 200)}`);
  }

  it('strict, disk journal: every bad request gets its 4xx with a problem body; every valid event arrives once', async () => {
    const pid = nr.child.pid;
    const rssBefore = rssOf(pid);
    const { answers, valid, stalledAnswers } = await barrage('/h/strict', 'strict');
    const statuses = {};
    for (const [i, res] of answers.entries()) {
      const item = items[i];
      const what = `${item.category} #${i}${item.path ? ` at ${item.path}` : ''}`;
      statuses[res.status] = (statuses[res.status] || 0) + 1;
      assert.equal(res.status, item.expect.strict, `${what}: ${res.text.slice(0, 300)}`);
      assertProblem(res, what);
    }
    assert.equal(stalledAnswers.length, 20);
    for (const a of stalledAnswers) assert.equal(a.status, 408);
    // polluting keys: accepted as events, nothing polluted
    for (const text of pollutingEvents()) {
      const res = await request(`${nr.url}/h/strict`, {
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-corpus-id': 'proto' },
        body: text,
      });
      assert.equal(res.status, 200, res.text);
    }
    const arrived = await until(
      () => {
        const got = lines().filter((l) => l.corpus && l.corpus.startsWith('strict-valid-'));
        return got.length >= valid.length && got;
      },
      30000,
      'every valid event at the end of the flow',
    );
    assert.deepEqual(arrived.map((l) => l.messageId).sort(), [...valid].sort(), 'each valid event once, nothing else');
    await until(() => lines().filter((l) => l.corpus === 'proto').length === 3, 10000, 'the polluting events');
    assert.ok(
      lines().every((l) => l.polluted === undefined),
      'Object.prototype untouched',
    );
    assert.equal(
      lines().filter((l) => l.corpus && l.corpus.startsWith('strict-') && !l.corpus.startsWith('strict-valid-')).length,
      0,
      'no bad request came out',
    );
    // still up, memory bounded (a bound, not a timing: the corpus is 5,000 requests of up to 2 MB).
    // The first pass grows V8's heap and malloc's arenas to their working size: 134–152 MiB measured on
    // 2 CPUs over Node-RED 4.1.0, 4.1 and 5 (CI, 2026-11-28); a leak is what the lenient case's second
    // pass asserts flat. 180 MiB: the measured top and a fifth more.
    assert.equal((await request(`${nr.url}/settings`, { method: 'GET' })).status, 200);
    const grown = rssOf(pid) - rssBefore;
    assert.ok(grown < 180 * MiB, `RSS grew ${(grown / MiB).toFixed(1)} MiB over the corpus`);
    console.log(
      `      strict: ${items.length + 20} bad requests ${JSON.stringify(statuses)}, ${valid.length} valid; RSS ${(rssBefore / MiB).toFixed(0)} → ${(rssOf(pid) / MiB).toFixed(0)} MiB`,
    );
    assert.deepEqual(nr.errorLines(), []);
  });

  it('lenient: every unusable request refused, every usable one delivered once with its warnings; memory flat on a second pass', async () => {
    const pid = nr.child.pid;
    const rssBefore = rssOf(pid);
    const { answers, valid } = await barrage('/h/lenient', 'lenient');
    const usable = [];
    for (const [i, res] of answers.entries()) {
      const item = items[i];
      const what = `${item.category} #${i}${item.path ? ` at ${item.path}` : ''}`;
      if (item.expect.lenient === 'usable') {
        assert.equal(res.status, 200, `${what}: ${res.text.slice(0, 300)}`);
        usable.push(`lenient-${i}`);
      } else {
        assert.equal(res.status, item.expect.lenient, `${what}: ${res.text.slice(0, 300)}`);
        assertProblem(res, what);
      }
    }
    assert.ok(usable.length > 200, `${usable.length} usable requests in the corpus`);
    const expected = [...usable, ...valid.map((id) => id)];
    const got = await until(
      () => {
        const mine = lines().filter((l) => l.corpus && l.corpus.startsWith('lenient-'));
        return mine.length >= expected.length && mine;
      },
      30000,
      'every usable and valid event at the end of the flow',
    );
    assert.deepEqual(got.map((l) => l.corpus).sort(), [...expected].sort(), 'each once, nothing else');
    for (const l of got) {
      if (l.corpus.startsWith('lenient-valid-')) assert.equal(l.warnings, 0);
      else assert.ok(l.warnings > 0, `${l.corpus} came with its warnings`);
    }
    // the first pass grew the heap to its working size; a second one of the same size stays near it
    const grown = rssOf(pid) - rssBefore;
    console.log(`      lenient: RSS ${(rssBefore / MiB).toFixed(0)} → ${(rssOf(pid) / MiB).toFixed(0)} MiB`);
    assert.ok(grown < 100 * MiB, `RSS grew ${(grown / MiB).toFixed(1)} MiB over the second pass`);
    assert.deepEqual(nr.errorLines(), []);
  });
});
