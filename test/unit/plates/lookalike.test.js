'use strict';
const assert = require('node:assert/strict');
const { DEFAULT_LOOKALIKE_CLASSES, DEFAULT_LOOKALIKES, NO_LOOKALIKES, normalisePlate, parseLookalikeClasses } = require('../../../dist/lib/plates');
const { renderMessage } = require('../../../dist/lib/core/messages');

describe('plates: look-alike classes', () => {
  it('normalises a plate: no spaces or dashes, upper case', () => {
    assert.equal(normalisePlate(' xy-z 9\t87 '), 'XYZ987');
  });

  it('folds each default class to its first character, in both directions', () => {
    const pairs = [
      ['0', 'O'],
      ['0', 'D'],
      ['0', 'Q'],
      ['1', 'I'],
      ['2', 'Z'],
      ['5', 'S'],
      ['8', 'B'],
      ['6', 'G'],
    ];
    for (const [a, b] of pairs) {
      assert.equal(DEFAULT_LOOKALIKES.fold(a), DEFAULT_LOOKALIKES.fold(b), `${a} ~ ${b}`);
      assert.ok(DEFAULT_LOOKALIKES.alike(a, b) && DEFAULT_LOOKALIKES.alike(b, a), `${a} ~ ${b}`);
    }
    assert.equal(DEFAULT_LOOKALIKES.fold('8OB123'), DEFAULT_LOOKALIKES.fold('BOB123'));
    assert.equal(DEFAULT_LOOKALIKES.fold('8OB123'), DEFAULT_LOOKALIKES.fold('80B123'));
    assert.notEqual(DEFAULT_LOOKALIKES.fold('8OB123'), DEFAULT_LOOKALIKES.fold('8OB124'));
    assert.ok(!DEFAULT_LOOKALIKES.alike('1', '7'));
    assert.equal(NO_LOOKALIKES.fold('8OB123'), '8OB123');
  });

  it('reads classes as typed: spaces or commas, any case; its text is normalised', () => {
    const parsed = parseLookalikeClasses(' 0odq, 1i  2Z ');
    assert.ok(parsed.ok);
    assert.equal(parsed.lookalikes.text, '0ODQ 1I 2Z');
    assert.equal(parsed.lookalikes.fold('QI7'), '017');
    assert.equal(DEFAULT_LOOKALIKES.text, DEFAULT_LOOKALIKE_CLASSES);
    const none = parseLookalikeClasses('');
    assert.ok(none.ok);
    assert.equal(none.lookalikes.fold('8OB'), '8OB');
  });

  it('refuses a group of one character and a character in two groups, saying which', () => {
    const short = parseLookalikeClasses('0O 1');
    assert.ok(!short.ok);
    assert.match(renderMessage(short.problem), /"1" has one character/);
    const twice = parseLookalikeClasses('0O O8');
    assert.ok(!twice.ok);
    assert.match(renderMessage(twice.problem), /"O" is in two look-alike groups \(0O and O8\)/);
  });
});
