'use strict';
/**
 * lib/delivery/session-view.ts: what a receiver shows under itself, from its
 * session's status object (the catalogue stubbed to its keys and values).
 */
const assert = require('node:assert/strict');
const { sessionView, hasSomethingToShow } = require('../../../dist/lib/delivery/session-view');

const t = (key, vars) => (vars ? `${key}${JSON.stringify(vars)}` : key);
const status = (over = {}) => ({
  failed: undefined,
  open: true,
  pending: undefined,
  journalBytes: undefined,
  deadLetters: 0,
  outOfSpace: false,
  noDoneWired: false,
  ...over,
  counts: { received: 0, warned: 0, rejected: 0, invalid: 0, ...(over.counts || {}) },
});

describe('delivery: session view', () => {
  it('a store that could not open: red ring with the reason', () => {
    assert.deepEqual(sessionView(status({ failed: 'EACCES' }), '/d', t), {
      fill: 'red',
      shape: 'ring',
      text: 'status.delivery-failed{"message":"EACCES"}',
    });
  });

  it('counts in green; pending, journal size (MiB) and dead letters appended', () => {
    const v = sessionView(status({ counts: { received: 3 }, pending: 2, journalBytes: 3 * 1024 * 1024, deadLetters: 1 }), '/d', t);
    assert.equal(v.fill, 'green');
    assert.equal(
      v.text,
      'status.counts{"path":"/d","received":3,"warned":0}status.pending{"pending":2}status.journal{"size":3}status.dead{"count":1}',
    );
  });

  it('a full disk is red, first; waiting for a done node none will send is yellow', () => {
    const full = sessionView(status({ outOfSpace: true }), '/d', t);
    assert.deepEqual([full.fill, full.text], ['red', 'status.disk-full{"path":"/d"}']);
    const waiting = sessionView(status({ noDoneWired: true, counts: { received: 1 } }), '/d', t);
    assert.equal(waiting.fill, 'yellow');
    assert.match(waiting.text, /status\.no-done$/);
  });

  it('turning requests away now: yellow, the refusals after the counts; warnings change the counts text', () => {
    const refusing = sessionView(status({ counts: { received: 5, rejected: 2 }, pending: 1 }), '/d', t, { text: '<refusals>', turningAway: true });
    assert.equal(refusing.fill, 'yellow');
    assert.equal(refusing.text, 'status.counts{"path":"/d","received":5,"warned":0}<refusals>status.pending{"pending":1}');
    // refused a while ago, taking events again: green, the counts of the window still shown
    const past = sessionView(status({ counts: { rejected: 2 } }), '/d', t, { text: '<refusals>', turningAway: false });
    assert.deepEqual([past.fill, past.text], ['green', 'status.counts{"path":"/d","received":0,"warned":0}<refusals>']);
    assert.match(sessionView(status({ counts: { received: 2, warned: 1 } }), '/d', t).text, /^status\.counts-warned/);
  });

  it('has something to show once anything was counted, or a done node is missing', () => {
    assert.equal(hasSomethingToShow(status()), false);
    assert.equal(hasSomethingToShow(status({ counts: { invalid: 1 } })), true);
    assert.equal(hasSomethingToShow(status({ noDoneWired: true })), true);
  });
});
