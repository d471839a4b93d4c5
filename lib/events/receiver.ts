/**
 * The webhook receiver as a plain node:http handler, free of Node-RED.
 *
 * Steps, kept apart so each can change on its own (a durable enqueue, for
 * example): authenticate → read → parse → validate → enqueue → acknowledge → emit.
 * Every rejected request gets a status and an application/problem+json body.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { jsonRequestProblem } from '../http/content-type';
import { parseJsonBody } from '../http/json';
import { problem, sendJson, sendProblem, type Problem, type ProblemKind } from '../http/problem';
import { renderMessage, type Message, type Translate } from '../messages';
import { checkAuth, credentialHeaderNames, type AuthConfig } from './auth';
import { readBody } from './body';
import { checkEvent, kindOf, type DetectionEvent, type EventKind, type SchemaError } from './schemas';

export const MiB = 1024 * 1024;
export const DEFAULT_MAX_BODY_BYTES = 16 * MiB;

export type InvalidEventPolicy = 'reject' | 'accept';

export interface ReceiverOptions {
  auth: AuthConfig;
  maxBodyBytes: number;
  /** reject: answer 422; accept: answer 202. Either way the event is handed to onInvalid. */
  invalidEvents: InvalidEventPolicy;
  /** The language of the problem answers' `detail` (Node-RED's RED._); default en-US. */
  translate?: Translate;
}

/** What the receiver knows about one request, with credentials removed. */
export interface DeliveryMeta {
  ip: string | undefined;
  headers: IncomingHttpHeaders;
  receivedAt: string;
}

export interface AcceptedDelivery {
  event: DetectionEvent;
  kind: EventKind;
  meta: DeliveryMeta;
}

export interface InvalidDelivery {
  /** The body as parsed; not a valid event. */
  value: unknown;
  errors: SchemaError[];
  meta: DeliveryMeta;
}

export interface ReceiverHooks {
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

export function createReceiver(options: ReceiverOptions, hooks: ReceiverHooks): RequestHandler {
  const secretHeaders = credentialHeaderNames(options.auth);

  const answer = (kind: ProblemKind, detail: Message, extra?: Record<string, unknown>): Problem =>
    problem(kind, renderMessage(detail, options.translate), extra);

  return async function receive(req, res) {
    const meta: DeliveryMeta = {
      ip: req.socket?.remoteAddress,
      headers: cleanHeaders(req.headers, secretHeaders),
      receivedAt: new Date().toISOString(),
    };
    const reject = (rejection: Problem, headers?: Record<string, string>, close?: boolean): void => {
      sendProblem(res, rejection, { headers, close });
      hooks.onRejected?.(rejection, meta);
    };

    if (req.method !== 'POST') {
      reject(answer('methodNotAllowed', { key: 'answer.method', params: { method: String(req.method) } }), { Allow: 'POST' }, true);
      return;
    }

    // authenticate: headers only, before a byte of the body is read
    const auth = checkAuth(options.auth, req.headers);
    if (!auth.ok) {
      const detail: Message = { key: auth.reason === 'missing' ? 'answer.auth-missing' : 'answer.auth-mismatch' };
      reject(answer('unauthorized', detail), auth.wwwAuthenticate ? { 'WWW-Authenticate': auth.wwwAuthenticate } : {}, true);
      return;
    }

    const typeProblem = jsonRequestProblem(req.headers);
    if (typeProblem) {
      reject(answer('unsupportedMediaType', typeProblem), {}, true);
      return;
    }

    // read
    const read = await readBody(req, options.maxBodyBytes);
    if (!read.ok) {
      if (read.reason === 'too-large') {
        const limit = size(options.maxBodyBytes);
        const detail: Message =
          read.declared !== undefined
            ? { key: 'answer.too-large-declared', params: { declared: size(read.declared), limit } }
            : { key: 'answer.too-large', params: { limit } };
        reject(answer('payloadTooLarge', detail, { limit: options.maxBodyBytes }), {}, true);
      } else if (read.reason === 'aborted') {
        hooks.onRejected?.(answer('bodyReadFailed', read.message), meta);
        res.destroy();
      } else {
        reject(answer('bodyReadFailed', read.message), {}, true);
      }
      return;
    }

    // parse
    let value: unknown;
    if ('parsed' in read) {
      value = read.parsed;
    } else {
      const parsed = parseJsonBody(read.body);
      if (!parsed.ok) {
        reject(answer('malformedJson', parsed.message, parsed.location ? { ...parsed.location } : undefined));
        return;
      }
      value = parsed.value;
    }

    // validate
    const checked = checkEvent(value);
    if (!checked.ok) {
      if (options.invalidEvents === 'accept') {
        sendJson(res, 202, { status: 'accepted-invalid', errors: checked.errors });
      } else {
        reject(answer('invalidEvent', { key: 'answer.invalid', params: { count: checked.errors.length } }, { errors: checked.errors }));
      }
      hooks.onInvalid?.({ value, errors: checked.errors, meta });
      return;
    }

    // enqueue
    const delivery: AcceptedDelivery = { event: checked.event, kind: kindOf(checked.event), meta };
    try {
      await hooks.enqueue?.(delivery);
    } catch (err) {
      reject(answer('unavailable', { key: 'answer.unavailable', params: { message: (err as Error).message } }), { 'Retry-After': '1' });
      return;
    }

    // acknowledge at once, then emit: a slow answer makes the bridge retry
    sendJson(res, 200, { status: 'accepted', messageId: delivery.event.payload.messageId ?? null });
    hooks.emit(delivery);
  };
}
