/**
 * Which receiver serves each path, and the hand-over of a path from a
 * receiver to its successor across a deploy.
 *
 * One receiver per path: a second one asking for a path in use is told who
 * has it. A receiver stopped by a deploy leaves its route mounted, on
 * standby: what arrives there is held, unread (./held-requests.ts), and
 * handed to the successor that serves the same path, so the bridge gets one
 * answer, the same 200, rather than a 503 that makes it send the event
 * again later. A path no receiver came back to once the flows have started
 * (deleted, moved to another path, or it could not start) is let go: its
 * route removed, what it held refused.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeldRequests, type HeldRequestsOptions } from './held-requests';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface RemovableRoute {
  remove(): void;
}

export interface RouteHandoverOptions extends HeldRequestsOptions {
  /** Runs `sweep` once after the flows have next started (Node-RED: its `flows:started` event). */
  afterStart(sweep: () => void): void;
}

/** A path served by a receiver. */
export interface ServedRoute {
  /**
   * Stops serving: `removed` (the receiver is deleted) takes the route away;
   * otherwise it stays on standby, holding what arrives for the successor.
   * The path is free for another receiver either way.
   */
  stop(removed: boolean): void;
}

export class RouteHandover {
  /** Path key → id of the receiver that has it. */
  private readonly owners = new Map<string, string>();
  /** Path key → the route of a stopped receiver, holding requests until its successor serves the path. */
  private readonly standby = new Map<string, RemovableRoute>();
  private readonly held: HeldRequests;
  private sweepArmed = false;

  constructor(private readonly options: RouteHandoverOptions) {
    this.held = new HeldRequests(options);
  }

  /** Takes `key` for receiver `id`; when another receiver has it, takes nothing and answers that one's id. */
  claim(key: string, id: string): string | undefined {
    const owner = this.owners.get(key);
    if (owner !== undefined && owner !== id) return owner;
    this.owners.set(key, id);
    return undefined;
  }

  /** Gives `key` up, if receiver `id` has it (a receiver that could not start after all). */
  unclaim(key: string, id: string): void {
    if (this.owners.get(key) === id) this.owners.delete(key);
  }

  /**
   * Receiver `id` serves `key` with `handler`: its predecessor's route on
   * standby is taken away, the requests held meanwhile are handed to
   * `handler` in arrival order, and `mount` puts up the new route. With
   * `ready`, all that waits until it settles (a Redis connection's first
   * connect): requests go on being held meanwhile, on the predecessor's route
   * or, when there is none, on the new route.
   */
  serve(key: string, id: string, handler: RouteHandler, mount: (handler: RouteHandler) => RemovableRoute, ready?: Promise<unknown>): ServedRoute {
    let stopped = false;
    let live = false;
    let route: RemovableRoute | undefined;
    const serving: RouteHandler = (req, res) => (live && !stopped ? handler(req, res) : this.held.hold(key, req, res));
    const goLive = (): void => {
      if (stopped) return;
      const standby = this.standby.get(key);
      if (standby !== route) standby?.remove();
      this.standby.delete(key);
      live = true;
      this.held.release(key, handler);
      route ??= mount(serving);
    };
    if (!ready) goLive();
    else {
      if (!this.standby.has(key)) route = mount(serving);
      ready.then(goLive, goLive);
    }
    return {
      stop: (removed) => {
        if (stopped) return;
        stopped = true;
        // Never mounted: the predecessor's route on standby goes on holding (or is let go by the sweep).
        if (route && removed) route.remove();
        else {
          if (route) this.standby.set(key, route);
          this.armSweep();
        }
        this.unclaim(key, id);
      },
    };
  }

  /** Requests held on `key` now. */
  heldCount(key: string): number {
    return this.held.count(key);
  }

  private armSweep(): void {
    if (this.sweepArmed) return;
    this.sweepArmed = true;
    this.options.afterStart(() => {
      this.sweepArmed = false;
      // A path whose receiver is back keeps its standby route until that receiver serves (see `ready`).
      for (const [key, route] of this.standby) {
        if (this.owners.has(key)) continue;
        route.remove();
        this.standby.delete(key);
      }
      for (const key of this.held.keys()) if (!this.owners.has(key)) this.held.refuseAll(key);
    });
  }
}
