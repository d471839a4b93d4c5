/**
 * detection-dedupe: drops repeats of the same key inside a window.
 * Mode "id": the bridge's messageId (stable across retries). Mode "cooldown":
 * a key such as plate + detector, dropped for N seconds after it passed.
 * The window is lib's SeenKeys, kept here or shared through Redis
 * (window.ts); the settings are settings.ts. An optional cap (cap.ts) then
 * holds back what passes beyond N per period and sums it up in a digest on
 * the last output; urgent messages (msg.priority urgent or high) pass it
 * uncounted. With a key that folds look-alikes, a repeat read otherwise than
 * the plate that let its key through is counted apart and named in
 * msg.duplicateOf. Time is the node's clock (nodes/shared/clock.ts). A
 * configuration that cannot run answers every message with the error.
 */
import type { NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import { completion } from '../../lib/delivery';
import { dropCap, isUrgent, type CapDecision, type Digest, isLookalikeRead, dropWindow, passes, type Sighting } from '../../lib/dedupe';
import { eventHash } from '../../lib/events';
import { flowError, nodeText, statusText } from '../shared/i18n';
import { failConfig, throttledStatus } from '../shared/status';
import { registerNode } from '../shared/register';
import { registerCounts } from '../shared/metrics';
import { withRedisState } from '../shared/redis';
import { clockOf } from '../shared/clock';
import { openCap } from './cap';
import { dedupeSettings, type DedupeDef } from './settings';
import { openWindow } from './window';

type Send = (m: Array<NodeMessage | null>) => void;

export = function register(RED: NodeAPI): void {
  /** The next `flows:started` (every deploy, and Node-RED's start, ends in one): one listener for every node of the deploy. */
  let nextStart: Promise<void> | undefined;
  const flowsStarted = (): Promise<void> =>
    (nextStart ??= new Promise((resolve) =>
      (RED.events as unknown as { once(name: string, fn: () => void): void }).once('flows:started', () => {
        nextStart = undefined;
        resolve();
      }),
    ));

  registerNode<DedupeDef>(RED, 'detection-dedupe', (node, config) => {
    const t = nodeText(RED, 'detection-dedupe');
    // status texts: one without figures goes as its catalog key, for the editor to translate
    const s = statusText(RED, 'detection-dedupe');
    const clock = clockOf(RED);
    const counts = { passed: 0, dropped: 0 };
    /** Repeats (among the dropped) whose plate as read differed from the one that let their key through. */
    let lookalikes = 0;
    const parsed = dedupeSettings(RED, node, config, t, clock);
    const opened = parsed.ok ? openWindow(RED, node, parsed.settings, t, () => showStatus()) : parsed;
    if (!opened.ok) {
      // A configuration that cannot run: every message ends with the error (Catch nodes see it).
      failConfig(node, s('status.error'), opened.problem, 'CONFIG');
      // a window kept from before stays for the next deploy, unless the node is gone
      node.on('close', (removed: boolean, done: () => void) => {
        if (removed) {
          dropWindow(node.id);
          dropCap(node.id);
        }
        done();
      });
      return;
    }
    if (!parsed.ok) return; // cannot be: `opened` is the problem itself then
    const settings = parsed.settings;
    const { seen, connection, ready } = opened.window;
    // Outputs: first sightings, then duplicates (when asked for), then the cap's digests (last).
    const outputCount = 1 + (settings.duplicatesOutput ? 1 : 0) + (settings.cap ? 1 : 0);
    const output = (index: number, msg: NodeMessage): Array<NodeMessage | null> => {
      const out: Array<NodeMessage | null> = new Array(outputCount).fill(null);
      out[index] = msg;
      return out;
    };
    const capped = openCap(node, settings, connection, clock, {
      t,
      send: (digest: Digest) => node.send(output(outputCount - 1, { topic: 'digest', payload: digest })),
      changed: () => showStatus(),
      flowsStarted,
    });
    // What a reset took off the status, kept for the metrics (a counter never goes down).
    const cleared = { passed: 0, dropped: 0 };
    /** Messages the cap held back, for the metrics (a reset clears the window, not the cap). */
    let held = 0;
    registerCounts(node, 'dedupe', () => ({ passed: cleared.passed + counts.passed, dropped: cleared.dropped + counts.dropped, held }));

    const showStatus = throttledStatus(node, () => {
      // While a period has held anything: how many, and when the digest is due (short: no keys then).
      const pending = capped?.pending();
      const capText = pending && s('status.held', { ...counts, held: pending.held, at: clockTime(pending.end, settings.cap?.periodMs ?? 0) });
      // look-alikes merged into a key: counted apart, said only once there are some
      const merged = lookalikes > 0 ? s('status.lookalikes', { count: lookalikes }) : '';
      if (connection) return withRedisState(RED, connection, (capText || s('status.shared', counts)) + merged);
      const text = (capText || s('status.counts', { ...counts, keys: s('status.keys', { count: seen.size ?? 0 }) })) + merged;
      // Its key log's disk is full: keys kept in memory only until they are saved again.
      if (opened.window.unsaved()) return { fill: 'yellow', shape: 'dot', text: text + t('status.unsaved') };
      return { fill: 'green', shape: 'dot', text };
    });
    if (!connection)
      node.status({
        fill: 'grey',
        shape: 'ring',
        text: s('status.counts', { passed: 0, dropped: 0, keys: s('status.keys', { count: seen.size ?? 0 }) }),
      });
    // One warning per outage: a duplicate alert beats a lost one, but the user should know.
    let warnedUnreachable = false;
    const unwatch = connection?.use((state) => {
      if (state === 'connected') warnedUnreachable = false;
      showStatus();
    });
    let warnedNoKey = false;

    /** Sends go out in arrival order, each once its check is answered (and its key saved):
     *  the next message is checked meanwhile, so keys checked together share one sync or round trip. */
    let lastSend: Promise<void> = Promise.resolve();
    const inOrder = <T>(answered: Promise<T>, then: (value: T) => void): Promise<void> => {
      const sent = lastSend.then(() => answered).then(then);
      lastSend = sent.catch(() => undefined);
      return sent;
    };

    /** The cap is asked in arrival order too, each question once the window has let its message through,
     *  without waiting for the answer before asking the next (one round trip per burst through Redis). */
    let lastAsked: Promise<unknown> = Promise.resolve();
    const askCap = <T>(
      answered: Promise<T>,
      wouldPass: (answer: T) => boolean,
      key: string | null,
      now: number,
      urgent: boolean,
    ): Promise<[T, CapDecision | Error | undefined]> => {
      if (!capped) return answered.then((answer) => [answer, undefined]);
      const asked = lastAsked
        .then(() => answered)
        .then((answer) => ({ answer, decision: wouldPass(answer) ? capped.cap.check(key, now, urgent).catch((err: Error) => err) : undefined }));
      lastAsked = asked.catch(() => undefined);
      return asked.then(async ({ answer, decision }) => [answer, await decision]);
    };

    // Messages are handled strictly in arrival order (a reset must not overtake
    // the message before it), though key evaluation and loading are asynchronous.
    let queue: Promise<void> = Promise.resolve();
    node.on('input', (msg: NodeMessageInFlow, send: Send, done: (err?: Error) => void) => {
      queue = queue.then(() =>
        handle(msg, send).then(
          // not returned: the queue waits for the check to be issued, not for the send
          ({ sending }) => {
            sending.then(() => done(), done);
          },
          (err: unknown) => done(keyError(err)),
        ),
      );
    });

    /** JSONata throws plain objects; Catch nodes need an Error that says it was the key. */
    function keyError(err: unknown): Error {
      return err instanceof Error ? err : new Error(`${t('errors.key')}: ${flowError(RED, err).message}`);
    }

    /** Checks a message against the window; answers the send still under way. */
    async function handle(msg: NodeMessageInFlow, send: Send): Promise<{ sending: Promise<void> }> {
      await ready;
      if (Object.prototype.hasOwnProperty.call(msg, 'reset')) {
        const clearing = seen.clear();
        cleared.passed += counts.passed;
        cleared.dropped += counts.dropped;
        counts.passed = 0;
        counts.dropped = 0;
        lookalikes = 0;
        showStatus();
        return { sending: inOrder(clearing, () => undefined) };
      }
      let { key, read } = await settings.keyOf(msg);
      const now = clock.now();
      // urgent (msg.priority urgent or high): never held back by the cap, counted apart in its digest
      const urgent = settings.capUrgent && isUrgent((msg as { priority?: unknown }).priority);
      if (key === undefined || key === null || key === '') {
        if (settings.missingKey === 'drop') return { sending: inOrder(Promise.resolve(), () => drop(msg)) };
        if (settings.missingKey === 'pass') {
          if (!warnedNoKey) {
            warnedNoKey = true;
            node.warn(t('warn.no-key', { key: settings.keyName }));
          }
          // passed without a key: still counted by the cap
          const capChecked = askCap(Promise.resolve(), () => true, null, now, urgent);
          return { sending: inOrder(capChecked, ([, decision]) => passCapped(msg, send, decision, urgent)) };
        }
        key = `hash:${eventHash(msg.payload)}`;
        read = undefined;
      }
      const keyText = typeof key === 'string' ? key : JSON.stringify(key);
      // which delivery this is: kept with a key that passes, to know the same event emitted again
      const mark = completion.mark(msg);
      const redelivered = completion.isRedelivered(msg);
      // Asked now, answered with the next ones: one sync or round trip per burst, not per message.
      const checked = seen.check(keyText, now, mark, read).catch((err: Error) => err);
      const capChecked = askCap(checked, (sighting) => windowPasses(sighting, redelivered, mark), keyText, now, urgent);
      return {
        sending: inOrder(capChecked, ([sighting, decision]) => decide(msg, send, { key: keyText, read, urgent }, sighting, mark, decision)),
      };
    }

    /** Whether the window lets a message through (a shared window out of reach: as Redis down says). */
    function windowPasses(sighting: Sighting | Error, redelivered: boolean, mark: string | undefined): boolean {
      if (sighting instanceof Error) return seen.shared && settings.whenUnreachable === 'pass';
      return passes(sighting, redelivered, mark);
    }

    /** One warning per outage of Redis (the window's or the cap's checks), as Redis down says. */
    function unreachable(err: Error): void {
      if (warnedUnreachable) return;
      warnedUnreachable = true;
      node.warn(t(settings.whenUnreachable === 'drop' ? 'warn.redis-drop' : 'warn.redis-pass', { message: err.message }));
    }

    /** Passes, diverts or drops a message by its sighting (or the failure in its place), then by the cap. */
    function decide(
      msg: NodeMessageInFlow,
      send: Send,
      asked: { key: string; read: string | undefined; urgent: boolean },
      sighting: Sighting | Error,
      mark: string | undefined,
      decision: CapDecision | Error | undefined,
    ): void {
      if (sighting instanceof Error) {
        // a local window failed to save its key: the message's error
        if (!seen.shared) throw sighting;
        unreachable(sighting);
        if (settings.whenUnreachable === 'drop') drop(msg);
        else passCapped(msg, send, decision, asked.urgent);
        return;
      }
      // An event detection-in emits again (after a crash or a deploy) passes only when it is
      // the very event that let its key through (the flow never finished it); a repeat of
      // an event that passed, redelivered or not, is dropped: no alert goes out twice.
      if (passes(sighting, completion.isRedelivered(msg), mark)) {
        passCapped(msg, send, decision, asked.urgent);
        return;
      }
      // a repeat read otherwise than the plate that let its key through: a look-alike merged into it
      const plates =
        sighting.duplicate && sighting.read !== undefined && asked.read !== undefined ? { plate: sighting.read, read: asked.read } : undefined;
      const lookalike = plates !== undefined && isLookalikeRead(plates.plate, plates.read);
      if (lookalike) lookalikes++;
      if (settings.duplicatesOutput && sighting.duplicate) {
        counts.dropped++;
        showStatus();
        (msg as NodeMessageInFlow & { duplicateOf: unknown }).duplicateOf = {
          key: asked.key,
          firstSeen: new Date(sighting.since).toISOString(),
          ...(plates && { ...plates, lookalike }),
        };
        send(output(1, msg));
      } else drop(msg);
    }

    /** A message the window lets through: passed, unless the cap holds it back (never an urgent one). */
    function passCapped(msg: NodeMessageInFlow, send: Send, decision: CapDecision | Error | undefined, urgent: boolean): void {
      if (decision instanceof Error) {
        // the shared cap out of reach: as Redis down says, like the window; the cap never holds back an urgent message
        unreachable(decision);
        if (settings.whenUnreachable === 'drop' && !urgent) drop(msg);
        else pass(msg, send);
        return;
      }
      if (decision) capped?.noted(decision);
      if (!decision || decision.pass) pass(msg, send);
      else hold(msg);
    }

    function pass(msg: NodeMessageInFlow, send: Send): void {
      counts.passed++;
      showStatus();
      send(output(0, msg));
    }

    /** Held back by the cap: counted in the digest, and finished, so its receiver does not emit it again. */
    function hold(msg: NodeMessageInFlow): void {
      held++;
      showStatus();
      completion.finish(msg);
    }

    /** Dropped here on purpose: finished, so its receiver does not emit it again. */
    function drop(msg: NodeMessageInFlow): void {
      counts.dropped++;
      showStatus();
      completion.finish(msg);
    }

    node.on('close', (removed: boolean, done: () => void) => {
      unwatch?.();
      capped?.close(removed);
      void lastSend
        .then(() => opened.window.close(removed))
        .then(done, (err: Error) => {
          node.error(t('errors.persist', { message: err.message }));
          done();
        });
    });
  });
};

/** When a digest is due, as the status says it: hh:mm in Node-RED's time zone (with seconds for a period under an hour). */
function clockTime(ms: number, periodMs: number): string {
  const at = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  const hm = `${two(at.getHours())}:${two(at.getMinutes())}`;
  return periodMs < 3_600_000 ? `${hm}:${two(at.getSeconds())}` : hm;
}
