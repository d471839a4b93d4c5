/**
 * Where a release's OpenAPI file comes from: a file (a path relative to a
 * directory, the Node-RED user directory for the nodes) or a URL on the core,
 * fetched through the platform client so the server's sign-in and TLS
 * settings apply and the bearer token never goes to another host.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { PlatformClient } from '../platform';
import { openApiDocument, OpenApiError } from './document';
import { OperationIndex } from './operations';

/** A URL (http: or https:) rather than a file path. */
export function isUrlSource(source: string): boolean {
  return /^https?:\/\//i.test(source.trim());
}

/** Reads, checks and indexes the document at `source`. Rejects with an OpenApiError. */
export async function loadOperations(source: string, options: { dir: string; client?: PlatformClient }): Promise<OperationIndex> {
  const text = source.trim();
  if (!isUrlSource(text)) {
    const file = isAbsolute(text) ? text : resolve(options.dir, text);
    let content: string;
    try {
      content = await readFile(file, 'utf8');
    } catch (err) {
      throw new OpenApiError('file', `${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    return new OperationIndex(await openApiDocument(content));
  }
  const client = options.client;
  if (!client) throw new OpenApiError('fetch', text);
  const url = new URL(text);
  const { origin, prefix } = client.base;
  if (url.origin !== origin || !(url.pathname === prefix || url.pathname.startsWith(`${prefix}/`))) {
    throw new OpenApiError('fetch', `${text} is not on the core ${client.base.display}`);
  }
  const answer = await client.request({ method: 'GET', path: url.pathname.slice(prefix.length) + url.search }).catch((err: unknown) => {
    throw new OpenApiError('fetch', `${text}: ${(err as Error).message}`);
  });
  if (answer.statusCode < 200 || answer.statusCode > 299) throw new OpenApiError('fetch', `${text}: HTTP ${answer.statusCode}`);
  const body = answer.body;
  return new OperationIndex(await openApiDocument(typeof body === 'string' ? body : (body as Record<string, unknown>)));
}
