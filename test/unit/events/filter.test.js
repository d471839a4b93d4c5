'use strict';
const assert = require('node:assert/strict');
const { compileFilter, detectionTime, listItems, listProblem, wildcardRegExp } = require('../../../dist/lib/events/filter');
const { normalisePlate, parseLookalikeClasses, plateListCompilations, DEFAULT_LOOKALIKE_CLASSES } = require('../../../dist/lib/plates');
const { viewOfEvent } = require('../../../dist/lib/events/detection-view');
const { normaliseTagPrefix, tagKey } = require('../../../dist/lib/events/tag-prefix');
const { buildSampleEvent } = require('../../../dist/lib/bridge/sample');
const { renderMessage } = require('../../../dist/lib/core/messages');

const NOW = new Date('2026-03-01T12:00:00Z');

/** A face or plate event (the built-in sample), changed by `edit`, and its view. */
function view(kind, edit = () => {}) {
  const event = buildSampleEvent(kind, { now: NOW });
  edit(event);
  return viewOfEvent(event);
}
const face = (edit) => view('face', edit);
const plate = (edit) => view('lpr', edit);

/** The compiled filter of `rules`, failing the test when it does not compile. */
function filter(rules, combine = 'all') {
  const result = compileFilter(rules, combine);
  assert.ok(result.ok, `compiles: ${JSON.stringify(result.problems && result.problems.map((p) => renderMessage(p)))}`);
  return result.filter;
}

/** Whether one rule passes the view. */
const holds = (rule, v, lists) => filter([rule]).matches(v, lists);

/** The problems of rules that do not compile, in English. */
function problems(rules) {
  const result = compileFilter(rules);
  assert.equal(result.ok, false, 'does not compile');
  return result.problems.map((p) => renderMessage(p));
}

describe('lib/events/filter', () => {
  describe('rules', () => {
    it('kind: face or plate events', () => {
      assert.equal(holds({ t: 'kind', v: 'face' }, face()), true);
      assert.equal(holds({ t: 'kind', v: 'face' }, plate()), false);
      assert.equal(holds({ t: 'kind', v: 'lpr' }, plate()), true);
      assert.equal(holds({ t: 'kind', v: 'lpr' }, face()), false);
    });

    it('tag: any of the list, ignoring case and surrounding spaces', () => {
      assert.equal(holds({ t: 'tag', v: ' vip ' }, plate()), true);
      assert.equal(holds({ t: 'tag', v: 'Banned, staff parking' }, plate()), true, 'the second tag of the plate');
      assert.equal(holds({ t: 'tag', v: 'Banned\nAdvantage Player' }, face()), true, 'new lines separate items too');
      assert.equal(holds({ t: 'tag', v: 'Banned' }, face()), false);
      assert.equal(holds({ t: 'tag', v: 'VIP', vt: 'list' }, face()), true);
    });

    it('tag: only tags valid at the detection time', () => {
      const expired = plate((e) => {
        e.payload.lprPlateInfo.tags[0].expires = '2026-02-28T00:00:00Z';
      });
      assert.equal(holds({ t: 'tag', v: 'VIP' }, expired), false, 'expired the day before the detection');
      const later = plate((e) => {
        e.payload.lprPlateInfo.tags[0].expires = '2026-03-01T12:00:01Z';
      });
      assert.equal(holds({ t: 'tag', v: 'VIP' }, later), true, 'expires a second after the detection');
      const none = plate((e) => {
        delete e.payload.lprPlateInfo.tags;
      });
      assert.equal(holds({ t: 'tag', v: 'VIP' }, none), false, 'no tags at all');
    });

    it('camera: one of the list, ignoring case and surrounding spaces', () => {
      assert.equal(holds({ t: 'camera', v: 'gate 2 lpr , Gate 1 LPR' }, plate()), true);
      assert.equal(holds({ t: 'camera', v: 'Gate 1 LPR' }, plate()), false);
      assert.equal(holds({ t: 'camera', v: 'Gate 2' }, plate()), false, 'the whole name, not a part');
      const nameless = plate((e) => delete e.payload.detectionInfo.detectorName);
      assert.equal(holds({ t: 'camera', v: 'Gate 2 LPR' }, nameless), false);
    });

    it('camera-match: * any run, ? one character, the whole name in any case', () => {
      const cam = (name) =>
        plate((e) => {
          e.payload.detectionInfo.detectorName = name;
        });
      assert.equal(holds({ t: 'camera-match', v: 'Gate*' }, cam('Gate 2 LPR')), true);
      assert.equal(holds({ t: 'camera-match', v: 'gate*' }, cam('GATE 2 LPR')), true);
      assert.equal(holds({ t: 'camera-match', v: 'Gate ? LPR' }, cam('Gate 7 LPR')), true);
      assert.equal(holds({ t: 'camera-match', v: 'Gate ? LPR' }, cam('Gate 12 LPR')), false);
      assert.equal(holds({ t: 'camera-match', v: 'Gate' }, cam('Gate 2 LPR')), false, 'anchored at both ends');
      assert.equal(holds({ t: 'camera-match', v: '*LPR' }, cam('Old Gate LPR')), true);
      assert.equal(holds({ t: 'camera-match', v: '*' }, cam('anything')), true);
    });

    it('camera-match: regular expression specials are plain characters', () => {
      const cam = (name) =>
        plate((e) => {
          e.payload.detectionInfo.detectorName = name;
        });
      assert.equal(holds({ t: 'camera-match', v: 'Cam.1' }, cam('Cam.1')), true);
      assert.equal(holds({ t: 'camera-match', v: 'Cam.1' }, cam('CamX1')), false, '. is a dot');
      assert.equal(holds({ t: 'camera-match', v: 'Lane+' }, cam('Lane+')), true);
      assert.equal(holds({ t: 'camera-match', v: 'Lane+' }, cam('Lanee')), false, '+ is a plus');
      assert.equal(holds({ t: 'camera-match', v: 'Gate (north)*' }, cam('Gate (north) 2')), true);
      assert.equal(holds({ t: 'camera-match', v: '(a|b)' }, cam('a')), false, '( | ) are literal');
      assert.equal(holds({ t: 'camera-match', v: '[ab]$^\\' }, cam('[ab]$^\\')), true);
      assert.equal(wildcardRegExp('a.b*').source, '^a\\.b.*$');
    });

    it('site: one of the list, ignoring case', () => {
      assert.equal(holds({ t: 'site', v: 'econnect site 1 lpr' }, plate()), true);
      assert.equal(holds({ t: 'site', v: 'Other Site' }, plate()), false);
    });

    it('plate: compared on plate and similar1Plate, ignoring case, spaces and dashes', () => {
      assert.equal(holds({ t: 'plate', v: 'xyz-987' }, plate()), true);
      assert.equal(holds({ t: 'plate', v: 'XYZ 987' }, plate()), true);
      const dashed = plate((e) => {
        e.payload.lprPlateInfo.plate = 'ab-12 cd';
        e.payload.lprPlateInfo.similar1Plate = 'AB12CO';
      });
      assert.equal(holds({ t: 'plate', v: 'AB12CD' }, dashed), true, 'the event side is normalised too');
      assert.equal(holds({ t: 'plate', v: 'ab 12-co' }, dashed), true, 'similar1Plate only');
      assert.equal(holds({ t: 'plate', v: 'AB12' }, dashed), false);
      assert.equal(holds({ t: 'plate', v: 'XYZ987' }, face()), false, 'never a face event');
      const bare = plate((e) => {
        delete e.payload.lprPlateInfo.similar1Plate;
      });
      assert.equal(holds({ t: 'plate', v: 'XYZ987' }, bare), true, 'without similar1Plate');
      assert.equal(normalisePlate(' xy-z 9\t87 '), 'XYZ987');
    });

    it('enrolled: externalId set', () => {
      assert.equal(holds({ t: 'enrolled' }, face()), true);
      assert.equal(holds({ t: 'enrolled' }, plate()), true);
      assert.equal(
        holds(
          { t: 'enrolled' },
          face((e) => delete e.externalId),
        ),
        false,
      );
      assert.equal(
        holds(
          { t: 'enrolled' },
          face((e) => {
            e.externalId = '';
          }),
        ),
        false,
      );
    });

    it('name: the full name contains the text, ignoring case; never a plate', () => {
      assert.equal(holds({ t: 'name', v: 'doe' }, face()), true);
      assert.equal(holds({ t: 'name', v: 'john michael' }, face()), true, 'the middle name is part of the full name');
      assert.equal(holds({ t: 'name', v: 'Smith' }, face()), false);
      assert.equal(holds({ t: 'name', v: 'Doe' }, plate()), false);
      assert.equal(
        holds(
          { t: 'name', v: 'Doe' },
          face((e) => delete e.payload.personInfo.lastName),
        ),
        false,
      );
    });

    it('confidence: at least the fraction; never a plate', () => {
      assert.equal(holds({ t: 'confidence', v: '0.93' }, face()), true, 'equal passes');
      assert.equal(holds({ t: 'confidence', v: '0.8' }, face()), true);
      assert.equal(holds({ t: 'confidence', v: '0.95' }, face()), false);
      assert.equal(holds({ t: 'confidence', v: '0' }, plate()), false, 'a plate has no confidence');
      assert.equal(
        holds(
          { t: 'confidence', v: '0.5' },
          face((e) => delete e.payload.detectionInfo.confidence),
        ),
        false,
      );
    });

    it('context: a serverContext key equals the value (key exact, value in any case)', () => {
      const ctx = (serverContext) =>
        face((e) => {
          e.serverContext = serverContext;
        });
      assert.equal(holds({ t: 'context', k: 'zone', v: 'North' }, ctx({ zone: ' north ' })), true);
      assert.equal(holds({ t: 'context', k: 'Zone', v: 'north' }, ctx({ zone: 'north' })), false, 'the key is case-sensitive');
      assert.equal(holds({ t: 'context', k: 'zone', v: 'north' }, ctx({ zone: 'south' })), false);
      assert.equal(holds({ t: 'context', k: 'floor', v: '2' }, ctx({ floor: 2 })), true, 'a number value');
      assert.equal(holds({ t: 'context', k: 'zone', v: 'north' }, ctx(null)), false);
      assert.equal(holds({ t: 'context', k: 'toString', v: 'x' }, ctx({})), false, 'own keys only');
    });
  });

  describe('all and any', () => {
    const rules = [
      { t: 'tag', v: 'VIP' },
      { t: 'camera', v: 'Gate 2 LPR' },
    ];
    it('all: every rule must hold', () => {
      const f = filter(rules, 'all');
      assert.equal(f.matches(plate()), true);
      assert.equal(f.matches(plate((e) => (e.payload.detectionInfo.detectorName = 'Gate 1 LPR'))), false);
      assert.equal(f.matches(face()), false, 'the face has the tag but another camera');
    });

    it('any: one rule is enough', () => {
      const f = filter(rules, 'any');
      assert.equal(f.matches(face()), true);
      assert.equal(f.matches(plate((e) => (e.payload.detectionInfo.detectorName = 'Gate 1 LPR'))), true);
      assert.equal(
        f.matches(
          face((e) => {
            e.payload.personInfo.tags = [];
          }),
        ),
        false,
      );
    });

    it('no rules: every event passes; anything that is not an event never does', () => {
      assert.equal(filter([]).matches(face()), true);
      assert.equal(filter(undefined, 'any').matches(plate()), true);
      assert.equal(filter([]).matches(undefined), false);
      assert.equal(filter([{ t: 'enrolled' }]).matches(viewOfEvent({ publishType: 'Other' })), false);
    });
  });

  describe("tag prefix (the account's <prefix>-<name>)", () => {
    /** A plate tagged with `names` (no expiry), or with the tag objects given. */
    const tagged = (...tags) =>
      plate((e) => {
        e.payload.lprPlateInfo.tags = tags.map((t) => (typeof t === 'string' ? { tagName: t, expires: null } : t));
      });
    /** Whether a tag rule on `list` passes `view` with `prefix`. */
    const withPrefix = (prefix, list, v, lists) => {
      const result = compileFilter([{ t: 'tag', v: list }], 'all', { tagPrefix: prefix });
      assert.ok(result.ok);
      return result.filter.matches(v, lists);
    };

    it('a rule on Banned passes partner-Banned with the prefix set, and not without', () => {
      assert.equal(withPrefix('partner', 'Banned', tagged('partner-Banned')), true);
      assert.equal(withPrefix('', 'Banned', tagged('partner-Banned')), false, 'no prefix: exact names, as before');
      assert.equal(holds({ t: 'tag', v: 'Banned' }, tagged('partner-Banned')), false, 'no options: as before');
      assert.equal(compileFilter([{ t: 'tag', v: 'Banned' }]).filter.tagPrefix, '');
      assert.equal(compileFilter([], 'all', { tagPrefix: 'partner' }).filter.tagPrefix, 'partner');
    });

    it('with or without the prefix, on either side, ignoring case as before', () => {
      assert.equal(withPrefix('partner', 'Banned', tagged('Banned')), true, 'a tag without the prefix still matches');
      assert.equal(withPrefix('partner', 'partner-Banned', tagged('Banned')), true, 'a rule written with the prefix');
      assert.equal(withPrefix('partner', 'partner-Banned', tagged('partner-Banned')), true);
      assert.equal(withPrefix('partner', ' banned ', tagged('PARTNER-BANNED')), true);
      assert.equal(withPrefix('Partner', 'Banned', tagged('partner-banned')), true, 'the prefix in any case');
      assert.equal(withPrefix('partner', 'VIP', tagged('partner-Banned')), false);
    });

    it('other prefixes, the prefix alone, and the prefix with an empty name are not the name', () => {
      assert.equal(withPrefix('partner', 'Banned', tagged('acme-Banned')), false, 'another prefix');
      assert.equal(withPrefix('partner', 'Banned', tagged('partnerBanned')), false, 'no dash: not the prefix');
      assert.equal(withPrefix('partner', 'Banned', tagged('partner', 'partner-')), false, 'the prefix alone, and with an empty name');
      assert.equal(withPrefix('partner', 'partner', tagged('partner')), true, 'a tag that is the prefix word matches itself');
      assert.equal(withPrefix('partner', 'partner-', tagged('partner-')), true);
      assert.equal(withPrefix('partner', 'partner-', tagged('partner')), false);
      assert.equal(withPrefix('partner', 'Banned', tagged('partner-partner-Banned')), false, 'taken off once');
      assert.equal(withPrefix('acme-eu', 'VIP', tagged('acme-eu-VIP')), true, 'a prefix with a dash inside');
      assert.equal(withPrefix('acme-eu', 'eu-VIP', tagged('acme-eu-VIP')), false);
    });

    it('expired tags do not count, with or without the prefix', () => {
      const view = tagged(
        { tagName: 'partner-Banned', expires: '2026-02-28T00:00:00Z' },
        { tagName: 'partner-VIP', expires: '2026-03-01T12:00:01Z' },
      );
      assert.equal(withPrefix('partner', 'Banned', view), false, 'expired the day before the detection');
      assert.equal(withPrefix('partner', 'VIP', view), true, 'expires a second after the detection');
    });

    it('lists read for each message are compared the same way', () => {
      const result = compileFilter([{ t: 'tag', v: 'watch', vt: 'flow' }], 'all', { tagPrefix: 'partner' });
      const f = result.filter;
      assert.equal(f.matches(tagged('partner-Banned'), [['Banned']]), true);
      assert.equal(f.matches(tagged('partner-Banned'), ['VIP, partner-banned']), true);
      assert.equal(f.matches(tagged('Banned'), [['partner-Banned']]), true);
      assert.equal(f.matches(tagged('acme-Banned'), [['Banned']]), false);
    });

    it('other list rules are not touched by the prefix', () => {
      const result = compileFilter([{ t: 'camera', v: 'Gate 2 LPR' }], 'all', { tagPrefix: 'Gate' });
      assert.equal(result.filter.matches(plate()), true);
      assert.equal(compileFilter([{ t: 'site', v: 'Site 1 LPR' }], 'all', { tagPrefix: 'eConnect' }).filter.matches(plate()), false);
    });
  });

  describe('normaliseTagPrefix and tagKey', () => {
    it('a prefix is letters, digits, - and _; its trailing dash is dropped; empty is none', () => {
      assert.equal(normaliseTagPrefix('partner'), 'partner');
      assert.equal(normaliseTagPrefix(' partner- '), 'partner');
      assert.equal(normaliseTagPrefix('acme_eu-2'), 'acme_eu-2');
      assert.equal(normaliseTagPrefix(''), '');
      assert.equal(normaliseTagPrefix('  '), '');
      assert.equal(normaliseTagPrefix(undefined), '', 'saved before the option existed');
      assert.equal(normaliseTagPrefix(null), '');
      for (const bad of ['-', 'partner--', '-partner', 'part ner', 'partner*', 'pärtner', 7, 'x'.repeat(65)]) {
        assert.equal(normaliseTagPrefix(bad), undefined, JSON.stringify(bad));
      }
      assert.equal(normaliseTagPrefix('x'.repeat(64)), 'x'.repeat(64));
    });

    it("the dialogs run the same rule: their validators accept exactly the prefixes lib's normaliseTagPrefix does", () => {
      const editor = require('../../support/editor-defaults');
      const defs = editor.definitions();
      const n = { _: (key) => key };
      for (const type of ['detection-filter', 'events-bridge', 'detection-alert']) {
        const validate = defs[type].defaults.tagPrefix.validate;
        for (const value of [
          'partner',
          ' partner- ',
          'acme_eu-2',
          '',
          '  ',
          '-',
          'partner--',
          '-partner',
          'part ner',
          'partner*',
          'pärtner',
          'x'.repeat(64),
          'x'.repeat(65),
        ]) {
          assert.equal(validate.call({ ...n }, value, {}) === true, normaliseTagPrefix(value) !== undefined, `${type}: ${JSON.stringify(value)}`);
        }
      }
    });

    it('tagKey: trimmed, lower case, without the prefix when a name follows it', () => {
      assert.equal(tagKey(' Partner-Banned ', 'partner'), 'banned');
      assert.equal(tagKey('partner- Banned', 'partner'), 'banned');
      assert.equal(tagKey('partner-', 'partner'), 'partner-');
      assert.equal(tagKey('partner', 'partner'), 'partner');
      assert.equal(tagKey('Partner-Banned', ''), 'partner-banned');
    });
  });

  describe('lists read for each message', () => {
    it('reads a list from the position the rule gives, as an array or as text', () => {
      const f = filter([
        { t: 'kind', v: 'lpr' },
        { t: 'plate', v: 'watchlist', vt: 'flow' },
        { t: 'tag', v: 'tags', vt: 'msg' },
      ]);
      assert.deepEqual(f.reads, [
        { position: 2, type: 'plate', source: 'flow', property: 'watchlist' },
        { position: 3, type: 'tag', source: 'msg', property: 'tags' },
      ]);
      assert.equal(f.matches(plate(), [['ab-1', 'xyz 987'], 'vip']), true);
      assert.equal(f.matches(plate(), ['AB1\nXYZ-987', ['Staff parking']]), true);
      assert.equal(f.matches(plate(), [['AB1'], ['VIP']]), false);
      assert.equal(f.matches(plate(), [undefined, ['VIP']]), false, 'a missing list matches nothing');
      assert.equal(f.matches(plate(), [{ plate: 'XYZ987' }, ['VIP']]), false, 'an object is no list');
    });

    it('sees a list changed between two messages, also one changed in place', () => {
      const f = filter([{ t: 'camera', v: 'cameras', vt: 'global' }]);
      const list = ['Gate 1 LPR'];
      assert.equal(f.matches(plate(), [list]), false);
      list.push('Gate 2 LPR');
      assert.equal(f.matches(plate(), [list]), true, 'the same array, one more item');
      list.length = 0;
      assert.equal(f.matches(plate(), [list]), false, 'emptied');
      assert.equal(f.matches(plate(), ['gate 2 lpr']), true);
      assert.equal(f.matches(plate(), ['gate 1 lpr']), false);
    });

    it('an item replaced in place, the length unchanged, is not seen until the list is set again', () => {
      const f = filter([{ t: 'camera', v: 'cameras', vt: 'global' }]);
      const list = ['Gate 1 LPR'];
      assert.equal(f.matches(plate(), [list]), false);
      list[0] = 'Gate 2 LPR';
      assert.equal(f.matches(plate(), [list]), false, 'the list compiled before (documented)');
      assert.equal(f.matches(plate(), [[...list]]), true, 'set again: another array');
    });

    it('list items and problems', () => {
      assert.deepEqual(listItems(' a, b ,,\n c\r\n'), ['a', 'b', 'c']);
      assert.deepEqual(listItems(['a ', 7, '', null, { x: 1 }]), ['a', '7']);
      assert.deepEqual(listItems(undefined), []);
      assert.equal(listProblem(undefined), 'missing');
      assert.equal(listProblem(null), 'missing');
      assert.equal(listProblem({}), 'not-a-list');
      assert.equal(listProblem(true), 'not-a-list');
      assert.equal(listProblem(''), undefined, 'empty text is an empty list, not a problem');
      assert.equal(listProblem([]), undefined);
    });
  });

  describe('time rules', () => {
    /** A plate detected at `iso` (dateTimeUtc as sent), in `zone` (undefined: the event gives none). */
    const at = (iso, zone) =>
      plate((e) => {
        e.payload.detectionInfo.dateTimeUtc = iso;
        if (zone === undefined) delete e.payload.detectionInfo.timeZone;
        else e.payload.detectionInfo.timeZone = zone;
      });
    /** The raw event and its view, for matches(view, lists, detectionTime(event, now)). */
    const eventAt = (iso, zone, edit = () => {}) => {
      const event = buildSampleEvent('lpr', { now: NOW });
      if (iso === undefined) delete event.payload.detectionInfo.dateTimeUtc;
      else event.payload.detectionInfo.dateTimeUtc = iso;
      if (zone === undefined) delete event.payload.detectionInfo.timeZone;
      else event.payload.detectionInfo.timeZone = zone;
      edit(event);
      return { event, view: viewOfEvent(event, Date.parse('2026-03-01T12:00:00Z')) };
    };
    /** Whether `rules` pass the event, judged as the node judges it: its detection time, else `now`. */
    const judged = (rules, { iso, zone, now = Date.parse('2026-03-04T12:00:00Z'), options = {}, lists = [] }) => {
      const result = compileFilter(rules, 'all', options);
      assert.ok(result.ok, JSON.stringify(result.problems && result.problems.map((p) => renderMessage(p))));
      const { event, view } = eventAt(iso, zone);
      return result.filter.matches(view, lists, detectionTime(event, now));
    };
    const night = { t: 'time', v: 'Mon-Fri 22:00-06:00', vt: 'windows', k: 'inside' };

    it('inside or outside the windows, across midnight', () => {
      // Wednesday 4 March 2026, in UTC (the events say so)
      assert.equal(judged([night], { iso: '2026-03-04T23:30:00Z', zone: 'UTC' }), true, 'Wed 23:30');
      assert.equal(judged([night], { iso: '2026-03-05T05:59:00Z', zone: 'UTC' }), true, 'Thu 05:59, the night from Wednesday');
      assert.equal(judged([night], { iso: '2026-03-05T06:00:00Z', zone: 'UTC' }), false, 'Thu 06:00');
      assert.equal(judged([night], { iso: '2026-03-04T21:59:00Z', zone: 'UTC' }), false, 'Wed 21:59');
      const outside = { ...night, k: 'outside' };
      assert.equal(judged([outside], { iso: '2026-03-04T23:30:00Z', zone: 'UTC' }), false);
      assert.equal(judged([outside], { iso: '2026-03-04T12:00:00Z', zone: 'UTC' }), true);
      assert.equal(
        judged([{ t: 'time', v: 'Mon-Fri 22:00-06:00' }], { iso: '2026-03-04T23:30:00Z', zone: 'UTC' }),
        true,
        'k and vt missing: inside typed windows',
      );
    });

    it("the zone: the event's own, else the node's, else Node-RED's", () => {
      // 2026-03-04T22:30Z is 23:30 in Berlin, 17:30 in New York, 07:30 (Thursday) in Tokyo
      const iso = '2026-03-04T22:30:00Z';
      const options = { timeZone: 'Asia/Tokyo', systemTimeZone: 'America/New_York' };
      const late = [{ t: 'time', v: 'Wed 23:00-24:00' }];
      assert.equal(judged(late, { iso, zone: 'Europe/Berlin', options }), true, "the event's zone wins over the node's");
      assert.equal(judged(late, { iso, zone: 'UTC', options }), false, 'an event that says UTC is judged in UTC, not in the node zone');
      assert.equal(
        judged([{ t: 'time', v: 'Thu 07:00-08:00' }], { iso, zone: undefined, options }),
        true,
        "no zone in the event: the node's (Tokyo)",
      );
      assert.equal(judged([{ t: 'time', v: 'Thu 07:00-08:00' }], { iso, zone: 'Mars/Base', options }), true, 'a zone Intl does not know: as none');
      assert.equal(
        judged([{ t: 'time', v: 'Wed 17:00-18:00' }], { iso, zone: undefined, options: { systemTimeZone: 'America/New_York' } }),
        true,
        "no zone anywhere: Node-RED's (New York here)",
      );
      assert.equal(
        judged([{ t: 'time', v: 'Wed 17:00-18:00' }], { iso, zone: undefined, options: { timeZone: '', systemTimeZone: 'America/New_York' } }),
        true,
        "an empty zone is Node-RED's",
      );
      assert.equal(
        judged([{ t: 'time', v: 'Wed 17:00-18:00' }], { iso, zone: null, options: { timeZone: ' ', systemTimeZone: 'America/New_York' } }),
        true,
        'timeZone null',
      );
    });

    it('judges when the event happened (a resent event too); without a readable time, when it is handled', () => {
      const resent = eventAt('2026-03-04T23:30:00.1234567', 'UTC', (e) => (e.payload.resentEvent = true));
      const f = filter([night]);
      const day = Date.parse('2026-03-05T14:00:00Z');
      const when = detectionTime(resent.event, day);
      assert.deepEqual(when, { millis: Date.parse('2026-03-04T23:30:00.123Z'), fromEvent: true, zone: 'UTC' }, '.NET ticks, no zone: UTC');
      assert.equal(f.matches(resent.view, [], when), true, 'detected at night, arriving by day: passes');
      const timeless = eventAt('yesterday', 'UTC');
      assert.deepEqual(detectionTime(timeless.event, day), { millis: day, fromEvent: false, zone: 'UTC' });
      assert.equal(f.matches(timeless.view, [], detectionTime(timeless.event, day)), false, 'judged at 14:00: outside');
      assert.equal(f.matches(timeless.view, [], detectionTime(timeless.event, Date.parse('2026-03-04T23:00:00Z'))), true, 'judged at 23:00');
      assert.deepEqual(detectionTime(eventAt(undefined, 'europe/berlin').event, day), { millis: day, fromEvent: false, zone: 'Europe/Berlin' });
      assert.deepEqual(detectionTime('not an event', day), { millis: day, fromEvent: false, zone: null });
      assert.equal(f.judgesTime, true);
      assert.equal(filter([{ t: 'kind', v: 'lpr' }]).judgesTime, false);
    });

    it("without a DetectionTime: the view's time and zone", () => {
      assert.equal(holds(night, at('2026-03-04T23:30:00Z', 'UTC')), true);
      assert.equal(holds(night, at('2026-03-04T23:30:00Z', 'Asia/Tokyo')), false, 'Thursday 08:30 in Tokyo');
    });

    it('windows from env are read once, at deploy', () => {
      let asked = 0;
      const env = (name) => {
        asked++;
        return { NIGHT: 'Mon-Fri 22:00-06:00', BAD: 'Mon 25:00-06:00' }[name];
      };
      const result = compileFilter([{ t: 'time', v: 'NIGHT', vt: 'env' }], 'all', { env });
      assert.ok(result.ok);
      assert.deepEqual(result.filter.reads, [], 'nothing to read per message');
      const { event, view } = eventAt('2026-03-04T23:30:00Z', 'UTC');
      for (let i = 0; i < 3; i++) assert.equal(result.filter.matches(view, [], detectionTime(event, 0)), true);
      assert.equal(asked, 1);
      assert.equal(result.filter.summary(), 'time env.NIGHT');
      assert.deepEqual(
        problems([
          { t: 'time', v: 'MISSING', vt: 'env' },
          { t: 'time', v: ' ', vt: 'env' },
        ]),
        [
          'rule 1: the environment variable MISSING is not set: set it to time windows such as Mon-Fri 22:00-06:00, or type the windows in',
          'rule 2: enter the name of the environment variable that holds the time windows',
        ],
      );
      const bad = compileFilter([{ t: 'time', v: 'BAD', vt: 'env' }], 'all', { env });
      assert.equal(
        renderMessage(bad.problems[0]),
        'rule 1: the environment variable BAD does not hold time windows: "25:00" is not a time: write hours and minutes from 00:00 to 24:00, such as 22:00',
      );
      process.env.DETECTION_FILTER_TEST_WINDOWS = 'Sat,Sun';
      try {
        assert.ok(compileFilter([{ t: 'time', v: 'DETECTION_FILTER_TEST_WINDOWS', vt: 'env' }]).ok, 'without a resolver: process.env');
      } finally {
        delete process.env.DETECTION_FILTER_TEST_WINDOWS;
      }
    });

    it('windows read for each message (msg, flow, global): what is wrong with them, and no event holds', () => {
      const f = filter([
        { t: 'kind', v: 'lpr' },
        { t: 'time', v: 'night', vt: 'flow', k: 'inside' },
        { t: 'plate', v: 'watch', vt: 'global' },
      ]);
      assert.deepEqual(f.reads, [
        { position: 2, type: 'time', source: 'flow', property: 'night' },
        { position: 3, type: 'plate', source: 'global', property: 'watch' },
      ]);
      const { event, view } = eventAt('2026-03-04T23:30:00Z', 'UTC');
      const when = detectionTime(event, 0);
      assert.equal(f.matches(view, ['Mon-Fri 22:00-06:00', 'XYZ987'], when), true);
      assert.equal(f.matches(view, [[{ days: 'sat-sun' }], 'XYZ987'], when), false, 'windows changed: Wednesday is outside');
      assert.equal(f.matches(view, [undefined, 'XYZ987'], when), false, 'missing windows: no event holds');
      assert.equal(f.matches(view, ['Mon 25:00-06:00', 'XYZ987'], when), false, 'bad windows: no event holds');
      const outside = filter([{ t: 'time', v: 'night', vt: 'msg', k: 'outside' }]);
      assert.equal(outside.matches(view, [undefined], when), false, 'missing windows: not "outside" either');
      assert.equal(outside.matches(view, ['Sat,Sun'], when), true);

      assert.equal(f.readProblem(0, 'Mon'), undefined);
      assert.deepEqual(f.readProblem(0, undefined), { kind: 'missing' });
      const bad = f.readProblem(0, 'Mon 25:00-06:00');
      assert.equal(bad.kind, 'windows');
      assert.equal(renderMessage(bad.problem), '"25:00" is not a time: write hours and minutes from 00:00 to 24:00, such as 22:00');
      assert.deepEqual(f.readProblem(1, { x: 1 }), { kind: 'not-a-list' });
      assert.deepEqual(f.readProblem(1, null), { kind: 'missing' });
      assert.equal(f.readProblem(1, 'AB1'), undefined);
      assert.equal(f.readProblem(5, 'x'), undefined, 'no such read');
    });

    it('summary: the windows, or where they are read', () => {
      assert.equal(filter([{ t: 'time', v: 'mon-fri 22:00-06:00' }]).summary(), 'time Mon–Fri 22:00–06:00');
      assert.equal(filter([{ t: 'time', v: 'Sat,Sun', k: 'outside' }]).summary(), 'outside Sat,Sun 00:00–24:00');
      assert.equal(filter([{ t: 'time', v: 'night', vt: 'flow' }]).summary(), 'time flow.night');
    });

    it('rules that cannot work, and a node zone that is not one', () => {
      assert.deepEqual(
        problems([
          { t: 'time', v: 'Mon 25:00-06:00' },
          { t: 'time', v: '' },
          { t: 'time', v: 'Mon', k: 'during' },
          { t: 'time', v: 'Mon', vt: 'list' },
          { t: 'time', v: ' ', vt: 'global' },
          { t: 'time', v: 'Mon 10:00-11:00; Tue 10:00' },
        ]),
        [
          'rule 1: "25:00" is not a time: write hours and minutes from 00:00 to 24:00, such as 22:00',
          'rule 2: no time window given: write one such as Mon-Fri 22:00-06:00 (several separated by ;)',
          'rule 3: choose whether the time is within or outside the windows, not "during"',
          'rule 4: "list" is not a place to read time windows from: choose typed windows, msg, flow, global or env',
          'rule 5: enter the global property that holds the time windows',
          'rule 6: window 2 (Tue 10:00): "10:00" is not a from-to time: write the start and the end, such as 22:00-06:00',
        ],
      );
      const zoned = compileFilter([night, { t: 'tag', v: '' }], 'all', { timeZone: 'Berlin' });
      assert.deepEqual(
        zoned.problems.map((p) => [p.position, renderMessage(p)]),
        [
          [0, 'Time zone: "Berlin" is not a time zone: write Europe/Berlin, not Berlin'],
          [2, 'rule 2: enter at least one tag'],
        ],
      );
      assert.ok(compileFilter([{ t: 'tag', v: 'VIP' }], 'all', { timeZone: 'Berlin' }).ok, 'without a time rule the zone is not used');
      assert.ok(compileFilter([night], 'all', { timeZone: 'europe/berlin' }).ok);
    });
  });

  describe('summary', () => {
    it('one line: "·" for all, "or" for any', () => {
      assert.equal(
        filter([
          { t: 'tag', v: 'VIP, Banned' },
          { t: 'camera', v: 'Gate 2' },
        ]).summary(),
        'tag VIP, Banned · camera Gate 2',
      );
      assert.equal(filter([{ t: 'kind', v: 'lpr' }, { t: 'enrolled' }], 'any').summary(), 'plate or enrolled');
      assert.equal(filter([{ t: 'plate', v: 'watch', vt: 'flow' }]).summary(), 'plate flow.watch');
      assert.equal(filter([{ t: 'confidence', v: '0.8' }]).summary(), 'confidence ≥ 0.8');
      assert.equal(filter([{ t: 'context', k: 'zone', v: 'north' }]).summary(), 'zone = north');
      assert.equal(filter([{ t: 'camera-match', v: 'Gate*' }]).summary(), 'camera Gate*');
      assert.equal(filter([{ t: 'name', v: 'Doe' }]).summary(), 'name has Doe');
      assert.equal(filter([]).summary(), 'every event');
    });

    it('is cut with … past 40 characters', () => {
      const line = filter([
        { t: 'tag', v: 'VIP, Banned, Staff, Contractor' },
        { t: 'camera', v: 'Gate 2 LPR' },
      ]).summary();
      assert.equal(line.length, 40);
      assert.ok(line.endsWith('…'), line);
      assert.ok(line.startsWith('tag VIP, Banned, Staff, Contractor · ca'), line);
    });

    it('uses the translation it is given', () => {
      const upper = (key, params = {}) => `${key.split('.').pop()}(${Object.values(params).join('|')})`;
      assert.equal(filter([{ t: 'tag', v: 'A' }, { t: 'enrolled' }], 'any').summary(upper, 100), 'tag(A) or() enrolled()');
    });
  });

  describe('rules that cannot work', () => {
    it('say which rule and what to fix', () => {
      assert.deepEqual(
        problems([
          { t: 'enrolled' },
          { t: 'tag', v: ' , ' },
          { t: 'camera', v: '' },
          { t: 'site' },
          { t: 'plate', v: '', vt: 'list' },
          { t: 'plate', v: ' ', vt: 'flow' },
          { t: 'plate', v: 'x', vt: 'env' },
          { t: 'camera-match', v: '  ' },
          { t: 'name', v: '' },
          { t: 'confidence', v: '80' },
          { t: 'confidence', v: 'high' },
          { t: 'confidence', v: '' },
          { t: 'context', k: ' ', v: 'x' },
          { t: 'kind', v: 'pos' },
          { t: 'colour', v: 'red' },
          {},
          null,
        ]),
        [
          'rule 2: enter at least one tag',
          'rule 3: enter at least one camera name',
          'rule 4: enter at least one site',
          'rule 5: enter at least one plate',
          'rule 6: enter the flow property that holds the list',
          'rule 7: "env" is not a place to read a list from: choose a typed list, msg, flow or global',
          'rule 8: enter a camera pattern, such as Gate*',
          "rule 9: enter part of the person's name",
          'rule 10: enter a confidence from 0 to 1 (0.8 for 80%), not "80"',
          'rule 11: enter a confidence from 0 to 1 (0.8 for 80%), not "high"',
          'rule 12: enter a confidence from 0 to 1, such as 0.8 for 80%',
          'rule 13: enter the server context key',
          'rule 14: choose face or plate events',
          'rule 15: "colour" is not a kind of rule: choose one from the list',
          'rule 16: choose what the rule checks',
          'rule 17: choose what the rule checks',
        ],
      );
    });

    it('a rule list that is not a list', () => {
      const result = compileFilter({ t: 'tag' });
      assert.equal(result.ok, false);
      assert.equal(result.problems[0].position, 0);
      assert.match(renderMessage(result.problems[0]), /the rules are not a list/);
    });

    it('problems carry the rule position', () => {
      const result = compileFilter([{ t: 'enrolled' }, { t: 'name' }]);
      assert.deepEqual(
        result.problems.map((p) => p.position),
        [2],
      );
    });
  });

  describe('plate matching (lib/plates)', () => {
    /** The sample plate read as `read` (and similar1Plate as `similar`; none when undefined). */
    const read = (text, similar) =>
      plate((e) => {
        e.payload.lprPlateInfo.plate = text;
        if (similar === undefined) delete e.payload.lprPlateInfo.similar1Plate;
        else e.payload.lprPlateInfo.similar1Plate = similar;
      });
    /** The filter of `rules` with plate options `plates`, failing the test when it does not compile. */
    const fuzzy = (rules, plates, combine = 'all') => {
      const result = compileFilter(rules, combine, { plates });
      assert.ok(result.ok, `compiles: ${JSON.stringify(result.problems && result.problems.map((p) => renderMessage(p)))}`);
      return result.filter;
    };

    it('without options: exact, as the plate rule always matched', () => {
      const f = filter([{ t: 'plate', v: '8OB123' }]);
      assert.equal(f.matches(read('8OB 123')), true);
      assert.equal(f.matches(read('80B123')), false);
    });

    it('look-alikes and extra or missing characters as allowed; the outcome says why, with the rule position', () => {
      const f = fuzzy(
        [
          { t: 'kind', v: 'lpr' },
          { t: 'plate', v: 'XYZ987, 8OB-123' },
        ],
        { lookalikes: 1, extraMissing: 1 },
      );
      const outcome = f.evaluate(read('80B1234'));
      assert.equal(outcome.passed, true);
      assert.deepEqual(outcome.match, {
        rule: 2,
        entry: '8OB-123',
        read: '80B1234',
        against: 'plate',
        kind: 'extra-missing',
        differences: [
          { position: 2, entry: 'O', read: '0', kind: 'look-alike' },
          { position: 7, entry: '', read: '4', kind: 'extra' },
        ],
        score: 0.6,
      });
      assert.deepEqual(f.evaluate(read('B0B123')), { passed: false, match: undefined, rules: [], urgent: false }, 'two look-alikes');
      assert.equal(f.evaluate(face()).passed, false, 'never a face');
    });

    it('similar1Plate counts unless told otherwise', () => {
      const on = fuzzy([{ t: 'plate', v: '8OB123' }], { lookalikes: 1 });
      assert.deepEqual((({ against, kind, score }) => ({ against, kind, score }))(on.evaluate(read('777', '8OB123')).match), {
        against: 'similar1Plate',
        kind: 'similar1Plate',
        score: 0.95,
      });
      const off = fuzzy([{ t: 'plate', v: '8OB123' }], { lookalikes: 1, similar1Plate: false });
      assert.equal(off.matches(read('777', '8OB123')), false);
    });

    it("msg.match's top is the first plate rule that held; rules of other types give none", () => {
      const both = fuzzy(
        [
          { t: 'plate', v: 'AAA111' },
          { t: 'plate', v: '8OB123' },
          { t: 'plate', v: '80B123' },
        ],
        { lookalikes: 1 },
        'any',
      );
      assert.equal(both.evaluate(read('80B123')).match.rule, 2, 'rule 2 holds by a look-alike, before rule 3 exactly');
      const tagFirst = fuzzy(
        [
          { t: 'tag', v: 'VIP' },
          { t: 'plate', v: '8OB123' },
        ],
        { lookalikes: 1 },
        'any',
      );
      assert.equal(tagFirst.evaluate(read('80B123')).match.rule, 2, 'any: a tag rule held first, the plate rule still says why');
      assert.deepEqual(
        tagFirst.evaluate(read('XYZ987')),
        { passed: true, match: undefined, rules: [{ rule: 1, type: 'tag', tag: 'VIP', as: 'VIP' }], urgent: false },
        'passed on the tag only',
      );
      const tagOnly = fuzzy([{ t: 'tag', v: 'VIP' }], { lookalikes: 1 });
      assert.equal(tagOnly.evaluate(read('XYZ987')).match, undefined);
    });

    it('a plate list from context: compiled once while it is unchanged, again when it changes', () => {
      const f = fuzzy([{ t: 'plate', v: 'watchlist', vt: 'flow' }], { lookalikes: 1 });
      const list = Array.from({ length: 1000 }, (_, i) => `AB${String(i).padStart(4, '0')}`).concat('8OB123');
      const before = plateListCompilations();
      for (let i = 0; i < 50; i++) assert.equal(f.matches(read('80B123'), [list]), true);
      assert.equal(plateListCompilations(), before + 1, 'once for 50 messages');
      assert.equal(f.matches(read('80B123'), [[...list]]), true, 'a copy with the same items');
      assert.equal(plateListCompilations(), before + 1, 'not compiled again');
      list.push('XYZ987');
      assert.equal(f.matches(read('XYZ 987'), [list]), true, 'grown in place');
      assert.equal(plateListCompilations(), before + 2);
      assert.equal(f.matches(read('XYZ987'), [['AB0001']]), false, 'set anew');
      assert.equal(plateListCompilations(), before + 3);
      assert.equal(f.matches(read('AB0001'), ['AB0001, CD2']), true, 'text');
      assert.equal(f.matches(read('AB0001'), ['AB0001, CD2']), true);
      assert.equal(plateListCompilations(), before + 4, 'the same text: once');
    });

    it('the classes are checked where they are used: a problem names what is wrong', () => {
      const bad = compileFilter([{ t: 'plate', v: '8OB123' }], 'all', { plates: { lookalikes: 1, classes: '0O 1' } });
      assert.equal(bad.ok, false);
      assert.equal(bad.problems[0].position, 0);
      assert.equal(
        renderMessage(bad.problems[0]),
        'look-alike characters: the look-alike group "1" has one character: a group needs two or more, such as 0O',
      );
      assert.ok(compileFilter([{ t: 'plate', v: '8OB123' }], 'all', { plates: { lookalikes: 0, classes: '0O 1' } }).ok, 'exact: not used');
      assert.ok(compileFilter([{ t: 'tag', v: 'VIP' }], 'all', { plates: { lookalikes: 1, classes: '0O 1' } }).ok, 'no plate rule');
      const custom = fuzzy([{ t: 'plate', v: '7A' }], { lookalikes: 1, classes: '7T' });
      assert.equal(custom.matches(read('TA')), true);
      assert.equal(custom.matches(read('7A')), true);
      assert.equal(fuzzy([{ t: 'plate', v: '8B' }], { lookalikes: 1, classes: '7T' }).matches(read('BB')), false, 'the default classes replaced');
    });

    it('the summary says what plate rules forgive', () => {
      const rules = [{ t: 'plate', v: '8OB123' }];
      assert.equal(fuzzy(rules, {}).summary(), 'plate 8OB123');
      assert.equal(fuzzy(rules, { lookalikes: 1 }).summary(), 'plate 8OB123 (~1)');
      assert.equal(fuzzy(rules, { extraMissing: 2 }).summary(), 'plate 8OB123 (±2)');
      assert.equal(fuzzy([{ t: 'plate', v: 'hot', vt: 'flow' }], { lookalikes: 1, extraMissing: 1 }).summary(), 'plate flow.hot (~1 ±1)');
    });

    it("the dialog's default classes and its classes check are lib's", () => {
      const editor = require('../../support/editor-defaults');
      const def = editor.definitions()['detection-filter'].defaults.plateClasses;
      assert.equal(def.value, DEFAULT_LOOKALIKE_CLASSES);
      // the node's catalog (its own texts) over lib's (shared.json), as the build merges them
      const own = require('../../../locales/en-US/detection-filter.json');
      const english = (key, vars = {}) => {
        const text = key.split('.').reduce((at, part) => (at && typeof at === 'object' ? at[part] : undefined), own);
        return typeof text === 'string' ? text.replace(/__(\w+)__/g, (_, name) => String(vars[name])) : renderMessage({ key, params: vars });
      };
      const node = (v) => ({ _: english, rules: [{ t: 'plate', v: 'AB1', vt: 'list' }], plateLookalikes: '1', plateClasses: v });
      const cases = [DEFAULT_LOOKALIKE_CLASSES, '', '  ', '0o, 1i', '0O 1', '0O O8', '0O;1I', 'AA', 'ÄA ÖO', '0-O 1I', '0O 0Q', '8B b8'];
      for (const text of cases) {
        const parsed = parseLookalikeClasses(text);
        const verdict = def.validate.call(node(text), text, {});
        const expected = parsed.ok ? true : english('detection-filter.validators.plateClasses', { problem: renderMessage(parsed.problem) });
        assert.equal(verdict, expected, JSON.stringify(text));
      }
      assert.equal(def.validate.call({ ...node('1'), plateLookalikes: '0' }, '1', {}), true, 'exact: not used, not checked');
      assert.equal(def.validate.call({ ...node('1'), rules: [{ t: 'tag', v: 'VIP' }] }, '1', {}), true, 'no plate rule');
    });
  });
});
