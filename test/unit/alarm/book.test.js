'use strict';
/**
 * The alarm book's rules for what people and alerts do (lib/alarm/book.ts):
 * an alert opens an alarm, joins the open one of its key, or is held (by a
 * snooze of its key, its subject, its camera or everything, or while the
 * book is disarmed); a full book closes its oldest acknowledged alarm or
 * lets the alert go out untracked; acknowledge, close and snooze, with the
 * refusals that say why; mail links used once; the history, bounded.
 * What falls due with time is in book-due.test.js. Time is the test's:
 * every call takes `now`.
 */
const assert = require('node:assert/strict');
const { AlarmBook, emptyBook, newAlarmId } = require('../../../dist/lib/alarm/book');
const { MAX_TEXT, MAX_USED_LINKS } = require('../../../dist/lib/alarm/types');

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T08:00:00Z');
const OPTIONS = {
  remindMs: 10 * MIN,
  maxReminders: 3,
  escalateMs: 30 * MIN,
  quietMs: 60 * MIN,
  maxOpen: 100,
  urgentPierces: false,
  historyMax: 1000,
  historyMaxAgeMs: 7 * 24 * 60 * MIN,
};
/** Ids a1, a2, … in order, so tests name alarms. */
const counting = () => {
  let n = 0;
  return () => `a${++n}`;
};
const bookOf = (options = {}, state = emptyBook()) => new AlarmBook(state, { ...OPTIONS, newId: counting(), ...options });
/** A plate alert at `camera`, keyed by the plate. */
const plate = (p, camera = 'Gate 1', extra = {}) => ({ key: `lpr:${p}`, label: p, kind: 'lpr', camera, urgent: false, ...extra });
const ann = { by: 'ann', via: 'dashboard' };
const bob = { by: 'bob', via: 'telegram', note: 'seen it' };
const actions = (book) => book.history().map((h) => h.action);

describe('alarm book: alerts, actions, snoozes', () => {
  it('an alert opens an alarm; more reads of its key join it (one alarm per visit, not per read)', () => {
    const book = bookOf();
    const first = book.raise(plate('AB1'), T0);
    assert.deepEqual(first, {
      outcome: 'opened',
      alarm: {
        id: 'a1',
        key: 'lpr:AB1',
        label: 'AB1',
        kind: 'lpr',
        camera: 'Gate 1',
        state: 'open',
        urgent: false,
        openedAt: T0,
        lastSeen: T0,
        reads: 1,
        reminders: 0,
        escalated: false,
        usedLinks: [],
      },
    });
    const again = book.raise(plate('AB1', 'Gate 2'), T0 + MIN);
    assert.equal(again.outcome, 'joined');
    assert.deepEqual([again.alarm.id, again.alarm.reads, again.alarm.lastSeen, again.alarm.camera], ['a1', 2, T0 + MIN, 'Gate 1']);
    const late = book.raise(plate('AB1'), T0 + 30_000);
    assert.deepEqual([late.alarm.reads, late.alarm.lastSeen], [3, T0 + MIN], 'a read that arrives late does not move lastSeen back');
    assert.equal(book.raise(plate('CD2'), T0 + MIN).alarm.id, 'a2', 'another key: another alarm');
    assert.equal(book.size, 2);
    assert.deepEqual(actions(book), ['opened', 'opened'], 'joins are not history');
    assert.deepEqual(book.history()[1], { at: T0, action: 'opened', alarm: 'a1', label: 'AB1', by: '' });
  });

  it('an urgent read makes its alarm urgent, and it stays so', () => {
    const book = bookOf();
    book.raise(plate('AB1'), T0);
    assert.equal(book.raise(plate('AB1', 'Gate 1', { urgent: true }), T0 + 1).alarm.urgent, true);
    assert.equal(book.raise(plate('AB1'), T0 + 2).alarm.urgent, true);
  });

  it('answers copies: changing them does not change the book', () => {
    const book = bookOf();
    const { alarm } = book.raise(plate('AB1'), T0);
    alarm.reads = 99;
    alarm.usedLinks.push('x');
    book.find('a1').state = 'closed';
    book.alarms()[0].label = 'changed';
    book.snapshot().alarms.pop();
    book.history()[0].by = 'mallory';
    assert.deepEqual([book.find('a1').reads, book.find('a1').usedLinks, book.find('a1').state, book.find('a1').label], [1, [], 'open', 'AB1']);
    assert.equal(book.size, 1);
    assert.equal(book.history()[0].by, '');
  });

  it(`keeps labels, cameras, names and notes to ${MAX_TEXT} characters`, () => {
    const book = bookOf();
    const long = 'x'.repeat(MAX_TEXT + 50);
    const { alarm } = book.raise({ ...plate('AB1'), label: long, camera: long }, T0);
    assert.deepEqual([alarm.label.length, alarm.camera.length], [MAX_TEXT, MAX_TEXT]);
    const acked = book.acknowledge('a1', { by: long, via: 'message', note: long }, T0);
    assert.deepEqual([acked.alarm.ackBy.length, acked.alarm.note.length, book.history()[0].note.length], [MAX_TEXT, MAX_TEXT, MAX_TEXT]);
  });

  it('makes short ids of letters and digits without look-alikes, and never gives an open alarm’s id again', () => {
    const seen = new Set();
    for (let i = 0; i < 200; i++) {
      const id = newAlarmId();
      assert.match(id, /^[a-hj-km-np-z2-9]{8}$/);
      seen.add(id);
    }
    assert.equal(seen.size, 200);
    const given = ['x1', 'x1', 'x1', 'x2'];
    const book = new AlarmBook(emptyBook(), { ...OPTIONS, newId: () => given.shift() });
    book.raise(plate('AB1'), T0);
    assert.equal(book.raise(plate('CD2'), T0).alarm.id, 'x2');
  });

  it('disarmed, every alert is held and counted (urgent ones too), the count told when armed again', () => {
    const book = bookOf({ urgentPierces: true });
    book.raise(plate('AB1'), T0);
    assert.equal(book.disarm(ann, T0), true);
    assert.equal(book.disarm(ann, T0), false, 'already disarmed');
    assert.equal(book.armed, false);
    assert.deepEqual(book.raise(plate('CD2'), T0 + 1), { outcome: 'held', why: 'disarmed' });
    assert.deepEqual(book.raise(plate('AB1'), T0 + 2), { outcome: 'held', why: 'disarmed' }, 'held, not joined');
    assert.equal(book.raise(plate('EF3', 'Gate 1', { urgent: true }), T0 + 3).outcome, 'held');
    assert.deepEqual([book.heldDisarmed, book.size, book.find('a1').reads], [3, 1, 1]);
    assert.equal(book.arm(bob, T0 + 4), 3);
    assert.equal(book.arm(bob, T0 + 5), undefined, 'already armed');
    assert.equal(book.heldDisarmed, 0);
    assert.deepEqual(book.history()[0], { at: T0 + 4, action: 'armed', label: '', by: 'bob', via: 'telegram', held: 3 });
    assert.deepEqual(book.history()[1], { at: T0, action: 'disarmed', label: '', by: 'ann', via: 'dashboard' });
    book.disarm(ann, T0 + 6);
    assert.equal(book.heldDisarmed, 0, 'a new disarm counts afresh');
    assert.equal(book.raise(plate('CD2'), T0 + 7).outcome, 'held');
    assert.equal(book.arm(ann, T0 + 8), 1);
    assert.equal(book.raise(plate('CD2'), T0 + 9).outcome, 'opened');
  });

  describe('snoozes', () => {
    it('of a key: its alerts are held and counted until it ends (not at its end); others go on', () => {
      const book = bookOf();
      const snooze = book.snooze('key', 'lpr:AB1', 'AB1', 10 * MIN, ann, T0);
      assert.deepEqual(snooze, { scope: 'key', value: 'lpr:AB1', label: 'AB1', until: T0 + 10 * MIN, by: 'ann', at: T0, held: 0 });
      const held = book.raise(plate('AB1'), T0 + MIN);
      assert.deepEqual(held, { outcome: 'held', why: 'snoozed', snooze: { ...snooze, held: 1 } });
      assert.equal(book.raise(plate('AB1'), T0 + 10 * MIN - 1).snooze.held, 2);
      assert.equal(book.raise(plate('CD2'), T0 + MIN).outcome, 'opened');
      assert.equal(book.raise(plate('AB1'), T0 + 10 * MIN).outcome, 'opened', 'a snooze ends at its until');
      assert.deepEqual(
        book.snoozes(T0 + 10 * MIN - 1).map((s) => s.held),
        [2],
      );
      assert.deepEqual(book.snoozes(T0 + 10 * MIN), []);
    });

    it('of a subject: holds the alerts keyed per camera that carry it, not the others', () => {
      const book = bookOf();
      book.snooze('key', 'lpr:AB1', 'AB1', 10 * MIN, ann, T0);
      const atCamera = (p, cam) => ({
        key: `lpr:${p}@camera:${cam}`,
        subject: `lpr:${p}`,
        label: `${p} · ${cam}`,
        kind: 'lpr',
        camera: cam,
        urgent: false,
      });
      assert.equal(book.raise(atCamera('AB1', 'gate 1'), T0 + 1).outcome, 'held');
      assert.equal(book.raise(atCamera('AB1', 'gate 2'), T0 + 1).outcome, 'held');
      assert.equal(book.raise(atCamera('AB12', 'gate 1'), T0 + 1).outcome, 'opened');
      assert.equal(book.raise({ key: 'camera:gate 1', label: 'Gate 1', kind: 'lpr', camera: 'Gate 1', urgent: false }, T0 + 1).outcome, 'opened');
    });

    it('of a camera: by its name trimmed, in any case; an alert without a camera is not held', () => {
      const book = bookOf();
      const snooze = book.snooze('camera', '  GATE 1 ', ' Gate 1', 10 * MIN, ann, T0);
      assert.deepEqual([snooze.value, snooze.label], ['gate 1', ' Gate 1']);
      for (const camera of ['Gate 1', 'gate 1', ' GATE 1  ']) assert.equal(book.raise(plate('AB1', camera), T0 + 1).outcome, 'held', camera);
      assert.equal(book.raise(plate('AB1', 'Gate 12'), T0 + 1).outcome, 'opened');
      assert.equal(book.raise(plate('CD2', null), T0 + 1).outcome, 'opened');
      assert.equal(book.snoozes(T0 + 1)[0].held, 3);
    });

    it('of everything: holds every alert, without a camera too', () => {
      const book = bookOf();
      book.snooze('all', 'ignored', '', 10 * MIN, ann, T0);
      assert.equal(book.snoozes(T0)[0].value, '');
      assert.equal(book.raise(plate('AB1'), T0 + 1).outcome, 'held');
      assert.equal(book.raise(plate('CD2', null), T0 + 1).outcome, 'held');
      assert.equal(book.size, 0);
    });

    it('a snooze of the same thing again replaces it and keeps its count', () => {
      const book = bookOf();
      book.snooze('camera', 'Gate 1', 'Gate 1', 10 * MIN, ann, T0);
      book.raise(plate('AB1'), T0 + 1);
      const longer = book.snooze('camera', 'gate 1', 'gate 1', 30 * MIN, bob, T0 + 2);
      assert.deepEqual([longer.until, longer.by, longer.held, longer.label], [T0 + 2 + 30 * MIN, 'bob', 1, 'Gate 1']);
      assert.equal(book.snoozes(T0 + 2).length, 1);
      assert.deepEqual(book.history()[0], { at: T0 + 2, action: 'snoozed', label: 'Gate 1', by: 'bob', via: 'telegram', note: 'seen it' });
    });

    it('an urgent alert pierces a snooze only when the node says so', () => {
      const urgent = plate('AB1', 'Gate 1', { urgent: true });
      const strict = bookOf();
      strict.snooze('all', '', '', 10 * MIN, ann, T0);
      assert.equal(strict.raise(urgent, T0 + 1).outcome, 'held');
      const pierced = bookOf({ urgentPierces: true });
      pierced.snooze('key', 'lpr:AB1', 'AB1', 10 * MIN, ann, T0);
      const opened = pierced.raise(urgent, T0 + 1);
      assert.deepEqual([opened.outcome, opened.alarm.urgent], ['opened', true]);
      assert.equal(pierced.raise(plate('AB1'), T0 + 2).outcome, 'held', 'an ordinary read of it is still held');
      assert.equal(pierced.snoozes(T0 + 2)[0].held, 1, 'the pierced alert is not counted as held');
    });

    it('resume ends one in force, with its count; nothing to resume otherwise', () => {
      const book = bookOf();
      book.snooze('camera', 'Gate 1', 'Gate 1', 10 * MIN, ann, T0);
      book.raise(plate('AB1'), T0 + 1);
      book.raise(plate('CD2', 'GATE 1'), T0 + 1);
      const ended = book.resume('camera', ' gate 1 ', bob, T0 + 2);
      assert.deepEqual([ended.scope, ended.value, ended.held], ['camera', 'gate 1', 2]);
      assert.deepEqual(book.history()[0], { at: T0 + 2, action: 'resumed', label: 'Gate 1', by: 'bob', via: 'telegram', held: 2 });
      assert.equal(book.resume('camera', 'Gate 1', bob, T0 + 3), undefined);
      assert.equal(book.raise(plate('AB1'), T0 + 3).outcome, 'opened');
      book.snooze('key', 'lpr:X', 'X', MIN, ann, T0);
      assert.equal(book.resume('key', 'lpr:X', ann, T0 + MIN), undefined, 'an ended snooze is not resumed');
      book.snooze('all', '', '', MIN, ann, T0 + MIN);
      assert.equal(book.resume('key', '', ann, T0 + MIN), undefined, 'another scope');
      assert.equal(book.resume('all', '', ann, T0 + MIN).scope, 'all');
    });

    it('resume finds a camera snooze by the name it was made with, however long', () => {
      const book = bookOf();
      const camera = `Camera ${'y'.repeat(MAX_TEXT)}`;
      book.snooze('camera', camera, camera, 10 * MIN, ann, T0);
      assert.equal(book.raise(plate('AB1', camera), T0 + 1).outcome, 'held');
      assert.equal(book.resume('camera', camera, ann, T0 + 2)?.held, 1);
    });
  });

  describe('a full book', () => {
    it('closes its oldest acknowledged alarm to open a new one', () => {
      const book = bookOf({ maxOpen: 3 });
      for (const p of ['A', 'B', 'C']) book.raise(plate(p), T0);
      book.acknowledge('a3', ann, T0 + 1);
      book.acknowledge('a2', ann, T0 + 2);
      const result = book.raise(plate('D'), T0 + 3);
      assert.deepEqual([result.outcome, result.alarm.id, result.closed.id, result.closed.state], ['opened', 'a4', 'a2', 'acknowledged']);
      assert.deepEqual(
        book.alarms().map((a) => a.id),
        ['a1', 'a3', 'a4'],
      );
      assert.deepEqual(book.history()[1], { at: T0 + 3, action: 'closed', alarm: 'a2', label: 'B', by: '' }, 'closed by the node');
      assert.deepEqual(book.acknowledge('a2', ann, T0 + 4), { ok: false, reason: 'closed', by: '', at: T0 + 3 });
    });

    it('lets an alert out untracked when no alarm is acknowledged, changing nothing; a read of an open key still joins', () => {
      const book = bookOf({ maxOpen: 2 });
      book.raise(plate('A'), T0);
      book.raise(plate('B'), T0);
      const before = book.snapshot();
      assert.deepEqual(book.raise(plate('C'), T0 + 1), { outcome: 'untracked' });
      assert.deepEqual(book.snapshot(), before);
      assert.equal(book.raise(plate('A'), T0 + 2).outcome, 'joined');
    });
  });

  describe('acknowledge, close, snooze an alarm', () => {
    it('acknowledge: once, by whom and when, with the note; again says who did it', () => {
      const book = bookOf();
      book.raise(plate('AB1'), T0);
      const result = book.acknowledge('a1', bob, T0 + MIN);
      assert.deepEqual(
        [result.ok, result.state, result.alarm.ackBy, result.alarm.ackAt, result.alarm.note],
        [true, 'acknowledged', 'bob', T0 + MIN, 'seen it'],
      );
      assert.deepEqual(book.history()[0], {
        at: T0 + MIN,
        action: 'acknowledged',
        alarm: 'a1',
        label: 'AB1',
        by: 'bob',
        via: 'telegram',
        note: 'seen it',
      });
      assert.deepEqual(book.acknowledge('a1', ann, T0 + 2 * MIN), { ok: false, reason: 'already', by: 'bob', at: T0 + MIN });
      assert.equal(book.find('a1').ackBy, 'bob');
      assert.deepEqual(book.acknowledge('zz', ann, T0), { ok: false, reason: 'unknown' });
      book.raise(plate('CD2'), T0);
      book.acknowledge('a2', { by: 'ann', via: 'message', note: '' }, T0);
      assert.equal('note' in book.find('a2'), false, 'an empty note is none');
      assert.equal('note' in book.history()[0], false);
    });

    it('close: open or acknowledged, it leaves the book; then every action says who closed it, and when', () => {
      const book = bookOf();
      book.raise(plate('AB1'), T0);
      book.raise(plate('CD2'), T0);
      book.acknowledge('a2', ann, T0 + 1);
      const closed = book.close('a1', bob, T0 + 2);
      assert.deepEqual([closed.ok, closed.state, closed.alarm.id, closed.alarm.state], [true, 'closed', 'a1', 'open']);
      assert.equal(book.close('a2', ann, T0 + 3).ok, true);
      assert.equal(book.size, 0);
      assert.deepEqual(book.history()[1], { at: T0 + 2, action: 'closed', alarm: 'a1', label: 'AB1', by: 'bob', via: 'telegram', note: 'seen it' });
      const refusal = { ok: false, reason: 'closed', by: 'bob', at: T0 + 2 };
      assert.deepEqual(book.acknowledge('a1', ann, T0 + 4), refusal);
      assert.deepEqual(book.close('a1', ann, T0 + 4), refusal);
      assert.deepEqual(book.snoozeAlarm('a1', 'key', MIN, ann, T0 + 4), refusal);
      assert.deepEqual(book.closedEntry('a2').by, 'ann');
      assert.equal(book.closedEntry('zz'), undefined);
      assert.equal(book.raise(plate('AB1'), T0 + 5).alarm.id, 'a3', 'its key opens a new alarm');
    });

    it('snoozeAlarm acknowledges it and snoozes its key; its next reads are held, not joined', () => {
      const book = bookOf();
      book.raise(plate('AB1'), T0);
      const result = book.snoozeAlarm('a1', 'key', 15 * MIN, ann, T0 + 1);
      assert.deepEqual([result.ok, result.state, result.alarm.ackBy], [true, 'acknowledged', 'ann']);
      assert.deepEqual(result.snooze, { scope: 'key', value: 'lpr:AB1', label: 'AB1', until: T0 + 1 + 15 * MIN, by: 'ann', at: T0 + 1, held: 0 });
      assert.deepEqual(actions(book), ['snoozed', 'acknowledged', 'opened']);
      assert.equal(book.raise(plate('AB1'), T0 + 2).outcome, 'held');
      assert.equal(book.find('a1').reads, 1);
    });

    it('snoozeAlarm of its camera holds its camera (any case); without a camera it falls back to its key', () => {
      const book = bookOf();
      book.raise(plate('AB1', 'Gate 1'), T0);
      book.raise(plate('CD2', null), T0);
      const onCamera = book.snoozeAlarm('a1', 'camera', 15 * MIN, ann, T0 + 1).snooze;
      assert.deepEqual([onCamera.scope, onCamera.value, onCamera.label], ['camera', 'gate 1', 'Gate 1']);
      assert.equal(book.raise(plate('XY9', 'GATE 1'), T0 + 2).outcome, 'held');
      const onKey = book.snoozeAlarm('a2', 'camera', 15 * MIN, ann, T0 + 1).snooze;
      assert.deepEqual([onKey.scope, onKey.value, onKey.label], ['key', 'lpr:CD2', 'CD2']);
      assert.equal(book.raise(plate('XY9', null), T0 + 2).outcome, 'opened', 'not everything without a camera');
    });

    it('snoozeAlarm of an acknowledged alarm keeps who acknowledged it', () => {
      const book = bookOf();
      book.raise(plate('AB1'), T0);
      book.acknowledge('a1', bob, T0 + 1);
      const result = book.snoozeAlarm('a1', 'key', MIN, ann, T0 + 2);
      assert.deepEqual([result.ok, result.alarm.ackBy, result.alarm.ackAt, result.snooze.by], [true, 'bob', T0 + 1, 'ann']);
      assert.deepEqual(actions(book), ['snoozed', 'acknowledged', 'opened']);
      assert.deepEqual(book.snoozeAlarm('zz', 'key', MIN, ann, T0), { ok: false, reason: 'unknown' });
    });
  });

  it('a mail link works once per nonce; a closed or unknown alarm takes none', () => {
    const book = bookOf();
    book.raise(plate('AB1'), T0);
    assert.equal(book.linkUsed('a1', 'nonce-one'), false);
    assert.equal(book.useLink('a1', 'nonce-one'), true);
    assert.equal(book.useLink('a1', 'nonce-one'), false);
    assert.equal(book.linkUsed('a1', 'nonce-one'), true);
    assert.equal(book.useLink('a1', 'nonce-two'), true);
    assert.equal(book.useLink('zz', 'nonce-one'), false);
    assert.equal(book.linkUsed('zz', 'nonce-one'), false);
    const kept = new AlarmBook(book.snapshot(), OPTIONS);
    assert.equal(kept.useLink('a1', 'nonce-two'), false, 'used stays used in the kept book');
    book.close('a1', ann, T0);
    assert.equal(book.useLink('a1', 'nonce-three'), false);
  });

  it(`remembers the last ${MAX_USED_LINKS} used nonces of an alarm`, () => {
    const book = bookOf();
    book.raise(plate('AB1'), T0);
    const nonces = Array.from({ length: MAX_USED_LINKS + 10 }, (_, i) => `nonce-${i}`);
    for (const nonce of nonces) assert.equal(book.useLink('a1', nonce), true);
    assert.deepEqual(book.find('a1').usedLinks, nonces.slice(10));
    for (const nonce of nonces.slice(10)) assert.equal(book.useLink('a1', nonce), false, nonce);
  });

  describe('history', () => {
    it('newest first, bounded in count', () => {
      const book = bookOf({ historyMax: 3 });
      for (const p of ['A', 'B', 'C', 'D', 'E']) book.raise(plate(p), T0 + p.charCodeAt(0));
      assert.deepEqual(
        book.history().map((h) => h.label),
        ['E', 'D', 'C'],
      );
    });

    it('bounded in age: entries go at the next change or sweep once they are historyMaxAgeMs old, not before', () => {
      const book = bookOf({ historyMaxAgeMs: 60 * MIN, remindMs: 0, escalateMs: 0, quietMs: 0 });
      book.raise(plate('A'), T0);
      book.raise(plate('B'), T0 + 30 * MIN);
      book.close('a1', ann, T0 + 40 * MIN);
      book.due(T0 + 60 * MIN - 1);
      assert.deepEqual(
        book.history().map((h) => h.label),
        ['A', 'B', 'A'],
      );
      book.due(T0 + 60 * MIN);
      assert.deepEqual(
        book.history().map((h) => h.label),
        ['A', 'B'],
      );
      book.raise(plate('C'), T0 + 90 * MIN);
      assert.deepEqual(
        book.history().map((h) => h.label),
        ['C', 'A'],
      );
      book.due(T0 + 100 * MIN);
      assert.deepEqual(book.close('a1', ann, T0 + 100 * MIN), { ok: false, reason: 'unknown' }, 'who closed it is forgotten with the history');
    });
  });

  it('reconfigure: new rules apply at once; ids are still made the same way', () => {
    const book = bookOf({ maxOpen: 1 });
    book.raise(plate('A'), T0);
    assert.equal(book.raise(plate('B'), T0).outcome, 'untracked');
    book.reconfigure({ ...OPTIONS, maxOpen: 2 });
    assert.equal(book.raise(plate('B'), T0).alarm.id, 'a2');
  });
});
