/**
 * Running Lua scripts by their SHA1, sent whole only when the server does
 * not know them yet, and replies read as bytes: what every user of Redis
 * scripts here (the receiver stream, the shared dedupe) needs.
 */
import { createHash } from 'node:crypto';
import { RESP_TYPES, type RedisClientType } from 'redis';

/** Replies of bulk strings as Buffers: bodies read back from a stream stay bytes. */
export const BUFFER_REPLIES = { [RESP_TYPES.BLOB_STRING]: Buffer } as const;

/**
 * Runs a Lua script by its SHA1 (sent once per connection), falling back to
 * sending it whole when the server does not know it (first use, or after a
 * restart of Redis).
 */
export async function runScript<T>(
  client: RedisClientType,
  script: { source: string; sha1: string },
  keys: string[],
  args: Array<string | Buffer>,
  typeMapping?: typeof BUFFER_REPLIES,
): Promise<T> {
  const tail = [String(keys.length), ...keys, ...args];
  const options = typeMapping ? { typeMapping } : undefined;
  try {
    return (await client.sendCommand(['EVALSHA', script.sha1, ...tail], options)) as T;
  } catch (err) {
    if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
    return (await client.sendCommand(['EVAL', script.source, ...tail], options)) as T;
  }
}

/** A Lua script with its SHA1, for runScript. */
export function luaScript(source: string): { source: string; sha1: string } {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}
