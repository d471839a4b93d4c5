/**
 * The operations of an OpenAPI document: which one a call goes to (method and
 * concrete path), search for the editor, and the check of a call's path and
 * query parameters and JSON body against the operation's schemas with ajv.
 * A check is compiled the first time its operation is used and then kept, so
 * the cache never holds more than the operations a flow calls.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { SchemaError } from '../core/schema-error';
import type { OpenApiDocument, Operation } from './document';

/** A call as it goes out: the path filled in (may carry `?query`), the query object, the body. */
export interface CallToCheck {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
}

export type CallCheck = { ok: true; operation?: Operation } | { ok: false; operation: Operation; errors: SchemaError[] };

interface CompiledOperation {
  params?: ValidateFunction;
  body?: ValidateFunction;
}

/** One entry per operation: what the editor lists and searches. */
export interface OperationSummary {
  id: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
  parameters: Array<{ name: string; in: string; required: boolean; type?: string }>;
  /** `fields`: the top-level properties (of the items, for an array body), for the dialog's short view. */
  body?: { required: boolean; type?: string; fields?: BodyField[] };
}

export interface BodyField {
  name: string;
  type?: string;
  required: boolean;
}

function bodySummary(body: { required: boolean; schema: Record<string, unknown> }): NonNullable<OperationSummary['body']> {
  const fields = fieldsOf(body.schema);
  return { required: body.required, ...(typeof body.schema.type === 'string' ? { type: body.schema.type } : {}), ...(fields ? { fields } : {}) };
}

/** The top-level properties of a body schema, or of its items when it is an array. */
function fieldsOf(schema: Record<string, unknown>): BodyField[] | undefined {
  const items = schema.items as Record<string, unknown> | undefined;
  const object = schema.type === 'array' && items && typeof items === 'object' ? items : schema;
  const properties = object.properties as Record<string, Record<string, unknown>> | undefined;
  if (!properties || typeof properties !== 'object') return undefined;
  const required = Array.isArray(object.required) ? (object.required as string[]) : [];
  return Object.entries(properties).map(([name, p]) => ({
    name,
    ...(typeof p?.type === 'string' ? { type: p.type } : {}),
    required: required.includes(name),
  }));
}

const segmentsOf = (path: string): string[] => path.split('/').filter(Boolean);
const isTemplate = (segment: string): boolean => /^\{[^}]+\}$/.test(segment);

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** ajv's `/items/0/amount` as `items[0].amount`, under `where` (`body`, `path`, `query`). */
function problemPath(where: string, error: ErrorObject): string {
  const parts = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push(String((error.params as { missingProperty: string }).missingProperty));
  let out = where;
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : `.${part}`;
  return out;
}

function problemsOf(where: string, errors: ErrorObject[] | null | undefined): SchemaError[] {
  return (errors ?? []).map((e) => ({ path: problemPath(where, e), message: e.message ?? e.keyword }));
}

export class OperationIndex {
  readonly release: string;
  readonly title: string;
  readonly operations: readonly Operation[];
  /** By method, then by number of path segments. */
  private readonly byShape = new Map<string, Operation[]>();
  private readonly compiled = new Map<string, CompiledOperation>();
  private readonly ajv: Ajv;
  /** Parameters arrive as text (path segments, query strings): ajv coerces them to the schema's type. */
  private readonly ajvParams: Ajv;

  constructor(doc: OpenApiDocument) {
    this.release = doc.release;
    this.title = doc.title;
    this.operations = doc.operations;
    for (const op of doc.operations) {
      const key = `${op.method} ${segmentsOf(op.path).length}`;
      const list = this.byShape.get(key) ?? [];
      list.push(op);
      this.byShape.set(key, list);
    }
    // Literal segments before templates: `/users/me` wins over `/users/{id}`.
    for (const list of this.byShape.values()) {
      list.sort((a, b) => segmentsOf(a.path).filter(isTemplate).length - segmentsOf(b.path).filter(isTemplate).length);
    }
    const Engine = doc.openapi.startsWith('3.1') ? Ajv2020 : Ajv;
    // strict off: OpenAPI schemas carry keywords JSON Schema does not know (example, discriminator, xml).
    this.ajv = addFormats(new Engine({ allErrors: true, strict: false }));
    this.ajvParams = addFormats(new Engine({ allErrors: true, strict: false, coerceTypes: 'array' }));
  }

  /** How many operations have a compiled check (for tests and the bench). */
  get compiledCount(): number {
    return this.compiled.size;
  }

  /** The operation a call goes to, with its path parameters read from the concrete path. */
  match(method: string, path: string): { operation: Operation; pathParams: Record<string, string> } | undefined {
    const segments = segmentsOf(path.split('?')[0]);
    for (const op of this.byShape.get(`${method.toUpperCase()} ${segments.length}`) ?? []) {
      const pathParams: Record<string, string> = {};
      const fits = segmentsOf(op.path).every((seg, i) => {
        if (isTemplate(seg)) {
          pathParams[seg.slice(1, -1)] = decode(segments[i]);
          return true;
        }
        return seg === segments[i];
      });
      if (fits) return { operation: op, pathParams };
    }
    return undefined;
  }

  /** The operation a node's method and path template stand for (`{posId}` matches `{pos_id}`). */
  matchTemplate(method: string, template: string): Operation | undefined {
    const segments = segmentsOf(template.split('?')[0]);
    return (this.byShape.get(`${method.toUpperCase()} ${segments.length}`) ?? []).find((op) =>
      segmentsOf(op.path).every((seg, i) => seg === segments[i] || (isTemplate(seg) && isTemplate(segments[i]))),
    );
  }

  byId(id: string): Operation | undefined {
    return this.operations.find((op) => op.id === id);
  }

  /** Operations whose path, summary, operation id or module contain every word of `text` (case-insensitive). */
  search(text: string): Operation[] {
    const words = text.toLowerCase().split(/\s+/).filter(Boolean);
    return this.operations.filter((op) => {
      const hay = `${op.method} ${op.path} ${op.summary} ${op.id} ${op.tag}`.toLowerCase();
      return words.every((w) => hay.includes(w));
    });
  }

  /**
   * Checks a call against its operation: path and query parameters and the
   * JSON body. A call that matches no operation passes (free text stays
   * possible); so does an operation whose schema ajv cannot compile (a
   * circular `$ref` left in place), rather than blocking every call to it.
   */
  check(call: CallToCheck): CallCheck {
    const found = this.match(call.method, call.path);
    if (!found) return { ok: true };
    const { operation } = found;
    const compiled = this.compile(operation);
    const errors: SchemaError[] = [];
    if (compiled.params) {
      const values: Record<string, unknown> = { path: { ...found.pathParams }, query: queryValues(call) };
      if (!compiled.params(values)) {
        for (const e of compiled.params.errors ?? []) {
          const [where, ...rest] = e.instancePath.split('/').slice(1);
          errors.push(...problemsOf(where ?? 'query', [{ ...e, instancePath: rest.length ? `/${rest.join('/')}` : '' }]));
        }
      }
    }
    if (operation.body) {
      const body = bodyValue(call.body);
      if (body === SKIP) {
        // A Buffer goes out as it is: nothing to check it against.
      } else if (body === undefined) {
        if (operation.body.required) errors.push({ path: 'body', message: 'is required' });
      } else if (body === NOT_JSON) {
        errors.push({ path: 'body', message: 'is not JSON' });
      } else if (compiled.body && !compiled.body(body)) {
        errors.push(...problemsOf('body', compiled.body.errors));
      }
    }
    return errors.length === 0 ? { ok: true, operation } : { ok: false, operation, errors };
  }

  /** The compact list the editor shows. */
  summaries(): OperationSummary[] {
    return this.operations.map((op) => ({
      id: op.id,
      method: op.method,
      path: op.path,
      tag: op.tag,
      summary: op.summary,
      parameters: op.parameters
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => ({ name: p.name, in: p.in, required: p.required, ...(typeof p.schema?.type === 'string' ? { type: p.schema.type } : {}) })),
      ...(op.body ? { body: bodySummary(op.body) } : {}),
    }));
  }

  private compile(op: Operation): CompiledOperation {
    const cached = this.compiled.get(op.id);
    if (cached) return cached;
    const out: CompiledOperation = {};
    const groups: Record<'path' | 'query', { properties: Record<string, unknown>; required: string[] }> = {
      path: { properties: {}, required: [] },
      query: { properties: {}, required: [] },
    };
    for (const p of op.parameters) {
      if (p.in !== 'path' && p.in !== 'query') continue;
      groups[p.in].properties[p.name] = p.schema ?? {};
      if (p.required) groups[p.in].required.push(p.name);
    }
    const group = (g: (typeof groups)['path']) => ({ type: 'object', properties: g.properties, required: g.required });
    out.params = tryCompile(this.ajvParams, { type: 'object', properties: { path: group(groups.path), query: group(groups.query) } });
    if (op.body) out.body = tryCompile(this.ajv, op.body.schema);
    this.compiled.set(op.id, out);
    return out;
  }
}

function tryCompile(ajv: Ajv, schema: Record<string, unknown>): ValidateFunction | undefined {
  try {
    return ajv.compile(schema);
  } catch {
    return undefined;
  }
}

/** The query as the call sends it: `?a=1` in the path and the query object (which wins). */
function queryValues(call: CallToCheck): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const q = call.path.indexOf('?');
  if (q >= 0) for (const [k, v] of new URLSearchParams(call.path.slice(q + 1))) out[k] = v;
  for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined && v !== null) out[k] = Array.isArray(v) ? [...(v as unknown[])] : v;
  return out;
}

const NOT_JSON = Symbol('not JSON');
const SKIP = Symbol('not checked');

/** The body as the core will read it: a string is sent as JSON text, a Buffer is not checked. */
function bodyValue(body: unknown): unknown {
  if (body === undefined || body === null) return undefined;
  if (Buffer.isBuffer(body) || body instanceof Uint8Array) return SKIP;
  if (typeof body === 'string') {
    try {
      return JSON.parse(body);
    } catch {
      return NOT_JSON;
    }
  }
  return body;
}
