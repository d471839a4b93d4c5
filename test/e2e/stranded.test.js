'use strict';
/**
 * Nothing stranded (issue 41), in a real Node-RED (the packed module) through
 * real HTTP, in each mode: a receiver holding three answered events (its flow
 * never reaches a detection done) is deleted. With a new receiver deployed on
 * its path (another id: a copy on another tab, a re-imported flow) the three
 * are delivered there once and finished, and a journal left empty is
 * deleted. With none left on its path the log says where they are, the admin
 * API lists them and counts them, nothing is lost (the journal stays), and
 * they are handed to another running receiver, which delivers them once.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { nodeRedVersion, until, postJson, request } = require('../support');
const { NodeRedProcess, functionNode, fileNode, readProbeLines } = require('../support/nodered-process');
const { RedisServer, redisAvailable } = require('../support/redis-server');
const ev = require('../fixtures/events');

const REDIS = 'e2e-stranded-redis';

const plate = (messageId) => {
  const event = ev.fullLpr();
  event.payload.messageId = messageId;
  return event;
};

/**
 * A tab with receiver `id` on `routePath`. `done`: its events reach a detection done; otherwise they
 * are held (Finished when: a detection done marks it), answered and never finished.
 */
function receiverTab(tab, id, routePath, mode, file, done, redisUrl) {
  const line = `msg.payload = JSON.stringify({ by: '${id}', messageId: msg.messageId, redelivered: msg.redelivered === true }); return msg;`;
  return [
    { id: tab, type: 'tab', label: tab },
    ...(mode === 'redis' ? [{ id: REDIS, type: 'detection-redis', name: '', url: redisUrl }] : []),
    {
      id,
      type: 'detection-in',
      z: tab,
      path: routePath,
      auth: 'none',
      ackMode: mode,
      finishedWhen: 'done',
      ...(mode === 'redis' ? { redis: REDIS } : {}),
      wires: [[`${id}-line`], [], []],
    },
    functionNode(`${id}-line`, tab, line, `${id}-file`),
    fileNode(`${id}-file`, tab, file, done ? `${id}-done` : undefined),
    ...(done ? [{ id: `${id}-done`, type: 'detection-done', z: tab, passOn: false, outputs: 0, wires: [] }] : []),
    // x and y: a node without them is taken for a configuration node (as the Redis one is).
  ].map((node) => (node.type === 'tab' || node.type === 'detection-redis' ? node : { x: 100, y: 100, ...node }));
}

describe(`e2e: nothing stranded when a receiver is deleted, Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(180000);
  let nr;
  let redis;

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create();
    await nr.start();
    if (redisAvailable()) redis = await RedisServer.start();
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (nr) await nr.cleanup();
    await redis?.close();
  });

  const journalOf = (id) => path.join(nr.userDir, 'detection-bridge', `journal-${id}.log`);
  const getJson = async (url) => {
    const answer = await request(url, { method: 'GET', headers: { accept: 'application/json' } });
    assert.equal(answer.status, 200, answer.text);
    return answer.json;
  };

  for (const mode of ['memory', 'disk', 'redis']) {
    describe(`${mode} mode`, () => {
      before(function () {
        if (mode === 'redis' && !redis) this.skip();
      });

      it('deleted, and a new receiver (another id) deployed on its path: the three are delivered there once', async () => {
        const file = path.join(nr.userDir, `moved-${mode}.jsonl`);
        const route = `/st/moved-${mode}`;
        const old = `old-${mode}`;
        const moved = `moved-${mode}`;
        await nr.deploy(receiverTab(`tab-a-${mode}`, old, route, mode, file, false, redis?.url), { [route]: 405 });
        for (const id of ['m1', 'm2', 'm3']) assert.equal((await postJson(`${nr.url}${route}`, plate(`${mode}-${id}`))).status, 200);
        await until(() => readProbeLines(file).length === 3, 30000, 'the three emitted by the first receiver');
        assert.deepEqual((await getJson(`${nr.url}/detection-bridge/held/${old}`)).events, 3);

        // Copied to another tab and the original deleted, in one deploy.
        await nr.deploy(receiverTab(`tab-b-${mode}`, moved, route, mode, file, true, redis?.url), { [route]: 405 });
        const byNew = () => readProbeLines(file).filter((l) => l.by === moved);
        await until(() => byNew().length >= 3, 30000, 'the three delivered by the new receiver');
        await until(async () => (await getJson(`${nr.url}/detection-bridge/held/${moved}`)).events === 0, 30000, 'the three finished there');
        assert.deepEqual(
          byNew()
            .map((l) => [l.messageId, l.redelivered])
            .sort(),
          [
            [`${mode}-m1`, true],
            [`${mode}-m2`, true],
            [`${mode}-m3`, true],
          ],
          'each once, flagged as delivered again',
        );
        assert.deepEqual((await getJson(`${nr.url}/detection-bridge/stranded`)).items, []);
        if (mode === 'disk') await until(() => !fs.existsSync(journalOf(old)), 10000, 'the emptied journal deleted');
      });

      it('deleted with none left on its path: said in the log, listed, counted, kept, and handed to another receiver once', async () => {
        const file = path.join(nr.userDir, `left-${mode}.jsonl`);
        const route = `/st/left-${mode}`;
        const other = `/st/other-${mode}`;
        const old = `left-${mode}`;
        const taker = `taker-${mode}`;
        await nr.deploy(receiverTab(`tab-c-${mode}`, old, route, mode, file, false, redis?.url), { [route]: 405 });
        for (const id of ['l1', 'l2', 'l3']) assert.equal((await postJson(`${nr.url}${route}`, plate(`${mode}-${id}`))).status, 200);
        await until(() => readProbeLines(file).length === 3, 30000, 'the three emitted');

        // Deleted; another receiver, on another path, runs.
        await nr.deploy(receiverTab(`tab-d-${mode}`, taker, other, mode, file, true, redis?.url), { [other]: 405 });
        const said = await until(
          () =>
            nr
              .logText(400)
              .split('\n')
              .find((l) => l.includes(old) && /removed with answered events/.test(l)),
          10000,
          'the log line',
        );
        assert.match(said, /3 unfinished events and 0 dead letters/);
        if (mode === 'disk') assert.ok(said.includes(journalOf(old)), `the log names the journal: ${said}`);
        const listed = await getJson(`${nr.url}/detection-bridge/stranded`);
        assert.deepEqual(
          listed.items.map((s) => [s.receiver, s.path, s.mode, s.events, s.deadLetters]),
          [[old, route, mode, 3, 0]],
        );
        assert.deepEqual(await getJson(`${nr.url}/detection-bridge/held/${old}`), { events: 3, deadLetters: 0, stranded: true });
        if (mode === 'disk') {
          assert.ok(fs.existsSync(journalOf(old)), 'the journal stays while it holds them');
          // A restart forgets nothing: the journal is found again, by the path it was on.
          await nr.restart();
          await nr.answers(other, 405);
          const again = await until(
            async () => {
              const found = await getJson(`${nr.url}/detection-bridge/stranded`);
              return found.items.length > 0 && found;
            },
            10000,
            'the stranded journal found again',
          );
          assert.deepEqual(
            again.items.map((s) => [s.receiver, s.path, s.mode, s.events, s.file]),
            [[old, route, mode, 3, journalOf(old)]],
          );
        }

        const handed = await postJson(`${nr.url}/detection-bridge/stranded/${old}/replay`, { to: taker });
        assert.equal(handed.status, 200, handed.text);
        assert.deepEqual(handed.json, { events: 3, deadLetters: 0, to: taker });
        const byTaker = () => readProbeLines(file).filter((l) => l.by === taker);
        await until(() => byTaker().length >= 3, 30000, 'the three delivered by the other receiver');
        await until(async () => (await getJson(`${nr.url}/detection-bridge/held/${taker}`)).events === 0, 30000, 'the three finished there');
        assert.deepEqual(
          byTaker()
            .map((l) => l.messageId)
            .sort(),
          [`${mode}-l1`, `${mode}-l2`, `${mode}-l3`],
        );
        assert.deepEqual((await getJson(`${nr.url}/detection-bridge/stranded`)).items, []);
        if (mode === 'disk') await until(() => !fs.existsSync(journalOf(old)), 10000, 'the emptied journal deleted');
        const missing = await postJson(`${nr.url}/detection-bridge/stranded/${old}/replay`, { to: taker });
        assert.equal(missing.status, 404);
      });
    });
  }
});
