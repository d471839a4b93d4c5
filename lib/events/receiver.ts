/**
 * The webhook receiver as a plain node:http handler, free of Node-RED.
 *
 * Steps, kept apart so each can change on its own (a durable enqueue, for
 * example): authenticate → read → parse → validate → enqueue → acknowledge → emit.
 * Every rejected request gets a status and an application/problem+json body.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { checkAuth, credentialHeaderNames, type AuthConfig } from './auth';
import { readBody } from './body';
import { parseJsonBody } from '../http/json';
import { PROBLEM_CONTENT_TYPE, problem, type Problem } from '../http/problem';
import { checkEvent, kindOf, type DetectionEvent, type EventKind, type SchemaError } from './schemas';

export const MiB = 1024 * 1024;
export const DEFAULT_MAX_BODY_BYTES = 16 * MiB;

export type InvalidEventPolicy = 'reject' | 'accept';

export interface ReceiverOptions {
  auth: AuthConfig;
  maxBodyBytes: number;
  /** reject: answer 422; accept: answer 202. Either way the event is handed to onInvalid. */
  invalidEvents: InvalidEventPolicy;
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

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$|^text\/json$/;

/** null when the request may be JSON: no Content-Type, or a JSON type in UTF-8. */
function contentTypeProblem(headers: IncomingHttpHeaders): string | null {
  const encoding = headers['content-encoding'];
  if (encoding && encoding.toLowerCase() !== 'identity') {
    return `Content-Encoding "${encoding}" is not supported; send the body uncompressed`;
  }
  const declared = headers['content-type'];
  if (!declared) return null;
  const [type, ...params] = declared.split(';');
  if (!JSON_TYPE.test(type.trim().toLowerCase())) {
    return `Content-Type "${type.trim()}" is not accepted; send application/json`;
  }
  for (const param of params) {
    const [name, value] = param.split('=').map((s) => s.trim().toLowerCase());
    if (name === 'charset' && value && value.replace(/"/g, '') !== 'utf-8' && value.replace(/"/g, '') !== 'utf8') {
      return `charset "${value}" is not accepted; send UTF-8`;
    }
  }
  return null;
}

function cleanHeaders(headers: IncomingHttpHeaders, secret: readonly string[]): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const name of Object.keys(headers)) {
    if (!secret.includes(name)) out[name] = headers[name];
  }
  return out;
}

/** Writes a problem answer. `close` ends the connection afterwards, for
 *  answers given before the body was read: the rest of it is not wanted. */
function sendProblem(res: ServerResponse, answer: Problem, extraHeaders: Record<string, string> = {}, close = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(answer);
  const headers: Record<string, string | number> = {
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...extraHeaders,
  };
  if (close) headers.Connection = 'close';
  res.writeHead(answer.status, headers);
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  res.end(body);
}

function humanBytes(bytes: number): string {
  return bytes >= MiB ? `${+(bytes / MiB).toFixed(2)} MiB` : `${bytes} bytes`;
}

export function createReceiver(options: ReceiverOptions, hooks: ReceiverHooks): RequestHandler {
  const secretHeaders = credentialHeaderNames(options.auth);

  return async function receive(req, res) {
    const meta: DeliveryMeta = {
      ip: req.socket?.remoteAddress,
      headers: cleanHeaders(req.headers, secretHeaders),
      receivedAt: new Date().toISOString(),
    };
    const reject = (answer: Problem, headers?: Record<string, string>, close?: boolean): void => {
      sendProblem(res, answer, headers, close);
      hooks.onRejected?.(answer, meta);
    };

    if (req.method !== 'POST') {
      reject(problem('methodNotAllowed', `${req.method} is not supported here; the events bridge delivers with POST`), { Allow: 'POST' }, true);
      return;
    }

    // authenticate: headers only, before a byte of the body is read
    const auth = checkAuth(options.auth, req.headers);
    if (!auth.ok) {
      const detail =
        auth.reason === 'missing'
          ? 'credentials are missing; configure the events bridge WebHook with the credentials of this receiver'
          : 'the credentials sent do not match this receiver';
      reject(problem('unauthorized', detail), auth.wwwAuthenticate ? { 'WWW-Authenticate': auth.wwwAuthenticate } : {}, true);
      return;
    }

    const typeProblem = contentTypeProblem(req.headers);
    if (typeProblem) {
      reject(problem('unsupportedMediaType', typeProblem), {}, true);
      return;
    }

    // read
    const read = await readBody(req, options.maxBodyBytes);
    if (!read.ok) {
      if (read.reason === 'too-large') {
        const size = read.declared !== undefined ? `${humanBytes(read.declared)} declared` : 'the body';
        reject(problem('payloadTooLarge', `${size} is over this receiver's limit of ${humanBytes(options.maxBodyBytes)}`, { limit: options.maxBodyBytes }), {}, true);
      } else if (read.reason === 'aborted') {
        hooks.onRejected?.(problem('bodyReadFailed', read.detail), meta);
        res.destroy();
      } else {
        reject(problem('bodyReadFailed', read.detail), {}, true);
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
        reject(problem('malformedJson', parsed.detail, parsed.location ? { ...parsed.location } : undefined));
        return;
      }
      value = parsed.value;
    }

    // validate
    const checked = checkEvent(value);
    if (!checked.ok) {
      const count = checked.errors.length;
      if (options.invalidEvents === 'accept') {
        sendJson(res, 202, { status: 'accepted-invalid', errors: checked.errors });
      } else {
        reject(problem('invalidEvent', `the event does not match the schema (${count} error${count === 1 ? '' : 's'})`, { errors: checked.errors }));
      }
      hooks.onInvalid?.({ value, errors: checked.errors, meta });
      return;
    }

    // enqueue
    const delivery: AcceptedDelivery = { event: checked.event, kind: kindOf(checked.event), meta };
    try {
      await hooks.enqueue?.(delivery);
    } catch (err) {
      reject(problem('unavailable', `the event could not be queued: ${(err as Error).message}`), { 'Retry-After': '1' });
      return;
    }

    // acknowledge at once, then emit: a slow answer makes the bridge retry
    sendJson(res, 200, { status: 'accepted', messageId: delivery.event.payload.messageId ?? null });
    hooks.emit(delivery);
  };
}
