'use strict';
/** lib/events/filter-rules: a rule as saved, its check and its summary (the filter dialog runs this file too). */
const assert = require('node:assert/strict');
const { ruleConfigProblem, ruleSummary, summaryLine, RULE_TYPES } = require('../../../dist/lib/events/filter-rules');
const { compileFilter } = require('../../../dist/lib/events/filter');
const { renderMessage, translateEnglish } = require('../../../dist/lib/core/messages');

const reason = (rule) => {
  const problem = ruleConfigProblem(rule);
  return problem && problem.key.replace(/^filter\.problem\./, '');
};
const none = { lookalikes: 0, extraMissing: 0 };

describe('lib/events/filter-rules', () => {
  it("says what keeps a rule from working, lib's message for each", () => {
    assert.equal(reason({}), 'type-missing');
    assert.equal(reason({ t: 'nope' }), 'type');
    assert.equal(reason({ t: 'kind', v: 'car' }), 'kind');
    assert.equal(reason({ t: 'camera', v: ' , ' }), 'camera-empty');
    assert.equal(reason({ t: 'tag', v: 'vip', vt: 'env' }), 'source');
    assert.equal(reason({ t: 'site', v: ' ', vt: 'flow' }), 'property');
    assert.equal(reason({ t: 'camera-match', v: ' ' }), 'pattern');
    assert.equal(reason({ t: 'name', v: '' }), 'name');
    assert.equal(reason({ t: 'confidence', v: '' }), 'confidence-empty');
    assert.equal(reason({ t: 'confidence', v: '80' }), 'confidence');
    assert.equal(reason({ t: 'context', k: '', v: 'x' }), 'context-key');
    assert.equal(reason({ t: 'time', v: 'Mon 22:00-06:00', k: 'never' }), 'time-kind');
    assert.equal(reason({ t: 'time', v: 'x', vt: 'file' }), 'time-source');
    assert.equal(reason({ t: 'time', v: '', vt: 'msg' }), 'time-property');
    assert.equal(reason({ t: 'time', v: ' ', vt: 'env' }), 'time-env-name');
    assert.match(ruleConfigProblem({ t: 'time', v: '25:00-06:00' }).key, /^time\./, "a window's own problem");
    for (const ok of [
      { t: 'enrolled' },
      { t: 'kind', v: 'lpr' },
      { t: 'tag', v: 'a, b' },
      { t: 'time', v: 'NIGHT', vt: 'env' },
      { t: 'confidence', v: ' 1 ' },
    ])
      assert.equal(ruleConfigProblem(ok), undefined, JSON.stringify(ok));
  });

  it('a rule that passes compiles, one that does not is the problem the filter reports', () => {
    const rules = RULE_TYPES.flatMap((t) => [{ t }, { t, v: 'Gate 2' }, { t, v: '0.5', k: 'key' }, { t, v: 'face' }]);
    for (const rule of rules) {
      const compiled = compileFilter([rule], 'all', { env: () => 'Mon 22:00-06:00' });
      const problem = ruleConfigProblem(rule);
      assert.equal(compiled.ok, problem === undefined, JSON.stringify(rule));
      if (problem) assert.equal(renderMessage(compiled.problems[0]), `rule 1: ${renderMessage(problem)}`);
    }
  });

  it('sums rules up in one line, urgent marked, cut at 40', () => {
    const line = (rules, combine = 'all', plates = none) =>
      summaryLine(
        rules.map((r) => ruleSummary(r, plates)),
        combine,
        translateEnglish,
      );
    assert.equal(
      line([
        { t: 'tag', v: 'VIP, Banned' },
        { t: 'camera', v: 'Gate 2' },
      ]),
      'tag VIP, Banned · camera Gate 2',
    );
    assert.equal(
      line(
        [
          { t: 'kind', v: 'face' },
          { t: 'site', v: 'sites', vt: 'flow' },
        ],
        'any',
      ),
      'face or site flow.sites',
    );
    assert.equal(line([{ t: 'plate', v: '8OB123' }], 'all', { lookalikes: 1, extraMissing: 2 }), 'plate 8OB123 (~1 ±2)');
    assert.equal(line([{ t: 'time', v: 'Mon-Fri 22:00-06:00', k: 'outside', u: true }]), '!outside Mon–Fri 22:00–06:00');
    assert.equal(line([{ t: 'time', v: 'NIGHT', vt: 'env' }]), 'time env.NIGHT');
    assert.equal(line([]), 'every event');
    assert.equal(
      line([{ t: 'name', v: 'a very long part of a name that goes on' }, { t: 'enrolled' }]),
      'name has a very long part of a name tha…',
      '39 characters and …',
    );
  });
});
