/**
 * The mail link's page at `<linkPath>/<token>`, on Node-RED's httpNode or a
 * detection-listener's own port. GET shows the alarm and changes nothing
 * (mail scanners follow links); POST of its form marks the link used (a
 * link works once) and acknowledges or snoozes through the node's own
 * action path, so the changes output and the book see it as any other
 * answer. The token is lib/alarm/link.ts, the HTML lib/alarm/page.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Node, NodeAPI } from 'node-red';
import {
  alarmPage,
  donePage,
  linkStanding,
  MAX_FORM_BYTES,
  MAX_TEXT,
  PAGE_HEADERS,
  readLinkToken,
  refusalPage,
  type ActionRequest,
  type ActionResult,
  type AlarmStore,
  type LinkClaim,
  type PageRefusal,
} from '../../lib/alarm';
import { systemTimeZone, type Clock } from '../../lib/core';
import { discardRest, inviteBody, pathnameOf, type RouteHandler } from '../../lib/http';
import { declaredLength, readBody } from '../../lib/receiver';
import { listenerOf } from '../detection-listener/listener-node';
import type { Vars } from '../shared/i18n';
import { mountPageRoute, receiverRouteKey, type MountedRoute } from '../shared/routes';
import { snoozeLength } from './messages';
import type { AlarmSettings } from './settings';

export interface PageDeps {
  t: (key: string, vars?: Vars) => string;
  clock: Clock;
  act(request: ActionRequest): Promise<{ result: ActionResult | null; reply: Record<string, unknown> }>;
  store(): Promise<AlarmStore>;
}

/** A form that trickles in is given up after this long without a byte. */
const FORM_STALL_MS = 10_000;
/** Page paths served now, by route key → node id: a second node on one path is refused, not left in the shadow of the first. */
const claimed = new Map<string, string>();

/** The token: the URL's last path segment. */
function tokenOf(url: string | undefined): string {
  const path = pathnameOf(url).replace(/\/+$/, '');
  return path.slice(path.lastIndexOf('/') + 1);
}

const fieldText = (value: unknown): string => (typeof value === 'string' ? value.trim().slice(0, MAX_TEXT) : '');

export function mountLinkPage(RED: NodeAPI, node: Node, settings: AlarmSettings, deps: PageDeps): { close(): void } {
  const { t } = deps;
  const none = { close: () => undefined };
  // no base address, no links: nothing to serve
  if (settings.linkBase === '') return none;
  const door = settings.listener ? listenerOf(RED, settings.listener) : undefined;
  if (settings.listener && (door === undefined || typeof door === 'string')) {
    node.error(door === undefined ? t('page.errors.listener-missing') : t('page.errors.listener', { problem: door }));
    return none;
  }
  const listener = typeof door === 'string' ? undefined : door;
  const key = receiverRouteKey(RED, settings.linkPath, settings.listener);
  const owner = claimed.get(key);
  if (owner !== undefined && owner !== node.id) {
    node.error(t('page.errors.path-in-use', { path: settings.linkPath }));
    return none;
  }
  const length = snoozeLength({ settings, t });

  const answer = (req: IncomingMessage, res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { ...PAGE_HEADERS, 'Content-Length': String(Buffer.byteLength(html)), ...headers });
    res.end(html);
    // a body not read (a refusal before it) is read and dropped, so the client sees the answer
    discardRest(req);
  };
  const refuse = (req: IncomingMessage, res: ServerResponse, refusal: PageRefusal, headers?: Record<string, string>): void => {
    const page = refusalPage(refusal, t, systemTimeZone());
    answer(req, res, page.status, page.html, headers);
  };

  /** The form's fields: parsed here, or already by the admin app's parser (both apps at `/`); undefined once refused. */
  async function readForm(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown> | undefined> {
    if ((declaredLength(req) ?? 0) > MAX_FORM_BYTES) return void refuse(req, res, { reason: 'too-large' });
    inviteBody(req, res);
    const read = await readBody(req, { maxBytes: MAX_FORM_BYTES, stallMs: FORM_STALL_MS });
    if (!read.ok) return void refuse(req, res, { reason: read.reason === 'too-large' ? 'too-large' : 'form' });
    if ('parsed' in read) return read.parsed !== null && typeof read.parsed === 'object' ? (read.parsed as Record<string, unknown>) : {};
    const type = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') return void refuse(req, res, { reason: 'form' });
    return Object.fromEntries(new URLSearchParams(read.body.toString('utf8')));
  }

  /** A press: the link is used first (atomically with the check), then the action runs as the node's own. */
  async function press(req: IncomingMessage, res: ServerResponse, store: AlarmStore, claim: LinkClaim): Promise<void> {
    const form = await readForm(req, res);
    if (!form) return;
    const action = form.action;
    if (action !== 'ack' && action !== 'snooze') return refuse(req, res, { reason: 'action' });
    const refused = await store.update((book) => (book.useLink(claim.alarm, claim.nonce) ? undefined : linkStanding(book, claim)));
    if (refused) return refuse(req, res, refused.ok ? { reason: 'used' } : refused.refusal);
    const by = fieldText(form.name) || t('by.link');
    const { result } = await deps.act({ action, id: claim.alarm, by, via: 'link' });
    // closed or acknowledged by someone else between the check and the press
    if (!result || !result.ok) return refuse(req, res, result && result.reason !== 'unknown' ? result : { reason: 'unknown' });
    const zone = systemTimeZone();
    const { alarm, snooze } = result;
    const done =
      action === 'snooze' && snooze
        ? donePage({ action, by: snooze.by, length, label: snooze.label, until: snooze.until }, t, zone)
        : donePage({ action: 'ack', by: alarm.ackBy ?? by, at: alarm.ackAt ?? deps.clock.now() }, t, zone);
    answer(req, res, 200, done);
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return refuse(req, res, { reason: 'method' }, { Allow: 'GET, HEAD, POST' });
    const store = await deps.store();
    const read = readLinkToken(store.secret, node.id, tokenOf(req.url), deps.clock.now());
    if (!read.ok) return refuse(req, res, read.refusal === 'expired' ? { reason: 'expired', expires: read.expires } : { reason: read.refusal });
    if (method === 'POST') return press(req, res, store, read.claim);
    // only reads: a scanner that follows the link uses nothing up
    const standing = await store.read((book) => linkStanding(book, read.claim));
    if (!standing.ok) return refuse(req, res, standing.refusal);
    const event = await store.getEvent(read.claim.alarm);
    const view = { alarm: standing.alarm, event, expires: read.claim.expires, snoozeLength: length, zone: systemTimeZone() };
    answer(req, res, 200, alarmPage(view, t));
  }

  // Errors here are bugs or a book that cannot be written, never the visitor's: a 500 page, reported, never a crash.
  const handler: RouteHandler = (req, res) => {
    serve(req, res).catch((err: unknown) => {
      node.error(t('page.errors.failed', { message: err instanceof Error ? err.message : String(err) }));
      if (!res.headersSent) refuse(req, res, { reason: 'failed' });
      else res.destroy();
    });
  };

  let route: MountedRoute;
  try {
    route = mountPageRoute(RED, settings.linkPath, handler, listener);
  } catch {
    // the listener serves the path for another node already
    node.error(t('page.errors.path-in-use', { path: settings.linkPath }));
    return none;
  }
  claimed.set(key, node.id);
  return {
    close() {
      route.remove();
      if (claimed.get(key) === node.id) claimed.delete(key);
    },
  };
}
