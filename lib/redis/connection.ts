/**
 * One connection to a Redis server, shared by every node that uses the same
 * configuration node: node-redis's client with a reconnect loop, commands
 * that fail at once while the server is unreachable (so a receiver answers
 * 503 rather than holding a request, and a dedupe follows its policy rather
 * than waiting), and a state the using nodes show under themselves.
 */
import { EventEmitter } from 'node:events';
import { createClient, type RedisClientType } from 'redis';
import { WriteConfirmer, type Shortfall } from './confirm';
import { addressText, parseSentinels, SentinelWatcher, type PrimaryReport, type SentinelAddress } from './sentinel';
import { answerWithin } from './answer-within';
import { DEFAULT_CONFIRM_TIMEOUT_MS, DEFAULT_PREFIX, type RedisCredentials, type RedisSettings } from './settings';

export { RedisSettings, DEFAULT_CONFIRM_TIMEOUT_MS, DEFAULT_PREFIX, type RedisCredentials } from './settings';
export { BUFFER_REPLIES, luaScript, runScript } from './scripts';

export type ConnectionState = 'connecting' | 'connected' | 'unreachable' | 'closed';

export interface ConnectionOptions extends RedisSettings {
  credentials?: RedisCredentials;
  /** How long one command may take before it fails (ms). */
  commandTimeoutMs?: number;
  /** Longest wait between two reconnect attempts (ms). */
  maxReconnectDelayMs?: number;
  /** Sentinel mode: how often a sentinel is asked where the primary is (ms). */
  sentinelPollMs?: number;
}

/** How long one attempt to connect may take; also the longest wait for the first connect. */
const CONNECT_TIMEOUT_MS = 5000;

/** How often a Redis still loading its data is asked again whether it is done (ms). */
const LOADING_RECHECK_MS = 500;

/** The error of a command refused because Redis cannot be reached now. */
export class RedisUnavailableError extends Error {
  readonly code = 'ERR_REDIS_UNAVAILABLE';
}

export class RedisConnection extends EventEmitter {
  readonly prefix: string;
  readonly instance: string;
  /** How long a command may take, sent and answered (ms; 0: no limit): applied by answer(), which every
   *  command a node waits for goes through. */
  readonly commandTimeoutMs: number;
  /** `single`: one server at a fixed address; `sentinel`: the primary the sentinels name, followed through failovers. */
  readonly mode: 'single' | 'sentinel';
  private current: ConnectionState = 'connecting';
  private lastError: Error | undefined;
  /** Confirms the writes of this connection on replicas or on disk, as its settings ask (confirm.ts). */
  readonly confirmer: WriteConfirmer;
  /** The end of the first connect (shared by every waiter), while it is under way. */
  private firstConnect: Promise<void> | undefined;
  /** The client commands go to now (sentinel mode: a new one after each failover). */
  private primaryClient: RedisClientType;
  // --- Sentinel mode ---
  private readonly watcher: SentinelWatcher | undefined;
  private readonly clientAt: ((address: SentinelAddress) => RedisClientType) | undefined;
  /** The address `primaryClient` points at; undefined until the sentinels first named one. */
  private primaryAddress: SentinelAddress | undefined;
  /** The sentinels see the primary down or are promoting a replica. */
  private failingOver = false;
  private started = false;
  /** The server answered but is still loading its data (every command but a few gets LOADING). */
  private loadingData = false;
  private loadingRecheck: NodeJS.Timeout | undefined;

  constructor(options: ConnectionOptions, defaultInstance: string) {
    super();
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.instance = options.instance || defaultInstance;
    this.mode = options.mode ?? 'single';
    const maxDelay = options.maxReconnectDelayMs ?? 5000;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 5000;
    const tls = options.tls || /^rediss:/i.test(options.url ?? '');
    const tlsSocket = tls ? { tls: true as const, rejectUnauthorized: !options.tlsInsecure, ca: options.ca?.trim() || undefined } : {};
    const clientOptions = {
      username: options.credentials?.user || undefined,
      password: options.credentials?.password || undefined,
      database: options.database,
      disableOfflineQueue: true,
      // node-redis's command timeout off (its default is 5 s): it bounds only the wait to send, never the
      // answer, and costs an AbortSignal.timeout per command, alive for the whole timeout: about 10 µs of
      // CPU per command, four times what a shared dedupe's check costs without it. answer() bounds both.
      commandOptions: { timeout: 0 },
    };
    const socket = {
      connectTimeout: CONNECT_TIMEOUT_MS,
      ...tlsSocket,
      // Retry for ever: a Redis that comes back is used again without a redeploy.
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 10), maxDelay),
    };
    if (this.mode === 'sentinel') {
      const sentinels = parseSentinels(options.sentinels);
      if (!sentinels || !options.primaryName) throw new Error('sentinel mode needs the sentinels and the primary name');
      this.clientAt = (address) =>
        createClient({ ...clientOptions, socket: { ...socket, host: address.host, port: address.port } }) as RedisClientType;
      // Until the sentinels name a primary: a client never connected, so commands fail at once (ClientClosedError).
      this.primaryClient = createClient(clientOptions) as RedisClientType;
      this.watcher = new SentinelWatcher({
        sentinels,
        primaryName: options.primaryName,
        username: options.credentials?.sentinelUser,
        password: options.credentials?.sentinelPassword,
        tls: tls ? tlsSocket : undefined,
        pollMs: options.sentinelPollMs ?? 1000,
        timeoutMs: CONNECT_TIMEOUT_MS,
      });
      this.watcher.on('report', (report: PrimaryReport) => this.onReport(report));
      this.watcher.on('failure', (err: Error) => {
        // Sentinels out of reach do not stop a primary that answers; they matter while none does.
        if (this.current === 'connected') return;
        this.lastError = err;
        this.setState('unreachable');
      });
    } else {
      this.primaryClient = createClient({ url: options.url, ...clientOptions, socket }) as RedisClientType;
    }
    this.watch(this.primaryClient);
    this.confirmer = new WriteConfirmer(() => this.client, {
      replicas: options.confirmReplicas ?? 0,
      timeoutMs: options.confirmTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS,
      aof: options.confirmAof ?? 'off',
      fewer: options.confirmFewer ?? 'refuse',
    });
    // Each (re)connect may reach another server (an upgrade, a failover): whether it can confirm on disk,
    // and how many replicas it has.
    this.on('state', (state: ConnectionState) => {
      if (state === 'connected') {
        void this.confirmer.probe();
        this.confirmer.startCounting();
      } else this.confirmer.stopCounting();
    });
    this.confirmer.onShortfall = (shortfall) => {
      this.emit('shortfall', shortfall);
      // what a status shows changed, not the state
      this.emit('shown');
    };
  }

  /** node-redis's client for commands now: read it for each use (sentinel mode replaces it after a failover). */
  get client(): RedisClientType {
    return this.primaryClient;
  }

  get state(): ConnectionState {
    return this.current;
  }

  /** Why it is unreachable, for a status or a problem answer. */
  get error(): Error | undefined {
    return this.lastError;
  }

  get ready(): boolean {
    return this.current === 'connected' && this.primaryClient.isReady;
  }

  /** Sentinel mode: the primary in use or last used (`host:port`); undefined while none was named, and in single mode. */
  get primary(): string | undefined {
    return this.primaryAddress && addressText(this.primaryAddress);
  }

  /** Sentinel mode: the sentinels see the primary down or are promoting a replica. */
  get failover(): boolean {
    return this.failingOver;
  }

  /** Redis answers but is still loading its data after a restart: unreachable for commands until it is done. */
  get loading(): boolean {
    return this.loadingData && this.current === 'unreachable';
  }

  /** Starts connecting (once); failures go to the reconnect loop, never to the caller. */
  open(): void {
    if (this.current === 'closed') return;
    if (this.watcher) {
      if (!this.started) this.watcher.start();
      this.started = true;
      return;
    }
    if (this.primaryClient.isOpen) return;
    this.primaryClient.connect().catch((err: Error) => {
      this.lastError = err;
    });
  }

  /** Throws RedisUnavailableError when commands cannot be sent now. */
  assertReady(): void {
    if (this.ready) return;
    const what = this.mode === 'sentinel' ? (this.failingOver ? 'Redis is failing over' : 'no Redis primary is available') : 'Redis is unreachable';
    throw new RedisUnavailableError(`${what}${this.lastError ? `: ${this.lastError.message}` : ''}`);
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
      // Sentinel mode: a sentinel's answer, then the primary's connect.
      const timer = setTimeout(end, CONNECT_TIMEOUT_MS * (this.watcher ? 2 : 1) + 500);
      timer.unref?.();
      this.on('state', end);
    });
    return this.firstConnect;
  }

  /**
   * `reply`, or a RedisUnavailableError once the command timeout has passed. node-redis bounds only the
   * wait to send a command: a primary that hangs (a frozen machine, a network gone quiet) would hold a
   * dedupe's or a presence's messages until the socket dies, minutes later. Late, it is treated as unreachable.
   */
  answer<T>(reply: Promise<T>): Promise<T> {
    return answerWithin(reply, this.commandTimeoutMs, (ms) => new RedisUnavailableError(`Redis did not answer within ${ms} ms`));
  }

  /** assertReady, after waiting for the first connect to end when it is still under way. */
  async whenReady(): Promise<void> {
    await this.settled();
    this.assertReady();
  }

  /** Counts a using node; the state is passed to `listener` now and on every change
   *  (and again when what a status shows of it changes: a failover begins). */
  use(listener: (state: ConnectionState) => void): () => void {
    const shown = (): void => listener(this.current);
    this.on('state', listener);
    this.on('shown', shown);
    listener(this.current);
    return () => {
      this.off('state', listener);
      this.off('shown', shown);
    };
  }

  /** Confirming on fewer replicas than asked (Confirm on replicas, *fewer*: on those connected): how many. */
  get shortfall(): Shortfall | undefined {
    return this.confirmer.shortfall;
  }

  /** A key under this connection's prefix. */
  key(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  async close(): Promise<void> {
    if (this.current === 'closed') return;
    this.setState('closed');
    clearTimeout(this.loadingRecheck);
    await this.watcher?.stop();
    const client = this.primaryClient;
    if (!client.isOpen) {
      // Still trying to connect (or never started): stop the loop.
      destroyQuietly(client);
      return;
    }
    try {
      await client.close();
    } catch {
      destroyQuietly(client);
    }
  }

  /** Follows `client`'s events while it is the one in use. */
  private watch(client: RedisClientType): void {
    client.on('ready', () => {
      if (client !== this.primaryClient) return;
      if (this.watcher) this.checkPrimary(client);
      else this.checkLoaded(client);
    });
    client.on('error', (err: Error) => {
      // node-redis reports every failed attempt here; without a listener it would throw.
      if (client !== this.primaryClient) return;
      this.lastError = err;
      this.loadingData = false;
      if (this.current !== 'closed') this.setState('unreachable');
      // Sentinel mode: a primary lost may be a failover; ask now rather than at the next poll.
      this.watcher?.poll();
    });
    client.on('reconnecting', () => {
      if (client !== this.primaryClient) return;
      this.loadingData = false;
      if (this.current === 'connected') this.setState('unreachable');
    });
    client.on('end', () => {
      if (client === this.primaryClient) this.setState('closed');
    });
  }

  // --- Sentinel mode ---

  /** A sentinel's answer: a new primary gets a new client; a failover beginning or ending is shown. */
  private onReport(report: PrimaryReport): void {
    if (this.current === 'closed') return;
    const failover = report.failover;
    const known = this.primaryAddress;
    if (!known || known.host !== report.address.host || known.port !== report.address.port) {
      this.failingOver = failover;
      this.switchTo(report.address);
      return;
    }
    if (failover !== this.failingOver) {
      this.failingOver = failover;
      // What a status shows changed, not the state: tell the using nodes.
      if (this.current !== 'connected') this.emit('state', this.current);
    }
    // Connected to the named address but not used (it answered as a replica): ask it again.
    if (this.current !== 'connected' && this.primaryClient.isReady) this.checkPrimary(this.primaryClient);
  }

  /** Points a new client at `address` and lets the old one go (its commands under way fail: 503, resent). */
  private switchTo(address: SentinelAddress): void {
    const old = this.primaryClient;
    const clientAt = this.clientAt as (address: SentinelAddress) => RedisClientType;
    const client = clientAt(address);
    const previous = this.primaryAddress;
    this.primaryAddress = address;
    this.primaryClient = client;
    this.watch(client);
    if (previous) {
      this.lastError = new Error(`the sentinels moved the primary from ${addressText(previous)} to ${addressText(address)}`);
      if (this.current === 'connected') this.setState('unreachable');
      else this.emit('state', this.current);
    }
    client.connect().catch((err: Error) => {
      if (client === this.primaryClient) this.lastError = err;
    });
    destroyQuietly(old);
  }

  /** Uses `client` once it answers ROLE as a master: the address the sentinels name may still be a replica. */
  private checkPrimary(client: RedisClientType): void {
    client.sendCommand(['ROLE']).then(
      (role) => {
        if (client !== this.primaryClient || !client.isReady) return;
        if (Array.isArray(role) && String(role[0]) === 'master') {
          this.failingOver = false;
          this.checkLoaded(client);
          return;
        }
        this.lastError = new Error(`${this.primary} is not a primary (yet)`);
        this.setState('unreachable');
      },
      (err: Error) => {
        if (client !== this.primaryClient) return;
        this.lastError = err;
        this.setState('unreachable');
      },
    );
  }

  // --- end Sentinel mode ---

  /**
   * Uses `client` once its server has loaded its data. A Redis restarting with data (an RDB or
   * append-only file, a stream of pending events) accepts connections at once but answers LOADING to
   * nearly every command until it is done, seconds or minutes later: until then it is unreachable, with
   * that as the reason, and asked again every LOADING_RECHECK_MS. A server that does not let this user
   * read INFO is used as it is.
   */
  private checkLoaded(client: RedisClientType): void {
    clearTimeout(this.loadingRecheck);
    const usable = (): boolean => client === this.primaryClient && client.isReady && this.current !== 'closed';
    client.sendCommand(['INFO', 'persistence']).then(
      (info) => {
        if (!usable()) return;
        const text = String(info);
        if (!/^loading:1\s*$/m.test(text)) {
          this.loadingData = false;
          this.setState('connected');
          return;
        }
        const done = /^loading_loaded_perc:([\d.]+)/m.exec(text)?.[1];
        this.lastError = new Error(`Redis is loading its data into memory${done ? ` (${Math.floor(Number(done))}% done)` : ''}`);
        const wasShown = this.loading;
        this.loadingData = true;
        if (!wasShown) {
          // Already unreachable (the restart closed the socket): what a status shows changed, not the state.
          if (this.current === 'unreachable') this.emit('state', this.current);
          else this.setState('unreachable');
        }
        this.loadingRecheck = setTimeout(() => usable() && this.checkLoaded(client), LOADING_RECHECK_MS);
        this.loadingRecheck.unref?.();
      },
      () => {
        // INFO not allowed (an ACL, a managed service): no way to tell, so it is used.
        if (!usable()) return;
        this.loadingData = false;
        this.setState('connected');
      },
    );
  }

  private setState(state: ConnectionState): void {
    if (this.current === state || (this.current === 'closed' && state !== 'closed')) return;
    this.current = state;
    if (state === 'connected') this.lastError = undefined;
    this.emit('state', state);
  }
}

/** Stops a client whatever it is doing (a client never connected has nothing to stop). */
function destroyQuietly(client: RedisClientType): void {
  try {
    client.destroy();
  } catch {
    // not open: nothing to stop
  }
}
