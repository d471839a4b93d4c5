'use strict';
/** lib/events/tag-prefix.ts: the prefix a node uses (its own, else its events bridge's) and tag names without it. */
const assert = require('node:assert/strict');
const { chooseTagPrefix, withoutTagPrefix, normaliseTagPrefix, tagKey } = require('../../../dist/lib/events/tag-prefix');

describe('tag prefix', function () {
  it('withoutTagPrefix takes the prefix off in any case and keeps the name as spelled', () => {
    assert.equal(withoutTagPrefix('partner-Banned', 'partner'), 'Banned');
    assert.equal(withoutTagPrefix('PARTNER-Banned', 'partner'), 'Banned');
    assert.equal(withoutTagPrefix('Banned', 'partner'), 'Banned');
    assert.equal(withoutTagPrefix('partner-', 'partner'), 'partner-', 'a name that is only the prefix stays');
    assert.equal(withoutTagPrefix(' partner-VIP ', ''), 'partner-VIP', 'no prefix: as written, trimmed');
    // the same names tagKey compares, unfolded
    for (const name of ['partner-Banned', 'Other-x', 'partner-'])
      assert.equal(withoutTagPrefix(name, 'partner').toLowerCase(), tagKey(name, 'partner'));
  });

  it("chooseTagPrefix: the node's own, else its bridge's, else none; or why not", () => {
    const asked = [];
    const bridge = (answer) => (id) => {
      asked.push(id);
      return answer;
    };
    assert.equal(chooseTagPrefix('acme-', 'b1', bridge('other')), 'acme', 'its own wins, normalised');
    assert.deepEqual(asked, [], 'the bridge is not asked when the node has its own');
    assert.equal(chooseTagPrefix('', 'b1', bridge('other')), 'other');
    assert.deepEqual(asked, ['b1']);
    assert.equal(chooseTagPrefix('', '', bridge('x')), '');
    assert.equal(chooseTagPrefix(undefined, '_ADD_', bridge('x')), '', '_ADD_ is no bridge');
    assert.deepEqual(chooseTagPrefix('a b', '', bridge('x')), { problem: 'own' });
    assert.deepEqual(chooseTagPrefix('', 'gone', bridge(undefined)), { problem: 'no-bridge' });
    assert.deepEqual(chooseTagPrefix('', 'b1', bridge(new Error('bad prefix'))), { problem: 'bridge', message: 'bad prefix' });
    assert.equal(normaliseTagPrefix('acme-'), 'acme');
  });
});
