/**
 * A receiver's store session: the one doorway between the receiving door
 * (lib/receiver, which calls it through its ReceiverStore port) and the store
 * of its events in flight, whatever the mode. It admits, stages and commits
 * events, builds and sends their messages (output 1: events, 2: invalid ones,
 * 3: failures), finishes or redelivers them, hands them over across a deploy
 * (store-open.ts), and hears of deploys itself (DeployWatch: one listener for
 * every receiver). The node adapter passes a few callbacks and reads `status`.
 */
import { systemClock, type Clock } from '../core/clock';
import { eventMessage, invalidEventMessage } from '../events';
import { receipt, restore, storedMeta, type EmitMeta, type StoredMeta } from './session-records';
import type { Problem } from '../http';
import type { RedisConnection } from '../redis';
import type { AcceptedDelivery, DeliveryMeta, InvalidDelivery, ReceiverHooks, ReceiverStore, StagedEnqueue } from '../receiver';
import { createWarningGate } from '../receiver';
import { completionPlan, doneDownstream, type CompletionPlan, type FlowNodeConfig } from './downstream';
import { dropTracker, keepTracker, trackerOf } from './registry';
import { keepsJournal, openStore, ownsItsEntries, redisConnectionOf, type SessionOptions, type StorePlace } from './store-open';
import type { DeliveryId, DeliveryRecord, DeliveryStats, EventDelivery, FailureNotice } from './types';
import type { DeployWatch, FlowsEvent } from './deploy-watch';
import { findStrandedJournals, handOver, holdsAnything, journalDir, strand, strandedOf, strandedOn, streamKeyOf, unstrand } from './stranded';
import { rm } from 'node:fs/promises';

export type { SessionOptions } from './store-open';
export type { StoredMeta } from './session-records';

/** What the node adapter passes: where its messages go, its log, a redraw of its status. */
export interface SessionHooks {
  /** Sends `msg` on output `output` (0: events, 1: invalid events, 2: failures). */
  send(output: 0 | 1 | 2, msg: object): void;
  /** Where to say things: Node-RED's node itself (its log, warn, error and debug). */
  log: { log(text: string): void; warn(text: string): void; error(text: string): void; debug(text: string): void };
  /** Where to say what a removed node leaves behind: the runtime's log (the editor's debug sidebar cannot place a removed node's message). */
  runtimeLog?: { warn(text: string): void };
  /** Something shown under the node changed: its counts, or (`plan`) the plan, which shows counts only once there are some. */
  changed(what: 'counts' | 'plan'): void;
  /** detection-in's catalogue (keys under `detection-in.`). */
  t(key: string, params?: Record<string, string | number>): string;
}

/** The receiver node a session belongs to: its id, its tab, its id in its subflow's definition. */
export interface SessionNode {
  id: string;
  z?: string;
  alias?: string;
  /** Its route key (its path, on its listener): a removed receiver's events go to the next one on it. */
  key?: string;
}

/** Everything shown of a receiver's store, in one object (status, metrics, health). */
export interface SessionStatus {
  counts: { received: number; warned: number; rejected: number; invalid: number };
  /** Why no store could be opened (its journal, say); undefined: fine. */
  failed: string | undefined;
  /** The store, once open. */
  open: boolean;
  /** Events held until finished, when the store holds them (waits for done, or keeps a journal). */
  pending: number | undefined;
  /** Size of the journal file in bytes, when the store keeps one. */
  journalBytes: number | undefined;
  deadLetters: number;
  /** The journal's disk is full: every event is refused until room is freed. */
  outOfSpace: boolean;
  /** Waiting for a detection-done that none downstream will ever send. */
  noDoneWired: boolean;
}

/** A full disk is said at most this often (a disk another program keeps full refuses again after each freed event). */
const DISK_FULL_WARN_MS = 60_000;
/** How long a closing session waits for requests under way. */
const CLOSE_WAIT_MS = 10_000;
const ZERO: DeliveryStats = { redelivered: 0, failed: 0, deadLettered: 0, deadLettersDropped: 0, deadLetters: 0, oldestUnfinishedAt: undefined };

/** Why a session cannot open at all (redis mode without a Redis): a status key and an error key of detection-in's catalogue. */
export function sessionProblem(options: SessionOptions, place: StorePlace): { status: string; error: string } | undefined {
  if (options.ackMode === 'redis' && !redisConnectionOf(options, place)) return { status: 'status.no-redis', error: 'errors.redis-missing' };
  return undefined;
}

/** Open sessions by receiver id: a stranded store is handed to one on an operator's word. */
const sessions = new Map<string, StoreSession>();

export function sessionOf(receiver: string): StoreSession | undefined {
  return sessions.get(receiver);
}

export class StoreSession implements ReceiverStore {
  private readonly shown: SessionStatus;
  /** redis mode: the shared connection (its state is shown, its first connect awaited). */
  readonly redis: RedisConnection | undefined;
  /** Resolves once the store is open (undefined: it could not be). */
  readonly ready: Promise<EventDelivery<StoredMeta> | undefined>;
  /** The receiver's callbacks for lib/receiver: emit, invalid, rejected, and this session as its store. */
  readonly receiverHooks: ReceiverHooks;
  private store: EventDelivery<StoredMeta> | undefined;
  private plan: CompletionPlan;
  private due = true;
  private flowsStarted = false;
  private closing = false;
  private closed = false;
  private active = 0;
  private diskFullAt = -Infinity;
  private diskFullSaid = false;
  private readonly gate = createWarningGate();
  private readonly clock: Clock;
  private readonly place: StorePlace;
  /** The stats the previous instance's store (kept as it is) had counted: already in the totals. */
  private readonly before: { store: EventDelivery<unknown> | undefined; stats: DeliveryStats };

  constructor(
    private readonly node: SessionNode,
    private readonly options: SessionOptions,
    place: StorePlace,
    private readonly hooks: SessionHooks,
    private readonly watch: DeployWatch,
  ) {
    this.clock = place.clock ?? systemClock;
    this.redis = redisConnectionOf(options, place);
    // Its own store, kept from its previous instance (stranded if it was deleted and is back now).
    unstrand(node.id, place.journalPath);
    const previous = trackerOf(node.id) as EventDelivery<StoredMeta> | undefined;
    this.before = { store: previous as EventDelivery<unknown> | undefined, stats: { ...(previous?.stats ?? ZERO) } };
    // The flows being built now are the active configuration already.
    this.plan = this.planFor(watch.deployed());
    this.shown = {
      counts: { received: 0, warned: 0, rejected: 0, invalid: 0 },
      failed: undefined,
      open: false,
      pending: undefined,
      journalBytes: undefined,
      deadLetters: 0,
      outOfSpace: false,
      noDoneWired: false,
    };
    this.receiverHooks = {
      store: this,
      emit: (accepted) =>
        this.emit(accepted.event, { ...accepted.meta, kind: accepted.kind, warnings: accepted.warnings }, accepted.deliveryId, false, 1),
      onInvalid: (d) => this.invalid(d),
      onRejected: (answer) => this.rejected(answer),
    };
    watch.add(this);
    sessions.set(node.id, this);
    this.place = place;
    this.ready = this.open(place, previous);
  }

  private planFor(flows: FlowNodeConfig[]): CompletionPlan {
    // From this receiver's own downstream only (inside a subflow instance its id is new, its own kept as alias).
    return completionPlan(this.options.finishedWhen, doneDownstream(flows, this.node));
  }

  private async open(place: StorePlace, previous: EventDelivery<StoredMeta> | undefined): Promise<EventDelivery<StoredMeta> | undefined> {
    const { t } = this.hooks;
    try {
      const opened = await openStore<StoredMeta>(this.options, place, previous);
      for (const note of opened.notes) this.hooks.log[note.level](t(note.key, note.params));
      const store = opened.store;
      store.awaitCompletion = this.plan.awaitCompletion;
      keepTracker(this.node.id, store as EventDelivery<unknown>);
      // Read back later (Redis was out of reach at the start): emitted once the flows are up.
      store.onRecovered = (records) => {
        if (this.flowsStarted) this.emitAgain(store, records);
        else {
          this.due = true;
          this.redeliverDue();
        }
      };
      store.onOverdue = () => {
        store
          .overdue()
          .then((records) => this.emitAgain(store, records))
          .catch((err: Error) => this.hooks.log.warn(t('errors.delivery', { message: err.message })));
      };
      store.onFailure = (notice) => this.failure(notice);
      store.onComplete = () => this.changed();
      store.onOutOfSpace = (full) => this.outOfSpace(full, place.journalPath);
      // What receivers removed from this path left (a copy on another tab, a flow imported with new ids), before
      // this process too (a stranded journal): due with the rest.
      const known = new Set(this.watch.deployed().map((n) => n.id));
      const openJournal = (file: string) =>
        openStore<unknown>({ ...this.options, ackMode: 'disk' }, { ...this.place, journalPath: file }, undefined).then((o) => o.store);
      await findStrandedJournals(journalDir(place.journalPath), known, openJournal);
      for (const left of this.node.key === undefined ? [] : strandedOn(this.node.key, this.node.id)) {
        const handed = await handOver(left, store as EventDelivery<unknown>);
        this.hooks.log.log(t('delivery.handed-over', { events: handed.events, dead: handed.deadLetters, receiver: left.receiver }));
      }
      this.store = store;
      this.shown.open = true;
      this.changed('plan');
      this.redeliverDue();
      return store;
    } catch (err) {
      // Closed meanwhile: the next instance opens its own store and says what it finds.
      if (this.closing) return undefined;
      // No store (an I/O error opening the journal, say): red with the reason; every request answered 503.
      this.shown.failed = (err as Error).message;
      this.changed();
      this.hooks.log.error(t('errors.delivery', { message: (err as Error).message }));
      return undefined;
    }
  }

  /** A deploy is stopping flows: what this receiver emitted may have gone into a node being stopped. */
  flowsStopping(event: FlowsEvent, touchesTab: (event: FlowsEvent, z: string | undefined) => boolean): void {
    this.flowsStarted = false;
    if (event.type === 'full' || touchesTab(event, this.node.z)) this.due = true;
  }

  /** Every flow has started (so detection-done listens): the plan is made again, what is due goes out. */
  flowsStartedWith(flows: FlowNodeConfig[]): void {
    this.flowsStarted = true;
    this.plan = this.planFor(flows);
    if (this.plan.noDoneWired) this.hooks.log.warn(this.hooks.t('warnings.no-done'));
    const store = this.store;
    if (store) {
      const waited = store.awaitCompletion;
      store.awaitCompletion = this.plan.awaitCompletion;
      // No longer waiting: what this flow was handed is finished; what is due goes out below, finished as it goes.
      if (waited && !this.plan.awaitCompletion && !this.due) store.finishEmitted();
    }
    this.changed('plan');
    this.redeliverDue();
  }

  private redeliverDue(): void {
    const store = this.store;
    if (!this.flowsStarted || !this.due || !store) return;
    this.due = false;
    // A store that fails to read back (Redis gone, say) must not take Node-RED down.
    store
      .unfinished(this.clock.now())
      .then((records) => this.emitAgain(store, records))
      .catch((err: Error) => this.hooks.log.warn(this.hooks.t('errors.delivery', { message: err.message })));
  }

  /** Emits stored events again; one that cannot be read back any more is finished, not retried for ever. */
  private emitAgain(from: EventDelivery<StoredMeta>, records: DeliveryRecord<StoredMeta>[]): void {
    for (const record of records) {
      const restored = restore(record);
      if (restored) this.emit(restored.event, restored.meta, record.id, true, record.attempt ?? 2);
      else from.complete(record.id);
    }
  }

  // The store port of lib/receiver (ReceiverStore).

  admit(declaredBytes: number | undefined): void {
    this.store?.checkRoom(declaredBytes);
  }

  stage(body: Buffer, meta: DeliveryMeta): StagedEnqueue | undefined {
    const store = this.store;
    // Not open yet (Node-RED starting): enqueue waits for it instead.
    if (!store) return undefined;
    // A request under way when a deploy began is still taken; what it emits meanwhile is parked.
    if (this.closed) throw new Error(this.hooks.t('errors.not-ready'));
    const staged = store.stage(meta, body);
    return {
      async commit(accepted) {
        accepted.deliveryId = await staged.commit(storedMeta(accepted), accepted.event);
        // A resend of an event held unfinished: answered 200, not emitted (the held copy is).
        accepted.absorbed = staged.absorbed === true;
      },
      abandon: staged.abandon,
    };
  }

  async enqueue(accepted: AcceptedDelivery): Promise<void> {
    const { t } = this.hooks;
    const store = this.store ?? (await this.ready);
    if (!store && this.shown.failed !== undefined) throw new Error(t('errors.delivery', { message: this.shown.failed }));
    if (!store || this.closed) throw new Error(t('errors.not-ready'));
    const stored = storedMeta(accepted);
    const staged = store.stage(stored, accepted.body);
    accepted.deliveryId = await staged.commit(stored, accepted.event);
    accepted.absorbed = staged.absorbed === true;
  }

  /** Sends an event on output 1 (again, when `redelivered`; `attempt`: which emission), tracked until finished. */
  private emit(event: unknown, stored: EmitMeta, id: DeliveryId | undefined, redelivered: boolean, attempt: number): void {
    const store = this.store;
    if (this.closing) {
      // The flow is being stopped: the next instance emits it.
      if (id !== undefined) store?.park(id);
      return;
    }
    const { kind, warnings, ...meta } = stored;
    if (!redelivered) {
      this.shown.counts.received++;
      if (warnings.length > 0) this.shown.counts.warned++;
    }
    this.changed();
    const msg: Record<string, unknown> = eventMessage(event, kind, receipt(meta));
    msg.attempt = attempt;
    if (redelivered) msg.redelivered = true;
    if (id !== undefined) msg._delivery = { receiver: this.node.id, id };
    if (warnings.length > 0) {
      msg.warnings = warnings;
      // Once per place per minute in the debug sidebar, not once per event.
      for (const warning of this.gate.pass(warnings)) {
        this.hooks.log.warn(
          this.hooks.t('warnings.deviation', { path: warning.path, message: warning.message, messageId: String(msg.messageId ?? '-') }),
        );
      }
    }
    this.hooks.send(0, msg);
    if (id !== undefined) store?.emitted(id);
  }

  /** Output 3: an event's first failure ('failed'), and its dead-lettering ('dead-letter'). */
  private failure(notice: FailureNotice<StoredMeta>): void {
    this.changed();
    const restored = restore(notice.record);
    if (this.closing || !restored) return;
    const { kind, ...meta } = restored.meta;
    this.hooks.send(2, { ...eventMessage(restored.event, kind, receipt(meta)), topic: notice.stage, attempt: notice.attempts, error: notice.error });
  }

  private invalid({ value, errors, meta }: InvalidDelivery): void {
    this.shown.counts.invalid++;
    this.changed();
    this.hooks.send(1, invalidEventMessage(value, errors, receipt(meta)));
  }

  private rejected(answer: Problem): void {
    if (answer.status !== 422) this.shown.counts.rejected++;
    this.changed();
    this.hooks.log.debug(`${answer.status} ${answer.title}: ${answer.detail}`);
  }

  /** The journal's disk is full (said when it starts refusing and when it has room again, at most once a minute). */
  private outOfSpace(full: boolean, file: string): void {
    const now = this.clock.now();
    if (full && now - this.diskFullAt > DISK_FULL_WARN_MS) {
      this.diskFullAt = now;
      this.diskFullSaid = true;
      this.hooks.log.warn(this.hooks.t('warnings.disk-full', { path: file }));
    } else if (!full && this.diskFullSaid) {
      this.diskFullSaid = false;
      this.hooks.log.log(this.hooks.t('delivery.disk-room'));
    }
    this.changed();
  }

  /** Tells the node something shown changed. */
  private changed(what: 'counts' | 'plan' = 'counts'): void {
    this.hooks.changed(what);
  }

  /** Everything shown of this receiver's store, read now. */
  get status(): SessionStatus {
    const store = this.store;
    const s = this.shown;
    s.noDoneWired = this.plan.noDoneWired === true;
    if (store) {
      const journal = keepsJournal(store as EventDelivery<unknown>);
      s.pending = store.awaitCompletion || journal ? store.pending.events : undefined;
      s.journalBytes = journal ? store.journalBytes : undefined;
      s.outOfSpace = store.outOfSpace === true;
      s.deadLetters = store.stats.deadLetters;
    }
    return s;
  }

  /** The store as it is now, for an operator's view (metrics, readiness); undefined until open. */
  get opened(): EventDelivery<unknown> | undefined {
    return this.store as EventDelivery<unknown> | undefined;
  }

  /** A counter of the store's stats since this instance began (a store kept from the previous one counted before). */
  since(name: 'redelivered' | 'failed' | 'deadLettered' | 'deadLettersDropped'): number {
    const store = this.store as EventDelivery<unknown> | undefined;
    const value = (store?.stats ?? ZERO)[name];
    return store !== undefined && store === this.before.store ? Math.max(0, value - this.before.stats[name]) : value;
  }

  /** Takes over what removed receiver `receiver` left (an operator's word): emitted here at once. How much. */
  async takeStranded(receiver: string): Promise<{ events: number; deadLetters: number } | undefined> {
    const left = strandedOf(receiver);
    const store = this.store ?? (await this.ready);
    if (!left || !store) return undefined;
    const handed = await handOver(left, store as EventDelivery<unknown>, true);
    this.due = true;
    this.redeliverDue();
    return handed;
  }

  /** Wraps a request handler: requests under way are counted, so a closing session waits for them. */
  track<A extends unknown[]>(handle: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
    return async (...args) => {
      this.active++;
      try {
        await handle(...args);
      } finally {
        this.active--;
      }
    };
  }

  /**
   * Stops: no new requests; those under way finish (bounded), their events kept for the next
   * instance. The store stays open for it unless the node was removed (or its entries live on by themselves).
   */
  async close(removed: boolean): Promise<void> {
    this.closing = true;
    this.watch.remove(this);
    const started = Date.now();
    while (this.active > 0 && Date.now() - started < CLOSE_WAIT_MS) await new Promise((resolve) => setTimeout(resolve, 20));
    const store = this.store ?? (await this.ready);
    this.closed = true;
    if (!store) return;
    store.onOverdue = undefined;
    store.onComplete = undefined;
    store.onRecovered = undefined;
    store.onFailure = undefined;
    store.onOutOfSpace = undefined;
    if (sessions.get(this.node.id) === this) sessions.delete(this.node.id);
    const held = store as EventDelivery<unknown>;
    const journal = keepsJournal(held) ? this.place.journalPath : undefined;
    if (removed && holdsAnything(held) && this.node.key !== undefined) {
      // Removed with answered events in it: kept for the next receiver on its path, and said where.
      const stream = streamKeyOf(held);
      const reopen = ownsItsEntries(held) ? async () => (await openStore<unknown>(this.options, this.place, undefined)).store : undefined;
      if (reopen) await store.close();
      strand({ receiver: this.node.id, key: this.node.key, path: this.place.streamName, store: held, file: journal, stream, reopen });
      const where = journal ?? stream ?? this.hooks.t('delivery.in-memory');
      const params = { events: held.pending.events, dead: held.stats.deadLetters, where, path: this.place.streamName };
      (this.hooks.runtimeLog ?? this.hooks.log).warn(this.hooks.t('delivery.stranded', params));
    } else if (removed || ownsItsEntries(held)) {
      if (removed) dropTracker(this.node.id);
      await store.close();
      // An empty journal of a removed receiver is of no use to anyone.
      if (removed && journal) await rm(journal, { force: true });
    }
  }
}
