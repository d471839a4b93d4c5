/**
 * The events bridge's enrollment endpoints, simulated in memory behind a JWT
 * (research/econnect.md, section 2), for `detection-bridge-sim serve`, the
 * tests and `npm start`:
 *
 *   PUT    {base}/api/v1/lpr/monitor/{externalId}     enroll a plate (plate, monitorReason, tags, additionalFields)
 *   DELETE {base}/api/v1/lpr/monitor/{externalId}     unenroll
 *   GET    {base}/api/v1/lpr/monitor/{externalId}     {"enrolled": true|false}
 *   GET    {base}/api/v1/lpr/monitored                [{externalId, enrolled, expected}]
 *   … and the same under /api/v1/faces/ (the photo as base64 under `faceImage`).
 *
 * Every call needs `Authorization: Bearer <the store's JWT>`, else 401.
 * Answers are those documented: 200, 401, or 500 with a reason (a body that
 * is not an enrollment, unenrolling what is not enrolled). The list pages
 * when asked with `page` (from 1) and `pageSize`: the real bridge documents
 * no paging, so this is the simulator's own, for trying the node's paging.
 *
 * The store is what a simulated delivery draws enrolled plates and faces
 * from (delivery-options.ts `enrollments`). Node-RED-free.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { problem, sendJson, sendProblem } from '../lib/http';
import { DEFAULT_PHOTO_FIELD, FaceEnrollment, PlateEnrollment, type AdditionalFieldItem, type EnrollKind } from '../lib/bridge';

/** One enrolled plate or face, as the simulator keeps it. */
export interface SimEnrollment {
  kind: EnrollKind;
  externalId: string;
  /** Plates. */
  plate?: string;
  /** Faces: the photo, base64. */
  photo?: string;
  firstName?: string;
  middleName?: string;
  lastName?: string;
  monitorReason?: string;
  tags: string[];
  additionalFields: AdditionalFieldItem[];
  enrolledAt: string;
}

/** What the next calls answer instead (tests): a status with a reason, or a stall first. */
export interface EnrollFailure {
  /** Default 500. */
  status?: number;
  reason?: string;
  /** Wait this long before answering (normally, when no status is given). */
  stallMs?: number;
}

export interface EnrollRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
}

export interface EnrollmentStoreOptions {
  /** The JWT calls must carry. Default: a new one (see `token`). */
  token?: string;
  /** The face body's photo property. Default `faceImage`. */
  photoField?: string;
  /** Default 100000 per kind; more answers 500. */
  maxEnrollments?: number;
  /** Largest request body. Default 20 MiB (photos). */
  maxBodyBytes?: number;
}

const KIND_SEGMENT: Record<string, EnrollKind> = { lpr: 'lpr', faces: 'face' };
const MONITOR = /^\/api\/v1\/(lpr|faces)\/monitor\/([^/]+)$/;
const MONITORED = /^\/api\/v1\/(lpr|faces)\/monitored$/;
const KEEP_REQUESTS = 200;

/** A fresh JWT-shaped token (HS256 over a random key: nothing else can verify it). */
export function createSimJwt(subject = 'integrator'): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const head = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: subject, iat: Math.floor(Date.now() / 1000), jti: randomUUID() })}`;
  return `${head}.${createHmac('sha256', randomBytes(32)).update(head).digest('base64url')}`;
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

/** zod issues as one reason line. */
function issuesText(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues.map((i) => `${i.path.map(String).join('.') || 'body'}: ${i.message}`).join('; ');
}

export class EnrollmentStore {
  /** The JWT the endpoints accept; printed by `serve`. */
  token: string;
  readonly photoField: string;
  /** The last calls (at most 200), newest last; and how many there were. */
  readonly requests: EnrollRequest[] = [];
  requestCount = 0;
  private readonly maxEnrollments: number;
  private readonly maxBodyBytes: number;
  private readonly items: Record<EnrollKind, Map<string, SimEnrollment>> = { lpr: new Map(), face: new Map() };
  private failures?: { left: number; failure: EnrollFailure };

  constructor(options: EnrollmentStoreOptions = {}) {
    this.token = options.token ?? createSimJwt();
    this.photoField = options.photoField ?? DEFAULT_PHOTO_FIELD;
    this.maxEnrollments = options.maxEnrollments ?? 100_000;
    this.maxBodyBytes = options.maxBodyBytes ?? 20 * 1024 * 1024;
  }

  /** The enrolled items of a kind, oldest first. */
  list(kind: EnrollKind): SimEnrollment[] {
    return [...this.items[kind].values()];
  }

  count(kind: EnrollKind): number {
    return this.items[kind].size;
  }

  get(kind: EnrollKind, externalId: string): SimEnrollment | undefined {
    return this.items[kind].get(externalId);
  }

  /** True when some enrolled plate reads `plate`. */
  plateEnrolled(plate: string): boolean {
    for (const item of this.items.lpr.values()) if (item.plate === plate) return true;
    return false;
  }

  /** Adds or replaces an enrollment (what PUT does). */
  put(item: Omit<SimEnrollment, 'enrolledAt'> & { enrolledAt?: string }): void {
    this.items[item.kind].set(item.externalId, { ...item, enrolledAt: item.enrolledAt ?? new Date().toISOString() });
  }

  delete(kind: EnrollKind, externalId: string): boolean {
    return this.items[kind].delete(externalId);
  }

  clear(): void {
    this.items.lpr.clear();
    this.items.face.clear();
  }

  /** A new JWT: the old one gets 401 from now on. */
  rotateToken(): string {
    this.token = createSimJwt();
    return this.token;
  }

  /** The next `n` calls answer `failure` instead. */
  failNext(n: number, failure: EnrollFailure = {}): void {
    this.failures = n > 0 ? { left: n, failure } : undefined;
  }

  /**
   * Answers a request below {base} when its path (`local`, without the base)
   * is an enrollment endpoint; returns false for any other path.
   */
  handle(req: http.IncomingMessage, res: http.ServerResponse, local: string): boolean {
    const monitor = MONITOR.exec(local);
    const monitored = monitor ? null : MONITORED.exec(local);
    if (!monitor && !monitored) return false;
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    const record: EnrollRequest = { method, path: local, query: Object.fromEntries(url.searchParams), status: 0 };
    this.requestCount++;
    this.requests.push(record);
    if (this.requests.length > KEEP_REQUESTS) this.requests.splice(0, this.requests.length - KEEP_REQUESTS);
    res.once('finish', () => (record.status = res.statusCode));
    const kind = KIND_SEGMENT[(monitor ?? monitored)![1]];
    this.answer(req, res, method, kind, monitor ? decodeURIComponent(monitor[2]) : undefined, url.searchParams).catch((err: unknown) => {
      if (!res.headersSent) this.fail(res, (err as Error)?.message ?? String(err));
      else res.destroy();
    });
    return true;
  }

  private fail(res: http.ServerResponse, reason: string, status = 500): void {
    // The bridge documents "500 with a reason"; the simulator says it as a problem body with `reason` too.
    const kind = status === 500 ? 'internal' : status === 401 ? 'unauthorized' : undefined;
    const body = kind ? problem(kind, reason, { reason }) : { type: 'about:blank', title: 'Error', status, detail: reason, reason };
    sendProblem(res, body);
  }

  private async answer(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    method: string,
    kind: EnrollKind,
    externalId: string | undefined,
    query: URLSearchParams,
  ): Promise<void> {
    const auth = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!auth || auth[1] !== this.token) {
      const detail = auth
        ? 'the token is not valid: it has expired or this bridge did not issue it'
        : 'this endpoint requires a JWT: send "Authorization: Bearer <token>"';
      sendProblem(res, problem('unauthorized', detail, { reason: detail }), { headers: { 'www-authenticate': 'Bearer realm="events-bridge"' } });
      return;
    }
    const allowed = externalId === undefined ? ['GET'] : ['PUT', 'DELETE', 'GET'];
    if (!allowed.includes(method)) {
      sendProblem(res, problem('methodNotAllowed', `use ${allowed.join(', ')}`), { headers: { allow: allowed.join(', ') } });
      return;
    }
    const raw = method === 'PUT' ? await readBody(req, this.maxBodyBytes) : undefined;
    const injected = this.takeFailure();
    if (injected?.stallMs) await new Promise((resolve) => setTimeout(resolve, injected.stallMs).unref());
    if (res.destroyed) return;
    if (injected && (injected.status !== undefined || !injected.stallMs)) {
      this.fail(res, injected.reason ?? 'failure injected by the simulator', injected.status ?? 500);
      return;
    }
    const items = this.items[kind];
    if (externalId === undefined) {
      sendJson(res, 200, this.page(kind, query));
      return;
    }
    if (method === 'GET') {
      sendJson(res, 200, { enrolled: items.has(externalId) });
      return;
    }
    if (method === 'DELETE') {
      if (!items.delete(externalId)) return this.fail(res, `${externalId} is not enrolled`);
      sendJson(res, 200, {});
      return;
    }
    if (raw === 'too-large') return this.fail(res, `the body is larger than ${this.maxBodyBytes} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(raw!.toString('utf8'));
    } catch {
      return this.fail(res, 'the body is not JSON');
    }
    if (!items.has(externalId) && items.size >= this.maxEnrollments)
      return this.fail(res, `the simulator holds at most ${this.maxEnrollments} enrollments`);
    const stored = kind === 'lpr' ? this.plateOf(body) : this.faceOf(body);
    if (typeof stored === 'string') return this.fail(res, stored);
    this.put({ kind, externalId, ...stored });
    sendJson(res, 200, {});
  }

  private plateOf(body: unknown): Omit<SimEnrollment, 'kind' | 'externalId' | 'enrolledAt'> | string {
    const parsed = PlateEnrollment.safeParse(body);
    if (!parsed.success) return `not a plate enrollment: ${issuesText(parsed.error.issues)}`;
    const { tags, additionalFields, ...rest } = parsed.data;
    return { ...rest, tags: (tags ?? []).map((t) => t.tagName), additionalFields: additionalFields ?? [] };
  }

  private faceOf(body: unknown): Omit<SimEnrollment, 'kind' | 'externalId' | 'enrolledAt'> | string {
    const given = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const { [this.photoField]: photo, ...rest } = given;
    if (photo === undefined) return `not a face enrollment: ${this.photoField} is required (the photo, base64)`;
    const parsed = FaceEnrollment.safeParse({ ...rest, photo });
    if (!parsed.success) return `not a face enrollment: ${issuesText(parsed.error.issues).replace(/^photo/, this.photoField)}`;
    const { tags, additionalFields, ...fields } = parsed.data;
    return { ...fields, tags: (tags ?? []).map((t) => t.tagName), additionalFields: additionalFields ?? [] };
  }

  /** The list, or one page of it with `page` (from 1) and `pageSize`. */
  private page(kind: EnrollKind, query: URLSearchParams): Array<{ externalId: string; enrolled: boolean; expected: boolean }> {
    let list = [...this.items[kind].keys()];
    const page = Number(query.get('page'));
    const size = Number(query.get('pageSize'));
    if (Number.isInteger(page) && page >= 1 && Number.isInteger(size) && size >= 1) list = list.slice((page - 1) * size, page * size);
    // What `expected` means is not documented; the simulator says true for what it holds.
    return list.map((externalId) => ({ externalId, enrolled: true, expected: true }));
  }

  private takeFailure(): EnrollFailure | undefined {
    const f = this.failures;
    if (!f || f.left <= 0) return undefined;
    f.left--;
    if (f.left <= 0) this.failures = undefined;
    return f.failure;
  }
}
