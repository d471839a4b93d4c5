/**
 * Delivery of events to the WebHooks registered on the simulated controller
 * (webhooks-server.ts), as the bridge does for its registrations (issue 44):
 *
 * - an event goes to the WebHooks of its kind only: face events to those with
 *   `webHookFaceRec`, plate events to those with `webHookLpr`;
 * - each with its own credentials: Basic from `basicUsername`/`basicPassword`,
 *   and `headerKey: headerValue`;
 * - TLS: `allowSelfSigned` accepts any certificate, else it is verified;
 * - `resilient`: retried until a 200, as `send --resilient`; otherwise a few
 *   retries with exponential backoff, then given up and counted as lost.
 *
 * Each attempt reads the WebHook again, so an update applies to the next
 * retry and a deletion ends the retries (abandoned). Node-RED-free.
 */
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { kindOf, type DetectionEvent, type EventKind } from '../lib/events';
import { errorCode, TIMEOUT_CODES } from '../lib/http';
import { connectFor } from './tls';
import type { StoredWebHook, WebHookStore } from './webhooks-server';

export interface WebHookDeliveryOptions {
  /** Not resilient: retries after the first attempt before the event is lost. Default 3. */
  retries?: number;
  /** Resilient: the pause between attempts; otherwise the first backoff, doubled each retry. Default 1000 ms. */
  retryDelayMs?: number;
  /** Cap of the backoff. Default 30000 ms. */
  maxRetryDelayMs?: number;
  /** No complete answer within this is a failed attempt. Default 10000 ms. */
  timeoutMs?: number;
}

export interface WebHookAttempt {
  hookId: string;
  kind: EventKind;
  messageId?: string;
  attempt: number;
  status?: number;
  error?: string;
}

export interface WebHookOutcome {
  hookId: string;
  url: string;
  kind: EventKind;
  messageId?: string;
  /** `abandoned`: stopped, or the WebHook was deleted while retrying. */
  outcome: 'delivered' | 'lost' | 'abandoned';
  attempts: number;
}

export interface WebHookCounts {
  delivered: number;
  retried: number;
  lost: number;
  abandoned: number;
}

/** The WebHooks an event of `kind` goes to. */
export function webHooksFor(hooks: readonly StoredWebHook[], kind: EventKind): StoredWebHook[] {
  return hooks.filter((hook) => (kind === 'face' ? hook.webHookFaceRec : hook.webHookLpr));
}

/** The headers of a WebHook's own credentials. */
export function webHookHeaders(hook: StoredWebHook): Record<string, string> {
  const headers: Record<string, string> = {};
  if (hook.basicUsername)
    headers.authorization = `Basic ${Buffer.from(`${hook.basicUsername}:${hook.basicPassword ?? ''}`, 'utf8').toString('base64')}`;
  if (hook.headerKey) headers[hook.headerKey.toLowerCase()] = hook.headerValue ?? '';
  return headers;
}

export class WebHookDelivery extends EventEmitter<{ attempt: [WebHookAttempt]; settled: [WebHookOutcome] }> {
  /** Per hookId. */
  readonly counts = new Map<string, WebHookCounts>();
  private readonly o: Required<WebHookDeliveryOptions>;
  private readonly controller = new AbortController();
  private readonly verified: Agent;
  private readonly selfSigned: Agent;

  constructor(
    private readonly store: WebHookStore,
    options: WebHookDeliveryOptions = {},
  ) {
    super();
    this.o = { retries: 3, retryDelayMs: 1000, maxRetryDelayMs: 30_000, timeoutMs: 10_000, ...options };
    const timeouts = { headersTimeout: this.o.timeoutMs, bodyTimeout: this.o.timeoutMs };
    this.verified = new Agent({ connect: connectFor({}), ...timeouts });
    this.selfSigned = new Agent({ connect: connectFor({ insecure: true }), ...timeouts });
  }

  /** Delivers `event` to every WebHook of its kind registered now; resolves when each is delivered, lost or abandoned. */
  deliver(event: DetectionEvent): Promise<WebHookOutcome[]> {
    const kind = kindOf(event);
    return Promise.all(webHooksFor(this.store.list(), kind).map((hook) => this.deliverTo(hook.hookId, kind, event)));
  }

  /** Totals over every WebHook. */
  totals(): WebHookCounts {
    const sum: WebHookCounts = { delivered: 0, retried: 0, lost: 0, abandoned: 0 };
    for (const c of this.counts.values()) for (const key of Object.keys(sum) as Array<keyof WebHookCounts>) sum[key] += c[key];
    return sum;
  }

  /** Cuts retries and requests short (abandoned) and closes the connections. */
  async close(): Promise<void> {
    this.controller.abort();
    await Promise.all([this.verified.destroy(), this.selfSigned.destroy()]).catch(() => undefined);
  }

  private countsOf(hookId: string): WebHookCounts {
    let c = this.counts.get(hookId);
    if (!c) this.counts.set(hookId, (c = { delivered: 0, retried: 0, lost: 0, abandoned: 0 }));
    return c;
  }

  private async deliverTo(hookId: string, kind: EventKind, event: DetectionEvent): Promise<WebHookOutcome> {
    const messageId = event.payload?.messageId ?? undefined;
    const counts = this.countsOf(hookId);
    let url = '';
    const settle = (outcome: WebHookOutcome['outcome'], attempts: number): WebHookOutcome => {
      counts[outcome]++;
      const report = { hookId, url, kind, messageId, outcome, attempts };
      this.emit('settled', report);
      return report;
    };
    const first = Buffer.from(JSON.stringify(event), 'utf8');
    let replay: Buffer | undefined;
    for (let attempt = 1; ; attempt++) {
      const hook = this.store.get(hookId);
      if (!hook || this.controller.signal.aborted) return settle('abandoned', attempt - 1);
      url = hook.url;
      if (attempt > 1) counts.retried++;
      // A retry says it is one, as the bridge's replays do.
      replay ??= attempt > 1 ? Buffer.from(JSON.stringify({ ...event, payload: { ...event.payload, resentEvent: true } }), 'utf8') : undefined;
      const result = await this.post(hook, attempt > 1 ? replay! : first);
      this.emit('attempt', { hookId, kind, messageId, attempt, ...result });
      const ok = result.status !== undefined && (hook.resilient ? result.status === 200 : result.status >= 200 && result.status <= 299);
      if (ok) return settle('delivered', attempt);
      let delay: number | undefined;
      if (hook.resilient) delay = this.o.retryDelayMs;
      else if (attempt <= this.o.retries) delay = Math.min(this.o.maxRetryDelayMs, this.o.retryDelayMs * 2 ** (attempt - 1));
      if (delay === undefined) return settle('lost', attempt);
      try {
        await sleep(delay, undefined, { signal: this.controller.signal });
      } catch {
        return settle('abandoned', attempt);
      }
    }
  }

  private async post(hook: StoredWebHook, body: Buffer): Promise<{ status?: number; error?: string }> {
    const signal = AbortSignal.any([this.controller.signal, AbortSignal.timeout(this.o.timeoutMs)]);
    try {
      const res = await request(hook.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'detection-bridge-sim', ...webHookHeaders(hook) },
        body,
        dispatcher: hook.allowSelfSigned ? this.selfSigned : this.verified,
        signal,
      });
      await res.body.dump();
      return { status: res.statusCode };
    } catch (err) {
      const code = errorCode(err);
      if (this.controller.signal.aborted) return { error: 'aborted' };
      return { error: code && TIMEOUT_CODES.has(code) ? 'timeout' : (code ?? (err as Error)?.name ?? 'error') };
    }
  }
}
