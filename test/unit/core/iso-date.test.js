'use strict';
const assert = require('node:assert/strict');
const { parseIsoDate, isIsoDate } = require('../../../dist/lib/core/iso-date');

describe('lib/core/iso-date', () => {
  it('reads ISO 8601 the way .NET and others write it', () => {
    for (const [text, iso] of [
      ['2026-11-21T18:04:05Z', '2026-11-21T18:04:05.000Z'],
      ['2026-11-21T18:04:05.1234567Z', '2026-11-21T18:04:05.123Z'],
      ['2026-11-21T18:04:05.1234567', '2026-11-21T18:04:05.123Z'],
      ['2026-11-21T18:04:05', '2026-11-21T18:04:05.000Z'],
      ['2026-11-21T18:04', '2026-11-21T18:04:00.000Z'],
      ['2026-11-21T18:04:05+02:00', '2026-11-21T16:04:05.000Z'],
      ['2026-11-21T18:04:05.5+0200', '2026-11-21T16:04:05.500Z'],
      ['2026-11-21T18:04:05-05', '2026-11-21T23:04:05.000Z'],
      ['2026-11-21 18:04:05Z', '2026-11-21T18:04:05.000Z'],
      ['2024-12-31', '2024-12-31T00:00:00.000Z'],
      ['2024-02-29', '2024-02-29T00:00:00.000Z'],
      ['0001-01-01T00:00:00', '0001-01-01T00:00:00.000Z'],
    ]) {
      assert.equal(new Date(parseIsoDate(text)).toISOString(), iso, text);
    }
  });

  it('refuses what is not a calendar date or not ISO 8601', () => {
    for (const text of [
      '',
      'yesterday',
      '21/11/2026 18:04',
      '2026-13-01',
      '2023-02-29',
      '2026-04-31',
      '2026-11-21T24:00:00Z',
      '2026-11-21T18:60:00Z',
      '2026-11-21T18:04:05+25:00',
      '2026-11-21T18:04:05.Z',
      '2026-11-21Z',
      '/Date(1732212245000)/',
      '2026-11-21T18:04:05Zjunk',
    ]) {
      assert.equal(isIsoDate(text), false, text);
      assert.ok(Number.isNaN(parseIsoDate(text)), text);
    }
  });
});
