'use strict';
/**
 * lib/http/agent.ts: the agent of a client that calls one server. Its certificate check, against a real
 * HTTPS server on 127.0.0.1 with a self-signed certificate: refused by default, accepted when insecure
 * or when that certificate is given as the CA.
 */
const assert = require('node:assert/strict');
const https = require('node:https');
const { request } = require('undici');
const { createServerAgent, positive } = require('../../../dist/lib/http/agent');
const { createSelfSignedCertificate } = require('../../../dist/lib/http/self-signed');

describe('lib/http/agent', function () {
  this.timeout(30000);
  let server;
  let url;
  let cert;

  before(async () => {
    cert = createSelfSignedCertificate({ names: ['127.0.0.1'] });
    server = https.createServer({ key: cert.key, cert: cert.cert }, (req, res) => res.end('ok'));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${server.address().port}/`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const get = async (options) => {
    const agent = createServerAgent({ timeoutMs: 5000, ...options });
    try {
      const res = await request(url, { dispatcher: agent });
      return await res.body.text();
    } finally {
      await agent.close();
    }
  };

  it('refuses a self-signed server by default', async () => {
    await assert.rejects(get({}), (err) => /self[- ]signed|certificate/i.test(`${err.code} ${err.message}`));
  });

  it('accepts it when insecure, or when its certificate is the CA added', async () => {
    assert.equal(await get({ insecure: true }), 'ok');
    assert.equal(await get({ ca: cert.cert }), 'ok');
  });

  it('positive: a finite number above 0, else the fallback', () => {
    assert.equal(positive(5, 1), 5);
    assert.equal(positive(0.5, 1), 0.5);
    for (const bad of [0, -1, Number.NaN, Infinity, undefined, '5']) assert.equal(positive(bad, 7), 7, String(bad));
  });
});
