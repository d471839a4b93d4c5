'use strict';
/**
 * Presence's rules, one table of behaviour run against both backends: the
 * table kept in this process (lib/presence/table.ts, behind LocalPresence)
 * and the table shared through a real redis-server (lib/presence/redis-presence.ts,
 * its Lua scripts). The rules are written twice (TypeScript and Lua): here
 * they must agree. Time is the test's: both take `now` from the caller.
 */
const assert = require('node:assert/strict');
const { PresenceTable, MAX_CAMERAS } = require('../../../dist/lib/presence/table');
const { LocalPresence } = require('../../../dist/lib/presence/local-presence');
const { RedisPresence } = require('../../../dist/lib/presence/redis-presence');
const { RedisConnection } = require('../../../dist/lib/redis/connection');
const { RedisServer, redisAvailable } = require('../../support/redis-server');

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T08:00:00Z');

/** Waits until `connection` is connected (an event, not a timer). */
function connected(connection) {
  if (connection.state === 'connected') return Promise.resolve();
  return new Promise((resolve) => {
    const seen = (s) => {
      if (s !== 'connected') return;
      connection.off('state', seen);
      resolve();
    };
    connection.on('state', seen);
  });
}

async function connect(url, prefix) {
  const connection = new RedisConnection({ url, prefix }, 'unit');
  connection.open();
  await connected(connection);
  return connection;
}

const backends = [
  {
    name: 'kept in this process',
    async setup() {},
    async teardown() {},
    make(options) {
      return new LocalPresence(new PresenceTable(options), { keys: 'test', clock: { now: () => 0, setTimeout() {}, clearTimeout() {} } });
    },
  },
  {
    name: 'shared through Redis (redis-server)',
    async setup() {
      this.server = await RedisServer.start();
      this.connection = await connect(this.server.url, 'unit:');
      this.count = 0;
    },
    async teardown() {
      await this.connection?.close();
      await this.server?.close();
    },
    make(options) {
      return new RedisPresence(this.connection, { name: `t${this.count++}`, ...options });
    },
  },
];

/** A sighting of plate `key` at `camera`, seen at `time`. */
function plate(key, time, camera = 'Gate 1', extra = {}) {
  return { id: `lpr:${key}`, key, kind: 'lpr', label: key, camera, time, exit: false, ...extra };
}

const summary = (events) => events.map((e) => [e.state, e.entry.key, e.due]);

for (const backend of backends) {
  describe(`presence rules: ${backend.name}`, function () {
    this.timeout(10_000);
    before(async function () {
      if (backend.name.startsWith('shared') && !redisAvailable()) {
        console.log('      (redis-server is not installed: apt-get install -y redis-server)');
        this.skip();
      }
      await backend.setup();
    });
    after(() => backend.teardown());

    const options = { awayMs: 10 * MIN, stillHereMs: 60 * MIN, maxKeys: 100 };

    it('arrives at the first sighting, is seen again, and leaves once no sighting came for the away time', async () => {
      const p = backend.make(options);
      const first = await p.sight(plate('AB123', T0), T0);
      assert.equal(first.outcome, 'arrived');
      assert.equal(first.present, 1);
      assert.deepEqual(
        { firstSeen: first.entry.firstSeen, lastSeen: first.entry.lastSeen, cameras: first.entry.cameras, sightings: first.entry.sightings },
        { firstSeen: T0, lastSeen: T0, cameras: ['Gate 1'], sightings: 1 },
      );
      const again = await p.sight(plate('AB123', T0 + 5 * MIN, 'Yard'), T0 + 5 * MIN);
      assert.equal(again.outcome, 'seen');
      assert.deepEqual(again.entry.cameras, ['Gate 1', 'Yard']);
      assert.equal(again.entry.sightings, 2);
      assert.deepEqual((await p.sweep(T0 + 15 * MIN - 1)).events, [], 'not yet: seen 5 minutes after arriving');
      const swept = await p.sweep(T0 + 15 * MIN);
      assert.deepEqual(summary(swept.events), [['left', 'AB123', T0 + 15 * MIN]]);
      assert.equal(swept.events[0].entry.lastSeen, T0 + 5 * MIN);
      assert.equal(swept.events[0].entry.id, 'lpr:AB123');
      assert.equal(swept.present, 0);
      assert.deepEqual((await p.sweep(T0 + 20 * MIN)).events, [], 'a departure is taken once');
      assert.equal((await p.sight(plate('AB123', T0 + 30 * MIN), T0 + 30 * MIN)).outcome, 'arrived', 'and arrives again after');
    });

    it('tells when the next departure or still-here falls due', async () => {
      const p = backend.make(options);
      assert.equal((await p.sweep(T0)).nextDue, undefined);
      await p.sight(plate('A', T0), T0);
      assert.equal((await p.sweep(T0)).nextDue, T0 + 10 * MIN);
      for (let m = 9; m <= 54; m += 9) await p.sight(plate('A', T0 + m * MIN), T0 + m * MIN);
      assert.equal((await p.sweep(T0 + 54 * MIN)).nextDue, T0 + 60 * MIN, 'still here comes before the departure (64) now');
    });

    it('a resent event that would have left already makes no one arrive; one within the away time does, from its own time', async () => {
      const p = backend.make(options);
      const now = T0 + 2 * 60 * MIN;
      const old = await p.sight(plate('OLD1', now - 10 * MIN), now);
      assert.equal(old.outcome, 'stale');
      assert.equal(old.present, 0);
      const recent = await p.sight(plate('OLD1', now - 9 * MIN), now);
      assert.equal(recent.outcome, 'arrived');
      assert.equal(recent.entry.firstSeen, now - 9 * MIN);
      assert.deepEqual(summary((await p.sweep(now + MIN)).events), [['left', 'OLD1', now + MIN]], 'leaves at its time + away');
    });

    it('a sighting dated after now counts as now', async () => {
      const p = backend.make(options);
      const r = await p.sight(plate('FUT1', T0 + 60 * MIN), T0);
      assert.equal(r.entry.firstSeen, T0);
    });

    it('an older sighting within the away time of the stay moves first seen back; one older still changes nothing', async () => {
      const p = backend.make(options);
      await p.sight(plate('X1', T0), T0);
      const within = await p.sight(plate('X1', T0 - 8 * MIN, 'Gate 0'), T0 + MIN);
      assert.equal(within.outcome, 'seen');
      assert.equal(within.entry.firstSeen, T0 - 8 * MIN);
      assert.equal(within.entry.lastSeen, T0);
      const earlier = await p.sight(plate('X1', T0 - 18 * MIN, 'Gate 9'), T0 + MIN);
      assert.equal(earlier.outcome, 'stale');
      assert.equal(earlier.entry.sightings, 2);
      assert.deepEqual(earlier.entry.cameras, ['Gate 1', 'Gate 0']);
      // it leaves at its last sighting + away, as always
      const swept = await p.sweep(T0 + 52 * MIN);
      assert.deepEqual(summary(swept.events), [['left', 'X1', T0 + 10 * MIN]]);
    });

    it('an exit camera ends a stay at once, only by its latest sighting; a key not present seen there is nothing', async () => {
      const p = backend.make(options);
      assert.equal((await p.sight(plate('E1', T0, 'Exit', { exit: true }), T0)).outcome, 'exit-absent');
      assert.equal((await p.sight(plate('E1', T0), T0)).outcome, 'arrived');
      await p.sight(plate('E1', T0 + 4 * MIN), T0 + 4 * MIN);
      const older = await p.sight(plate('E1', T0 + 2 * MIN, 'Exit', { exit: true }), T0 + 5 * MIN);
      assert.equal(older.outcome, 'seen', 'an exit before the latest sighting: came back since');
      const out = await p.sight(plate('E1', T0 + 6 * MIN, 'Exit', { exit: true }), T0 + 6 * MIN);
      assert.equal(out.outcome, 'left');
      assert.equal(out.present, 0);
      assert.equal(out.entry.lastSeen, T0 + 6 * MIN);
      assert.equal(out.entry.sightings, 4);
      assert.deepEqual(out.entry.cameras, ['Gate 1', 'Exit']);
      assert.deepEqual((await p.sweep(T0 + 60 * MIN)).events, [], 'no departure later');
    });

    it('still here once per stay, after the dwell limit, and not for a stay that ended before', async () => {
      const p = backend.make(options);
      for (let m = 0; m <= 70; m += 5) {
        await p.sight(plate('PARK1', T0 + m * MIN), T0 + m * MIN);
        if (m === 0) await p.sight(plate('BRIEF', T0), T0);
        const swept = await p.sweep(T0 + m * MIN);
        if (m === 10) assert.deepEqual(summary(swept.events), [['left', 'BRIEF', T0 + 10 * MIN]]);
        else if (m === 60) assert.deepEqual(summary(swept.events), [['still-here', 'PARK1', T0 + 60 * MIN]]);
        else assert.deepEqual(swept.events, [], `minute ${m}`);
      }
      const gone = await p.sweep(T0 + 3 * 60 * MIN);
      assert.deepEqual(summary(gone.events), [['left', 'PARK1', T0 + 80 * MIN]]);
      assert.equal(gone.events[0].entry.stillHereSent, true);
      assert.equal(gone.events[0].entry.sightings, 15);
    });

    it('a sweep after a long pause takes each due thing once, in the order they fell due; a still-here after its departure is not sent', async () => {
      const p = backend.make(options);
      await p.sight(plate('A', T0), T0);
      await p.sight(plate('B', T0 + 55 * MIN), T0 + 55 * MIN);
      for (let m = 5; m <= 61; m += 5) await p.sight(plate('A', T0 + m * MIN), T0 + m * MIN);
      const swept = await p.sweep(T0 + 5 * 60 * MIN);
      assert.deepEqual(summary(swept.events), [
        ['still-here', 'A', T0 + 60 * MIN],
        ['left', 'B', T0 + 65 * MIN],
        ['left', 'A', T0 + 70 * MIN],
      ]);
    });

    it('a sighting after its departure fell due, not yet swept, gives the departure first, then a new arrival', async () => {
      const p = backend.make(options);
      await p.sight(plate('LATE1', T0), T0);
      const r = await p.sight(plate('LATE1', T0 + 11 * MIN), T0 + 11 * MIN);
      assert.equal(r.outcome, 'arrived');
      assert.equal(r.entry.firstSeen, T0 + 11 * MIN);
      assert.deepEqual([r.departed.state, r.departed.entry.key, r.departed.due, r.departed.entry.lastSeen], ['left', 'LATE1', T0 + 10 * MIN, T0]);
      assert.deepEqual((await p.sweep(T0 + 15 * MIN)).events, [], 'the departure was taken by the sighting');
    });

    it('holds at most Most keys: the least recently seen is dropped, without a departure', async () => {
      const p = backend.make({ ...options, maxKeys: 3 });
      await p.sight(plate('K1', T0), T0);
      await p.sight(plate('K2', T0 + MIN), T0 + MIN);
      await p.sight(plate('K3', T0 + 2 * MIN), T0 + 2 * MIN);
      await p.sight(plate('K1', T0 + 3 * MIN), T0 + 3 * MIN);
      const r = await p.sight(plate('K4', T0 + 4 * MIN), T0 + 4 * MIN);
      assert.equal(r.outcome, 'arrived');
      assert.equal(r.evicted, 1);
      assert.equal(r.present, 3);
      const keys = (await p.list()).map((e) => e.key).sort();
      assert.deepEqual(keys, ['K1', 'K3', 'K4'], 'K2 was seen least recently');
      const swept = await p.sweep(T0 + 60 * MIN);
      assert.deepEqual(swept.events.map((e) => e.entry.key).sort(), ['K1', 'K3', 'K4'], 'the dropped key never departs');
    });

    it('keeps the cameras of a stay once each, the latest ones at most', async () => {
      const p = backend.make(options);
      for (let i = 0; i < MAX_CAMERAS + 5; i++) await p.sight(plate('CAMS', T0 + i * 1000, `Cam ${i % (MAX_CAMERAS + 3)}`), T0 + i * 1000);
      const [entry] = await p.list();
      assert.equal(entry.cameras.length, MAX_CAMERAS);
      assert.equal(new Set(entry.cameras).size, MAX_CAMERAS);
      // 23 names, 25 sightings: Cam 0 and Cam 1 came back after being dropped, the oldest went
      const expected = [...Array.from({ length: MAX_CAMERAS - 2 }, (_, i) => `Cam ${i + 5}`), 'Cam 0', 'Cam 1'];
      assert.deepEqual(entry.cameras, expected);
      assert.equal(entry.sightings, MAX_CAMERAS + 5);
    });

    it('lists everyone present with their stay', async () => {
      const p = backend.make(options);
      await p.sight(plate('L1', T0), T0);
      await p.sight({ id: 'face:f1', key: 'f1', kind: 'face', label: 'Jane Roe', camera: null, time: T0 + MIN, exit: false }, T0 + MIN);
      const list = (await p.list()).sort((a, b) => a.firstSeen - b.firstSeen);
      assert.deepEqual(
        list.map((e) => [e.id, e.key, e.kind, e.label, e.firstSeen, e.cameras]),
        [
          ['lpr:L1', 'L1', 'lpr', 'L1', T0, ['Gate 1']],
          ['face:f1', 'f1', 'face', 'Jane Roe', T0 + MIN, []],
        ],
      );
    });
  });
}
