/**
 * Deploys as the store sessions hear of them: one listener for every
 * receiver (not one each, which past ten receivers makes Node.js warn of a
 * leak), fanned out to the sessions open now. A deploy that stops a node of a
 * receiver's tab makes what it emitted due again; once every flow has
 * started, each session plans its completion from the deployed flows and
 * redelivers what is due. Node-RED's events are the node adapter's to wire:
 * it calls `stopping` and `started`.
 */
import type { FlowNodeConfig } from './downstream';

/** What Node-RED's flows:stopping says of a deploy. */
export interface FlowsEvent {
  type?: string;
  config?: { flows?: Array<{ id: string; z?: string }> };
  diff?: { changed?: string[]; removed?: string[]; rewired?: string[]; linked?: string[] };
}

/** A session as the watch sees it. */
export interface DeployListener {
  flowsStopping(event: FlowsEvent, touchesTab: (event: FlowsEvent, z: string | undefined) => boolean): void;
  flowsStartedWith(flows: FlowNodeConfig[]): void;
}

/** Whether a deploy stops a node on tab `z` (by the configuration before it). */
export function touchesTab(event: FlowsEvent, z: string | undefined): boolean {
  const diff = event.diff;
  if (!diff || !z) return true;
  const stopped = new Set([...(diff.changed ?? []), ...(diff.removed ?? []), ...(diff.rewired ?? []), ...(diff.linked ?? [])]);
  if (stopped.has(z)) return true;
  return (event.config?.flows ?? []).some((n) => n.z === z && stopped.has(n.id));
}

export class DeployWatch {
  private readonly listeners = new Set<DeployListener>();
  private waiting: Array<() => void> = [];

  /** `deployed` reads the deployed flows (the runtime's active configuration). */
  constructor(readonly deployed: () => FlowNodeConfig[]) {}

  add(listener: DeployListener): void {
    this.listeners.add(listener);
  }

  remove(listener: DeployListener): void {
    this.listeners.delete(listener);
  }

  /** How many sessions listen now. */
  get size(): number {
    return this.listeners.size;
  }

  /** Resolves at the next `started`: every deploy, and Node-RED's start, ends in one. */
  next(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  stopping(event: FlowsEvent): void {
    for (const listener of [...this.listeners]) listener.flowsStopping(event, touchesTab);
  }

  started(): void {
    const flows = this.deployed();
    for (const listener of [...this.listeners]) listener.flowsStartedWith(flows);
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/** What the watch listens on: a runtime's event bus, which says `flows:stopping` and `flows:started`. */
interface FlowEvents {
  on(name: string, fn: (event: FlowsEvent) => void): unknown;
}

const watches = new WeakMap<object, DeployWatch>();

/** The one watch of a runtime's event bus: made, and its two listeners added, on the first call only. */
export function watchDeploys(events: FlowEvents, deployed: () => FlowNodeConfig[]): DeployWatch {
  let watch = watches.get(events);
  if (!watch) {
    const created = new DeployWatch(deployed);
    events.on('flows:stopping', (event) => created.stopping(event));
    events.on('flows:started', () => created.started());
    watches.set(events, created);
    watch = created;
  }
  return watch;
}
