'use strict';
const assert = require('node:assert/strict');
const { reachableAddresses, webhookBase } = require('../../../dist/lib/http/addresses');

const lo = [
  { address: '127.0.0.1', family: 'IPv4', internal: true },
  { address: '::1', family: 'IPv6', internal: true },
];

describe('lib/http/addresses', () => {
  it('offers the non-internal addresses, IPv4 first, without IPv6 link-local ones', () => {
    const found = reachableAddresses({
      lo,
      eth0: [
        { address: 'fd00::20', family: 'IPv6', internal: false },
        { address: 'fe80::1', family: 'IPv6', internal: false },
        { address: '192.168.1.20', family: 'IPv4', internal: false },
      ],
      wlan0: [{ address: '10.0.0.5', family: 'IPv4', internal: false }],
    });
    assert.deepEqual(found, { addresses: ['192.168.1.20', '10.0.0.5', 'fd00::20'], loopbackOnly: false, localOnly: false });
  });

  it('falls back to 127.0.0.1, flagged, when only loopback interfaces exist', () => {
    assert.deepEqual(reachableAddresses({ lo }), { addresses: ['127.0.0.1'], loopbackOnly: true, localOnly: false });
    assert.deepEqual(reachableAddresses({}), { addresses: ['127.0.0.1'], loopbackOnly: true, localOnly: false });
  });

  it('a server listening on one address (uiHost) is reached there only; on a loopback one, it says so', () => {
    const eth0 = [{ address: '192.168.1.20', family: 'IPv4', internal: false }];
    assert.deepEqual(reachableAddresses({ lo, eth0 }, '10.1.2.3'), { addresses: ['10.1.2.3'], loopbackOnly: false, localOnly: false });
    assert.deepEqual(reachableAddresses({ lo, eth0 }, '0.0.0.0').addresses, ['192.168.1.20']);
    assert.deepEqual(reachableAddresses({ lo, eth0 }, '::').addresses, ['192.168.1.20']);
    assert.deepEqual(reachableAddresses({ lo, eth0 }, '127.0.0.1'), { addresses: ['192.168.1.20'], loopbackOnly: false, localOnly: true });
    assert.deepEqual(reachableAddresses({ lo }, '127.0.0.1'), { addresses: ['127.0.0.1'], loopbackOnly: true, localOnly: true });
  });

  it('joins scheme, host and port: IPv6 in brackets, the default port left out', () => {
    assert.equal(webhookBase({ https: false, address: '192.168.1.20', port: 1880 }), 'http://192.168.1.20:1880');
    assert.equal(webhookBase({ https: true, address: 'fd00::20', port: 1880 }), 'https://[fd00::20]:1880');
    assert.equal(webhookBase({ https: true, address: '10.0.0.5', port: 443 }), 'https://10.0.0.5');
    assert.equal(webhookBase({ https: false, address: '10.0.0.5', port: 80 }), 'http://10.0.0.5');
  });
});
