'use strict';
/**
 * A deploy refuses nothing in Redis mode either: a receiver that answers
 * "once written to Redis" and a dedupe shared through Redis, both on a
 * detection-redis configuration node that every full deploy recreates (its
 * new connection starts `connecting`), take every event posted while the
 * flows are redeployed, over real HTTP against a real redis-server.
 */
const assert = require('node:assert/strict');
const { getHelper, translatedModule, loadWithHttp, closeServers, postJson, until, deploy } = require('../support');
const { RedisServer, redisAvailable, redisClient } = require('../support/redis-server');
const ev = require('../fixtures/events');
const { completion } = require('../../dist/lib/delivery/completion');

const helper = getHelper();
const detectionIn = translatedModule('detection-in');
const detectionDedupe = translatedModule('detection-dedupe');
const detectionRedis = translatedModule('detection-redis');

describe('Redis modes across full deploys (redis-server)', function () {
  this.timeout(60_000);
  let server;
  let client;

  before(async function () {
    if (!redisAvailable()) {
      console.log('      (redis-server is not installed: apt-get install -y redis-server)');
      this.skip();
    }
    server = await RedisServer.start();
    client = await redisClient(server.url);
  });
  after(async () => {
    await client?.close();
    await server?.close();
  });
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await closeServers();
    await helper.unload();
    await helper.stopServer();
  });

  it('answers every event 200 and passes each once while the flows are redeployed twice', async () => {
    /** messageIds that reached the end of the flow, across every instance of it. */
    const arrived = [];
    // The end of the flow finishes each event as it records it (as detection-done would):
    // what a deploy cut short is emitted again, what got here is not.
    const sink = (RED) => {
      RED.nodes.registerType('test-sink', function (config) {
        RED.nodes.createNode(this, config);
        this.on('input', (msg, _send, done) => {
          arrived.push(msg.messageId);
          completion.finish(msg);
          done();
        });
      });
    };
    const flow = [
      { id: 't1', type: 'tab' },
      { id: 'redis1', type: 'detection-redis', url: server.url, prefix: 'deploys:' },
      {
        id: 'rin',
        type: 'detection-in',
        z: 't1',
        path: '/shared/detections',
        auth: 'none',
        ackMode: 'redis',
        redis: 'redis1',
        finishedWhen: 'done',
        wires: [['dd'], []],
      },
      // "drop" while unreachable: a check refused during a deploy would lose the event
      {
        id: 'dd',
        type: 'detection-dedupe',
        z: 't1',
        mode: 'id',
        key: 'messageId',
        keyType: 'msg',
        ttl: 10,
        ttlUnits: 'm',
        maxKeys: 10,
        scope: 'redis',
        redis: 'redis1',
        whenUnreachable: 'drop',
        wires: [['sink'], []],
      },
      { id: 'sink', type: 'test-sink', z: 't1', wires: [] },
    ];
    const base = await loadWithHttp([sink, detectionRedis, detectionIn, detectionDedupe], flow);
    await until(() => helper.getNode('redis1').connection.ready, 5000, 'Redis connected');

    const answers = [];
    let posting = true;
    let sent = 0;
    const poster = (async () => {
      while (posting) {
        const event = ev.fullLpr();
        const id = `deploy-${++sent}`;
        event.payload.messageId = id;
        const answer = await postJson(`${base}/shared/detections`, event);
        answers.push({ id, status: answer.status, body: answer.text });
      }
    })();
    // Two posters: one request is always under way, often two, as a deploy begins.
    const second = (async () => {
      while (posting) {
        const event = ev.fullFace();
        const id = `deploy-face-${++sent}`;
        event.payload.messageId = id;
        const answer = await postJson(`${base}/shared/detections`, event);
        answers.push({ id, status: answer.status, body: answer.text });
      }
    })();

    const afterSome = async (count) => {
      const from = answers.length;
      await until(() => answers.length >= from + count, 10_000, `${count} more answers`);
    };
    try {
      await afterSome(10);
      for (let round = 0; round < 2; round++) {
        const before = helper.getNode('redis1').connection;
        await deploy(flow, 'full');
        assert.notEqual(helper.getNode('redis1').connection, before, 'a full deploy recreates the connection');
        await afterSome(10);
      }
    } finally {
      // Stopped whatever happened: posters left running would load the tests after this one.
      posting = false;
      await Promise.allSettled([poster, second]);
    }
    await Promise.all([poster, second]);

    const refused = answers.filter((a) => a.status !== 200);
    assert.deepEqual(refused, [], 'no request refused');
    const ids = answers.map((a) => a.id);
    await until(() => ids.every((id) => arrived.includes(id)), 10_000, 'every event at the end of the flow');
    const counted = new Map();
    for (const id of arrived) counted.set(id, (counted.get(id) ?? 0) + 1);
    assert.deepEqual(
      [...counted].filter(([, count]) => count !== 1),
      [],
      'each event once',
    );
    assert.equal(counted.size, ids.length);
  });
});
