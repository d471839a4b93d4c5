/**
 * detection-in's side of "nothing lost": the tracker of its events in flight
 * (lib/delivery), kept across deploys in the process-wide registry, the
 * journal under the user directory, and redelivery after a restart, after a
 * deploy that stopped part of its flow, and after the time limit; and whether
 * it waits for a detection-done node (lib/delivery/downstream.ts), decided
 * again from the deployed flows each time they start.
 */
import type { NodeAPI } from 'node-red';
import {
  dropTracker,
  keepTracker,
  trackerOf,
  completionPlan,
  doneDownstream,
  type CompletionPlan,
  type FinishedWhen,
  type FlowNodeConfig,
  DeliveryTracker,
  type AckMode,
  type DeliveryId,
  type DeliveryRecord,
  type EventDelivery,
  type FailureNotice,
  type RetryPolicy,
  RedisStreamDelivery,
} from '../../lib/delivery';
import type { RedisConnection } from '../../lib/redis';
import type { EventKind, SchemaError } from '../../lib/events';
import { type DeliveryMeta, validateEvent } from '../../lib/receiver';
import { parseJsonBody } from '../../lib/http';
import { nodeFile } from '../shared/user-dir';

/** What a message is rebuilt from besides the event. The journal holds only the
 *  request's part (written before the body is checked); kind and warnings are
 *  worked out again from the body when it is replayed after a restart. */
export interface StoredMeta extends DeliveryMeta {
  kind?: EventKind;
  warnings?: SchemaError[];
  /** The event's payload.messageId: a resend of an event held unfinished is absorbed (lib/delivery/resend.ts). */
  messageId?: string;
}

/** What a message is built from: the stored meta with kind and warnings worked out. */
export type EmitMeta = StoredMeta & { kind: EventKind; warnings: SchemaError[] };

export interface DeliverySettings {
  mode: AckMode;
  maxEvents: number;
  maxBytes: number;
  journalMaxBytes: number;
  redeliverAfterMs: number;
  /** "Finished when": from what is wired downstream (auto), once emitted, or when a detection-done marks it. */
  finishedWhen: FinishedWhen;
  /** Attempts at most, the pauses between them, dead letters kept. */
  retry: RetryPolicy;
  /** redis mode: the shared connection, the stream's name and caps, and when to claim. */
  redis?: {
    connection: RedisConnection;
    name: string;
    streamMaxEvents: number;
    streamMaxBytes: number;
    claimAfterMs: number;
  };
}

/** Sends an event on output 1: `attempt` is its emission's number (1: the first). */
type Emit = (event: unknown, meta: EmitMeta, id: DeliveryId, redelivered: boolean, attempt: number) => void;
/** Sends an event's first failure, or its dead-lettering, on output 3. */
type EmitFailure = (notice: FailureNotice<StoredMeta>, event: unknown, meta: EmitMeta) => void;

interface FlowsEvent {
  type?: string;
  config?: { flows?: Array<{ id: string; z?: string }> };
  diff?: { changed?: string[]; removed?: string[]; rewired?: string[]; linked?: string[] };
}

export function journalPath(RED: NodeAPI, nodeId: string): string {
  return nodeFile(RED, 'journal', nodeId, '.log');
}

/** Event and message metadata of a stored record: by reference in memory mode,
 *  parsed (and checked again for kind and warnings) from the journal's bytes on disk. */
function restore(record: DeliveryRecord<StoredMeta>): { event: unknown; meta: EmitMeta } | undefined {
  let event = record.event;
  if (event === undefined) {
    const parsed = parseJsonBody(record.body ?? Buffer.alloc(0));
    if (!parsed.ok) return undefined;
    event = parsed.value;
  }
  const { kind, warnings } = record.meta;
  if (kind !== undefined && warnings !== undefined) return { event, meta: { ...record.meta, kind, warnings } };
  const checked = validateEvent(event, 'lenient');
  if (!checked.ok) return undefined;
  return { event, meta: { ...record.meta, kind: checked.kind, warnings: checked.warnings } };
}

/** The deployed flows, as Node-RED stores them (the runtime's active configuration). */
function deployedFlows(RED: NodeAPI): FlowNodeConfig[] {
  const flows: FlowNodeConfig[] = [];
  RED.nodes.eachNode((n) => {
    flows.push(n as unknown as FlowNodeConfig);
  });
  return flows;
}

export interface ReceiverDelivery {
  tracker: EventDelivery<StoredMeta>;
  /** How this receiver finishes its events, as decided when the flows last started. */
  readonly completion: CompletionPlan;
  /** Stops: the tracker is kept for the next instance unless the node was removed. */
  close(removed: boolean): Promise<void>;
}

/**
 * Opens (or takes over) the tracker of receiver `nodeId` and schedules the
 * redelivery of what is unfinished once the flows have started.
 */
export async function openDelivery(
  RED: NodeAPI,
  node: { id: string; z?: string; _alias?: string; warn(text: string): void; log(text: string): void },
  settings: DeliverySettings,
  emit: Emit,
  t: (key: string, params?: Record<string, string | number>) => string,
  /** Called when the completion plan may have changed (a status to redraw). */
  replanned?: () => void,
  emitFailure?: EmitFailure,
): Promise<ReceiverDelivery> {
  // Whether to wait for a detection-done: from this receiver's own downstream only
  // (inside a subflow instance Node-RED gives it a new id and keeps its own as _alias).
  const plan = (): CompletionPlan =>
    completionPlan(settings.finishedWhen, doneDownstream(deployedFlows(RED), { id: node.id, z: node.z, alias: node._alias }));
  // The flows being built now are the active configuration already.
  let completion = plan();
  // Redelivery waits until every flow has started (so detection-done is listening);
  // a later deploy that stops any node of this receiver's tab makes it due again.
  // Listening starts now: at Node-RED's start the flows are up before the journal is open.
  // Everything emitted before the flows are up again may have gone into a node being
  // stopped: all of it is due (repeats of what got through anyway are flagged).
  let due = true;
  let flowsStarted = false;
  let tracker: EventDelivery<StoredMeta> | undefined;
  const redeliverDue = (): void => {
    if (!flowsStarted || !due || !tracker) return;
    due = false;
    // A store that fails to read back (Redis gone, say) must not take Node-RED down.
    redeliver(tracker, Date.now()).catch((err: Error) => node.warn(t('errors.delivery', { message: err.message })));
  };
  const onStopping = (event: FlowsEvent): void => {
    flowsStarted = false;
    if (event.type === 'full' || touchesTab(event, node.z)) due = true;
  };
  const onStarted = (): void => {
    flowsStarted = true;
    // Until now the plan of the flows before this deploy held: a done node being
    // stopped still counted, so nothing emitted meanwhile was taken as finished.
    completion = plan();
    if (completion.noDoneWired) node.warn(t('warnings.no-done'));
    if (tracker) {
      const waited = tracker.awaitCompletion;
      tracker.awaitCompletion = completion.awaitCompletion;
      // No longer waiting: what this flow was handed is finished; what is due goes out again below, finished as it goes.
      if (waited && !completion.awaitCompletion && !due) tracker.finishEmitted();
    }
    replanned?.();
    redeliverDue();
  };
  const events = RED.events as unknown as {
    on(name: string, fn: (e: FlowsEvent) => void): void;
    removeListener(name: string, fn: (e: FlowsEvent) => void): void;
  };
  events.on('flows:stopping', onStopping);
  events.on('flows:started', onStarted);
  // Every deploy, and Node-RED's start, ends in flows:started after the nodes are built.

  /** Emits stored events again; one that cannot be read back any more is finished, not retried for ever. */
  const emitAgain = (from: EventDelivery<StoredMeta>, records: DeliveryRecord<StoredMeta>[]): void => {
    for (const record of records) {
      const restored = restore(record);
      if (restored) emit(restored.event, restored.meta, record.id, true, record.attempt ?? 2);
      else from.complete(record.id);
    }
  };
  const redeliver = async (from: EventDelivery<StoredMeta>, emittedBefore: number): Promise<void> =>
    emitAgain(from, await from.unfinished(emittedBefore));

  const previous = trackerOf(node.id) as EventDelivery<StoredMeta> | undefined;
  if (previous && previous.mode === settings.mode && settings.mode === 'memory') {
    tracker = previous;
  } else if (settings.mode === 'redis') {
    if (!settings.redis) throw new Error('redis mode needs a Redis configuration');
    // What this instance left pending (by its name) is read back from the stream;
    // events held by a memory or disk tracker before are added to it.
    const handOver = previous && previous.mode !== 'redis' ? await previous.unfinished() : [];
    if (previous) await previous.close();
    const fresh = await RedisStreamDelivery.open<StoredMeta>(
      {
        connection: settings.redis.connection,
        name: settings.redis.name,
        maxEvents: settings.maxEvents,
        maxBytes: settings.maxBytes,
        streamMaxEvents: settings.redis.streamMaxEvents,
        streamMaxBytes: settings.redis.streamMaxBytes,
        claimAfterMs: settings.redis.claimAfterMs,
        retry: settings.retry,
      },
      previous instanceof RedisStreamDelivery ? (previous as RedisStreamDelivery<StoredMeta>) : undefined,
    );
    tracker = fresh.delivery;
    if (fresh.recovered.length > 0) node.log(t('delivery.recovered', { count: fresh.recovered.length }));
    // Read back later (Redis was out of reach at the start): emitted once the flows are up. Only
    // those: what this instance emitted itself meanwhile went into running flows.
    const recoveredFrom = fresh.delivery;
    recoveredFrom.onRecovered = (records) => {
      if (flowsStarted) emitAgain(recoveredFrom, records);
      else {
        due = true;
        redeliverDue();
      }
    };
    await fresh.delivery.adopt(handOver);
  } else {
    // A disk journal is replayed by the new tracker itself; memory events are handed over.
    const handOver = previous && !(previous.mode === 'disk' && settings.mode === 'disk') ? await previous.unfinished() : [];
    if (previous) await previous.close();
    const fresh = await DeliveryTracker.open<StoredMeta>({
      mode: settings.mode,
      journalPath: journalPath(RED, node.id),
      journalMaxBytes: settings.journalMaxBytes,
      maxEvents: settings.maxEvents,
      maxBytes: settings.maxBytes,
      redeliverAfterMs: settings.redeliverAfterMs,
      retry: settings.retry,
    });
    tracker = fresh.tracker;
    if (settings.mode === 'disk') node.log(t('delivery.replayed', { count: fresh.recovered.length }));
    const torn = fresh.problems.filter((p) => p.kind === 'torn');
    if (torn.length > 0) node.warn(t('delivery.torn', { offset: torn[0].offset }));
    for (const p of fresh.problems.filter((p) => p.kind !== 'torn')) node.warn(t('delivery.corrupt', { offset: p.offset }));
    await fresh.tracker.adopt(handOver);
  }
  const opened: EventDelivery<StoredMeta> = tracker;
  opened.awaitCompletion = completion.awaitCompletion;
  keepTracker(node.id, opened as EventDelivery<unknown>);

  opened.onOverdue = () => {
    opened
      .overdue()
      .then((records) => emitAgain(opened, records))
      .catch((err: Error) => node.warn(t('errors.delivery', { message: err.message })));
  };

  opened.onFailure = (notice) => {
    const restored = restore(notice.record);
    if (restored) emitFailure?.(notice, restored.event, restored.meta);
  };

  redeliverDue();

  return {
    tracker: opened,
    get completion() {
      return completion;
    },
    async close(removed) {
      events.removeListener('flows:stopping', onStopping);
      events.removeListener('flows:started', onStarted);
      opened.onOverdue = undefined;
      opened.onComplete = undefined;
      opened.onRecovered = undefined;
      opened.onFailure = undefined;
      // A Redis stream's entries stay in Redis: the next instance reads them back.
      if (removed || opened.mode === 'redis') {
        if (removed) dropTracker(node.id);
        await opened.close();
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
