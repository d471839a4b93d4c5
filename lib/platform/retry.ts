/**
 * When to send a failed push again: statuses worth another try (408, 429,
 * 5xx), network failures, and how long to wait: the server's `Retry-After`
 * when it gives one (capped), else exponential backoff with full jitter, so a
 * platform coming back up is not hit by every client at the same instant.
 */
export interface RetryPolicy {
  /** First backoff ceiling; doubles per retry. */
  baseDelayMs: number;
  /** Ceiling of any delay, Retry-After included. */
  maxDelayMs: number;
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined;
}

/**
 * The wait before retry number `attempt` (1 for the first retry): the
 * answer's Retry-After when it has one, else a random share (`random()` in
 * [0, 1)) of base·2^(attempt-1), both capped by maxDelayMs.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  headers: Record<string, string | string[] | undefined> | undefined,
  nowMs: number,
  random: () => number,
): number {
  const asked = headers ? parseRetryAfter(retryAfterOf(headers), nowMs) : undefined;
  if (asked !== undefined) return Math.min(asked, policy.maxDelayMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/** The Retry-After header whatever its case: a send() other than undici's may keep `Retry-After`. */
function retryAfterOf(headers: Record<string, string | string[] | undefined>): string | string[] | undefined {
  if ('retry-after' in headers) return headers['retry-after'];
  const key = Object.keys(headers).find((k) => k.toLowerCase() === 'retry-after');
  return key === undefined ? undefined : headers[key];
}
