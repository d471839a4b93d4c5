/**
 * What detection-alarm does for an action, from a message, a Telegram
 * button, the mail link's page or the editor's listing: the change on the
 * book (lib/alarm's rules), the changes and summaries it sends, and the
 * reply to whoever asked. The node sends; this decides.
 */
import type { ActionRequest, ActionResult, Alarm, AlarmBook, AlarmStore } from '../../lib/alarm';
import { alarmFacts, historyFacts, snoozeFacts } from '../../lib/alarm';
import type { Clock } from '../../lib/core';
import type { Vars } from '../shared/i18n';
import { changeMessage, summaryMessage, type MessageContext, type Msg } from './messages';
import type { AlarmSettings } from './settings';

export interface ActionDeps {
  settings: AlarmSettings;
  t: (key: string, vars?: Vars) => string;
  clock: Clock;
  store(): Promise<AlarmStore>;
  /** Runs a change on the book (the node notes the book's state and its timer). */
  update<T>(change: (book: AlarmBook) => T): Promise<T>;
  context(secret: string): MessageContext;
  /** Sends on the changes output. */
  changed(msg: Msg): void;
  /** Sends on the notify output (a summary). */
  notify(msg: Msg): void;
  /** An alarm acknowledged now (counted, with its time to acknowledge). */
  acknowledged(alarm: Alarm, now: number): void;
}

export type ActionAnswer = { result: ActionResult | null; reply: Record<string, unknown> };

export function alarmActions(deps: ActionDeps): (request: ActionRequest) => Promise<ActionAnswer> {
  async function act(request: ActionRequest): Promise<ActionAnswer> {
    const now = deps.clock.now();
    const actor = { by: request.by, via: request.via, note: request.note };
    const store = await deps.store();
    // the secret is read once the book is (shared: loaded by the change)
    const c = (): MessageContext => deps.context(store.secret);
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
      const before = await deps.update((book) => (action === 'arm' ? book.arm(actor, now) : book.disarm(actor, now)));
      const changed = action === 'arm' ? before !== undefined : before === true;
      if (changed) {
        if (action === 'arm' && typeof before === 'number' && before > 0) deps.notify(summaryMessage(c(), 'armed', before, undefined, actor.by));
        deps.changed(changeMessage(action === 'arm' ? 'armed' : 'disarmed', { by: actor.by, held: typeof before === 'number' ? before : 0 }));
      }
      return { result: null, reply: { ok: true, action, changed } };
    }
    if ((action === 'snooze' || action === 'resume') && request.target) {
      const target = request.target;
      if (action === 'resume') {
        const ended = await deps.update((book) => book.resume(target.scope, target.value, actor, now));
        if (ended) {
          if (ended.held > 0) deps.notify(summaryMessage(c(), 'resumed', ended.held, ended));
          deps.changed(changeMessage('resumed', snoozeFacts(ended)));
        }
        return { result: null, reply: { ok: ended !== undefined, action, snooze: ended ? snoozeFacts(ended) : null } };
      }
      const snooze = await deps.update((book) =>
        book.snooze(target.scope, target.value, target.label, request.ms ?? deps.settings.snoozeMs, actor, now),
      );
      deps.changed(changeMessage('snoozed', snoozeFacts(snooze)));
      return { result: null, reply: { ok: true, action, snooze: snoozeFacts(snooze) } };
    }
    if (request.all) {
      // every alarm not acknowledged yet (ack), or every one (close), in one change
      const results = await deps.update((book) =>
        book
          .alarms()
          .filter((a) => action === 'close' || a.state === 'open')
          .map((a) => (action === 'ack' ? book.acknowledge(a.id, actor, now) : book.close(a.id, actor, now))),
      );
      const done = results.flatMap((r) => (r.ok ? [r] : []));
      if (action === 'close') await store.dropEvents(done.map((r) => r.alarm.id)).catch(() => undefined);
      for (const r of done) {
        if (action === 'ack') deps.acknowledged(r.alarm, now);
        deps.changed(changeMessage(action === 'ack' ? 'acknowledged' : 'closed', alarmFacts(r.alarm, r.state), { by: actor.by, via: actor.via }));
      }
      return { result: null, reply: { ok: true, action, alarms: done.map((r) => alarmFacts(r.alarm, r.state)) } };
    }
    const alarmId = id as string;
    const result = await deps.update((book) => {
      if (action === 'ack') return book.acknowledge(alarmId, actor, now);
      if (action === 'close') return book.close(alarmId, actor, now);
      if (action === 'snooze') return book.snoozeAlarm(alarmId, deps.settings.snoozeScope, request.ms ?? deps.settings.snoozeMs, actor, now);
      // resume named by an alarm: the snooze of what it is about
      const alarm = book.find(alarmId);
      const ended = alarm
        ? book.resume(
            deps.settings.snoozeScope === 'camera' && alarm.camera ? 'camera' : 'key',
            deps.settings.snoozeScope === 'camera' && alarm.camera ? alarm.camera : alarm.key,
            actor,
            now,
          )
        : undefined;
      return alarm ? ({ ok: true, alarm, state: alarm.state, snooze: ended } as ActionResult) : ({ ok: false, reason: 'unknown' } as ActionResult);
    });
    if (!result.ok)
      return {
        result,
        reply: { ok: false, action, id: alarmId, reason: result.reason, text: refusalText(result), ...('by' in result ? { by: result.by } : {}) },
      };
    const facts = alarmFacts(result.alarm, result.state);
    // acknowledged now (a snooze of an open alarm acknowledges it too): counted, with its time to acknowledge
    if ((action === 'ack' || action === 'snooze') && result.alarm.ackAt === now) deps.acknowledged(result.alarm, now);
    if (action === 'close') await store.dropEvents([alarmId]).catch(() => undefined);
    const change = action === 'ack' ? 'acknowledged' : action === 'close' ? 'closed' : action === 'snooze' ? 'snoozed' : 'resumed';
    deps.changed(changeMessage(change, facts, { by: actor.by, via: actor.via, ...(result.snooze ? { snooze: snoozeFacts(result.snooze) } : {}) }));
    return { result, reply: { ok: true, action, alarm: facts, ...(result.snooze ? { snooze: snoozeFacts(result.snooze) } : {}) } };
  }
  function refusalText(result: Exclude<ActionResult, { ok: true }>): string {
    if (result.reason === 'unknown') return deps.t('refused.unknown');
    return deps.t(`refused.${result.reason}`, { by: result.by || deps.t('refused.itself'), at: new Date(result.at).toISOString() });
  }
  return act;
}
