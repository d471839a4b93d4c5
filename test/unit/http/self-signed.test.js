'use strict';
/** lib/http/self-signed: the certificate a listener keeps in the user directory. */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { keptCertificate } = require('../../../dist/lib/http/self-signed');

describe('lib/http/self-signed: keptCertificate', () => {
  let dir;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'listener-cert-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('makes one, keeps it (key readable by the owner only), and gives the same one back', () => {
    const first = keptCertificate(dir, { names: ['localhost', '127.0.0.1'] });
    assert.equal(first.created, true);
    assert.match(first.fingerprint256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    if (process.platform !== 'win32') assert.equal(fs.statSync(path.join(dir, 'key.pem')).mode & 0o077, 0);
    const again = keptCertificate(dir, { names: ['localhost', '127.0.0.1'] });
    assert.equal(again.created, false);
    assert.equal(again.fingerprint256, first.fingerprint256);
    assert.deepEqual(again.names, ['localhost', '127.0.0.1']);
    assert.ok(again.validTo.getTime() > Date.now() + 3000 * 86_400_000, 'valid for about ten years');
  });

  it('makes a new one when the kept one is unreadable, or about to expire', () => {
    const first = keptCertificate(dir);
    fs.writeFileSync(path.join(dir, 'cert.pem'), 'garbage');
    const replaced = keptCertificate(dir);
    assert.equal(replaced.created, true);
    assert.notEqual(replaced.fingerprint256, first.fingerprint256);
    const later = new Date(replaced.validTo.getTime() - 10 * 86_400_000);
    const renewed = keptCertificate(dir, { now: later });
    assert.equal(renewed.created, true);
  });
});
