/**
 * The webhook receiver as a plain node:http handler, free of Node-RED.
 *
 * Steps, kept apart so each can change on its own (a durable enqueue, for
 * example): authenticate → read → check UTF-8 → parse → validate → enqueue →
 * acknowledge → emit. Every rejected request gets a status and an
 * application/problem+json body; an answer given before the body was read
 * lets the rest of the body drain first, so a sender that writes before it
 * reads still gets it.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { systemClock, type Clock } from '../core/clock';
import { MIB, mibBytes, nodeOptions } from '../config';
import {
  bodyNotInvited,
  DEFAULT_LINGER,
  discardRest,
  invalidUtf8Offset,
  inviteBody,
  jsonRequestProblem,
  type LingerBounds,
  parseJsonBody,
  problem,
  type Problem,
  type ProblemKind,
  sendJson,
  sendProblem,
} from '../http';
import { renderMessage, type Message, type Translate } from '../core/messages';
import { authFailureMessage, checkAuth, credentialHeaderNames, type AuthConfig } from './auth';
import { createByteBudget, declaredLength, readBody } from './body';
import type { EventKind } from '../core/event-kinds';
import type { SchemaError } from '../core/schema-error';
import type { DetectionEvent } from '../events';
import { validateEvent, type ValidationMode } from './validation';
import type { RefusalLog } from './refusals';

/** Bytes in a MiB: the option table's (lib/config), named as the receiver's callers know it. */
export const MiB = MIB;
/** What a receiver saved without them runs with, as the option table states them. */
const TABLE_DEFAULTS = nodeOptions('detection-in', {});
export const DEFAULT_MAX_BODY_BYTES = mibBytes(TABLE_DEFAULTS.maxBodyMiB);
export const DEFAULT_STALL_MS = TABLE_DEFAULTS.stallSeconds * 1000;
/** Bodies being read may hold this much at once (and at least four bodies of the limit). */
export const DEFAULT_PENDING_BYTES = 256 * MiB;

export interface ReceiverOptions {
  auth: AuthConfig;
  maxBodyBytes: number;
  /** lenient: refuse only what a flow cannot use (422), warn about the rest;
   *  strict: refuse any deviation from the spec (422); accept: answer 202 to
   *  any deviation. Either way a refused event is handed to onInvalid. */
  validation: ValidationMode;
  /** A body that makes no progress for this long is answered 408; default 30 s. */
  stallMs?: number;
  /** Bytes all bodies being read may hold together; past it new bytes get 503. */
  maxPendingBytes?: number;
  /** Retry-After of a 503 when the event could not be queued; default 1. */
  retryAfterSeconds?: number;
  /** How much of an unwanted body is drained after an early answer. */
  linger?: LingerBounds;
  clock?: Clock;
  /** The language of the problem answers' `detail` (Node-RED's RED._); default en-US. */
  translate?: Translate;
  /** Told of every request turned away (4xx, 503) and every one accepted (./refusals.ts). */
  refusals?: Pick<RefusalLog, 'record' | 'accepted'>;
}

/** What the receiver knows about one request, with credentials removed. */
export interface DeliveryMeta {
  ip: string | undefined;
  headers: IncomingHttpHeaders;
  receivedAt: string;
}

export interface AcceptedDelivery {
  event: DetectionEvent;
  /** The request body as received (absent when a middleware parsed it first). */
  body?: Buffer;
  kind: EventKind;
  /** The event's payload.messageId, read once here and carried (the answer, the store's index of resends). */
  messageId: string | undefined;
  /** Deviations from the spec that did not stop the event (lenient mode). */
  warnings: SchemaError[];
  meta: DeliveryMeta;
  /** Set by the enqueue hook: the id under which the event is kept until finished. */
  deliveryId?: number | string;
  /** Set by the enqueue hook: a resend of an event held unfinished already (its messageId). It is
   *  answered 200 and not emitted: the held copy is emitted (again) and finished in its place. */
  absorbed?: boolean;
}

export interface InvalidDelivery {
  /** The body as parsed; not a valid event. */
  value: unknown;
  errors: SchemaError[];
  meta: DeliveryMeta;
}

/** An event being taken while its body is checked (see ReceiverHooks.stage). */
export interface StagedEnqueue {
  commit(delivery: AcceptedDelivery): Promise<void>;
  abandon(): void;
}

/**
 * What the receiver needs of the store that keeps its events until finished
 * (lib/delivery/session.ts implements it): room before the body is read, the
 * body staged while it is checked, the event committed before the 200.
 */
export interface ReceiverStore {
  /** Called before the body is read, with its declared size when known: a throw
   *  answers 503 with Retry-After at once (a store that is full refuses a burst
   *  without reading it). */
  admit?(declaredBytes: number | undefined): void;
  /** Called once the body is read, before it is parsed: lets a durable store start
   *  writing it while it is checked. Returns undefined to use `enqueue` instead; a
   *  throw answers 503 with Retry-After. The receiver then calls exactly one of
   *  `commit` (the event is accepted; the 200 waits for it) or `abandon`. */
  stage?(body: Buffer, meta: DeliveryMeta): StagedEnqueue | undefined;
  /** Called before the acknowledgement when the event was not staged. A throw or
   *  rejection answers 503 so the bridge retries. */
  enqueue?(delivery: AcceptedDelivery): void | Promise<void>;
}

export interface ReceiverHooks {
  /** The store the receiver keeps events in; without one, the hooks below of the same names. */
  store?: ReceiverStore;
  /** Called before the body is read, with its declared size when known: a throw
   *  answers 503 with Retry-After at once (a store that is full refuses a burst
   *  without reading it). */
  admit?(declaredBytes: number | undefined): void;
  /** Called once the body is read, before it is parsed: lets a durable store start
   *  writing it while it is checked. Returns undefined to use `enqueue` instead; a
   *  throw answers 503 with Retry-After. The receiver then calls exactly one of
   *  `commit` (the event is accepted; the 200 waits for it) or `abandon`. */
  stage?(body: Buffer, meta: DeliveryMeta): StagedEnqueue | undefined;
  /** Called before the acknowledgement. Today an in-memory hand-off; a durable
   *  journal can make it asynchronous (the 200 then waits for it). A throw or
   *  rejection answers 503 so the bridge retries. */
  enqueue?(delivery: AcceptedDelivery): void | Promise<void>;
  /** Called after the 200 has been written. */
  emit(delivery: AcceptedDelivery): void;
  /** Called for a parsed body that fails the schema (after the 422 or 202). */
  onInvalid?(delivery: InvalidDelivery): void;
  /** Called for every request answered with a 4xx/5xx. */
  onRejected?(answer: Problem, meta: DeliveryMeta): void;
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function cleanHeaders(headers: IncomingHttpHeaders, secret: readonly string[]): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const name of Object.keys(headers)) {
    if (!secret.includes(name)) out[name] = headers[name];
  }
  return out;
}

/** A size for a text: `16 MiB`, `900 bytes`. */
function size(bytes: number): Message {
  return bytes >= MiB ? { key: 'answer.mib', params: { count: +(bytes / MiB).toFixed(2) } } : { key: 'answer.bytes', params: { count: bytes } };
}

/** `payload.messageId` of a body that is not a valid event, when it has a readable one. */
function messageIdOf(value: unknown): string | undefined {
  const id = (value as { payload?: { messageId?: unknown } } | null)?.payload?.messageId;
  return typeof id === 'string' && id.length <= 200 ? id : undefined;
}

export function createReceiver(options: ReceiverOptions, hooks: ReceiverHooks): RequestHandler {
  const secretHeaders = credentialHeaderNames(options.auth);
  const clock = options.clock ?? systemClock;
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  const budget = createByteBudget(options.maxPendingBytes ?? Math.max(DEFAULT_PENDING_BYTES, 4 * options.maxBodyBytes));
  const linger = options.linger ?? DEFAULT_LINGER;
  const retryAfter = String(options.retryAfterSeconds ?? 1);
  const store: ReceiverStore = hooks.store ?? hooks;

  const answer = (kind: ProblemKind, detail: Message, extra?: Record<string, unknown>): Problem =>
    problem(kind, renderMessage(detail, options.translate), extra);

  return async function receive(req, res) {
    const meta: DeliveryMeta = {
      ip: req.socket?.remoteAddress,
      headers: cleanHeaders(req.headers, secretHeaders),
      receivedAt: new Date(clock.now()).toISOString(),
    };
    /** The event's messageId, once the body was read that far: a refusal names it. */
    let messageId: string | undefined;
    // The refusal log first: the status the hook redraws shows this refusal.
    const rejected = (rejection: Problem): void => {
      options.refusals?.record(rejection, meta.ip, messageId);
      hooks.onRejected?.(rejection, meta);
    };
    const reject = (rejection: Problem, headers?: Record<string, string>, close?: boolean): void => {
      sendProblem(res, rejection, { headers, close });
      rejected(rejection);
    };
    /** An answer before the body is read: the rest of the body drains first.
     *  (A body never invited with 100 Continue is not coming: Node closes.) */
    const rejectEarly = (rejection: Problem, headers?: Record<string, string>): void => {
      const invited = !bodyNotInvited(req);
      reject(rejection, headers);
      if (invited) discardRest(req, linger, clock);
    };
    /** 503 with Retry-After: the event cannot be kept now; the bridge keeps it and retries. */
    const unavailable = (detail: Message, early: boolean): void => {
      const headers = { 'Retry-After': retryAfter };
      if (early) rejectEarly(answer('unavailable', detail), headers);
      else reject(answer('unavailable', detail), headers);
    };
    const notQueued = (err: unknown): Message => ({ key: 'answer.unavailable', params: { message: (err as Error).message } });

    if (req.method !== 'POST') {
      rejectEarly(answer('methodNotAllowed', { key: 'answer.method', params: { method: String(req.method) } }), { Allow: 'POST' });
      return;
    }

    // authenticate: headers only, before a byte of the body is read
    const auth = checkAuth(options.auth, req.headers);
    if (!auth.ok) {
      rejectEarly(
        answer('unauthorized', authFailureMessage(options.auth, auth.reason)),
        auth.wwwAuthenticate ? { 'WWW-Authenticate': auth.wwwAuthenticate } : {},
      );
      return;
    }

    const typeProblem = jsonRequestProblem(req.headers);
    if (typeProblem) {
      rejectEarly(answer('unsupportedMediaType', typeProblem));
      return;
    }

    // room for it? (before a byte of the body is read)
    const declared = declaredLength(req);
    try {
      store.admit?.(declared);
    } catch (err) {
      unavailable(notQueued(err), true);
      return;
    }

    // read (inviting the body first when its 100 Continue was held back for
    // this moment, unless its declared size is already too large)
    if (declared === undefined || declared <= options.maxBodyBytes) inviteBody(req, res);
    const read = await readBody(req, { maxBytes: options.maxBodyBytes, stallMs, budget, clock });
    if (!read.ok) {
      switch (read.reason) {
        case 'too-large': {
          const limit = size(options.maxBodyBytes);
          const detail: Message =
            read.declared !== undefined
              ? { key: 'answer.too-large-declared', params: { declared: size(read.declared), limit } }
              : { key: 'answer.too-large', params: { limit } };
          rejectEarly(answer('payloadTooLarge', detail, { limit: options.maxBodyBytes }));
          break;
        }
        case 'busy':
          unavailable({ key: 'answer.busy', params: { limit: size(budget.limit) } }, true);
          break;
        case 'stalled':
          // The sender has stopped: nothing to linger for.
          reject(answer('requestTimeout', { key: 'answer.stalled', params: { seconds: +(stallMs / 1000).toFixed(3) } }), {}, true);
          break;
        case 'aborted':
          rejected(answer('bodyReadFailed', read.message));
          res.destroy();
          break;
        default:
          reject(answer('bodyReadFailed', read.message), {}, true);
      }
      return;
    }

    // check UTF-8, then parse
    let value: unknown;
    let staged: StagedEnqueue | undefined;
    const body = 'body' in read ? read.body : undefined;
    if ('parsed' in read) {
      value = read.parsed;
    } else {
      const badByte = invalidUtf8Offset(read.body);
      if (badByte >= 0) {
        const byte = read.body[badByte].toString(16).toUpperCase().padStart(2, '0');
        reject(answer('invalidUtf8', { key: 'answer.utf8', params: { position: badByte, byte } }, { position: badByte }));
        return;
      }
      try {
        staged = store.stage?.(read.body, meta);
      } catch (err) {
        unavailable(notQueued(err), false);
        return;
      }
      const parsed = parseJsonBody(read.body);
      if (!parsed.ok) {
        staged?.abandon();
        reject(answer('malformedJson', parsed.message, parsed.location ? { ...parsed.location } : undefined));
        return;
      }
      value = parsed.value;
    }

    // validate
    const checked = validateEvent(value, options.validation);
    if (!checked.ok) {
      staged?.abandon();
      messageId = messageIdOf(value);
      if (options.validation === 'accept') {
        sendJson(res, 202, { status: 'accepted-invalid', errors: checked.errors });
        options.refusals?.accepted();
      } else {
        const wrong = checked.wrongCase[0];
        const detail: Message = wrong
          ? { key: 'answer.wrong-case', params: { found: wrong.found, expected: wrong.expected } }
          : { key: 'answer.invalid', params: { count: checked.errors.length } };
        reject(answer('invalidEvent', detail, { errors: checked.errors }));
      }
      hooks.onInvalid?.({ value, errors: checked.errors, meta });
      return;
    }

    // enqueue
    messageId = checked.event.payload.messageId ?? undefined;
    const delivery: AcceptedDelivery = { event: checked.event, body, kind: checked.kind, messageId, warnings: checked.warnings, meta };
    try {
      if (staged) await staged.commit(delivery);
      else await store.enqueue?.(delivery);
    } catch (err) {
      unavailable(notQueued(err), false);
      return;
    }

    // acknowledge at once, then emit: a slow answer makes the bridge retry
    const ack: Record<string, unknown> = { status: 'accepted', messageId: messageId ?? null };
    if (delivery.warnings.length > 0) ack.warnings = delivery.warnings;
    sendJson(res, 200, ack);
    options.refusals?.accepted();
    if (!delivery.absorbed) hooks.emit(delivery);
  };
}
