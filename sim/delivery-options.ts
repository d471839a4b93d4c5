/**
 * A delivery run's options: their defaults, their rules and their check. The
 * number rules are lib/core/options.ts rules, the same ones the command line
 * (cli-args.ts) applies to its text, so a bound is stated once.
 */
import { z } from 'zod';
import type { Dispatcher } from 'undici';
import { authConfigProblem, type AuthConfig, type AuthMode } from '../lib/receiver';
import { renderMessage, numberOption, parseOptions } from '../lib/core';
import type { EventKind } from '../lib/events';
import type { EnrollmentStore } from './enroll-server';
import { IMAGE_MODES, type ImageMode } from './events';
import { impliedMix, isEmptyScenario, parseScenario, ScenarioError, type Scenario, type ScenarioInput } from './scenario';

/** What one delivery attempt came to (the report `onAttempt` gets). */
export type AttemptOutcome = 'acknowledged' | 'retry' | 'failed' | 'aborted';

export interface AttemptReport {
  /** Event number in this run, from 1. */
  seq: number;
  kind: EventKind;
  messageId: string;
  /** 1 for the first delivery, 2 for the first replay, … */
  attempt: number;
  /** The receiver this attempt went to (with several, the one its turn chose). */
  url: string;
  /** The `resentEvent` the attempt carried. */
  resent: boolean;
  /** The HTTP status, when the receiver answered. */
  status?: number;
  /** Why there was no answer: `timeout`, `aborted`, or an error code. */
  error?: string;
  /** The start of a non-2xx answer's body, or the error message. */
  detail?: string;
  latencyMs: number;
  outcome: AttemptOutcome;
  /** When the outcome is `retry`: the pause before the next attempt. */
  retryInMs?: number;
}

export const DELIVERY_DEFAULTS = {
  count: 10,
  rate: 5,
  mix: 0.5,
  retryDelayMs: 1000,
  maxRetryDelayMs: 30_000,
  retries: 3,
  timeoutMs: 10_000,
  concurrency: 4,
  enrolledShare: 0.5,
  images: 'pictures',
} as const;

/** The rules of the number options (numbers or number text). */
export const DELIVERY_NUMBER_RULES = {
  count: numberOption({ integer: true, min: 1 }),
  rate: numberOption({ min: 0 }),
  mix: numberOption({ min: 0, max: 1 }),
  retryDelayMs: numberOption({ min: 0 }),
  maxRetryDelayMs: numberOption({ min: 0 }),
  retries: numberOption({ integer: true, min: 0 }),
  timeoutMs: numberOption({ above: 0 }),
  concurrency: numberOption({ integer: true, min: 1 }),
  enrolledShare: numberOption({ min: 0, max: 1 }),
  seed: numberOption({ integer: true, min: 0, max: 2 ** 32 - 1 }),
};

const DELIVERY_NUMBERS = z.object(
  Object.fromEntries(Object.entries(DELIVERY_NUMBER_RULES).map(([key, rule]) => [key, rule.optional()])) as {
    [K in keyof typeof DELIVERY_NUMBER_RULES]: z.ZodOptional<(typeof DELIVERY_NUMBER_RULES)[K]>;
  },
);

export interface DeliveryOptions {
  /** The receiver: an http(s) URL without credentials. Several (an array): the
   *  receivers behind a load balancer, taken in turn, round robin: event n's
   *  first attempt goes to URL n (modulo their number) and each retry to the
   *  URL after the one its previous attempt went to. */
  url: string | URL | ReadonlyArray<string | URL>;
  /** Events to send. Default 10; ignored when `forever`. */
  count?: number;
  /** Send until `signal` aborts (or `stop()`). */
  forever?: boolean;
  /** New events per second; 0 means no pacing (as fast as `concurrency` allows). Default 5. */
  rate?: number;
  /** Fraction of plate events, 0 to 1 (the rest are faces). Default 0.5, or what the
   *  scenario implies (only plates: 1; only faces: 0). Deterministic: after n events,
   *  floor(n × mix) are plates. */
  mix?: number;
  /** Credentials on every request. Default none. */
  auth?: AuthConfig;
  /** The events' images: `pictures` (default; small real JPEGs), `realistic` (the
   *  pictures at the bridge's real sizes: plate events of about 1 MiB with four
   *  crops, face events of about 370 KiB) or `fillers` (the sample endpoints'
   *  two-byte images). */
  images?: ImageMode;
  /** Same as `images: 'realistic'`. */
  realisticImages?: boolean;
  /** Plates, faces, tags, cameras, sites, time zones and times of day to draw
   *  events from (scenario.ts; checked, a mistake is a SimOptionError on
   *  `scenario`). Default: the built-in samples, detected now. */
  scenario?: ScenarioInput | Scenario;
  /** Seed of the scenario's draws: the same seed, the same events. Default: the
   *  scenario's own, else a random one (see DeliveryRun.seed). */
  seed?: number;
  /** Retry until the receiver answers 200 (only a 200 ends it), forever. */
  resilient?: boolean;
  /** Resilient: the pause between attempts. Otherwise: the first backoff, doubled
   *  on each retry. Milliseconds, default 1000. */
  retryDelayMs?: number;
  /** Cap of the exponential backoff, ms. Default 30000. */
  maxRetryDelayMs?: number;
  /** Not resilient: retries after the first attempt before the event fails. Default 3. */
  retries?: number;
  /** Per attempt: no complete answer within this many ms is a timeout (then a retry). Default 10000. */
  timeoutMs?: number;
  /** Most events in delivery at once (an event holds its slot through its retries). Default 4. */
  concurrency?: number;
  /** Accept any receiver certificate (self-signed). Default false. */
  insecure?: boolean;
  /** PEM: trust receiver certificates signed by these instead of the system's list. */
  ca?: string;
  /** Accept exactly the receiver certificate with this SHA-256 fingerprint (pinning). */
  fingerprint?: string;
  /** Stops the run: no new events, unfinished ones are abandoned. */
  signal?: AbortSignal;
  /** Send through this dispatcher instead of a pool made for the run (its TLS settings win over `insecure`). */
  dispatcher?: Dispatcher;
  /** Called after every attempt. */
  onAttempt?: (report: AttemptReport) => void;
  /** Draw plates and faces from these enrollments (enroll-server.ts): events of
   *  enrolled items carry their externalId and additional fields; the others
   *  carry externalId null and a plate nobody enrolled. */
  enrollments?: EnrollmentStore;
  /** With `enrollments`: the fraction of each kind's events that show an
   *  enrolled item, while any of that kind is enrolled, 0 to 1. Default 0.5. */
  enrolledShare?: number;
}

/** A bad delivery option; `option` names the DeliveryOptions key. */
export class SimOptionError extends Error {
  readonly code = 'ERR_SIM_OPTION';
  constructor(
    readonly option: string,
    readonly detail: string,
  ) {
    super(`invalid ${option}: ${detail}`);
    this.name = 'SimOptionError';
  }
}

export interface Resolved {
  /** The first receiver. */
  url: URL;
  /** Every receiver, in the order given (one unless round robin). */
  urls: URL[];
  count: number;
  forever: boolean;
  rate: number;
  mix: number;
  auth: AuthConfig;
  images: ImageMode;
  /** Undefined when the events are the plain samples. */
  scenario?: Scenario;
  seed?: number;
  resilient: boolean;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  retries: number;
  timeoutMs: number;
  concurrency: number;
  insecure: boolean;
  ca?: string;
  fingerprint?: string;
  enrolledShare: number;
}

/** Checks and completes the options; throws SimOptionError. */
export function resolveDeliveryOptions(options: DeliveryOptions): Resolved {
  const given = options.url;
  const list: ReadonlyArray<string | URL> = Array.isArray(given) ? given : [given as string | URL];
  if (list.length === 0) throw new SimOptionError('url', 'at least one receiver URL is needed');
  const urls = list.map(resolveUrl);
  const auth: AuthConfig = options.auth ?? { mode: 'none' };
  const authProblem = authConfigProblem(auth);
  if (authProblem) throw new SimOptionError('auth', renderMessage(authProblem));
  const numbers = parseOptions(DELIVERY_NUMBERS, pickNumbers(options));
  if (!numbers.ok) throw new SimOptionError(numbers.problems[0].option, renderMessage(numbers.problems[0]));
  const images = options.realisticImages ? 'realistic' : (options.images ?? DELIVERY_DEFAULTS.images);
  if (!(IMAGE_MODES as readonly string[]).includes(images))
    throw new SimOptionError('images', `expected ${IMAGE_MODES.join(', ')}, got "${String(images)}"`);
  let scenario: Scenario | undefined;
  if (options.scenario !== undefined) {
    try {
      scenario = isScenario(options.scenario) ? options.scenario : parseScenario(options.scenario);
    } catch (err) {
      if (err instanceof ScenarioError) throw new SimOptionError('scenario', err.problems.join('; '));
      throw err;
    }
    if (isEmptyScenario(scenario) && scenario.seed === undefined) scenario = undefined;
  }
  const mix = numbers.value.mix ?? (scenario && impliedMix(scenario));
  return {
    ...DELIVERY_DEFAULTS,
    ...definedOnly(numbers.value),
    ...(mix !== undefined ? { mix } : {}),
    url: urls[0],
    urls,
    forever: !!options.forever,
    auth,
    images,
    scenario,
    resilient: !!options.resilient,
    insecure: !!options.insecure,
    ca: options.ca,
    fingerprint: options.fingerprint,
  };
}

/** One receiver URL, checked. */
function resolveUrl(given: string | URL | undefined): URL {
  let url: URL;
  try {
    url = new URL(String(given ?? ''));
  } catch {
    throw new SimOptionError('url', `"${String(given ?? '')}" is not an absolute URL such as http://127.0.0.1:1880/detections`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SimOptionError('url', `expected an http:// or https:// URL, got ${url.protocol}`);
  if (url.username || url.password) throw new SimOptionError('url', 'put credentials in the auth options, not in the URL');
  if (url.hash) throw new SimOptionError('url', 'a receiver URL has no #fragment');
  return url;
}

/** A scenario already checked by parseScenario (its lists are all there). */
function isScenario(value: ScenarioInput | Scenario): value is Scenario {
  const v = value as Partial<Scenario>;
  return Array.isArray(v.plates) && Array.isArray(v.faces) && Array.isArray(v.cameras) && Array.isArray(v.sites) && typeof v.tagPrefix === 'string';
}

function pickNumbers(options: DeliveryOptions): Record<string, unknown> {
  const values = options as unknown as Record<string, unknown>;
  return Object.fromEntries(Object.keys(DELIVERY_NUMBER_RULES).map((key) => [key, values[key]]));
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The headers that carry the configured credentials. */
export function authHeaders(auth: AuthConfig): Record<string, string> {
  const mode: AuthMode = auth.mode;
  switch (mode) {
    case 'basic':
      return { authorization: `Basic ${Buffer.from(`${auth.user ?? ''}:${auth.password ?? ''}`, 'utf8').toString('base64')}` };
    case 'bearer':
      return { authorization: `Bearer ${auth.token ?? ''}` };
    case 'header':
      return auth.headerName ? { [auth.headerName.toLowerCase()]: auth.headerValue ?? '' } : {};
    default:
      return {};
  }
}
