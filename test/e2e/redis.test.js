'use strict';
/**
 * Several Node-RED instances sharing one Redis (issue 12), end to end: real
 * Node-RED processes (the packed module) and a real redis-server, all on
 * 127.0.0.1, each test with its own redis-server.
 *
 * - Atomic dedupe: two instances, each event posted to both at once; a dedupe
 *   shared through Redis passes every messageId exactly once in total.
 * - Failover: two instances (receiver written to Redis, shared dedupe,
 *   detection-done) behind the simulator's round robin, one SIGKILLed in the
 *   middle and not restarted: every event reaches the end exactly once (a
 *   repeat only the documented one), the survivor emits the dead one's pending
 *   events again, and the bridge's resend of one of them reaching the survivor
 *   while it is pending is answered 200 and not emitted (issue 27).
 * - Presence shared through Redis: each plate seen at both instances at once
 *   (once with a look-alike misread) arrives once and leaves once in total.
 * - Redis down and back: 503 with Retry-After from the receiver and the
 *   dedupe's pass policy while Redis is stopped; a resilient run that spans
 *   the outage delivers every event once Redis is back (same port, its data kept).
 */
const assert = require('node:assert/strict');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { nodeRedVersion, request, until } = require('../support');
const { NodeRedProcess, functionNode, fileNode, simulateIn, whileRunning } = require('../support/nodered-process');
const { RedisServer, redisAvailable, redisClient } = require('../support/redis-server');
const { exactlyOnceProblems, probeRecord } = require('../support/exactly-once');
const ev = require('../fixtures/events');

const TAB = 'e2eredistab00001';
const REDIS = 'e2e-redis-config';
/** The consumer group of every receiver stream (lib/delivery/stream.ts). */
const GROUP = 'detection-in';
/** The configuration node's default key prefix. */
const PREFIX = 'detection-bridge:';
/** Pending entries are claimed by another instance after this long. */
const CLAIM_AFTER_S = 2;

/**
 * The probe records (one JSON object per line, written by a file node). A
 * SIGKILL can cut a line short and the next record then follows the fragment
 * on the same line: whole records are read wherever they are.
 */
function readRecords(file) {
  if (!fs.existsSync(file)) return [];
  const out = [];
  for (const m of fs.readFileSync(file, 'utf8').matchAll(/\{"messageId":"[^"]*"[^{}\n]*\}/g)) {
    try {
      out.push(JSON.parse(m[0]));
    } catch {
      // a fragment that happens to end in a brace
    }
  }
  return out;
}

/** The configuration node: defaults for everything but the URL (prefix, instance = host:port). */
const redisConfig = (url) => ({ id: REDIS, type: 'detection-redis', name: '', url });

function receiver(id, urlPath, next, extra = {}) {
  return {
    id,
    type: 'detection-in',
    z: TAB,
    name: '',
    path: urlPath,
    auth: 'none',
    headerName: '',
    maxBodyMiB: 16,
    validation: 'lenient',
    ackMode: 'memory',
    wires: [[next], []],
    ...extra,
  };
}

function sharedDedupe(id, sharedName, wires) {
  return {
    id,
    type: 'detection-dedupe',
    z: TAB,
    name: '',
    mode: 'id',
    key: 'messageId',
    keyType: 'msg',
    missingKey: 'pass',
    ttl: 1,
    ttlUnits: 'h',
    refresh: false,
    maxKeys: 100000,
    duplicatesOutput: wires.length > 1,
    persist: false,
    store: '',
    scope: 'redis',
    redis: REDIS,
    sharedName,
    // whenUnreachable left to its default: pass (and warn)
    outputs: wires.length,
    wires,
  };
}

/** A line for the probe file: the messageId and whether it came again; the message goes on whole. */
const lineOf = (id, next, extra = '') =>
  functionNode(
    id,
    TAB,
    `msg.payload = JSON.stringify({ messageId: msg.messageId, redelivered: msg.redelivered === true${extra} }); return msg;`,
    next,
  );

/** Holds each message `ms` (core delay node), so an instance always has events in its flow. */
function hold(id, ms, next) {
  return {
    id,
    type: 'delay',
    z: TAB,
    name: '',
    pauseType: 'delay',
    timeout: String(ms),
    timeoutUnits: 'milliseconds',
    rate: '1',
    nbRateUnits: '1',
    rateUnits: 'second',
    randomFirst: '1',
    randomLast: '5',
    randomUnits: 'seconds',
    drop: false,
    allowrate: false,
    outputs: 1,
    wires: [[next]],
  };
}

const done = (id) => ({ id, type: 'detection-done', z: TAB, name: '', passOn: false, outputs: 0, wires: [] });

/** memory receiver → shared dedupe → passed / duplicate lines in one probe file. */
function atomicFlow(redisUrl, probeFile) {
  return [
    { id: TAB, type: 'tab', label: 'redis atomic' },
    redisConfig(redisUrl),
    receiver('a-in', '/a/in', 'a-dedupe'),
    sharedDedupe('a-dedupe', 'atomic', [['a-pass'], ['a-dup']]),
    lineOf('a-pass', 'a-file', ', passed: true'),
    lineOf('a-dup', 'a-file', ', passed: false'),
    fileNode('a-file', TAB, probeFile),
  ];
}

/** memory receiver → presence shared through Redis (keyed by plate, away after `awaySeconds`) → arrived / left lines in one probe file. */
function presenceFlow(redisUrl, probeFile, awaySeconds) {
  const line = (id, state) =>
    functionNode(
      id,
      TAB,
      `msg.payload = JSON.stringify({ messageId: msg.presence.key, state: '${state}', late: msg.presence.late === true }); return msg;`,
      'p-file',
    );
  return [
    { id: TAB, type: 'tab', label: 'redis presence' },
    redisConfig(redisUrl),
    receiver('p-in', '/p/in', 'p-presence'),
    {
      id: 'p-presence',
      type: 'detection-presence',
      z: TAB,
      name: '',
      keyBy: 'plate',
      lookalike: true,
      away: awaySeconds,
      awayUnits: 's',
      stillHere: 0,
      stillHereUnits: 'h',
      maxKeys: 10000,
      scope: 'redis',
      redis: REDIS,
      sharedName: 'site',
      wires: [['p-arrived'], ['p-left'], [], []],
    },
    line('p-arrived', 'arrived'),
    line('p-left', 'left'),
    fileNode('p-file', TAB, probeFile),
  ];
}

/** receiver written to Redis → probe as emitted → shared dedupe → 150 ms in the flow → probe at the end → detection-done.
 *  Events whose messageId starts with `held-` wait 5 s more first (one the test kills an instance under). */
function failoverFlow(redisUrl, probeFile) {
  return [
    { id: TAB, type: 'tab', label: 'redis failover' },
    redisConfig(redisUrl),
    receiver('f-in', '/f/in', 'f-seen', { ackMode: 'redis', redis: REDIS, claimAfterSeconds: CLAIM_AFTER_S }),
    {
      ...functionNode(
        'f-seen',
        TAB,
        `const line = { payload: ${probeRecord('in')} }; return String(msg.messageId).startsWith('held-') ? [line, null, msg] : [line, msg, null];`,
      ),
      outputs: 3,
      wires: [['f-file'], ['f-dedupe'], ['f-slow']],
    },
    hold('f-slow', 5000, 'f-dedupe'),
    sharedDedupe('f-dedupe', 'failover', [['f-hold']]),
    hold('f-hold', 150, 'f-line'),
    functionNode('f-line', TAB, `msg.payload = ${probeRecord('end')}; return msg;`, 'f-file'),
    fileNode('f-file', TAB, probeFile, 'f-event'),
    functionNode('f-event', TAB, 'return msg._delivery ? msg : null;', 'f-done'),
    done('f-done'),
  ];
}

/** Two receivers (written to Redis; memory) → one shared dedupe → probe (passed and duplicates) → detection-done. */
function outageFlow(redisUrl, probeFile) {
  return [
    { id: TAB, type: 'tab', label: 'redis outage' },
    redisConfig(redisUrl),
    receiver('o-in', '/o/stream', 'o-dedupe', { ackMode: 'redis', redis: REDIS, claimAfterSeconds: CLAIM_AFTER_S }),
    receiver('o-mem', '/o/mem', 'o-dedupe'),
    sharedDedupe('o-dedupe', 'outage', [['o-line'], ['o-dup']]),
    lineOf('o-line', 'o-file'),
    lineOf('o-dup', 'o-file', ', duplicate: true'),
    fileNode('o-file', TAB, probeFile, 'o-done'),
    done('o-done'),
  ];
}

const eventBody = (messageId) => {
  const event = ev.fullLpr();
  event.payload.messageId = messageId;
  return JSON.stringify(event);
};

/** POSTs the event `messageId` to `url` (a connection of its own, unless `agent`). */
const postEvent = (url, messageId, agent) => request(url, { headers: { 'content-type': 'application/json' }, body: eventBody(messageId), agent });

/** Runs `work(i)` for i in 0..count-1, `width` at a time. */
async function pool(count, width, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** Records grouped by messageId. */
function byId(records) {
  const map = new Map();
  for (const r of records) map.set(r.messageId, [...(map.get(r.messageId) || []), r]);
  return map;
}

/** Waits until every one of `ids` is among the records `read()` returns; the error says how many are missing. */
async function allArrive(read, ids, timeoutMs, what) {
  const missing = () => {
    const seen = new Set(read().map((r) => r.messageId));
    return ids.filter((id) => !seen.has(id));
  };
  await until(() => missing().length === 0, timeoutMs, what).catch((err) => {
    const left = missing();
    throw new Error(`${err.message}: ${left.length} of ${ids.length} missing, e.g. ${left.slice(0, 3).join(', ')}`);
  });
}

describe(`e2e: several Node-RED instances sharing one Redis, Node-RED ${nodeRedVersion()}`, function () {
  this.timeout(120000);
  /** Two instances, created once (the packed module installed in each user directory). */
  let nrs = [];
  /** What each test starts and must stop (redis-server, clients), last first. */
  let cleanups = [];
  /** Where each instance's log stood when the test began. */
  let marks = [];

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed, skipping: apt-get install -y redis-server)');
      this.skip();
    }
    this.timeout(180000);
    // Kept as each is made, so after() removes whatever was made should the other fail.
    await Promise.all(
      [0, 1].map(async () => {
        const nr = await NodeRedProcess.create();
        nrs.push(nr);
        await nr.start();
      }),
    );
  });

  beforeEach(function () {
    marks = nrs.map((nr) => nr.log.length);
  });

  afterEach(async function () {
    const failed = this.currentTest && this.currentTest.state === 'failed';
    if (failed) {
      nrs.forEach((nr, i) => console.log(`\n---- Node-RED ${i + 1} output ----\n${nr.logText()}\n----`));
    }
    for (const cleanup of cleanups.reverse()) await cleanup(failed).catch(() => undefined);
    cleanups = [];
  });

  after(async function () {
    this.timeout(60000);
    await Promise.all(nrs.map((nr) => nr.cleanup()));
  });

  /** A redis-server for this test, stopped and removed after it. */
  async function startRedis(options) {
    const server = await RedisServer.start(options);
    cleanups.push(() => server.close());
    const client = await redisClient(server.url);
    cleanups.push(() => client.close());
    return { server, client };
  }

  /** The instances a test uses, started again if a previous test killed one (same user directory). */
  async function running(...list) {
    for (const nr of list) {
      if (nr.child && !nr.exitedWith) continue;
      const i = nrs.indexOf(nr);
      await nr.start();
      marks[i] = nr.log.length;
    }
    return list;
  }

  /** The simulator's command line, stopped after the test if it is still running. */
  const simulate = (args) => simulateIn(cleanups, args, 110000);

  /** Lines instance `i` logged since the test began. */
  const logSince = (i) => nrs[i].log.slice(marks[i]).join('').split('\n');
  const errorsSince = (i) => logSince(i).filter((l) => /\[error\]/.test(l));

  it('atomic dedupe: 1,000 events, each posted to two instances at once, pass exactly once in total', async () => {
    const N = 1000;
    await running(...nrs);
    const { server } = await startRedis();
    const probes = nrs.map((nr) => path.join(nr.userDir, 'atomic.jsonl'));
    await Promise.all(nrs.map((nr, i) => nr.deploy(atomicFlow(server.url, probes[i]), { '/a/in': 405 })));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    cleanups.push(async () => agent.destroy());
    const ids = Array.from({ length: N }, () => randomUUID());
    const started = performance.now();
    await pool(N, 12, async (i) => {
      const answers = await Promise.all(nrs.map((nr) => postEvent(`${nr.url}/a/in`, ids[i], agent)));
      for (const a of answers) assert.equal(a.status, 200, a.text);
    });
    const records = () => probes.flatMap((p, i) => readRecords(p).map((r) => ({ ...r, instance: i })));
    // Every copy has come out of one of the two outputs: only then is "passed once" final.
    await until(() => records().length >= 2 * N, 60000, `all ${2 * N} copies through the dedupe`).catch((err) => {
      throw new Error(`${err.message}: ${records().length} arrived`);
    });
    const all = records();
    assert.equal(all.length, 2 * N, 'each copy came out once');
    const passed = all.filter((r) => r.passed);
    const groups = byId(passed);
    assert.equal(groups.size, N, 'every messageId passed');
    for (const [id, copies] of groups) assert.equal(copies.length, 1, `${id} passed ${copies.length} times`);
    assert.deepEqual(new Set(all.map((r) => r.messageId)), new Set(ids));
    const perInstance = nrs.map((_, i) => passed.filter((r) => r.instance === i).length);
    console.log(
      `      atomic: ${N} events × 2 instances in ${((performance.now() - started) / 1000).toFixed(1)} s; passed at each: ${perInstance.join(' + ')}`,
    );
    assert.deepEqual([...errorsSince(0), ...errorsSince(1)], []);
  });

  it('presence shared through Redis: each plate seen at both instances at once arrives once and leaves once, in total', async () => {
    const N = 40;
    const AWAY_S = 3;
    await running(...nrs);
    const { server } = await startRedis();
    const probes = nrs.map((nr) => path.join(nr.userDir, 'presence.jsonl'));
    await Promise.all(nrs.map((nr, i) => nr.deploy(presenceFlow(server.url, probes[i], AWAY_S), { '/p/in': 405 })));
    // Plates as a reader writes them; every other one read with a look-alike at the second instance (0 for O): still one car.
    const plates = Array.from({ length: N }, (_, i) => `PO${String(1000 + i)}`);
    const sighting = (plate, id) => {
      const event = ev.fullLpr();
      event.payload.messageId = id;
      event.payload.lprPlateInfo.plate = plate;
      event.payload.detectionInfo.dateTimeUtc = new Date().toISOString();
      return JSON.stringify(event);
    };
    await pool(N, 8, async (i) => {
      const reads = [plates[i], i % 2 ? plates[i].replace('O', '0') : plates[i]];
      const answers = await Promise.all(
        nrs.map((nr, k) => request(`${nr.url}/p/in`, { headers: { 'content-type': 'application/json' }, body: sighting(reads[k], randomUUID()) })),
      );
      for (const a of answers) assert.equal(a.status, 200, a.text);
    });
    const records = () => probes.flatMap((p, i) => readRecords(p).map((r) => ({ ...r, instance: i })));
    // Each plate leaves once Away after has passed without a sighting: wait for every departure.
    await until(() => records().filter((r) => r.state === 'left').length >= N, 60000, `all ${N} departures`).catch((err) => {
      throw new Error(`${err.message}: ${JSON.stringify(records().slice(0, 5))}… (${records().length} records)`);
    });
    const all = records();
    for (const state of ['arrived', 'left']) {
      const groups = byId(all.filter((r) => r.state === state));
      assert.equal(groups.size, N, `every plate ${state}`);
      for (const [key, copies] of groups) assert.equal(copies.length, 1, `${key} ${state} ${copies.length} times`);
    }
    assert.equal(all.length, 2 * N, 'nothing else was sent');
    const perInstance = nrs.map((_, i) => all.filter((r) => r.instance === i && r.state === 'arrived').length);
    console.log(`      presence: ${N} plates seen at 2 instances; arrivals sent by each: ${perInstance.join(' + ')}`);
    assert.deepEqual([...errorsSince(0), ...errorsSince(1)], []);
  });

  it('failover: 2,000 events round robin over two instances, one SIGKILLed and not restarted: all reach the end exactly once, the survivor claims the rest, a resend of a pending one is absorbed', async () => {
    const N = 2000;
    const [survivor, victim] = await running(...nrs);
    const { server, client } = await startRedis();
    const probes = nrs.map((nr) => path.join(nr.userDir, `failover-${randomUUID()}.jsonl`));
    await Promise.all(nrs.map((nr, i) => nr.deploy(failoverFlow(server.url, probes[i]), { '/f/in': 405 })));
    const stream = `${PREFIX}stream:/f/in`;
    // The default instance name: host and Node-RED port.
    const victimName = `${os.hostname()}:${victim.port}`;
    const probed = (i) => readRecords(probes[i]);
    const records = (i) => probed(i).filter((r) => r.at === 'end');
    const summaryFile = path.join(survivor.base, 'failover-summary.json');
    const run = simulate([
      'send',
      '--url',
      `${survivor.url}/f/in`,
      '--url',
      `${victim.url}/f/in`,
      '--count',
      String(N),
      '--rate',
      '250',
      '--concurrency',
      '8',
      '--resilient',
      '--retry-delay',
      '100',
      '--timeout',
      '5000',
      '--summary-json',
      summaryFile,
    ]);
    await whileRunning(run, () => records(0).length + records(1).length >= N / 2, 60000, `${N / 2} events through`).catch((err) => {
      throw new Error(`${err.message} (${records(0).length} + ${records(1).length} arrived)`);
    });
    // An event the victim holds in its flow when it dies (its 200 lost, say): the bridge sends it again, to the survivor.
    const held = `held-${randomUUID()}`;
    assert.equal((await postEvent(`${victim.url}/f/in`, held)).status, 200);
    await until(() => probed(1).some((r) => r.messageId === held), 10000, 'the held event emitted by the victim');
    await victim.stop('SIGKILL');
    const killedAt = performance.now();
    const resent = await postEvent(`${survivor.url}/f/in`, held);
    assert.equal(resent.status, 200, resent.text);
    // What the dead instance had taken but not finished: its entries pending in the group.
    const pending = await client.sendCommand(['XPENDING', stream, GROUP, '-', '+', '100000', victimName]);
    const orphans = [];
    for (const [entryId] of pending) {
      const [entry] = await client.xRange(stream, entryId, entryId);
      if (entry) orphans.push(JSON.parse(entry.message.body).payload.messageId);
    }
    // Each instance is its own consumer in the group, named by its host and port (the default).
    const consumers = (await client.xInfoConsumers(stream, GROUP)).map((c) => c.name).sort();
    assert.deepEqual(consumers, [`${os.hostname()}:${survivor.port}`, victimName].sort());
    assert.ok(orphans.includes(held), `the killed instance (${victimName}) had the held event in its flow`);
    // Each arrives at the survivor: claimed and flagged redelivered, or, when the victim died before
    // its dedupe saw the event, as the bridge's retry (its answer never came), which the shared dedupe
    // then lets through first and the claimed copy is dropped as a repeat. Either way the stream must
    // empty below: the survivor claimed and finished every entry the victim left.
    await allArrive(() => records(0), [...new Set(orphans)], 60000, "the dead instance's pending events at the survivor");
    const claimedAfterS = (performance.now() - killedAt) / 1000;
    const orphanIds = new Set(orphans);
    const claimedCopies = records(0).filter((r) => r.redelivered && orphanIds.has(r.messageId)).length;

    const result = await run;
    assert.equal(result.code, 0, `simulator: ${result.stdout}\n${result.stderr}`);
    const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    assert.equal(summary.acknowledged, N);
    // The simulator does not print its ids: every record names one, and there must be N of them.
    const arrived = () => byId([...records(0), ...records(1)]);
    await until(() => arrived().size >= N + 1, 60000, `all ${N + 1} events at the end of the flow`).catch((err) => {
      throw new Error(`${err.message}: ${arrived().size} arrived`);
    });
    const sent = arrived();
    assert.equal(sent.size, N + 1, 'every event acknowledged, and no other');
    const { problems, documented: repeats } = exactlyOnceProblems([...probed(0), ...probed(1)]);
    assert.deepEqual(problems, [], 'exactly once');
    // The resend was absorbed: the survivor emitted only the victim's entry, claimed (flagged).
    const heldAtSurvivor = probed(0).filter((r) => r.messageId === held);
    assert.ok(heldAtSurvivor.length > 0 && heldAtSurvivor.every((r) => r.redelivered), JSON.stringify(heldAtSurvivor));
    // Nothing left behind: every entry finished (the dead one's claimed and finished by the survivor).
    await until(async () => (await client.xLen(stream)) === 0, 30000, 'the stream to empty');
    const left = await client.sendCommand(['XPENDING', stream, GROUP]);
    assert.equal(Number(left[0]), 0, 'nothing pending in the group');
    console.log(
      `      failover: ${N} events, ${summary.retried} retries by the simulator, ${orphans.length} pending at the killed instance, ` +
        `all at the survivor ${claimedAfterS.toFixed(1)} s after the kill (${claimedCopies} claimed, claim after ${CLAIM_AFTER_S} s), ${repeats} flagged repeats at the end`,
    );
    assert.deepEqual(errorsSince(0), []);
  });

  it('Redis down and back: 503 with Retry-After and the dedupe passing while it is stopped, nothing lost after', async () => {
    const N = 600;
    const K = 20;
    const [nr] = await running(nrs[0]);
    const { server, client } = await startRedis({ persist: true });
    const probe = path.join(nr.userDir, `outage-${randomUUID()}.jsonl`);
    await nr.deploy(outageFlow(server.url, probe), { '/o/stream': 405, '/o/mem': 405 });
    const all = () => readRecords(probe);
    const records = () => all().filter((r) => !r.duplicate);
    const summaryFile = path.join(nr.base, 'outage-summary.json');
    const run = simulate([
      'send',
      '--url',
      `${nr.url}/o/stream`,
      '--count',
      String(N),
      '--rate',
      '100',
      '--concurrency',
      '8',
      '--resilient',
      '--retry-delay',
      '100',
      '--timeout',
      '5000',
      '--summary-json',
      summaryFile,
    ]);
    await whileRunning(run, () => records().length >= N / 4, 60000, `${N / 4} events through`).catch((err) => {
      throw new Error(`${err.message} (${records().length} arrived)`);
    });
    await server.stop();

    // The receiver written to Redis refuses: the bridge keeps the event.
    const refused = await postEvent(`${nr.url}/o/stream`, randomUUID());
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.headers['retry-after'], '1');
    assert.match(refused.json.detail, /Redis is unreachable/);

    // The shared dedupe, fed by the memory receiver, lets messages through and says so.
    const memIds = Array.from({ length: K }, () => randomUUID());
    for (const id of memIds) {
      const res = await postEvent(`${nr.url}/o/mem`, id);
      assert.equal(res.status, 200, res.text);
    }
    await allArrive(records, memIds, 20000, "the memory receiver's events through the dedupe while Redis is down");
    await until(
      () => logSince(0).some((l) => /\[warn\] \[detection-dedupe:[^\]]*\] .*Messages pass unchecked until Redis is back/.test(l)),
      10000,
      "the dedupe's warning",
    );

    await server.resume();
    const result = await run;
    assert.equal(result.code, 0, `simulator: ${result.stdout}\n${result.stderr}`);
    const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
    assert.equal(summary.acknowledged, N);
    assert.ok(summary.statusCodes['503'] > 0, `the run spanned the outage: ${JSON.stringify(summary.statusCodes)}`);
    // The shared window works again: a repeat is caught. (Through the other receiver: a receiver that
    // still holds the first copy takes a repeat for the bridge's resend of it and does not emit it.)
    const again = randomUUID();
    for (const receiverPath of ['/o/mem', '/o/stream']) assert.equal((await postEvent(`${nr.url}${receiverPath}`, again)).status, 200);
    const copies = () => all().filter((r) => r.messageId === again);
    await until(() => copies().length >= 2, 10000, 'both copies of a repeat out of the shared dedupe');
    assert.deepEqual(
      copies()
        .map((r) => r.duplicate === true)
        .sort(),
      [false, true],
      'the repeat caught: passed once, then a duplicate',
    );
    await until(() => byId(records()).size >= N + K + 1, 60000, `all ${N + K + 1} events at the end of the flow`).catch((err) => {
      throw new Error(`${err.message}: ${byId(records()).size} arrived`);
    });
    const got = byId(records());
    assert.equal(got.size, N + K + 1, 'every event acknowledged, and no other');
    for (const [id, copies] of got) assert.ok(copies.filter((c) => !c.redelivered).length <= 1, `${id}: ${JSON.stringify(copies)}`);
    await until(async () => (await client.xLen(`${PREFIX}stream:/o/stream`)) === 0, 30000, 'the stream to empty');
    console.log(
      `      outage: ${N} events, ${summary.statusCodes['503']} answers 503 while Redis was down, ${summary.retried} retries, ` +
        `${[...got.values()].reduce((n, c) => n + c.length - 1, 0)} flagged repeats at the end`,
    );
    assert.deepEqual(errorsSince(0), []);
  });
});
