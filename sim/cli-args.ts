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
import { DELIVERY_NUMBER_RULES, type DeliveryOptions } from './delivery-options';
import { IMAGE_MODES, type ImageMode } from './events';
import { BUILT_IN_SCENARIOS, parseScenario, ScenarioError, type Scenario, type ScenarioInput } from './scenario';
import { normalizeFingerprint } from './tls';
import { ENV_HEADER_VALUE, ENV_JWT, ENV_PASSWORD, ENV_TOKEN, PROG, USAGE } from './cli-usage';

export { ENV_HEADER_VALUE, ENV_JWT, ENV_TOKEN, PROG, USAGE };

/** A bad command line: message on stderr, exit code 2. */
export class UsageError extends Error {}

/** A port to listen on; 0 picks a free one. */
export const PORT_RULE = numberOption({ integer: true, min: 0, max: 65535 });

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
