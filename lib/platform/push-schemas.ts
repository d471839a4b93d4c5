/**
 * Checks of the values the spec fixes for data pushed into the platform v2
 * API ("Values fixed for pushed data"), run before anything is sent:
 * - plate direction is an integer 0, 1 or 2;
 * - gender is a single character M, F or U;
 * - each pushed image states how tightly it is cropped.
 *
 * ASSUMPTION: the spec does not give the field names of the push bodies
 * (POS transactions, face detections, plate reads, ...). So the conventional
 * names are checked wherever they appear in an item, at any depth:
 * - `direction` and `plateDirection`: integer 0 | 1 | 2;
 * - `gender`: exactly `M`, `F` or `U`;
 * - any object with an `image` field: `image` is a base64 string and the
 *   object carries `cropSizeName` (or `crop`) with one of Close, Medium, Car,
 *   FullFrame, Other (the crop names of the events bridge, CROP_SIZE_NAMES).
 * null (or absent) direction, gender or image means "not stated" and passes;
 * every other field passes untouched. When the v2 push guides become known,
 * this module is the one place to tighten.
 *
 * Each problem is a Message (push-item.* in the catalog) with its English
 * text in `message`. Node-RED-free.
 */
import { z } from 'zod';
import { CROP_SIZE_NAMES } from '../core/event-kinds';
import { formatPath } from '../core/schema-error';
import { renderMessage, type Message, type Translate } from '../core/messages';

const CROP_LIST = CROP_SIZE_NAMES.join(', ');

export const PushPlateDirection = z.union([z.literal(0), z.literal(1), z.literal(2)]);

export const PushGender = z.enum(['M', 'F', 'U']);

export const PushCropSizeName = z.enum(CROP_SIZE_NAMES);

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;
const BASE64_URL = /^[A-Za-z0-9_-]*$/;

/** An image as pushed: base64 text (standard or URL-safe alphabet, padding
 *  optional, line breaks allowed), not a data: URL. */
export const PushImageData = z.string().superRefine((value, ctx) => {
  if (/^data:/i.test(value)) {
    ctx.addIssue({ code: 'custom', message: 'image-data-url', params: { key: 'image-data-url' } });
    return;
  }
  const compact = value.replace(/[\r\n]/g, '');
  if (compact.length === 0) ctx.addIssue({ code: 'custom', message: 'image-empty', params: { key: 'image-empty' } });
  else if (!BASE64.test(compact) && !(BASE64_URL.test(compact) && compact.length % 4 !== 1)) {
    ctx.addIssue({ code: 'custom', message: 'image-base64', params: { key: 'image-base64' } });
  }
});

/** An object that carries an image: it must state its crop. */
export const PushImageHolder = z
  .looseObject({
    image: PushImageData,
    cropSizeName: PushCropSizeName.optional(),
    crop: PushCropSizeName.optional(),
  })
  .superRefine((holder, ctx) => {
    if (holder.cropSizeName === undefined && holder.crop === undefined) {
      ctx.addIssue({ code: 'custom', path: ['cropSizeName'], message: 'crop-missing', params: { key: 'crop-missing' } });
    }
  });

/** Field name → the check for its value (null/undefined skip the check). */
const FIELD_CHECKS: Record<string, z.ZodType> = {
  direction: PushPlateDirection,
  plateDirection: PushPlateDirection,
  gender: PushGender,
};

/** Deeper than any push body is expected to be; stops a cyclic or hostile value. */
export const MAX_PUSH_ITEM_DEPTH = 32;

export interface PushItemError extends Message {
  /** Index of the item in the list passed in. */
  item: number;
  /** Dotted path inside the item: `lines[2].gender`, `images[0].cropSizeName`. */
  path: string;
  /** The problem in English (a node shows key and params in the user's language). */
  message: string;
}

/** Field name → its catalog key, for the fields checked wherever they appear. */
const FIELD_KEYS: Record<string, string> = { direction: 'direction', plateDirection: 'direction', gender: 'gender' };

function itemMessage(key: string, params: Message['params'] = {}): Message {
  return { key: `push-item.${key}`, params };
}

/** The problems of an object with an image, as Messages with their paths. */
function imageHolderProblems(record: Record<string, unknown>): Array<{ path: PropertyKey[]; message: Message }> {
  const result = PushImageHolder.safeParse(record);
  if (result.success) return [];
  return result.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? 'image');
    const own = issue.code === 'custom' ? (issue.params as { key?: unknown } | undefined)?.key : undefined;
    const key = typeof own === 'string' ? own : field === 'image' ? 'image-type' : 'crop';
    return { path: issue.path, message: itemMessage(key, { field, got: show(record[field]), crops: CROP_LIST }) };
  });
}

/** A zod issue that carries a push-item Message. */
function addProblem(ctx: z.RefinementCtx, path: PropertyKey[], message: Message): void {
  ctx.addIssue({ code: 'custom', path, message: renderMessage(message), params: { message } });
}

export type PushItemsCheck = { ok: true } | { ok: false; errors: PushItemError[] };

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'an array' : `an ${typeof value}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * One item, walked: every object at any depth is checked for the fixed
 * fields. The item itself must be a JSON object. Zod issues are returned
 * with their path from the item's root.
 */
export const PushItem = z.unknown().superRefine((item, ctx) => {
  if (!isRecord(item)) {
    addProblem(ctx, [], itemMessage('not-object', { got: show(item) }));
    return;
  }
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value: item, path: [] }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    if (path.length > MAX_PUSH_ITEM_DEPTH) {
      addProblem(ctx, path, itemMessage('too-deep', { max: MAX_PUSH_ITEM_DEPTH }));
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i] });
      continue;
    }
    const record = value as Record<string, unknown>;
    for (const [key, check] of Object.entries(FIELD_CHECKS)) {
      const field = record[key];
      if (field === undefined || field === null) continue;
      if (!check.safeParse(field).success) addProblem(ctx, [...path, key], itemMessage(FIELD_KEYS[key], { field: key, got: show(field) }));
    }
    if (record.image !== undefined && record.image !== null) {
      for (const problem of imageHolderProblems(record)) addProblem(ctx, [...path, ...problem.path], problem.message);
    }
    const keys = Object.keys(record);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      if (key === 'image') continue; // a string; never walk into it
      const child = record[key];
      if (child !== null && typeof child === 'object') stack.push({ value: child, path: [...path, key] });
    }
  }
});

/**
 * Checks a list of items before it is pushed. Returns every problem, each
 * naming the item (index) and the field (path), so a bad value never leaves.
 * A value that is not an array is one error at item -1.
 */
export function checkPushItems(items: unknown): PushItemsCheck {
  if (!Array.isArray(items)) {
    const message = itemMessage('not-array', { got: show(items) });
    return { ok: false, errors: [{ item: -1, path: '(root)', ...message, message: renderMessage(message) }] };
  }
  const errors: PushItemError[] = [];
  items.forEach((item, index) => {
    const result = PushItem.safeParse(item);
    if (!result.success) {
      for (const issue of result.error.issues) {
        const message = (issue as { params?: { message?: Message } }).params?.message ?? itemMessage('not-object', { got: show(item) });
        errors.push({ item: index, path: formatPath(issue.path), ...message, message: renderMessage(message) });
      }
    }
  });
  return errors.length === 0 ? { ok: true } : { ok: false, errors };
}

/** One line per error: `item 3, lines[0].gender: gender must be ...`; English unless `translate` is given. */
export function formatPushErrors(errors: ReadonlyArray<PushItemError>, max = 5, translate?: Translate): string {
  const text = (message: Message) => renderMessage(message, translate);
  const lines = errors.slice(0, max).map((e) => text(itemMessage('line', { item: e.item, path: e.path, message: { key: e.key, params: e.params } })));
  if (errors.length > max) lines.push(text(itemMessage('more', { count: errors.length - max })));
  return lines.join('; ');
}
