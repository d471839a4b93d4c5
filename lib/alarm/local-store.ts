/**
 * The alarm book kept by this process: in memory, and on disk so a deploy
 * or a restart (a SIGKILL included) finds it: the book in one file, written
 * whole and atomically (lib/core/whole-file.ts) before a change's result is
 * sent (update() resolves once it is written), and each alarm's slim event
 * in a file of its own beside it, written once when the alarm opens and
 * removed when it closes.
 *
 * Writes are coalesced: changes made while a write is under way go out
 * together in the next one, so a burst costs two writes, not one each.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { refuseNewer } from '../core/file-format';
import { readWholeFile, removeWholeFile, writeWholeFile } from '../core/whole-file';
import { AlarmBook, emptyBook } from './book';
import type { BookOptions, BookState } from './types';

/** What the format is called in an error, and the version this code writes (and the newest it reads). */
export const ALARM_FORMAT = 'detection-bridge alarms';
export const ALARM_VERSION = 1;

const Alarm = z.object({
  id: z.string().regex(/^[a-z0-9]{1,32}$/),
  key: z.string(),
  label: z.string(),
  kind: z.enum(['face', 'lpr']),
  camera: z.string().nullable(),
  state: z.enum(['open', 'acknowledged']),
  urgent: z.boolean(),
  openedAt: z.number(),
  lastSeen: z.number(),
  reads: z.number().int().min(1),
  reminders: z.number().int().min(0),
  escalated: z.boolean(),
  ackBy: z.string().optional(),
  ackAt: z.number().optional(),
  note: z.string().optional(),
  usedLinks: z.array(z.string()),
});
const Snooze = z.object({
  scope: z.enum(['all', 'camera', 'key']),
  value: z.string(),
  label: z.string(),
  until: z.number(),
  by: z.string(),
  at: z.number(),
  held: z.number().int().min(0),
});
const Entry = z.object({
  at: z.number(),
  action: z.enum(['opened', 'reminded', 'escalated', 'acknowledged', 'snoozed', 'resumed', 'closed', 'disarmed', 'armed']),
  alarm: z.string().optional(),
  label: z.string(),
  by: z.string(),
  via: z.enum(['telegram', 'link', 'dashboard', 'message', 'editor']).optional(),
  note: z.string().optional(),
  held: z.number().optional(),
});
/** The book as kept (in a file here, as a Redis value in ./redis-store.ts); `secret` signs the mail links. */
export const AlarmFile = z.object({
  v: z.literal(ALARM_VERSION),
  secret: z.string().min(16),
  alarms: z.array(Alarm),
  snoozes: z.array(Snooze),
  armed: z.boolean(),
  heldDisarmed: z.number().int().min(0),
  history: z.array(Entry),
});
export type AlarmFile = z.infer<typeof AlarmFile>;

/** The book and the link secret from kept text; throws when the text is not one (the error says why). */
export function parseAlarmFile(text: string, where: string): { state: BookState; secret: string } {
  const parsed: unknown = JSON.parse(text);
  const v = (parsed as { v?: unknown } | null)?.v;
  if (typeof v === 'number') refuseNewer(where, ALARM_FORMAT, v, ALARM_VERSION);
  const { secret, alarms, snoozes, armed, heldDisarmed, history } = AlarmFile.parse(parsed);
  return { secret, state: { alarms, snoozes, armed, heldDisarmed, history } };
}

/** The text kept for `state`. */
export function alarmFileText(state: BookState, secret: string): string {
  return JSON.stringify({ v: ALARM_VERSION, secret, ...state });
}

/** Where a book is kept and how its changes run: here (LocalAlarms) or shared through Redis. */
export interface AlarmStore {
  readonly shared: boolean;
  /** Signs the mail links: the same in every instance that shares the book. */
  readonly secret: string;
  /** Runs `change` on the book and keeps what it changed; shared, atomically (run again after a conflict, so `change` does nothing but read and change the book). */
  update<T>(change: (book: AlarmBook) => T): Promise<T>;
  /** Reads the book as kept now. */
  read<T>(look: (book: AlarmBook) => T): Promise<T>;
  putEvent(id: string, event: unknown): Promise<void>;
  /** The slim event of alarm `id`; undefined when none is kept. */
  getEvent(id: string): Promise<unknown>;
  dropEvents(ids: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export interface LocalAlarmsOptions {
  /** The book's file; its events go in `<file minus .json>.events/`. */
  file: string;
  book: BookOptions;
  /** The secret to use when the file has none (a new book). */
  newSecret: () => string;
  /** A secret the user chose (the node's credentials): links are signed with it, the kept one stays for when it is removed. */
  secret?: string;
  /** A save failed (the error), or worked again after failing (undefined). The book stays in memory and is written whole at the next change. */
  saveProblem?: (err: Error | undefined) => void;
}

export class LocalAlarms implements AlarmStore {
  readonly shared = false;
  private book!: AlarmBook;
  private secretText = '';
  private writing: Promise<void> = Promise.resolve();
  private next?: Promise<void>;
  private failing = false;

  private constructor(private readonly options: LocalAlarmsOptions) {}

  /**
   * Opens the book kept in `options.file` (a new one when there is none).
   * A file that cannot be read as one is left as it is (renamed aside by
   * the caller if it wants) and reported through `damaged`; the book then starts empty.
   */
  static async open(options: LocalAlarmsOptions): Promise<{ store: LocalAlarms; damaged?: Error }> {
    const store = new LocalAlarms(options);
    let damaged: Error | undefined;
    let state = emptyBook();
    let secret = '';
    try {
      const text = await readWholeFile(options.file);
      if (text !== undefined) ({ state, secret } = parseAlarmFile(text, options.file));
    } catch (err) {
      damaged = err as Error;
    }
    store.secretText = secret || options.newSecret();
    store.book = new AlarmBook(state, options.book);
    if (damaged) return { store, damaged };
    return { store };
  }

  get secret(): string {
    return this.options.secret ?? this.secretText;
  }

  /** Open alarms now (the book is in memory). */
  get size(): number {
    return this.book.size;
  }

  reconfigure(options: BookOptions): void {
    this.book.reconfigure(options);
  }

  /** Runs `change` and writes the book; resolves once written, or once the write failed (reported to saveProblem): the change holds in memory either way. */
  async update<T>(change: (book: AlarmBook) => T): Promise<T> {
    const result = change(this.book);
    await this.save().then(
      () => {
        if (!this.failing) return;
        this.failing = false;
        this.options.saveProblem?.(undefined);
      },
      (err: Error) => {
        this.failing = true;
        this.options.saveProblem?.(err);
      },
    );
    return result;
  }

  read<T>(look: (book: AlarmBook) => T): Promise<T> {
    return Promise.resolve(look(this.book));
  }

  /** Writes the book: after the write under way, one write for every change made until it starts. */
  save(): Promise<void> {
    if (!this.next) {
      const next = this.writing.then(() => {
        this.next = undefined;
        return writeWholeFile(this.options.file, alarmFileText(this.book.snapshot(), this.secretText));
      });
      this.next = next;
      this.writing = next.catch(() => undefined);
    }
    return this.next;
  }

  private eventsDir(): string {
    return eventsDirOf(this.options.file);
  }

  async putEvent(id: string, event: unknown): Promise<void> {
    await mkdir(this.eventsDir(), { recursive: true });
    await writeWholeFile(join(this.eventsDir(), `${id}.json`), JSON.stringify(event));
  }

  async getEvent(id: string): Promise<unknown> {
    if (!/^[a-z0-9]{1,32}$/.test(id)) return undefined;
    const text = await readWholeFile(join(this.eventsDir(), `${id}.json`)).catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  async dropEvents(ids: readonly string[]): Promise<void> {
    for (const id of ids) await removeWholeFile(join(this.eventsDir(), `${id}.json`));
  }

  /**
   * Removes event files of alarms no longer in the book (closed while a
   * removal failed, or by a crash between the two; a write a crash cut
   * short leaves only its `.json.tmp`). How many alarms' files it removed.
   */
  async sweepEvents(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.eventsDir());
    } catch {
      return 0;
    }
    const open = new Set(this.book.alarms().map((a) => a.id));
    const ids = names.map((n) => /^(.+)\.json(?:\.tmp)?$/.exec(n)?.[1]).filter((id): id is string => id !== undefined);
    const stale = [...new Set(ids)].filter((id) => !open.has(id));
    await this.dropEvents(stale);
    return stale.length;
  }

  async close(): Promise<void> {
    await this.save().catch(() => undefined);
  }
}

/** Where the events of the book in `file` are kept. */
function eventsDirOf(file: string): string {
  return file.replace(/\.json$/, '') + '.events';
}

/** Removes the book kept in `file` and its events (a node that now keeps its book elsewhere). */
export async function removeAlarmFiles(file: string): Promise<void> {
  await removeWholeFile(file);
  await rm(eventsDirOf(file), { recursive: true, force: true });
}
