/**
 * A stable key for an event that carries no messageId: a hash of its content
 * with `payload.resentEvent` left out, so a replay hashes like the original.
 *
 * Canonical and unambiguous: object keys sorted, every value tagged with its
 * type and strings with their length. Strings are fed to the hash as they
 * are, so a 1 MB image is hashed without building another 1 MB string.
 */
import { createHash, type Hash } from 'node:crypto';

/** Paths (from the event root) left out of the hash. */
const IGNORED = new Set(['payload.resentEvent']);

function feed(hash: Hash, value: unknown, path: string, depth: number): void {
  if (depth > 200) throw new RangeError('value nests too deeply to hash');
  if (value === null || value === undefined) {
    hash.update('n;');
  } else if (typeof value === 'string') {
    hash.update(`s${value.length}:`);
    hash.update(value);
  } else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    hash.update(`${typeof value === 'number' ? 'd' : typeof value === 'boolean' ? 'b' : 'i'}${String(value)};`);
  } else if (Buffer.isBuffer(value)) {
    hash.update(`x${value.length}:`);
    hash.update(value);
  } else if (Array.isArray(value)) {
    hash.update(`a${value.length}[`);
    for (let i = 0; i < value.length; i++) feed(hash, value[i], `${path}[${i}]`, depth + 1);
    hash.update(']');
  } else if (typeof value === 'object') {
    const keys = Object.keys(value as object).sort();
    hash.update('{');
    for (const key of keys) {
      const child = path ? `${path}.${key}` : key;
      const item = (value as Record<string, unknown>)[key];
      if (IGNORED.has(child) || item === undefined) continue;
      hash.update(`k${key.length}:${key}`);
      feed(hash, item, child, depth + 1);
    }
    hash.update('}');
  } else {
    hash.update(`?${typeof value};`);
  }
}

/** Base64url SHA-256 of the event's content, without `payload.resentEvent`. */
export function eventHash(event: unknown): string {
  const hash = createHash('sha256');
  feed(hash, event, '', 0);
  return hash.digest('base64url');
}
