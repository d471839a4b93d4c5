/**
 * Event delivery as the events bridge does it (spec, "Events", delivery rules),
 * against a receiver URL, with undici:
 *
 * - face and plate events (`publishType` WebHookFaceRecPayload/WebHookLprPayload)
 *   at a chosen rate and mix, a count or until stopped; each event a fresh
 *   `messageId` (crypto.randomUUID);
 * - credentials as the bridge sends them: Basic, Bearer, or a custom header;
 * - success only on a 2xx answer;
 * - `resilient`: retry until a 200 (about once per second, as the bridge's
 *   documentation says; the delay is configurable);
 *   otherwise a fixed number of retries with exponential backoff, then failed;
 * - several receiver URLs (instances behind a load balancer): attempts go to
 *   them in turn, round robin, so a retry goes to the next instance;
 * - a replay carries `resentEvent: true` and the same `messageId`;
 * - a slow answer hits the request timeout and is retried, so a slow
 *   receiver sees the event twice (and should dedupe on messageId);
 * - a receiver's self-signed certificate is accepted only when asked.
 *
 * Node-RED-free.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter, setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import type { DetectionEvent, EventKind } from '../lib/events';
import { authHeaders, resolveDeliveryOptions, type AttemptReport, type DeliveryOptions, type Resolved } from './delivery-options';
import { buildDeliveryEvent, kindForSeq } from './events';
import { applyEnrollment, EnrolledDraw } from './enrolled-events';
import { ScenarioDraw } from './scenario';
import { LatencyRecorder, type DeliverySummary } from './summary';
import { errorCode, TIMEOUT_CODES } from '../lib/http';
import { connectFor } from './tls';

export type { AttemptOutcome, AttemptReport } from './delivery-options';

export interface SentReport {
  seq: number;
  kind: EventKind;
  messageId: string;
  /** With enrollments: the event's externalId (null: not an enrolled item). */
  externalId?: string | null;
}

export interface SettledReport extends SentReport {
  outcome: 'acknowledged' | 'failed' | 'abandoned';
  attempts: number;
}

export interface DeliveryEvents {
  sent: [SentReport];
  attempt: [AttemptReport];
  settled: [SettledReport];
}

interface AttemptResult {
  status?: number;
  error?: string;
  detail?: string;
  latencyMs: number;
}

interface Pending {
  seq: number;
  kind: EventKind;
  messageId: string;
  event: DetectionEvent;
  first?: Buffer;
  replay?: Buffer;
}

/**
 * A delivery run in progress. Emits `sent` when an event is first delivered,
 * `attempt` after every request, `settled` when an event is acknowledged,
 * failed or abandoned. `done` resolves with the summary (it never rejects for
 * a delivery failure).
 */
export class DeliveryRun extends EventEmitter<DeliveryEvents> {
  readonly done: Promise<DeliverySummary>;
  private readonly o: Resolved;
  private readonly controller = new AbortController();
  private readonly headers: Record<string, string>;
  private readonly latency = new LatencyRecorder();
  private readonly statusCodes: Record<string, number> = {};
  private readonly errors: Record<string, number> = {};
  private readonly kinds: Record<EventKind, number> = { face: 0, lpr: 0 };
  private readonly started = Date.now();
  private finished?: number;
  private counters = { sent: 0, attempts: 0, acknowledged: 0, retried: 0, failed: 0, abandoned: 0, bytesSent: 0 };
  private readonly onAttempt?: (report: AttemptReport) => void;
  private readonly enrolled?: { draw: EnrolledDraw; store: NonNullable<DeliveryOptions['enrollments']> };
  private readonly scenes?: ScenarioDraw;

  constructor(options: DeliveryOptions) {
    super();
    this.o = resolveDeliveryOptions(options);
    if (this.o.scenario) this.scenes = new ScenarioDraw(this.o.scenario, this.o.seed);
    if (options.enrollments) this.enrolled = { draw: new EnrolledDraw(options.enrollments, this.o.enrolledShare), store: options.enrollments };
    // Every event in delivery waits on the stop signal: no listener-count warning.
    setMaxListeners(0, this.controller.signal);
    this.onAttempt = options.onAttempt;
    this.headers = {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'detection-bridge-sim',
      ...authHeaders(this.o.auth),
    };
    const external = options.signal;
    if (external) {
      if (external.aborted) this.controller.abort();
      else external.addEventListener('abort', () => this.controller.abort(), { once: true });
    }
    const dispatcher =
      options.dispatcher ??
      new Agent({
        connect: connectFor({ insecure: this.o.insecure, ca: this.o.ca, fingerprint: this.o.fingerprint }),
        connections: this.o.concurrency,
        headersTimeout: this.o.timeoutMs,
        bodyTimeout: this.o.timeoutMs,
      });
    this.done = this.run(dispatcher).finally(async () => {
      if (!options.dispatcher) await (dispatcher as Agent).destroy().catch(() => undefined);
    });
  }

  /** The seed of the scenario's draws (undefined without a scenario): the same seed gives the same events. */
  get seed(): number | undefined {
    return this.scenes?.seed;
  }

  /** Stops the run: no new events; requests in flight and retry pauses are cut short. */
  stop(): void {
    this.controller.abort();
  }

  get stopped(): boolean {
    return this.controller.signal.aborted;
  }

  /** The summary so far (final once `done` resolved). */
  snapshot(): DeliverySummary {
    const end = this.finished ?? Date.now();
    const durationMs = end - this.started;
    const c = this.counters;
    return {
      url: this.o.urls.map((u) => u.href).join(', '),
      mode: this.o.resilient ? 'resilient' : 'retries',
      retries: this.o.resilient ? null : this.o.retries,
      sent: c.sent,
      kinds: { ...this.kinds },
      attempts: c.attempts,
      acknowledged: c.acknowledged,
      retried: c.retried,
      failed: c.failed,
      abandoned: c.abandoned,
      stopped: this.stopped,
      statusCodes: { ...this.statusCodes },
      errors: { ...this.errors },
      latencyMs: this.latency.summary(),
      bytesSent: c.bytesSent,
      startedAt: new Date(this.started).toISOString(),
      finishedAt: new Date(end).toISOString(),
      durationMs,
      acknowledgedPerSecond: durationMs > 0 ? Math.round((c.acknowledged / durationMs) * 1000 * 100) / 100 : 0,
    };
  }

  private async run(dispatcher: Dispatcher): Promise<DeliverySummary> {
    await nextTurn(); // listeners attached after construction see everything
    const signal = this.controller.signal;
    const stoppedPromise = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const interval = this.o.rate > 0 ? 1000 / this.o.rate : 0;
    const inFlight = new Set<Promise<void>>();
    const enrolled = this.enrolled;
    let nextAt = performance.now();
    for (let seq = 1; this.o.forever || seq <= this.o.count; seq++) {
      while (inFlight.size >= this.o.concurrency && !signal.aborted) await Promise.race([...inFlight, stoppedPromise]);
      if (signal.aborted) break;
      if (interval > 0) {
        const now = performance.now();
        if (nextAt > now) {
          try {
            await sleep(nextAt - now, undefined, { signal });
          } catch {
            break;
          }
        }
        nextAt = Math.max(nextAt, now) + interval;
      }
      const kind = kindForSeq(seq, this.o.mix);
      const messageId = randomUUID();
      const pending: Pending = {
        seq,
        kind,
        messageId,
        event: buildDeliveryEvent(kind, {
          messageId,
          images: this.o.images,
          scene: this.scenes?.next(kind),
          scenario: this.o.scenario,
          // before the pictures are drawn, so that they show the enrolled plate or person
          edit: enrolled && ((event: DetectionEvent) => applyEnrollment(event, enrolled.draw.next(kind), enrolled.store)),
        }),
      };
      this.counters.sent++;
      this.kinds[kind]++;
      this.emit('sent', { seq, kind, messageId, ...(this.enrolled ? { externalId: pending.event.externalId ?? null } : {}) });
      const task: Promise<void> = this.deliver(pending, dispatcher).finally(() => inFlight.delete(task));
      inFlight.add(task);
    }
    await Promise.all(inFlight);
    this.finished = Date.now();
    return this.snapshot();
  }

  private body(pending: Pending, resent: boolean): Buffer {
    if (resent) {
      if (!pending.replay) {
        pending.event.payload.resentEvent = true;
        pending.replay = Buffer.from(JSON.stringify(pending.event), 'utf8');
        pending.first = undefined;
      }
      return pending.replay;
    }
    pending.first ??= Buffer.from(JSON.stringify(pending.event), 'utf8');
    return pending.first;
  }

  private settle(pending: Pending, outcome: SettledReport['outcome'], attempts: number): void {
    this.counters[outcome]++;
    this.emit('settled', { seq: pending.seq, kind: pending.kind, messageId: pending.messageId, outcome, attempts });
  }

  private report(report: AttemptReport): void {
    this.emit('attempt', report);
    try {
      this.onAttempt?.(report);
    } catch {
      // a listener's bug does not stop the run
    }
  }

  private async deliver(pending: Pending, dispatcher: Dispatcher): Promise<void> {
    const signal = this.controller.signal;
    let failures = 0;
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) return this.settle(pending, 'abandoned', attempt - 1);
      const resent = attempt > 1;
      if (resent) this.counters.retried++;
      this.counters.attempts++;
      const url = this.receiverFor(pending.seq, attempt);
      const result = await this.attempt(pending, resent, dispatcher, url);
      if (result.status !== undefined) this.statusCodes[result.status] = (this.statusCodes[result.status] ?? 0) + 1;
      if (result.error !== undefined) this.errors[result.error] = (this.errors[result.error] ?? 0) + 1;
      const base = { seq: pending.seq, kind: pending.kind, messageId: pending.messageId, attempt, url: url.href, resent, ...result };
      const status = result.status;
      const ok = status !== undefined && (this.o.resilient ? status === 200 : status >= 200 && status <= 299);
      if (ok) {
        this.latency.record(result.latencyMs);
        this.report({ ...base, outcome: 'acknowledged' });
        return this.settle(pending, 'acknowledged', attempt);
      }
      if (result.error === 'aborted' || signal.aborted) {
        this.report({ ...base, outcome: 'aborted' });
        return this.settle(pending, 'abandoned', attempt);
      }
      failures++;
      let delay: number | undefined;
      if (this.o.resilient) delay = this.o.retryDelayMs;
      else if (failures <= this.o.retries) delay = Math.min(this.o.maxRetryDelayMs, this.o.retryDelayMs * 2 ** (failures - 1));
      if (delay === undefined) {
        this.report({ ...base, outcome: 'failed' });
        return this.settle(pending, 'failed', attempt);
      }
      this.report({ ...base, outcome: 'retry', retryInMs: delay });
      try {
        await sleep(delay, undefined, { signal });
      } catch {
        return this.settle(pending, 'abandoned', attempt);
      }
    }
  }

  /** Round robin over the receivers: event `seq`'s first attempt goes to the
   *  seq-th, each retry to the one after its previous attempt's. */
  private receiverFor(seq: number, attempt: number): URL {
    const urls = this.o.urls;
    return urls[(seq - 1 + attempt - 1) % urls.length];
  }

  private async attempt(pending: Pending, resent: boolean, dispatcher: Dispatcher, url: URL): Promise<AttemptResult> {
    const stop = this.controller.signal;
    const body = this.body(pending, resent);
    this.counters.bytesSent += body.length;
    // One controller per attempt, cut by the deadline or by stop(); both
    // hooks are removed after the attempt (no listener piles up on a long run).
    const cut = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      cut.abort();
    }, this.o.timeoutMs);
    const onStop = (): void => cut.abort();
    stop.addEventListener('abort', onStop, { once: true });
    const signal = cut.signal;
    const started = performance.now();
    try {
      const res = await request(url, {
        method: 'POST',
        headers: this.headers,
        body,
        dispatcher,
        signal,
        headersTimeout: this.o.timeoutMs,
        bodyTimeout: this.o.timeoutMs,
      });
      const ok = res.statusCode >= 200 && res.statusCode <= 299;
      const text = await readHead(res.body);
      return { status: res.statusCode, latencyMs: performance.now() - started, detail: ok ? undefined : text || undefined };
    } catch (err) {
      const latencyMs = performance.now() - started;
      if (stop.aborted) return { error: 'aborted', latencyMs };
      const code = errorCode(err);
      if (timedOut || (code && TIMEOUT_CODES.has(code))) {
        return { error: 'timeout', latencyMs, detail: `no complete answer within ${this.o.timeoutMs} ms` };
      }
      const message = err instanceof Error ? err.message : String(err);
      return { error: code ?? 'error', latencyMs, detail: message };
    } finally {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
    }
  }
}

/** Starts a delivery run; see DeliveryRun. Throws SimOptionError on bad options. */
export function startDelivery(options: DeliveryOptions): DeliveryRun {
  return new DeliveryRun(options);
}

/** Delivers events and resolves with the summary when done or stopped. */
export function runDelivery(options: DeliveryOptions): Promise<DeliverySummary> {
  return startDelivery(options).done;
}

/** Reads an answer body, keeping only its first bytes (for messages). */
async function readHead(body: Dispatcher.ResponseData['body'], keep = 200): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of body) {
    if (kept < keep) {
      const buf = chunk as Buffer;
      chunks.push(buf.subarray(0, keep - kept));
      kept += Math.min(buf.length, keep - kept);
    }
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim();
}
