'use strict';
const assert = require('node:assert/strict');
const { checkOption, optionValue, readOption, numberRule, choiceRule, flagRule, toNumber } = require('../../../dist/lib/core/option-rules');
const { numberOption, choiceOption, flagOption, limitOption, caOption } = require('../../../dist/lib/core/options');

describe('lib/core/option-rules', function () {
  const seconds = numberRule({ above: 0, max: 60, default: 30 });
  const count = numberRule({ integer: true, min: 1, default: 10 });
  const database = numberRule({ integer: true, min: 0, max: 10, default: '', optional: true });
  const mode = choiceRule(['a', 'b'], { default: 'b', absent: 'a' });
  const flag = flagRule({ default: true });

  it('reads number text as the number, trimmed; other text, blank text and null are no number', () => {
    assert.equal(toNumber(' 5 '), 5);
    assert.equal(toNumber('1e3'), 1000);
    assert.equal(toNumber('.5'), 0.5);
    assert.equal(toNumber(''), undefined);
    assert.equal(toNumber('  '), undefined);
    assert.equal(toNumber(null), undefined);
    assert.equal(toNumber('5 5'), '5 5');
    assert.equal(toNumber('0x10'), '0x10');
  });

  it('checks a value against its rule, naming what is wrong', () => {
    assert.deepEqual(checkOption(seconds, '60'), { ok: true, value: 60 });
    assert.equal(checkOption(seconds, 60.5).problem.key, 'max');
    assert.equal(checkOption(seconds, 0).problem.key, 'above');
    assert.equal(checkOption(count, 1.5).problem.key, 'integer');
    assert.equal(checkOption(count, 0).problem.key, 'min');
    assert.equal(checkOption(count, 'x').problem.key, 'not-a-number');
    assert.equal(checkOption(count, '').problem.key, 'not-a-number', 'empty is no value, not 0');
    assert.deepEqual(checkOption(database, ''), { ok: true, value: undefined }, 'an optional number may be empty');
    assert.deepEqual(checkOption(mode, 'a'), { ok: true, value: 'a' });
    assert.deepEqual(checkOption(mode, 'A').problem, { key: 'choice', params: { value: 'A', choices: 'a, b' } });
    assert.deepEqual(checkOption(flag, 'false'), { ok: true, value: false });
    assert.equal(checkOption(flag, 'no').problem.key, 'flag');
    assert.deepEqual(checkOption(count, undefined), { ok: true, value: undefined }, 'a node saved before the option');
  });

  it('runs a node with the saved value; above the maximum the maximum; missing: absent, else the default; wrong: the default', () => {
    assert.equal(optionValue(seconds, '12.5'), 12.5);
    assert.equal(optionValue(seconds, 7200), 60);
    assert.equal(optionValue(seconds, -1), 30);
    assert.equal(optionValue(seconds, undefined), 30);
    assert.equal(optionValue(mode, undefined), 'a');
    assert.equal(optionValue(mode, 'c'), 'b', 'a wrong value is not a missing one: what a new node gets');
    assert.equal(optionValue(mode, 'b'), 'b');
    assert.equal(optionValue(flag, 'false'), false);
    assert.equal(optionValue(database, ''), undefined);
    assert.equal(optionValue(database, '3'), 3);
  });

  it('a number is the choice its text names (the dialog saves "1", a program may write 1)', () => {
    const level = choiceRule(['0', '1', '2'], { default: '1', absent: '0' });
    assert.deepEqual(checkOption(level, 1), { ok: true, value: '1' });
    assert.equal(optionValue(level, 2), '2');
    assert.equal(checkOption(level, 3).problem.key, 'choice');
    assert.equal(checkOption(level, Number.NaN).problem.key, 'choice');
  });

  it('reads a value with what was wrong with it: nothing for a missing one, the problem and the value used otherwise', () => {
    assert.deepEqual(readOption(mode, undefined), { value: 'a' }, 'missing is not wrong');
    assert.deepEqual(readOption(database, ''), { value: undefined });
    assert.deepEqual(readOption(seconds, '12'), { value: 12 });
    assert.deepEqual(readOption(seconds, 'soon'), { value: 30, problem: { key: 'not-a-number', params: { value: 'soon' } } });
    assert.deepEqual(readOption(seconds, 7200), { value: 60, problem: { key: 'max', params: { value: '7200', max: 60 } } });
    assert.deepEqual(readOption(mode, 'c'), { value: 'b', problem: { key: 'choice', params: { value: 'c', choices: 'a, b' } } });
    assert.deepEqual(readOption(flag, 'no'), { value: true, problem: { key: 'flag', params: { value: 'no' } } });
    const size = numberRule({ above: 0, max: 100, default: 1, outOfRange: 'stops' });
    assert.deepEqual(readOption(size, -5), { value: 1, problem: { key: 'above', params: { value: '-5', above: 0 } }, stops: true });
    assert.equal(readOption(size, 'soon').stops, undefined, 'no number at all: the default, with its problem');
    assert.deepEqual(
      readOption(size, 500),
      { value: 100, problem: { key: 'max', params: { value: '500', max: 100 } } },
      'above the maximum: the maximum',
    );
  });

  it("lib/core/options' zod schemas give the same answers, as messages of the catalog", () => {
    assert.equal(numberOption({ above: 0, max: 60 }).parse(' 60 '), 60);
    const refused = numberOption({ above: 0, max: 60 }).safeParse(61);
    assert.equal(refused.success, false);
    assert.equal(refused.error.issues[0].message, 'options.max');
    assert.deepEqual(refused.error.issues[0].params, { value: '61', max: 60 });
    assert.equal(choiceOption(['a', 'b']).safeParse('c').error.issues[0].message, 'options.choice');
    assert.equal(flagOption().parse('true'), true);
    assert.equal(limitOption(seconds).parse('7200'), 60, 'a limit above its maximum is the maximum');
    assert.equal(limitOption(seconds).safeParse('0').success, false);
    assert.equal(caOption('  '), undefined);
    assert.equal(caOption('-----BEGIN CERTIFICATE-----'), '-----BEGIN CERTIFICATE-----');
  });
});
