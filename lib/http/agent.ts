/**
 * The undici Agent of a client that calls one server (the platform core, the
 * events bridge): its certificate check (a CA added to Node's roots, or none
 * for a self-signed server) and one timeout for connecting, headers and body.
 */
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';

export interface ServerAgentOptions {
  /** A PEM CA certificate trusted beside Node's own roots. */
  ca?: string;
  /** Accept any certificate (a self-signed server). */
  insecure?: boolean;
  timeoutMs: number;
  /** At most this many connections to the server. */
  connections?: number;
  keepAliveTimeout?: number;
}

export function createServerAgent(options: ServerAgentOptions): Agent {
  const ca = options.ca && options.ca.trim() ? [...rootCertificates, options.ca] : undefined;
  return new Agent({
    connect: { rejectUnauthorized: !options.insecure, ...(ca ? { ca } : {}), timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    ...(options.connections !== undefined ? { connections: options.connections } : {}),
    ...(options.keepAliveTimeout !== undefined ? { keepAliveTimeout: options.keepAliveTimeout } : {}),
  });
}

/** `value` when a finite number above 0, else `fallback`. */
export function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}
