/**
 * Requests held while a receiver is replaced by a deploy. Between the old
 * receiver stopping and the new one mounting (a second or two on a full
 * deploy), an answer of 503 would make the bridge resend the same large
 * event later; holding the request, unread, and handing it to the new
 * receiver answers it once, with the same 200. Bounded in number per path
 * and in time: past either, the request is given up to `refuse` (503 with
 * Retry-After, the bridge keeps the event).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { systemClock, type Clock } from '../core/clock';

export interface HeldRequestsOptions {
  /** Requests held per key at most; one more is refused at once. */
  maxPerKey: number;
  /** How long a request may wait for its successor. */
  maxWaitMs: number;
  /** Answers a request given up (full, timed out, no successor). */
  refuse(req: IncomingMessage, res: ServerResponse): void;
  clock?: Clock;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Held {
  req: IncomingMessage;
  res: ServerResponse;
  timer: unknown;
  forget: () => void;
}

export class HeldRequests {
  private readonly byKey = new Map<string, Held[]>();
  private readonly clock: Clock;

  constructor(private readonly options: HeldRequestsOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** Requests held under `key` now. */
  count(key: string): number {
    return this.byKey.get(key)?.length ?? 0;
  }

  /** Holds a request for the successor on `key`; refuses it at once past the bound. */
  hold(key: string, req: IncomingMessage, res: ServerResponse): void {
    const list = this.byKey.get(key) ?? [];
    if (list.length >= this.options.maxPerKey) {
      this.options.refuse(req, res);
      return;
    }
    const held: Held = {
      req,
      res,
      timer: this.clock.setTimeout(() => {
        this.take(key, held);
        this.options.refuse(req, res);
      }, this.options.maxWaitMs),
      // A sender that gave up: nothing to answer any more.
      forget: () => {
        this.clock.clearTimeout(held.timer);
        this.take(key, held);
      },
    };
    res.once('close', held.forget);
    list.push(held);
    this.byKey.set(key, list);
  }

  /** Hands every request held on `key` to `handler`, in arrival order. */
  release(key: string, handler: Handler): void {
    for (const held of this.drain(key)) handler(held.req, held.res);
  }

  /** Gives up every request held on `key` (no successor came). */
  refuseAll(key: string): void {
    for (const held of this.drain(key)) this.options.refuse(held.req, held.res);
  }

  /** Keys with requests held. */
  keys(): string[] {
    return [...this.byKey.keys()];
  }

  private drain(key: string): Held[] {
    const list = this.byKey.get(key) ?? [];
    this.byKey.delete(key);
    for (const held of list) {
      this.clock.clearTimeout(held.timer);
      held.res.removeListener('close', held.forget);
    }
    return list;
  }

  private take(key: string, held: Held): void {
    const list = this.byKey.get(key);
    if (!list) return;
    const at = list.indexOf(held);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.byKey.delete(key);
    held.res.removeListener('close', held.forget);
  }
}
