/**
 * detection-in's side of "nothing lost": the tracker of its events in flight
 * (lib/delivery), kept across deploys in the process-wide registry, the
 * journal under the user directory, and redelivery after a restart, after a
 * deploy that stopped part of its flow, and after the time limit.
 */
import { join } from 'node:path';
import type { NodeAPI } from 'node-red';
import { completionAwaited, dropTracker, keepTracker, trackerOf } from '../../lib/delivery/registry';
import { DeliveryTracker, type AckMode, type DeliveryRecord } from '../../lib/delivery/tracker';
import type { EventKind, SchemaError } from '../../lib/events/schemas';
import type { DeliveryMeta } from '../../lib/events/receiver';
import { parseJsonBody } from '../../lib/http/json';

/** What the journal keeps beside the body, to rebuild the message. */
export interface StoredMeta extends DeliveryMeta {
  kind: EventKind;
  warnings: SchemaError[];
}

export interface DeliverySettings {
  mode: AckMode;
  maxEvents: number;
  maxBytes: number;
  journalMaxBytes: number;
  redeliverAfterMs: number;
}

type Emit = (event: unknown, meta: StoredMeta, id: number, redelivered: boolean) => void;

interface FlowsEvent {
  type?: string;
  config?: { flows?: Array<{ id: string; z?: string }> };
  diff?: { changed?: string[]; removed?: string[]; rewired?: string[]; linked?: string[] };
}

export function journalPath(RED: NodeAPI, nodeId: string): string {
  const userDir = (RED.settings as unknown as { userDir?: string }).userDir ?? process.cwd();
  return join(userDir, 'detection-bridge', `journal-${nodeId.replace(/[^\w.-]/g, '_')}.log`);
}

/** The event of a stored record: by reference in memory mode, parsed from the journal's bytes on disk. */
function eventOf(record: DeliveryRecord<StoredMeta>): unknown {
  if (record.event !== undefined) return record.event;
  const parsed = parseJsonBody(record.body ?? Buffer.alloc(0));
  return parsed.ok ? parsed.value : undefined;
}

export interface ReceiverDelivery {
  tracker: DeliveryTracker<StoredMeta>;
  /** Stops: the tracker is kept for the next instance unless the node was removed. */
  close(removed: boolean): Promise<void>;
}

/**
 * Opens (or takes over) the tracker of receiver `nodeId` and schedules the
 * redelivery of what is unfinished once the flows have started.
 */
export async function openDelivery(
  RED: NodeAPI,
  node: { id: string; z?: string; warn(text: string): void },
  settings: DeliverySettings,
  emit: Emit,
  t: (key: string, params?: Record<string, string | number>) => string,
): Promise<ReceiverDelivery> {
  const previous = trackerOf(node.id) as DeliveryTracker<StoredMeta> | undefined;
  let tracker: DeliveryTracker<StoredMeta>;
  if (previous && previous.mode === settings.mode && settings.mode === 'memory') {
    tracker = previous;
  } else {
    // A disk journal is replayed by the new tracker itself; memory events are handed over.
    const handOver = previous && !(previous.mode === 'disk' && settings.mode === 'disk') ? await previous.unfinished() : [];
    if (previous) await previous.close();
    const opened = await DeliveryTracker.open<StoredMeta>({
      mode: settings.mode,
      journalPath: journalPath(RED, node.id),
      journalMaxBytes: settings.journalMaxBytes,
      maxEvents: settings.maxEvents,
      maxBytes: settings.maxBytes,
      redeliverAfterMs: settings.redeliverAfterMs,
    });
    tracker = opened.tracker;
    const torn = opened.problems.filter((p) => p.kind === 'torn');
    if (torn.length > 0) node.warn(t('delivery.torn', { offset: torn[0].offset }));
    for (const p of opened.problems.filter((p) => p.kind !== 'torn')) node.warn(t('delivery.corrupt', { offset: p.offset }));
    await tracker.adopt(handOver);
  }
  keepTracker(node.id, tracker as DeliveryTracker<unknown>);

  const redeliver = async (emittedBefore: number): Promise<void> => {
    for (const record of await tracker.unfinished(emittedBefore)) {
      const event = eventOf(record);
      if (event === undefined) continue;
      emit(event, record.meta, record.id, true);
    }
  };
  tracker.onOverdue = () => {
    void tracker.overdue().then(async (records) => {
      for (const record of records) {
        const event = eventOf(record);
        if (event !== undefined) emit(event, record.meta, record.id, true);
      }
    });
  };

  // Redelivery waits until every flow has started (so detection-done is listening);
  // a later deploy that stops any node of this receiver's tab makes it due again.
  let dueBefore: number | undefined = Date.now();
  const onStopping = (event: FlowsEvent): void => {
    if (event.type === 'full' || touchesTab(event, node.z)) dueBefore = Date.now();
  };
  const onStarted = (): void => {
    if (dueBefore === undefined) return;
    const before = dueBefore;
    dueBefore = undefined;
    tracker.awaitCompletion = completionAwaited();
    void redeliver(before);
  };
  const events = RED.events as unknown as {
    on(name: string, fn: (e: FlowsEvent) => void): void;
    off?(name: string, fn: (e: FlowsEvent) => void): void;
    removeListener(name: string, fn: (e: FlowsEvent) => void): void;
  };
  events.on('flows:stopping', onStopping);
  events.on('flows:started', onStarted);

  return {
    tracker,
    async close(removed) {
      events.removeListener('flows:stopping', onStopping);
      events.removeListener('flows:started', onStarted);
      tracker.onOverdue = undefined;
      if (removed) {
        dropTracker(node.id);
        await tracker.close();
      }
    },
  };
}

/** Whether a deploy stops a node on tab `z` (by the configuration before it). */
function touchesTab(event: FlowsEvent, z: string | undefined): boolean {
  const diff = event.diff;
  if (!diff || !z) return true;
  const stopped = new Set([...(diff.changed ?? []), ...(diff.removed ?? []), ...(diff.rewired ?? []), ...(diff.linked ?? [])]);
  if (stopped.has(z)) return true;
  return (event.config?.flows ?? []).some((n) => n.z === z && stopped.has(n.id));
}
