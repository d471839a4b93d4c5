/**
 * The events bridge's WebHooks, registered over EventsBridgeClient's calls
 * (its base URL, JWT, TLS, timeout and queue), on the layout of
 * webhook-api.ts. Failures are the client's TransportErrors (ERR_ENROLL_*,
 * whose texts speak of the events bridge node and its JWT): unreachable,
 * 401 (renew the JWT), a refused body with the bridge's reason, an answer
 * that is not what was asked for. A spec that cannot be sent is a
 * MessageError before anything is sent. Node-RED-free.
 */
import { z } from 'zod';
import { MessageError } from '../core/messages';
import { TransportError } from '../http';
import type { BridgeAnswer, CallOptions, EventsBridgeClient } from './client';
import {
  normalizeHookId,
  readWebhook,
  resolveWebhookApi,
  webhookBody,
  webhookPath,
  type WebhookApi,
  type WebhookApiOptions,
  type WebhookRead,
  type WebhookSpec,
} from './webhook-api';

/** GET {new-id path}: a bare GUID (as text or a JSON string), or an object holding it as `hookId`. */
const NewIdAnswer = z.union([z.string(), z.looseObject({ hookId: z.string() })]);

export interface PutAnswer extends BridgeAnswer {
  hookId: string;
}

export interface DeleteAnswer {
  /** False: the bridge had no such WebHook (404), so it is gone all the same. */
  deleted: boolean;
  url: string;
}

export class WebhookClient {
  readonly api: WebhookApi;

  /** Throws a TransportError (ERR_ENROLL_PATH) on a layout that cannot work, as the client does for enrollment. */
  constructor(
    private readonly bridge: EventsBridgeClient,
    options?: WebhookApiOptions,
  ) {
    const api = resolveWebhookApi(options);
    if (!api.ok) {
      const [first] = api.problems;
      throw new TransportError('enroll', 'path', { path: first.option, detail: { key: first.key, params: first.params } });
    }
    this.api = api.api;
  }

  /** GET {new-id path}: a hookId the bridge hands out. */
  async newHookId(options: CallOptions = {}): Promise<string> {
    const answer = await this.bridge.request('GET', this.api.paths.newId, options);
    const parsed = NewIdAnswer.safeParse(answer.body);
    const id = parsed.success ? normalizeHookId(typeof parsed.data === 'string' ? parsed.data : parsed.data.hookId) : undefined;
    if (!id) throw this.bridge.answerError(answer, 'webhook.answer.new-id', answer.body);
    return id;
  }

  /** PUT {controller}: creates the WebHook, or updates the one with its hookId. */
  async putWebhook(spec: WebhookSpec, options: CallOptions = {}): Promise<PutAnswer> {
    const built = webhookBody(this.api, spec);
    if (!built.ok) {
      const [first] = built.problems;
      throw new MessageError(first.key, { option: first.option, ...first.params });
    }
    const answer = await this.bridge.request('PUT', this.api.paths.controller, { ...options, body: JSON.stringify(built.body) });
    return { ...answer, hookId: built.body.hookId as string };
  }

  /** GET {controller}/{hookId}; undefined when the bridge has none (404, or an empty answer). */
  async getWebhook(hookId: string, options: CallOptions = {}): Promise<WebhookRead | undefined> {
    const answer = await this.notFoundIsUndefined(this.bridge.request('GET', webhookPath(this.api, this.hookId(hookId)), options));
    if (!answer || answer.body === null) return undefined;
    const read = readWebhook(this.api, answer.body);
    if (!read.ok) throw this.bridge.answerError(answer, read.key, this.redacted(answer.body));
    return read.webhook;
  }

  /** GET {controller}: every WebHook (a JSON array, or one under items/data/results/value). */
  async listWebhooks(options: CallOptions = {}): Promise<WebhookRead[]> {
    const answer = await this.bridge.request('GET', this.api.paths.controller, options);
    const body = answer.body as Record<string, unknown> | unknown[] | null;
    const list = Array.isArray(body)
      ? body
      : body && typeof body === 'object'
        ? [body.items, body.data, body.results, body.value].find((v): v is unknown[] => Array.isArray(v))
        : undefined;
    if (!list) throw this.bridge.answerError(answer, 'webhook.answer.not-list', this.redacted(body));
    return list.map((item, index) => {
      const read = readWebhook(this.api, item);
      if (!read.ok) throw this.bridge.answerError(answer, read.key, this.redacted(item), { index: index + 1 });
      return read.webhook;
    });
  }

  /** DELETE {controller}/{hookId}; a 404 is no failure: the WebHook is gone either way. */
  async deleteWebhook(hookId: string, options: CallOptions = {}): Promise<DeleteAnswer> {
    const path = webhookPath(this.api, this.hookId(hookId));
    const answer = await this.notFoundIsUndefined(this.bridge.request('DELETE', path, options));
    return answer ? { deleted: true, url: answer.url } : { deleted: false, url: `${this.bridge.base.display}${path}` };
  }

  // -- internals ------------------------------------------------------------

  /** A checked hookId, before anything is sent: a wrong one would address another path. */
  private hookId(value: string): string {
    const id = normalizeHookId(value);
    if (!id) throw new MessageError('webhook.spec.hook-id', { option: 'hookId', value: String(value ?? '') });
    return id;
  }

  private async notFoundIsUndefined(call: Promise<BridgeAnswer>): Promise<BridgeAnswer | undefined> {
    try {
      return await call;
    } catch (err) {
      if (err instanceof TransportError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** An answer to quote in an error, without the receiver's password and header value. */
  private redacted(value: unknown): unknown {
    const hide = (item: unknown): unknown => {
      if (!item || typeof item !== 'object' || Array.isArray(item)) return item;
      const copy: Record<string, unknown> = { ...(item as Record<string, unknown>) };
      for (const name of [this.api.names.basicPassword, this.api.names.headerValue]) {
        for (const key of Object.keys(copy)) if (key.toLowerCase() === name.toLowerCase()) copy[key] = '***';
      }
      return copy;
    };
    return Array.isArray(value) ? value.map(hide) : hide(value);
  }
}
