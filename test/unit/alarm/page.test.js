'use strict';
/**
 * lib/alarm/page.ts: the mail link's page as HTML. What the alarm page
 * shows (picture inline, plate or person, camera, times, state, buttons),
 * that every value is escaped, the answers after a press, the refusals with
 * their statuses, and what the book says of a link.
 */
const assert = require('node:assert/strict');
const {
  AlarmBook,
  PAGE_HEADERS,
  alarmPage,
  donePage,
  emptyBook,
  escapeHtml,
  linkStanding,
  pagePicture,
  readableTime,
  refusalPage,
  slimEvent,
} = require('../../../dist/lib/alarm');
const { translate } = require('../../support');
const ev = require('../../fixtures/events');

const t = (key, vars) => translate(`detection-alarm.${key}`, vars);
const T0 = Date.parse('2026-03-01T22:00:00.000Z');
const ZONE = 'Europe/Berlin';
const JPEG = ev.jpegBase64(600, 7);

const OPTIONS = {
  remindMs: 300_000,
  maxReminders: 2,
  escalateMs: 900_000,
  quietMs: 3_600_000,
  maxOpen: 10,
  urgentPierces: false,
  historyMax: 100,
  historyMaxAgeMs: 86_400_000,
};

function alarm(overrides = {}) {
  return {
    id: 'k7m2qx9d',
    key: 'lpr:AB123CD',
    label: 'AB123CD',
    kind: 'lpr',
    camera: 'Gate 1',
    state: 'open',
    urgent: false,
    openedAt: T0,
    lastSeen: T0,
    reads: 3,
    reminders: 0,
    escalated: false,
    usedLinks: [],
    ...overrides,
  };
}

function plateEvent(plate = 'AB123CD', image = JPEG) {
  const e = ev.fullLpr();
  e.payload.lprPlateInfo.plate = plate;
  e.payload.detectionImages = [{ cropSizeName: 'Close', image }];
  return e;
}

const view = (overrides = {}) => ({
  alarm: alarm(),
  event: plateEvent(),
  expires: T0 + 86_400_000,
  snoozeLength: '30 min',
  zone: ZONE,
  ...overrides,
});
/** The page's text without tags and style. */
const textOf = (html) =>
  html
    .replace(/<style>.*?<\/style>/s, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

describe('alarm: link page', () => {
  it('escapes the five characters that end text or an attribute', () => {
    assert.equal(escapeHtml(`<a href="x">Tom & Jerry's</a>`), '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;');
    assert.equal(escapeHtml('AB123CD · Gate 1'), 'AB123CD · Gate 1');
  });

  it('a time people read is on the zone’s wall clock and names it; a zone this runtime does not know reads as UTC', () => {
    assert.equal(readableTime(T0, ZONE), '2026-03-01 23:00 Europe/Berlin');
    assert.equal(readableTime(T0, 'UTC'), '2026-03-01 22:00 UTC');
    assert.equal(readableTime(T0, 'Mars/Olympus'), '2026-03-01 22:00 UTC');
  });

  it('shows the alarm: its picture inline, the plate, camera, when it opened (readable and ISO), reads, state, and the two buttons', () => {
    const html = alarmPage(view(), t);
    assert.match(html, /^<!DOCTYPE html><html lang="en">/);
    assert.ok(html.includes(`<img src="data:image/jpeg;base64,${JPEG}" alt="Picture of AB123CD">`));
    const said = textOf(html);
    assert.match(said, /Alarm: AB123CD Alarm: AB123CD/, 'as title and heading');
    assert.ok(
      said.includes(
        'Plate AB123CD Camera Gate 1 Opened 2026-03-01 23:00 Europe/Berlin · 2026-03-01T22:00:00.000Z Reads 3 State open, not acknowledged yet',
      ),
      said,
    );
    assert.ok(said.includes('Opening this page changed nothing. A button press uses the link: it works once, until 2026-03-02 23:00 Europe/Berlin.'));
    assert.match(
      html,
      /<form method="post"><label>Your name <small>\(optional: shown as who answered\)<\/small><input type="text" name="name" maxlength="200"/,
    );
    assert.match(
      html,
      /<button type="submit" name="action" value="ack">Acknowledge<\/button><button type="submit" name="action" value="snooze">Snooze 30 min<\/button><\/form>/,
    );
    assert.doesNotMatch(html, /<form[^>]* action=/, 'posts back to its own address');
    assert.doesNotMatch(html, /<script|https?:\/\//, 'loads and runs nothing');
  });

  it('escapes every value from an event or a person', () => {
    const hostile = '<script>alert("x")</script>&';
    const html = alarmPage(
      view({
        alarm: alarm({ label: hostile, camera: `"><img src=x onerror=1>`, state: 'acknowledged', ackBy: "O'Brien <b>", ackAt: T0 + 60_000 }),
        event: plateEvent(hostile),
        snoozeLength: '<i>1 h</i>',
      }),
      t,
    );
    assert.doesNotMatch(html, /<script|<img src=x|<b>|<i>/);
    assert.ok(html.includes('Alarm: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;'));
    assert.ok(html.includes('&quot;&gt;&lt;img src=x onerror=1&gt;'));
    assert.ok(html.includes('acknowledged by O&#39;Brien &lt;b&gt; at 2026-03-01 23:01 Europe/Berlin'));
    assert.ok(html.includes('Snooze &lt;i&gt;1 h&lt;/i&gt;'));
  });

  it('acknowledged: says by whom and when, and offers only Snooze', () => {
    const html = alarmPage(view({ alarm: alarm({ state: 'acknowledged', ackBy: 'Anna', ackAt: T0 + 120_000 }) }), t);
    assert.ok(textOf(html).includes('State acknowledged by Anna at 2026-03-01 23:02 Europe/Berlin'));
    assert.doesNotMatch(html, /value="ack"/);
    assert.match(html, /value="snooze"/);
  });

  it('a person by name; the picture of a slim event; no event kept: says there is no picture, and the label stands for the subject', () => {
    const face = ev.fullFace();
    face.payload.detectionImage = { image: JPEG };
    const person = alarmPage(view({ alarm: alarm({ kind: 'face', key: 'face:1', label: 'Jane Doe' }), event: slimEvent(face) }), t);
    assert.match(textOf(person), new RegExp(`Person ${ev.fullFace().payload.personInfo.firstName} `));
    assert.ok(person.includes(`data:image/jpeg;base64,${JPEG}`));

    const gone = textOf(alarmPage(view({ event: undefined }), t));
    assert.ok(gone.includes('No picture: the alert had none, or it was not kept.'));
    assert.ok(gone.includes('Plate AB123CD'));
    const byCamera = textOf(alarmPage(view({ alarm: alarm({ key: 'camera:gate 1', label: 'Gate 1' }), event: undefined }), t));
    assert.doesNotMatch(byCamera, /Plate/, 'an alarm of a camera names no plate it does not know');
    const unreadable = textOf(alarmPage(view({ event: plateEvent('AB123CD', '!!not base64!!') }), t));
    assert.ok(unreadable.includes('The alert&#39;s picture could not be read.'), 'escaped as every text');
  });

  it('the picture: decoded and sent as a data: URL of its own type; none, unreadable, or not an image, no URL', () => {
    assert.deepEqual(pagePicture(plateEvent()), { ok: true, src: `data:image/jpeg;base64,${JPEG}` });
    assert.deepEqual(pagePicture(undefined), { ok: false, reason: 'none' });
    assert.deepEqual(pagePicture({ hello: 'world' }), { ok: false, reason: 'none' });
    assert.deepEqual(pagePicture(plateEvent('X', '%%%')), { ok: false, reason: 'unreadable' });
    assert.deepEqual(pagePicture(plateEvent('X', Buffer.from('plain text, not a picture').toString('base64'))), { ok: false, reason: 'unreadable' });
  });

  it('after a press: who acknowledged and when; what a snooze holds and until when', () => {
    assert.ok(
      textOf(donePage({ action: 'ack', by: 'Anna', at: T0 }, t, ZONE)).includes(
        'Acknowledged Acknowledged by Anna at 2026-03-01 23:00 Europe/Berlin',
      ),
    );
    const snoozed = textOf(donePage({ action: 'snooze', by: 'the mail link', length: '1 h', label: 'Gate 1', until: T0 + 3_600_000 }, t, ZONE));
    assert.ok(snoozed.includes('Snoozed for 1 h by the mail link: alerts about Gate 1 are held until 2026-03-02 00:00 Europe/Berlin'), snoozed);
  });

  it('refusals: the status and the sentence for each reason', () => {
    const cases = [
      [{ reason: 'forged' }, 403, 'This link is not valid: it was changed or not made by this Node-RED.'],
      [{ reason: 'malformed' }, 403, 'This link is not valid: it was changed or not made by this Node-RED.'],
      [{ reason: 'expired', expires: T0 }, 410, 'This link expired at 2026-03-01 23:00 Europe/Berlin.'],
      [{ reason: 'used' }, 410, 'This link was already used: a link works once.'],
      [{ reason: 'closed', by: 'Anna', at: T0 }, 410, 'Nothing to answer: the alarm was closed by Anna at 2026-03-01 23:00 Europe/Berlin.'],
      [{ reason: 'closed', by: '', at: T0 }, 410, 'Nothing to answer: the alarm was closed by itself (quiet) at 2026-03-01 23:00 Europe/Berlin.'],
      [{ reason: 'unknown' }, 404, 'Nothing to answer: no such alarm (it may have closed long ago).'],
      [
        { reason: 'already', by: '<Bob>', at: T0 },
        409,
        'Nothing was changed: the alarm was already acknowledged by &lt;Bob&gt; at 2026-03-01 23:00 Europe/Berlin.',
      ],
      [{ reason: 'method' }, 405, 'This page shows an alarm (GET) and takes its buttons (POST); nothing else.'],
      [{ reason: 'action' }, 400, 'press Acknowledge or Snooze'],
      [{ reason: 'too-large' }, 413, 'at most 4096 bytes'],
      [{ reason: 'form' }, 415, 'application/x-www-form-urlencoded'],
      [{ reason: 'failed' }, 500, 'could not be answered here'],
    ];
    for (const [refusal, status, text] of cases) {
      const page = refusalPage(refusal, t, ZONE);
      assert.equal(page.status, status, refusal.reason);
      assert.ok(page.html.includes(text), `${refusal.reason}: ${page.html}`);
      assert.ok(page.html.includes('<h1>This link does nothing</h1>'));
      assert.doesNotMatch(page.html, /<form/);
    }
  });

  it('what the book says of a link: open, used, closed (by whom, when) or unknown', () => {
    const book = new AlarmBook(emptyBook(), { ...OPTIONS, newId: () => 'k7m2qx9d' });
    const opened = book.raise({ key: 'lpr:AB123CD', label: 'AB123CD', kind: 'lpr', camera: 'Gate 1', urgent: false }, T0);
    const claim = { alarm: opened.alarm.id, nonce: 'n0nce-123', expires: T0 + 3_600_000 };
    const standing = linkStanding(book, claim);
    assert.deepEqual([standing.ok, standing.alarm.id], [true, 'k7m2qx9d']);
    assert.equal(book.useLink(claim.alarm, claim.nonce), true);
    assert.deepEqual(linkStanding(book, claim), { ok: false, refusal: { reason: 'used' } });
    assert.equal(linkStanding(book, { ...claim, nonce: 'other-nonce' }).ok, true, 'another mail’s link of the same alarm still works');
    book.close(claim.alarm, { by: 'Anna', via: 'message' }, T0 + 60_000);
    assert.deepEqual(linkStanding(book, { ...claim, nonce: 'other-nonce' }), {
      ok: false,
      refusal: { reason: 'closed', by: 'Anna', at: T0 + 60_000 },
    });
    assert.deepEqual(linkStanding(book, { ...claim, alarm: 'zz99zz99' }), { ok: false, refusal: { reason: 'unknown' } });
  });

  it('headers: never kept, indexed or referred; nothing loaded but inline pictures and style; forms post back only', () => {
    assert.equal(PAGE_HEADERS['Content-Type'], 'text/html; charset=utf-8');
    assert.equal(PAGE_HEADERS['Cache-Control'], 'no-store');
    assert.equal(PAGE_HEADERS['Referrer-Policy'], 'no-referrer');
    assert.match(PAGE_HEADERS['X-Robots-Tag'], /noindex/);
    const csp = PAGE_HEADERS['Content-Security-Policy'].split(';').map((d) => d.trim());
    for (const directive of ["default-src 'none'", 'img-src data:', "style-src 'unsafe-inline'", "form-action 'self'"])
      assert.ok(csp.includes(directive), directive);
  });
});
