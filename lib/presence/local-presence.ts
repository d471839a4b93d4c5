/**
 * Presence kept in this process: the table (./table.ts), carried over to the
 * node's next instance at a deploy, and saved to a file of its own (a whole
 * snapshot, atomically, ./state-file.ts) a moment after it changes and when
 * the node stops, so a restart finds who was present.
 *
 * What a crash (not a clean stop) costs: the changes of the last save delay
 * (2 s) before it. An arrival in them is forgotten (the key's next sighting
 * arrives again); a departure or still-here sent in them is on file as not
 * sent, so it is sent again after the restart (late).
 */
import type { Clock } from '../core/clock';
import { readPresenceFile, writePresenceFile } from './state-file';
import {
  PresenceTable,
  type PresenceEntry,
  type PresenceOptions,
  type PresenceStore,
  type SightingInput,
  type SightResult,
  type SweepResult,
} from './table';

/** Saves come at most this often while the table changes. */
export const SAVE_DELAY_MS = 2000;

export interface LocalPresenceOptions {
  /** What the keys mean (./sighting.ts keyDefinition): a saved table of another definition is not loaded. */
  keys: string;
  /** Where the table is saved; undefined: it is not. */
  file?: string;
  clock: Clock;
  saveDelayMs?: number;
  /** A save failed (the error), or succeeded again after failing (undefined). */
  saveProblem?: (err: Error | undefined) => void;
}

/** What loading the saved state found. */
export interface LoadResult {
  /** Stays loaded. */
  loaded: number;
  /** Stays that did not read as one: left out. */
  damaged: number;
  /** The file held keys of another definition (another Key setting): not loaded. */
  otherKeys: boolean;
}

export class LocalPresence implements PresenceStore {
  readonly shared = false;
  private saveTimer: unknown;
  private failing = false;
  private closed = false;

  constructor(
    readonly table: PresenceTable,
    private readonly options: LocalPresenceOptions,
  ) {}

  get size(): number {
    return this.table.size;
  }

  /** Loads the saved table (a restart); undefined when there is no file to load. Throws when the file cannot be read as one. */
  async load(): Promise<LoadResult | undefined> {
    if (!this.options.file) return undefined;
    const saved = await readPresenceFile(this.options.file);
    if (!saved) return undefined;
    if (saved.keys !== this.options.keys) return { loaded: 0, damaged: 0, otherKeys: true };
    this.table.restore(saved.entries);
    return { loaded: this.table.size, damaged: saved.damaged, otherKeys: false };
  }

  sight(sighting: SightingInput, now: number): Promise<SightResult> {
    const result = this.table.sight(sighting, now);
    if (result.outcome !== 'stale' && result.outcome !== 'exit-absent') this.changed();
    else if (result.departed) this.changed();
    return Promise.resolve(result);
  }

  sweep(now: number): Promise<SweepResult> {
    const result = this.table.sweep(now);
    if (result.events.length > 0) this.changed();
    return Promise.resolve(result);
  }

  list(): Promise<PresenceEntry[]> {
    return Promise.resolve(this.table.list());
  }

  /** Something changed: saved within the save delay. */
  changed(): void {
    if (!this.options.file || this.closed || this.saveTimer !== undefined) return;
    this.saveTimer = this.options.clock.setTimeout(() => {
      this.saveTimer = undefined;
      void this.save();
    }, this.options.saveDelayMs ?? SAVE_DELAY_MS);
  }

  /** Writes the table now (after any write under way). Never rejects: a failure goes to saveProblem. */
  save(): Promise<void> {
    const file = this.options.file;
    if (!file) return Promise.resolve();
    const write = writePresenceFile(file, this.options.keys, this.table.snapshot(), this.options.clock.now()).then(
      () => {
        if (!this.failing) return;
        this.failing = false;
        this.options.saveProblem?.(undefined);
      },
      (err: Error) => {
        // kept in memory: written whole again at the next change or stop
        this.failing = true;
        this.options.saveProblem?.(err);
      },
    );
    return write;
  }

  /**
   * The node stops: the table is saved, and kept for its next instance (a
   * deploy), or, when the node was removed (deleted or disabled), forgotten
   * in memory; its file stays, so a node enabled again (or a deletion
   * undone) takes it back, as at a restart.
   */
  async close(nodeId: string, removed: boolean): Promise<void> {
    this.closed = true;
    if (this.saveTimer !== undefined) this.options.clock.clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (removed) dropPresence(nodeId);
    else keepPresence(nodeId, this.table, this.options.keys);
    await this.save();
  }
}

interface KeptTable {
  table: PresenceTable;
  keys: string;
}

/**
 * Tables by node id, for the life of the process (not of one deploy), as
 * dedupe keeps its windows (lib/dedupe/local-window.ts): a presence node
 * restarted by a deploy takes over who is present, so a deploy sends no
 * arrival again and loses no departure.
 */
const keptTables = new Map<string, KeptTable>();

/** How a node's table was obtained: `carried` when it came from its previous instance. */
export interface TableTakeOver {
  table: PresenceTable;
  carried: boolean;
  /** Keys dropped because the new bound is smaller. */
  dropped: number;
}

/**
 * The table for node `nodeId`: its previous instance's, with the new
 * settings (due times worked out again, the bound applied), when its keys
 * mean the same; else a new one.
 */
export function takeOverPresence(nodeId: string, keys: string, options: PresenceOptions): TableTakeOver {
  const kept = keptTables.get(nodeId);
  keptTables.delete(nodeId);
  if (!kept || kept.keys !== keys) return { table: new PresenceTable(options), carried: false, dropped: 0 };
  const dropped = kept.table.reconfigure(options);
  return { table: kept.table, carried: true, dropped };
}

/** Keeps a stopped node's table for its next instance. */
export function keepPresence(nodeId: string, table: PresenceTable, keys: string): void {
  keptTables.set(nodeId, { table, keys });
}

/** Forgets the table of a removed node. */
export function dropPresence(nodeId: string): void {
  keptTables.delete(nodeId);
}
