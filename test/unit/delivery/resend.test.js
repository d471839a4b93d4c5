'use strict';
/**
 * lib/delivery/resend.ts and every store's side of it: a resend of an event
 * (same messageId) while an earlier copy is held unfinished is absorbed —
 * answered as taken, neither kept nor emitted — in memory, in the disk
 * journal (also once the journal is reopened after a crash) and in a Redis
 * stream shared by two instances (real redis-server).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { eventMessageId, messageIdOf } = require('../../../dist/lib/delivery/resend');
const { DeliveryTracker } = require('../../../dist/lib/delivery/tracker');
const { Journal } = require('../../../dist/lib/delivery/journal');
const { RedisStreamDelivery, STREAM_GROUP } = require('../../../dist/lib/delivery/stream');
const { RedisConnection } = require('../../../dist/lib/redis/connection');
const { RedisServer, redisAvailable } = require('../../support/redis-server');
const ev = require('../../fixtures/events');

/** An event body with `messageId` (undefined: none), as the bridge sends it. */
const bodyOf = (messageId, extra = {}) => {
  const event = ev.minimalLpr();
  if (messageId === undefined) delete event.payload.messageId;
  else event.payload.messageId = messageId;
  Object.assign(event.payload, extra);
  return Buffer.from(JSON.stringify(event));
};

/** What detection-in gives: the request's meta at stage, the meta with the messageId at commit. */
const request = { ip: '127.0.0.1', headers: {}, receivedAt: '2026-11-25T10:00:00.000Z' };
const committed = (messageId) => ({ ...request, kind: 'lpr', warnings: [], ...(messageId ? { messageId } : {}) });

/** Stages and commits one event; answers the id and whether it was absorbed. */
async function send(store, messageId, body = bodyOf(messageId)) {
  const staged = store.stage(request, body);
  const id = await staged.commit(committed(messageId), JSON.parse(body.toString()));
  return { id, absorbed: staged.absorbed === true };
}

describe('lib/delivery/resend', () => {
  describe('eventMessageId: payload.messageId without parsing the body, as JSON.parse answers it', () => {
    const parsed = (body) => {
      try {
        const id = JSON.parse(body.toString().replace(/^\uFEFF/, '')).payload?.messageId;
        return typeof id === 'string' && id !== '' ? id : undefined;
      } catch {
        return 'not JSON';
      }
    };
    const cases = {
      'a plate event with four 64 KiB crops': Buffer.from(JSON.stringify(ev.bigLpr(256 * 1024, 'msg-big-1'))),
      'a face event, every field': Buffer.from(JSON.stringify(ev.fullFace())),
      'indented, messageId first': Buffer.from(JSON.stringify({ payload: { messageId: 'm-1', plate: 'A' }, publishType: 'x' }, null, 2)),
      'a byte-order mark and spaces': Buffer.from('\uFEFF  { "payload" : { "messageId" : "m-bom" } }  '),
      'messageId elsewhere, not in payload': Buffer.from('{"messageId":"outer","fields":[{"messageId":"f"}],"payload":{"x":{"messageId":"deep"}}}'),
      'an escaped quote and backslashes before the key': Buffer.from(
        '{"a":"he said \\"payload\\": {\\\\","payload":{"b":"\\\\","messageId":"m-esc"}}',
      ),
      'escapes in the value': Buffer.from('{"payload":{"messageId":"m\\u002d\\"2\\"\\n"}}'),
      'an escaped key': Buffer.from('{"pay\\u006coad":{"message\\u0049d":"m-key"}}'),
      'repeated keys: the last wins': Buffer.from('{"payload":{"messageId":"first","messageId":"last"}}'),
      'a later payload replaces the first': Buffer.from('{"payload":{"messageId":"first"},"payload":{"plate":"A"}}'),
      'a non-string messageId': Buffer.from('{"payload":{"messageId":42}}'),
      'a null messageId after a string one': Buffer.from('{"payload":{"messageId":"m","messageId":null}}'),
      'an empty messageId': Buffer.from('{"payload":{"messageId":""}}'),
      'payload not an object': Buffer.from('{"payload":["messageId","x"]}'),
      'numbers, literals, nested arrays': Buffer.from(
        '{"n":-1.5e3,"t":true,"z":null,"a":[[1,{"b":[]}],"]"],"payload":{"k":false,"messageId":"m-mixed"}}',
      ),
      'non-ASCII': Buffer.from('{"payload":{"note":"Grüße 日本","messageId":"m-ü-日"}}'),
      'no messageId': bodyOf(undefined),
      'an array': Buffer.from('[{"payload":{"messageId":"m"}}]'),
    };
    for (const [name, body] of Object.entries(cases)) {
      it(name, () => assert.equal(eventMessageId(body), parsed(body)));
    }
  });

  it('messageIdOf: a non-empty string messageId of a meta, else undefined (never absorbed)', () => {
    assert.equal(messageIdOf({ messageId: 'm' }), 'm');
    for (const meta of [{}, { messageId: '' }, { messageId: 7 }, null, undefined]) assert.equal(messageIdOf(meta), undefined);
  });

  describe('memory and disk trackers', () => {
    let dir;
    beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resend-test-'))));
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    for (const mode of ['memory', 'disk']) {
      it(`${mode}: a resend while the first copy is held is absorbed; once it is finished, the messageId is taken again`, async () => {
        const { tracker } = await DeliveryTracker.open({ mode, journalPath: path.join(dir, 'j.log'), maxEvents: 10, maxBytes: 1e6 });
        tracker.awaitCompletion = true;
        const first = await send(tracker, 'm-1');
        assert.equal(first.absorbed, false);
        tracker.emitted(first.id);
        const pending = tracker.pending;
        const resend = await send(tracker, 'm-1');
        assert.deepEqual(resend, { id: first.id, absorbed: true }, 'answered with the held copy');
        assert.deepEqual(tracker.pending, pending, 'nothing more held, its bytes given back');
        assert.equal(tracker.absorbed, 1);
        const other = await send(tracker, 'm-2');
        assert.equal(other.absorbed, false, 'another messageId is another event');
        const none = [await send(tracker, undefined), await send(tracker, undefined)];
        assert.deepEqual(
          none.map((r) => r.absorbed),
          [false, false],
          'an event without a messageId is never absorbed',
        );
        assert.deepEqual((await tracker.unfinished()).map((r) => r.id).sort(), [first.id]);
        assert.equal(tracker.complete(first.id), true);
        const later = await send(tracker, 'm-1');
        assert.equal(later.absorbed, false, 'finished: a later copy is a new event (a dedupe node decides)');
        assert.notEqual(later.id, first.id);
        await tracker.close();
      });
    }

    it('memory: the one-step take and a hand-over (adopt) absorb too, and two concurrent copies make one', async () => {
      const { tracker } = await DeliveryTracker.open({ mode: 'memory', maxEvents: 10, maxBytes: 1e6 });
      tracker.awaitCompletion = true;
      const [a, b] = await Promise.all([send(tracker, 'm-c'), send(tracker, 'm-c')]);
      assert.deepEqual([a.absorbed, b.absorbed], [false, true]);
      assert.equal(b.id, a.id);
      await tracker.adopt([{ id: 99, meta: committed('m-c'), event: {} }]);
      assert.equal(tracker.pending.events, 1);
      assert.equal(tracker.absorbed, 2);
      await tracker.close();
    });

    it('disk: the absorbed copy is marked finished in the journal; after a crash the index is rebuilt from the bodies and absorbs the resend', async () => {
      const journalPath = path.join(dir, 'j.log');
      const opened = await DeliveryTracker.open({ mode: 'disk', journalPath, maxEvents: 10, maxBytes: 1e6 });
      opened.tracker.awaitCompletion = true;
      const first = await send(opened.tracker, 'm-1');
      opened.tracker.emitted(first.id);
      assert.equal((await send(opened.tracker, 'm-1')).absorbed, true);
      const plain = await send(opened.tracker, undefined);
      await opened.tracker.close(); // the held events stay unfinished, as after a SIGKILL

      const again = await DeliveryTracker.open({ mode: 'disk', journalPath, maxEvents: 10, maxBytes: 1e6 });
      assert.deepEqual(
        again.recovered.map((r) => r.id),
        [first.id, plain.id],
        'the absorbed copy is not in the journal any more',
      );
      again.tracker.awaitCompletion = true;
      // The journal's meta is the request's (no messageId): the index comes from the body.
      assert.equal(again.recovered[0].meta.messageId, undefined);
      const resend = await send(again.tracker, 'm-1');
      assert.deepEqual(resend, { id: first.id, absorbed: true }, "the bridge's resend after the crash");
      assert.equal((await send(again.tracker, undefined)).absorbed, false);
      assert.equal(again.tracker.complete(first.id), true);
      assert.equal((await send(again.tracker, 'm-1')).absorbed, false, 'finished: the index let go of it');
      await again.tracker.close();
    });

    it('disk: two unfinished copies of one messageId in the journal (an absorbed copy whose mark a crash lost) come back as one', async () => {
      const journalPath = path.join(dir, 'j.log');
      const { journal } = await Journal.open(journalPath, { maxBytes: 1e6 });
      const seqs = [];
      for (const id of ['m-1', 'm-2', 'm-1']) seqs.push(await journal.append(request, bodyOf(id)));
      await journal.close();
      const opened = await DeliveryTracker.open({ mode: 'disk', journalPath, maxEvents: 10, maxBytes: 1e6 });
      assert.deepEqual(
        opened.recovered.map((r) => r.id),
        [seqs[0], seqs[1]],
      );
      assert.equal(opened.tracker.absorbed, 1);
      assert.equal(opened.tracker.pending.events, 2);
      await opened.tracker.close();
      const reopened = await DeliveryTracker.open({ mode: 'disk', journalPath, maxEvents: 10, maxBytes: 1e6 });
      assert.deepEqual(
        reopened.recovered.map((r) => r.id),
        [seqs[0], seqs[1]],
      );
      assert.equal(reopened.tracker.absorbed, 0, 'the later copy was marked finished for good');
      await reopened.tracker.close();
    });
  });

  describe('Redis stream, two instances (redis-server)', function () {
    this.timeout(30_000);
    let server;
    const open = [];

    before(async function () {
      if (!redisAvailable()) {
        console.log('      (redis-server is not installed: apt-get install -y redis-server)');
        this.skip();
      }
      server = await RedisServer.start();
    });
    after(() => server?.close());
    afterEach(async () => {
      for (const item of open.splice(0).reverse()) await item.close();
    });

    async function connect(instance) {
      const connection = new RedisConnection({ url: server.url, prefix: 'resend:', instance }, instance);
      open.push(connection);
      connection.open();
      await new Promise((resolve) => {
        if (connection.state === 'connected') return resolve();
        const seen = (s) => s === 'connected' && (connection.off('state', seen), resolve());
        connection.on('state', seen);
      });
      return connection;
    }

    let streams = 0;
    async function stream(connection, name, extra = {}) {
      const { delivery } = await RedisStreamDelivery.open({
        connection,
        name,
        maxEvents: 100,
        maxBytes: 1e7,
        streamMaxEvents: 100,
        streamMaxBytes: 1e7,
        claimAfterMs: 60_000,
        claimEveryMs: 3_600_000,
        ...extra,
      });
      open.push(delivery);
      delivery.awaitCompletion = true;
      return delivery;
    }

    it('the resend reaching the other instance while the entry is pending is absorbed; finishing it empties the index', async () => {
      const name = `/r${streams++}`;
      const a = await stream(await connect('a'), name);
      const bConnection = await connect('b');
      const b = await stream(bConnection, name);
      const client = bConnection.client;
      const ids = `${b.key}:ids`;

      const first = await send(a, 'm-1');
      a.emitted(first.id);
      const resend = await send(b, 'm-1');
      assert.deepEqual(resend, { id: first.id, absorbed: true });
      assert.equal(await client.xLen(b.key), 1, 'not added');
      assert.equal(b.pending.events, 0, 'not held at b');
      assert.equal(b.absorbed, 1);
      assert.deepEqual(await client.hGetAll(ids), { 'm-1': first.id });
      const none = await send(b, undefined);
      assert.equal(none.absorbed, false, 'an event without a messageId is never absorbed');
      b.complete(none.id);

      assert.equal(a.complete(first.id), true);
      await waitFor(async () => (await client.xLen(b.key)) === 0);
      assert.equal(await client.exists(ids), 0, 'the index emptied by the completion');
      const later = await send(b, 'm-1');
      assert.equal(later.absorbed, false, 'finished: a later copy is a new event');
      b.complete(later.id);
      await waitFor(async () => (await client.exists(ids)) === 0);
    });

    it("a dead instance's entry: the resend is absorbed, the survivor claims the entry and its completion drops the index line", async () => {
      const name = `/r${streams++}`;
      const dead = await stream(await connect('dead'), name);
      const bConnection = await connect('b');
      const client = bConnection.client;
      const gone = await send(dead, 'm-dead');
      dead.emitted(gone.id);
      const kept = await send(dead, 'm-kept');
      dead.emitted(kept.id);
      await dead.close(); // never finishes them

      const survivor = await stream(bConnection, name, { claimAfterMs: 100 });
      assert.deepEqual(await send(survivor, 'm-dead'), { id: gone.id, absorbed: true });
      let claimed = [];
      await waitFor(async () => (claimed = claimed.concat(await survivor.overdue())).length === 2);
      assert.deepEqual(claimed.map((r) => r.meta.messageId).sort(), ['m-dead', 'm-kept'], 'claimed entries carry their messageId');
      const pending = await client.xPendingRange(survivor.key, STREAM_GROUP, '-', '+', 10);
      assert.deepEqual(
        pending.map((p) => p.consumer),
        ['b', 'b'],
      );
      assert.deepEqual(await send(survivor, 'm-kept'), { id: kept.id, absorbed: true }, 'held by the survivor now: absorbed too');
      survivor.complete(gone.id);
      await waitFor(async () => (await client.hGet(`${survivor.key}:ids`, 'm-dead')) === null);
      assert.deepEqual(await client.hGetAll(`${survivor.key}:ids`), { 'm-kept': kept.id });
      survivor.complete(kept.id);
      await waitFor(async () => (await client.exists(`${survivor.key}:ids`)) === 0);
    });

    it('a completion by an instance that does not hold the entry (written late, after a deploy) reads the messageId from the entry', async () => {
      const name = `/r${streams++}`;
      const a = await stream(await connect('a'), name);
      const bConnection = await connect('b');
      const b = await stream(bConnection, name);
      const client = bConnection.client;
      const first = await send(a, 'm-late');
      const other = await send(a, 'm-other'); // keeps the stream from emptying
      assert.equal(b.complete(first.id), false, 'not held by b');
      await waitFor(async () => (await client.hGet(`${b.key}:ids`, 'm-late')) === null);
      assert.deepEqual(await client.hGetAll(`${b.key}:ids`), { 'm-other': other.id });
      a.complete(other.id);
      await waitFor(async () => (await client.exists(`${b.key}:ids`)) === 0);
    });

    it('an index line whose entry is no longer pending (finished, its line left) does not absorb', async () => {
      const name = `/r${streams++}`;
      const connection = await connect('a');
      const a = await stream(connection, name);
      const client = connection.client;
      const other = await send(a, 'm-other'); // keeps the stream from emptying
      const first = await send(a, 'm-1');
      // finished by hand without the index, as a completion written late after a deploy may be
      await client.sendCommand(['XACK', a.key, STREAM_GROUP, String(first.id)]);
      await client.sendCommand(['XDEL', a.key, String(first.id)]);
      assert.equal(await client.hGet(`${a.key}:ids`, 'm-1'), first.id);
      const again = await send(a, 'm-1');
      assert.equal(again.absorbed, false);
      assert.equal(await client.hGet(`${a.key}:ids`, 'm-1'), again.id, 'the line points at the new entry');
      a.complete(other.id);
      a.complete(again.id);
      a.complete(first.id);
      await waitFor(async () => (await client.exists(`${a.key}:ids`)) === 0);
    });
  });
});

/** Polls `check` until it holds: waiting on the state that proves it, bounded by the test's timeout. */
async function waitFor(check) {
  for (;;) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
