/**
 * The simulator's command line: the options of `serve` and `send`, read with
 * node:util parseArgs (strict), and turned into the options of a run. Number
 * options are checked by the run's own rules (delivery-options.ts), so the
 * command line and the API refuse the same values with the same words.
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import type { AuthConfig, AuthMode } from '../lib/receiver';
import { renderMessage, numberOption, parseOptions } from '../lib/core';
import { DELIVERY_DEFAULTS, DELIVERY_NUMBER_RULES, type DeliveryOptions } from './delivery-options';
import { DEFAULT_SAMPLE_HOST, DEFAULT_SAMPLE_PORT } from './sample-server';
import { IMAGE_MODES, type ImageMode } from './events';
import { BUILT_IN_SCENARIOS, parseScenario, ScenarioError, TIME_OF_DAY_NAMES, type Scenario, type ScenarioInput } from './scenario';
import { normalizeFingerprint } from './tls';

export const PROG = 'detection-bridge-sim';

/** A bad command line: message on stderr, exit code 2. */
export class UsageError extends Error {}

/** A port to listen on; 0 picks a free one. */
export const PORT_RULE = numberOption({ integer: true, min: 0, max: 65535 });

const ENV_PASSWORD = 'DETECTION_SIM_PASSWORD';
export const ENV_TOKEN = 'DETECTION_SIM_TOKEN';
export const ENV_HEADER_VALUE = 'DETECTION_SIM_HEADER_VALUE';
export const ENV_JWT = 'DETECTION_SIM_JWT';

export const USAGE = `Usage:
  ${PROG} serve [options]           serve the events bridge's sample and enrollment endpoints
  ${PROG} send --url URL [options]  deliver face and plate events to a receiver, as the bridge does
  ${PROG} --help                    this text (also: ${PROG} help, ${PROG} <command> --help)

serve: GET {base}/api/v1/webhook-models/face and /lpr answer 200 with a fully
populated example event (fresh messageId and timestamps, two-byte filler
images, serverContext null). The enrollment endpoints keep what is enrolled
in memory, behind a JWT printed at start:
  PUT, DELETE, GET {base}/api/v1/lpr/monitor/{externalId}     enroll, unenroll, check a plate
  GET              {base}/api/v1/lpr/monitored                 list (paged with ?page=N&pageSize=M,
                                                               the simulator's own: the bridge
                                                               documents no paging)
  and the same under {base}/api/v1/faces/ (the photo as base64 in "faceImage").
They answer 200, 401 (no or another JWT) or 500 with a reason. Any other
/api/v1/ path without "Authorization: Bearer <JWT>" answers 401 with a JSON
problem body.
  --port N              port to listen on (default ${DEFAULT_SAMPLE_PORT}; 0 picks a free port)
  --host ADDRESS        address to listen on (default ${DEFAULT_SAMPLE_HOST}; 0.0.0.0 for every interface)
  --base-path PATH      path prefix, as the cloud bridge has (e.g. /eventsbridge; default none)
  --tls-self-signed     serve HTTPS with a throw-away self-signed certificate (its SHA-256
                        fingerprint is printed; clients must accept self-signed certificates)
  --tls-cert FILE       serve HTTPS with this PEM certificate (needs --tls-key)
  --tls-key FILE        the PEM private key for --tls-cert
  --core                also serve a mock platform v2 core under /api/v2/ on the same port
                        (user admin, password secret; POS instances pos-main-bar, pos-restaurant)
  --jwt TOKEN           the JWT the enrollment endpoints accept (or set ${ENV_JWT});
                        default: a new one, printed at start
  --send-to URL         also deliver events to this receiver, as send --url does (repeat it
                        for round robin), drawing plates and faces from what is enrolled:
                        their events carry the externalId and, as "fields", the
                        additionalFields given at enrollment; the others carry externalId
                        null. Every send option below applies; sending stops with serve.
  --enrolled-share F    with --send-to: the fraction of each kind's events that show an
                        enrolled plate or face while any is enrolled, 0 to 1 (default ${DELIVERY_DEFAULTS.enrolledShare})
  --quiet               do not log requests

send: POSTs events with a fresh messageId each; success only on a 2xx answer.
A replay carries "resentEvent": true and the same messageId. A slow answer
hits --timeout and is retried, so a slow receiver sees the event twice.
  --url URL             the receiver, http:// or https:// (required); repeat it for several
                        instances behind one address: attempts go to them in turn, round
                        robin (event n first to the n-th URL), so a retry goes to the next one
  --count N             events to send (default ${DELIVERY_DEFAULTS.count})
  --forever             send until stopped with Ctrl-C (SIGINT) or SIGTERM; not with --count
  --rate R              new events per second (default ${DELIVERY_DEFAULTS.rate}; 0 = no pacing, as fast
                        as --concurrency allows)
  --mix F               fraction of plate events, 0 to 1; the rest are faces (default ${DELIVERY_DEFAULTS.mix})
  --auth MODE           credentials on every request: none, basic, bearer or header
                        (default: implied by the options below, else none)
  --user NAME           basic: user name
  --password SECRET     basic: password (or set ${ENV_PASSWORD})
  --token TOKEN         bearer: token, sent as "Authorization: Bearer TOKEN" (or set ${ENV_TOKEN})
  --header-name NAME    header: the header's name, e.g. X-Api-Key
  --header-value VALUE  header: the header's value (or set ${ENV_HEADER_VALUE})
  --images MODE         the events' images: pictures (default: small real JPEGs that show the
                        event's plate or the person's name: a face, an enrolled photo and one
                        per plate crop: Close, Medium, Car, FullFrame, Other), realistic (the
                        same pictures at the bridge's sizes: plate events of about 1 MiB, face
                        events of about 370 KiB), fillers (the two-byte images of the sample
                        endpoints, not pictures) or none (no image fields, as some bridges send)
  --realistic-images    the same as --images realistic
  --resilient           retry until the receiver answers 200 (only 200), every --retry-delay ms,
                        without limit
  --retry-delay MS      resilient: pause between attempts; otherwise the first backoff, doubled
                        on each retry up to 30 s (default ${DELIVERY_DEFAULTS.retryDelayMs})
  --timeout MS          per attempt: no complete answer within MS is a timeout, then a retry
                        (default ${DELIVERY_DEFAULTS.timeoutMs})
  --retries N           without --resilient: retries before an event counts as failed
                        (default ${DELIVERY_DEFAULTS.retries}; 0 = no retry)
  --concurrency N       most events in delivery at once; an event keeps its slot through
                        its retries (default ${DELIVERY_DEFAULTS.concurrency})
  --insecure            accept the receiver's self-signed (or otherwise untrusted) certificate
  --ca FILE             trust a receiver certificate signed by this PEM certificate (a self-signed
                        certificate is its own CA: give the certificate itself)
  --fingerprint SHA256  accept exactly the receiver certificate with this SHA-256 fingerprint
                        (AB:CD:… as a detection listener's dialog shows it), whatever its names
  --summary-json FILE   also write the summary as JSON to FILE
  --quiet               no progress lines on stderr; the summary table is still printed

What the events show (send, and serve --send-to). Without these, every plate
event is XYZ987 and every face John Michael Doe, both tagged VIP, detected
now: the built-in samples. Lists are separated by commas (or give the option
again); a tag is NAME or NAME@DATE (expires that day, e.g. VIP@2030-12-31).
  --scenario NAME|FILE  a built-in scenario: mixed (plates and faces, VIP and Banned and
                        untagged, day and night, six cameras at three sites in three time
                        zones) or sample (the built-in samples); or a JSON file:
                          { "plates": ["ABC123:Banned", {"plate": "XYZ987", "tags": ["VIP"]}],
                            "faces": ["Jane Roe:VIP", "Max Mustermann"],
                            "cameras": [{"name": "Gate 2 LPR", "kind": "plate",
                                         "site": "Site 1", "timeZone": "America/New_York"}],
                            "sites": [{"name": "Site 1", "serverContext": {"SiteId": "1"}}],
                            "timeZones": ["America/New_York"], "timesOfDay": ["night"],
                            "tagPrefix": "partner", "seed": 7 }
                        every key may be left out; the options below replace the file's lists;
                        a plate or person with "images": false is sent without pictures
  --plates LIST         plates, each PLATE or PLATE:TAG:TAG…, e.g. "ABC123:Banned,XYZ987:VIP,KLM456"
                        (no tag: an untagged plate); only plates given: every event is a plate
  --faces LIST          people, each "First [Middle] Last" or "First Last:TAG…", e.g.
                        "Jane Roe:VIP,Max Mustermann" (no tag: nobody's VIP); only faces
                        given: every event is a face (--mix still wins)
  --cameras LIST        camera names (the events' detectorName), for both kinds, or
                        plate:NAME / face:NAME for one, e.g. "plate:Gate 2 LPR,face:Lobby Cam"
  --sites LIST          site names (the events' sourceName)
  --time-zone LIST      IANA time zones, e.g. America/New_York (a camera's own zone wins)
  --time-of-day LIST    ${TIME_OF_DAY_NAMES.join(', ')} or a local time HH:MM; the event's
                        dateTimeUtc is the latest moment, not after now, when it was that
                        time in its zone (night: 22:00 to 05:59; day: 08:00 to 17:59;
                        morning 06-12, afternoon 12-18, evening 18-22); default now
  --tag-prefix PREFIX   tags as the integrator's account sends them: PREFIX-NAME
  --seed N              the same seed, the same plates, faces, cameras and local times
                        (default: the scenario's seed, else a random one, printed at start)
  e.g. ${PROG} send --url URL --plates "ABC123:Banned,XYZ987:VIP" --time-of-day night \\
         --time-zone America/New_York

The summary (stdout) counts events sent, attempts, acknowledged, retried
(replays), failed, abandoned (unfinished when stopped), answers by status
code, attempts without an answer, and latency p50/p90/p99/max of acknowledged
attempts.

Exit codes: 0 done (every finished event acknowledged; a stop is not a
failure), 1 some events failed or the program failed, 2 bad command line.
`;

export type Options = NonNullable<ParseArgsConfig['options']>;

export const HELP: Options = { help: { type: 'boolean', short: 'h' } };

export const SERVE_OPTIONS: Options = {
  ...HELP,
  jwt: { type: 'string' },
  'send-to': { type: 'string', multiple: true },
  'enrolled-share': { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'base-path': { type: 'string' },
  'tls-self-signed': { type: 'boolean' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  core: { type: 'boolean' },
  quiet: { type: 'boolean' },
};

export const SEND_OPTIONS: Options = {
  ...HELP,
  url: { type: 'string', multiple: true },
  count: { type: 'string' },
  forever: { type: 'boolean' },
  rate: { type: 'string' },
  mix: { type: 'string' },
  auth: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  token: { type: 'string' },
  'header-name': { type: 'string' },
  'header-value': { type: 'string' },
  images: { type: 'string' },
  'realistic-images': { type: 'boolean' },
  scenario: { type: 'string' },
  plates: { type: 'string', multiple: true },
  faces: { type: 'string', multiple: true },
  cameras: { type: 'string', multiple: true },
  sites: { type: 'string', multiple: true },
  'time-zone': { type: 'string', multiple: true },
  'time-of-day': { type: 'string', multiple: true },
  'tag-prefix': { type: 'string' },
  seed: { type: 'string' },
  resilient: { type: 'boolean' },
  'retry-delay': { type: 'string' },
  timeout: { type: 'string' },
  retries: { type: 'string' },
  concurrency: { type: 'string' },
  insecure: { type: 'boolean' },
  ca: { type: 'string' },
  fingerprint: { type: 'string' },
  'summary-json': { type: 'string' },
  quiet: { type: 'boolean' },
};

/** The send options `serve --send-to` takes too: all but --url (its receiver is --send-to). */
export const SEND_BY_SERVE_OPTIONS: Options = Object.fromEntries(
  Object.entries(SEND_OPTIONS).filter(([name]) => !(name in SERVE_OPTIONS) && name !== 'url'),
);

export type Values = Record<string, string | string[] | boolean | undefined>;

export function parse(args: string[], options: Options): Values {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** A number option from its text, by the rule the run itself applies; undefined when absent. */
export function num(values: Values, name: string, rule: z.ZodType): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const checked = parseOptions(z.object({ value: rule }), { value: raw });
  if (!checked.ok) throw new UsageError(`--${name}: ${renderMessage(checked.problems[0])}`);
  return checked.value.value as number;
}

export function str(values: Values, name: string): string | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const s = String(v);
  if (s === '') throw new UsageError(`--${name}: the value is empty`);
  return s;
}

export const AUTH_MODES: readonly AuthMode[] = ['none', 'basic', 'bearer', 'header'];
export const AUTH_FLAGS: Record<Exclude<AuthMode, 'none'>, string[]> = {
  basic: ['user', 'password'],
  bearer: ['token'],
  header: ['header-name', 'header-value'],
};

/** The credentials from --auth and the credential options; conflicts are usage errors. */
export function authFromArgs(values: Values, env: NodeJS.ProcessEnv = process.env): AuthConfig {
  const given = (Object.keys(AUTH_FLAGS) as Array<keyof typeof AUTH_FLAGS>).filter((mode) => AUTH_FLAGS[mode].some((f) => values[f] !== undefined));
  const flagsOf = (modes: string[]): string =>
    modes.flatMap((m) => AUTH_FLAGS[m as keyof typeof AUTH_FLAGS].filter((f) => values[f] !== undefined).map((f) => `--${f}`)).join(', ');
  let mode: AuthMode;
  const asked = str(values, 'auth');
  if (asked !== undefined) {
    if (!(AUTH_MODES as readonly string[]).includes(asked)) throw new UsageError(`--auth: expected none, basic, bearer or header, got "${asked}"`);
    mode = asked as AuthMode;
    const others = given.filter((m) => m !== mode);
    if (others.length) throw new UsageError(`conflicting credentials: --auth ${mode} with ${flagsOf(others)}`);
  } else if (given.length > 1) {
    throw new UsageError(`conflicting credentials: ${flagsOf(given)} belong to different --auth modes; choose one`);
  } else {
    mode = given[0] ?? 'none';
  }
  switch (mode) {
    case 'basic': {
      const user = str(values, 'user');
      const password = str(values, 'password') ?? env[ENV_PASSWORD];
      if (!user) throw new UsageError('--auth basic needs --user');
      if (!password) throw new UsageError(`--auth basic needs --password (or ${ENV_PASSWORD})`);
      if (user.includes(':')) throw new UsageError('--user: a Basic user name cannot contain ":"');
      return { mode, user, password };
    }
    case 'bearer': {
      const token = str(values, 'token') ?? env[ENV_TOKEN];
      if (!token) throw new UsageError(`--auth bearer needs --token (or ${ENV_TOKEN})`);
      return { mode, token };
    }
    case 'header': {
      const headerName = str(values, 'header-name');
      const headerValue = str(values, 'header-value') ?? env[ENV_HEADER_VALUE];
      if (!headerName) throw new UsageError('--auth header needs --header-name');
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(headerName)) throw new UsageError(`--header-name: "${headerName}" is not a valid header name`);
      if (!headerValue) throw new UsageError(`--auth header needs --header-value (or ${ENV_HEADER_VALUE})`);
      return { mode, headerName, headerValue };
    }
    default:
      return { mode: 'none' };
  }
}

/** One --url value, checked: an absolute http(s) URL without credentials. */
function urlFromArg(rawUrl: string): string {
  if (rawUrl === '') throw new UsageError('--url: the value is empty');
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new UsageError(`--url: "${rawUrl}" is not an absolute URL such as http://127.0.0.1:1880/detections`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url: expected http:// or https://, got ${url.protocol}//`);
  if (url.username || url.password) throw new UsageError('--url: put credentials in --user/--password (or --token, --header-*), not in the URL');
  return url.href;
}

/** --ca (read here, so a missing file is a usage error) and --fingerprint (checked here). */
function trustFromArgs(values: Values): { ca?: string; fingerprint?: string } {
  const trust: { ca?: string; fingerprint?: string } = {};
  const caFile = str(values, 'ca');
  if (caFile !== undefined) {
    try {
      trust.ca = readFileSync(caFile, 'utf8');
    } catch (err) {
      throw new UsageError(`--ca: cannot read ${caFile}: ${(err as Error).message}`);
    }
    if (!trust.ca.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--ca: ${caFile} holds no PEM certificate`);
  }
  const fingerprint = str(values, 'fingerprint');
  if (fingerprint !== undefined) {
    const pinned = normalizeFingerprint(fingerprint);
    if (!pinned) throw new UsageError(`--fingerprint: "${fingerprint}" is not a SHA-256 fingerprint (64 hexadecimal digits, AB:CD:…)`);
    trust.fingerprint = pinned;
  }
  return trust;
}

/** Delivery options from the `send` command line. */
export function deliveryOptionsFromArgs(
  values: Values,
  env: NodeJS.ProcessEnv = process.env,
): DeliveryOptions & { summaryJson?: string; quiet: boolean } {
  const given = values.url === undefined ? [] : ([] as unknown[]).concat(values.url).map(String);
  if (given.length === 0) throw new UsageError('--url is required: the receiver, e.g. --url http://127.0.0.1:1880/detections');
  const urls = given.map(urlFromArg);
  const forever = values.forever === true;
  if (forever && values.count !== undefined) throw new UsageError('--count and --forever conflict: choose one');
  const resilient = values.resilient === true;
  if (resilient && values.retries !== undefined)
    throw new UsageError('--retries and --resilient conflict: a resilient delivery retries until it gets a 200');
  return {
    url: urls.length === 1 ? urls[0] : urls,
    count: num(values, 'count', DELIVERY_NUMBER_RULES.count),
    forever,
    rate: num(values, 'rate', DELIVERY_NUMBER_RULES.rate),
    mix: num(values, 'mix', DELIVERY_NUMBER_RULES.mix),
    auth: authFromArgs(values, env),
    images: imagesFromArgs(values),
    scenario: scenarioFromArgs(values),
    seed: num(values, 'seed', DELIVERY_NUMBER_RULES.seed),
    resilient,
    retryDelayMs: num(values, 'retry-delay', DELIVERY_NUMBER_RULES.retryDelayMs),
    timeoutMs: num(values, 'timeout', DELIVERY_NUMBER_RULES.timeoutMs),
    retries: num(values, 'retries', DELIVERY_NUMBER_RULES.retries),
    concurrency: num(values, 'concurrency', DELIVERY_NUMBER_RULES.concurrency),
    insecure: values.insecure === true,
    ...trustFromArgs(values),
    summaryJson: str(values, 'summary-json'),
    quiet: values.quiet === true,
  };
}

function imagesFromArgs(values: Values): ImageMode | undefined {
  const mode = str(values, 'images');
  if (mode !== undefined && !(IMAGE_MODES as readonly string[]).includes(mode))
    throw new UsageError(`--images: expected ${IMAGE_MODES.join(', ')}, got "${mode}"`);
  if (values['realistic-images'] === true) {
    if (mode !== undefined && mode !== 'realistic') throw new UsageError(`--realistic-images and --images ${mode} conflict: choose one`);
    return 'realistic';
  }
  return mode as ImageMode | undefined;
}

/** A list option's items: each value split on commas, blanks dropped; undefined when absent. */
function listOf(values: Values, name: string): string[] | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const items = ([] as unknown[])
    .concat(raw)
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (items.length === 0) throw new UsageError(`--${name}: the list is empty`);
  return items;
}

/** What each list option sets in the scenario. */
const SCENARIO_FLAGS: ReadonlyArray<[flag: string, key: keyof ScenarioInput]> = [
  ['plates', 'plates'],
  ['faces', 'faces'],
  ['cameras', 'cameras'],
  ['sites', 'sites'],
  ['time-zone', 'timeZones'],
  ['time-of-day', 'timesOfDay'],
];

function cameraFromArg(text: string): unknown {
  const m = /^(plate|face)\s*:\s*(.+)$/i.exec(text);
  return m ? { name: m[2].trim(), kind: m[1].toLowerCase() } : text;
}

/** The scenario file's content, or a built-in scenario by name. */
function scenarioBase(name: string): ScenarioInput {
  if (Object.prototype.hasOwnProperty.call(BUILT_IN_SCENARIOS, name)) return BUILT_IN_SCENARIOS[name];
  let text: string;
  try {
    text = readFileSync(name, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new UsageError(
      `--scenario: cannot read "${name}" (${why}); give a JSON file or a built-in scenario: ${Object.keys(BUILT_IN_SCENARIOS).join(', ')}`,
    );
  }
  try {
    return JSON.parse(text) as ScenarioInput;
  } catch (err) {
    throw new UsageError(`--scenario ${name}: not JSON: ${(err as Error).message}`);
  }
}

/**
 * The scenario from --scenario and the list options (which replace the
 * file's lists), checked; undefined when none is given. Mistakes name the
 * option, or the file and the place in it.
 */
export function scenarioFromArgs(values: Values): Scenario | undefined {
  const name = str(values, 'scenario');
  const prefix = values['tag-prefix'] === undefined ? undefined : String(values['tag-prefix']).trim();
  const lists = SCENARIO_FLAGS.map(([flag, key]) => [flag, key, listOf(values, flag)] as const).filter(([, , items]) => items !== undefined);
  if (name === undefined && lists.length === 0 && prefix === undefined) return undefined;
  const input: Record<string, unknown> = name === undefined ? {} : { ...scenarioBase(name) };
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new UsageError(`--scenario ${name}: expected a JSON object`);
  for (const [flag, key, items] of lists) {
    const given = key === 'cameras' ? items!.map(cameraFromArg) : items!;
    // checked alone first, so that a mistake names the option and the item
    try {
      parseScenario({ [key]: given });
    } catch (err) {
      if (err instanceof ScenarioError)
        throw new UsageError(
          `--${flag}: ${err.problems
            .map((p) => {
              const at = /^\w+\[(\d+)\][^:]*: /.exec(p);
              if (!at) return p.replace(/^\w+: /, '');
              const item = items![Number(at[1])];
              const rest = p.slice(at[0].length);
              return rest.includes(`"${item}"`) ? rest : `"${item}": ${rest}`;
            })
            .join('; ')}`,
        );
      throw err;
    }
    input[key] = given;
  }
  if (prefix !== undefined) input.tagPrefix = prefix;
  try {
    return parseScenario(input, name === undefined ? 'the scenario' : `--scenario ${name}`);
  } catch (err) {
    if (err instanceof ScenarioError) throw new UsageError(err.message);
    throw err;
  }
}

export const FLAG_OF: Record<string, string> = {
  url: '--url',
  count: '--count',
  rate: '--rate',
  mix: '--mix',
  auth: '--auth',
  retryDelayMs: '--retry-delay',
  timeoutMs: '--timeout',
  retries: '--retries',
  concurrency: '--concurrency',
  enrolledShare: '--enrolled-share',
  images: '--images',
  scenario: '--scenario',
  seed: '--seed',
};
