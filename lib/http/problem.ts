/**
 * Answers of our HTTP servers (the receiver, the simulator, the mock core):
 * JSON bodies, and RFC 9457 problem details for every rejected request.
 */
import type { ServerResponse } from 'node:http';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Problem kinds. The `type` URIs are stable identifiers. */
export const PROBLEMS = {
  badRequest: { status: 400, title: 'Bad Request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  notFound: { status: 404, title: 'Not Found' },
  methodNotAllowed: { status: 405, title: 'Method Not Allowed' },
  requestTimeout: { status: 408, title: 'Request Timeout' },
  payloadTooLarge: { status: 413, title: 'Payload Too Large' },
  unsupportedMediaType: { status: 415, title: 'Unsupported Media Type' },
  malformedJson: { status: 400, title: 'Malformed JSON' },
  invalidUtf8: { status: 400, title: 'Invalid UTF-8' },
  invalidEvent: { status: 422, title: 'Invalid Detection Event' },
  bodyReadFailed: { status: 400, title: 'Request Body Could Not Be Read' },
  internal: { status: 500, title: 'Internal Server Error' },
  unavailable: { status: 503, title: 'Receiver Not Ready' },
} as const;

export type ProblemKind = keyof typeof PROBLEMS;

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  [extra: string]: unknown;
}

export function problem(kind: ProblemKind, detail: string, extra?: Record<string, unknown>): Problem {
  const { status, title } = PROBLEMS[kind];
  const slug = kind.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return { type: `urn:detection-bridge:problem:${slug}`, title, status, detail, ...extra };
}

export interface AnswerOptions {
  headers?: Record<string, string>;
  /** End the connection afterwards: for answers given before the body was
   *  read, whose rest is not wanted. */
  close?: boolean;
  /** Headers only (an answer to HEAD). */
  head?: boolean;
}

/** Writes `value` as JSON with the given status. */
export function sendJson(res: ServerResponse, status: number, value: unknown, options: AnswerOptions = {}): void {
  write(res, status, JSON_CONTENT_TYPE, JSON.stringify(value), options);
}

/** Writes a problem answer; a response already under way is cut off instead. */
export function sendProblem(res: ServerResponse, answer: Problem, options: AnswerOptions = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  write(res, answer.status, PROBLEM_CONTENT_TYPE, JSON.stringify(answer), options);
}

function write(res: ServerResponse, status: number, contentType: string, body: string, options: AnswerOptions): void {
  const headers: Record<string, string | number> = {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...options.headers,
  };
  if (options.close) headers.Connection = 'close';
  res.writeHead(status, headers);
  res.end(options.head ? undefined : body);
}
