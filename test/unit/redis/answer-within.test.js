'use strict';
/** lib/redis/answer-within.ts: a Redis answer, or a rejection once the limit has passed. */
const assert = require('node:assert/strict');
const { answerWithin } = require('../../../dist/lib/redis/answer-within');

describe('lib/redis/answer-within', () => {
  it('no limit (0 or less): the promise itself', () => {
    const p = Promise.resolve(1);
    assert.equal(answerWithin(p, 0), p);
    assert.equal(answerWithin(p, -5), p);
  });

  it('an answer in time, or its failure, passes through', async () => {
    assert.equal(await answerWithin(Promise.resolve('OK'), 60000), 'OK');
    await assert.rejects(answerWithin(Promise.reject(new Error('WRONGTYPE')), 60000), /WRONGTYPE/);
  });

  it('no answer: rejected with the error of `late`, given the limit', async () => {
    const never = new Promise(() => {});
    await assert.rejects(answerWithin(never, 5), /Redis did not answer within 5 ms/);
    await assert.rejects(
      answerWithin(never, 5, (ms) => new Error(`late after ${ms}`)),
      /late after 5/,
    );
  });
});
