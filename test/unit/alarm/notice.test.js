'use strict';
/**
 * msg.alarm's facts (lib/alarm/notice.ts): an alarm, a snooze, a history
 * entry as flows and the dashboard read them: times as ISO text, nothing
 * but the fields named (no used link nonces, no event), optional fields
 * only when they are set.
 */
const assert = require('node:assert/strict');
const { alarmFacts, snoozeFacts, historyFacts } = require('../../../dist/lib/alarm/notice');
const { AlarmBook, emptyBook } = require('../../../dist/lib/alarm/book');

const T0 = Date.parse('2026-03-01T08:00:00Z');
const OPTIONS = {
  remindMs: 0,
  maxReminders: 0,
  escalateMs: 0,
  quietMs: 0,
  maxOpen: 10,
  urgentPierces: false,
  historyMax: 100,
  historyMaxAgeMs: Infinity,
};
const bookOf = () => new AlarmBook(emptyBook(), { ...OPTIONS, newId: () => 'k7m2qx9d' });
const alert = { key: 'lpr:AB1', label: 'AB-1', kind: 'lpr', camera: 'Gate 1', urgent: true };

describe('alarm facts for flows', () => {
  it('an open alarm: its fields, times in ISO, no ack fields, no used links', () => {
    const book = bookOf();
    book.raise(alert, T0);
    book.raise(alert, T0 + 90_000);
    book.useLink('k7m2qx9d', 'nonce-123');
    const facts = alarmFacts(book.find('k7m2qx9d'));
    assert.deepEqual(facts, {
      id: 'k7m2qx9d',
      key: 'lpr:AB1',
      label: 'AB-1',
      kind: 'lpr',
      camera: 'Gate 1',
      state: 'open',
      urgent: true,
      openedAt: '2026-03-01T08:00:00.000Z',
      lastSeen: '2026-03-01T08:01:30.000Z',
      reads: 2,
      reminders: 0,
      escalated: false,
    });
    assert.deepEqual(JSON.parse(JSON.stringify(facts)), facts, 'plain JSON');
  });

  it('an acknowledged alarm: by whom, when, the note', () => {
    const book = bookOf();
    book.raise({ ...alert, camera: null }, T0);
    const { alarm } = book.acknowledge('k7m2qx9d', { by: 'ann', via: 'link', note: 'on my way' }, T0 + 1000);
    const facts = alarmFacts(alarm);
    assert.deepEqual(
      [facts.state, facts.ackBy, facts.ackAt, facts.note, facts.camera],
      ['acknowledged', 'ann', '2026-03-01T08:00:01.000Z', 'on my way', null],
    );
    const unset = alarmFacts({ ...alarm, note: undefined });
    assert.equal('note' in unset, false, 'a note that is not set is not there');
  });

  it('a closed alarm says closed: it is no longer in the book to say so itself', () => {
    const book = bookOf();
    book.raise(alert, T0);
    const { alarm } = book.close('k7m2qx9d', { by: 'ann', via: 'dashboard' }, T0 + 5);
    assert.equal(alarm.state, 'open');
    assert.equal(alarmFacts(alarm, 'closed').state, 'closed');
    assert.equal(alarmFacts(alarm).state, 'open');
  });

  it('a snooze: what, until when, by whom, how many it held; not when it was set', () => {
    const book = bookOf();
    book.snooze('camera', 'Gate 1', 'Gate 1', 600_000, { by: 'ann', via: 'telegram' }, T0);
    book.raise(alert, T0 + 1);
    assert.deepEqual(snoozeFacts(book.snoozes(T0 + 1)[0]), {
      scope: 'camera',
      value: 'gate 1',
      label: 'Gate 1',
      until: '2026-03-01T08:10:00.000Z',
      by: 'ann',
      held: 1,
    });
  });

  it('a history entry: its time in ISO, its other fields as they are, none added', () => {
    const book = bookOf();
    book.raise(alert, T0);
    book.acknowledge('k7m2qx9d', { by: 'ann', via: 'telegram', note: 'ok' }, T0 + 1);
    book.disarm({ by: 'bob', via: 'dashboard' }, T0 + 2);
    book.arm({ by: 'bob', via: 'dashboard' }, T0 + 3);
    assert.deepEqual(book.history().map(historyFacts), [
      { at: '2026-03-01T08:00:00.003Z', action: 'armed', label: '', by: 'bob', via: 'dashboard', held: 0 },
      { at: '2026-03-01T08:00:00.002Z', action: 'disarmed', label: '', by: 'bob', via: 'dashboard' },
      { at: '2026-03-01T08:00:00.001Z', action: 'acknowledged', alarm: 'k7m2qx9d', label: 'AB-1', by: 'ann', via: 'telegram', note: 'ok' },
      { at: '2026-03-01T08:00:00.000Z', action: 'opened', alarm: 'k7m2qx9d', label: 'AB-1', by: '' },
    ]);
  });
});
