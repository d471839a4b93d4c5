'use strict';
/**
 * What falls due in the alarm book with time (lib/alarm/book.ts due() and
 * nextDue()): reminders every remindMs after opening, at most maxReminders,
 * one after a long stop; one escalation; the quiet close (an acknowledged
 * alarm at once, an unanswered one only once nothing is left to send);
 * snoozes ending with what they held; each item once. nextDue() says when
 * the node's one timer wakes: checked against due() on random books.
 */
const assert = require('node:assert/strict');
const { AlarmBook, emptyBook } = require('../../../dist/lib/alarm/book');

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T08:00:00Z');
const NONE = {
  remindMs: 0,
  maxReminders: 0,
  escalateMs: 0,
  quietMs: 0,
  maxOpen: 100,
  urgentPierces: false,
  historyMax: 1000,
  historyMaxAgeMs: Infinity,
};
const counting = () => {
  let n = 0;
  return () => `a${++n}`;
};
const bookOf = (options = {}, state = emptyBook()) => new AlarmBook(state, { ...NONE, newId: counting(), ...options });
const plate = (p, camera = 'Gate 1') => ({ key: `lpr:${p}`, label: p, kind: 'lpr', camera, urgent: false });
const ann = { by: 'ann', via: 'dashboard' };
/** Due items in short: [type, alarm id or snooze value, reminder number or held count]. */
const short = (items) =>
  items.map((i) =>
    i.type === 'resumed' ? [i.type, i.snooze.value, i.snooze.held] : i.type === 'reminder' ? [i.type, i.alarm.id, i.number] : [i.type, i.alarm.id],
  );

describe('alarm book: what falls due', () => {
  it('reminds at N, 2N, … at most K times, each once; nothing before', () => {
    const book = bookOf({ remindMs: 10 * MIN, maxReminders: 3 });
    book.raise(plate('AB1'), T0);
    assert.equal(book.nextDue(), T0 + 10 * MIN);
    assert.deepEqual(book.due(T0 + 10 * MIN - 1), []);
    const first = book.due(T0 + 10 * MIN);
    assert.deepEqual(short(first), [['reminder', 'a1', 1]]);
    assert.equal(first[0].alarm.reminders, 1);
    assert.deepEqual(book.due(T0 + 10 * MIN), [], 'each item once');
    assert.deepEqual(book.due(T0 + 19 * MIN), []);
    assert.equal(book.nextDue(), T0 + 20 * MIN);
    assert.deepEqual(short(book.due(T0 + 20 * MIN)), [['reminder', 'a1', 2]]);
    assert.deepEqual(short(book.due(T0 + 30 * MIN)), [['reminder', 'a1', 3]]);
    assert.equal(book.nextDue(), Infinity);
    assert.deepEqual(book.due(T0 + 40 * MIN), []);
    assert.deepEqual(
      book.history().map((h) => [h.action, h.by]),
      [
        ['reminded', ''],
        ['reminded', ''],
        ['reminded', ''],
        ['opened', ''],
      ],
    );
  });

  it('after a long stop: one reminder for all those missed, not a burst; never past the most', () => {
    const book = bookOf({ remindMs: 10 * MIN, maxReminders: 5 });
    book.raise(plate('AB1'), T0);
    assert.deepEqual(short(book.due(T0 + 35 * MIN)), [['reminder', 'a1', 3]]);
    assert.equal(book.nextDue(), T0 + 40 * MIN, 'the next one on the schedule from opening');
    assert.deepEqual(short(book.due(T0 + 10 * 60 * MIN)), [['reminder', 'a1', 5]]);
    assert.deepEqual(book.due(T0 + 20 * 60 * MIN), []);
    assert.equal(book.history().filter((h) => h.action === 'reminded').length, 2);
  });

  it('escalates once, escalateMs after opening, with the reminder that falls due then', () => {
    const book = bookOf({ remindMs: 10 * MIN, maxReminders: 3, escalateMs: 30 * MIN });
    book.raise(plate('AB1'), T0);
    book.due(T0 + 20 * MIN);
    assert.equal(book.nextDue(), T0 + 30 * MIN);
    assert.deepEqual(book.due(T0 + 30 * MIN - 1), []);
    const items = book.due(T0 + 30 * MIN);
    assert.deepEqual(short(items), [
      ['escalation', 'a1'],
      ['reminder', 'a1', 3],
    ]);
    assert.equal(items[0].alarm.escalated, true);
    assert.deepEqual(book.due(T0 + 60 * MIN), []);
    assert.equal(book.find('a1').escalated, true);
    assert.equal(book.history().filter((h) => h.action === 'escalated').length, 1);
  });

  it('an acknowledgement stops reminders and escalation', () => {
    const book = bookOf({ remindMs: 10 * MIN, maxReminders: 3, escalateMs: 30 * MIN });
    book.raise(plate('AB1'), T0);
    book.raise(plate('CD2'), T0);
    book.due(T0 + 10 * MIN);
    book.acknowledge('a1', ann, T0 + 11 * MIN);
    assert.deepEqual(short(book.due(T0 + 30 * MIN)), [
      ['escalation', 'a2'],
      ['reminder', 'a2', 3],
    ]);
    assert.deepEqual(book.find('a1').reminders, 1);
    assert.equal(book.find('a1').escalated, false);
  });

  it('quiet: an acknowledged alarm closes quietMs after its last read, by the node', () => {
    const book = bookOf({ remindMs: 10 * MIN, maxReminders: 3, quietMs: 60 * MIN });
    book.raise(plate('AB1'), T0);
    book.acknowledge('a1', ann, T0 + MIN);
    book.raise(plate('AB1'), T0 + 30 * MIN);
    assert.equal(book.nextDue(), T0 + 90 * MIN, 'from the last read');
    assert.deepEqual(book.due(T0 + 90 * MIN - 1), []);
    const items = book.due(T0 + 90 * MIN);
    assert.deepEqual(short(items), [['closed', 'a1']]);
    assert.equal(items[0].alarm.state, 'acknowledged', 'as it was when it closed');
    assert.equal(book.size, 0);
    assert.deepEqual(book.history()[0], { at: T0 + 90 * MIN, action: 'closed', alarm: 'a1', label: 'AB1', by: '' });
    assert.deepEqual(book.acknowledge('a1', ann, T0 + 91 * MIN), { ok: false, reason: 'closed', by: '', at: T0 + 90 * MIN });
    assert.deepEqual(book.due(T0 + 90 * MIN), []);
  });

  it('quiet never silences an alarm nobody saw: it closes once its reminders and escalation are sent', () => {
    const book = bookOf({ remindMs: 10 * MIN, maxReminders: 3, escalateMs: 25 * MIN, quietMs: 15 * MIN });
    book.raise(plate('AB1'), T0);
    assert.deepEqual(short(book.due(T0 + 15 * MIN)), [['reminder', 'a1', 1]], 'quiet, but not closed');
    assert.deepEqual(short(book.due(T0 + 25 * MIN)), [
      ['escalation', 'a1'],
      ['reminder', 'a1', 2],
    ]);
    assert.equal(book.nextDue(), T0 + 30 * MIN);
    assert.deepEqual(short(book.due(T0 + 30 * MIN)), [
      ['reminder', 'a1', 3],
      ['closed', 'a1'],
    ]);
    assert.equal(book.size, 0);
  });

  it('quiet with nothing to send closes an unanswered alarm after quietMs; a read keeps it open', () => {
    const book = bookOf({ quietMs: 15 * MIN });
    book.raise(plate('AB1'), T0);
    book.raise(plate('AB1'), T0 + 10 * MIN);
    assert.deepEqual(book.due(T0 + 15 * MIN), []);
    assert.deepEqual(short(book.due(T0 + 25 * MIN)), [['closed', 'a1']]);
    const none = bookOf({ remindMs: 10 * MIN, maxReminders: 0, quietMs: 15 * MIN });
    none.raise(plate('AB1'), T0);
    assert.equal(none.nextDue(), T0 + 15 * MIN, 'no reminders at all: nothing pending');
  });

  it('without quietMs nothing closes by itself', () => {
    const book = bookOf({ remindMs: 10 * MIN, maxReminders: 1 });
    book.raise(plate('AB1'), T0);
    book.raise(plate('CD2'), T0);
    book.acknowledge('a2', ann, T0);
    book.due(T0 + 10 * MIN);
    assert.deepEqual(book.due(T0 + 1000 * MIN), []);
    assert.equal(book.size, 2);
    assert.equal(book.nextDue(), Infinity);
  });

  it('a snooze ends at its until, once, with the count it held; so does a snooze that held nothing', () => {
    const book = bookOf();
    book.snooze('camera', 'Gate 1', 'Gate 1', 10 * MIN, ann, T0);
    book.snooze('key', 'lpr:CD2', 'CD2', 20 * MIN, ann, T0);
    book.raise(plate('AB1'), T0 + 1);
    book.raise(plate('XY9', 'gate 1'), T0 + 2);
    assert.equal(book.nextDue(), T0 + 10 * MIN);
    assert.deepEqual(book.due(T0 + 10 * MIN - 1), []);
    assert.deepEqual(short(book.due(T0 + 10 * MIN)), [['resumed', 'gate 1', 2]]);
    assert.deepEqual(book.due(T0 + 10 * MIN), []);
    assert.deepEqual(book.history()[0], { at: T0 + 10 * MIN, action: 'resumed', label: 'Gate 1', by: '', held: 2 });
    assert.deepEqual(short(book.due(T0 + 60 * MIN)), [['resumed', 'lpr:CD2', 0]]);
    assert.deepEqual(book.snoozes(T0), [], 'gone from the book, not only out of force');
    assert.equal(book.nextDue(), Infinity);
  });

  it('the history’s age is due too: its oldest entry leaves at its time', () => {
    const book = bookOf({ historyMaxAgeMs: 60 * MIN });
    book.raise(plate('AB1'), T0);
    book.acknowledge('a1', ann, T0 + 5 * MIN);
    assert.equal(book.nextDue(), T0 + 60 * MIN);
    assert.deepEqual(book.due(T0 + 60 * MIN), []);
    assert.deepEqual(
      book.history().map((h) => h.action),
      ['acknowledged'],
    );
    assert.equal(book.nextDue(), T0 + 65 * MIN);
  });

  it('a disarmed book still reminds of the alarms it has', () => {
    const book = bookOf({ remindMs: 10 * MIN, maxReminders: 1 });
    book.raise(plate('AB1'), T0);
    book.disarm(ann, T0 + 1);
    assert.deepEqual(short(book.due(T0 + 10 * MIN)), [['reminder', 'a1', 1]]);
  });

  it('new settings move what is due: a shorter quiet closes at once, fewer reminders stop them', () => {
    const book = bookOf({ remindMs: 10 * MIN, maxReminders: 5, quietMs: 120 * MIN });
    book.raise(plate('AB1'), T0);
    book.due(T0 + 20 * MIN);
    book.reconfigure({ ...NONE, remindMs: 10 * MIN, maxReminders: 2, quietMs: 15 * MIN });
    assert.equal(book.nextDue(), T0 + 15 * MIN, 'already past: due at once');
    assert.deepEqual(short(book.due(T0 + 21 * MIN)), [['closed', 'a1']]);
  });

  describe('nextDue agrees with due on random books (seeded)', () => {
    /** Deterministic PRNG (mulberry32), so a failure can be replayed from its seed. */
    function rng(seed) {
      let a = seed >>> 0;
      return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
    }

    const copyOf = (book, options) => new AlarmBook(book.snapshot(), options);
    /** Whether due(at) on a copy of `book` does anything: items, or a change to the book (the history's age). */
    function acts(book, options, at) {
      const copy = copyOf(book, options);
      const before = JSON.stringify(copy.snapshot());
      const items = copy.due(at);
      return items.length > 0 || JSON.stringify(copy.snapshot()) !== before;
    }

    it('for 300 books of random settings and actions: nothing is due before nextDue, something at it; after due(now), nextDue is later', () => {
      const seen = new Set();
      for (let seed = 1; seed <= 300; seed++) {
        const random = rng(seed);
        const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
        const maybe = (value) => (random() < 0.25 ? 0 : value);
        const options = {
          ...NONE,
          remindMs: maybe(int(1, 20) * MIN),
          maxReminders: int(0, 4),
          escalateMs: maybe(int(1, 60) * MIN),
          quietMs: maybe(int(1, 90) * MIN),
          maxOpen: int(1, 5),
          urgentPierces: random() < 0.5,
          historyMax: int(1, 30),
          historyMaxAgeMs: int(1, 300) * MIN,
        };
        const book = bookOf(options);
        const pick = (list) => list[int(0, list.length - 1)];
        let now = T0;
        for (let step = 0; step < 40; step++) {
          now += pick([0, 1, int(1, 30) * MIN, int(1, 200) * MIN]);
          const ids = book.alarms().map((a) => a.id);
          const op = int(0, 9);
          if (op <= 3)
            book.raise({ ...plate(pick(['A', 'B', 'C', 'D', 'E', 'F']), pick(['Gate 1', 'gate 1', 'Gate 2', null])), urgent: random() < 0.2 }, now);
          else if (op === 4 && ids.length) book.acknowledge(pick(ids), ann, now);
          else if (op === 5 && ids.length) book.close(pick(ids), ann, now);
          else if (op === 6 && ids.length) book.snoozeAlarm(pick(ids), pick(['key', 'camera']), int(1, 60) * MIN, ann, now);
          else if (op === 7) book.snooze(pick(['all', 'camera', 'key']), pick(['Gate 1', 'lpr:A', '']), 'x', int(1, 60) * MIN, ann, now);
          else if (op === 8 && book.armed) book.disarm(ann, now);
          else if (op === 8) book.arm(ann, now);
          const next = book.nextDue();
          const context = `seed ${seed}, step ${step}, now T0+${now - T0}, nextDue T0+${next - T0}`;
          if (next > now) {
            const last = Math.min(next - 1, now + 1000 * MIN);
            for (const at of [now, Math.floor((now + last) / 2), last]) {
              assert.equal(acts(book, options, at), false, `nothing before nextDue (at T0+${at - T0}; ${context})`);
            }
          }
          if (Number.isFinite(next)) assert.equal(acts(book, options, Math.max(now, next)), true, `something at nextDue (${context})`);
          if (random() < 0.5 || next <= now) {
            if (Number.isFinite(next)) now = Math.max(now, next);
            for (const item of book.due(now)) seen.add(item.type);
            assert.deepEqual(book.due(now), [], `each item once (${context})`);
            assert.ok(book.nextDue() > now, `after due(now), nextDue is later (${context})`);
          }
        }
      }
      assert.deepEqual([...seen].sort(), ['closed', 'escalation', 'reminder', 'resumed'], 'the books exercise every kind of item');
    });
  });
});
