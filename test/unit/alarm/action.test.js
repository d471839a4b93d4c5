'use strict';
/**
 * A message as an action on the alarm node (lib/alarm/action.ts):
 * msg.topic names it (ack, snooze, close, resume, arm, disarm, list; any
 * other topic is an alert), msg.payload the alarm (its id as text, or an
 * object with id, by, note, minutes) or, for a snooze or resume without an
 * alarm, what: a camera, a plate (made into the node's key), a face, an
 * externalId, a key, or everything.
 */
const assert = require('node:assert/strict');
const { readAction, ALARM_ACTIONS } = require('../../../dist/lib/alarm/action');
const { MAX_TEXT } = require('../../../dist/lib/alarm/types');
const { DEFAULT_LOOKALIKES, normalisePlate } = require('../../../dist/lib/plates');

/** The key a node folding look-alikes makes of a plate. */
const plateKey = (plate) => DEFAULT_LOOKALIKES.fold(normalisePlate(plate));
const read = (topic, payload) => readAction(topic, payload, plateKey, 'node-red');
const request = (topic, payload) => {
  const result = read(topic, payload);
  assert.equal(result.ok, true, JSON.stringify(result));
  return result.request;
};
const problem = (topic, payload) => {
  const result = read(topic, payload);
  assert.equal(result.ok, false, JSON.stringify(result));
  assert.equal(result.reason, 'invalid');
  return [result.problem, result.vars];
};

describe('alarm actions by message', () => {
  it('knows seven actions', () => {
    assert.deepEqual([...ALARM_ACTIONS], ['ack', 'snooze', 'close', 'resume', 'arm', 'disarm', 'list']);
  });

  it('any other topic, or none, is an alert', () => {
    for (const topic of [undefined, null, 42, {}, ['ack'], '', 'lpr', 'WebHookLprPayload', 'acknowledge', 'ack me', 'a ck', 'unsnooze']) {
      assert.deepEqual(read(topic, 'k7m2qx9d'), { ok: false, reason: 'alert' }, String(topic));
    }
  });

  it('reads every action by its topic, trimmed, in any case, with the alarm id as the payload', () => {
    for (const action of ALARM_ACTIONS) {
      for (const topic of [action, ` ${action.toUpperCase()} `]) {
        assert.deepEqual(request(topic, 'k7m2qx9d'), { action, id: 'k7m2qx9d', by: 'node-red', via: 'message' }, topic);
      }
    }
  });

  it('an id given as a number, or padded, is read as text', () => {
    assert.equal(request('ack', 4711).id, '4711');
    assert.equal(request('ack', '  k7m2qx9d\n').id, 'k7m2qx9d');
    assert.equal(request('close', { id: 12 }).id, '12');
  });

  it('refuses an id that cannot be one: upper case, dots, slashes, too long', () => {
    for (const id of ['K7M2QX9D', 'k7m2.qx9d', '../k7m2', 'k7m2 qx9d', 'ü123', 'a'.repeat(33)]) {
      assert.deepEqual(problem('ack', id), ['bad-id', { id }], id);
      assert.deepEqual(problem('snooze', { id }), ['bad-id', { id }], id);
    }
    assert.equal(request('ack', 'a'.repeat(32)).id, 'a'.repeat(32));
  });

  it('ack and close need an alarm: none named, or one that is not text, is a problem', () => {
    for (const action of ['ack', 'close']) {
      for (const payload of [undefined, null, '', '   ', true, [], ['k7m2qx9d'], {}, { by: 'ann' }, { id: '' }, { id: null }]) {
        assert.deepEqual(problem(action, payload), ['no-id', undefined], `${action} ${JSON.stringify(payload)}`);
      }
    }
  });

  it('arm, disarm and list need nothing', () => {
    for (const action of ['arm', 'disarm', 'list']) {
      assert.deepEqual(request(action, undefined), { action, by: 'node-red', via: 'message' });
      assert.deepEqual(request(action, ''), { action, by: 'node-red', via: 'message' });
    }
  });

  it('by and note from the payload, trimmed and cut; by falls back to the node’s; via is the dashboard only when it says so', () => {
    const full = request('ack', { id: 'k7m2qx9d', by: '  Ann ', note: ' on my way ', via: 'dashboard' });
    assert.deepEqual(full, { action: 'ack', id: 'k7m2qx9d', by: 'Ann', note: 'on my way', via: 'dashboard' });
    const blank = request('ack', { id: 'k7m2qx9d', by: '   ', note: '' });
    assert.deepEqual(blank, { action: 'ack', id: 'k7m2qx9d', by: 'node-red', via: 'message' });
    assert.equal(request('ack', { id: 'k7m2qx9d', by: 7 }).by, '7');
    assert.equal(request('ack', { id: 'k7m2qx9d', by: { name: 'x' } }).by, 'node-red');
    for (const via of ['telegram', 'link', 'editor', 'Dashboard']) assert.equal(request('ack', { id: 'k7m2qx9d', via }).via, 'message', via);
    const long = 'x'.repeat(MAX_TEXT + 10);
    const cut = request('ack', { id: 'k7m2qx9d', by: long, note: long });
    assert.deepEqual([cut.by.length, cut.note.length], [MAX_TEXT, MAX_TEXT]);
  });

  describe('minutes', () => {
    it('as a number or numeric text, into ms', () => {
      assert.equal(request('snooze', { id: 'k7m2qx9d', minutes: 5 }).ms, 5 * 60_000);
      assert.equal(request('snooze', { id: 'k7m2qx9d', minutes: '2.5' }).ms, 150_000);
      assert.equal(request('snooze', { id: 'k7m2qx9d', minutes: ' 30 ' }).ms, 30 * 60_000);
      assert.equal(request('snooze', { id: 'k7m2qx9d', minutes: 60 * 24 * 366 }).ms, 366 * 24 * 3_600_000, 'up to a year');
      assert.equal('ms' in request('snooze', { id: 'k7m2qx9d' }), false, 'none: the node’s snooze time');
    });

    it('refuses none, negative, not a number, endless, more than a year; saying what was given', () => {
      for (const minutes of [0, -5, '0', '', 'soon', NaN, Infinity, '1e999', true, null, [5], { m: 5 }, 60 * 24 * 366 + 1]) {
        assert.deepEqual(problem('snooze', { id: 'k7m2qx9d', minutes }), ['bad-minutes', { minutes: String(minutes) }], String(minutes));
      }
    });
  });

  describe('what a snooze or resume without an alarm is of', () => {
    const target = (payload, action = 'snooze') => request(action, payload).target;

    it('a camera, everything, a face, an externalId, a key', () => {
      assert.deepEqual(target({ camera: ' Gate 2 ' }), { scope: 'camera', value: 'Gate 2', label: 'Gate 2' });
      assert.deepEqual(target({ all: true }), { scope: 'all', value: '', label: '' });
      assert.deepEqual(target({ faceId: 'abc12345' }), { scope: 'key', value: 'face:abc12345', label: 'abc12345' });
      assert.deepEqual(target({ faceId: 4711 }), { scope: 'key', value: 'face:4711', label: '4711' });
      assert.deepEqual(target({ externalId: '98765' }), { scope: 'key', value: 'ext:98765', label: '98765' });
      assert.deepEqual(target({ key: 'camera:gate 2' }), { scope: 'key', value: 'camera:gate 2', label: 'camera:gate 2' });
      for (const action of ['snooze', 'resume']) assert.deepEqual(target({ camera: 'Gate 2' }, action).scope, 'camera', action);
    });

    it('a plate as the node keys it (normalised, look-alikes folded), labelled as given', () => {
      assert.deepEqual(target({ plate: ' bob-123 ' }), { scope: 'key', value: 'lpr:808123', label: 'bob-123' });
      assert.equal(target({ plate: '8OB 123' }).value, 'lpr:808123', 'a look-alike reads as the same car');
      const seen = [];
      readAction('snooze', { plate: 'ab 12', camera: '' }, (p) => (seen.push(p), 'KEY'), 'x');
      assert.deepEqual(seen, ['ab 12'], 'the node’s plateKey is what makes the key');
    });

    it('one target, in this order: all, camera, plate, face, externalId, key', () => {
      const every = { all: true, camera: 'Gate 2', plate: 'AX7', faceId: 'f1', externalId: 'e1', key: 'k1' };
      const order = ['all', 'camera', 'plate', 'faceId', 'externalId', 'key'];
      const expected = ['all', 'camera', 'lpr:AX7', 'face:f1', 'ext:e1', 'k1'];
      order.forEach((_, i) => {
        const payload = Object.fromEntries(order.slice(i).map((name) => [name, every[name]]));
        const got = target(payload);
        assert.equal(got.scope === 'key' ? got.value : got.scope, expected[i], JSON.stringify(payload));
      });
    });

    it('blank or unusable fields are not a target: then there is none', () => {
      for (const payload of [{}, { all: 'true' }, { all: 1 }, { camera: '  ' }, { plate: '' }, { faceId: null }, { externalId: {} }, { key: '' }]) {
        for (const action of ['snooze', 'resume']) {
          const result = read(action, payload);
          assert.deepEqual(result, { ok: false, reason: 'invalid', problem: 'no-target' }, `${action} ${JSON.stringify(payload)}`);
        }
      }
    });

    it('a plate that is nothing once normalised is no target', () => {
      assert.deepEqual(read('snooze', { plate: ' - ' }), { ok: false, reason: 'invalid', problem: 'no-target' });
      assert.equal(target({ plate: '--', camera: '', faceId: 'f1' }).value, 'face:f1');
    });

    it('with an alarm named, the snooze is of that alarm: no target', () => {
      const named = request('snooze', { id: 'k7m2qx9d', camera: 'Gate 2', minutes: 10 });
      assert.deepEqual(named, { action: 'snooze', id: 'k7m2qx9d', by: 'node-red', via: 'message', ms: 600_000 });
    });
  });
});
