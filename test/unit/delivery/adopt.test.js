'use strict';
/** lib/delivery/adopt.ts: a store adopting what another left unfinished takes each event as a new one. */
const assert = require('node:assert/strict');
const { takeEach } = require('../../../dist/lib/delivery/adopt');

/** A store that stages in memory: refuses meta.refuse, absorbs a copy of a body it holds, fails a commit of meta.lost. */
function store() {
  const held = new Map();
  let next = 1;
  return {
    held,
    stage(meta, body) {
      if (meta.refuse) throw new Error('past the bound');
      const key = body?.toString();
      const absorbed = held.has(key);
      return {
        absorbed,
        async commit(commitMeta, event) {
          if (commitMeta.lost) throw new Error('store unreachable');
          if (absorbed) return held.get(key).id;
          const id = next++;
          held.set(key, { id, meta: commitMeta, event });
          return id;
        },
      };
    },
  };
}
const record = (id, body, meta = {}) => ({ id, meta, body: Buffer.from(body), event: { body } });

describe('lib/delivery/adopt', () => {
  it('takes each record through stage and commit, in order, with its new id', async () => {
    const s = store();
    const taken = await takeEach(s, [record(10, 'a'), record(11, 'b')]);
    assert.deepEqual(
      taken.map(({ record: r, id }) => [r.id, id]),
      [
        [10, 1],
        [11, 2],
      ],
    );
    assert.deepEqual(s.held.get('b').event, { body: 'b' }, 'the event is committed with it');
  });

  it('drops one refused or lost, and does not take twice a copy of an event held already', async () => {
    const s = store();
    await takeEach(s, [record(1, 'a')]);
    const taken = await takeEach(s, [record(2, 'b', { refuse: true }), record(3, 'a'), record(4, 'c', { lost: true }), record(5, 'd')]);
    assert.deepEqual(
      taken.map(({ record: r }) => r.id),
      [5],
    );
    assert.deepEqual([...s.held.keys()], ['a', 'd']);
  });
});
