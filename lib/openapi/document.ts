/**
 * A release's OpenAPI file for the platform v2 API: parsed, checked and
 * dereferenced by @readme/openapi-parser (not by hand), then indexed by
 * operation. Node-RED-free; the file is read or fetched by the caller
 * (load.ts), this module only gets its text or its parsed object.
 *
 * Why @readme/openapi-parser 9: it supports Node >= 20 (this package's floor)
 * and ships a CommonJS build; @apidevtools/swagger-parser 13 needs Node 22.19
 * and its 12.x line is no longer maintained.
 */
import { dereference, validate } from '@readme/openapi-parser';
import { load as loadYaml } from 'js-yaml';
import { MessageError } from '../core/messages';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  description?: string;
  schema?: Record<string, unknown>;
}

export interface Operation {
  /** operationId, or `METHOD path` when the document gives none. */
  id: string;
  method: string;
  /** As written in the document, below the v2 base: `/api/v2/pos/plugins/{pos_id}/events/batch`. */
  path: string;
  /** The module: the first OpenAPI tag ('' when untagged). */
  tag: string;
  summary: string;
  parameters: OperationParameter[];
  /** The JSON request body's schema (dereferenced), when the operation takes one. */
  body?: { required: boolean; schema: Record<string, unknown> };
}

export interface OpenApiDocument {
  /** `openapi` field: 3.0.x or 3.1.x. */
  openapi: string;
  title: string;
  /** info.version: the release the file describes. */
  release: string;
  operations: Operation[];
}

export type OpenApiProblem = 'json' | 'yaml' | 'not-openapi' | 'invalid' | 'file' | 'fetch';

/** A document that cannot be used: its reason in the catalog (openapi.*). */
export class OpenApiError extends MessageError {
  readonly code = 'ERR_OPENAPI';
  constructor(
    readonly problem: OpenApiProblem,
    detail: string,
  ) {
    super(`openapi.${problem}`, { detail });
    this.name = 'OpenApiError';
  }
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The JSON media type of a body, if any (`application/json`, `…+json`, `*\/*` as a last resort). */
function jsonSchemaOf(content: unknown): Json | undefined {
  if (!isRecord(content)) return undefined;
  const types = Object.keys(content);
  const type = types.find((t) => /^application\/json\b/i.test(t)) ?? types.find((t) => /[/+]json\b/i.test(t)) ?? types.find((t) => t === '*/*');
  const media = type ? content[type] : undefined;
  return isRecord(media) && isRecord(media.schema) ? media.schema : undefined;
}

/** Path-level and operation-level parameters; the operation's win on the same name and place. */
function parametersOf(pathItem: Json, op: Json): OperationParameter[] {
  const byKey = new Map<string, OperationParameter>();
  for (const list of [pathItem.parameters, op.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const p of list) {
      if (!isRecord(p) || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
      byKey.set(`${p.in}\u0000${p.name}`, {
        name: p.name,
        in: p.in as OperationParameter['in'],
        required: p.in === 'path' || p.required === true,
        ...(typeof p.description === 'string' ? { description: p.description } : {}),
        ...(isRecord(p.schema) ? { schema: p.schema } : {}),
      });
    }
  }
  return [...byKey.values()];
}

/** The path of `servers[0].url` from `/api/…` on (`/api/v2`), prefixed to every operation's path. */
function serverPrefix(doc: Json): string {
  const servers = doc.servers;
  const url = Array.isArray(servers) && isRecord(servers[0]) && typeof servers[0].url === 'string' ? servers[0].url : '';
  let pathname: string;
  try {
    pathname = new URL(url, 'http://server.invalid').pathname;
  } catch {
    return '';
  }
  const m = /\/api\/.*$/.exec(pathname);
  return m ? m[0].replace(/\/+$/, '') : '';
}

function indexOperations(doc: Json): Operation[] {
  const prefix = serverPrefix(doc);
  const out: Operation[] = [];
  const paths = isRecord(doc.paths) ? doc.paths : {};
  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isRecord(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const op = pathItem[method];
      if (!isRecord(op)) continue;
      const full = prefix + path;
      const body = isRecord(op.requestBody) ? op.requestBody : undefined;
      const bodySchema = body ? jsonSchemaOf(body.content) : undefined;
      out.push({
        id: typeof op.operationId === 'string' && op.operationId ? op.operationId : `${method.toUpperCase()} ${full}`,
        method: method.toUpperCase(),
        path: full,
        tag: Array.isArray(op.tags) && typeof op.tags[0] === 'string' ? op.tags[0] : '',
        summary: typeof op.summary === 'string' ? op.summary : '',
        parameters: parametersOf(pathItem, op),
        ...(bodySchema ? { body: { required: body?.required === true, schema: bodySchema } } : {}),
      });
    }
  }
  return out;
}

/** JSON when the text starts with `{`, else YAML (1.2 core schema: dates stay strings), as releases publish either. */
function parseText(source: string): unknown {
  const text = source.replace(/^\uFEFF/, '');
  const json = /^\s*\{/.test(text);
  try {
    return json ? JSON.parse(text) : loadYaml(text);
  } catch (err) {
    throw new OpenApiError(json ? 'json' : 'yaml', (err as Error).message.split('\n')[0]);
  }
}

/**
 * Parses (when given text: JSON or YAML), checks against the OpenAPI 3 specification and
 * dereferences a document. Rejects with an OpenApiError that says why it
 * cannot be used. Circular `$ref`s are left in place (a schema that still has
 * one is not checked, see operations.ts).
 */
export async function openApiDocument(source: string | Json): Promise<OpenApiDocument> {
  const parsed = typeof source === 'string' ? parseText(source) : source;
  if (!isRecord(parsed) || typeof parsed.openapi !== 'string' || !/^3\.[01]\./.test(parsed.openapi)) {
    const found = isRecord(parsed) && typeof parsed.swagger === 'string' ? `swagger ${parsed.swagger}` : 'no "openapi": "3.x" field';
    throw new OpenApiError('not-openapi', found);
  }
  // validate() dereferences a copy of its own; the check and the use stay apart.
  const checked = await validate(structuredClone(parsed) as never).catch((err: unknown) => ({
    valid: false as const,
    errors: [{ message: (err as Error).message }],
  }));
  if (!checked.valid)
    throw new OpenApiError(
      'invalid',
      checked.errors
        .map((e) => e.message)
        .join('; ')
        .slice(0, 500),
    );
  let doc: Json;
  try {
    doc = (await dereference(parsed as never, { dereference: { circular: 'ignore' } })) as unknown as Json;
  } catch (err) {
    throw new OpenApiError('invalid', (err as Error).message);
  }
  const info = isRecord(doc.info) ? doc.info : {};
  return {
    openapi: doc.openapi as string,
    title: typeof info.title === 'string' ? info.title : '',
    release: typeof info.version === 'string' ? info.version : String(info.version ?? ''),
    operations: indexOperations(doc),
  };
}
