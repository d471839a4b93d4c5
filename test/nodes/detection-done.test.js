'use strict';
/**
 * detection-done with detection-in in the Node-RED runtime, over real HTTP:
 * completion, the in-flight bound (503 with Retry-After), the journal's cap,
 * and redelivery of what a deploy interrupted.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { getHelper, nodeModule, translatedModule, loadWithHttp, closeServers, postJson, collect, until, ownStatus } = require('../support');
const ev = require('../fixtures/events');

const helper = getHelper();
// translated, so answers read as users see them
const detectionIn = translatedModule('detection-in');
const detectionDone = nodeModule('detection-done');

/** Receivers keep unfinished events across deploys, by node id: each test has its own. */
let receiverId = 'in1';

/** in → held (a helper: messages stop there until the test passes them to done, wired downstream of it). */
function flow(inConfig = {}, withDone = true) {
  return [
    { id: 'tab1', type: 'tab', label: 'done' },
    { id: receiverId, type: 'detection-in', z: 'tab1', path: '/hooks/done', auth: 'none', maxBodyMiB: 16, wires: [['held'], []], ...inConfig },
    { id: 'held', type: 'helper', z: 'tab1', wires: withDone ? [['done1']] : [] },
    ...(withDone ? [{ id: 'done1', type: 'detection-done', z: 'tab1', passOn: true, wires: [['after']] }] : []),
    { id: 'after', type: 'helper', z: 'tab1' },
  ];
}

const lpr = (id) => {
  const event = ev.fullLpr();
  event.payload.messageId = id;
  return event;
};

describe('detection-done node', function () {
  let userDir;
  let url;
  let n = 0;
  beforeEach(async () => {
    receiverId = `done-in${++n}`;
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'done-test-'));
    helper.settings({ userDir });
    await helper.startServer();
  });
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
    helper.settings({});
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  async function start(inConfig, withDone) {
    const base = await loadWithHttp([detectionIn, detectionDone], flow(inConfig, withDone));
    url = `${base}/hooks/done`;
    return { held: helper.getNode('held'), done: helper.getNode('done1'), after: helper.getNode('after'), receiver: helper.getNode(receiverId) };
  }

  it('holds events until detection-done marks them; past the in-flight bound, 503 with Retry-After', async () => {
    const { held, done, after } = await start({ maxInFlight: 2 });
    const got = collect(held, 2);
    assert.equal((await postJson(url, lpr('a'))).status, 200);
    assert.equal((await postJson(url, lpr('b'))).status, 200);
    const [a] = await got;
    assert.deepEqual(Object.keys(a._delivery).sort(), ['id', 'receiver']);
    const refused = await postJson(url, lpr('c'));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers['retry-after'], '1');
    assert.match(refused.json.detail, /2 events are in flight/);
    // one finished: room for one more
    const passed = collect(after, 1);
    done.receive(a);
    assert.equal((await passed)[0].messageId, 'a', 'the message goes on unchanged');
    assert.equal((await postJson(url, lpr('c'))).status, 200);
  });

  it('without a detection-done downstream, an event is finished once emitted', async () => {
    const { held } = await start({ maxInFlight: 1 }, false);
    const got = collect(held, 3);
    for (const id of ['a', 'b', 'c']) assert.equal((await postJson(url, lpr(id))).status, 200);
    assert.equal((await got).length, 3);
  });

  it('disk mode: refuses with 503 once the journal is at its cap, and takes events again once they finish', async () => {
    const big = ev.bigLpr(400 * 1024, 'big-1');
    const { held, done } = await start({ ackMode: 'disk', journalMaxMiB: 1 });
    const got = collect(held, 2);
    assert.equal((await postJson(url, big)).status, 200);
    assert.equal((await postJson(url, ev.bigLpr(400 * 1024, 'big-2'))).status, 200);
    const full = await postJson(url, ev.bigLpr(400 * 1024, 'big-3'));
    assert.equal(full.status, 503);
    assert.match(full.json.detail, /journal is full/);
    const [first] = await got;
    done.receive(first);
    await until(async () => (await postJson(url, ev.bigLpr(400 * 1024, 'big-3'))).status === 200, 5000, 'room in the journal again');
    assert.ok(fs.existsSync(path.join(userDir, 'detection-bridge', `journal-${receiverId}.log`)));
  });

  it('emits an event again, flagged, once it is not finished within "Redeliver after", until it is finished', async () => {
    const { held, done } = await start({ redeliverAfterSeconds: 0.2 });
    const got = collect(held, 2, 10000);
    assert.equal((await postJson(url, lpr('slow'))).status, 200);
    const [first, again] = await got;
    assert.equal(first.redelivered, undefined);
    assert.equal(again.messageId, 'slow');
    assert.equal(again.redelivered, true);
    done.receive(again);
    // finished: nothing pending any more, so nothing left to emit again
    const receiver = helper.getNode(receiverId);
    await until(() => / · 0 pending$/.test((ownStatus(receiver) || {}).text || ''), 5000, 'nothing pending');
  });

  it('disk mode: a journal cut off in the middle of a record replays every whole one and warns once', async () => {
    // an earlier run left three events unfinished, the last one half written
    const { Journal } = require('../../dist/lib/delivery/journal');
    const file = path.join(userDir, 'detection-bridge', `journal-${receiverId}.log`);
    const { journal } = await Journal.open(file, { maxBytes: 1e8 });
    for (const id of ['j1', 'j2', 'j3'])
      await journal.append({ ip: '127.0.0.1', headers: {}, receivedAt: new Date().toISOString() }, Buffer.from(JSON.stringify(lpr(id))));
    await journal.close();
    fs.truncateSync(file, fs.statSync(file).size - 100);
    const base = await loadWithHttp([detectionIn, detectionDone], flow({ ackMode: 'disk' }));
    url = `${base}/hooks/done`;
    const again = await collect(helper.getNode('held'), 2);
    assert.deepEqual(
      again.map((m) => [m.messageId, m.redelivered, m.kind]),
      [
        ['j1', true, 'lpr'],
        ['j2', true, 'lpr'],
      ],
    );
    const receiver = helper.getNode(receiverId);
    const warned = receiver.warn.getCalls().map((c) => c.args[0]);
    assert.equal(warned.length, 1, warned.join('\n'));
    assert.match(warned[0], /cut off at byte \d+ \(a crash while writing\)/);
  });

  for (const ackMode of ['memory', 'disk']) {
    it(`${ackMode}: a deploy emits again, flagged, what it interrupted, and nothing finished`, async () => {
      const { held, done } = await start({ ackMode });
      const got = collect(held, 3);
      for (const id of ['x', 'y', 'z']) assert.equal((await postJson(url, lpr(id))).status, 200);
      const [x] = await got;
      const marked = collect(helper.getNode('after'), 1);
      done.receive(x);
      await marked;
      // Stop and start the flows, as a full deploy does.
      await closeServers();
      await helper.unload();
      const base = await loadWithHttp([detectionIn, detectionDone], flow({ ackMode }));
      url = `${base}/hooks/done`;
      const again = await collect(helper.getNode('held'), 2);
      assert.deepEqual(
        again.map((m) => [m.messageId, m.redelivered]),
        [
          ['y', true],
          ['z', true],
        ],
      );
    });
  }
});
