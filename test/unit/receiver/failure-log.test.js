'use strict';
/**
 * lib/receiver/failure-log.ts: what a receiver says in the log (the catalogue
 * stubbed to its keys and values; a fake clock drives the minutes): each
 * dead letter sent on output 3, up to ten a minute and then how many more; a
 * refusal with its event id when known; a listener that cannot listen, once.
 */
const assert = require('node:assert/strict');
const { createFailureLog } = require('../../../dist/lib/receiver/failure-log');
const { problem } = require('../../../dist/lib/http/problem');
const { FakeClock } = require('../../support/fake-clock');

const t = (key, vars) => `${key}${JSON.stringify(vars)}`;

function setup(memoryOnly = false) {
  const clock = new FakeClock(0);
  const said = [];
  const sent = [];
  const log = createFailureLog({ path: '/d', t, log: { warn: (text) => said.push(text) }, memoryOnly: () => memoryOnly, changed() {}, clock });
  const send = log.watching((output, msg) => sent.push([output, msg.topic]));
  return { clock, said, sent, log, send };
}

describe('lib/receiver/failure-log', () => {
  it('says each dead letter on output 3 with the path, the event id, the attempts and why; the message still goes out', () => {
    const { said, sent, send } = setup();
    send(0, { topic: 'WebHookLprPayload', messageId: 'm-0' });
    send(2, { topic: 'failed', messageId: 'm-1', attempt: 1, error: 'first' });
    send(2, { topic: 'dead-letter', messageId: 'm-1', attempt: 5, error: 'mail server down' });
    assert.deepEqual(sent, [
      [0, 'WebHookLprPayload'],
      [2, 'failed'],
      [2, 'dead-letter'],
    ]);
    assert.deepEqual(said, ['warnings.dead-letter{"path":"/d","messageId":"m-1","attempts":5,"error":"mail server down"}']);
  });

  it('memory mode: the warning says a restart loses it', () => {
    const { said, send } = setup(true);
    send(2, { topic: 'dead-letter', attempt: 1, error: 'x' });
    assert.match(said[0], /^warnings\.dead-letter-memory\{"path":"\/d","messageId":"-"/);
  });

  it('a burst of dead letters: ten a minute one by one, then how many more', async () => {
    const { clock, said, send } = setup();
    for (let i = 0; i < 25; i++) send(2, { topic: 'dead-letter', messageId: `m-${i}`, attempt: 1, error: 'x' });
    assert.equal(said.length, 10);
    await clock.advance(60_000);
    assert.equal(said[10], 'warnings.dead-letters-held-back{"path":"/d","count":15}');
  });

  it('a refusal is said with its client and, once read, the event id; it counts for the status too', () => {
    const { said, log } = setup();
    log.record(problem('unavailable', 'the event could not be queued: Redis is unreachable'), '10.0.0.5', 'm-9');
    log.record(problem('unauthorized', 'expected a Bearer token'), '10.0.0.6');
    assert.deepEqual(said, [
      'warnings.refused-event{"path":"/d","ip":"10.0.0.5","status":503,"reason":"the event could not be queued: Redis is unreachable","messageId":"m-9"}',
      'warnings.rejected{"path":"/d","ip":"10.0.0.6","status":401,"reason":"expected a Bearer token","messageId":""}',
    ]);
    assert.deepEqual([log.refusals.recent().refused, log.refusals.recent().rejected, log.refusals.recent().current.ip], [1, 1, '10.0.0.6']);
    log.accepted();
    assert.equal(log.refusals.recent().current, undefined);
  });

  it('a listener that cannot listen is said once; once closed, nothing more', async () => {
    const { clock, said, log, send } = setup();
    log.listenerFailed(8443);
    log.listenerFailed(8443);
    assert.deepEqual(said, ['warnings.listener-failed{"path":"/d","port":8443}']);
    send(2, { topic: 'dead-letter', attempt: 1, error: 'x' });
    for (let i = 0; i < 12; i++) send(2, { topic: 'dead-letter', attempt: 1, error: 'x' });
    log.close();
    await clock.advance(120_000);
    assert.equal(said.length, 11, 'no summary after close');
    assert.equal(clock.pending, 0);
  });
});
