'use strict';
/** lib/platform/push-errors.ts: the push queue's failures: their codes, catalog keys, whether they may be retried, and their texts. */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { pushErrors } = require('../../../dist/lib/platform/push-errors');
const { ROOT } = require('../../support');

const shared = JSON.parse(fs.readFileSync(path.join(ROOT, 'locales', 'en-US', 'shared.json'), 'utf8'));
const inCatalog = (key) => key.split('.').reduce((node, part) => node?.[part], shared);

describe('lib/platform/push-errors', () => {
  const made = {
    refused: pushErrors.refused('/api/v2/items'),
    queueFull: pushErrors.queueFull('/api/v2/items', 990, 20, 1000),
    send: pushErrors.send('/api/v2/items', 20, 3, new Error('socket hang up'), true),
    status: pushErrors.status('/api/v2/items', 20, 1, 400, { title: 'Bad Request' }),
    closedInFlight: pushErrors.closedInFlight('/api/v2/items', 20, 2),
    closedUnsent: pushErrors.closedUnsent('/api/v2/items', 7),
  };

  it('each has its ERR_PUSH_ code and a key the en-US catalog has', () => {
    const codes = Object.fromEntries(Object.entries(made).map(([name, err]) => [name, err.code]));
    assert.deepEqual(codes, {
      refused: 'ERR_PUSH_CLOSED',
      queueFull: 'ERR_PUSH_QUEUE_FULL',
      send: 'ERR_PUSH_SEND',
      status: 'ERR_PUSH_STATUS',
      closedInFlight: 'ERR_PUSH_CLOSED',
      closedUnsent: 'ERR_PUSH_CLOSED',
    });
    for (const [name, err] of Object.entries(made)) {
      assert.equal(typeof inCatalog(err.key), 'string', `${name}: ${err.key}`);
      assert.ok(!err.message.includes('__'), `${name}: every placeholder filled: ${err.message}`);
    }
    assert.notEqual(made.closedInFlight.key, made.closedUnsent.key, 'the two closings say different things');
  });

  it('says what may be sent again: a full queue and (as told) a failed send, not a closed queue', () => {
    assert.equal(made.queueFull.retryable, true);
    assert.equal(made.send.retryable, true);
    assert.equal(pushErrors.send('/p', 1, 1, new Error('bug'), false).retryable, false);
    assert.equal(made.refused.retryable, false);
    assert.equal(made.closedInFlight.retryable, false);
    assert.equal(made.closedUnsent.retryable, false);
  });

  it('keeps what happened: the cause of a send, the status and body of an answer, the attempts', () => {
    assert.equal(made.send.cause.message, 'socket hang up');
    assert.match(made.send.message, /socket hang up/);
    assert.match(made.send.message, /3 attempts/);
    assert.equal(made.status.status, 400);
    assert.deepEqual(made.status.body, { title: 'Bad Request' });
    assert.equal(made.status.attempts, 1);
    assert.match(made.status.message, /1 attempt\b/);
  });
});
