/**
 * A dedupe node's cap as it runs (lib/dedupe/cap.ts): kept in this process
 * and carried to the node's next instance at a deploy, or shared through
 * Redis. Once a period has held anything, a timer on the node's clock waits
 * for its end, claims its digest and hands it to `send`; after a deploy the
 * new instance claims once the flows have started (a digest whose period
 * ended meanwhile goes out then, to nodes that exist).
 *
 * A removed node, or one whose cap a deploy turned off, sends no digest: it
 * says in a warning how many messages its period had held back.
 */
import type { Node } from 'node-red';
import type { Clock } from '../../lib/core';
import { dropCap, keepCap, takeOverCap, type CapDecision, type Digest, type LocalCap, type MessageCap, RedisCap } from '../../lib/dedupe';
import type { RedisConnection } from '../../lib/redis';
import type { Vars } from '../shared/i18n';
import type { DedupeSettings } from './settings';

/** Longest wait a timer takes (setTimeout's limit); a longer period is waited for in steps. */
const MAX_DELAY_MS = 2 ** 31 - 1;
/** A digest Redis could not be asked for is asked for again after this long. */
const CLAIM_RETRY_MS = 5000;

export interface RunningCap {
  cap: MessageCap;
  /** A decision's period: its digest is claimed at its end once it has held anything; a digest the decision took is sent. */
  noted(decision: CapDecision): void;
  /** While a period that has held anything runs: how many, and when its digest is due. */
  pending(): { held: number; end: number } | undefined;
  close(removed: boolean): void;
}

export interface CapHooks {
  t: (key: string, vars?: Vars) => string;
  send(digest: Digest): void;
  /** What pending() says has changed (a status to redraw). */
  changed(): void;
  /** Resolves once the flows being deployed have started (their nodes exist to receive a digest). */
  flowsStarted(): Promise<void>;
}

/** The node's cap, or undefined when it has none (a period a previous instance left is then said in a warning). */
export function openCap(
  node: Node,
  settings: DedupeSettings,
  connection: RedisConnection | undefined,
  clock: Clock,
  hooks: CapHooks,
): RunningCap | undefined {
  const { t } = hooks;
  const held = (digest: Digest) => ({ held: digest.held, start: digest.start });
  if (!settings.cap) {
    const left = dropCap(node.id);
    if (left) node.warn(t('warn.cap-off', held(left)));
    return undefined;
  }
  let local: LocalCap | undefined;
  let cap: MessageCap;
  if (settings.shared && connection) {
    // Redis keeps a shared cap's period across deploys: nothing kept here.
    dropCap(node.id);
    cap = new RedisCap(connection, settings.shared.name, settings.cap);
  } else cap = local = takeOverCap(node.id, settings.cap);

  let timer: unknown;
  let timerAt = 0;
  let shown: { held: number; end: number } | undefined;
  let closed = false;
  let warnedClaim = false;

  const schedule = (at: number): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timerAt = at;
    timer = clock.setTimeout(fire, Math.min(MAX_DELAY_MS, Math.max(0, at - clock.now())));
  };
  const watch = (end: number, heldSoFar: number): void => {
    shown = heldSoFar > 0 ? { held: heldSoFar, end } : undefined;
    if (heldSoFar > 0 && (timer === undefined || timerAt !== end)) schedule(end);
    hooks.changed();
  };
  function fire(): void {
    timer = undefined;
    if (closed) return;
    cap.claim(clock.now()).then(
      (claimed) => {
        warnedClaim = false;
        if (claimed.digest) hooks.send(claimed.digest);
        if (closed) return;
        if (claimed.running) watch(claimed.running.end, claimed.running.held);
        else {
          shown = undefined;
          hooks.changed();
        }
      },
      (err: Error) => {
        if (closed) return;
        if (!warnedClaim) node.warn(t('warn.cap-claim', { message: err.message }));
        warnedClaim = true;
        schedule(clock.now() + CLAIM_RETRY_MS);
      },
    );
  }

  // A period carried over (or shared) may have ended meanwhile, or be running with messages held.
  void hooks.flowsStarted().then(() => {
    if (!closed && timer === undefined) fire();
  });

  return {
    cap,
    noted(decision) {
      if (decision.digest) hooks.send(decision.digest);
      if (!closed) watch(decision.end, decision.held);
    },
    pending: () => shown,
    close(removed) {
      closed = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      if (!local) return;
      if (!removed) keepCap(node.id, local);
      else {
        const left = local.pending();
        if (left) node.warn(t('warn.cap-removed', held(left)));
      }
    },
  };
}
