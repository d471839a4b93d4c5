/**
 * A window of keys seen recently, behind one interface whether it is kept in
 * this process (LocalSeenKeys: the window of local-window.ts, its keys saved
 * to a key log or elsewhere) or shared by several instances through Redis
 * (RedisSeenKeys, redis-window.ts). A dedupe node asks it the same way in
 * either case.
 */
import { isOutOfSpace } from '../core/append-log';
import { boundedRead, DedupeWindow, type DedupeWindowOptions, type Sighting } from './local-window';
import type { KeyLog } from './key-log';

export interface SeenKeys {
  /** Shared with other instances (Redis): it can be out of reach, and a failed check is the
   *  caller's to decide (pass or drop). A local window's check fails only when its key log
   *  cannot be written: an error. */
  readonly shared: boolean;
  /** Keys held, when this process knows (a local window). */
  readonly size: number | undefined;
  /** Records a sighting of `key` at `now` and says whether it repeats one inside the window;
   *  `mark` (the message's delivery) and `read` (its plate as read) are kept with a key
   *  that passes, and given back with its repeats. Resolves once the
   *  sighting is saved where the window is saved (its key log, Redis). */
  check(key: string, now: number, mark?: string, read?: string): Promise<Sighting>;
  /** Forgets every key (a `msg.reset`). */
  clear(): Promise<void>;
}

/** Where a local window's changes go besides memory. */
export interface LocalPersistence {
  /** Each key on disk before its check resolves. */
  log?: KeyLog;
  /** Called after every change (to save the whole window later, in a context store). */
  changed?: () => void;
  /** Called when the key log finds its disk full (the error) and when the window is saved whole again (undefined). */
  unsaved?: (err: Error | undefined) => void;
}

/**
 * The local window behind the same interface as the shared one.
 *
 * A full disk under its key log (ENOSPC, EDQUOT): the window in memory stays
 * authoritative — a key is still checked and kept there, so no repeat passes
 * while the process lives — and the check resolves though its key is not on
 * disk (`unsaved`, said once through `persistence.unsaved`). Keys go on being
 * appended (they land once there is room); `resave` writes the whole window
 * again, after which the log is complete. Until then a crash forgets the keys
 * the log missed. Any other write error still fails the check.
 */
export class LocalSeenKeys implements SeenKeys {
  readonly shared = false;
  readonly window: DedupeWindow;
  /** Why the key log lacks keys the window holds (its disk was full), until `resave` succeeds. */
  unsaved: Error | undefined;

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

  check(key: string, now: number, mark?: string, read?: string): Promise<Sighting> {
    // Checked now, in the caller's order; only the write is waited for (keys checked
    // together share the key log's sync).
    const sighting = this.window.check(key, now, mark, read);
    this.persistence.changed?.();
    const log = this.persistence.log;
    // A key that passes is news for the log; so is a repeat that restarted its window (with the first message's mark and read).
    if (!log || (sighting.duplicate && !this.window.refreshOnRepeat)) return Promise.resolve(sighting);
    const kept = sighting.duplicate ? { mark: sighting.by, read: sighting.read } : { mark, read: boundedRead(read) };
    return log.record(key, now, kept.mark, kept.read).then(
      () => sighting,
      (err: Error) => {
        this.notSaved(err);
        return sighting;
      },
    );
  }

  clear(): Promise<void> {
    this.window.clear();
    this.persistence.changed?.();
    return this.persistence.log?.reset().catch((err: Error) => this.notSaved(err)) ?? Promise.resolve();
  }

  /** A write the key log could not take: out of room, kept in memory (said once); anything else, the caller's error. */
  private notSaved(err: Error): void {
    if (!isOutOfSpace(err)) throw err;
    if (this.unsaved) return;
    this.unsaved = err;
    this.persistence.unsaved?.(err);
  }

  /**
   * While keys are unsaved: rewrites the key log with the whole window. True
   * once the log holds every key (or nothing was unsaved); false while the
   * disk is still full. Keys checked meanwhile are appended after it.
   */
  async resave(): Promise<boolean> {
    const log = this.persistence.log;
    if (!this.unsaved || !log) return true;
    try {
      if (!(await log.rewrite(() => this.window.snapshot()))) return false;
    } catch (err) {
      if (isOutOfSpace(err)) return false;
      throw err;
    }
    this.unsaved = undefined;
    this.persistence.unsaved?.(undefined);
    return true;
  }
}
