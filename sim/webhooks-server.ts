/**
 * The events bridge's WebHooks controller, simulated in memory behind the
 * enrollment endpoints' JWT (issue 44):
 *
 *   PUT    {base}/api/v1/webhooks            create or update the WebHook in the body (by its hookId)
 *   GET    {base}/api/v1/webhooks            every WebHook, oldest first
 *   GET    {base}/api/v1/webhooks/new        {"hookId": a fresh GUID}
 *   GET    {base}/api/v1/webhooks/{hookId}   one WebHook, 404 when none
 *   DELETE {base}/api/v1/webhooks/{hookId}   removes it, 404 when none
 *
 * The real bridge documents the operations, `hookId`, `resilient`,
 * `webHookFaceRec` and `webHookLpr`, but not the paths or the other JSON
 * names: these are the package's assumed defaults, the same as
 * lib/bridge/webhook-api.ts. Refusals are 400 with a problem body and a
 * `reason`, as the enrollment endpoints answer. The store tells its
 * listeners of every change (`change`), for the delivery (webhook-delivery.ts)
 * and tests. Node-RED-free.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import { z } from 'zod';
import { problem, sendJson, sendProblem } from '../lib/http';
import { createSimJwt } from './enroll-server';

export const WEBHOOKS_PATH = '/api/v1/webhooks';
export const WEBHOOKS_NEW_PATH = `${WEBHOOKS_PATH}/new`;
export const EMPTY_GUID = '00000000-0000-0000-0000-000000000000';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const KEEP_REQUESTS = 200;

const httpUrl = z.string().refine((text) => {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
  } catch {
    return false;
  }
}, 'an absolute http:// or https:// URL without credentials in it');

/** A WebHook as PUT sends it; unknown properties are dropped. */
export const SimWebHookSchema = z
  .object({
    hookId: z
      .string()
      .regex(GUID, 'a GUID such as GET /api/v1/webhooks/new hands out')
      .refine((id) => id !== EMPTY_GUID, 'the empty GUID is not a WebHook id: ask GET /api/v1/webhooks/new for one'),
    name: z.string().max(200).optional(),
    url: httpUrl,
    allowSelfSigned: z.boolean().default(false),
    basicUsername: z.string().optional(),
    basicPassword: z.string().optional(),
    headerKey: z.string().regex(HEADER_NAME, 'an HTTP header name').optional(),
    headerValue: z.string().optional(),
    // Undocumented on the bridge: kept as sent, applied by nobody here.
    eventFilter: z.unknown().optional(),
    resilient: z.boolean().default(false),
    webHookFaceRec: z.boolean().default(false),
    webHookLpr: z.boolean().default(false),
  })
  .superRefine((hook, ctx) => {
    if (!hook.webHookFaceRec && !hook.webHookLpr)
      ctx.addIssue({ code: 'custom', path: ['webHookFaceRec'], message: 'no kind chosen: set webHookFaceRec, webHookLpr or both to true' });
    if (hook.headerValue !== undefined && !hook.headerKey)
      ctx.addIssue({ code: 'custom', path: ['headerKey'], message: 'headerValue needs the headerKey it goes under' });
    if (hook.basicPassword !== undefined && !hook.basicUsername)
      ctx.addIssue({ code: 'custom', path: ['basicUsername'], message: 'basicPassword needs a basicUsername' });
  });

export type SimWebHook = z.output<typeof SimWebHookSchema>;

/** A WebHook as kept: who registered it, and when. */
export interface StoredWebHook extends SimWebHook {
  createdAt: string;
  updatedAt: string;
}

export interface WebHookChange {
  action: 'created' | 'updated' | 'deleted';
  hook: StoredWebHook;
}

export interface WebHookRequest {
  method: string;
  path: string;
  status: number;
}

export interface WebHookStoreOptions {
  /** The JWT calls must carry, or where to read it (share the enrollment store's: `() => enrollments.token`). Default: a new one. */
  token?: string | (() => string);
  /** Default 1000; more answers 400. */
  maxWebHooks?: number;
  /** Largest request body. Default 64 KiB. */
  maxBodyBytes?: number;
}

function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > max ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export class WebHookStore extends EventEmitter<{ change: [WebHookChange] }> {
  /** The last calls (at most 200), newest last; and how many there were. */
  readonly requests: WebHookRequest[] = [];
  requestCount = 0;
  private readonly tokenOf: () => string;
  private readonly maxWebHooks: number;
  private readonly maxBodyBytes: number;
  private readonly hooks = new Map<string, StoredWebHook>();

  constructor(options: WebHookStoreOptions = {}) {
    super();
    const given = options.token ?? createSimJwt();
    this.tokenOf = typeof given === 'function' ? given : () => given;
    this.maxWebHooks = options.maxWebHooks ?? 1000;
    this.maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  }

  get token(): string {
    return this.tokenOf();
  }

  /** Every WebHook, oldest first. */
  list(): StoredWebHook[] {
    return [...this.hooks.values()];
  }

  get(hookId: string): StoredWebHook | undefined {
    return this.hooks.get(hookId.toLowerCase());
  }

  /** Creates or replaces (what PUT does, without the checks of the body's form). */
  put(hook: SimWebHook): StoredWebHook {
    const key = hook.hookId.toLowerCase();
    const before = this.hooks.get(key);
    const now = new Date().toISOString();
    const stored: StoredWebHook = { ...hook, createdAt: before?.createdAt ?? now, updatedAt: now };
    this.hooks.set(key, stored);
    this.emit('change', { action: before ? 'updated' : 'created', hook: stored });
    return stored;
  }

  delete(hookId: string): boolean {
    const hook = this.hooks.get(hookId.toLowerCase());
    if (!hook) return false;
    this.hooks.delete(hookId.toLowerCase());
    this.emit('change', { action: 'deleted', hook });
    return true;
  }

  clear(): void {
    for (const hook of this.list()) this.delete(hook.hookId);
  }

  /** Answers a request below {base} when `local` (its path without the base) is the controller's; false for any other path. */
  handle(req: http.IncomingMessage, res: http.ServerResponse, local: string): boolean {
    if (local !== WEBHOOKS_PATH && !local.startsWith(`${WEBHOOKS_PATH}/`)) return false;
    const method = (req.method ?? 'GET').toUpperCase();
    const record: WebHookRequest = { method, path: local, status: 0 };
    this.requestCount++;
    this.requests.push(record);
    if (this.requests.length > KEEP_REQUESTS) this.requests.splice(0, this.requests.length - KEEP_REQUESTS);
    res.once('finish', () => (record.status = res.statusCode));
    this.answer(req, res, method, local).catch((err: unknown) => {
      if (!res.headersSent) sendProblem(res, problem('internal', (err as Error)?.message ?? String(err)));
      else res.destroy();
    });
    return true;
  }

  private refuse(res: http.ServerResponse, reason: string): void {
    sendProblem(res, problem('badRequest', reason, { reason }));
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse, method: string, local: string): Promise<void> {
    const auth = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!auth || auth[1] !== this.token) {
      const detail = auth
        ? 'the token is not valid: it has expired or this bridge did not issue it'
        : 'this endpoint requires a JWT: send "Authorization: Bearer <token>"';
      sendProblem(res, problem('unauthorized', detail, { reason: detail }), { headers: { 'www-authenticate': 'Bearer realm="events-bridge"' } });
      return;
    }
    const rest = local.slice(WEBHOOKS_PATH.length).replace(/^\//, '');
    const id = rest === '' ? undefined : decodeURIComponent(rest);
    const allowed = id === undefined ? ['GET', 'PUT'] : id === 'new' ? ['GET'] : ['GET', 'DELETE'];
    if (!allowed.includes(method) || (id !== undefined && id.includes('/'))) {
      const detail = id?.includes('/') ? `nothing at ${local}` : `${local} answers ${allowed.join(', ')}`;
      if (id?.includes('/')) sendProblem(res, problem('notFound', detail));
      else sendProblem(res, problem('methodNotAllowed', detail), { headers: { allow: allowed.join(', ') } });
      return;
    }
    if (id === 'new') return sendJson(res, 200, { hookId: randomUUID() });
    if (id === undefined && method === 'GET') return sendJson(res, 200, this.list());
    if (id !== undefined) {
      if (!GUID.test(id)) return this.refuse(res, `"${id}" is not a WebHook id (a GUID)`);
      const hook = this.get(id);
      if (!hook) {
        const detail = `no WebHook ${id}`;
        return sendProblem(res, problem('notFound', detail, { reason: detail }));
      }
      if (method === 'DELETE') this.delete(id);
      return sendJson(res, 200, method === 'DELETE' ? {} : hook);
    }
    const raw = await readBody(req, this.maxBodyBytes);
    if (raw === 'too-large') return this.refuse(res, `the body is larger than ${this.maxBodyBytes} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return this.refuse(res, 'the body is not JSON');
    }
    const parsed = SimWebHookSchema.safeParse(body);
    if (!parsed.success) {
      const reason = `not a WebHook: ${parsed.error.issues.map((i) => `${i.path.map(String).join('.') || 'body'}: ${i.message}`).join('; ')}`;
      return this.refuse(res, reason);
    }
    if (!this.get(parsed.data.hookId) && this.hooks.size >= this.maxWebHooks)
      return this.refuse(res, `the simulator holds at most ${this.maxWebHooks} WebHooks`);
    sendJson(res, 200, this.put(parsed.data));
  }
}
