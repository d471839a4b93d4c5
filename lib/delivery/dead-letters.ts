/**
 * The operator's actions on a receiver's dead letters, as the editor asks for
 * them (nodes/detection-in/dead-letters.ts serves them on Node-RED's admin
 * API): list them, send some or all through the flow again, drop some or all.
 * Answers are plain data (a status and a JSON body, or an RFC 9457 problem),
 * so the rules live here and are tested without Node-RED. Also what removed
 * receivers left (strandedAction): listed, counted, handed to a running one.
 */
import { problem, type Problem } from '../http/index';
import { trackerOf } from './registry';
import { sessionOf } from './session';
import { strandedList, strandedOf, type StrandedSummary } from './stranded';
import type { DeadLetter, EventDelivery } from './types';

export type DeadLetterAction = 'list' | 'replay' | 'discard';

export type DeadLetterAnswer =
  | { status: 200; body: { count: number; items: DeadLetter[]; deployed?: false } }
  | { status: 200; body: { replayed: number } | { discarded: number } }
  | { status: 400 | 404 | 503; body: Problem };

/** The ids a replay or discard names: `{ids: [...]}` (strings or numbers); none or no body: all. */
export function requestedIds(body: unknown): string[] | undefined | Problem {
  if (body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0)) return undefined;
  const ids = (body as { ids?: unknown }).ids;
  if (ids === undefined) return undefined;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))) {
    return problem('badRequest', 'ids must be a list of dead letter ids (strings), or left out for all of them');
  }
  return ids.map(String);
}

/**
 * Runs `action` on the dead letters of receiver `receiver` (a node id); `store` defaults to the registry's.
 * A receiver not deployed is a 404 problem, except a `list` that is `optional` (the dialog of a node not
 * deployed yet asks without it being an error): then an empty list, `deployed: false`.
 */
export async function deadLetterAction(
  receiver: string,
  action: DeadLetterAction,
  body?: unknown,
  store: EventDelivery<unknown> | undefined = trackerOf(receiver),
  optional = false,
): Promise<DeadLetterAnswer> {
  if (!store && optional && action === 'list') return { status: 200, body: { count: 0, items: [], deployed: false } };
  if (!store) {
    return {
      status: 404,
      body: problem(
        'notFound',
        `no deployed detection in node has the id ${receiver}: deploy it first (dead letters are kept by a running receiver)`,
      ),
    };
  }
  try {
    if (action === 'list') {
      const items = await store.deadLetters();
      return { status: 200, body: { count: items.length, items } };
    }
    const ids = requestedIds(body);
    if (ids !== undefined && !Array.isArray(ids)) return { status: 400, body: ids };
    if (action === 'replay') return { status: 200, body: { replayed: await store.replay(ids) } };
    return { status: 200, body: { discarded: await store.discard(ids) } };
  } catch (err) {
    // Between a deploy's stop and its successor's start: nothing was done, ask again.
    if ((err as { code?: string }).code === 'ERR_DELIVERY_CLOSED') return { status: 503, body: problem('unavailable', (err as Error).message) };
    throw err;
  }
}

export type StrandedAnswer =
  | { status: 200; body: { count: number; items: StrandedSummary[] } }
  | { status: 200; body: { events: number; deadLetters: number; stranded: boolean } }
  | { status: 200; body: { events: number; deadLetters: number; to: string } }
  | { status: 400 | 404; body: Problem };

/**
 * What removed receivers left (nothing stranded, stranded.ts): `list` them all; `held`: how many answered
 * events receiver `receiver` holds now (unfinished and dead letters; the editor warns before it is deleted);
 * `replay` hands what removed receiver `receiver` left to the running receiver `{to}`, which emits it at once.
 */
export async function strandedAction(action: 'list' | 'held' | 'replay', receiver?: string, body?: unknown): Promise<StrandedAnswer> {
  if (action === 'list') {
    const items = strandedList();
    return { status: 200, body: { count: items.length, items } };
  }
  const id = String(receiver);
  if (action === 'held') {
    const store = trackerOf(id);
    return {
      status: 200,
      body: { events: store?.pending.events ?? 0, deadLetters: store?.stats.deadLetters ?? 0, stranded: strandedOf(id) !== undefined },
    };
  }
  const to = (body as { to?: unknown } | undefined)?.to;
  if (typeof to !== 'string')
    return { status: 400, body: problem('badRequest', 'to must name the id of a running detection in node that takes the events') };
  const session = sessionOf(to);
  if (!session) return { status: 404, body: problem('notFound', `no running detection in node has the id ${to}`) };
  const handed = await session.takeStranded(id);
  if (!handed) return { status: 404, body: problem('notFound', `no removed detection in node ${id} left events (see GET …/stranded)`) };
  return { status: 200, body: { ...handed, to } };
}
