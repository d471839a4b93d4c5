/**
 * Who is present: a table of keys (a plate, a face, an externalId), each
 * with its stay (first and last seen, cameras, sightings), indexed by key,
 * and two due-time heaps: when each key departs (last seen + away time) and
 * when it has been here long enough for "still here" (first seen + the
 * dwell limit, once per stay). The departure heap also orders the keys by
 * when they were last seen, so the bound drops the least recently seen.
 *
 * Times are epoch milliseconds: a sighting's is its detection time (never
 * later than now); `now` is the caller's clock. The rules, written once
 * here and once in Lua for the table shared through Redis
 * (./redis-presence.ts), tested against both:
 *
 * - a key not present arrives, unless its sighting is too old to matter
 *   (it would have departed already: time + away ≤ now), or was made at an
 *   exit camera (nothing to end);
 * - a key present is seen again: last seen moves on (never back), a
 *   sighting older than the stay but within the away time of its start moves
 *   first seen back, one older still belongs to an earlier stay and changes
 *   nothing; at an exit camera, its latest sighting ends the stay at once;
 * - a key whose departure is due leaves, once; a key present for the dwell
 *   limit is still here, once per stay, unless it left before.
 */
import type { EventKind } from '../core/event-kinds';
import { DueHeap } from './due-heap';

export type PresenceState = 'arrived' | 'left' | 'still-here';

/** Most cameras kept per key (the latest); a stay's state stays small. */
export const MAX_CAMERAS = 20;
/** Longest key, label or camera name kept, in characters. */
export const MAX_TEXT = 200;

/** One sighting of a key, as read from an event. */
export interface SightingInput {
  /** The table's key: the key with what it is (`lpr:XYZ987`, `face:abc`, `ext:42`). */
  id: string;
  /** The key as flows see it. */
  key: string;
  kind: EventKind;
  /** A plate as read, or a person's name: for people, not for matching. */
  label: string;
  camera: string | null;
  /** When it was seen (epoch ms). */
  time: number;
  /** Seen at an exit camera. */
  exit: boolean;
}

export interface PresenceEntry {
  id: string;
  key: string;
  kind: EventKind;
  label: string;
  firstSeen: number;
  lastSeen: number;
  /** The cameras it was seen at this stay, in the order first seen (the latest MAX_CAMERAS). */
  cameras: string[];
  sightings: number;
  stillHereSent: boolean;
}

/** A departure or a still-here that fell due. */
export interface DueEvent {
  state: 'left' | 'still-here';
  entry: PresenceEntry;
  /** When it fell due (epoch ms). */
  due: number;
}

/**
 * What a sighting did: `arrived`, `seen` (a key present, seen again), `left`
 * (its latest sighting, at an exit camera), `stale` (too old to change
 * anything), `exit-absent` (a key not present, seen at an exit camera).
 */
export type SightOutcome = 'arrived' | 'seen' | 'left' | 'stale' | 'exit-absent';

export interface SightResult {
  outcome: SightOutcome;
  /** The key's stay as it is now (arrived, seen, left; stale when present). */
  entry?: PresenceEntry;
  /** The key's own departure, overdue and not yet swept: claimed by this sighting, to send first. */
  departed?: DueEvent;
  /** Keys dropped to keep the bound. */
  evicted: number;
  /** Keys present now. */
  present: number;
}

export interface SweepResult {
  /** In the order they fell due. */
  events: DueEvent[];
  /** When the next one falls due, as far as this store knows. */
  nextDue: number | undefined;
  present: number;
}

export interface PresenceOptions {
  /** No sighting for this long: departed. */
  awayMs: number;
  /** Present this long: still here, once per stay (0: never). */
  stillHereMs: number;
  /** Most keys held; past it the least recently seen is dropped. */
  maxKeys: number;
}

/** Where presence is kept: this process (PresenceTable) or Redis, shared by several instances. */
export interface PresenceStore {
  readonly shared: boolean;
  sight(sighting: SightingInput, now: number): Promise<SightResult>;
  /** Takes what fell due by `now` (each departure and still-here once, whichever instance asks). */
  sweep(now: number): Promise<SweepResult>;
  /** Everyone present, in no particular order. */
  list(): Promise<PresenceEntry[]>;
}

export function checkPresenceOptions(options: PresenceOptions): void {
  if (!(options.awayMs > 0)) throw new RangeError('awayMs must be a positive number');
  if (!(options.stillHereMs >= 0)) throw new RangeError('stillHereMs must be 0 or more');
  if (!Number.isInteger(options.maxKeys) || options.maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
}

/** Adds `camera` to a stay's cameras (once; the latest MAX_CAMERAS kept). */
export function addCamera(cameras: string[], camera: string | null): void {
  if (camera === null || camera === '' || cameras.includes(camera)) return;
  cameras.push(camera);
  if (cameras.length > MAX_CAMERAS) cameras.shift();
}

export class PresenceTable {
  private readonly entries = new Map<string, PresenceEntry>();
  private readonly away = new DueHeap();
  private readonly still = new DueHeap();
  private options: PresenceOptions;

  constructor(options: PresenceOptions) {
    checkPresenceOptions(options);
    this.options = { ...options };
  }

  get size(): number {
    return this.entries.size;
  }

  get settings(): Readonly<PresenceOptions> {
    return this.options;
  }

  get(id: string): PresenceEntry | undefined {
    return this.entries.get(id);
  }

  sight(s: SightingInput, now: number): SightResult {
    const { awayMs, stillHereMs } = this.options;
    const time = Math.min(s.time, now);
    let departed: DueEvent | undefined;
    let entry = this.entries.get(s.id);
    if (entry) {
      const due = this.away.atOf(s.id) ?? now;
      if (due <= now) {
        // its departure fell due and was not swept yet: it left before this sighting
        this.remove(s.id);
        departed = { state: 'left', entry, due };
        entry = undefined;
      }
    }
    if (!entry) {
      const result = (outcome: SightOutcome, extra: Partial<SightResult> = {}): SightResult => ({
        outcome,
        evicted: 0,
        present: this.entries.size,
        ...(departed ? { departed } : {}),
        ...extra,
      });
      if (s.exit) return result('exit-absent');
      if (time + awayMs <= now) return result('stale');
      let evicted = 0;
      while (this.entries.size >= this.options.maxKeys && this.evictOldest()) evicted++;
      const fresh: PresenceEntry = {
        id: s.id,
        key: s.key,
        kind: s.kind,
        label: s.label,
        firstSeen: time,
        lastSeen: time,
        cameras: [],
        sightings: 1,
        stillHereSent: false,
      };
      addCamera(fresh.cameras, s.camera);
      this.entries.set(s.id, fresh);
      this.away.set(s.id, time + awayMs);
      if (stillHereMs > 0) this.still.set(s.id, time + stillHereMs);
      return result('arrived', { entry: fresh, evicted, present: this.entries.size });
    }

    const result = (outcome: SightOutcome): SightResult => ({
      outcome,
      entry,
      evicted: 0,
      present: this.entries.size,
      ...(departed ? { departed } : {}),
    });
    if (time > entry.lastSeen) {
      entry.lastSeen = time;
      this.away.set(s.id, time + awayMs);
    } else if (time < entry.firstSeen) {
      // older than the stay: part of it when within the away time of its start, else of an earlier stay
      if (time <= entry.firstSeen - awayMs) return result('stale');
      entry.firstSeen = time;
      if (!entry.stillHereSent && stillHereMs > 0) this.still.set(s.id, time + stillHereMs);
    }
    addCamera(entry.cameras, s.camera);
    entry.sightings++;
    if (s.exit && time >= entry.lastSeen) {
      this.remove(s.id);
      return { ...result('left'), present: this.entries.size };
    }
    return result('seen');
  }

  /** Takes every departure and still-here due by `now`, in the order they fell due. */
  sweep(now: number): SweepResult {
    const events: DueEvent[] = [];
    for (;;) {
      const leave = this.away.peek();
      const stay = this.still.peek();
      // a departure due at the same moment as a still-here goes first: gone by then
      if (stay && stay.at <= now && (!leave || stay.at < leave.at)) {
        this.still.delete(stay.id);
        const entry = this.entries.get(stay.id);
        if (!entry) continue;
        entry.stillHereSent = true;
        events.push({ state: 'still-here', entry, due: stay.at });
      } else if (leave && leave.at <= now) {
        const entry = this.entries.get(leave.id);
        this.remove(leave.id);
        if (entry) events.push({ state: 'left', entry, due: leave.at });
      } else break;
    }
    return { events, nextDue: this.nextDue(), present: this.entries.size };
  }

  /** When the next departure or still-here falls due. */
  nextDue(): number | undefined {
    const leave = this.away.peek();
    const stay = this.still.peek();
    if (!leave) return stay?.at;
    if (!stay) return leave.at;
    return Math.min(leave.at, stay.at);
  }

  list(): PresenceEntry[] {
    return [...this.entries.values()];
  }

  /** Every stay, for saving (the due times follow from the settings). */
  snapshot(): PresenceEntry[] {
    return this.list().map((e) => ({ ...e, cameras: [...e.cameras] }));
  }

  /**
   * Loads stays (a snapshot), the most recently seen first up to the bound;
   * their due times follow from the current settings, so a departure that
   * fell due meanwhile is swept next. Returns how many are held.
   */
  restore(entries: readonly PresenceEntry[]): number {
    const newest = [...entries].sort((a, b) => b.lastSeen - a.lastSeen).slice(0, this.options.maxKeys - this.entries.size);
    for (const entry of newest) {
      if (this.entries.has(entry.id)) continue;
      this.entries.set(entry.id, entry);
      this.schedule(entry);
    }
    return this.entries.size;
  }

  /**
   * New settings for the stays held (a deploy changed them): due times are
   * worked out again, and past a smaller bound the least recently seen are
   * dropped. Returns how many were dropped.
   */
  reconfigure(options: PresenceOptions): number {
    checkPresenceOptions(options);
    this.options = { ...options };
    for (const entry of this.entries.values()) this.schedule(entry);
    let dropped = 0;
    while (this.entries.size > this.options.maxKeys && this.evictOldest()) dropped++;
    return dropped;
  }

  clear(): void {
    this.entries.clear();
    this.away.clear();
    this.still.clear();
  }

  private schedule(entry: PresenceEntry): void {
    this.away.set(entry.id, entry.lastSeen + this.options.awayMs);
    if (!entry.stillHereSent && this.options.stillHereMs > 0) this.still.set(entry.id, entry.firstSeen + this.options.stillHereMs);
    else this.still.delete(entry.id);
  }

  private remove(id: string): void {
    this.entries.delete(id);
    this.away.delete(id);
    this.still.delete(id);
  }

  /** Drops the least recently seen key (the earliest departure). */
  private evictOldest(): boolean {
    const oldest = this.away.peek();
    if (!oldest) return false;
    this.remove(oldest.id);
    return true;
  }
}
