/**
 * The mail link's page as HTML: the alarm (its picture, plate or person,
 * camera, time, reads and state) with the Acknowledge and Snooze buttons,
 * the answer after a press, and the refusals that say why a link does
 * nothing. No I/O: the node reads the token, the book and the form
 * (nodes/detection-alarm/page.ts). Every text comes from the node's catalog
 * through `t`; every value is escaped, and nothing is loaded or run beside
 * the page (PAGE_HEADERS): the picture is inline.
 */
import { alertPicture } from '../alert';
import { wallClock } from '../core/time-zone';
import { viewOfEvent } from '../events';
import { DEFAULT_PICK_OPTIONS } from '../image';
import type { AlarmBook } from './book';
import type { LinkClaim } from './link';
import { MAX_TEXT, type Alarm } from './types';

/** The node's catalog: `t('page.title.alarm', { label })`. */
export type PageText = (key: string, vars?: Record<string, string | number>) => string;

/** Headers of every page: never kept or indexed, no referrer (the link is a key), no script, forms post back only. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex, nofollow',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy':
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

/** Most bytes of the page's form (a name and a button). */
export const MAX_FORM_BYTES = 4096;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` safe inside HTML text and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** A time people read, on the wall clock of `zone`: `2026-03-01 23:00 Europe/Berlin`. */
export function readableTime(ms: number, zone: string): string {
  const wall = wallClock(ms, zone);
  return `${(wall ?? new Date(ms)).toISOString().slice(0, 16).replace('T', ' ')} ${wall ? zone : 'UTC'}`;
}

/** Why a page does nothing: the link, the request, or the book's answer to the action. */
export type PageRefusal =
  | { reason: 'malformed' | 'forged' | 'used' | 'unknown' | 'method' | 'action' | 'too-large' | 'form' | 'failed' }
  | { reason: 'expired'; expires: number }
  | { reason: 'closed'; by: string; at: number }
  /** The book refused an acknowledgement: somebody was first. */
  | { reason: 'already'; by: string; at: number };

const STATUS: Record<PageRefusal['reason'], number> = {
  malformed: 403,
  forged: 403,
  expired: 410,
  used: 410,
  closed: 410,
  already: 409,
  unknown: 404,
  method: 405,
  action: 400,
  'too-large': 413,
  form: 415,
  failed: 500,
};

/** Whether the link of `claim` may still answer its alarm, from the book as it is now. */
export function linkStanding(book: AlarmBook, claim: LinkClaim): { ok: true; alarm: Alarm } | { ok: false; refusal: PageRefusal } {
  const alarm = book.find(claim.alarm);
  if (!alarm) {
    const closed = book.closedEntry(claim.alarm);
    return { ok: false, refusal: closed ? { reason: 'closed', by: closed.by, at: closed.at } : { reason: 'unknown' } };
  }
  if (alarm.usedLinks.includes(claim.nonce)) return { ok: false, refusal: { reason: 'used' } };
  return { ok: true, alarm };
}

export type PagePicture = { ok: true; src: string } | { ok: false; reason: 'none' | 'unreadable' };

/** The picture an alert shows (lib/image's default choice), as a data: URL; the slim event keeps just that one. */
export function pagePicture(event: unknown): PagePicture {
  if (event === undefined) return { ok: false, reason: 'none' };
  const found = alertPicture(event, DEFAULT_PICK_OPTIONS);
  if (!found.ok) return { ok: false, reason: found.reason };
  const { contentType, data } = found.picture;
  // a type the browser would not show as a picture is no picture here either
  if (!contentType.startsWith('image/')) return { ok: false, reason: 'unreadable' };
  return { ok: true, src: `data:${contentType};base64,${data.toString('base64')}` };
}

export interface AlarmPageView {
  alarm: Alarm;
  /** The alarm's kept event (slim: one picture); undefined when none is kept. */
  event: unknown;
  /** When the link stops working (epoch ms). */
  expires: number;
  /** How long the Snooze button snoozes, as people read it (`30 min`). */
  snoozeLength: string;
  /** The zone readable times are in (Node-RED's). */
  zone: string;
}

const STYLE =
  'body{font:16px/1.45 system-ui,sans-serif;margin:0;padding:1rem;color:#222;background:#f4f4f4}' +
  'main{max-width:34rem;margin:auto;background:#fff;padding:1rem 1.25rem;border-radius:6px}' +
  'h1{font-size:1.35rem;margin:.2rem 0 .8rem}img{max-width:100%;height:auto;display:block;margin-bottom:.8rem}' +
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}dt{color:#666}dd{margin:0}' +
  'small{color:#666}label{display:block;margin-bottom:.8rem}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}' +
  'button{font:inherit;padding:.6rem 1rem;margin:0 .5rem .5rem 0;border:0;border-radius:4px;color:#fff;background:#555}' +
  'button[value=ack]{background:#b3261e}.note{color:#666;font-size:.9rem}';

function document(t: PageText, title: string, body: string): string {
  return (
    `<!DOCTYPE html><html lang="${escapeHtml(t('page.lang'))}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow">' +
    `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
    `<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`
  );
}

const paragraph = (text: string, className?: string): string => `<p${className ? ` class="${className}"` : ''}>${escapeHtml(text)}</p>`;

/** The plate or the person as the event names them; the alarm's label when the event is gone or says neither. */
function subjectOf(alarm: Alarm, event: unknown): string | null {
  const view = event === undefined ? undefined : viewOfEvent(event, alarm.openedAt);
  const named = view === undefined ? null : view.kind === 'lpr' ? view.plate : (view.fullName ?? view.faceId);
  if (named !== null) return named;
  return alarm.key.startsWith('camera:') ? null : alarm.label;
}

/** The alarm and its buttons: what a valid link's GET shows (and changes nothing). */
export function alarmPage(view: AlarmPageView, t: PageText): string {
  const { alarm, zone } = view;
  const picture = pagePicture(view.event);
  const rows: Array<[string, string]> = [];
  const subject = subjectOf(alarm, view.event);
  if (subject !== null) rows.push([t(alarm.kind === 'face' ? 'page.field.person' : 'page.field.plate'), subject]);
  rows.push([t('page.field.camera'), alarm.camera ?? t('page.camera-none')]);
  const opened = `${readableTime(alarm.openedAt, zone)} · ${new Date(alarm.openedAt).toISOString()}`;
  rows.push([t('page.field.opened'), opened], [t('page.field.reads'), String(alarm.reads)]);
  const acknowledged = alarm.state === 'acknowledged';
  const state = acknowledged
    ? t('page.state.acknowledged', { by: alarm.ackBy || '-', at: readableTime(alarm.ackAt ?? alarm.openedAt, zone) })
    : t('page.state.open');
  rows.push([t('page.field.state'), state]);

  const image = picture.ok
    ? `<img src="${escapeHtml(picture.src)}" alt="${escapeHtml(t('page.picture', { label: alarm.label }))}">`
    : paragraph(t(picture.reason === 'none' ? 'page.no-picture' : 'page.unreadable-picture'), 'note');
  const list = `<dl>${rows.map(([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>`;
  // no action: the form posts back to the page's own address, whatever the proxy in front calls it
  const buttons =
    (acknowledged ? '' : `<button type="submit" name="action" value="ack">${escapeHtml(t('button.ack'))}</button>`) +
    `<button type="submit" name="action" value="snooze">${escapeHtml(t('button.snooze', { time: view.snoozeLength }))}</button>`;
  const form =
    `<form method="post"><label>${escapeHtml(t('page.name'))} <small>${escapeHtml(t('page.name-hint'))}</small>` +
    `<input type="text" name="name" maxlength="${MAX_TEXT}" autocomplete="name"></label>${buttons}</form>`;
  const once = paragraph(t('page.once', { until: readableTime(view.expires, zone) }), 'note');
  return document(t, t('page.title.alarm', { label: alarm.label }), image + list + form + once);
}

/** What a pressed button did. */
export type PageDone = { action: 'ack'; by: string; at: number } | { action: 'snooze'; by: string; length: string; label: string; until: number };

/** The answer after a press. */
export function donePage(done: PageDone, t: PageText, zone: string): string {
  const text =
    done.action === 'ack'
      ? t('page.done.ack', { by: done.by, at: readableTime(done.at, zone) })
      : t('page.done.snooze', { by: done.by, time: done.length, label: done.label, until: readableTime(done.until, zone) });
  return document(t, t(done.action === 'ack' ? 'page.title.acknowledged' : 'page.title.snoozed'), paragraph(text));
}

/** A page that says why nothing was done, and its status. */
export function refusalPage(refusal: PageRefusal, t: PageText, zone: string): { status: number; html: string } {
  let text: string;
  switch (refusal.reason) {
    case 'expired':
      text = t('page.refused.expired', { at: readableTime(refusal.expires, zone) });
      break;
    case 'closed':
      text = t('page.refused.nothing', {
        reason: t('refused.closed', { by: refusal.by || t('refused.itself'), at: readableTime(refusal.at, zone) }),
      });
      break;
    case 'unknown':
      text = t('page.refused.nothing', { reason: t('refused.unknown') });
      break;
    case 'already':
      text = t('page.refused.unchanged', { reason: t('refused.already', { by: refusal.by || '-', at: readableTime(refusal.at, zone) }) });
      break;
    default:
      text = t(`page.refused.${refusal.reason}`, { max: MAX_FORM_BYTES });
  }
  return { status: STATUS[refusal.reason], html: document(t, t('page.title.refused'), paragraph(text)) };
}
