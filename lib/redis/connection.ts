/**
 * One connection to a Redis server, shared by every node that uses the same
 * configuration node: node-redis's client with a reconnect loop, commands
 * that fail at once while the server is unreachable (so a receiver answers
 * 503 rather than holding a request, and a dedupe follows its policy rather
 * than waiting), and a state the using nodes show under themselves.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createClient, RESP_TYPES, type RedisClientType } from 'redis';
import { z } from 'zod';
import { choiceOption, flagOption, numberOption } from '../core/options';
import { CONFIRM_AOF, WriteConfirmer } from './confirm';

export type ConnectionState = 'connecting' | 'connected' | 'unreachable' | 'closed';

/** What a configuration node holds; credentials come separately. */
export const RedisSettings = z.object({
  url: z
    .string()
    .trim()
    .refine((url) => /^rediss?:\/\/[^\s/]+/i.test(url), { message: 'options.redis-url' }),
  database: numberOption({ integer: true, min: 0, max: 1000 }).optional(),
  tls: flagOption().optional(),
  /** With TLS: accept a certificate that does not check out (self-signed, another name). */
  tlsInsecure: flagOption().optional(),
  /** With TLS: PEM text of the certificate authority to trust besides the system's. */
  ca: z.string().optional(),
  /** Prepended to every key, so several sites or flows share one Redis. */
  prefix: z.string().max(200).optional(),
  /** This Node-RED instance's name among those that share a stream (its consumer name). */
  instance: z.string().trim().max(200).optional(),
  // --- Confirm on replicas / on disk (lib/redis/confirm.ts); absent: not confirmed, as before ---
  /** Replicas that must have each event (WAIT) before its 200. */
  confirmReplicas: numberOption({ integer: true, min: 0, max: 10 }).optional(),
  /** How long Redis may take to confirm (ms). */
  confirmTimeoutMs: numberOption({ integer: true, min: 1, max: 60_000 }).optional(),
  /** Each event in the append-only file (WAITAOF) of the primary, or of the primary and the confirmed replicas. */
  confirmAof: choiceOption(CONFIRM_AOF).optional(),
  // --- end of Confirm ---
});
export type RedisSettings = z.infer<typeof RedisSettings>;

export interface RedisCredentials {
  user?: string;
  password?: string;
}

export interface ConnectionOptions extends RedisSettings {
  credentials?: RedisCredentials;
  /** How long one command may take before it fails (ms). */
  commandTimeoutMs?: number;
  /** Longest wait between two reconnect attempts (ms). */
  maxReconnectDelayMs?: number;
}

/** Confirm within, when the configuration gives none (ms): see docs/nodes/detection-redis.md. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 1000;

/** Key prefix when the configuration gives none. */
export const DEFAULT_PREFIX = 'detection-bridge:';

/** Replies of bulk strings as Buffers: bodies read back from a stream stay bytes. */
export const BUFFER_REPLIES = { [RESP_TYPES.BLOB_STRING]: Buffer } as const;

/** How long one attempt to connect may take; also the longest wait for the first connect. */
const CONNECT_TIMEOUT_MS = 5000;

/** The error of a command refused because Redis cannot be reached now. */
export class RedisUnavailableError extends Error {
  readonly code = 'ERR_REDIS_UNAVAILABLE';
}

export class RedisConnection extends EventEmitter {
  readonly client: RedisClientType;
  readonly prefix: string;
  readonly instance: string;
  /** How long one command may take (ms; 0: no limit). node-redis applies it to single commands only, not to
   *  a transaction (MULTI … EXEC), whose caller applies it itself. */
  readonly commandTimeoutMs: number;
  private current: ConnectionState = 'connecting';
  private lastError: Error | undefined;
  /** Confirms the writes of this connection on replicas or on disk, as its settings ask (confirm.ts). */
  readonly confirmer: WriteConfirmer;
  /** The end of the first connect (shared by every waiter), while it is under way. */
  private firstConnect: Promise<void> | undefined;

  constructor(options: ConnectionOptions, defaultInstance: string) {
    super();
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.instance = options.instance || defaultInstance;
    const maxDelay = options.maxReconnectDelayMs ?? 5000;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 5000;
    const tls = options.tls || /^rediss:/i.test(options.url);
    this.client = createClient({
      url: options.url,
      username: options.credentials?.user || undefined,
      password: options.credentials?.password || undefined,
      database: options.database,
      disableOfflineQueue: true,
      commandOptions: { timeout: this.commandTimeoutMs },
      socket: {
        connectTimeout: CONNECT_TIMEOUT_MS,
        ...(tls ? { tls: true as const, rejectUnauthorized: !options.tlsInsecure, ca: options.ca?.trim() || undefined } : {}),
        // Retry for ever: a Redis that comes back is used again without a redeploy.
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 10), maxDelay),
      },
    }) as RedisClientType;
    this.client.on('ready', () => this.setState('connected'));
    this.client.on('error', (err: Error) => {
      // node-redis reports every failed attempt here; without a listener it would throw.
      this.lastError = err;
      if (this.current !== 'closed') this.setState('unreachable');
    });
    this.client.on('reconnecting', () => {
      if (this.current === 'connected') this.setState('unreachable');
    });
    this.client.on('end', () => this.setState('closed'));
    this.confirmer = new WriteConfirmer(() => this.client, {
      replicas: options.confirmReplicas ?? 0,
      timeoutMs: options.confirmTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS,
      aof: options.confirmAof ?? 'off',
    });
    // Each (re)connect may reach another server (an upgrade, a failover): whether it can confirm on disk.
    this.on('state', (state: ConnectionState) => {
      if (state === 'connected') void this.confirmer.probe();
    });
  }

  get state(): ConnectionState {
    return this.current;
  }

  /** Why it is unreachable, for a status or a problem answer. */
  get error(): Error | undefined {
    return this.lastError;
  }

  get ready(): boolean {
    return this.current === 'connected' && this.client.isReady;
  }

  /** Starts connecting (once); failures go to the reconnect loop, never to the caller. */
  open(): void {
    if (this.client.isOpen || this.current === 'closed') return;
    this.client.connect().catch((err: Error) => {
      this.lastError = err;
    });
  }

  /** Throws RedisUnavailableError when commands cannot be sent now. */
  assertReady(): void {
    if (!this.ready) throw new RedisUnavailableError(`Redis is unreachable${this.lastError ? `: ${this.lastError.message}` : ''}`);
  }

  /**
   * Resolves once the first connect has ended, ready or failed (at once when
   * it has): a connection made by a deploy is `connecting` for a moment,
   * which is no outage. Bounded by the connect timeout; one timer and one
   * listener however many wait.
   */
  settled(): Promise<void> {
    if (this.current !== 'connecting') return Promise.resolve();
    this.firstConnect ??= new Promise<void>((resolve) => {
      const end = (): void => {
        clearTimeout(timer);
        this.off('state', end);
        this.firstConnect = undefined;
        resolve();
      };
      const timer = setTimeout(end, CONNECT_TIMEOUT_MS + 500);
      timer.unref?.();
      this.on('state', end);
    });
    return this.firstConnect;
  }

  /** assertReady, after waiting for the first connect to end when it is still under way. */
  async whenReady(): Promise<void> {
    await this.settled();
    this.assertReady();
  }

  /** Counts a using node; the state is passed to `listener` now and on every change. */
  use(listener: (state: ConnectionState) => void): () => void {
    this.on('state', listener);
    listener(this.current);
    return () => this.off('state', listener);
  }

  /** A key under this connection's prefix. */
  key(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  async close(): Promise<void> {
    if (this.current === 'closed') return;
    this.setState('closed');
    if (!this.client.isOpen) {
      // Still trying to connect: stop the loop.
      this.client.destroy();
      return;
    }
    try {
      await this.client.close();
    } catch {
      this.client.destroy();
    }
  }

  private setState(state: ConnectionState): void {
    if (this.current === state || (this.current === 'closed' && state !== 'closed')) return;
    this.current = state;
    if (state === 'connected') this.lastError = undefined;
    this.emit('state', state);
  }
}

/**
 * Runs a Lua script by its SHA1 (sent once per connection), falling back to
 * sending it whole when the server does not know it (first use, or after a
 * restart of Redis).
 */
export async function runScript<T>(
  client: RedisClientType,
  script: { source: string; sha1: string },
  keys: string[],
  args: Array<string | Buffer>,
  typeMapping?: typeof BUFFER_REPLIES,
): Promise<T> {
  const tail = [String(keys.length), ...keys, ...args];
  const options = typeMapping ? { typeMapping } : undefined;
  try {
    return (await client.sendCommand(['EVALSHA', script.sha1, ...tail], options)) as T;
  } catch (err) {
    if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
    return (await client.sendCommand(['EVAL', script.source, ...tail], options)) as T;
  }
}

/** A Lua script with its SHA1, for runScript. */
export function luaScript(source: string): { source: string; sha1: string } {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}
