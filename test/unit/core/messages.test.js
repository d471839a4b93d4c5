'use strict';
/** lib/core/messages.ts: a text is a catalog key and its parameters, rendered from the en-US catalog as Node-RED's i18next would. */
const assert = require('node:assert/strict');
const { translateEnglish, renderMessage, isMessage, message, MessageError } = require('../../../dist/lib/core/messages');

describe('lib/core/messages', () => {
  it('translateEnglish fills __placeholders__ and leaves one without a value as written', () => {
    assert.equal(translateEnglish('transport.net.other', { message: 'boom', code: 'EX' }), 'boom (EX)');
    assert.equal(translateEnglish('transport.net.other', { code: 'EX' }), '__message__ (EX)');
  });

  it('translateEnglish picks the _plural form for a count other than 1, and answers a missing key with the key', () => {
    assert.equal(translateEnglish('transport.push.attempts', { count: 1 }), '1 attempt');
    assert.equal(translateEnglish('transport.push.attempts', { count: 3 }), '3 attempts');
    assert.equal(translateEnglish('transport.push.attempts', { count: 0 }), '0 attempts');
    assert.equal(translateEnglish('no.such.key'), 'no.such.key');
    assert.equal(translateEnglish('transport.push'), 'transport.push', 'a branch of the catalog is not a text');
  });

  it('renderMessage renders nested messages first', () => {
    const attempts = message('transport.push.attempts', { count: 2 });
    assert.equal(renderMessage(message('transport.net.other', { message: attempts, code: 'X' })), '2 attempts (X)');
    const shout = (key, params) => `${key.toUpperCase()}:${JSON.stringify(params)}`;
    assert.equal(renderMessage(message('a.b', { n: attempts }), shout), 'A.B:{"n":"TRANSPORT.PUSH.ATTEMPTS:{\\"count\\":2}"}');
  });

  it('message and isMessage', () => {
    assert.deepEqual(message('k'), { key: 'k' });
    assert.deepEqual(message('k', { a: 1 }), { key: 'k', params: { a: 1 } });
    assert.equal(isMessage({ key: 'k' }), true);
    for (const no of [null, 'k', { key: 1 }, {}]) assert.equal(isMessage(no), false, JSON.stringify(no));
  });

  it('MessageError is an Error and a Message, its message the en-US text', () => {
    const cause = new Error('root');
    const err = new MessageError('transport.net.other', { message: 'boom', code: 'EX' }, { cause });
    assert.ok(err instanceof Error);
    assert.equal(isMessage(err), true);
    assert.equal(err.message, 'boom (EX)');
    assert.equal(err.cause, cause);
  });
});
