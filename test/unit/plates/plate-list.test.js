'use strict';
const assert = require('node:assert/strict');
const {
  DEFAULT_LOOKALIKES,
  NO_LOOKALIKES,
  compilePlateList,
  normalisePlate,
  parseLookalikeClasses,
  plateListCompilations,
  previewPlateEntry,
} = require('../../../dist/lib/plates');

/** The match of `read` against `entries` with `options` ({ lookalikes, extraMissing, classes, similar1Plate }). */
const match = (entries, read, options = {}, similar) => compilePlateList(entries, options).match(read, similar);
const ONE = { lookalikes: 1 };

describe('plates: the watch list', () => {
  describe('look-alikes', () => {
    const pairs = [
      ['0', 'O'],
      ['0', 'D'],
      ['0', 'Q'],
      ['O', 'D'],
      ['O', 'Q'],
      ['D', 'Q'],
      ['1', 'I'],
      ['2', 'Z'],
      ['5', 'S'],
      ['8', 'B'],
      ['6', 'G'],
    ];
    for (const [a, b] of pairs) {
      it(`${a} read as ${b} and ${b} read as ${a}, at any position`, () => {
        for (const [written, read] of [
          [a, b],
          [b, a],
        ]) {
          for (const at of [0, 3, 6]) {
            const entry = `XYZ7KM4`.slice(0, at) + written + `XYZ7KM4`.slice(at);
            const plate = entry.slice(0, at) + read + entry.slice(at + 1);
            const got = match([entry], plate, ONE);
            assert.ok(got, `${entry} accepts ${plate}`);
            assert.equal(got.kind, 'look-alike');
            assert.deepEqual(got.differences, [{ position: at + 1, entry: written, read, kind: 'look-alike' }]);
            assert.equal(got.score, 0.9);
            assert.equal(match([entry], plate), undefined, 'not with look-alikes off (the default)');
          }
        }
      });
    }

    it('the example of the issue: 8OB123 accepts 80B123 and BOB123 with one look-alike, not B0B123 (two)', () => {
      assert.equal(match(['8OB123'], '80B123', ONE).entry, '8OB123');
      assert.equal(match(['8OB123'], 'BOB123', ONE).entry, '8OB123');
      assert.equal(match(['8OB123'], 'B0B123', ONE), undefined);
      const two = match(['8OB123'], 'B0B123', { lookalikes: 2 });
      assert.equal(two.kind, 'look-alike');
      assert.equal(two.score, 0.8);
      assert.deepEqual(
        two.differences.map((d) => [d.position, d.entry, d.read]),
        [
          [1, '8', 'B'],
          [2, 'O', '0'],
        ],
      );
      assert.equal(match(['8OB123'], 'B0B12Z', { lookalikes: 2 }), undefined, 'three');
    });

    it('characters of different classes, or of none, never match', () => {
      assert.equal(match(['8OB123'], '8OB127', { lookalikes: 2, extraMissing: 2 }), undefined, '3 read as 7');
      assert.equal(match(['8OB123'], '5OB123', { lookalikes: 2 }), undefined, '8 and 5 are of different classes');
      assert.equal(match(['AB123'], 'AB1Z3', { lookalikes: 1, classes: NO_LOOKALIKES }), undefined, 'no classes at all');
    });

    it('custom classes replace the default ones', () => {
      const classes = parseLookalikeClasses('4A 7T').lookalikes;
      assert.equal(match(['74X1'], 'TAX1', { lookalikes: 2, classes }).score, 0.8);
      assert.equal(match(['8OB1'], 'BOB1', { lookalikes: 1, classes }), undefined, '8 and B are not look-alikes there');
    });

    it('ignores case, spaces and dashes on both sides; the entry and the read are kept as written', () => {
      const got = match(['8ob-123'], ' 80b 123', ONE);
      assert.equal(got.entry, '8ob-123');
      assert.equal(got.read, ' 80b 123');
      assert.deepEqual(got.differences, [{ position: 2, entry: 'O', read: '0', kind: 'look-alike' }]);
    });
  });

  describe('extra or missing characters', () => {
    it('only when allowed, up to the number allowed', () => {
      assert.equal(match(['8OB123'], '8OB1123', ONE), undefined, 'none allowed');
      assert.equal(match(['8OB123'], '8OB23', ONE), undefined, 'none allowed');
      const extra = match(['8OB123'], '8OB1123', { extraMissing: 1 });
      assert.equal(extra.kind, 'extra-missing');
      assert.equal(extra.score, 0.7);
      assert.deepEqual(extra.differences, [{ position: 4, entry: '', read: '1', kind: 'extra' }]);
      const missing = match(['8OB123'], '8OB13', { extraMissing: 1 });
      assert.deepEqual(missing.differences, [{ position: 5, entry: '2', read: '', kind: 'missing' }]);
      assert.equal(match(['8OB123'], '8OB11223', { extraMissing: 1 }), undefined, 'two extra');
      assert.equal(match(['8OB123'], '8OB11223', { extraMissing: 2 }).score, 0.4);
      assert.equal(match(['8OB123'], '8O3', { extraMissing: 2 }), undefined, 'three missing');
      assert.equal(match(['8OB123'], '8OB3', { extraMissing: 2 }).score, 0.4);
    });

    it('an extra character at the start and at the end: positions 1 and length + 1', () => {
      assert.deepEqual(match(['XYZ987'], 'AXYZ987', { extraMissing: 1 }).differences, [{ position: 1, entry: '', read: 'A', kind: 'extra' }]);
      assert.deepEqual(match(['XYZ987'], 'XYZ9876', { extraMissing: 1 }).differences, [{ position: 7, entry: '', read: '6', kind: 'extra' }]);
      assert.deepEqual(match(['XYZ987'], 'YZ987', { extraMissing: 1 }).differences, [{ position: 1, entry: 'X', read: '', kind: 'missing' }]);
    });

    it('with look-alikes: each counted against its own allowance', () => {
      const both = match(['8OB123'], '80B1234', { lookalikes: 1, extraMissing: 1 });
      assert.equal(both.kind, 'extra-missing');
      assert.equal(both.score, 0.6);
      assert.deepEqual(both.differences, [
        { position: 2, entry: 'O', read: '0', kind: 'look-alike' },
        { position: 7, entry: '', read: '4', kind: 'extra' },
      ]);
      assert.equal(match(['8OB123'], '80B1234', { extraMissing: 1 }), undefined, 'a look-alike without look-alikes allowed');
      assert.equal(match(['8OB123'], 'B0B1234', { lookalikes: 1, extraMissing: 1 }), undefined, 'two look-alikes');
    });

    it('an unrelated character is never one missing and one extra (1 read as 7)', () => {
      assert.equal(match(['AB1234'], 'AB7234', { extraMissing: 2 }), undefined);
      assert.equal(match(['AB1234'], 'XAB123', { extraMissing: 2 }), undefined, 'nor an extra at one end and a missing at the other');
    });
  });

  describe('which match wins', () => {
    it('exact over a look-alike, whatever the order of the list', () => {
      const got = match(['80B123', '8OB123'], '8OB123', ONE);
      assert.equal(got.entry, '8OB123');
      assert.equal(got.kind, 'exact');
      assert.equal(got.score, 1);
    });

    it('a look-alike over an extra character; between equals the entry first in the list', () => {
      assert.equal(match(['8OB1234', '80B123'], '8OB123', { lookalikes: 1, extraMissing: 1 }).entry, '80B123');
      assert.equal(match(['XYZ98', 'XYZ97'], 'XYZ9', { extraMissing: 1 }).entry, 'XYZ98');
      assert.equal(match(['XYZ97', 'XYZ98'], 'XYZ9', { extraMissing: 1 }).entry, 'XYZ97');
    });

    it('similar1Plate: exact there wins over a look-alike in the plate; the plate wins between equals; off when told', () => {
      const sim = match(['8OB123'], '80B123', ONE, '8OB 123');
      assert.equal(sim.kind, 'similar1Plate');
      assert.equal(sim.against, 'similar1Plate');
      assert.equal(sim.read, '8OB 123');
      assert.equal(sim.score, 0.95);
      const exact = match(['8OB123'], '8OB123', ONE, '80B123');
      assert.equal(exact.against, 'plate');
      assert.equal(exact.kind, 'exact');
      const lookalike = match(['8OB123'], '777777', ONE, '80B123');
      assert.equal(lookalike.against, 'similar1Plate');
      assert.equal(lookalike.kind, 'look-alike');
      assert.equal(lookalike.score, 0.85);
      const equal = match(['8OB123'], 'BOB123', ONE, '80B123');
      assert.equal(equal.against, 'plate', 'same score: the plate');
      assert.equal(match(['8OB123'], '777777', { ...ONE, similar1Plate: false }, '8OB123'), undefined);
      assert.equal(match(['8OB123'], null, {}, '8OB123').kind, 'similar1Plate', 'no plate, only the second guess');
    });

    it('scores: 1 − 0.1 per look-alike − 0.3 per extra or missing − 0.05 for similar1Plate; a better kind always scores higher', () => {
      const all = { lookalikes: 2, extraMissing: 2 };
      const cases = [
        ['ABC8O5', 'ABC8O5', undefined, 1],
        ['ABC8O5', '777777', 'ABC8O5', 0.95],
        ['ABC8O5', 'ABCBO5', undefined, 0.9],
        ['ABC8O5', 'ABCB05', undefined, 0.8],
        ['ABC8O5', '777777', 'ABCB05', 0.75],
        ['ABC8O5', 'ABC8O55', undefined, 0.7],
        ['ABC8O5', '777777', 'ABC8O55', 0.65],
        ['ABC8O5', 'ABCB055', undefined, 0.5],
        ['ABC8O5', 'ABC8', undefined, 0.4],
        ['ABC8O5', '777777', 'ABB0', 0.15],
      ];
      for (const [entry, read, similar, score] of cases) assert.equal(match([entry], read, all, similar).score, score, `${read} / ${similar}`);
    });
  });

  describe('the list', () => {
    it('leaves out entries empty once normalised; an empty list matches nothing', () => {
      const list = compilePlateList(['', ' - ', 'AB1'], ONE);
      assert.equal(list.size, 1);
      assert.equal(compilePlateList([], ONE).match('AB1'), undefined);
      assert.equal(list.match(''), undefined);
      assert.equal(list.match(' - '), undefined);
      assert.equal(list.match(null, null), undefined);
    });

    it('exact by default: what the plate rule always did', () => {
      const list = compilePlateList(['xyz-987']);
      assert.equal(list.match('XYZ 987').kind, 'exact');
      assert.equal(list.match('XYZ98'), undefined);
      assert.equal(list.match('XYZ9B7'), undefined);
    });

    it('plates in other scripts: exact, and with a missing character', () => {
      const got = match(['品川 300 あ 12-34'], '品川300あ1234', { extraMissing: 1 });
      assert.equal(got.kind, 'exact');
      const missing = match(['品川 300 あ 12-34'], '品川300 1234', { extraMissing: 1 });
      assert.deepEqual(missing.differences, [{ position: 6, entry: 'あ', read: '', kind: 'missing' }]);
    });

    it('counts its compilations (one per list, not per match)', () => {
      const before = plateListCompilations();
      const list = compilePlateList(['AB1', 'CD2'], ONE);
      for (let i = 0; i < 10; i++) list.match('AB1');
      assert.equal(plateListCompilations(), before + 1);
    });
  });

  describe('the index agrees with a scan of every entry (seeded random plates)', () => {
    /** A small seeded generator (mulberry32): the same plates on every run. */
    function random(seed) {
      let a = seed >>> 0;
      return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
    }
    // few characters, many of them look-alikes, short plates: near misses everywhere
    const ALPHABET = '0ODQ18B5S2Z7AX';

    /** The fewest look-alikes aligning entry and read with extras only (read longer) or missing only (shorter); -1: none. Written apart from the library, as a plain recursion. */
    function reference(entry, read, alike) {
      const memo = new Map();
      const go = (i, j) => {
        if (i === entry.length && j === read.length) return 0;
        const key = i * 100 + j;
        if (memo.has(key)) return memo.get(key);
        let best = Infinity;
        if (i < entry.length && j < read.length) {
          if (entry[i] === read[j]) best = go(i + 1, j + 1);
          else if (alike(entry[i], read[j])) best = 1 + go(i + 1, j + 1);
        }
        if (read.length > entry.length && j < read.length) best = Math.min(best, go(i, j + 1));
        if (read.length < entry.length && i < entry.length) best = Math.min(best, go(i + 1, j));
        memo.set(key, best);
        return best;
      };
      const cost = go(0, 0);
      return cost === Infinity ? -1 : cost;
    }

    /** The best match by trying every entry, in list order: [index, against, score] or undefined. */
    function scan(entries, plate, similar, { lookalikes, extraMissing }) {
      let best;
      const tryRead = (read, against) => {
        const r = normalisePlate(read);
        if (r === '') return;
        entries.forEach((text, index) => {
          const e = normalisePlate(text);
          if (e === '' || Math.abs(e.length - r.length) > extraMissing) return;
          const la = reference(e, r, (a, b) => DEFAULT_LOOKALIKES.alike(a, b));
          if (la < 0 || la > lookalikes) return;
          const score = 100 - 10 * la - 30 * Math.abs(e.length - r.length) - (against === 'similar1Plate' ? 5 : 0);
          if (!best || score > best[2]) best = [index, against, score];
        });
      };
      tryRead(plate, 'plate');
      if (similar !== undefined && normalisePlate(similar) !== normalisePlate(plate)) tryRead(similar, 'similar1Plate');
      return best;
    }

    for (const lookalikes of [0, 1, 2]) {
      for (const extraMissing of [0, 1, 2]) {
        it(`${lookalikes} look-alike(s), ${extraMissing} extra or missing`, () => {
          const next = random(1000 + lookalikes * 10 + extraMissing);
          const pick = (s) => s[Math.floor(next() * s.length)];
          const plateOf = () => Array.from({ length: 3 + Math.floor(next() * 4) }, () => pick(ALPHABET)).join('');
          const entries = Array.from({ length: 400 }, plateOf);
          /** A read made from an entry as readers get it wrong: look-alikes, extra, missing, unrelated characters. */
          const misread = (plate) => {
            const chars = [...plate];
            const edits = Math.floor(next() * 3);
            for (let k = 0; k < edits; k++) {
              const at = Math.floor(next() * chars.length);
              const what = next();
              if (what < 0.4) {
                const group = DEFAULT_LOOKALIKES.classes.find((g) => g.includes(chars[at]));
                if (group) chars[at] = pick(group);
              } else if (what < 0.6) chars.splice(at, 0, pick(ALPHABET));
              else if (what < 0.8 && chars.length > 1) chars.splice(at, 1);
              else chars[at] = pick(ALPHABET);
            }
            return chars.join('');
          };
          const options = { lookalikes, extraMissing };
          const list = compilePlateList(entries, options);
          let matched = 0;
          for (let i = 0; i < 600; i++) {
            const plate = next() < 0.85 ? misread(pick(entries)) : plateOf();
            const similar = next() < 0.3 ? misread(pick(entries)) : undefined;
            const got = list.match(plate, similar);
            const want = scan(entries, plate, similar, options);
            const where = `${plate}${similar ? ` / ${similar}` : ''}`;
            if (!want) {
              assert.equal(got, undefined, `${where}: no entry matches`);
              continue;
            }
            matched++;
            assert.ok(got, `${where}: matches ${entries[want[0]]}`);
            assert.deepEqual([got.entry, got.against, Math.round(got.score * 100)], [entries[want[0]], want[1], want[2]], where);
            // the differences are those of the score, each where the entry and the read say
            const la = got.differences.filter((d) => d.kind === 'look-alike').length;
            const em = got.differences.length - la;
            assert.equal(100 - 10 * la - 30 * em - (got.against === 'similar1Plate' ? 5 : 0), want[2], `${where}: differences`);
            const e = normalisePlate(got.entry);
            for (const d of got.differences) if (d.kind !== 'extra') assert.equal(e[d.position - 1], d.entry, `${where}: position ${d.position}`);
          }
          assert.ok(matched > 100, `enough reads match to mean something (${matched})`);
        });
      }
    }
  });

  describe('the preview of an entry', () => {
    const reads = (examples) => examples.map((x) => (x.similar1Plate ? `${x.plate}/${x.similar1Plate}` : x.plate));

    it('8OB123 with one look-alike: each position with a look-alike accepted; two look-alikes, extra, missing and unrelated refused', () => {
      const p = previewPlateEntry('8OB-123', { lookalikes: 1, extraMissing: 0 });
      assert.equal(p.entry, '8OB123');
      assert.deepEqual(reads(p.accepted), ['8OB123', 'BOB123', '80B123', '8O8123', '8OBI23', '8OB1Z3', '777777/8OB123']);
      assert.deepEqual(reads(p.refused), ['B0B123', '8OB1123', '8OB23', '8OB127']);
      assert.deepEqual(
        p.accepted.map((x) => x.match.kind),
        ['exact', 'look-alike', 'look-alike', 'look-alike', 'look-alike', 'look-alike', 'similar1Plate'],
      );
      assert.equal(p.refused[0].change.lookalikes, 2);
      assert.equal(p.refused[3].change.unrelated, 1);
    });

    it('with extra and missing characters allowed, and similar1Plate off', () => {
      const p = previewPlateEntry('8OB123', { lookalikes: 1, extraMissing: 1, similar1Plate: false });
      assert.ok(reads(p.accepted).includes('8OB1123'));
      assert.ok(reads(p.accepted).includes('8OB23'));
      assert.ok(reads(p.accepted).includes('BOB1233'), 'a look-alike and an extra character');
      assert.ok(reads(p.refused).includes('8OB11123'), 'two extra');
      assert.ok(reads(p.refused).includes('777777/8OB123'), 'similar1Plate does not count');
    });

    it('exact: one look-alike example, refused', () => {
      const p = previewPlateEntry('8OB123', { lookalikes: 0 });
      assert.deepEqual(reads(p.accepted), ['8OB123', '777777/8OB123']);
      assert.deepEqual(reads(p.refused), ['BOB123', '8OB1123', '8OB23', '8OB127']);
    });

    it('an empty entry has no examples', () => {
      assert.deepEqual(previewPlateEntry(' - ', ONE), { entry: '', accepted: [], refused: [] });
    });
  });
});
