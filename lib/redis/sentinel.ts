/**
 * Where the primary is now, as Redis Sentinel says: the sentinels' addresses
 * as a user types them, and a watcher that asks one sentinel at a time
 * (`SENTINEL MASTER <name>`: the primary's address and whether the sentinels
 * see it down or are failing it over) and moves to the next one when that
 * sentinel does not answer.
 *
 * Why not node-redis's own `createSentinel`: while it reconfigures after a
 * failover it holds every command until the new primary is connected (then
 * retries, up to 16 rediscoveries a second apart), it gives up for good when
 * the first connect fails, and its object is not a `RedisClientType`. A
 * receiver must answer 503 at once while no primary is known, and every user
 * of the connection (streams, dedupes, presence) is written against the plain
 * client. So the connection keeps a plain client and points a new one at the
 * address this watcher reports; one small command a second to one sentinel
 * is the cost.
 */
import { EventEmitter } from 'node:events';
import { isIP } from 'node:net';
import { createClient, type RedisClientType } from 'redis';
import { answerWithin } from './answer-within';

export interface SentinelAddress {
  host: string;
  port: number;
}

/** `host:port` for a status or an error; an IPv6 host in brackets. */
export function addressText(address: SentinelAddress): string {
  return isIP(address.host) === 6 ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

/**
 * The sentinels' addresses from a `host:port` list (comma, space or newline
 * separated; an IPv6 host in brackets): undefined when the list is empty or
 * one of them is not a host and a port from 1 to 65535.
 */
export function parseSentinels(text: string | undefined): SentinelAddress[] | undefined {
  const parts = String(text ?? '')
    .split(/[\s,;]+/)
    .filter(Boolean);
  if (parts.length === 0) return undefined;
  const out: SentinelAddress[] = [];
  for (const part of parts) {
    const match = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9_.-]+)):(\d{1,5})$/i.exec(part);
    const port = match ? Number(match[3]) : 0;
    if (!match || port < 1 || port > 65535) return undefined;
    out.push({ host: match[1] ?? match[2], port });
  }
  return out;
}

/** What one sentinel says of the primary. */
export interface PrimaryReport {
  address: SentinelAddress;
  /** The sentinels see it down (subjectively or objectively) or are promoting a replica. */
  failover: boolean;
}

export interface SentinelWatcherOptions {
  sentinels: SentinelAddress[];
  /** The name the sentinels monitor the primary by. */
  primaryName: string;
  username?: string;
  password?: string;
  /** node-redis socket options for TLS (`tls: true`, `ca`, `rejectUnauthorized`), or none. */
  tls?: Record<string, unknown>;
  /** How often the sentinel is asked (ms). */
  pollMs: number;
  /** How long connecting to a sentinel, or its answer, may take (ms). */
  timeoutMs: number;
}

/**
 * Asks the sentinels every `pollMs` and at once on `poll()`. Emits `report`
 * (PrimaryReport) after each answer, `failure` (Error) when no sentinel
 * answered a round.
 */
export class SentinelWatcher extends EventEmitter {
  private client: RedisClientType | undefined;
  /** Which sentinel `client` talks to. */
  private clientIndex = -1;
  /** The sentinel asked first: the last one that answered. */
  private current = 0;
  private timer: NodeJS.Timeout | undefined;
  private asking: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly options: SentinelWatcherOptions) {
    super();
  }

  start(): void {
    if (this.stopped || this.timer) return;
    this.timer = setInterval(() => this.poll(), this.options.pollMs);
    this.timer.unref?.();
    this.poll();
  }

  /** Asks now (or right after the round under way). */
  poll(): void {
    if (this.stopped) return;
    if (this.asking) {
      this.again = true;
      return;
    }
    this.asking = this.round().finally(() => {
      this.asking = undefined;
      if (this.again) {
        this.again = false;
        this.poll();
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.drop();
    await this.asking?.catch(() => undefined);
  }

  /** One round: each sentinel in turn from the last that answered, until one does. */
  private async round(): Promise<void> {
    const { sentinels } = this.options;
    const errors: string[] = [];
    for (let i = 0; i < sentinels.length && !this.stopped; i++) {
      const index = (this.current + i) % sentinels.length;
      try {
        const report = await this.ask(index);
        this.current = index;
        if (!this.stopped) this.emit('report', report);
        return;
      } catch (err) {
        this.drop();
        errors.push(`${addressText(sentinels[index])}: ${(err as Error).message}`);
      }
    }
    if (!this.stopped) this.emit('failure', new Error(`no sentinel answered (${errors.join('; ')})`));
  }

  private async ask(index: number): Promise<PrimaryReport> {
    if (!this.client || this.clientIndex !== index || !this.client.isReady) {
      this.drop();
      const { host, port } = this.options.sentinels[index];
      const client = createClient({
        username: this.options.username || undefined,
        password: this.options.password || undefined,
        disableOfflineQueue: true,
        commandOptions: { timeout: this.options.timeoutMs },
        // One attempt: a sentinel that does not answer is left for the next one in the list.
        socket: { host, port, connectTimeout: this.options.timeoutMs, reconnectStrategy: false, ...this.options.tls },
      }) as RedisClientType;
      // Failures reach the caller through connect() and the command; without a listener node-redis would throw.
      client.on('error', () => undefined);
      this.client = client;
      this.clientIndex = index;
      await client.connect();
    }
    // bounded: node-redis's timeout covers only the send, and a sentinel that hangs must not stop the watch
    const reply = await answerWithin(this.client.sendCommand(['SENTINEL', 'MASTER', this.options.primaryName]), this.options.timeoutMs);
    return reportOf(reply);
  }

  private drop(): void {
    const client = this.client;
    this.client = undefined;
    if (client) client.destroy();
  }
}

/** The primary's address and state from a `SENTINEL MASTER` reply (a flat list, or a map in RESP3). */
export function reportOf(reply: unknown): PrimaryReport {
  const fields = new Map<string, string>();
  if (Array.isArray(reply)) for (let i = 0; i + 1 < reply.length; i += 2) fields.set(String(reply[i]), String(reply[i + 1]));
  else if (reply && typeof reply === 'object') for (const [k, v] of Object.entries(reply)) fields.set(k, String(v));
  const host = fields.get('ip');
  const port = Number(fields.get('port'));
  if (!host || !Number.isInteger(port) || port < 1) throw new Error('the sentinel named no primary');
  const flags = (fields.get('flags') ?? '').split(',');
  const failover = flags.some((f) => f === 's_down' || f === 'o_down' || f === 'failover_in_progress');
  return { address: { host, port }, failover };
}
