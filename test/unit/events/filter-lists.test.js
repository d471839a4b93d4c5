'use strict';
/**
 * lib/events/filter-lists.ts: the lists of the filter's tag, camera, site and plate rules: their items as
 * typed or read from context, compiled only when they change, and what a list rule held on.
 */
const assert = require('node:assert/strict');
const lists = require('../../../dist/lib/events/filter-lists');

const { folded, listItems, listProblem, keyFor, cachedList, entriesByKey, heldValue, listEntry, LIST_RULE_TYPES } = lists;
const view = (o = {}) => ({ tags: [], camera: null, site: null, ...o });

describe('lib/events/filter-lists', () => {
  it('the rules whose value is a list', () => {
    assert.deepEqual([...LIST_RULE_TYPES], ['tag', 'camera', 'site', 'plate']);
  });

  it('listItems: comma or newline separated text, or an array; items trimmed, numbers as text, the rest left out', () => {
    assert.deepEqual(listItems(' Gate 1, Gate 2\r\nYard ,,\n'), ['Gate 1', 'Gate 2', 'Yard']);
    assert.deepEqual(listItems(['AB123', ' cd 45 ', 7, '', null, {}, Number.NaN, Infinity]), ['AB123', 'cd 45', '7']);
    assert.deepEqual(listItems(42), ['42']);
    for (const none of [undefined, null, {}, true, '']) assert.deepEqual(listItems(none), [], String(none));
  });

  it('listProblem: missing, not a list, or usable', () => {
    assert.equal(listProblem(undefined), 'missing');
    assert.equal(listProblem(null), 'missing');
    for (const bad of [{}, true]) assert.equal(listProblem(bad), 'not-a-list');
    for (const ok of ['a,b', '', [], 3]) assert.equal(listProblem(ok), undefined, JSON.stringify(ok));
  });

  it('keyFor: items compared folded; tags without the account prefix when there is one', () => {
    assert.equal(folded('  VIP '), 'vip');
    assert.equal(keyFor('camera', 'partner')('  Gate-1 '), 'gate-1');
    assert.equal(keyFor('tag', '')('Partner-Banned'), 'partner-banned');
    assert.equal(keyFor('tag', 'partner')('Partner-Banned'), 'banned');
  });

  it('cachedList: compiles again only when the items change', () => {
    let compiles = 0;
    const get = cachedList((items) => ({ items, n: ++compiles }));
    const list = ['A', 'B'];
    assert.deepEqual(get(list).items, ['A', 'B']);
    get(list);
    get(['A', ' B ']);
    assert.equal(compiles, 1, 'the same array, then a copy with the same items');
    list.push('C');
    assert.deepEqual(get(list).items, ['A', 'B', 'C']);
    assert.equal(compiles, 2, 'an array grown in place');
    get('A,B,C');
    assert.equal(compiles, 3, 'text is compiled when it differs from the last value');
    get('A,B,C');
    assert.equal(compiles, 3);
  });

  it('entriesByKey, heldValue, listEntry: what a rule held on, as sent and as the list wrote it', () => {
    const key = keyFor('tag', 'partner');
    const entries = entriesByKey(['Banned', 'banned', 'VIP'], key);
    assert.deepEqual(
      [...entries],
      [
        ['banned', 'Banned'],
        ['vip', 'VIP'],
      ],
      'the first spelling of a key is kept',
    );
    const seen = view({ tags: ['staff', 'partner-BANNED'], camera: 'Gate 1', site: 'North' });
    assert.equal(heldValue('tag', key, entries, seen), 'partner-BANNED');
    assert.deepEqual(listEntry('tag', 2, key, entries, seen), { rule: 2, type: 'tag', tag: 'partner-BANNED', as: 'Banned' });
    const cameras = entriesByKey(['gate 1'], folded);
    assert.deepEqual(listEntry('camera', 0, folded, cameras, seen), { rule: 0, type: 'camera', camera: 'Gate 1' });
    assert.equal(heldValue('site', folded, cameras, seen), undefined);
    assert.equal(heldValue('camera', folded, new Map(), seen), undefined);
  });
});
