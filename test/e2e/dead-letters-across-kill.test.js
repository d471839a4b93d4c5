'use strict';
/**
 * A poison event end to end (issue 27), in a real Node-RED (the packed
 * module) through real HTTP, disk mode: a function throws for one plate, a
 * Catch node hands the message to a detection done set to "failed". The
 * receiver tries it again (msg.attempt); Node-RED is killed with SIGKILL
 * during the pause after attempt 2, and after the restart the event comes as
 * attempt 3 (the count survived), fails, and is dead-lettered: output 3 says
 * so and its In flight slot (the only one) takes a new event. A deploy fixes
 * the function; the dead letter, still kept, is replayed through the admin
 * endpoint the editor uses, as attempt 1, and finished.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { nodeRedVersion, until, postJson, request } = require('../support');
const { NodeRedProcess, functionNode, fileNode, readProbeLines } = require('../support/nodered-process');
const ev = require('../fixtures/events');

const TAB = 'e2edeadletters01';
const PATH = '/e/dead';

const plate = (messageId, number) => {
  const event = ev.fullLpr();
  event.payload.messageId = messageId;
  event.payload.lprPlateInfo.plate = number;
  return event;
};

/** The flow; `fixed`: the function no longer throws for the poison plate. */
function deadLetterFlow(dir, fixed) {
  const file = (name) => path.join(dir, `${name}.jsonl`);
  const line = (fields) => `msg.payload = JSON.stringify(${fields}); return msg;`;
  return [
    { id: TAB, type: 'tab', label: 'dead letters' },
    {
      id: 'e-in',
      type: 'detection-in',
      z: TAB,
      path: PATH,
      auth: 'none',
      ackMode: 'disk',
      maxInFlight: 1,
      maxAttempts: 3,
      firstPauseSeconds: 0.5,
      maxPauseSeconds: 2,
      wires: [['e-seen'], [], ['e-failure-line']],
    },
    functionNode('e-seen', TAB, line('{ messageId: msg.messageId, attempt: msg.attempt }'), 'e-seen-file'),
    fileNode('e-seen-file', TAB, file('seen'), 'e-fn'),
    functionNode('e-fn', TAB, fixed ? 'return msg;' : "if (msg.detection.plate === 'POISON') throw new Error('bad plate'); return msg;", 'e-ok-file'),
    fileNode('e-ok-file', TAB, file('ok'), 'e-done'),
    { id: 'e-done', type: 'detection-done', z: TAB, passOn: false, outcome: 'finished', outputs: 0, wires: [] },
    { id: 'e-catch', type: 'catch', z: TAB, scope: ['e-fn'], uncaught: false, wires: [['e-failed']] },
    { id: 'e-failed', type: 'detection-done', z: TAB, passOn: true, outcome: 'failed', outputs: 1, wires: [['e-failed-file']] },
    fileNode('e-failed-file', TAB, file('failed'), undefined),
    functionNode(
      'e-failure-line',
      TAB,
      line('{ topic: msg.topic, messageId: msg.messageId, attempt: msg.attempt, error: msg.error }'),
      'e-failures-file',
    ),
    fileNode('e-failures-file', TAB, file('failures'), undefined),
  ].map((node) => (node.type === 'tab' ? node : { x: 100, y: 100, ...node }));
}

describe(`e2e: a poison event dead-lettered across a SIGKILL and replayed, Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(180000);
  let nr;

  before(async function () {
    this.timeout(180000);
    nr = await NodeRedProcess.create();
    await nr.start();
  });

  afterEach(function () {
    if (this.currentTest && this.currentTest.state === 'failed' && nr) console.log(`\n---- Node-RED output ----\n${nr.logText()}\n----`);
  });

  after(async function () {
    this.timeout(30000);
    if (nr) await nr.cleanup();
  });

  it('tried Max attempts times across a restart, dead-lettered with its slot freed, replayed from the admin endpoint once fixed', async () => {
    const dir = nr.userDir;
    const lines = (name) => readProbeLines(path.join(dir, `${name}.jsonl`));
    const attemptsOf = (name, messageId) => lines(name).filter((l) => l.messageId === messageId);
    await nr.deploy(deadLetterFlow(dir, false), { [PATH]: 405 });

    assert.equal((await postJson(`${nr.url}${PATH}`, plate('poison-1', 'POISON'))).status, 200);
    // Attempt 2 failed (the failed done passed it on after counting it): killed during the pause.
    await until(() => lines('failed').length >= 2, 30000, 'two failed attempts');
    await nr.stop('SIGKILL');
    await nr.start();

    const dead = await until(() => lines('failures').find((l) => l.topic === 'dead-letter'), 30000, 'the dead letter on output 3');
    assert.deepEqual({ ...dead, error: undefined }, { topic: 'dead-letter', messageId: 'poison-1', attempt: 3, error: undefined });
    assert.match(dead.error, /bad plate \(function\)$/, 'what the Catch node caught, and where');
    assert.deepEqual(
      lines('failures').map((l) => l.topic),
      ['failed', 'dead-letter'],
      'told of its first failure and of its dead-lettering, not of every attempt',
    );
    assert.deepEqual(
      attemptsOf('seen', 'poison-1').map((l) => l.attempt),
      [1, 2, 3],
      'the restart was attempt 3: the count survived the SIGKILL',
    );

    // Its slot (In flight 1) is free: a good event goes through.
    assert.equal((await postJson(`${nr.url}${PATH}`, plate('good-1', 'ABC123'))).status, 200);
    await until(() => attemptsOf('ok', 'good-1').length === 1, 30000, 'the good event finished');

    const listUrl = `${nr.url}/detection-bridge/dead-letters/e-in`;
    const listed = await request(listUrl, { method: 'GET', headers: { accept: 'application/json' } });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.json.items.map((d) => [d.messageId, d.attempts, d.lastError, d.kind]),
      [['poison-1', 3, dead.error, 'lpr']],
    );

    // Fixed by a deploy (the receiver restarts on its journal: the dead letter is still there), then replayed.
    await nr.deploy(deadLetterFlow(dir, true), { [PATH]: 405 });
    // Until the receiver's successor has opened its journal, the endpoint answers 503 (Retry-After).
    const replay = await until(
      async () => {
        const answer = await postJson(`${listUrl}/replay`, { ids: [listed.json.items[0].id] });
        assert.ok(answer.status === 200 || answer.status === 503, answer.text);
        return answer.status === 200 && answer;
      },
      15000,
      'the replay taken',
    );
    assert.deepEqual(replay.json, { replayed: 1 });
    await until(() => attemptsOf('ok', 'poison-1').length === 1, 30000, 'the replayed event finished');
    assert.deepEqual(attemptsOf('ok', 'poison-1')[0], { messageId: 'poison-1', attempt: 1 });
    const after = await request(listUrl, { method: 'GET', headers: { accept: 'application/json' } });
    assert.deepEqual(after.json, { count: 0, items: [] });
    const unknown = await request(`${nr.url}/detection-bridge/dead-letters/nosuchnode`, { method: 'GET', headers: { accept: 'application/json' } });
    assert.equal(unknown.status, 404);
    assert.deepEqual(
      nr.errorLines().filter((l) => !/bad plate/.test(l)),
      [],
    );
  });
});
