/**
 * The events bridge's WebHooks API: where it is and what its JSON calls
 * things, as options with defaults, because most of it is not documented.
 *
 * Documented (research/econnect.md, section 3): a WebHooks controller with
 * PUT (create or update), GET (one or all) and DELETE; each WebHook named by
 * `hookId`, a GUID that is never the empty GUID, handed out by a `/new`
 * call or made by the partner; an optional `resilient` flag; `webHookFaceRec`
 * and `webHookLpr` choose the kinds delivered. Those four names are fixed.
 * Assumed: the controller path (`/api/v1/webhooks`), the `/new` path
 * (`/api/v1/webhooks/new`) and every other property name (the manual
 * configuration page knows them only as labels in the bridge's UI).
 *
 * Imports nothing at run time and uses nothing a browser lacks, so the
 * editor's dialog can run the same checks. Node-RED-free.
 */
import type { Message } from '../core/messages';

export interface WebhookPaths {
  /** PUT (create or update), GET (all; `<controller>/<hookId>`: one), DELETE `<controller>/<hookId>`. */
  controller: string;
  /** GET: a new hookId. */
  newId: string;
}

/** The WebHook fields whose JSON names are not documented. */
export const WEBHOOK_NAMED_FIELDS = [
  'name',
  'address',
  'allowSelfSigned',
  'basicUser',
  'basicPassword',
  'headerKey',
  'headerValue',
  'eventFilter',
] as const;
export type WebhookNamedField = (typeof WEBHOOK_NAMED_FIELDS)[number];

/** The documented JSON names, not changeable. */
export const WEBHOOK_FIXED_NAMES = { hookId: 'hookId', resilient: 'resilient', face: 'webHookFaceRec', plate: 'webHookLpr' } as const;

export const DEFAULT_WEBHOOK_PATHS: Readonly<WebhookPaths> = { controller: '/api/v1/webhooks', newId: '/api/v1/webhooks/new' };

/** Assumed names: the UI labels in the camelCase the documented names use. */
export const DEFAULT_WEBHOOK_NAMES: Readonly<Record<WebhookNamedField, string>> = {
  name: 'name',
  address: 'url',
  allowSelfSigned: 'allowSelfSigned',
  basicUser: 'basicUsername',
  basicPassword: 'basicPassword',
  headerKey: 'headerKey',
  headerValue: 'headerValue',
  eventFilter: 'eventFilter',
};

export interface WebhookApi {
  paths: WebhookPaths;
  names: Record<WebhookNamedField, string>;
}

export interface WebhookApiOptions {
  paths?: Partial<WebhookPaths>;
  names?: Partial<Record<WebhookNamedField, string>>;
}

/** A WebHook as a flow describes it. */
export interface WebhookSpec {
  hookId: string;
  name: string;
  /** The receiver's full URL. */
  address: string;
  allowSelfSigned: boolean;
  basic?: { user: string; password: string };
  header?: { key: string; value: string };
  resilient: boolean;
  /** Face events (`webHookFaceRec`). */
  face: boolean;
  /** Plate events (`webHookLpr`). */
  plate: boolean;
  /** Its values are not documented: sent as given. */
  eventFilter?: unknown;
}

/** A WebHook as the bridge answered it: what is missing is undefined, what is unknown is in `extra`. */
export interface WebhookRead {
  hookId: string;
  name?: string;
  address?: string;
  allowSelfSigned?: boolean;
  basic?: { user?: string; password?: string };
  header?: { key?: string; value?: string };
  resilient?: boolean;
  face?: boolean;
  plate?: boolean;
  eventFilter?: unknown;
  extra: Record<string, unknown>;
}

/** A problem with one option (`paths.controller`, `names.address`, …) or one spec field (`hookId`, …). */
export interface WebhookProblem extends Message {
  option: string;
}

const at = (option: string, key: string, params?: Message['params']): WebhookProblem => ({ option, key, params });

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const EMPTY_GUID = '00000000-0000-0000-0000-000000000000';

/** A hookId in the form .NET writes it (lower case, no braces), or undefined when it is no GUID or the empty one. */
export function normalizeHookId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const id = value
    .trim()
    .replace(/^\{(.*)\}$/, '$1')
    .toLowerCase();
  return GUID.test(id) && id !== EMPTY_GUID ? id : undefined;
}

/** What is wrong with a path, or undefined; the texts are enroll-api's (same rules). */
function pathProblem(path: string): string | undefined {
  if (!path) return 'enroll.path.empty';
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) return 'enroll.path.absolute';
  if (/[?#\s{}]/.test(path)) return 'enroll.path.query';
  return undefined;
}

/** The API layout from options (a config node's dialog), defaults for what is not given. */
export function resolveWebhookApi(options: WebhookApiOptions = {}): { ok: true; api: WebhookApi } | { ok: false; problems: WebhookProblem[] } {
  const problems: WebhookProblem[] = [];
  const paths = {} as WebhookPaths;
  for (const which of ['controller', 'newId'] as const) {
    const path = String(options.paths?.[which] ?? '').trim() || DEFAULT_WEBHOOK_PATHS[which];
    const bad = pathProblem(path);
    if (bad) problems.push(at(`paths.${which}`, bad, { path }));
    paths[which] = path.replace(/(.)\/+$/, '$1');
  }
  // a name not given is its default; one given empty is a problem (a body with "" for a name is never meant)
  const names = {} as Record<WebhookNamedField, string>;
  const owner = new Map<string, string>(Object.entries(WEBHOOK_FIXED_NAMES).map(([field, name]) => [name, field]));
  for (const field of WEBHOOK_NAMED_FIELDS) {
    const given = options.names?.[field];
    const name = given === undefined || given === null ? DEFAULT_WEBHOOK_NAMES[field] : String(given).trim();
    names[field] = name;
    if (!name) {
      problems.push(at(`names.${field}`, 'webhook.name.empty'));
      continue;
    }
    if (/\s/.test(name)) problems.push(at(`names.${field}`, 'webhook.name.space', { name }));
    const other = owner.get(name);
    if (other) problems.push(at(`names.${field}`, 'webhook.name.same', { name, other }));
    else owner.set(name, field);
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, api: { paths, names } };
}

/** `<controller>/<hookId>`. */
export function webhookPath(api: WebhookApi, hookId: string): string {
  return `${api.paths.controller}/${encodeURIComponent(hookId)}`;
}

/** The JSON body of a WebHook, or what is wrong with the spec. */
export function webhookBody(
  api: WebhookApi,
  spec: WebhookSpec,
): { ok: true; body: Record<string, unknown> } | { ok: false; problems: WebhookProblem[] } {
  const problems: WebhookProblem[] = [];
  const hookId = normalizeHookId(spec.hookId);
  if (!hookId) problems.push(at('hookId', 'webhook.spec.hook-id', { value: String(spec.hookId ?? '') }));
  const name = String(spec.name ?? '').trim();
  if (!name) problems.push(at('name', 'webhook.spec.name'));
  const address = String(spec.address ?? '').trim();
  if (!/^https?:\/\/[^/?#\s]+/i.test(address)) problems.push(at('address', 'webhook.spec.address', { value: address }));
  for (const flag of ['allowSelfSigned', 'resilient', 'face', 'plate'] as const) {
    if (typeof spec[flag] !== 'boolean') problems.push(at(flag, 'webhook.spec.flag', { field: flag }));
  }
  if (spec.face === false && spec.plate === false) problems.push(at('face', 'webhook.spec.no-kind'));
  if (spec.basic && !String(spec.basic.user ?? '').trim()) problems.push(at('basic', 'webhook.spec.basic-user'));
  if (spec.header && !String(spec.header.key ?? '').trim()) problems.push(at('header', 'webhook.spec.header-key'));
  if (problems.length) return { ok: false, problems };
  const n = api.names;
  const body: Record<string, unknown> = {
    [WEBHOOK_FIXED_NAMES.hookId]: hookId,
    [n.name]: name,
    [n.address]: address,
    [n.allowSelfSigned]: spec.allowSelfSigned,
  };
  if (spec.basic) Object.assign(body, { [n.basicUser]: spec.basic.user.trim(), [n.basicPassword]: String(spec.basic.password ?? '') });
  if (spec.header) Object.assign(body, { [n.headerKey]: spec.header.key.trim(), [n.headerValue]: String(spec.header.value ?? '') });
  Object.assign(body, {
    [WEBHOOK_FIXED_NAMES.resilient]: spec.resilient,
    [WEBHOOK_FIXED_NAMES.face]: spec.face,
    [WEBHOOK_FIXED_NAMES.plate]: spec.plate,
  });
  if (spec.eventFilter !== undefined) body[n.eventFilter] = spec.eventFilter;
  return { ok: true, body };
}

/**
 * A WebHook from the bridge's answer, leniently: a property is found by its
 * name or, failing that, by the name in another case (a .NET service may
 * answer `HookId`); a value of the wrong type counts as missing. Only a
 * missing or unusable hookId makes it unreadable.
 */
export function readWebhook(api: WebhookApi, value: unknown): { ok: true; webhook: WebhookRead } | { ok: false; key: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, key: 'webhook.answer.not-object' };
  const record = value as Record<string, unknown>;
  const used = new Set<string>();
  const take = (name: string): unknown => {
    const key = name in record ? name : Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
    if (key === undefined) return undefined;
    used.add(key);
    return record[key];
  };
  const text = (name: string): string | undefined => {
    const v = take(name);
    return typeof v === 'string' ? v : undefined;
  };
  const flag = (name: string): boolean | undefined => {
    const v = take(name);
    return typeof v === 'boolean' ? v : undefined;
  };
  const hookId = normalizeHookId(take(WEBHOOK_FIXED_NAMES.hookId));
  if (!hookId) return { ok: false, key: 'webhook.answer.hook-id' };
  const n = api.names;
  const user = text(n.basicUser);
  const password = text(n.basicPassword);
  const key = text(n.headerKey);
  const headerValue = text(n.headerValue);
  const webhook: WebhookRead = {
    hookId,
    name: text(n.name),
    address: text(n.address),
    allowSelfSigned: flag(n.allowSelfSigned),
    basic: user !== undefined || password !== undefined ? { user, password } : undefined,
    header: key !== undefined || headerValue !== undefined ? { key, value: headerValue } : undefined,
    resilient: flag(WEBHOOK_FIXED_NAMES.resilient),
    face: flag(WEBHOOK_FIXED_NAMES.face),
    plate: flag(WEBHOOK_FIXED_NAMES.plate),
    eventFilter: take(n.eventFilter) ?? undefined,
    extra: {},
  };
  for (const [k, v] of Object.entries(record)) if (!used.has(k)) webhook.extra[k] = v;
  return { ok: true, webhook };
}
