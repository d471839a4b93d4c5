'use strict';
/** lib/platform/fields.ts: reading answers whose field names the spec does not fix. */
const assert = require('node:assert/strict');
const { isRecord, pick } = require('../../../dist/lib/platform/fields');

const text = (v) => (typeof v === 'string' && v ? v : undefined);

describe('lib/platform/fields', () => {
  it('isRecord: a plain object, not an array or null', () => {
    assert.equal(isRecord({}), true);
    assert.equal(isRecord({ a: 1 }), true);
    for (const no of [null, undefined, [], 'x', 1]) assert.equal(isRecord(no), false, String(no));
  });

  it('pick: the first of the keys, in their order, whose value is acceptable', () => {
    const answer = { token: '', accessToken: 'A', access_token: 'B' };
    assert.deepEqual(pick(answer, ['token', 'accessToken', 'access_token'], text), ['accessToken', 'A']);
    assert.deepEqual(pick(answer, ['access_token', 'accessToken'], text), ['access_token', 'B']);
    assert.equal(pick(answer, ['token', 'jwt'], text), undefined);
  });

  it('pick: takes what accept turns the value into', () => {
    assert.deepEqual(
      pick({ expiresIn: '3600' }, ['expires', 'expiresIn'], (v) => (Number(v) > 0 ? Number(v) : undefined)),
      ['expiresIn', 3600],
    );
  });
});
