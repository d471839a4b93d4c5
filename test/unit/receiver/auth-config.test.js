'use strict';
/** lib/receiver/auth-config: the modes, the credentials each needs (the receiver's dialog asks for exactly these). */
const assert = require('node:assert/strict');
const { AUTH_CREDENTIALS, AUTH_MODES, authConfigProblem, HEADER_NAME } = require('../../../dist/lib/receiver/auth-config');
const auth = require('../../../dist/lib/receiver/auth');

describe('lib/receiver/auth-config', () => {
  it('each mode needs exactly its credentials: with them it runs, without any one of them it does not', () => {
    const all = { user: 'u', password: 'p', token: 't', headerValue: 'v' };
    assert.deepEqual(Object.keys(AUTH_CREDENTIALS).sort(), [...AUTH_MODES].sort());
    for (const mode of AUTH_MODES) {
      const config = { mode, headerName: 'X-Key', ...all };
      assert.equal(authConfigProblem(config), null, mode);
      for (const name of Object.keys(all))
        assert.equal(authConfigProblem({ ...config, [name]: '' }) !== null, AUTH_CREDENTIALS[mode].includes(name), `${mode} without ${name}`);
    }
  });

  it('a header name is an HTTP token', () => {
    assert.ok(HEADER_NAME.test("X-Key_1!#$%&'*+.^`|~"));
    for (const bad of ['X Key', 'X:Key', '', 'Ä']) assert.ok(!HEADER_NAME.test(bad), bad);
    assert.deepEqual(authConfigProblem({ mode: 'header', headerName: 'X Key', headerValue: 'v' }), { key: 'auth.header-name' });
  });

  it('lib/receiver/auth answers with the same rules', () => {
    assert.equal(auth.authConfigProblem, authConfigProblem);
    assert.equal(auth.AUTH_MODES, AUTH_MODES);
    assert.equal(auth.HEADER_NAME, HEADER_NAME);
  });
});
