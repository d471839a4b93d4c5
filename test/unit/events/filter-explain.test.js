'use strict';
/**
 * Why a message passed detection filter: an entry for every rule that held
 * (lib/events/filter.ts evaluate), the line that says so from the catalog in
 * English and German, and the urgent rules (lib/events/filter-explain.ts).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, translate: englishCatalog } = require('../../support');
const { compileFilter, detectionTime } = require('../../../dist/lib/events/filter');
const { matchExplanation, explanationText } = require('../../../dist/lib/events/filter-explain');
const { viewOfEvent } = require('../../../dist/lib/events/detection-view');
const { buildSampleEvent } = require('../../../dist/lib/bridge/sample');
const { renderMessage } = require('../../../dist/lib/core/messages');

const NOW = new Date('2026-03-01T12:00:00Z');

/** lib's texts in `lang`, as Node-RED's RED._ finds them (the build merges shared.json into each node's catalog). */
function catalogOf(lang) {
  const catalog = JSON.parse(fs.readFileSync(path.join(ROOT, 'locales', lang, 'shared.json'), 'utf8'));
  return (key, params = {}) => {
    const text = key.split('.').reduce((at, part) => (at && typeof at === 'object' ? at[part] : undefined), catalog);
    if (typeof text !== 'string') throw new Error(`${lang} lacks ${key}`);
    return text.replace(/__(\w+)__/g, (_, name) => String(params[name]));
  };
}
const german = catalogOf('de');

/** The sample `kind` event changed by `edit`. */
function sample(kind, edit = () => {}) {
  const event = buildSampleEvent(kind, { now: NOW });
  edit(event);
  return event;
}

/** How `rules` judge `event` as the node judges it (its detection time and zone), failing the test when they do not compile. */
function judge(rules, event, { combine = 'any', options = {}, lists = [] } = {}) {
  const result = compileFilter(rules, combine, options);
  assert.ok(result.ok, `compiles: ${JSON.stringify(result.problems && result.problems.map((p) => renderMessage(p)))}`);
  return result.filter.evaluate(viewOfEvent(event), lists, detectionTime(event, NOW.getTime()));
}

/** The sample plate read as A8C123, tagged partner-Banned, at 23:14:05 on 3 December 2026 in New York, in zone north. */
const nightPlate = () =>
  sample('lpr', (e) => {
    e.payload.lprPlateInfo.plate = 'A8C123';
    delete e.payload.lprPlateInfo.similar1Plate;
    e.payload.lprPlateInfo.tags.push({ tagName: 'partner-Banned', expires: null });
    e.payload.detectionInfo.dateTimeUtc = '2026-12-04T04:14:05Z';
    e.payload.detectionInfo.timeZone = 'America/New_York';
    e.serverContext = { zone: 'North', floor: 2 };
  });

describe('lib/events/filter-explain', () => {
  describe('every rule that held says why, in rule order', () => {
    it('a plate: tag, camera, camera pattern, site, plate, kind, enrolled, context and time; the rules that did not hold are left out', () => {
      const rules = [
        { t: 'tag', v: 'Banned' },
        { t: 'camera', v: 'gate 2 lpr, Gate 1 LPR' },
        { t: 'camera-match', v: ' Gate ? LPR ' },
        { t: 'site', v: 'eConnect Site 1 LPR' },
        { t: 'plate', v: 'XYZ 987, ABC123' },
        { t: 'name', v: 'doe' },
        { t: 'kind', v: 'lpr' },
        { t: 'enrolled' },
        { t: 'context', k: 'zone', v: 'north' },
        { t: 'time', v: '22:00-06:00', vt: 'windows', k: 'inside' },
        { t: 'confidence', v: '0.8' },
        { t: 'kind', v: 'face' },
      ];
      const outcome = judge(rules, nightPlate(), { options: { tagPrefix: 'partner', plates: { lookalikes: 1 } } });
      assert.equal(outcome.passed, true);
      assert.equal(outcome.urgent, false);
      assert.deepEqual(outcome.rules, [
        { rule: 1, type: 'tag', tag: 'partner-Banned', as: 'Banned' },
        { rule: 2, type: 'camera', camera: 'Gate 2 LPR' },
        { rule: 3, type: 'camera-match', camera: 'Gate 2 LPR', pattern: 'Gate ? LPR' },
        { rule: 4, type: 'site', site: 'eConnect Site 1 LPR' },
        { rule: 5, type: 'plate', plate: 'A8C123', entry: 'ABC123', kind: 'look-alike', score: 0.9 },
        { rule: 7, type: 'kind', kind: 'lpr' },
        { rule: 8, type: 'enrolled', externalId: '98765' },
        { rule: 9, type: 'context', key: 'zone', value: 'North' },
        { rule: 10, type: 'time', localTime: '2026-12-03 23:14:05', timeZone: 'America/New_York', windows: '22:00–06:00', inside: true },
      ]);
      const explained = matchExplanation(outcome);
      assert.equal(
        explained.text,
        'tag Banned (sent as partner-Banned) · camera Gate 2 LPR · camera Gate 2 LPR (Gate ? LPR) · site eConnect Site 1 LPR · ' +
          'plate A8C123 for ABC123 (score 0.9) · plate event · enrolled (98765) · zone = North · 23:14 within 22:00–06:00 (America/New_York)',
      );
      assert.equal(
        matchExplanation(outcome, german).text,
        'Tag Banned (gesendet als partner-Banned) · Kamera Gate 2 LPR · Kamera Gate 2 LPR (Gate ? LPR) · Standort eConnect Site 1 LPR · ' +
          'Kennzeichen A8C123 für ABC123 (Wert 0.9) · Kennzeichenereignis · registriert (98765) · zone = North · ' +
          '23:14 innerhalb 22:00–06:00 (America/New_York)',
      );
      // the plate match's fields stay at the top, for flows that read msg.match.score
      assert.deepEqual(Object.keys(explained), ['rule', 'entry', 'read', 'against', 'kind', 'differences', 'score', 'rules', 'text']);
      assert.equal(explained.rule, 5);
      assert.equal(explained.score, 0.9);
      assert.deepEqual(explained.differences, [{ position: 2, entry: 'B', read: '8', kind: 'look-alike' }]);
      assert.equal(explained.rules, outcome.rules, 'the entries themselves, not a copy');
    });

    it('a face: name, confidence, kind, a tag as sent, and an "outside" time rule that held', () => {
      const rules = [
        { t: 'name', v: ' Doe ' },
        { t: 'confidence', v: '0.8' },
        { t: 'kind', v: 'face' },
        { t: 'tag', v: 'vip' },
        { t: 'time', v: 'Sat,Sun', k: 'outside' },
        { t: 'plate', v: 'XYZ987' },
      ];
      // Monday 2 March 2026, 09:30 in Los Angeles (the face's own zone): outside Sat,Sun; the plate rule never holds for a face
      const face = sample('face', (e) => {
        e.payload.detectionInfo.dateTimeUtc = '2026-03-02T17:30:00Z';
      });
      const outcome = judge(rules, face);
      assert.deepEqual(outcome.rules, [
        { rule: 1, type: 'name', name: 'John Michael Doe', contains: 'Doe' },
        { rule: 2, type: 'confidence', confidence: 0.93, atLeast: 0.8 },
        { rule: 3, type: 'kind', kind: 'face' },
        { rule: 4, type: 'tag', tag: 'VIP', as: 'vip' },
        { rule: 5, type: 'time', localTime: '2026-03-02 09:30:00', timeZone: 'America/Los_Angeles', windows: 'Sat,Sun 00:00–24:00', inside: false },
      ]);
      assert.equal(outcome.match, undefined, 'no plate rule held');
      const explained = matchExplanation(outcome);
      assert.deepEqual(Object.keys(explained), ['rules', 'text'], 'no plate fields, no urgent');
      assert.equal(
        explained.text,
        'name John Michael Doe has Doe · confidence 0.93 ≥ 0.8 · face event · tag VIP · 09:30 outside Sat,Sun 00:00–24:00 (America/Los_Angeles)',
      );
      assert.equal(
        explanationText(outcome.rules, german),
        'Name John Michael Doe enthält Doe · Konfidenz 0.93 ≥ 0.8 · Gesichtsereignis · Tag VIP · 09:30 außerhalb Sat,Sun 00:00–24:00 (America/Los_Angeles)',
      );
    });

    it('all: every rule held, every rule listed; a message refused, or not an event, gets none', () => {
      const rules = [
        { t: 'kind', v: 'lpr' },
        { t: 'tag', v: 'Staff Parking' },
      ];
      const passed = judge(rules, sample('lpr'), { combine: 'all' });
      assert.deepEqual(passed.rules, [
        { rule: 1, type: 'kind', kind: 'lpr' },
        { rule: 2, type: 'tag', tag: 'Staff Parking', as: 'Staff Parking' },
      ]);
      assert.equal(matchExplanation(passed).text, 'plate event · tag Staff Parking');
      const refused = judge(rules, sample('face'), { combine: 'all' });
      assert.deepEqual(refused, { passed: false, match: undefined, rules: [], urgent: false });
      assert.deepEqual(judge(rules, sample('face')), { passed: false, match: undefined, rules: [], urgent: false }, 'any: none held');
      const f = compileFilter(rules, 'any');
      assert.equal(f.filter.evaluate(undefined).passed, false);
    });

    it('no rules: the event passes, and nothing held to say why', () => {
      const outcome = judge([], sample('face'));
      assert.equal(outcome.passed, true);
      assert.deepEqual(outcome.rules, []);
    });

    it('lists and windows read for each message: the entry as the list has it, the windows as read', () => {
      const rules = [
        { t: 'tag', v: 'watch', vt: 'msg' },
        { t: 'time', v: 'hours', vt: 'flow', k: 'inside' },
        { t: 'time', v: 'NIGHT', vt: 'env' },
      ];
      const options = { tagPrefix: 'partner', env: (name) => ({ NIGHT: 'Thu 20:00-02:00' })[name] };
      const outcome = judge(rules, nightPlate(), {
        options,
        lists: [['Gold', 'partner-banned'], [{ days: 'mon-fri', from: '22:00', to: '06:00' }]],
      });
      assert.deepEqual(outcome.rules, [
        { rule: 1, type: 'tag', tag: 'partner-Banned', as: 'partner-banned' },
        { rule: 2, type: 'time', localTime: '2026-12-03 23:14:05', timeZone: 'America/New_York', windows: 'Mon–Fri 22:00–06:00', inside: true },
        { rule: 3, type: 'time', localTime: '2026-12-03 23:14:05', timeZone: 'America/New_York', windows: 'Thu 20:00–02:00', inside: true },
      ]);
    });

    it("time: judged in the node's zone for an event without one, in the view's time and zone without a DetectionTime", () => {
      const rules = [{ t: 'time', v: '22:00-06:00' }];
      const event = sample('lpr', (e) => {
        e.payload.detectionInfo.dateTimeUtc = '2026-12-03T22:30:00Z';
        delete e.payload.detectionInfo.timeZone;
      });
      const outcome = judge(rules, event, { options: { timeZone: 'Europe/Berlin' } });
      assert.deepEqual(outcome.rules[0], {
        rule: 1,
        type: 'time',
        localTime: '2026-12-03 23:30:00',
        timeZone: 'Europe/Berlin',
        windows: '22:00–06:00',
        inside: true,
      });
      const f = compileFilter(rules, 'all', { timeZone: 'Europe/Berlin' }).filter;
      assert.equal(f.evaluate(viewOfEvent(nightPlate())).rules[0].localTime, '2026-12-03 23:14:05', "the view's own zone");
    });
  });

  describe('urgent rules', () => {
    const rules = [
      { t: 'tag', v: 'Banned', u: true },
      { t: 'camera', v: 'Gate 2 LPR' },
      { t: 'kind', v: 'face', u: true },
    ];

    it('an urgent rule that held makes the message urgent, and its entry says so', () => {
      const outcome = judge(rules, nightPlate(), { options: { tagPrefix: 'partner' } });
      assert.equal(outcome.urgent, true);
      assert.deepEqual(outcome.rules, [
        { rule: 1, type: 'tag', tag: 'partner-Banned', as: 'Banned', urgent: true },
        { rule: 2, type: 'camera', camera: 'Gate 2 LPR' },
      ]);
      assert.equal(matchExplanation(outcome).urgent, true);
    });

    it('an urgent rule that did not hold does not; nor does u other than true (missing in every rule saved before it)', () => {
      const outcome = judge(rules, sample('lpr'));
      assert.equal(outcome.passed, true, 'on the camera');
      assert.equal(outcome.urgent, false);
      assert.equal('urgent' in matchExplanation(outcome), false);
      for (const u of ['true', 1, 'yes', null]) assert.equal(judge([{ t: 'kind', v: 'lpr', u }], sample('lpr')).urgent, false, JSON.stringify(u));
    });

    it("the summary marks an urgent rule, from the catalog; the dialog's label says the same", () => {
      const f = compileFilter(rules, 'all').filter;
      assert.equal(f.summary(undefined, 200), '!tag Banned · camera Gate 2 LPR · !face');
      const marked = compileFilter([{ t: 'tag', v: 'Banned', u: true }], 'all').filter;
      assert.equal(marked.summary(german), '!Tag Banned');
      const editor = require('../../support/editor-defaults');
      const label = editor.definitions()['detection-filter'].label;
      const node = {
        name: '',
        combine: 'all',
        rules: [
          { t: 'tag', v: 'Banned', vt: 'list', u: true },
          { t: 'camera', v: 'Gate 2' },
        ],
        _: englishCatalog,
      };
      assert.equal(label.call(node), '!tag Banned · camera Gate 2');
      assert.equal(label.call({ ...node, rules: [{ t: 'tag', v: 'Banned', vt: 'list' }] }), 'tag Banned', 'not urgent: no mark');
    });
  });
});
