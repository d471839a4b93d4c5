'use strict';
/**
 * lib/events/time-window.ts: weekdays and from–to local times, judged on an
 * instant in an IANA zone through Intl, across midnight and across the
 * daylight-saving changes of 2026 in Europe/Berlin and America/New_York.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { ROOT } = require('../../support');

const {
  parseWindows,
  formatWindows,
  isInside,
  localClock,
  knownTimeZone,
  timeZoneProblem,
  systemTimeZone,
  windowsReader,
  daysText,
  weekdayOf,
  minutesOf,
  EVERY_DAY,
} = require(path.join(ROOT, 'dist', 'lib', 'events', 'time-window'));
const { renderMessage } = require(path.join(ROOT, 'dist', 'lib', 'core', 'messages'));

/** The windows of `text`, failing the test when they do not parse. */
function windows(text) {
  const result = parseWindows(text);
  assert.ok(result.ok, `${JSON.stringify(text)} parses: ${result.ok ? '' : renderMessage(result.problem)}`);
  return result.windows;
}
/** The problem of `value`, in English. */
function problem(value) {
  const result = parseWindows(value);
  assert.equal(result.ok, false, `${JSON.stringify(value)} does not parse`);
  return renderMessage(result.problem);
}
const utc = (iso) => Date.parse(iso);

/**
 * Each case: windows, a zone, and instants (UTC) with whether each is inside.
 * The local time each instant is in the zone is written beside it.
 */
const CASES = [
  {
    what: 'across midnight: Mon 22:00-06:00 runs from Monday 22:00 to Tuesday 06:00',
    windows: 'Mon 22:00-06:00',
    zone: 'UTC',
    at: [
      ['2026-03-02T21:59:59Z', false, 'Mon 21:59:59'],
      ['2026-03-02T22:00:00Z', true, 'Mon 22:00'],
      ['2026-03-02T23:59:59Z', true, 'Mon 23:59:59'],
      ['2026-03-03T00:00:00Z', true, 'Tue 00:00'],
      ['2026-03-03T05:59:00Z', true, 'Tue 05:59'],
      ['2026-03-03T05:59:59.999Z', true, 'Tue 05:59:59.999'],
      ['2026-03-03T06:00:00Z', false, 'Tue 06:00'],
      ['2026-03-02T05:59:00Z', false, 'Mon 05:59: the night before was Sunday, not a start day'],
      ['2026-03-03T22:00:00Z', false, 'Tue 22:00: Tuesday is not a start day'],
    ],
  },
  {
    what: 'across midnight and the week: Sun 22:00-06:00 ends on Monday morning',
    windows: 'Sun 22:00-06:00',
    zone: 'UTC',
    at: [
      ['2026-03-01T22:30:00Z', true, 'Sun 22:30'],
      ['2026-03-02T05:59:00Z', true, 'Mon 05:59'],
      ['2026-03-02T06:00:00Z', false, 'Mon 06:00'],
      ['2026-02-28T23:00:00Z', false, 'Sat 23:00'],
    ],
  },
  {
    what: 'weekdays: Mon-Fri 08:00-17:00',
    windows: 'Mon-Fri 08:00-17:00',
    zone: 'UTC',
    at: [
      ['2026-03-02T08:00:00Z', true, 'Mon 08:00'],
      ['2026-03-02T07:59:59Z', false, 'Mon 07:59:59'],
      ['2026-03-06T16:59:59Z', true, 'Fri 16:59:59'],
      ['2026-03-06T17:00:00Z', false, 'Fri 17:00'],
      ['2026-03-07T10:00:00Z', false, 'Sat 10:00'],
      ['2026-03-08T10:00:00Z', false, 'Sun 10:00'],
    ],
  },
  {
    what: 'the whole day on some days, and a range that wraps past Sunday',
    windows: 'Sat,Sun; Fri-Mon 12:00-13:00',
    zone: 'UTC',
    at: [
      ['2026-03-07T00:00:00Z', true, 'Sat 00:00'],
      ['2026-03-08T23:59:59Z', true, 'Sun 23:59:59'],
      ['2026-03-09T00:00:00Z', false, 'Mon 00:00'],
      ['2026-03-09T12:30:00Z', true, 'Mon 12:30 (Fri-Mon)'],
      ['2026-03-06T12:00:00Z', true, 'Fri 12:00 (Fri-Mon)'],
      ['2026-03-10T12:30:00Z', false, 'Tue 12:30'],
    ],
  },
  {
    what: 'the local weekday, not the UTC one: Tokyo is a day ahead late in the UTC evening',
    windows: 'Tue 08:00-09:00',
    zone: 'Asia/Tokyo',
    at: [
      ['2026-03-02T23:30:00Z', true, 'Tue 08:30 in Tokyo, Monday in UTC'],
      ['2026-03-03T23:30:00Z', false, 'Wed 08:30 in Tokyo'],
    ],
  },
  // Europe/Berlin, spring forward: Sunday 29 March 2026, 02:00 CET becomes 03:00 CEST (01:00 UTC).
  {
    what: 'Europe/Berlin, spring forward: the missing hour 02:00-03:00 never occurs',
    windows: 'Sun 02:00-03:00',
    zone: 'Europe/Berlin',
    at: [
      ['2026-03-29T00:59:59Z', false, '01:59:59 CET, just before'],
      ['2026-03-29T01:00:00Z', false, '03:00 CEST, just after'],
      ['2026-03-29T01:30:00Z', false, '03:30 CEST'],
    ],
  },
  {
    what: 'Europe/Berlin, spring forward: a window over the change is one hour shorter in real time, right at both ends',
    windows: 'Sun 01:00-04:00',
    zone: 'Europe/Berlin',
    at: [
      ['2026-03-28T23:59:59Z', false, '00:59:59 CET'],
      ['2026-03-29T00:00:00Z', true, '01:00 CET'],
      ['2026-03-29T00:59:59Z', true, '01:59:59 CET, just before'],
      ['2026-03-29T01:00:00Z', true, '03:00 CEST, just after'],
      ['2026-03-29T01:59:59Z', true, '03:59:59 CEST'],
      ['2026-03-29T02:00:00Z', false, '04:00 CEST'],
    ],
  },
  {
    what: 'Europe/Berlin, spring forward: a night window across midnight and the change',
    windows: 'Sat 22:00-06:00',
    zone: 'Europe/Berlin',
    at: [
      ['2026-03-28T20:59:59Z', false, 'Sat 21:59:59 CET'],
      ['2026-03-28T21:00:00Z', true, 'Sat 22:00 CET'],
      ['2026-03-29T03:59:59Z', true, 'Sun 05:59:59 CEST'],
      ['2026-03-29T04:00:00Z', false, 'Sun 06:00 CEST'],
    ],
  },
  // Europe/Berlin, fall back: Sunday 25 October 2026, 03:00 CEST becomes 02:00 CET (01:00 UTC).
  {
    what: 'Europe/Berlin, fall back: the repeated hour 02:00-03:00 is inside both times',
    windows: 'Sun 02:00-03:00',
    zone: 'Europe/Berlin',
    at: [
      ['2026-10-24T23:59:59Z', false, '01:59:59 CEST'],
      ['2026-10-25T00:00:00Z', true, '02:00 CEST, the first time'],
      ['2026-10-25T00:59:59Z', true, '02:59:59 CEST, just before the change'],
      ['2026-10-25T01:00:00Z', true, '02:00 CET, just after: the second time'],
      ['2026-10-25T01:59:59Z', true, '02:59:59 CET'],
      ['2026-10-25T02:00:00Z', false, '03:00 CET'],
    ],
  },
  {
    what: 'Europe/Berlin, fall back: a window ending at 02:30 ends at the first 02:30 and holds again in the repeated half hour',
    windows: 'Sun 01:00-02:30',
    zone: 'Europe/Berlin',
    at: [
      ['2026-10-25T00:29:59Z', true, '02:29:59 CEST'],
      ['2026-10-25T00:30:00Z', false, '02:30 CEST'],
      ['2026-10-25T01:00:00Z', true, '02:00 CET, the hour again'],
      ['2026-10-25T01:30:00Z', false, '02:30 CET'],
    ],
  },
  {
    what: 'Europe/Berlin, fall back: a night window across midnight and the change',
    windows: 'Sat 22:00-06:00',
    zone: 'Europe/Berlin',
    at: [
      ['2026-10-24T19:59:59Z', false, 'Sat 21:59:59 CEST'],
      ['2026-10-24T20:00:00Z', true, 'Sat 22:00 CEST'],
      ['2026-10-25T04:59:59Z', true, 'Sun 05:59:59 CET'],
      ['2026-10-25T05:00:00Z', false, 'Sun 06:00 CET'],
    ],
  },
  // America/New_York, spring forward: Sunday 8 March 2026, 02:00 EST becomes 03:00 EDT (07:00 UTC).
  {
    what: 'America/New_York, spring forward: the missing hour 02:00-03:00 never occurs',
    windows: 'Sun 02:00-03:00',
    zone: 'America/New_York',
    at: [
      ['2026-03-08T06:59:59Z', false, '01:59:59 EST, just before'],
      ['2026-03-08T07:00:00Z', false, '03:00 EDT, just after'],
    ],
  },
  {
    what: 'America/New_York, spring forward: 01:00-03:00 ends at the change',
    windows: 'Sun 01:00-03:00',
    zone: 'America/New_York',
    at: [
      ['2026-03-08T06:00:00Z', true, '01:00 EST'],
      ['2026-03-08T06:59:59Z', true, '01:59:59 EST, just before'],
      ['2026-03-08T07:00:00Z', false, '03:00 EDT, just after'],
    ],
  },
  {
    what: 'America/New_York, spring forward: a window starting at 03:00 starts at the change',
    windows: 'Sun 03:00-04:00',
    zone: 'America/New_York',
    at: [
      ['2026-03-08T06:59:59Z', false, '01:59:59 EST'],
      ['2026-03-08T07:00:00Z', true, '03:00 EDT'],
      ['2026-03-08T07:59:59Z', true, '03:59:59 EDT'],
      ['2026-03-08T08:00:00Z', false, '04:00 EDT'],
    ],
  },
  // America/New_York, fall back: Sunday 1 November 2026, 02:00 EDT becomes 01:00 EST (06:00 UTC).
  {
    what: 'America/New_York, fall back: the repeated hour 01:00-02:00 is inside both times',
    windows: 'Sun 01:00-02:00',
    zone: 'America/New_York',
    at: [
      ['2026-11-01T04:59:59Z', false, '00:59:59 EDT'],
      ['2026-11-01T05:00:00Z', true, '01:00 EDT, the first time'],
      ['2026-11-01T05:59:59Z', true, '01:59:59 EDT, just before the change'],
      ['2026-11-01T06:00:00Z', true, '01:00 EST, just after: the second time'],
      ['2026-11-01T06:59:59Z', true, '01:59:59 EST'],
      ['2026-11-01T07:00:00Z', false, '02:00 EST'],
    ],
  },
  {
    what: 'America/New_York, fall back: a night window across midnight and the change is an hour longer in real time',
    windows: 'Sat 22:00-06:00',
    zone: 'America/New_York',
    at: [
      ['2026-11-01T01:59:59Z', false, 'Sat 21:59:59 EDT'],
      ['2026-11-01T02:00:00Z', true, 'Sat 22:00 EDT'],
      ['2026-11-01T10:59:59Z', true, 'Sun 05:59:59 EST'],
      ['2026-11-01T11:00:00Z', false, 'Sun 06:00 EST'],
    ],
  },
];

describe('lib/events/time-window', () => {
  describe('inside or outside (table)', () => {
    for (const c of CASES) {
      it(c.what, () => {
        const w = windows(c.windows);
        for (const [iso, inside, local] of c.at) {
          assert.equal(isInside(w, utc(iso), c.zone), inside, `${c.windows} in ${c.zone} at ${iso} (${local}): ${inside ? 'inside' : 'outside'}`);
        }
      });
    }
  });

  describe('the local clock through Intl', () => {
    it('weekday (0 Monday) and minute of the day, across both 2026 changes', () => {
      const clock = (iso, zone) => localClock(utc(iso), zone);
      assert.deepEqual(clock('2026-03-29T00:59:59Z', 'Europe/Berlin'), { weekday: 6, minute: 1 * 60 + 59 });
      assert.deepEqual(clock('2026-03-29T01:00:00Z', 'Europe/Berlin'), { weekday: 6, minute: 3 * 60 }, 'from 01:59 straight to 03:00');
      assert.deepEqual(clock('2026-10-25T00:30:00Z', 'Europe/Berlin'), { weekday: 6, minute: 2 * 60 + 30 });
      assert.deepEqual(clock('2026-10-25T01:30:00Z', 'Europe/Berlin'), { weekday: 6, minute: 2 * 60 + 30 }, '02:30 twice');
      assert.deepEqual(clock('2026-03-08T07:00:00Z', 'America/New_York'), { weekday: 6, minute: 3 * 60 });
      assert.deepEqual(clock('2026-11-01T06:30:00Z', 'America/New_York'), { weekday: 6, minute: 1 * 60 + 30 });
      assert.deepEqual(clock('2026-03-02T00:00:00Z', 'UTC'), { weekday: 0, minute: 0 }, 'midnight is 00:00, not 24:00');
      assert.deepEqual(clock('2026-03-02T00:00:00Z', 'America/New_York'), { weekday: 6, minute: 19 * 60 }, 'Sunday evening in New York');
      assert.equal(localClock(utc('2026-03-02T00:00:00Z'), 'Mars/Base'), null, 'a zone Intl does not know');
      assert.equal(localClock(NaN, 'UTC'), null);
      assert.equal(isInside(windows('00:00-24:00'), utc('2026-03-02T00:00:00Z'), 'Mars/Base'), false, 'an unknown zone is inside nothing');
    });

    it("zones: known ones by the name Intl gives them; Node-RED's own from the process", () => {
      assert.equal(knownTimeZone('Europe/Berlin'), 'Europe/Berlin');
      assert.equal(knownTimeZone('europe/berlin'), 'Europe/Berlin');
      assert.equal(knownTimeZone(' America/New_York '), 'America/New_York');
      assert.equal(knownTimeZone('Berlin'), undefined);
      assert.equal(knownTimeZone(''), undefined);
      assert.equal(knownTimeZone(null), undefined);
      assert.equal(knownTimeZone(7), undefined);
      assert.equal(systemTimeZone(), new Intl.DateTimeFormat().resolvedOptions().timeZone);
    });

    it('a zone typed wrong says what to write', () => {
      assert.equal(timeZoneProblem(''), undefined, "empty: Node-RED's zone");
      assert.equal(timeZoneProblem(undefined), undefined);
      assert.equal(timeZoneProblem('Asia/Tokyo'), undefined);
      assert.equal(renderMessage(timeZoneProblem('Berlin')), '"Berlin" is not a time zone: write Europe/Berlin, not Berlin');
      assert.equal(renderMessage(timeZoneProblem('new york')), '"new york" is not a time zone: write America/New_York, not new york');
      assert.equal(
        renderMessage(timeZoneProblem('Mars/Base')),
        '"Mars/Base" is not a time zone: write an IANA name such as Europe/Berlin or America/New_York',
      );
      assert.match(renderMessage(timeZoneProblem(42)), /^"42" is not a time zone/);
    });
  });

  describe('the text form', () => {
    it('days, times, several windows; read back as written', () => {
      const cases = [
        ['Mon-Fri 22:00-06:00; Sat,Sun 00:00-24:00', 'Mon-Fri 22:00-06:00; Sat,Sun 00:00-24:00'],
        ['mon–fri 22:00 – 06:00', 'Mon-Fri 22:00-06:00'],
        ['MONDAY - friday 7:30-9:00', 'Mon-Fri 07:30-09:00'],
        ['Mo,We,Fr 10:00-11:00', 'Mon,Wed,Fri 10:00-11:00'],
        ['tues thurs 10:00-11:00', 'Tue,Thu 10:00-11:00'],
        ['Sat, Sun', 'Sat,Sun 00:00-24:00'],
        ['22:00-06:00', '22:00-06:00'],
        ['Fri-Mon 08:00-17:00', 'Mon,Fri-Sun 08:00-17:00'],
        ['Mon 22:00-00:00', 'Mon 22:00-24:00'],
        ['Mon 00:00-00:00', 'Mon 00:00-24:00'],
        ['Mon-Sun 09:00-10:00', '09:00-10:00'],
        ['Mon 10:00-11:00\nTue 12:00-13:00;', 'Mon 10:00-11:00; Tue 12:00-13:00'],
      ];
      for (const [text, back] of cases) assert.equal(formatWindows(windows(text)), back, JSON.stringify(text));
      assert.deepEqual(windows('Mon 22:00-06:00'), [{ days: 1, from: 22 * 60, to: 6 * 60 }]);
      assert.deepEqual(windows('Sun'), [{ days: 1 << 6, from: 0, to: 1440 }]);
      assert.deepEqual(windows('10:00-11:00'), [{ days: EVERY_DAY, from: 600, to: 660 }]);
      assert.equal(formatWindows(windows('Mon-Fri 22:00-06:00; Sat,Sun'), '–'), 'Mon–Fri 22:00–06:00; Sat,Sun 00:00–24:00');
    });

    it('lists: of texts, and of objects {days, from, to}, as a dashboard or function node sets them', () => {
      assert.equal(
        formatWindows(
          windows([
            { days: ['mon', 'tue'], from: '22:00', to: '06:00' },
            { days: 'sat-sun' },
            { days: ['Friday'], from: '12:00', to: '13:00' },
            { from: '01:00', to: '02:00' },
          ]),
        ),
        'Mon,Tue 22:00-06:00; Sat,Sun 00:00-24:00; Fri 12:00-13:00; 01:00-02:00',
      );
      assert.equal(formatWindows(windows(['Mon 10:00-11:00', 'Sat,Sun'])), 'Mon 10:00-11:00; Sat,Sun 00:00-24:00');
      assert.equal(formatWindows(windows({ days: 'mon-fri', from: '08:00', to: '17:00' })), 'Mon-Fri 08:00-17:00', 'one object alone');
    });

    it('errors say exactly what is wrong and how to write it', () => {
      const cases = [
        ['Mon 25:00-06:00', '"25:00" is not a time: write hours and minutes from 00:00 to 24:00, such as 22:00'],
        ['Mon 22:00-06:60', '"06:60" is not a time: write hours and minutes from 00:00 to 24:00, such as 22:00'],
        ['Mon 22-06', '"22" is not a time: write hours and minutes from 00:00 to 24:00, such as 22:00'],
        ['Mon 24:30-06:00', '"24:30" is not a time: write hours and minutes from 00:00 to 24:00, such as 22:00'],
        ['Mon 22:00', '"22:00" is not a from-to time: write the start and the end, such as 22:00-06:00'],
        ['Funday 10:00-11:00', '"Funday" is not a weekday: write Mon, Tue, Wed, Thu, Fri, Sat or Sun (or the full name), such as Mon-Fri or Sat,Sun'],
        ['M 10:00-11:00', '"M" is not a weekday: write Mon, Tue, Wed, Thu, Fri, Sat or Sun (or the full name), such as Mon-Fri or Sat,Sun'],
        ['Mon-Fri-Sat', '"Mon-Fri-Sat" is not a weekday: write Mon, Tue, Wed, Thu, Fri, Sat or Sun (or the full name), such as Mon-Fri or Sat,Sun'],
        ['Mon 06:00-06:00', 'the window starts and ends at 06:00: for the whole day write 00:00-24:00'],
        ['24:00-06:00', 'a window cannot start at 24:00: start it at 00:00'],
        ['', 'no time window given: write one such as Mon-Fri 22:00-06:00 (several separated by ;)'],
        [' ; ', 'no time window given: write one such as Mon-Fri 22:00-06:00 (several separated by ;)'],
        [[], 'no time window given: write one such as Mon-Fri 22:00-06:00 (several separated by ;)'],
        [42, 'time windows are text such as Mon-Fri 22:00-06:00 or a list of {days, from, to}, not 42'],
        [undefined, 'time windows are text such as Mon-Fri 22:00-06:00 or a list of {days, from, to}, not undefined'],
        [
          'Mon 10:00-11:00; Tue 25:00-26:00',
          'window 2 (Tue 25:00-26:00): "25:00" is not a time: write hours and minutes from 00:00 to 24:00, such as 22:00',
        ],
        [[{ days: 3 }], 'days are weekday names such as "mon-fri" or ["sat", "sun"], not 3'],
        [[{ days: ['mon'], from: '22:00' }], 'give both from and to (such as from 22:00 to 06:00), or neither for the whole day'],
        [
          [{ days: 'mon' }, { days: ['xx'] }],
          'window 2: "xx" is not a weekday: write Mon, Tue, Wed, Thu, Fri, Sat or Sun (or the full name), such as Mon-Fri or Sat,Sun',
        ],
        [['Mon', 7], 'window 2: a window is text such as Mon-Fri 22:00-06:00 or an object {days, from, to}, not 7'],
      ];
      for (const [value, text] of cases) assert.equal(problem(value), text, JSON.stringify(value));
    });

    it('parts: weekday names, times, days as text', () => {
      assert.equal(weekdayOf('Mon'), 0);
      assert.equal(weekdayOf('sunday'), 6);
      assert.equal(weekdayOf('Th'), 3);
      assert.equal(weekdayOf('T'), -1, 'one letter is not enough (Tue or Thu?)');
      assert.equal(weekdayOf('Mond'), 0);
      assert.equal(weekdayOf('Mondays'), -1);
      assert.equal(minutesOf('24:00'), 1440);
      assert.equal(minutesOf('7:05'), 425);
      assert.equal(minutesOf('07:5'), undefined);
      assert.equal(daysText(EVERY_DAY), '');
      assert.equal(daysText(0b0011111), 'Mon-Fri');
      assert.equal(daysText(0b1100000), 'Sat,Sun');
      assert.equal(daysText(0b1011101, '–'), 'Mon,Wed–Fri,Sun');
    });
  });

  describe('in the editor', () => {
    it('detection-bridge/editor.js runs this file as it is: the dialog reads and writes windows as the runtime does', () => {
      const vm = require('node:vm');
      const { editorScript } = require(path.join(ROOT, 'dist', 'nodes', 'shared', 'editor-script'));
      const RED = { events: { on() {} }, nodes: { node: () => undefined }, validators: { typedInput: () => () => true } };
      const context = { window: {}, RED };
      vm.runInNewContext(editorScript(), context);
      const inEditor = context.window.DetectionBridgeTimeWindows;
      assert.ok(inEditor, 'window.DetectionBridgeTimeWindows');
      const parsed = inEditor.parseWindows('mo-fr 22:00-06:00; Sat,Sun');
      assert.equal(inEditor.formatWindows(parsed.windows), 'Mon-Fri 22:00-06:00; Sat,Sun 00:00-24:00');
      const bad = inEditor.parseWindows('Mon 25:00-06:00');
      assert.equal(renderMessage(bad.problem), '"25:00" is not a time: write hours and minutes from 00:00 to 24:00, such as 22:00');
      assert.equal(renderMessage(inEditor.timeZoneProblem('Berlin')), '"Berlin" is not a time zone: write Europe/Berlin, not Berlin');
    });
  });

  describe('windows read for each message', () => {
    it('are parsed once per change, not per message', () => {
      const read = windowsReader();
      const first = read('Mon-Fri 22:00-06:00');
      assert.equal(read('Mon-Fri 22:00-06:00'), first, 'the same text: the same result, not parsed again');
      const changed = read('Sat,Sun');
      assert.notEqual(changed, first);
      assert.equal(formatWindows(changed.windows), 'Sat,Sun 00:00-24:00');

      const list = [{ days: ['mon'], from: '22:00', to: '06:00' }];
      const fromList = read(list);
      assert.equal(read(list), fromList);
      assert.equal(read([{ days: ['mon'], from: '22:00', to: '06:00' }]), fromList, 'a copy with the same content');
      list[0].to = '05:00';
      const edited = read(list);
      assert.notEqual(edited, fromList, 'the same list changed in place is seen');
      assert.equal(formatWindows(edited.windows), 'Mon 22:00-05:00');

      const bad = read('Mon 25:00-06:00');
      assert.equal(bad.ok, false);
      assert.equal(read('Mon 25:00-06:00'), bad, 'a bad value too is parsed once');
    });
  });
});
