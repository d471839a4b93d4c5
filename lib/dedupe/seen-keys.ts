/**
 * A window of keys seen recently, behind one interface whether it is kept in
 * this process (LocalSeenKeys: the window of local-window.ts, its keys saved
 * to a key log or elsewhere) or shared by several instances through Redis
 * (RedisSeenKeys, redis-window.ts). A dedupe node asks it the same way in
 * either case.
 */
import { DedupeWindow, type DedupeWindowOptions, type Sighting } from './local-window';
import type { KeyLog } from './key-log';

export interface SeenKeys {
  /** Shared with other instances (Redis): it can be out of reach, and a failed check is the
   *  caller's to decide (pass or drop). A local window's check fails only when its key log
   *  cannot be written: an error. */
  readonly shared: boolean;
  /** Keys held, when this process knows (a local window). */
  readonly size: number | undefined;
  /** Records a sighting of `key` at `now` and says whether it repeats one inside the window;
   *  `mark` (the message's delivery) is kept with a key that passes. Resolves once the
   *  sighting is saved where the window is saved (its key log, Redis). */
  check(key: string, now: number, mark?: string): Promise<Sighting>;
  /** Forgets every key (a `msg.reset`). */
  clear(): Promise<void>;
}

/** Where a local window's changes go besides memory. */
export interface LocalPersistence {
  /** Each key on disk before its check resolves. */
  log?: KeyLog;
  /** Called after every change (to save the whole window later, in a context store). */
  changed?: () => void;
}

/** The local window behind the same interface as the shared one. */
export class LocalSeenKeys implements SeenKeys {
  readonly shared = false;
  readonly window: DedupeWindow;

  /** A window of its own (`options`), or `window` as it is (one taken over from a previous instance). */
  constructor(
    window: DedupeWindow | DedupeWindowOptions,
    readonly persistence: LocalPersistence = {},
  ) {
    this.window = window instanceof DedupeWindow ? window : new DedupeWindow(window);
  }

  get size(): number {
    return this.window.size;
  }

  check(key: string, now: number, mark?: string): Promise<Sighting> {
    // Checked now, in the caller's order; only the write is waited for (keys checked
    // together share the key log's sync).
    const sighting = this.window.check(key, now, mark);
    this.persistence.changed?.();
    const log = this.persistence.log;
    // A key that passes is news for the log; so is a repeat that restarted its window (with the first message's mark).
    if (!log || (sighting.duplicate && !this.window.refreshOnRepeat)) return Promise.resolve(sighting);
    return log.record(key, now, sighting.duplicate ? sighting.by : mark).then(() => sighting);
  }

  clear(): Promise<void> {
    this.window.clear();
    this.persistence.changed?.();
    return this.persistence.log?.reset() ?? Promise.resolve();
  }
}
