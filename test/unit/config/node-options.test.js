'use strict';
/**
 * lib/config/node-options.ts reads a node's saved options with the table's
 * rules: the values it runs with, and each saved value it could not use as
 * it is (the warning at deploy, lib/config/wrong-options.ts). A missing
 * option is no problem (a flow saved before it existed); a number where the
 * dialog saves its text is the same choice; a number out of range of a rule
 * whose outOfRange stops the node is the node's to refuse.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT } = require('../../support');

const { readNodeOptions, nodeOptions, optionDefault, NODE_OPTIONS, durationMs, secondsMs, mibBytes, MIB } = require(
  path.join(ROOT, 'dist', 'lib', 'config', 'node-options'),
);

describe('lib/config/node-options', function () {
  it('a flow written by a program with plateLookalikes: 1 (a number) runs with one look-alike, as the dialog\'s "1"', () => {
    const read = readNodeOptions('detection-filter', { plateLookalikes: 1, plateExtraMissing: 2 });
    assert.equal(read.values.plateLookalikes, '1');
    assert.equal(read.values.plateExtraMissing, '2');
    assert.deepEqual(read.wrong, [], 'a number is the choice its text names: nothing to warn about');
    assert.equal(nodeOptions('detection-filter', { plateLookalikes: 1 }).plateLookalikes, '1');
    assert.equal(
      nodeOptions('detection-filter', { plateLookalikes: 3 }).plateLookalikes,
      '1',
      'a number that is no choice: the default, as a new node',
    );
    assert.equal(nodeOptions('detection-in', { auth: 'tokn' }).auth, 'bearer', 'a mistyped auth asks for a token: never runs open');
    assert.equal(nodeOptions('detection-in', {}).auth, 'none', 'a receiver saved before the option: as it always ran');
  });

  it('a value it cannot use runs with the default and is named, with the value and the value used', () => {
    const read = readNodeOptions('detection-dedupe', { ttl: 'soon' });
    assert.equal(read.values.ttl, 1);
    assert.deepEqual(read.stops, [], 'no number at all: the default, not a stop');
    assert.deepEqual(read.wrong, [{ option: 'ttl', value: 'soon', used: 1, problem: { key: 'not-a-number', params: { value: 'soon' } } }]);
  });

  it('each kind of rule: number text read, above the maximum the maximum, a wrong choice or flag the fallback', () => {
    const read = readNodeOptions('platform-push', { batchSize: ' 50 ', batchMs: 900_000, maxRetries: 'many', operation: 'POS' });
    assert.equal(read.values.batchSize, 50);
    assert.equal(read.values.batchMs, 600_000);
    assert.equal(read.values.maxRetries, 5);
    assert.equal(read.values.operation, 'pos');
    assert.deepEqual(
      read.wrong.map((w) => [w.option, w.value, w.used, w.problem.key]),
      [
        ['operation', 'POS', 'pos', 'choice'],
        ['batchMs', 900_000, 600_000, 'max'],
        ['maxRetries', 'many', 5, 'not-a-number'],
      ],
    );
    const flags = readNodeOptions('detection-monitor', { metrics: 'false', health: 'perhaps' });
    assert.equal(flags.values.metrics, false, "older flows save a flag as text: 'false' is off");
    assert.deepEqual(
      flags.wrong.map((w) => [w.option, w.value, w.used]),
      [['health', 'perhaps', true]],
    );
  });

  it('a missing option is not wrong: it takes what it has always meant, silently', () => {
    for (const type of Object.keys(NODE_OPTIONS)) {
      const read = readNodeOptions(type, {});
      assert.deepEqual(read.wrong, [], type);
      assert.deepEqual(read.stops, [], type);
    }
    assert.equal(nodeOptions('detection-filter', {}).plateLookalikes, '0', 'absent: a filter saved before look-alikes matches exactly');
    assert.equal(nodeOptions('detection-dedupe', {}).ttlUnits, 's', 'absent: a window saved before units counted seconds');
    assert.equal(nodeOptions('detection-redis', { database: '' }).database, undefined, 'an optional number left empty');
    assert.deepEqual(readNodeOptions('detection-redis', { database: '' }).wrong, []);
  });

  it("a TypedInput's value of another type (a msg property, an expression) is not a wrong choice", () => {
    assert.deepEqual(readNodeOptions('detection-sample', { kind: 'kind', kindType: 'msg' }).wrong, []);
    assert.deepEqual(readNodeOptions('detection-enroll', { action: '$action', actionType: 'jsonata', kind: 'lpr', kindType: 'kind' }).wrong, []);
    assert.deepEqual(
      readNodeOptions('detection-enroll', { action: 'delete', actionType: 'action' }).wrong.map((w) => [w.option, w.value, w.used]),
      [['action', 'delete', 'enroll']],
      'of its fixed type it is the choice, and a wrong one is said',
    );
    assert.deepEqual(
      readNodeOptions('detection-sample', { kind: 'car' }).wrong.map((w) => w.option),
      ['kind'],
      'no type saved: the fixed one',
    );
  });

  it("a number out of range of the dedupe window's size stops the node (its setup says why); above the maximum is the maximum", () => {
    const read = readNodeOptions('detection-dedupe', { ttl: -5, maxKeys: 2.5, capCount: 2_000_000 });
    assert.deepEqual(
      read.stops.map((w) => [w.option, w.problem.key]),
      [
        ['ttl', 'above'],
        ['maxKeys', 'integer'],
      ],
    );
    assert.deepEqual(
      read.wrong.map((w) => [w.option, w.used]),
      [['capCount', 1_000_000]],
    );
    const elsewhere = readNodeOptions('detection-presence', { away: -5 });
    assert.deepEqual(elsewhere.stops, [], 'other rules run with the default');
    assert.equal(elsewhere.values.away, 30);
    assert.deepEqual(
      elsewhere.wrong.map((w) => [w.option, w.value, w.used]),
      [['away', -5, 30]],
    );
  });

  it("lib's defaults are the table's, converted by the units stated beside it", () => {
    assert.equal(optionDefault('detection-sample', 'timeout'), 10);
    assert.equal(optionDefault('detection-redis', 'database'), undefined, 'an optional number: none');
    assert.equal(durationMs(2, 'm'), 120_000);
    assert.equal(durationMs(1, 'h'), 3_600_000);
    assert.equal(secondsMs(1.5), 1500);
    assert.equal(mibBytes(1), MIB);
    assert.equal(MIB, 1024 * 1024);
    const lib = (file) => require(path.join(ROOT, 'dist', 'lib', ...file.split('/')));
    assert.equal(lib('bridge/client').DEFAULT_SAMPLE_TIMEOUT_MS, secondsMs(optionDefault('detection-sample', 'timeout')));
    assert.equal(lib('bridge/client').DEFAULT_BRIDGE_TIMEOUT_MS, secondsMs(optionDefault('events-bridge', 'timeout')));
    assert.equal(lib('platform/client').DEFAULT_PLATFORM_TIMEOUT_MS, secondsMs(optionDefault('platform-server', 'timeout')));
    const push = lib('platform/push-queue');
    assert.deepEqual(
      [push.DEFAULT_PUSH_MAX_ITEMS, push.DEFAULT_PUSH_MAX_WAIT_MS, push.DEFAULT_PUSH_MAX_RETRIES],
      [optionDefault('platform-push', 'batchSize'), optionDefault('platform-push', 'batchMs'), optionDefault('platform-push', 'maxRetries')],
    );
    const { DEFAULT_PICK_OPTIONS } = lib('image/pick');
    assert.deepEqual(
      [DEFAULT_PICK_OPTIONS.plateMode, DEFAULT_PICK_OPTIONS.face, DEFAULT_PICK_OPTIONS.faceFallback],
      [
        optionDefault('detection-image', 'plateMode'),
        optionDefault('detection-image', 'faceImage'),
        optionDefault('detection-image', 'faceFallback'),
      ],
    );
  });
});
