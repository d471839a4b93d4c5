/**
 * What flows see of a stay: `msg.presence` on every message the presence
 * node sends, and the rows of its "present now" answer. Times as ISO 8601
 * UTC; the dwell in whole seconds.
 */
import type { EventKind } from '../core/event-kinds';
import type { PresenceEntry, PresenceState } from './table';

/** A departure sent this long after it fell due (or that fell due while the node was not running) is flagged late. */
export const LATE_AFTER_MS = 60_000;

export interface PresenceReport {
  key: string;
  kind: EventKind;
  label: string;
  state: PresenceState;
  firstSeen: string;
  lastSeen: string;
  /** Arrived and left: from first to last seen; still here: from first seen to now. */
  dwellSeconds: number;
  cameras: string[];
  sightings: number;
  /** Left: why. */
  reason?: 'away' | 'exit-camera';
  /** Sent after its time: Node-RED was stopped, or Redis unreachable, when it fell due. */
  late?: true;
  /** Redis was unreachable: passed as an arrival without knowing (the node's "Redis down" setting). */
  unchecked?: true;
}

/** One row of the "present now" answer. */
export interface PresentRow {
  key: string;
  kind: EventKind;
  label: string;
  firstSeen: string;
  lastSeen: string;
  /** From first seen to now. */
  dwellSeconds: number;
  cameras: string[];
  sightings: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const seconds = (ms: number): number => Math.max(0, Math.round(ms / 1000));

export function presenceReport(
  entry: PresenceEntry,
  state: PresenceState,
  now: number,
  extra: { reason?: 'away' | 'exit-camera'; late?: boolean; unchecked?: boolean } = {},
): PresenceReport {
  const until = state === 'still-here' ? Math.max(now, entry.lastSeen) : entry.lastSeen;
  return {
    key: entry.key,
    kind: entry.kind,
    label: entry.label,
    state,
    firstSeen: iso(entry.firstSeen),
    lastSeen: iso(entry.lastSeen),
    dwellSeconds: seconds(until - entry.firstSeen),
    cameras: [...entry.cameras],
    sightings: entry.sightings,
    ...(extra.reason ? { reason: extra.reason } : {}),
    ...(extra.late ? { late: true as const } : {}),
    ...(extra.unchecked ? { unchecked: true as const } : {}),
  };
}

/**
 * Whether something due at `due` and sent at `now` is late: a minute or
 * more after its time, or due before `resumedAt` (when the node took its
 * state back from disk after a restart: it fell due while Node-RED was down).
 */
export function isLate(due: number, now: number, resumedAt?: number): boolean {
  return now - due >= LATE_AFTER_MS || (resumedAt !== undefined && due < resumedAt);
}

/** Everyone present, longest present first (then by key): a sign-in sheet's order. */
export function presentRows(entries: readonly PresenceEntry[], now: number): PresentRow[] {
  return [...entries]
    .sort((a, b) => a.firstSeen - b.firstSeen || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((e) => ({
      key: e.key,
      kind: e.kind,
      label: e.label,
      firstSeen: iso(e.firstSeen),
      lastSeen: iso(e.lastSeen),
      dwellSeconds: seconds(Math.max(now, e.lastSeen) - e.firstSeen),
      cameras: [...e.cameras],
      sightings: e.sightings,
    }));
}
