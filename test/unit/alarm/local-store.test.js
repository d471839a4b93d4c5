'use strict';
/**
 * The alarm book kept by this process (lib/alarm/local-store.ts): written
 * whole before update() resolves, so what a change's messages say is on
 * disk; loaded at the next open with its link secret; a file of a newer
 * format refused with both versions named, a damaged one reported and the
 * book started empty; writes coalesced in a burst; a failed save reported
 * and recovered from; each alarm's slim event in a file of its own, swept
 * when its alarm is gone.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { LocalAlarms, alarmFileText, parseAlarmFile, ALARM_VERSION, ALARM_FORMAT } = require('../../../dist/lib/alarm/local-store');
const { FormatTooNewError } = require('../../../dist/lib/core/file-format');

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T08:00:00Z');
const BOOK = {
  remindMs: 10 * MIN,
  maxReminders: 3,
  escalateMs: 0,
  quietMs: 60 * MIN,
  maxOpen: 100,
  urgentPierces: false,
  historyMax: 100,
  historyMaxAgeMs: Infinity,
};
const plate = (p, camera = 'Gate 1') => ({ key: `lpr:${p}`, label: p, kind: 'lpr', camera, urgent: false });
const ann = { by: 'ann', via: 'dashboard', note: 'checked' };
/** Waits for the event loop to take in what the file system reported (fs.watch): turns of the loop, not time. */
const turns = async (n = 3) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('alarm book kept in a file', () => {
  let dir;
  let file;
  let secrets;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alarm-unit-'));
    file = path.join(dir, 'sub', 'alarm-n1.json');
    secrets = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function open(extra = {}) {
    const problems = [];
    const opened = await LocalAlarms.open({
      file,
      book: BOOK,
      newSecret: () => `secret-number-${++secrets}-0123456789`,
      saveProblem: (err) => problems.push(err),
      ...extra,
    });
    return { ...opened, problems };
  }
  const kept = () => parseAlarmFile(fs.readFileSync(file, 'utf8'), file);

  it('a new book: empty, a new secret, nothing written until a change; the change is on disk when update resolves', async () => {
    const { store, damaged } = await open();
    assert.equal(damaged, undefined);
    assert.deepEqual([store.size, store.shared, store.secret], [0, false, 'secret-number-1-0123456789']);
    assert.equal(fs.existsSync(file), false);
    const result = await store.update((book) => book.raise(plate('AB1'), T0));
    assert.equal(result.outcome, 'opened', 'update answers what the change answered');
    const { state, secret } = kept();
    assert.deepEqual([state.alarms.map((a) => a.key), secret], [['lpr:AB1'], 'secret-number-1-0123456789']);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['alarm-n1.json'], 'no temporary file left');
    assert.equal(await store.read((book) => book.find(result.alarm.id).label), 'AB1');
  });

  it('a restart finds the whole book as it was, and the same secret', async () => {
    const first = (await open()).store;
    let id;
    await first.update((book) => {
      id = book.raise(plate('AB1'), T0).alarm.id;
      book.raise(plate('CD2', null), T0 + 1);
      book.acknowledge(id, ann, T0 + 2);
      book.useLink(id, 'nonce-0001');
      book.snooze('camera', 'Gate 2', 'Gate 2', 30 * MIN, ann, T0 + 3);
      book.raise(plate('XY9', 'gate 2'), T0 + 4);
      book.due(T0 + 10 * MIN);
      book.disarm(ann, T0 + 11 * MIN);
      book.raise(plate('ZZ1'), T0 + 12 * MIN);
    });
    const before = await first.read((book) => book.snapshot());
    await first.close();
    const again = await open();
    assert.equal(again.damaged, undefined);
    assert.deepEqual(await again.store.read((book) => book.snapshot()), before);
    assert.equal(again.store.secret, 'secret-number-1-0123456789');
    assert.equal(secrets, 1, 'no new secret made for a kept book');
    assert.deepEqual(
      await again.store.read((book) => [book.armed, book.heldDisarmed, book.linkUsed(id, 'nonce-0001'), book.snoozes(T0 + 12 * MIN)[0].held]),
      [false, 1, true, 1],
    );
  });

  it('a secret the user chose signs the links; the kept one stays in the file for when it is removed', async () => {
    const { store } = await open({ secret: 'users-own-secret-0123' });
    assert.equal(store.secret, 'users-own-secret-0123');
    await store.update((book) => book.raise(plate('AB1'), T0));
    assert.equal(kept().secret, 'secret-number-1-0123456789');
    assert.equal((await open()).store.secret, 'secret-number-1-0123456789');
  });

  it('the file text: versioned, round trip; what is not a book is refused with a reason', () => {
    const state = { alarms: [], snoozes: [], armed: true, heldDisarmed: 0, history: [] };
    const text = alarmFileText(state, 'secret-0123456789abcdef');
    assert.equal(JSON.parse(text).v, ALARM_VERSION);
    assert.deepEqual(parseAlarmFile(text, file), { state, secret: 'secret-0123456789abcdef' });
    const bad = (change) => JSON.stringify({ ...JSON.parse(text), ...change });
    assert.throws(() => parseAlarmFile('{"v":1,', file), SyntaxError);
    for (const change of [
      { v: undefined },
      { v: 0 },
      { v: '1' },
      { secret: 'short' },
      { armed: 'yes' },
      { heldDisarmed: -1 },
      { alarms: [{ id: 'BAD' }] },
    ]) {
      assert.throws(() => parseAlarmFile(bad(change), file), Error, JSON.stringify(change));
    }
    assert.throws(() => parseAlarmFile('null', file));
  });

  it('a file of a newer version is refused with both versions named; the book starts empty and the file is left as it is', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const text = JSON.stringify({ v: ALARM_VERSION + 1, secret: 'x'.repeat(20), future: true });
    fs.writeFileSync(file, text);
    assert.throws(() => parseAlarmFile(text, file), FormatTooNewError);
    const { store, damaged } = await open();
    assert.ok(damaged instanceof FormatTooNewError, String(damaged));
    assert.ok(damaged.message.startsWith(`${file} is in ${ALARM_FORMAT} format version ${ALARM_VERSION + 1}`), damaged.message);
    assert.ok(damaged.message.includes(`(version ${ALARM_VERSION})`), damaged.message);
    assert.equal(store.size, 0);
    assert.equal(store.secret, 'secret-number-1-0123456789');
    assert.equal(fs.readFileSync(file, 'utf8'), text);
  });

  it('a damaged file is reported; the book starts empty with a new secret; the file is left as it is', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    for (const text of ['{"v":1,', '', JSON.stringify({ v: 1, secret: 'x'.repeat(20), alarms: 'none' })]) {
      fs.writeFileSync(file, text);
      const { store, damaged } = await open();
      assert.ok(damaged instanceof Error, JSON.stringify(text));
      assert.equal(damaged instanceof FormatTooNewError, false);
      assert.equal(store.size, 0);
      assert.match(store.secret, /^secret-number-\d+-/);
      assert.equal(fs.readFileSync(file, 'utf8'), text);
    }
  });

  it('writes in a burst go together: a burst costs one write, or two when a write is already under way', async () => {
    const { store } = await open();
    await store.update((book) => book.raise(plate('A0'), T0));
    const renames = [];
    const watcher = fs.watch(path.dirname(file), (type, name) => {
      if (name === path.basename(file) && type === 'rename') renames.push(type);
    });
    try {
      await turns();
      const burst = [];
      for (let i = 1; i <= 10; i++) burst.push(store.update((book) => book.raise(plate(`B${i}`), T0 + i)));
      await Promise.all(burst);
      await turns();
      assert.equal(renames.length, 1, `ten changes at once, one write (${renames})`);
      assert.equal(kept().state.alarms.length, 11);

      renames.length = 0;
      const first = store.update((book) => book.raise(plate('C0'), T0));
      await turns(1); // the write of C0 is under way: it takes more turns of the loop than one
      const more = [];
      for (let i = 1; i <= 10; i++) more.push(store.update((book) => book.raise(plate(`C${i}`), T0 + i)));
      await first;
      await Promise.all(more);
      await turns();
      assert.equal(renames.length, 2, `one write under way, then one for the ten made meanwhile (${renames})`);
      assert.equal(kept().state.alarms.length, 22);

      renames.length = 0;
      for (let i = 0; i < 3; i++) await store.update((book) => book.raise(plate(`D${i}`), T0));
      await turns();
      assert.equal(renames.length, 3, 'changes one after the other: one write each');
    } finally {
      watcher.close();
    }
  });

  it('each update resolves with its own change on disk, whichever write carried it', async () => {
    const { store } = await open();
    const seen = await Promise.all(
      ['A', 'B', 'C'].map((p) => store.update((book) => book.raise(plate(p), T0)).then(() => kept().state.alarms.map((a) => a.key))),
    );
    for (const [i, keys] of seen.entries()) assert.ok(keys.includes(`lpr:${'ABC'[i]}`), `${i}: ${keys}`);
  });

  it('a failed save is reported, the change holds in memory, and the next save that works says so and writes it all', async () => {
    // a regular file where the folder should be: no write can go there, not even as root
    fs.writeFileSync(path.join(dir, 'sub'), 'not a folder');
    const { store, problems } = await open();
    const result = await store.update((book) => book.raise(plate('AB1'), T0));
    assert.equal(result.outcome, 'opened', 'update resolves, with the change');
    assert.equal(problems.length, 1);
    assert.ok(problems[0] instanceof Error && /ENOTDIR|EEXIST/.test(problems[0].code), String(problems[0]));
    await store.update((book) => book.raise(plate('CD2'), T0 + 1));
    assert.equal(problems.length, 2, 'each failure is reported (the node warns once)');
    assert.equal(store.size, 2);
    fs.rmSync(path.join(dir, 'sub'));
    await store.update((book) => book.acknowledge(result.alarm.id, ann, T0 + 2));
    assert.deepEqual(problems.slice(2), [undefined], 'saved again');
    assert.deepEqual(
      kept().state.alarms.map((a) => [a.key, a.state]),
      [
        ['lpr:AB1', 'acknowledged'],
        ['lpr:CD2', 'open'],
      ],
    );
    await store.update((book) => book.raise(plate('EF3'), T0 + 3));
    assert.equal(problems.length, 3, 'nothing more to say while saving works');
  });

  it('close writes the book', async () => {
    fs.writeFileSync(path.join(dir, 'sub'), 'not a folder');
    const { store } = await open();
    await store.update((book) => book.raise(plate('AB1'), T0));
    fs.rmSync(path.join(dir, 'sub'));
    await store.close();
    assert.deepEqual(
      kept().state.alarms.map((a) => a.key),
      ['lpr:AB1'],
    );
  });

  describe('slim events beside the book', () => {
    const eventsDir = () => path.join(dir, 'sub', 'alarm-n1.events');

    it('put, get, drop: one file per alarm', async () => {
      const { store } = await open();
      const event = { publishType: 'WebHookLprPayload', payload: { lprPlateInfo: { plate: 'AB1' } } };
      await store.putEvent('k7m2qx9d', event);
      assert.deepEqual(fs.readdirSync(eventsDir()), ['k7m2qx9d.json']);
      assert.deepEqual(await store.getEvent('k7m2qx9d'), event);
      assert.equal(await store.getEvent('zzzz'), undefined);
      await store.dropEvents(['k7m2qx9d', 'zzzz']);
      assert.deepEqual(fs.readdirSync(eventsDir()), []);
      assert.equal(await store.getEvent('k7m2qx9d'), undefined);
    });

    it('get refuses a name that is not an alarm id, and a file that is not JSON', async () => {
      const { store } = await open();
      fs.mkdirSync(eventsDir(), { recursive: true });
      fs.writeFileSync(path.join(dir, 'sub', 'secret.json'), '{"x":1}');
      for (const id of ['../secret', '../../sub/secret', 'K7M2', '', 'a.b']) assert.equal(await store.getEvent(id), undefined, id);
      fs.writeFileSync(path.join(eventsDir(), 'k7m2qx9d.json'), '{"half":');
      assert.equal(await store.getEvent('k7m2qx9d'), undefined);
    });

    it('a sweep removes the files of alarms no longer in the book, a half-written one too, and keeps the others', async () => {
      const { store } = await open({ book: { ...BOOK, newId: () => 'open1' } });
      assert.equal(await store.sweepEvents(), 0, 'no folder yet: nothing to sweep');
      await store.update((book) => book.raise(plate('AB1'), T0));
      await store.putEvent('open1', { a: 1 });
      await store.putEvent('gone1', { a: 2 });
      fs.writeFileSync(path.join(eventsDir(), 'gone2.json.tmp'), '{"a":');
      fs.writeFileSync(path.join(eventsDir(), 'open1.json.tmp'), '{"a":');
      fs.writeFileSync(path.join(eventsDir(), 'notes.txt'), 'not ours');
      assert.equal(await store.sweepEvents(), 2);
      assert.deepEqual(fs.readdirSync(eventsDir()).sort(), ['notes.txt', 'open1.json', 'open1.json.tmp']);
      assert.deepEqual(await store.getEvent('open1'), { a: 1 });
      assert.equal(await store.sweepEvents(), 0);
    });
  });
});
