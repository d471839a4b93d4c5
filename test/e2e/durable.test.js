'use strict';
/**
 * Nothing answered 200 is lost: detection-in writing to its journal before
 * answering, detection-done at the end of the flow, and a real Node-RED
 * process (the packed module) killed with SIGKILL and started again on the
 * same user directory. Events held in the flow at the kill are emitted again
 * with msg.redelivered; finished ones are not.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { nodeRedVersion, postJson, until } = require('../support');
const { NodeRedProcess, readProbeLines, functionNode, fileNode } = require('../support/nodered-process');
const ev = require('../fixtures/events');

const TAB = 'e2edurabletab001';

/** in → arrivals file → gate (holds `hold-` events unless redelivered) → done → finished file. */
function durableFlow(dir) {
  return [
    { id: TAB, type: 'tab', label: 'durable' },
    {
      id: 'dur-in',
      type: 'detection-in',
      z: TAB,
      name: '',
      path: '/d/in',
      auth: 'none',
      headerName: '',
      maxBodyMiB: 16,
      validation: 'lenient',
      ackMode: 'disk',
      wires: [['dur-line1'], []],
    },
    // the message goes on: the gate and detection-done need it whole
    functionNode(
      'dur-line1',
      TAB,
      'msg.payload = JSON.stringify({ messageId: msg.messageId, redelivered: msg.redelivered === true }); return msg;',
      'dur-arrived',
    ),
    fileNode('dur-arrived', TAB, path.join(dir, 'arrived.jsonl'), 'dur-gate'),
    functionNode('dur-gate', TAB, "return String(msg.messageId).startsWith('hold-') && !msg.redelivered ? null : msg;", 'dur-done'),
    { id: 'dur-done', type: 'detection-done', z: TAB, name: '', passOn: true, outputs: 1, wires: [['dur-finished']] },
    fileNode('dur-finished', TAB, path.join(dir, 'finished.jsonl')),
  ];
}

describe(`e2e: nothing lost across SIGKILL, disk journal, Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(120000);
  let nr;
  let arrived;
  let finished;
  const lines = (file) => readProbeLines(file);
  const has = (file, id, redelivered) => lines(file).some((l) => l.messageId === id && l.redelivered === redelivered);
  const send = async (id) => {
    const event = ev.fullLpr();
    event.payload.messageId = id;
    const res = await postJson(`${nr.url}/d/in`, event);
    assert.equal(res.status, 200, res.text);
  };
  const replayedLines = () => nr.logText(100000).match(/journal opened: \d+ unfinished/g) || [];

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create();
    arrived = path.join(nr.userDir, 'arrived.jsonl');
    finished = path.join(nr.userDir, 'finished.jsonl');
    await nr.start();
    await nr.deploy(durableFlow(nr.userDir), { '/d/in': 405 });
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (nr) await nr.cleanup();
  });

  it('emits again, flagged, exactly the events held in the flow at a SIGKILL, twice over', async () => {
    // Finished events first; each finished before the next request is written, so
    // the journal has their completions before the held ones are appended.
    for (let i = 0; i < 5; i++) {
      await send(`ok-${i}`);
      await until(() => has(finished, `ok-${i}`, false), 10000, `ok-${i} finished`);
    }
    for (let i = 0; i < 3; i++) await send(`hold-${i}`);
    await until(() => [0, 1, 2].every((i) => has(arrived, `hold-${i}`, false)), 10000, 'the held events in the flow');

    await nr.stop('SIGKILL');
    await nr.start();
    await nr.answers('/d/in', 405);
    await until(() => replayedLines().length === 2, 10000, 'the journal opened after the restart');
    assert.equal(replayedLines()[1], 'journal opened: 3 unfinished', 'exactly the three held events');
    await until(() => [0, 1, 2].every((i) => has(finished, `hold-${i}`, true)), 10000, 'the held events again, finished this time');
    assert.deepEqual(
      lines(arrived)
        .filter((l) => l.redelivered)
        .map((l) => l.messageId),
      ['hold-0', 'hold-1', 'hold-2'],
      'nothing finished came again',
    );

    // One more held event: its append is synced after the completions above.
    await send('hold-tail');
    await until(() => has(arrived, 'hold-tail', false), 10000, 'the last held event in the flow');
    await nr.stop('SIGKILL');
    await nr.start();
    await nr.answers('/d/in', 405);
    await until(() => replayedLines().length === 3, 10000, 'the journal opened after the second restart');
    assert.equal(replayedLines()[2], 'journal opened: 1 unfinished');
    await until(() => has(finished, 'hold-tail', true), 10000, 'the last held event again');
    const sent = ['ok-0', 'ok-1', 'ok-2', 'ok-3', 'ok-4', 'hold-0', 'hold-1', 'hold-2', 'hold-tail'];
    assert.deepEqual([...new Set(lines(finished).map((l) => l.messageId))].sort(), [...sent].sort(), 'every event sent reached the end of the flow');
    assert.equal(lines(finished).length, sent.length, 'each once');
    assert.deepEqual(nr.errorLines(), []);
  });

  it('dedupe with the key log: a key that passed just before a SIGKILL still drops the resent event after it', async () => {
    const tab = 'e2edurabledd0001';
    const seen = path.join(nr.userDir, 'dedupe-seen.jsonl');
    await nr.deploy(
      [
        { id: tab, type: 'tab', label: 'dedupe' },
        {
          id: 'dd-in',
          type: 'detection-in',
          z: tab,
          name: '',
          path: '/d/dd',
          auth: 'none',
          headerName: '',
          maxBodyMiB: 16,
          validation: 'lenient',
          ackMode: 'disk',
          wires: [['dd-dedupe'], []],
        },
        {
          id: 'dd-dedupe',
          type: 'detection-dedupe',
          z: tab,
          name: '',
          mode: 'id',
          key: 'messageId',
          keyType: 'msg',
          missingKey: 'pass',
          ttl: 1,
          ttlUnits: 'h',
          refresh: false,
          maxKeys: 1000,
          duplicatesOutput: false,
          persist: true,
          store: 'detection-bridge:key-log',
          outputs: 1,
          wires: [['dd-line']],
        },
        functionNode(
          'dd-line',
          tab,
          'msg.payload = JSON.stringify({ messageId: msg.messageId, redelivered: msg.redelivered === true }); return msg;',
          'dd-file',
        ),
        fileNode('dd-file', tab, seen, 'dd-done'),
        { id: 'dd-done', type: 'detection-done', z: tab, name: '', passOn: false, outputs: 0, wires: [] },
      ],
      { '/d/dd': 405 },
    );
    const post = async (id) => {
      const event = ev.fullFace();
      event.payload.messageId = id;
      assert.equal((await postJson(`${nr.url}/d/dd`, event)).status, 200);
    };
    await post('dd-first');
    await until(() => has(seen, 'dd-first', false), 10000, 'the first event through dedupe');
    await nr.stop('SIGKILL');
    await nr.start();
    await nr.answers('/d/dd', 405);
    // the bridge sends it again (it may not have seen the 200), then a new event
    await post('dd-first');
    await post('dd-second');
    await until(() => has(seen, 'dd-second', false), 10000, 'the event after the resent one');
    // (the journal may emit dd-first again, flagged redelivered: dedupe lets those through)
    assert.deepEqual(
      lines(seen)
        .filter((l) => !l.redelivered)
        .map((l) => l.messageId),
      ['dd-first', 'dd-second'],
      "the bridge's resend was dropped: its key survived the crash",
    );
    assert.deepEqual(nr.errorLines(), []);
  });

  it('runs the durable-receive example as imported: the plate alert, then done, nothing left pending', async () => {
    const example = await nr.example('durable-receive');
    const tab = 'e2edurableexam01';
    await nr.deploy([{ id: tab, type: 'tab', label: 'durable-receive' }, ...example.map((n) => ({ ...n, z: tab }))], { '/durable/detections': 405 });
    const comms = await nr.openComms();
    try {
      const doneDebug = example.find((n) => n.type === 'debug' && n.name === 'done');
      const receiver = example.find((n) => n.type === 'detection-in');
      const event = ev.fullLpr();
      event.payload.messageId = 'example-plate-1';
      assert.equal((await postJson(`${nr.url}/durable/detections`, event)).status, 200);
      await until(() => comms.debug(doneDebug.id).length === 1, 10000, 'the alert after detection done');
      assert.equal(comms.debug(doneDebug.id)[0].msg, 'plate XYZ987 at Car Park Gate 2');
      // redrawn once the event is done: it was in, and nothing is pending
      await until(() => /· 1 in · .*· 0 pending · journal [\d.]+ MB$/.test((comms.status(receiver.id) || {}).text || ''), 10000, 'nothing pending');
      assert.deepEqual(nr.errorLines(), []);
    } finally {
      comms.close();
    }
  });
});
