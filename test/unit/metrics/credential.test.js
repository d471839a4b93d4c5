'use strict';
const assert = require('node:assert/strict');
const { checkCredential, hasCredential } = require('../../../dist/lib/metrics');

const basic = (user, password) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

describe('lib/metrics credential', () => {
  it('a token, or a user with a password, is a credential; a user alone is not', () => {
    assert.equal(hasCredential({}), false);
    assert.equal(hasCredential({ user: 'u' }), false);
    assert.equal(hasCredential({ token: 't' }), true);
    assert.equal(hasCredential({ user: 'u', password: 'p' }), true);
  });

  it('accepts either form when both are set, and challenges with both otherwise', () => {
    const both = { token: 'secret', user: 'prom', password: 'pw' };
    assert.deepEqual(checkCredential(both, { authorization: 'Bearer secret' }, 'm'), { ok: true });
    assert.deepEqual(checkCredential(both, basic('prom', 'pw'), 'm'), { ok: true });
    const refused = checkCredential(both, basic('prom', 'wrong'), 'm');
    assert.equal(refused.ok, false);
    assert.match(refused.challenge, /^Bearer realm="m", Basic realm="m"/);
    assert.equal(checkCredential({ token: 'secret' }, basic('prom', 'pw'), 'm').ok, false);
    assert.equal(checkCredential({ token: 'secret' }, {}, 'm').ok, false);
  });
});
