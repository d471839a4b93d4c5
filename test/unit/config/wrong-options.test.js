'use strict';
/**
 * lib/config/wrong-options.ts: the warning a node gives at deploy for a saved
 * option it runs with another value names the node, the option, the value
 * saved and the value used, in each language of the package (the catalogs'
 * options.wrong, rendered as a node renders it: nested messages first).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../../support');

const { wrongOptionMessages } = require(path.join(ROOT, 'dist', 'lib', 'config', 'wrong-options'));
const { renderMessage } = require(path.join(ROOT, 'dist', 'lib', 'core', 'messages'));

/** A translator over a language's shared.json, as Node-RED's i18next reads it (`__name__` placeholders); a missing key throws. */
function translator(lang) {
  const catalog = JSON.parse(fs.readFileSync(path.join(ROOT, 'locales', lang, 'shared.json'), 'utf8'));
  return (key, params = {}) => {
    const text = key.split('.').reduce((node, part) => (node && typeof node === 'object' ? node[part] : undefined), catalog);
    if (typeof text !== 'string') throw new Error(`${lang}: no text for ${key}`);
    return text.replace(/__(\w+)__/g, (whole, name) => (name in params ? String(params[name]) : whole));
  };
}

describe('lib/config/wrong-options', function () {
  it('a dedupe with ttl "soon": the node, ttl, "soon", why, and the value used (en-US)', () => {
    const messages = wrongOptionMessages('detection-dedupe', { ttl: 'soon', ttlUnits: 'm' }, 'dedupe "front gate"');
    assert.equal(messages.length, 1);
    assert.equal(
      renderMessage(messages[0], translator('en-US')),
      'dedupe "front gate" cannot use "soon" for its option ttl ("soon" is not a number): it runs with 1 instead. Open the node, correct the option and deploy again',
    );
  });

  it('the same in German and Japanese: every part named, no placeholder left', () => {
    const [warning] = wrongOptionMessages('detection-dedupe', { ttl: 'soon' }, 'dedupe "front gate"');
    for (const lang of ['de', 'ja']) {
      const text = renderMessage(warning, translator(lang));
      for (const part of ['dedupe "front gate"', 'ttl', '"soon"', ' 1 ']) assert.ok(text.includes(part.trim()), `${lang}: ${part} in ${text}`);
      assert.doesNotMatch(text, /__\w+__/, `${lang}: ${text}`);
    }
  });

  it('numbers and choices are shown as saved; an optional number without a usable value is "no value"', () => {
    const [clamped] = wrongOptionMessages('platform-push', { batchMs: 900000 }, 'platform push');
    assert.match(
      renderMessage(clamped, translator('en-US')),
      /cannot use 900000 for its option batchMs \(must be at most 600000, got 900000\): it runs with 600000 instead/,
    );
    const [confirm] = wrongOptionMessages('detection-redis', { confirmTimeoutMs: 'long' }, 'redis');
    assert.match(renderMessage(confirm, translator('en-US')), /cannot use "long" for its option confirmTimeoutMs .*: it runs with 1000 instead/);
    const { wrongOptionMessage } = require(path.join(ROOT, 'dist', 'lib', 'config', 'wrong-options'));
    const none = wrongOptionMessage('redis', {
      option: 'database',
      value: 'first',
      used: undefined,
      problem: { key: 'not-a-number', params: { value: 'first' } },
    });
    assert.match(renderMessage(none, translator('en-US')), /cannot use "first" for its option database .*: it runs with no value instead/);
  });

  it("says nothing of a value that stops the node: its setup says why (a Redis server's database or TLS, the dedupe window's size)", () => {
    assert.deepEqual(wrongOptionMessages('detection-redis', { database: 'first', tls: 'perhaps', mode: 'cluster' }, 'redis'), []);
    assert.deepEqual(wrongOptionMessages('detection-dedupe', { ttl: -5 }, 'dedupe'), []);
    assert.deepEqual(wrongOptionMessages('detection-listener', { port: 70000 }, 'listener'), []);
  });

  it('says nothing of a missing option, of number text, or of a number where the dialog saves its text', () => {
    assert.deepEqual(wrongOptionMessages('detection-filter', { plateLookalikes: 1, combine: 'any' }, 'detection filter'), []);
    assert.deepEqual(wrongOptionMessages('detection-dedupe', { ttl: '30', maxKeys: 500 }, 'dedupe'), []);
    assert.deepEqual(wrongOptionMessages('detection-in', {}, 'detection in'), []);
  });
});
