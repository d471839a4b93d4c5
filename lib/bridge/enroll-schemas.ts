/**
 * What the events bridge's enrollment endpoints take and answer, as zod
 * schemas (types inferred from them), and the forgiving reading of what a
 * flow hands in: tags as an array or as text separated by commas, additional
 * fields as an object or as the documented list, a photo as a Buffer or base64.
 *
 * Documented (research/econnect.md, section 2): the plate body `plate`
 * (required), `monitorReason`, `tags` (SDK `TagInfoItem{TagName}`),
 * `additionalFields` (SDK `AdditionalFieldItem{FieldName, FieldValue}`), in
 * camelCase; the check answer `{"enrolled": true}`; list items with
 * `externalId`, `enrolled`, `expected`. Inferred: the item spellings
 * `{tagName}` and `{fieldName, fieldValue}` (the webhook envelope's), and the
 * whole face body (not documented: a photo, names, tags, additional fields;
 * its names follow the webhook's `personInfo`). Node-RED-free.
 */
import { z } from 'zod';
import { checkBase64 } from '../core/base64';
import type { EventKind } from '../core/event-kinds';
import type { Message } from '../core/messages';

/** What can be enrolled: plates (`lpr`) and faces, named as the events are. */
export type EnrollKind = EventKind;
export const ENROLL_KINDS: readonly EnrollKind[] = ['lpr', 'face'];

export const ENROLL_ACTIONS = ['enroll', 'unenroll', 'check', 'list'] as const;
export type EnrollAction = (typeof ENROLL_ACTIONS)[number];

export const TagInfoItem = z.object({ tagName: z.string().min(1) });
export type TagInfoItem = z.infer<typeof TagInfoItem>;

export const AdditionalFieldItem = z.object({ fieldName: z.string().min(1), fieldValue: z.string() });
export type AdditionalFieldItem = z.infer<typeof AdditionalFieldItem>;

/** PUT {lpr monitor path}: the documented body. */
export const PlateEnrollment = z.object({
  plate: z.string().trim().min(1),
  monitorReason: z.string().optional(),
  tags: z.array(TagInfoItem).optional(),
  additionalFields: z.array(AdditionalFieldItem).optional(),
});
export type PlateEnrollment = z.infer<typeof PlateEnrollment>;

/** A face enrollment before its photo gets the bridge's field name (see
 *  EnrollmentApi.photoField): `photo` is plain base64. */
export const FaceEnrollment = z.object({
  photo: z.string().refine((s) => checkBase64(s).ok && !s.startsWith('data:'), { message: 'expected plain base64' }),
  firstName: z.string().optional(),
  middleName: z.string().optional(),
  lastName: z.string().optional(),
  monitorReason: z.string().optional(),
  tags: z.array(TagInfoItem).optional(),
  additionalFields: z.array(AdditionalFieldItem).optional(),
});
export type FaceEnrollment = z.infer<typeof FaceEnrollment>;

/** GET {monitor path}: `{"enrolled": true}`. */
export const EnrollmentStatus = z.looseObject({ enrolled: z.boolean() });
export type EnrollmentStatus = z.infer<typeof EnrollmentStatus>;

/** An item of GET {list path}. What `expected` holds is not documented. */
export const MonitoredItem = z.looseObject({
  externalId: z.string().min(1),
  enrolled: z.boolean().nullish(),
  expected: z.unknown().optional(),
});
export type MonitoredItem = z.infer<typeof MonitoredItem>;

// ---- reading what a flow hands in -------------------------------------------

/** A value for a message: `"text"`, `a number (5)`, `an object`, `not set`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'not set';
  if (value === null) return 'null';
  if (typeof value === 'string') return value.trim() === '' ? 'empty text' : JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Buffer.isBuffer(value)) return `a Buffer of ${value.length} bytes`;
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

const problem = (key: string, params?: Message['params']): Message => ({ key: `enroll.input.${key}`, params });

const isBlank = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** An externalId: text or a number, not blank. Kept exactly (it is case-sensitive); `.` and
 *  `..` are refused, as a URL path would read them as "this folder" and "the one above". */
export function readExternalId(value: unknown): { ok: true; value: string } | { ok: false; problem: Message } {
  if (value === '.' || value === '..') return { ok: false, problem: problem('external-id-dots', { value }) };
  if ((typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value)))
    return { ok: true, value: String(value) };
  return { ok: false, problem: problem('external-id', { got: describeValue(value) }) };
}

type Read<T> = { ok: true; value: T | undefined } | { ok: false; problem: Message };

/** Optional text: blank is "not given"; numbers are written as text. */
function readText(value: unknown, field: string): Read<string> {
  if (isBlank(value)) return { ok: true, value: undefined };
  if (typeof value === 'string') return { ok: true, value };
  if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value: String(value) };
  return { ok: false, problem: problem('text', { field, got: describeValue(value) }) };
}

/** Tags: `"VIP, Banned"`, `["VIP", "Banned"]` or `[{tagName: "VIP"}]`. */
export function readTags(value: unknown): Read<TagInfoItem[]> {
  if (isBlank(value)) return { ok: true, value: undefined };
  const list = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (!list) return { ok: false, problem: problem('tags', { got: describeValue(value) }) };
  const tags: TagInfoItem[] = [];
  for (const [index, item] of list.entries()) {
    const name = typeof item === 'string' ? item : item && typeof item === 'object' ? (item as { tagName?: unknown }).tagName : undefined;
    if (typeof name !== 'string') return { ok: false, problem: problem('tag', { index: index + 1 }) };
    if (name.trim() !== '') tags.push({ tagName: name.trim() });
    else if (typeof item !== 'string') return { ok: false, problem: problem('tag', { index: index + 1 }) };
  }
  return { ok: true, value: tags.length ? tags : undefined };
}

const scalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** Additional fields: `{TenantID: "T-1"}` or `[{fieldName, fieldValue}]`; values become text
 *  (the webhook replays them as `fieldValue` strings); null/undefined values are left out. */
export function readAdditionalFields(value: unknown): Read<AdditionalFieldItem[]> {
  if (isBlank(value)) return { ok: true, value: undefined };
  if (typeof value !== 'object' || Buffer.isBuffer(value)) return { ok: false, problem: problem('fields', { got: describeValue(value) }) };
  const fields: AdditionalFieldItem[] = [];
  const entries: Array<[unknown, unknown]> = Array.isArray(value)
    ? value.map((item) =>
        item && typeof item === 'object'
          ? [(item as { fieldName?: unknown }).fieldName, (item as { fieldValue?: unknown }).fieldValue]
          : [undefined, undefined],
      )
    : Object.entries(value as Record<string, unknown>);
  for (const [index, [name, v]] of entries.entries()) {
    if (!Array.isArray(value) && (v === undefined || v === null)) continue;
    if (typeof name !== 'string' || name === '' || !scalar(v)) return { ok: false, problem: problem('field', { index: index + 1 }) };
    fields.push({ fieldName: name, fieldValue: String(v) });
  }
  return { ok: true, value: fields.length ? fields : undefined };
}

/** A photo: a Buffer, or base64 text (a data: URL prefix is removed). */
export function readPhoto(value: unknown): { ok: true; value: string } | { ok: false; problem: Message } {
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
    if (value.length > 0) return { ok: true, value: Buffer.from(value).toString('base64') };
  } else if (typeof value === 'string' && value.trim() !== '') {
    const text = value.trim();
    const checked = checkBase64(text);
    if (!checked.ok) return { ok: false, problem: problem('photo-base64', { position: checked.position }) };
    return { ok: true, value: text.slice(checked.start) };
  }
  return { ok: false, problem: problem('photo', { got: describeValue(value) }) };
}

/** The parts of an enrollment common to plates and faces, as a flow gives them. */
export interface CommonInput {
  monitorReason?: unknown;
  tags?: unknown;
  additionalFields?: unknown;
}
export interface PlateInput extends CommonInput {
  plate: unknown;
}
export interface FaceInput extends CommonInput {
  photo: unknown;
  firstName?: unknown;
  middleName?: unknown;
  lastName?: unknown;
}

export type BodyResult<T> = { ok: true; body: T } | { ok: false; problems: Message[] };

function common(input: CommonInput, problems: Message[]): Partial<PlateEnrollment> {
  const out: Partial<PlateEnrollment> = {};
  const reason = readText(input.monitorReason, 'monitorReason');
  if (reason.ok) out.monitorReason = reason.value;
  else problems.push(reason.problem);
  const tags = readTags(input.tags);
  if (tags.ok) out.tags = tags.value;
  else problems.push(tags.problem);
  const fields = readAdditionalFields(input.additionalFields);
  if (fields.ok) out.additionalFields = fields.value;
  else problems.push(fields.problem);
  return out;
}

/** Leaves out the parts not given, so the body holds only what was meant. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The documented plate body from a flow's values, every problem named. */
export function plateBody(input: PlateInput): BodyResult<PlateEnrollment> {
  const problems: Message[] = [];
  const plate = typeof input.plate === 'number' ? String(input.plate) : input.plate;
  if (typeof plate !== 'string' || plate.trim() === '') problems.push(problem('plate', { got: describeValue(input.plate) }));
  const rest = common(input, problems);
  if (problems.length) return { ok: false, problems };
  return { ok: true, body: PlateEnrollment.parse(defined({ plate: (plate as string).trim(), ...rest })) };
}

/** The face enrollment from a flow's values (photo as plain base64), every problem named. */
export function faceBody(input: FaceInput): BodyResult<FaceEnrollment> {
  const problems: Message[] = [];
  const photo = readPhoto(input.photo);
  if (!photo.ok) problems.push(photo.problem);
  const names: Partial<FaceEnrollment> = {};
  for (const field of ['firstName', 'middleName', 'lastName'] as const) {
    const read = readText(input[field], field);
    if (read.ok) names[field] = read.value?.trim();
    else problems.push(read.problem);
  }
  const rest = common(input, problems);
  if (problems.length || !photo.ok) return { ok: false, problems };
  return { ok: true, body: FaceEnrollment.parse(defined({ photo: photo.value, ...names, ...rest })) };
}
