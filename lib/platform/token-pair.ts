/**
 * The token pair of a platform sign-in. The spec fixes `POST
 * {core_base_url}/api/v2/auth/login` answering "a token pair" but not its
 * field names, the lifetime or a refresh endpoint (Authentication 6), so the
 * usual spellings are read and the expiry comes from the answer or the JWT.
 */
import { isRecord, pick } from './fields';

export interface TokenPair {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms when the access token expires, when known. */
  expiresAt?: number;
  /** Where the expiry came from. */
  expirySource?: 'expiresIn' | 'expiresAt' | 'jwt';
  /** The field the access token was read from, e.g. `accessToken` or `data.token`. */
  accessField: string;
}

export type TokenPairResult = { ok: true; pair: TokenPair } | { ok: false; fields: string[] };

const ACCESS_KEYS = ['accessToken', 'access_token', 'token', 'jwt'] as const;
const REFRESH_KEYS = ['refreshToken', 'refresh_token'] as const;
const EXPIRES_IN_KEYS = ['expiresIn', 'expires_in'] as const;
const EXPIRES_AT_KEYS = ['expiresAt', 'expires_at', 'expiration'] as const;
const WRAPPER_KEYS = ['data', 'result', 'token', 'tokens'] as const;

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function finiteNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

/** Epoch ms from an ISO string or an epoch in seconds or milliseconds. */
function parseInstant(value: unknown): number | undefined {
  const n = finiteNumber(value);
  if (n !== undefined) return n > 1e11 ? n : n * 1000; // 1e11 s is year 5138; 1e11 ms is 1973
  if (typeof value === 'string') {
    const t = Date.parse(value);
    if (Number.isFinite(t)) return t;
  }
  return undefined;
}

/** The payload of a JWT, decoded without verification; undefined when not a JWT. */
export function decodeJwtPayload(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
    return isRecord(payload) ? payload : undefined;
  } catch {
    return undefined;
  }
}

/** Names of the fields of an answer, one level into wrappers (`data.user`), never values. */
function fieldNames(body: unknown): string[] {
  if (!isRecord(body)) return [Array.isArray(body) ? '(an array)' : body === null ? '(null)' : `(${typeof body})`];
  const names: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    names.push(key);
    if (isRecord(value)) for (const inner of Object.keys(value)) names.push(`${key}.${inner}`);
  }
  return names.length ? names : ['(an empty object)'];
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Finds the token pair in a sign-in answer. The field names are not in the
 * spec, so the usual spellings are accepted:
 * - access token: `accessToken` | `access_token` | `token` | `jwt`, at the top
 *   or one level down in a `data` / `result` / `token` / `tokens` wrapper;
 *   a bare JWT string as the whole answer too;
 * - refresh token: `refreshToken` | `refresh_token`, beside it or at the top;
 * - expiry: `expiresIn` / `expires_in` (seconds), or `expiresAt` / `expires_at`
 *   / `expiration` (ISO string or epoch seconds or ms), beside it or at the
 *   top; else the JWT `exp` claim (read without verification).
 * When no access token fits, the result names the fields that came back (names only).
 */
export function extractTokenPair(body: unknown, nowMs: number = Date.now()): TokenPairResult {
  if (typeof body === 'string' && JWT_SHAPE.test(body.trim())) {
    return { ok: true, pair: withJwtExpiry({ accessToken: body.trim(), accessField: '(the whole answer)' }) };
  }
  if (!isRecord(body)) return { ok: false, fields: fieldNames(body) };
  const holders: Array<[string, Record<string, unknown>]> = [['', body]];
  for (const key of WRAPPER_KEYS) {
    const inner = body[key];
    if (isRecord(inner)) holders.push([`${key}.`, inner]);
  }
  for (const [prefix, holder] of holders) {
    const access = pick(holder, ACCESS_KEYS, nonEmptyString);
    if (!access) continue;
    const near = holder === body ? [body] : [holder, body];
    const pair: TokenPair = { accessToken: access[1] as string, accessField: `${prefix}${access[0]}` };
    for (const h of near) {
      const refresh = pick(h, REFRESH_KEYS, nonEmptyString);
      if (refresh) {
        pair.refreshToken = refresh[1] as string;
        break;
      }
    }
    for (const h of near) {
      const expiresIn = pick(h, EXPIRES_IN_KEYS, finiteNumber);
      if (expiresIn) {
        pair.expiresAt = nowMs + (expiresIn[1] as number) * 1000;
        pair.expirySource = 'expiresIn';
        break;
      }
      const expiresAt = pick(h, EXPIRES_AT_KEYS, parseInstant);
      if (expiresAt) {
        pair.expiresAt = expiresAt[1] as number;
        pair.expirySource = 'expiresAt';
        break;
      }
    }
    return { ok: true, pair: pair.expiresAt === undefined ? withJwtExpiry(pair) : pair };
  }
  return { ok: false, fields: fieldNames(body) };
}

function withJwtExpiry(pair: TokenPair): TokenPair {
  const exp = finiteNumber(decodeJwtPayload(pair.accessToken)?.exp);
  if (exp !== undefined) {
    pair.expiresAt = exp * 1000;
    pair.expirySource = 'jwt';
  }
  return pair;
}
