/**
 * detection-alarm: alerts become alarms people answer. An alert opens an
 * alarm (output 1, notify) or joins the open one of its key (output 3,
 * changes); unacknowledged, the alarm reminds (output 1) and escalates
 * (output 2); acknowledged, snoozed or closed by a message, a Telegram
 * button or the mail link's page, it says so on output 3 and answers the
 * asker on output 4. A thin adapter: the rules are lib/alarm's book, kept
 * by ./store.ts; the messages are ./messages.ts; the link page ./page.ts.
 *
 * Times are on the node's clock (clockOf: the system's, or a test's): one
 * timer at the next due time.
 */
import type { NodeAPI, NodeMessage } from 'node-red';
import {
  alarmFacts,
  alertOf,
  historyFacts,
  readAction,
  slimEvent,
  snoozeFacts,
  type ActionRequest,
  type ActionResult,
  type AlarmBook,
  type DueItem,
} from '../../lib/alarm';
import { isUrgent } from '../../lib/alert';
import { viewOfEvent } from '../../lib/events';
import { ACK_BUCKETS, DurationHistogram, histogramCounters } from '../../lib/metrics';
import { clockOf } from '../shared/clock';
import { registerCounts } from '../shared/metrics';
import { coded, flowError, nodeText, statusText } from '../shared/i18n';
import { registerNode } from '../shared/register';
import { failConfig, throttledStatus } from '../shared/status';
import { readProperty } from '../shared/typed-property';
import { changeMessage, dueMessage, noticeOf, summaryMessage, type MessageContext, type Msg } from './messages';
import { alarmSettings, type AlarmDef } from './settings';
import { openAlarmStore } from './store';
import { mountLinkPage } from './page';
import { readTelegramCallback, telegramReplies } from './telegram';
import { listAlarms, serveAlarmAdmin } from './admin';

const TYPE = 'detection-alarm';
/** Longest single wait of the timer (Node's timers take at most 2^31 - 1 ms): a day, then it waits again. */
const MAX_WAIT_MS = 86_400_000;
const OUTPUT = { notify: 0, escalate: 1, changes: 2, replies: 3 } as const;
type Output = keyof typeof OUTPUT;
type Send = (msg: Array<NodeMessage | NodeMessage[] | null>) => void;
type Done = (err?: Error) => void;

interface AlarmCredentials {
  /** Signs the mail links; empty: one the node makes and keeps with its book. */
  linkSecret?: string;
}

export = function register(RED: NodeAPI): void {
  serveAlarmAdmin(RED);
  registerNode<AlarmDef, AlarmCredentials>(
    RED,
    TYPE,
    (node, config) => {
      const t = nodeText(RED, TYPE);
      const s = statusText(RED, TYPE);
      const clock = clockOf(RED);
      const parsed = alarmSettings(RED, node, config, t);
      const opening = parsed.ok ? openAlarmStore(RED, node, parsed.settings, t) : parsed;
      if (!opening.ok) {
        failConfig(node, s('status.error'), opening.problem, 'CONFIG');
        return;
      }
      if (!parsed.ok) return;
      const settings = parsed.settings;
      const opened = opening.opened;
      let closing = false;

      const counts = { opened: 0, reminders: 0, escalations: 0, acknowledged: 0, held: 0 };
      const toAck = new DurationHistogram(ACK_BUCKETS);
      let open = 0;
      // Read only when a monitor is scraped (lib/metrics): the totals go on across deploys.
      registerCounts(
        node,
        'alarm',
        () => ({ ...counts, ...histogramCounters(toAck, 'ack') }),
        () => ({ open }),
      );
      let snoozes = 0;
      let armed = true;
      let heldNow = 0;
      const showStatus = throttledStatus(node, () => {
        if (!armed) return { fill: 'grey', shape: 'ring', text: s('status.disarmed', { held: heldNow }) };
        const text = s('status.counts', { open, opened: counts.opened, acknowledged: counts.acknowledged });
        return {
          fill: open > 0 ? 'red' : 'green',
          shape: snoozes > 0 ? 'ring' : 'dot',
          text: snoozes > 0 ? text + s('status.snoozed', { count: snoozes }) : text,
        };
      });

      /** Sends `msg` on `output` alone (several messages: in order). */
      const emit = (send: Send, output: Output, msg: Msg | Msg[]): void => {
        const out: Array<NodeMessage | NodeMessage[] | null> = [null, null, null, null];
        out[OUTPUT[output]] = msg;
        send(out);
      };
      const sendLater: Send = (msg) => node.send(msg as NodeMessage[]);

      const context = (secret: string): MessageContext => ({
        settings,
        nodeId: node.id,
        secret,
        root: settings.listener ? '' : httpRoot(RED),
        t,
        now: () => clock.now(),
      });

      /**
       * Runs `change` on the book and notes, from the book as changed, what
       * the status shows and when the timer wakes: at once, before the
       * change is written (a test's clock sees the next timer as soon as a
       * sweep ran).
       */
      async function update<T>(change: (book: AlarmBook) => T): Promise<T> {
        const store = await opened.ready;
        return store.update((book) => {
          const result = change(book);
          note(book);
          return result;
        });
      }
      function note(book: AlarmBook): void {
        open = book.size;
        snoozes = book.snoozes(clock.now()).length;
        armed = book.armed;
        heldNow = book.heldDisarmed;
        wakeAt(book.nextDue());
        showStatus();
      }

      // ---- reminders, escalations, quiet closes, snoozes ending: one timer at the next due time ----
      let timer: unknown;
      let timerAt = Infinity;
      function wakeAt(at: number): void {
        if (closing || !Number.isFinite(at)) return;
        if (timer !== undefined) {
          if (timerAt <= at) return;
          clock.clearTimeout(timer);
        }
        timerAt = at;
        timer = clock.setTimeout(
          () => {
            timer = undefined;
            timerAt = Infinity;
            void sweep();
          },
          Math.min(MAX_WAIT_MS, Math.max(0, at - clock.now())),
        );
      }
      async function sweep(): Promise<void> {
        if (closing) return;
        try {
          const store = await opened.ready;
          const items = await update((book) => book.due(clock.now()));
          const c = context(store.secret);
          for (const item of items) await sendDue(item, c);
          const closed = items.filter((i) => i.type === 'closed').map((i) => (i as { alarm: { id: string } }).alarm.id);
          if (closed.length > 0) await store.dropEvents(closed).catch(() => undefined);
        } catch (err) {
          node.error(flowError(RED, err));
        }
      }
      async function sendDue(item: DueItem, c: MessageContext): Promise<void> {
        const store = await opened.ready;
        if (item.type === 'reminder' || item.type === 'escalation') {
          const event = await store.getEvent(item.alarm.id);
          const number = item.type === 'reminder' ? item.number : undefined;
          if (item.type === 'reminder') counts.reminders++;
          else counts.escalations++;
          emit(sendLater, item.type === 'reminder' ? 'notify' : 'escalate', dueMessage(c, item.alarm, item.type, event, number));
          emit(sendLater, 'changes', changeMessage(item.type === 'reminder' ? 'reminded' : 'escalated', alarmFacts(item.alarm)));
        } else if (item.type === 'closed') {
          emit(sendLater, 'changes', changeMessage('closed', alarmFacts(item.alarm, 'closed'), { by: '' }));
        } else {
          if (item.snooze.held > 0) emit(sendLater, 'notify', summaryMessage(c, 'resumed', item.snooze.held, item.snooze));
          emit(sendLater, 'changes', changeMessage('resumed', snoozeFacts(item.snooze)));
        }
      }

      // ---- alerts ----
      async function onAlert(msg: Msg, send: Send): Promise<void> {
        const event = await readProperty(settings.readEvent, msg).catch((err: unknown) => {
          throw coded(t('errors.read', { property: settings.eventName, message: flowError(RED, err).message }), 'PROPERTY_READ');
        });
        const view = viewOfEvent(event);
        if (!view) throw coded(t('errors.not-an-event', { property: settings.eventName }), 'NOT_A_DETECTION');
        const read = alertOf(view, event, settings.keyBy, settings.lookalikes, isUrgent(msg.priority));
        if (!read.ok) {
          // no key to join on: the alert still reaches people, as an alarm of its own is no help without one
          node.warn(t(`warn.${read.reason}`, { keyBy: t(`keyBy.${settings.keyBy}`) }));
          emit(send, 'notify', Object.assign(msg, { alarm: { notice: 'untracked', text: '' } }));
          return;
        }
        const now = clock.now();
        const store = await opened.ready;
        const result = await update((book) => book.raise(read.alert, now));
        const c = context(store.secret);
        switch (result.outcome) {
          case 'opened':
            await store.putEvent(result.alarm.id, slimEvent(event)).catch((err: Error) => node.warn(t('warn.event-save', { message: err.message })));
            if (result.closed) {
              await store.dropEvents([result.closed.id]).catch(() => undefined);
              emit(send, 'changes', changeMessage('closed', alarmFacts(result.closed, 'closed'), { by: '' }));
            }
            counts.opened++;
            msg.alarm = noticeOf(c, result.alarm, 'opened', '');
            emit(send, 'notify', msg);
            emit(send, 'changes', changeMessage('opened', alarmFacts(result.alarm)));
            break;
          case 'joined':
            msg.alarm = { ...alarmFacts(result.alarm), change: 'joined' };
            emit(send, 'changes', msg);
            break;
          case 'held':
            counts.held++;
            msg.alarm = { change: 'held', held: result.why, ...(result.why === 'snoozed' ? { snooze: snoozeFacts(result.snooze) } : {}) };
            emit(send, 'changes', msg);
            break;
          case 'untracked':
            node.warn(t('warn.full', { max: settings.book.maxOpen }));
            msg.alarm = { notice: 'untracked', text: '' };
            emit(send, 'notify', msg);
            break;
        }
      }

      // ---- actions: a message, a Telegram button, the link page ----
      async function act(request: ActionRequest): Promise<{ result: ActionResult | null; reply: Record<string, unknown> }> {
        const now = clock.now();
        const actor = { by: request.by, via: request.via, note: request.note };
        const store = await opened.ready;
        const c = context(store.secret);
        const { action, id } = request;
        if (action === 'list') {
          const listed = await store.read((book) => ({
            alarms: book.alarms().map((a) => alarmFacts(a)),
            snoozes: book.snoozes(now).map(snoozeFacts),
            armed: book.armed,
            held: book.heldDisarmed,
            history: book.history().map(historyFacts),
          }));
          return { result: null, reply: { ok: true, action, ...listed } };
        }
        if (action === 'arm' || action === 'disarm') {
          const before = await update((book) => (action === 'arm' ? book.arm(actor, now) : book.disarm(actor, now)));
          const changed = action === 'arm' ? before !== undefined : before === true;
          if (changed) {
            if (action === 'arm' && typeof before === 'number' && before > 0)
              emit(sendLater, 'notify', summaryMessage(c, 'armed', before, undefined, actor.by));
            emit(
              sendLater,
              'changes',
              changeMessage(action === 'arm' ? 'armed' : 'disarmed', { by: actor.by, held: typeof before === 'number' ? before : 0 }),
            );
          }
          return { result: null, reply: { ok: true, action, changed } };
        }
        if ((action === 'snooze' || action === 'resume') && request.target) {
          const target = request.target;
          if (action === 'resume') {
            const ended = await update((book) => book.resume(target.scope, target.value, actor, now));
            if (ended) {
              if (ended.held > 0) emit(sendLater, 'notify', summaryMessage(c, 'resumed', ended.held, ended));
              emit(sendLater, 'changes', changeMessage('resumed', snoozeFacts(ended)));
            }
            return { result: null, reply: { ok: ended !== undefined, action, snooze: ended ? snoozeFacts(ended) : null } };
          }
          const snooze = await update((book) => book.snooze(target.scope, target.value, target.label, request.ms ?? settings.snoozeMs, actor, now));
          emit(sendLater, 'changes', changeMessage('snoozed', snoozeFacts(snooze)));
          return { result: null, reply: { ok: true, action, snooze: snoozeFacts(snooze) } };
        }
        if (request.all) {
          // every alarm not acknowledged yet (ack), or every one (close), in one change
          const results = await update((book) =>
            book
              .alarms()
              .filter((a) => action === 'close' || a.state === 'open')
              .map((a) => (action === 'ack' ? book.acknowledge(a.id, actor, now) : book.close(a.id, actor, now))),
          );
          const done = results.flatMap((r) => (r.ok ? [r] : []));
          if (action === 'close') await store.dropEvents(done.map((r) => r.alarm.id)).catch(() => undefined);
          for (const r of done) {
            if (action === 'ack') {
              counts.acknowledged++;
              toAck.observe((now - r.alarm.openedAt) / 1000);
            }
            emit(
              sendLater,
              'changes',
              changeMessage(action === 'ack' ? 'acknowledged' : 'closed', alarmFacts(r.alarm, r.state), { by: actor.by, via: actor.via }),
            );
          }
          return { result: null, reply: { ok: true, action, alarms: done.map((r) => alarmFacts(r.alarm, r.state)) } };
        }
        const alarmId = id as string;
        const result = await update((book) => {
          if (action === 'ack') return book.acknowledge(alarmId, actor, now);
          if (action === 'close') return book.close(alarmId, actor, now);
          if (action === 'snooze') return book.snoozeAlarm(alarmId, settings.snoozeScope, request.ms ?? settings.snoozeMs, actor, now);
          // resume named by an alarm: the snooze of what it is about
          const alarm = book.find(alarmId);
          const ended = alarm
            ? book.resume(
                settings.snoozeScope === 'camera' && alarm.camera ? 'camera' : 'key',
                settings.snoozeScope === 'camera' && alarm.camera ? alarm.camera : alarm.key,
                actor,
                now,
              )
            : undefined;
          return alarm
            ? ({ ok: true, alarm, state: alarm.state, snooze: ended } as ActionResult)
            : ({ ok: false, reason: 'unknown' } as ActionResult);
        });
        if (!result.ok)
          return {
            result,
            reply: { ok: false, action, id: alarmId, reason: result.reason, text: refusalText(result), ...('by' in result ? { by: result.by } : {}) },
          };
        const facts = alarmFacts(result.alarm, result.state);
        // acknowledged now (a snooze of an open alarm acknowledges it too): counted, with its time to acknowledge
        if ((action === 'ack' || action === 'snooze') && result.alarm.ackAt === now) {
          counts.acknowledged++;
          toAck.observe((now - result.alarm.openedAt) / 1000);
        }
        if (action === 'close') await store.dropEvents([alarmId]).catch(() => undefined);
        const change = action === 'ack' ? 'acknowledged' : action === 'close' ? 'closed' : action === 'snooze' ? 'snoozed' : 'resumed';
        emit(
          sendLater,
          'changes',
          changeMessage(change, facts, { by: actor.by, via: actor.via, ...(result.snooze ? { snooze: snoozeFacts(result.snooze) } : {}) }),
        );
        return { result, reply: { ok: true, action, alarm: facts, ...(result.snooze ? { snooze: snoozeFacts(result.snooze) } : {}) } };
      }
      function refusalText(result: Exclude<ActionResult, { ok: true }>): string {
        if (result.reason === 'unknown') return t('refused.unknown');
        return t(`refused.${result.reason}`, { by: result.by || t('refused.itself'), at: new Date(result.at).toISOString() });
      }

      const listing = listAlarms(node.id, async () => (await act({ action: 'list', by: '', via: 'editor' })).reply);
      const page = mountLinkPage(RED, node, settings, { t, clock, act, store: () => opened.ready });

      node.on('input', (incoming: NodeMessage, send: Send, done: Done) => {
        const msg = incoming as Msg;
        const callback = readTelegramCallback(msg.payload);
        if (callback) {
          act({ action: callback.action, id: callback.id, by: callback.by, via: 'telegram' })
            .then(async ({ result, reply }) => {
              const store = await opened.ready;
              emit(send, 'replies', telegramReplies(callback, result, reply, context(store.secret)));
              done();
            })
            .catch((err: unknown) => done(flowError(RED, err)));
          return;
        }
        const read = readAction(msg.topic, msg.payload, settings.plateKey, t('by.message'));
        if (!read.ok && read.reason === 'invalid') {
          done(coded(t(`errors.action-${read.problem}`, read.vars), 'BAD_ACTION'));
          return;
        }
        const work = read.ok
          ? act(read.request).then(({ reply }) => {
              msg.payload = reply;
              emit(send, 'replies', msg);
            })
          : onAlert(msg, send);
        work.then(
          () => done(),
          (err: unknown) => done(flowError(RED, err)),
        );
      });

      void opened.ready.then((store) => store.read(note)).catch(() => undefined);
      node.on('close', (removed: boolean, done: () => void) => {
        closing = true;
        if (timer !== undefined) clock.clearTimeout(timer);
        page.close();
        listing.remove();
        void opened.close(removed).then(done, done);
      });
    },
    { credentials: { linkSecret: { type: 'password' } } },
  );
};

/** Node-RED's httpNodeRoot without its trailing slash ('' at /). */
function httpRoot(RED: NodeAPI): string {
  const root = (RED.settings as unknown as { httpNodeRoot?: unknown }).httpNodeRoot;
  return typeof root === 'string' ? root.replace(/\/+$/, '') : '';
}
