/**
 * RFC 9457 problem details: the JSON body of every rejected request.
 */
import type { SchemaError } from '../events/schemas';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Problem kinds the receiver answers with. The `type` URIs are stable identifiers. */
export const PROBLEMS = {
  unauthorized: { status: 401, title: 'Unauthorized' },
  methodNotAllowed: { status: 405, title: 'Method Not Allowed' },
  payloadTooLarge: { status: 413, title: 'Payload Too Large' },
  unsupportedMediaType: { status: 415, title: 'Unsupported Media Type' },
  malformedJson: { status: 400, title: 'Malformed JSON' },
  invalidEvent: { status: 422, title: 'Invalid Detection Event' },
  bodyReadFailed: { status: 400, title: 'Request Body Could Not Be Read' },
  unavailable: { status: 503, title: 'Receiver Not Ready' },
} as const;

export type ProblemKind = keyof typeof PROBLEMS;

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: SchemaError[];
  [extra: string]: unknown;
}

export function problem(kind: ProblemKind, detail: string, extra?: Record<string, unknown>): Problem {
  const { status, title } = PROBLEMS[kind];
  const slug = kind.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return { type: `urn:detection-bridge:problem:${slug}`, title, status, detail, ...extra };
}
