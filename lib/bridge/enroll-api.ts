/**
 * Where the enrollment endpoints are and how they page: the documented paths
 * as defaults, every one of them changeable, because parts are inferred.
 *
 * Documented (research/econnect.md, section 2): PUT/DELETE/GET
 * `/api/v1/lpr/monitor/{externalId}` (enroll, unenroll, check) and GET
 * `/api/v1/lpr/monitored` (list); DELETE and GET `/api/v1/faces/monitor/{externalId}`
 * and GET `/api/v1/faces/monitored`. Inferred: PUT on the face monitor path
 * (by analogy), the face photo's property name (`faceImage`, as the
 * Identities API names a face image), and any paging: the list shows no
 * paging parameters, so paging is off unless a query is given, such as
 * `page={page}&pageSize={size}`. Node-RED-free.
 */
import type { Message } from '../core/messages';
import type { EnrollKind } from './enroll-schemas';

export interface KindPaths {
  /** Enroll (PUT), unenroll (DELETE) and check (GET); holds `{externalId}` once. */
  monitor: string;
  /** The list (GET). */
  list: string;
}

export const DEFAULT_ENROLLMENT_PATHS: Readonly<Record<EnrollKind, Readonly<KindPaths>>> = {
  lpr: { monitor: '/api/v1/lpr/monitor/{externalId}', list: '/api/v1/lpr/monitored' },
  face: { monitor: '/api/v1/faces/monitor/{externalId}', list: '/api/v1/faces/monitored' },
};

export const DEFAULT_PHOTO_FIELD = 'faceImage';
export const DEFAULT_PAGE_SIZE = 500;
export const MAX_PAGE_SIZE = 100_000;
/** What paging queries may hold: page number from 1 or 0, item offset, page size. */
export const PAGE_PLACEHOLDERS = ['page', 'page0', 'offset', 'size'] as const;
const EXTERNAL_ID = '{externalId}';

export interface Paging {
  /** `page={page}&pageSize={size}`: parameter names and values. */
  query: Array<[string, string]>;
  size: number;
}

export interface EnrollmentApi {
  paths: Record<EnrollKind, KindPaths>;
  /** Undefined: the list is one answer. */
  paging?: Paging;
  /** The face body's property for the photo. */
  photoField: string;
}

export interface EnrollmentApiOptions {
  paths?: { [K in EnrollKind]?: Partial<KindPaths> };
  /** A query with placeholders, e.g. `page={page}&pageSize={size}`; empty: no paging. */
  pageQuery?: string;
  pageSize?: number | string;
  photoField?: string;
}

/** A problem with one option: `option` names it (`lpr.monitor`, `pageQuery`, …). */
export interface ApiProblem extends Message {
  option: string;
}

const at = (option: string, key: string, params?: Message['params']): ApiProblem => ({ option, key: `enroll.${key}`, params });

/** What is wrong with a path template, or undefined. */
function pathProblem(path: string, monitor: boolean): string | undefined {
  if (!path) return 'path.empty';
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) return 'path.absolute';
  if (/[?#\s]/.test(path)) return 'path.query';
  const placeholders = path.match(/\{[^}]*\}/g) ?? [];
  if (monitor) return placeholders.length === 1 && placeholders[0] === EXTERNAL_ID ? undefined : 'path.external-id';
  return placeholders.length ? 'path.placeholder' : undefined;
}

/** Reads a paging query; problems are pushed. */
function readPaging(text: string, sizeValue: unknown, problems: ApiProblem[]): Paging | undefined {
  const size = sizeValue === undefined || sizeValue === '' ? DEFAULT_PAGE_SIZE : Number(sizeValue);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) problems.push(at('pageSize', 'paging.size', { value: String(sizeValue) }));
  if (!text) return undefined;
  const query: Array<[string, string]> = [];
  for (const part of text.replace(/^\?/, '').split('&')) {
    const [name, value, extra] = part.split('=');
    if (!name || value === undefined || extra !== undefined || /[\s#]/.test(part)) {
      problems.push(at('pageQuery', 'paging.syntax'));
      return undefined;
    }
    for (const m of `${name}=${value}`.matchAll(/\{([^}]*)\}/g)) {
      if (!(PAGE_PLACEHOLDERS as readonly string[]).includes(m[1])) {
        problems.push(at('pageQuery', 'paging.placeholder', { name: m[0] }));
        return undefined;
      }
    }
    query.push([name, value]);
  }
  if (!/\{(?:page|page0|offset)\}/.test(text)) problems.push(at('pageQuery', 'paging.no-page'));
  return { query, size };
}

/** The API layout from options (a config node's dialog), defaults for what is not given. */
export function resolveEnrollmentApi(options: EnrollmentApiOptions = {}): { ok: true; api: EnrollmentApi } | { ok: false; problems: ApiProblem[] } {
  const problems: ApiProblem[] = [];
  const paths = {} as Record<EnrollKind, KindPaths>;
  for (const kind of ['lpr', 'face'] as const) {
    const given = options.paths?.[kind] ?? {};
    const monitor = String(given.monitor ?? '').trim() || DEFAULT_ENROLLMENT_PATHS[kind].monitor;
    const list = String(given.list ?? '').trim() || DEFAULT_ENROLLMENT_PATHS[kind].list;
    const bad = [pathProblem(monitor, true), pathProblem(list, false)];
    if (bad[0]) problems.push(at(`${kind}.monitor`, bad[0], { path: monitor }));
    if (bad[1]) problems.push(at(`${kind}.list`, bad[1], { path: list }));
    paths[kind] = { monitor, list };
  }
  const paging = readPaging(String(options.pageQuery ?? '').trim(), options.pageSize, problems);
  const photoField = String(options.photoField ?? '').trim() || DEFAULT_PHOTO_FIELD;
  if (!/^[A-Za-z_$][\w$]*$/.test(photoField)) problems.push(at('photoField', 'photo-field', { value: photoField }));
  if (problems.length) return { ok: false, problems };
  return { ok: true, api: { paths, paging, photoField } };
}

/** The monitor path of one externalId: the id URL-encoded, so it stays one path segment. */
export function monitorPath(api: EnrollmentApi, kind: EnrollKind, externalId: string): string {
  return api.paths[kind].monitor.replace(EXTERNAL_ID, encodeURIComponent(externalId));
}

/** The query of page `page` (from 1). */
export function pageQuery(paging: Paging, page: number): Array<[string, string]> {
  const values: Record<string, number> = { page, page0: page - 1, offset: (page - 1) * paging.size, size: paging.size };
  const fill = (text: string): string => text.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
  return paging.query.map(([name, value]) => [fill(name), fill(value)]);
}
