/**
 * The alarm book shared by several Node-RED instances through Redis. Every
 * instance runs the same rules (./book.ts) on the book kept there: update()
 * loads the book and its revision, runs the change on it and writes it back
 * only if the revision has not moved meanwhile (compare-and-set, in one Lua
 * script); on a conflict it loads again and runs the change again. So a
 * sweep's `due(now)`, which marks a reminder sent in the book it returns it
 * from, hands each reminder, escalation, quiet close and snooze end to
 * exactly one instance, whichever instances sweep.
 *
 * Keys per shared name (`<prefix>alarm:{<name>}:…`; the braces keep them in
 * one slot of a Redis Cluster):
 * - `book`: the book as text, in ./local-store.ts's format, link secret
 *   included: made on first use with SET NX, so every instance signs mail
 *   links with the same secret;
 * - `rev`: the revision, raised by each write;
 * - `event:<alarm id>`: the alarm's slim event, for its reminders; it
 *   expires (`eventTtlMs`) in case nobody drops it.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { MessageError } from '../core/messages';
import { FormatTooNewError } from '../core/file-format';
import { luaScript, runScript, type RedisConnection } from '../redis';
import { AlarmBook, emptyBook } from './book';
import { newLinkSecret } from './link';
import { alarmFileText, parseAlarmFile, type AlarmStore } from './local-store';
import type { BookOptions, BookState } from './types';

const DAY_MS = 86_400_000;
/** How long an alarm's event is kept when nobody drops it: about the longest an alarm stays relevant. */
export const DEFAULT_EVENT_TTL_MS = 30 * DAY_MS;
/** Loads and runs of one change before update() gives up on a book that keeps changing. */
export const DEFAULT_MAX_TRIES = 20;

/** A change that lost the compare-and-set too many times in a row: it was not applied. */
export class AlarmBusyError extends MessageError {
  readonly code = 'ERR_ALARM_BUSY';
}

/**
 * KEYS: book, rev. ARGV: the revision the book was loaded at ('' for none), the new text.
 * Writes only if the revision is still the one loaded; 1 written, 0 not.
 */
const SAVE = luaScript(`
local rev = redis.call('GET', KEYS[2]) or ''
if rev ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('INCR', KEYS[2])
return 1
`);

export interface RedisAlarmsOptions {
  /** Names the book: instances running the same flow share it (the node's id by default). */
  name: string;
  book: BookOptions;
  /** A secret the user chose (the node's credentials; the same in every instance): links are signed with it instead of the kept one. */
  secret?: string;
  /** How long an alarm's event lives in Redis (ms). */
  eventTtlMs?: number;
  /** Loads and runs of one change before it fails with AlarmBusyError. */
  maxTries?: number;
  /** The kept book could not be read (damaged): it is used as empty and replaced at the next change. Not called for a book of a newer format, which is refused. */
  damaged?: (err: Error) => void;
}

interface Loaded {
  state: BookState;
  /** The kept secret; '' when no book is kept yet. */
  secret: string;
  /** The revision loaded ('' when none was written yet). */
  rev: string;
}

export class RedisAlarms implements AlarmStore {
  readonly shared = true;
  private readonly bookKey: string;
  private readonly revKey: string;
  private readonly eventBase: string;
  private keptSecret = '';

  constructor(
    private readonly connection: RedisConnection,
    private readonly options: RedisAlarmsOptions,
  ) {
    // escaped, so name "a" cannot reach name "a:b", and a brace cannot end the slot's tag
    const name = options.name.replace(/[%:{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    const base = `{${name}}`;
    this.bookKey = connection.key('alarm', base, 'book');
    this.revKey = connection.key('alarm', base, 'rev');
    this.eventBase = connection.key('alarm', base, 'event', '');
  }

  /** The Redis keys of the book: book, rev. */
  get redisKeys(): readonly string[] {
    return [this.bookKey, this.revKey];
  }

  /** Signs the mail links. Known once the book was loaded (every change loads it first); the user's own when given. */
  get secret(): string {
    const secret = this.options.secret ?? this.keptSecret;
    if (secret === '') throw new MessageError('alarm.no-secret', { name: this.options.name });
    return secret;
  }

  /**
   * Runs `change` on the book as kept now and writes it back if nobody wrote
   * in between; otherwise loads again and runs `change` again, at most
   * `maxTries` times. So `change` may run more than once, each time on a
   * fresh book: it must only read and change the book it is given, and
   * whatever the caller does with what happened (send, count, show) it does
   * with the result, once update() resolved. A change that changed nothing
   * writes nothing.
   */
  async update<T>(change: (book: AlarmBook) => T): Promise<T> {
    const tries = this.options.maxTries ?? DEFAULT_MAX_TRIES;
    for (let attempt = 1; ; attempt++) {
      let loaded = await this.load();
      if (loaded.secret === '') {
        // first use: one instance's new book (and secret) wins, every other loads it
        await this.command((c) => c.set(this.bookKey, alarmFileText(emptyBook(), newLinkSecret()), { condition: 'NX' }));
        loaded = await this.load();
      }
      const book = new AlarmBook(loaded.state, this.options.book);
      const before = alarmFileText(book.snapshot(), loaded.secret);
      const result = change(book);
      const after = alarmFileText(book.snapshot(), loaded.secret);
      if (after === before) return result;
      const written = await this.command((c) => runScript<number>(c, SAVE, [this.bookKey, this.revKey], [loaded.rev, after]));
      if (Number(written) === 1) {
        this.keptSecret = loaded.secret;
        return result;
      }
      if (attempt >= tries) throw new AlarmBusyError('alarm.busy', { name: this.options.name, count: tries });
      // another instance wrote meanwhile: a moment's random wait, so two that collided do not collide again in step
      await pause(1 + Math.random() * 9);
    }
  }

  /** Runs `look` on the book as kept now (an empty one when none is kept); writes nothing, whatever `look` changes. */
  async read<T>(look: (book: AlarmBook) => T): Promise<T> {
    const { state } = await this.load();
    return look(new AlarmBook(state, this.options.book));
  }

  async putEvent(id: string, event: unknown): Promise<void> {
    const ttl = Math.max(1, Math.round(this.options.eventTtlMs ?? DEFAULT_EVENT_TTL_MS));
    await this.command((c) => c.set(this.eventBase + id, JSON.stringify(event), { expiration: { type: 'PX', value: ttl } }));
  }

  async getEvent(id: string): Promise<unknown> {
    if (!/^[a-z0-9]{1,32}$/.test(id)) return undefined;
    const text = await this.command((c) => c.get(this.eventBase + id));
    if (text === null) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  async dropEvents(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.command((c) => c.del(ids.map((id) => this.eventBase + id)));
  }

  /** Nothing to keep: the connection is the configuration node's. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /** The book, its secret and its revision as kept now, read together. */
  private async load(): Promise<Loaded> {
    const [text, rev] = await this.command((c) => c.mGet([this.bookKey, this.revKey]));
    if (text === null) return { state: emptyBook(), secret: '', rev: rev ?? '' };
    try {
      const { state, secret } = parseAlarmFile(text, this.bookKey);
      this.keptSecret = secret;
      return { state, secret, rev: rev ?? '' };
    } catch (err) {
      // a book a later release wrote is refused whole: replaced, it would lose that release's alarms
      if (err instanceof FormatTooNewError) throw err;
      this.options.damaged?.(err as Error);
      // its secret, when it can be read, so links already sent still work
      const secret = secretOf(text) ?? newLinkSecret();
      return { state: emptyBook(), secret, rev: rev ?? '' };
    }
  }

  /**
   * The reply of `send` (given the client in use now), bounded by the
   * connection's command timeout. A connection a deploy has just made is
   * waited for (bounded); a command that failed because Redis went away
   * fails with the connection's own error (RedisUnavailableError), as one
   * refused before it was sent does.
   */
  private async command<T>(send: (client: RedisConnection['client']) => Promise<T>): Promise<T> {
    try {
      if (!this.connection.ready) await this.connection.whenReady();
      return await this.connection.answer(send(this.connection.client));
    } catch (err) {
      if (!this.connection.ready) this.connection.assertReady();
      throw err;
    }
  }
}

/** The secret of a damaged book's text, when that much can be read. */
function secretOf(text: string): string | undefined {
  try {
    const secret = (JSON.parse(text) as { secret?: unknown } | null)?.secret;
    return typeof secret === 'string' && secret.length >= 16 ? secret : undefined;
  } catch {
    return undefined;
  }
}
