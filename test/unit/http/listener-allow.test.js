'use strict';
/** lib/http/listener-allow: the CIDR allow-list of a receiver's own door. */
const assert = require('node:assert/strict');
const { allowListProblem, parseAllowList, splitAllowList } = require('../../../dist/lib/http/listener-allow');

describe('lib/http/listener-allow', () => {
  it('splits entries on commas, spaces and new lines, without comments', () => {
    assert.deepEqual(splitAllowList('10.0.0.0/8, 192.168.1.5\n fd00::/8 # lab\n\n'), ['10.0.0.0/8', '192.168.1.5', 'fd00::/8']);
  });

  it('names the first entry that is not an address or range, and why', () => {
    assert.equal(allowListProblem('10.0.0.0/8, ::1, 2001:db8::/32'), undefined);
    assert.deepEqual(allowListProblem('10.0.0.0/8, 10.0.0.300'), { entry: '10.0.0.300', reason: 'address' });
    assert.deepEqual(allowListProblem('camera-1'), { entry: 'camera-1', reason: 'address' });
    assert.deepEqual(allowListProblem('10.0.0.0/33'), { entry: '10.0.0.0/33', reason: 'prefix' });
    assert.deepEqual(allowListProblem('fd00::/129'), { entry: 'fd00::/129', reason: 'prefix' });
    assert.deepEqual(allowListProblem('10.0.0.0/8/1'), { entry: '10.0.0.0/8/1', reason: 'address' });
    assert.deepEqual(allowListProblem('::ffff:10.0.0.0/8'), { entry: '::ffff:10.0.0.0/8', reason: 'prefix' });
    assert.throws(() => parseAllowList('nope'), /"nope" is not an IPv4 or IPv6 address/);
  });

  it('matches IPv4 and IPv6 ranges and single addresses', () => {
    const list = parseAllowList('10.0.0.0/8, 192.168.1.5, 2001:db8::/32');
    assert.equal(list.allows('10.200.3.4'), true);
    assert.equal(list.allows('11.0.0.1'), false);
    assert.equal(list.allows('192.168.1.5'), true);
    assert.equal(list.allows('192.168.1.6'), false);
    assert.equal(list.allows('2001:db8:1::5'), true);
    assert.equal(list.allows('2001:db9::5'), false);
    assert.equal(list.allows(undefined), false);
    assert.equal(list.allows('not an address'), false);
  });

  it('matches an IPv4-mapped client as its IPv4 address, and a range written mapped', () => {
    const list = parseAllowList('10.0.0.0/8');
    assert.equal(list.allows('::ffff:10.1.2.3'), true);
    assert.equal(list.allows('::FFFF:127.0.0.1'), false);
    const mapped = parseAllowList('::ffff:192.168.0.0/112');
    assert.equal(mapped.allows('192.168.7.7'), true);
    assert.equal(mapped.allows('::ffff:192.168.7.7'), true);
    assert.equal(mapped.allows('192.169.0.1'), false);
  });

  it('allows every address when empty', () => {
    assert.equal(parseAllowList(' \n').allows('203.0.113.9'), true);
  });
});
