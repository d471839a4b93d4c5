'use strict';
/** sim/tls: how `send` trusts a receiver's certificate (insecure, CA, pinned fingerprint), over real HTTPS on 127.0.0.1. */
const assert = require('node:assert/strict');
const https = require('node:https');
const { Agent, request } = require('undici');
const { connectFor, normalizeFingerprint, createSelfSignedCertificate } = require('../../../dist/sim/tls');

describe('sim/tls', () => {
  let server;
  let url;
  const made = createSelfSignedCertificate({ names: ['127.0.0.1'] });
  before(async () => {
    server = https.createServer({ cert: made.cert, key: made.key }, (_req, res) => res.end('ok'));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${server.address().port}/`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  async function statusWith(trust) {
    const agent = new Agent({ connect: connectFor(trust) });
    try {
      const res = await request(url, { dispatcher: agent });
      await res.body.text();
      return res.statusCode;
    } finally {
      await agent.close();
    }
  }

  it('reads a fingerprint however it is written', () => {
    const hex = made.fingerprint256.replace(/:/g, '');
    assert.equal(normalizeFingerprint(hex.toLowerCase()), made.fingerprint256);
    assert.equal(normalizeFingerprint(`SHA256:${made.fingerprint256}`), made.fingerprint256);
    assert.equal(normalizeFingerprint('AB:CD'), undefined);
  });

  it('refuses the self-signed certificate by default, accepts it insecure, with it as CA, or pinned', async () => {
    await assert.rejects(statusWith({}), /self.signed|verify/i);
    assert.equal(await statusWith({ insecure: true }), 200);
    assert.equal(await statusWith({ ca: made.cert }), 200);
    assert.equal(await statusWith({ fingerprint: made.fingerprint256 }), 200);
  });

  it('a pinned fingerprint that does not match is refused, even with --insecure', async () => {
    const other = createSelfSignedCertificate({ names: ['127.0.0.1'] }).fingerprint256;
    await assert.rejects(statusWith({ fingerprint: other, insecure: true }), (err) =>
      /is not the pinned/.test(`${err.message} ${err.cause?.message}`),
    );
    assert.throws(() => connectFor({ fingerprint: 'nope' }), /not a SHA-256 fingerprint/);
  });
});
