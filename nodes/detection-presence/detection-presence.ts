/**
 * detection-presence: who is on site now. Keyed by plate (look-alikes
 * folded), face id or externalId, it sends an event's message on output 1
 * when its key arrives (the first sighting after an absence), a message of
 * its own on output 2 when the key leaves (no sighting for Away after, or
 * seen at an exit camera) and on output 3 when it has been here for Still
 * here after (once per stay), and answers a message with topic "list" on
 * output 4 with everyone present. A thin adapter: the table and its rules
 * are lib/presence; where it is kept, ./store.ts.
 *
 * Times: a sighting's is its detection time; departures and still-heres
 * fall due on the node's clock (clockOf: the system's, or a test's), swept
 * by one timer at the next due time (and, shared through Redis, at least
 * every POLL_MS, for what other instances recorded).
 */
import type { NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import { completion } from '../../lib/delivery';
import { viewOfEvent } from '../../lib/events';
import {
  dropPresence,
  isLate,
  MAX_TEXT,
  presenceReport,
  presentRows,
  sightingOf,
  type DueEvent,
  type PresenceEntry,
  type PresenceReport,
  type SightingInput,
  type SightResult,
} from '../../lib/presence';
import { clockOf } from '../shared/clock';
import { coded, flowError, nodeText, statusText } from '../shared/i18n';
import { withRedisState } from '../shared/redis';
import { registerCounts } from '../shared/metrics';
import { registerNode } from '../shared/register';
import { failConfig, throttledStatus } from '../shared/status';
import { readProperty } from '../shared/typed-property';
import { presenceSettings, type PresenceDef } from './settings';
import { openStore } from './store';

const TYPE = 'detection-presence';
/** Shared through Redis: swept at least this often, for what other instances recorded (ms on the node's clock). */
const POLL_MS = 10_000;
/** Longest single wait of the timer: Node's timers take at most 2^31 - 1 ms (a longer one fires at once); a day, then it waits again. */
const MAX_WAIT_MS = 86_400_000;
/** Past the bound, the warning is given again only once the table has had room (below this share of it). */
const REARM_SHARE = 0.9;
/** The outputs, in order. */
const OUTPUT = { arrived: 0, left: 1, 'still-here': 2, list: 3 } as const;

type Send = (msg: Array<NodeMessage | null>) => void;
type Output = keyof typeof OUTPUT;

/** A message for output `output` alone. */
function on(output: Output, msg: NodeMessage): Array<NodeMessage | null> {
  const out: Array<NodeMessage | null> = [null, null, null, null];
  out[OUTPUT[output]] = msg;
  return out;
}

export = function register(RED: NodeAPI): void {
  registerNode<PresenceDef>(RED, TYPE, (node, config) => {
    const t = nodeText(RED, TYPE);
    const s = statusText(RED, TYPE);
    const clock = clockOf(RED);
    const parsed = presenceSettings(RED, node, config, t);
    const opening = parsed.ok ? openStore(RED, node, parsed.settings, clock, t) : parsed;
    if (!opening.ok) {
      // A configuration that cannot run: every message ends with the error (Catch nodes see it).
      failConfig(node, s('status.error'), opening.problem, 'CONFIG');
      // a table kept from before stays for the next deploy, unless the node is gone
      node.on('close', (removed: boolean, done: () => void) => {
        if (removed) dropPresence(node.id);
        done();
      });
      return;
    }
    if (!parsed.ok) return; // cannot be: `opening` is the problem itself then
    const settings = parsed.settings;
    const { store, connection } = opening.opened;
    const maxKeys = settings.table.maxKeys;

    const counts = { arrived: 0, left: 0, stillHere: 0, dropped: 0 };
    /** Keys present, as far as this node knows (local: the table; Redis: the last answer). */
    let present = opening.opened.size() ?? 0;
    const presentNow = (): number => opening.opened.size() ?? present;
    // Read only when a monitor is scraped (lib/metrics): the totals go on across deploys.
    registerCounts(
      node,
      'presence',
      () => ({ ...counts }),
      () => ({ present: presentNow() }),
    );
    const countsText = (): string => {
      const text = t('status.counts', { present: presentNow(), arrived: counts.arrived, left: counts.left });
      return counts.dropped > 0 ? text + t('status.dropped', { count: counts.dropped }) : text;
    };
    const showStatus = throttledStatus(node, () => {
      if (connection) return withRedisState(RED, connection, countsText());
      // the bound bit: yellow, so someone looks
      return { fill: counts.dropped > 0 ? 'yellow' : 'green', shape: 'dot', text: countsText() };
    });

    /** Set once the saved table is loaded: from disk at a restart, what fell due before it is late. */
    let resumedAt: number | undefined;
    let closing = false;
    let warnedNoKey = false;
    let warnedFull = false;
    let warnedUnreachable = false;

    // ---- departures and still-heres: one timer at the next due time ----
    let timer: unknown;
    let timerAt = Infinity;
    function wakeAt(at: number | undefined): void {
      if (closing || at === undefined || !Number.isFinite(at)) return;
      if (timer !== undefined) {
        if (timerAt <= at) return;
        clock.clearTimeout(timer);
      }
      timerAt = at;
      timer = clock.setTimeout(
        () => {
          timer = undefined;
          timerAt = Infinity;
          sweepNow();
        },
        Math.min(MAX_WAIT_MS, Math.max(0, at - clock.now())),
      );
    }
    /** When to sweep next: at the next due time; shared, at least every POLL_MS. */
    function nextWake(nextDue: number | undefined, now: number): number | undefined {
      if (!store.shared) return nextDue;
      return Math.min(nextDue ?? Infinity, now + POLL_MS);
    }
    let sweeping: Promise<void> | undefined;
    let sweepAgain = false;
    function sweepNow(): void {
      if (closing) return;
      if (sweeping) {
        sweepAgain = true;
        return;
      }
      sweeping = sweep().finally(() => {
        sweeping = undefined;
        if (sweepAgain) {
          sweepAgain = false;
          sweepNow();
        }
      });
    }
    async function sweep(): Promise<void> {
      const now = clock.now();
      try {
        const result = await store.sweep(now);
        reachable();
        present = result.present;
        for (const due of result.events) emitDue(due, now, (msg) => node.send(msg));
        if (result.events.length > 0) showStatus();
        wakeAt(nextWake(result.nextDue, now));
      } catch (err) {
        // shared and Redis is unreachable: tried again at the next poll (what falls due meanwhile is sent late)
        unreachable(err as Error);
        wakeAt(now + POLL_MS);
      }
    }

    /** Sends a departure or still-here that fell due. */
    function emitDue(due: DueEvent, now: number, send: Send): void {
      const late = isLate(due.due, now, resumedAt);
      if (due.state === 'left') {
        counts.left++;
        send(on('left', ownMessage(presenceReport(due.entry, 'left', now, { reason: 'away', late }))));
      } else {
        counts.stillHere++;
        send(on('still-here', ownMessage(presenceReport(due.entry, 'still-here', now, { late }))));
      }
    }

    /** A message of the node's own (left, still here): small, no event, no images. */
    function ownMessage(report: PresenceReport): NodeMessage {
      return { topic: report.state, payload: report, presence: { ...report, cameras: [...report.cameras] } } as NodeMessage;
    }

    // ---- Redis: its state in the status; one warning per outage ----
    function unreachable(err: Error): void {
      if (!store.shared) {
        node.error(t('errors.sweep', { message: err.message }));
        return;
      }
      if (warnedUnreachable) return;
      warnedUnreachable = true;
      node.warn(t(settings.whenUnreachable === 'drop' ? 'warn.redis-drop' : 'warn.redis-pass', { message: err.message }));
    }
    function reachable(): void {
      if (store.shared) warnedUnreachable = false;
    }
    const unwatch = connection?.use((state) => {
      if (state === 'connected') {
        warnedUnreachable = false;
        // back (or first connected): catch up with what fell due meanwhile
        sweepNow();
      }
      showStatus();
    });

    if (!connection) node.status({ fill: 'grey', shape: 'ring', text: countsText() });
    const ready = opening.opened.ready.then((loadedAt) => {
      resumedAt = loadedAt;
      // a node closed meanwhile: its status is its successor's now
      if (closing) return;
      if (!connection) node.status({ fill: 'grey', shape: 'ring', text: countsText() });
      // what fell due while Node-RED was stopped (or during the deploy) goes out now
      if (!connection) sweepNow();
    });

    // ---- messages ----
    node.on('input', (msg: NodeMessageInFlow, send: Send, done: (err?: Error) => void) => {
      handle(msg, send).then(
        () => done(),
        (err: unknown) => done(flowError(RED, err)),
      );
    });

    async function handle(msg: NodeMessageInFlow, send: Send): Promise<void> {
      await ready;
      const now = clock.now();
      if (msg.topic === 'list') {
        const rows = presentRows(await store.list(), now);
        present = rows.length;
        const out = msg as NodeMessageInFlow & { presence: unknown };
        out.payload = rows;
        out.presence = { state: 'present', count: rows.length, at: new Date(now).toISOString() };
        send(on('list', out));
        showStatus();
        return;
      }
      let value: unknown;
      try {
        value = await readProperty(settings.readEvent, msg);
      } catch (err) {
        throw coded(t('errors.read', { property: settings.eventName, message: flowError(RED, err).message }), 'PROPERTY_READ');
      }
      const view = viewOfEvent(value, now);
      if (!view) throw coded(t('errors.not-event', { property: settings.eventName }), 'ERR_PRESENCE_NOT_EVENT');
      const read = sightingOf(view, value, settings.keying, now);
      if (!read.ok) {
        if (read.reason === 'key-too-long') throw coded(t('errors.key-too-long', { max: MAX_TEXT }), 'ERR_PRESENCE_KEY');
        if (!warnedNoKey) {
          warnedNoKey = true;
          node.warn(t('warn.no-key', { key: t(`keyBy.${settings.keying.by}`) }));
        }
        // nothing to count it by: finished here, as a filter finishes what it drops
        completion.finish(msg);
        return;
      }
      let result: SightResult;
      try {
        result = await store.sight(read.sighting, now);
      } catch (err) {
        if (!store.shared) throw err;
        unreachable(err as Error);
        unchecked(msg, send, read.sighting, now);
        return;
      }
      reachable();
      present = result.present;
      if (result.departed) emitDue(result.departed, now, send);
      if (result.evicted > 0) bound(result.evicted);
      else if (warnedFull && presentNow() < maxKeys * REARM_SHARE) warnedFull = false;
      const entry = result.entry;
      if (result.outcome === 'arrived' && entry) {
        counts.arrived++;
        (msg as NodeMessageInFlow & { presence: PresenceReport }).presence = presenceReport(entry, 'arrived', now);
        send(on('arrived', msg));
        wakeAt(firstDue(entry));
      } else {
        if (result.outcome === 'left' && entry) {
          counts.left++;
          send(on('left', ownMessage(presenceReport(entry, 'left', now, { reason: 'exit-camera' }))));
        }
        // a further sighting (or one that changes nothing): finished here, as a filter finishes what it drops
        completion.finish(msg);
      }
      showStatus();
    }

    /** When the new stay's first departure or still-here falls due. */
    function firstDue(entry: PresenceEntry): number {
      const leaves = entry.lastSeen + settings.table.awayMs;
      return settings.table.stillHereMs > 0 ? Math.min(leaves, entry.firstSeen + settings.table.stillHereMs) : leaves;
    }

    /** Keys dropped to keep the bound: counted, said once per episode. */
    function bound(evicted: number): void {
      counts.dropped += evicted;
      if (warnedFull) return;
      warnedFull = true;
      node.warn(t('warn.full', { max: maxKeys }));
    }

    /** Redis unreachable: the message goes on as an arrival, unchecked (or is dropped, as set). */
    function unchecked(msg: NodeMessageInFlow, send: Send, s: SightingInput, now: number): void {
      if (settings.whenUnreachable === 'drop' || s.exit) {
        completion.finish(msg);
        showStatus();
        return;
      }
      const entry: PresenceEntry = {
        id: s.id,
        key: s.key,
        kind: s.kind,
        label: s.label,
        firstSeen: s.time,
        lastSeen: s.time,
        cameras: s.camera ? [s.camera] : [],
        sightings: 1,
        stillHereSent: false,
      };
      counts.arrived++;
      (msg as NodeMessageInFlow & { presence: PresenceReport }).presence = presenceReport(entry, 'arrived', now, { unchecked: true });
      send(on('arrived', msg));
      showStatus();
    }

    node.on('close', (removed: boolean, done: () => void) => {
      closing = true;
      unwatch?.();
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      // a sweep under way sends what it took (shared: no other instance will) before the node stops
      void Promise.resolve(sweeping)
        .then(() => opening.opened.close(removed))
        .then(done, (err: Error) => {
          node.error(t('errors.save', { message: err.message }));
          done();
        });
    });
  });
};
