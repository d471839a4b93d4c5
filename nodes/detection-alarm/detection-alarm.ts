/**
 * detection-alarm: alerts become alarms people answer. An alert opens an
 * alarm (output 1, notify) or joins the open one of its key (output 3,
 * changes); unacknowledged, the alarm reminds (output 1) and escalates
 * (output 2); acknowledged, snoozed or closed by a message, a Telegram
 * button or the mail link's page, it says so on output 3 and answers the
 * asker on output 4 (a Telegram button's press: on output 5, for the
 * Telegram sender). A thin adapter: the rules are lib/alarm's book, kept
 * by ./store.ts; the messages are ./messages.ts; the link page ./page.ts.
 *
 * Times are on the node's clock (clockOf: the system's, or a test's): one
 * timer at the next due time (and, shared through Redis, at least every
 * POLL_MS, for what other instances changed).
 */
import type { NodeAPI, NodeMessage } from 'node-red';
import { alarmFacts, alertOf, readAction, slimEvent, snoozeFacts, type AlarmBook, type DueItem, type RaiseResult } from '../../lib/alarm';
import { isUrgent } from '../../lib/alert';
import { viewOfEvent } from '../../lib/events';
import { ACK_BUCKETS, DurationHistogram, histogramCounters } from '../../lib/metrics';
import { clockOf } from '../shared/clock';
import { registerCounts } from '../shared/metrics';
import { coded, flowError, nodeText, statusText } from '../shared/i18n';
import { registerNode } from '../shared/register';
import { failConfig, throttledStatus } from '../shared/status';
import { readProperty } from '../shared/typed-property';
import { withRedisState } from '../shared/redis';
import { alarmActions } from './actions';
import { bookTag, changeMessage, dueMessage, noticeOf, summaryMessage, type MessageContext, type Msg } from './messages';
import { alarmSettings, type AlarmDef } from './settings';
import { openAlarmStore } from './store';
import { mountLinkPage } from './page';
import { readTelegramCallback, telegramReplies } from './telegram';
import { listAlarms, serveAlarmAdmin } from './admin';
import { DueTimer } from './due-timer';

const TYPE = 'detection-alarm';
/** Shared through Redis: swept at least this often, for what other instances changed (ms on the node's clock). */
const POLL_MS = 10_000;
const OUTPUT = { notify: 0, escalate: 1, changes: 2, replies: 3, telegram: 4 } as const;
type Output = keyof typeof OUTPUT;
type Send = (msg: Array<NodeMessage | NodeMessage[] | null>) => void;
type Done = (err?: Error) => void;
/** What the node shows and when it wakes, read from the book. */
interface BookView {
  open: number;
  snoozes: number;
  /** When the soonest snooze ends (Infinity: none runs). */
  snoozeEnds: number;
  armed: boolean;
  held: number;
  nextDue: number;
}

interface AlarmCredentials {
  /** Signs the mail links; empty: one the node makes and keeps with its book. */
  linkSecret?: string;
}

export = function register(RED: NodeAPI): void {
  // served from the start: a dialog asks before any alarm node is deployed
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
      const connection = opened.connection;
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
      let snoozeEnds = Infinity;
      let armed = true;
      let heldNow = 0;
      const showStatus = throttledStatus(node, () => {
        if (connection) {
          const text = armed
            ? s('status.counts', { open, opened: counts.opened, acknowledged: counts.acknowledged })
            : s('status.disarmed', { held: heldNow });
          return withRedisState(RED, connection, snoozes > 0 && armed ? text + snoozedText() : text);
        }
        if (!armed) return { fill: 'grey', shape: 'ring', text: s('status.disarmed', { held: heldNow }) };
        const text = s('status.counts', { open, opened: counts.opened, acknowledged: counts.acknowledged });
        return {
          fill: open > 0 ? 'red' : 'green',
          shape: snoozes > 0 ? 'ring' : 'dot',
          text: snoozes > 0 ? text + snoozedText() : text,
        };
      });
      /** ` · 1 snoozed, 42 min left`: the soonest snooze's time left, redrawn as its minutes go by. */
      let statusTick: unknown;
      function snoozedText(): string {
        const leftMs = Math.max(0, snoozeEnds - clock.now());
        const minutes = Math.ceil(leftMs / 60_000);
        const [hours, rest] = [Math.floor(minutes / 60), minutes % 60];
        const left = [hours > 0 ? t('time.hours', { count: hours }) : '', rest > 0 || hours === 0 ? t('time.minutes', { count: rest }) : '']
          .filter(Boolean)
          .join(' ');
        if (statusTick === undefined && !closing && Number.isFinite(snoozeEnds))
          statusTick = clock.setTimeout(
            () => {
              statusTick = undefined;
              showStatus();
            },
            leftMs % 60_000 || 60_000,
          );
        return s('status.snoozed', { count: snoozes, left });
      }

      /** Sends `msg` on `output` alone (several messages: in order). */
      const emit = (send: Send, output: Output, msg: Msg | Msg[]): void => {
        const out: Array<NodeMessage | NodeMessage[] | null> = [null, null, null, null, null];
        out[OUTPUT[output]] = msg;
        send(out);
      };
      const sendLater: Send = (msg) => node.send(msg as NodeMessage[]);

      const book = bookTag(settings.shared?.name ?? node.id);
      const context = (secret: string): MessageContext => ({
        settings,
        nodeId: node.id,
        book,
        secret,
        root: settings.listener ? '' : httpRoot(RED),
        t,
        now: () => clock.now(),
      });

      /**
       * Runs `change` on the book and notes, from the book as changed, what
       * the status shows and when the timer wakes. Here, the change holds
       * at once: noted before it is written (a test's clock sees the next
       * timer as soon as a sweep ran). Shared, `change` runs again after a
       * conflict, so it only reads and changes the book, and what is noted
       * is read from the book as written, once it is.
       */
      async function update<T>(change: (book: AlarmBook) => T): Promise<T> {
        const store = await opened.ready;
        const { result, view } = await store.update((book) => {
          const out = { result: change(book), view: viewOf(book) };
          if (!store.shared) note(out.view);
          return out;
        });
        if (store.shared) note(view);
        return result;
      }
      function viewOf(book: AlarmBook): BookView {
        const running = book.snoozes(clock.now());
        const snoozeEnds = Math.min(Infinity, ...running.map((x) => x.until));
        return { open: book.size, snoozes: running.length, snoozeEnds, armed: book.armed, held: book.heldDisarmed, nextDue: book.nextDue() };
      }
      function note(view: BookView): void {
        ({ open, snoozes, armed, snoozeEnds } = view);
        heldNow = view.held;
        // shared: another instance may change the book at any time
        timer.wakeAt(connection ? Math.min(view.nextDue, clock.now() + POLL_MS) : view.nextDue);
        showStatus();
      }

      // ---- reminders, escalations, quiet closes, snoozes ending: one timer at the next due time ----
      const timer = new DueTimer(clock, sweep);
      async function sweep(): Promise<void> {
        if (closing) return;
        let items: DueItem[];
        try {
          items = await update((book) => book.due(clock.now()));
          reached();
        } catch (err) {
          if (!connection) node.error(flowError(RED, err));
          else {
            // Redis unreachable: tried again at the next poll (what falls due meanwhile goes out late)
            sharedFailed(err as Error);
            timer.wakeAt(clock.now() + POLL_MS);
          }
          return;
        }
        try {
          const store = await opened.ready;
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
        let result: RaiseResult;
        try {
          result = await update((book) => book.raise(read.alert, now));
          reached();
        } catch (err) {
          if (!connection) throw err;
          // the shared book cannot be changed: the alert still reaches people, as a notice of its own
          sharedFailed(err as Error);
          emit(send, 'notify', Object.assign(msg, { alarm: { notice: 'untracked', text: '' } }));
          return;
        }
        const c = context(store.secret);
        switch (result.outcome) {
          case 'opened': {
            // kept for its reminders, taken before the message goes on (a flow may change it), written
            // after: the changes leave in the order the book made them (a second read's joined after this)
            const slim = slimEvent(event);
            if (result.closed) emit(send, 'changes', changeMessage('closed', alarmFacts(result.closed, 'closed'), { by: '' }));
            counts.opened++;
            // the status was drawn as the book changed, before this count
            showStatus();
            msg.alarm = noticeOf(c, result.alarm, 'opened', '');
            emit(send, 'notify', msg);
            emit(send, 'changes', changeMessage('opened', alarmFacts(result.alarm)));
            await store.putEvent(result.alarm.id, slim).catch((err: Error) => node.warn(t('warn.event-save', { message: err.message })));
            if (result.closed) await store.dropEvents([result.closed.id]).catch(() => undefined);
            break;
          }
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

      // ---- actions: a message, a Telegram button, the link page (./actions.ts) ----
      const act = alarmActions({
        settings,
        t,
        clock,
        store: () => opened.ready,
        update,
        context,
        changed: (msg) => emit(sendLater, 'changes', msg),
        notify: (msg) => emit(sendLater, 'notify', msg),
        acknowledged: (alarm, now) => {
          counts.acknowledged++;
          toAck.observe((now - alarm.openedAt) / 1000);
          showStatus();
        },
      });

      const listing = listAlarms(node.id, async () => (await act({ action: 'list', by: '', via: 'editor' })).reply);
      // httpNodeRoot false: Node-RED serves no node routes, so the links would lead nowhere
      if (settings.linkBase !== '' && !settings.listener && (RED.settings as unknown as { httpNodeRoot?: unknown }).httpNodeRoot === false)
        node.warn(t('warn.no-http-node'));
      const page = mountLinkPage(RED, node, settings, { t, clock, act, store: () => opened.ready });

      node.on('input', (incoming: NodeMessage, send: Send, done: Done) => {
        const msg = incoming as Msg;
        const callback = readTelegramCallback(msg.payload, msg.originalMessage, book);
        if (callback === 'other') {
          // another alarm node's button, on the same Telegram event node: that node answers it
          done();
          return;
        }
        if (callback) {
          act({ action: callback.action, id: callback.id, by: callback.by, via: 'telegram' })
            .then(async ({ result, reply }) => {
              const store = await opened.ready;
              emit(send, 'telegram', telegramReplies(callback, result, reply, context(store.secret)));
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

      // ---- shared through Redis: its state in the status; one warning per outage ----
      let warnedShared = false;
      function sharedFailed(err: Error): void {
        if (warnedShared) return;
        warnedShared = true;
        node.warn(t('warn.shared-failed', { message: flowError(RED, err).message }));
      }
      function reached(): void {
        warnedShared = false;
      }
      const unwatch = connection?.use((state) => {
        // back (or first connected): catch up with what fell due meanwhile, here or elsewhere
        if (state === 'connected') timer.sweepNow();
        showStatus();
      });

      // noted as it is read: a view noted a tick later could undo a change made meanwhile
      void opened.ready.then((store) => store.read((book) => note(viewOf(book)))).catch(() => undefined);
      node.on('close', (removed: boolean, done: () => void) => {
        closing = true;
        if (statusTick !== undefined) clock.clearTimeout(statusTick);
        unwatch?.();
        page.close();
        listing.remove();
        // a sweep under way sends what it took (shared: no other instance will) before the node stops
        void timer
          .stop()
          .then(() => opened.close(removed))
          .then(done, done);
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
