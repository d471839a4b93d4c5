'use strict';
/**
 * Presence kept in this process: saved whole and atomically a moment after
 * a change (on the given clock) and on stop, loaded at a restart, carried to
 * the node's next instance at a deploy, forgotten when the node is removed.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { PresenceTable } = require('../../../dist/lib/presence/table');
const { LocalPresence, takeOverPresence, dropPresence, SAVE_DELAY_MS } = require('../../../dist/lib/presence/local-presence');
const { readPresenceFile, writePresenceFile, PRESENCE_VERSION } = require('../../../dist/lib/presence/state-file');
const { FormatTooNewError } = require('../../../dist/lib/core/file-format');
const { FakeClock } = require('../../support/fake-clock');

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T08:00:00Z');
const OPTIONS = { awayMs: 10 * MIN, stillHereMs: 60 * MIN, maxKeys: 100 };
const plate = (key, time, extra = {}) => ({ id: `lpr:${key}`, key, kind: 'lpr', label: key, camera: 'Gate 1', time, exit: false, ...extra });

describe('presence kept in this process', () => {
  let dir;
  let file;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'presence-unit-'));
    file = path.join(dir, 'sub', 'presence-n1.json');
  });
  afterEach(() => {
    dropPresence('n1');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function open(clock, extra = {}) {
    const taken = takeOverPresence('n1', 'keys-v1', extra.options ?? OPTIONS);
    const problems = [];
    const store = new LocalPresence(taken.table, { keys: 'keys-v1', file, clock, saveProblem: (err) => problems.push(err), ...extra });
    return { store, carried: taken.carried, dropped: taken.dropped, problems };
  }

  it('saves a moment after a change, on its clock, and loads at a restart', async () => {
    const clock = new FakeClock(T0);
    const { store } = open(clock);
    await store.sight(plate('A1', T0), T0);
    await store.sight(plate('B2', T0), T0);
    assert.equal(fs.existsSync(file), false, 'not at once: changes close together share one save');
    await clock.advance(SAVE_DELAY_MS);
    await store.save(); // waits for the write the timer began
    const saved = await readPresenceFile(file);
    assert.deepEqual(saved.entries.map((e) => e.key).sort(), ['A1', 'B2']);
    assert.equal(saved.keys, 'keys-v1');
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['presence-n1.json'], 'no temporary file left');

    // a restart: nothing kept in the process
    dropPresence('n1');
    const again = open(clock);
    assert.equal(again.carried, false);
    assert.deepEqual(await again.store.load(), { loaded: 2, damaged: 0, otherKeys: false });
    const swept = await again.store.sweep(T0 + 10 * MIN);
    assert.deepEqual(swept.events.map((e) => e.entry.key).sort(), ['A1', 'B2'], 'their departures fall due as before');
  });

  it('a deploy carries the table to the next instance, with new times; a removed node forgets it in memory, its file stays', async () => {
    const clock = new FakeClock(T0);
    const first = open(clock);
    await first.store.sight(plate('A1', T0), T0);
    await first.store.close('n1', false);
    assert.ok(fs.existsSync(file), 'saved on stop');
    const next = open(clock, { options: { ...OPTIONS, awayMs: 30 * MIN } });
    assert.equal(next.carried, true);
    assert.equal(next.store.size, 1);
    assert.deepEqual((await next.store.sweep(T0 + 20 * MIN)).events, [], 'the new away time applies');
    await next.store.sight(plate('B2', T0 + MIN), T0 + MIN);
    await next.store.close('n1', true);
    const again = open(clock);
    assert.equal(again.carried, false, 'nothing kept in memory');
    assert.deepEqual(
      await again.store.load(),
      { loaded: 2, damaged: 0, otherKeys: false },
      'saved when it stopped: enabled again, it takes the table back',
    );
  });

  it('a smaller bound at a deploy keeps the most recently seen', async () => {
    const clock = new FakeClock(T0);
    const first = open(clock);
    for (let i = 0; i < 5; i++) await first.store.sight(plate(`K${i}`, T0 + i * 1000), T0 + i * 1000);
    await first.store.close('n1', false);
    const next = open(clock, { options: { ...OPTIONS, maxKeys: 2 } });
    assert.equal(next.dropped, 3);
    assert.deepEqual((await next.store.list()).map((e) => e.key).sort(), ['K3', 'K4']);
  });

  it('a file of another key definition, or not one at all, is not loaded', async () => {
    const clock = new FakeClock(T0);
    await writePresenceFile(
      file,
      'keys-v0',
      [{ ...plate('A1', T0), firstSeen: T0, lastSeen: T0, cameras: [], sightings: 1, stillHereSent: false }],
      T0,
    );
    assert.deepEqual(await open(clock).store.load(), { loaded: 0, damaged: 0, otherKeys: true });
    fs.writeFileSync(file, '{"v":1,');
    await assert.rejects(open(clock).store.load(), SyntaxError);
    fs.rmSync(file);
    assert.equal(await open(clock).store.load(), undefined, 'no file: nothing to load');
  });

  it('reads the file the package wrote before issue 42 (test/fixtures/formats, made by a5f34bc), version 1', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.copyFileSync(path.join(__dirname, '..', '..', 'fixtures', 'formats', 'presence-unversioned.json'), file);
    const saved = await readPresenceFile(file);
    assert.equal(PRESENCE_VERSION, 1);
    assert.deepEqual([saved.keys, saved.damaged, saved.entries.map((e) => [e.key, e.label, e.sightings])], ['person', 0, [['person:p1', 'Ann', 2]]]);
  });

  it('a file of a newer version is refused with both versions named, and left as it is', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const text = JSON.stringify({ v: PRESENCE_VERSION + 1, keys: 'keys-v1', savedAt: T0, stays: [] });
    fs.writeFileSync(file, text);
    await assert.rejects(open(new FakeClock(T0)).store.load(), (err) => {
      assert.ok(err instanceof FormatTooNewError, err.stack);
      assert.ok(err.message.startsWith(`${file} is in detection-bridge presence format version ${PRESENCE_VERSION + 1}`), err.message);
      assert.ok(err.message.includes(`(version ${PRESENCE_VERSION})`), err.message);
      return true;
    });
    assert.equal(fs.readFileSync(file, 'utf8'), text);
  });

  it('leaves out the entries that do not read as a stay, and says how many', async () => {
    const clock = new FakeClock(T0);
    const good = { id: 'lpr:A1', key: 'A1', kind: 'lpr', label: 'A1', firstSeen: T0, lastSeen: T0, cameras: [], sightings: 1, stillHereSent: false };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ v: 1, keys: 'keys-v1', savedAt: T0, entries: [good, { ...good, id: 'x', kind: 'car' }, 'junk'] }));
    assert.deepEqual(await open(clock).store.load(), { loaded: 1, damaged: 2, otherKeys: false });
  });

  it('a save that fails keeps the table in memory, says so once, and says when saving works again', async () => {
    const clock = new FakeClock(T0);
    // a file where the folder should be: the write fails
    fs.writeFileSync(path.join(dir, 'sub'), 'not a folder');
    const { store, problems } = open(clock);
    await store.sight(plate('A1', T0), T0);
    await store.save();
    await store.save();
    assert.equal(problems.length, 2, 'each failure is reported; the node warns once');
    assert.ok(problems.every((p) => p instanceof Error));
    fs.rmSync(path.join(dir, 'sub'));
    await store.save();
    assert.equal(problems.length, 3);
    assert.equal(problems[2], undefined, 'saved again');
    assert.equal(store.size, 1);
    assert.deepEqual(
      (await readPresenceFile(file)).entries.map((e) => e.key),
      ['A1'],
    );
  });

  it('writes to one file wait for each other: the last state asked for is the one on disk', async () => {
    const entry = (key) => ({
      id: `lpr:${key}`,
      key,
      kind: 'lpr',
      label: key,
      firstSeen: T0,
      lastSeen: T0,
      cameras: [],
      sightings: 1,
      stillHereSent: false,
    });
    await Promise.all([
      writePresenceFile(file, 'k', [entry('A')], 1),
      writePresenceFile(file, 'k', [entry('B')], 2),
      writePresenceFile(file, 'k', [entry('C')], 3),
    ]);
    assert.deepEqual(
      (await readPresenceFile(file)).entries.map((e) => e.key),
      ['C'],
    );
  });

  it('the table alone: a restore keeps the most recently seen up to the bound', () => {
    const table = new PresenceTable({ ...OPTIONS, maxKeys: 2 });
    const entry = (key, lastSeen) => ({
      id: key,
      key,
      kind: 'lpr',
      label: key,
      firstSeen: T0,
      lastSeen,
      cameras: [],
      sightings: 1,
      stillHereSent: false,
    });
    assert.equal(table.restore([entry('old', T0), entry('new', T0 + 2), entry('mid', T0 + 1)]), 2);
    assert.deepEqual(
      table
        .list()
        .map((e) => e.key)
        .sort(),
      ['mid', 'new'],
    );
  });
});
