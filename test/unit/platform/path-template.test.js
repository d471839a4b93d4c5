'use strict';
const assert = require('node:assert/strict');
const { fillPath, placeholders } = require('../../../dist/lib/platform/path-template');

describe('lib/platform/path-template', () => {
  const msg = { posId: 'pos 1/a', site: { id: 7 }, payload: { items: ['x'] }, empty: '' };
  const lookup = (name) =>
    name
      .split(/\.|\[(\d+)\]/)
      .filter(Boolean)
      .reduce((v, k) => (v == null ? undefined : v[k]), msg);

  it('fills placeholders from the message, URL-encoded', () => {
    assert.deepEqual(fillPath('/api/v2/pos/plugins/{posId}/events/batch', lookup), {
      ok: true,
      path: '/api/v2/pos/plugins/pos%201%2Fa/events/batch',
    });
    assert.deepEqual(fillPath('/sites/{site.id}/x/{payload.items[0]}', lookup), { ok: true, path: '/sites/7/x/x' });
    assert.deepEqual(fillPath('/api/v2/plain', lookup), { ok: true, path: '/api/v2/plain' });
  });

  it('names the first placeholder without a usable value', () => {
    assert.deepEqual(fillPath('/a/{nope}/{posId}', lookup), { ok: false, missing: 'nope' });
    assert.deepEqual(fillPath('/a/{empty}', lookup), { ok: false, missing: 'empty' });
    assert.deepEqual(fillPath('/a/{site}', lookup), { ok: false, missing: 'site' }, 'an object is not a path segment');
  });

  it('lists the placeholders of a template', () => {
    assert.deepEqual(placeholders('/x/{a}/{b.c}/{d[0]}/{ not one }'), ['a', 'b.c', 'd[0]']);
  });
});
