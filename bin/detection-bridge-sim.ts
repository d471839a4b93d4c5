#!/usr/bin/env node
/**
 * detection-bridge-sim: a stand-in for the events bridge, for building and
 * load-testing a receiver without a real bridge.
 *
 *   detection-bridge-sim serve   the anonymous sample endpoints /api/v1/webhook-models/{face,lpr}
 *   detection-bridge-sim send    face and plate events POSTed to a receiver URL
 *
 * A thin shell around lib/bridge-sim: options are read with node:util
 * parseArgs (strict), checked, and handed over. Exit codes: 0 done, 1 events
 * failed or the program failed, 2 bad command line.
 */
import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { AuthConfig, AuthMode } from '../lib/events/auth';
import { createMockCore } from '../sim/mock-core';
import {
  DEFAULT_SAMPLE_HOST,
  DEFAULT_SAMPLE_PORT,
  DELIVERY_DEFAULTS,
  formatSummary,
  SimOptionError,
  startDelivery,
  startSampleServer,
  writeSummaryJson,
  type AttemptReport,
  type DeliveryOptions,
  type SampleServer,
  type SampleServerTls,
} from '../sim';

const MOCK_CORE_USER = 'admin';
const MOCK_CORE_PASSWORD = 'secret';

const PROG = 'detection-bridge-sim';

/** A bad command line: message on stderr, exit code 2. */
class UsageError extends Error {}

const ENV_PASSWORD = 'DETECTION_SIM_PASSWORD';
const ENV_TOKEN = 'DETECTION_SIM_TOKEN';
const ENV_HEADER_VALUE = 'DETECTION_SIM_HEADER_VALUE';

export const USAGE = `Usage:
  ${PROG} serve [options]           serve the events bridge's anonymous sample endpoints
  ${PROG} send --url URL [options]  deliver face and plate events to a receiver, as the bridge does
  ${PROG} --help                    this text (also: ${PROG} help, ${PROG} <command> --help)

serve: GET {base}/api/v1/webhook-models/face and /lpr answer 200 with a fully
populated example event (fresh messageId and timestamps, two-byte filler
images, serverContext null). Any other /api/v1/ path without
"Authorization: Bearer <JWT>" answers 401 with a JSON problem body.
  --port N              port to listen on (default ${DEFAULT_SAMPLE_PORT}; 0 picks a free port)
  --host ADDRESS        address to listen on (default ${DEFAULT_SAMPLE_HOST}; 0.0.0.0 for every interface)
  --base-path PATH      path prefix, as the cloud bridge has (e.g. /eventsbridge; default none)
  --tls-self-signed     serve HTTPS with a throw-away self-signed certificate (its SHA-256
                        fingerprint is printed; clients must accept self-signed certificates)
  --tls-cert FILE       serve HTTPS with this PEM certificate (needs --tls-key)
  --tls-key FILE        the PEM private key for --tls-cert
  --core                also serve a mock platform v2 core under /api/v2/ on the same port
                        (user admin, password secret; POS instances pos-main-bar, pos-restaurant)
  --quiet               do not log requests

send: POSTs events with a fresh messageId each; success only on a 2xx answer.
A replay carries "resentEvent": true and the same messageId. A slow answer
hits --timeout and is retried, so a slow receiver sees the event twice.
  --url URL             the receiver, http:// or https:// (required)
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
  --realistic-images    plate events of about 1 MiB (four crops: Close, Medium, Car, FullFrame)
                        and face events of about 370 KiB, instead of two-byte images
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
  --summary-json FILE   also write the summary as JSON to FILE
  --quiet               no progress lines on stderr; the summary table is still printed

The summary (stdout) counts events sent, attempts, acknowledged, retried
(replays), failed, abandoned (unfinished when stopped), answers by status
code, attempts without an answer, and latency p50/p90/p99/max of acknowledged
attempts.

Exit codes: 0 done (every finished event acknowledged; a stop is not a
failure), 1 some events failed or the program failed, 2 bad command line.
`;

type Options = NonNullable<ParseArgsConfig['options']>;

const HELP: Options = { help: { type: 'boolean', short: 'h' } };

const SERVE_OPTIONS: Options = {
  ...HELP,
  port: { type: 'string' },
  host: { type: 'string' },
  'base-path': { type: 'string' },
  'tls-self-signed': { type: 'boolean' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  core: { type: 'boolean' },
  quiet: { type: 'boolean' },
};

const SEND_OPTIONS: Options = {
  ...HELP,
  url: { type: 'string' },
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
  'realistic-images': { type: 'boolean' },
  resilient: { type: 'boolean' },
  'retry-delay': { type: 'string' },
  timeout: { type: 'string' },
  retries: { type: 'string' },
  concurrency: { type: 'string' },
  insecure: { type: 'boolean' },
  'summary-json': { type: 'string' },
  quiet: { type: 'boolean' },
};

type Values = Record<string, string | boolean | undefined>;

function parse(args: string[], options: Options): Values {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** A number option: undefined when absent. */
function num(values: Values, name: string, what: { integer?: boolean; min?: number; max?: number; above?: number; unit?: string }): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  const n = Number(text);
  if (!NUMBER.test(text) || !Number.isFinite(n)) throw new UsageError(`--${name}: "${raw}" is not a number`);
  if (what.integer && !Number.isInteger(n)) throw new UsageError(`--${name}: expected a whole number, got ${raw}`);
  if (what.min !== undefined && n < what.min) throw new UsageError(`--${name}: must be at least ${what.min}${what.unit ?? ''}, got ${raw}`);
  if (what.max !== undefined && n > what.max) throw new UsageError(`--${name}: must be at most ${what.max}${what.unit ?? ''}, got ${raw}`);
  if (what.above !== undefined && n <= what.above) throw new UsageError(`--${name}: must be more than ${what.above}${what.unit ?? ''}, got ${raw}`);
  return n;
}

function str(values: Values, name: string): string | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const s = String(v);
  if (s === '') throw new UsageError(`--${name}: the value is empty`);
  return s;
}

const AUTH_MODES: readonly AuthMode[] = ['none', 'basic', 'bearer', 'header'];
const AUTH_FLAGS: Record<Exclude<AuthMode, 'none'>, string[]> = {
  basic: ['user', 'password'],
  bearer: ['token'],
  header: ['header-name', 'header-value'],
};

/** The credentials from --auth and the credential options; conflicts are usage errors. */
export function authFromArgs(values: Values, env: NodeJS.ProcessEnv = process.env): AuthConfig {
  const given = (Object.keys(AUTH_FLAGS) as Array<keyof typeof AUTH_FLAGS>).filter((mode) => AUTH_FLAGS[mode].some((f) => values[f] !== undefined));
  const flagsOf = (modes: string[]): string => modes.flatMap((m) => AUTH_FLAGS[m as keyof typeof AUTH_FLAGS].filter((f) => values[f] !== undefined).map((f) => `--${f}`)).join(', ');
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

/** Delivery options from the `send` command line. */
export function deliveryOptionsFromArgs(values: Values, env: NodeJS.ProcessEnv = process.env): DeliveryOptions & { summaryJson?: string; quiet: boolean } {
  const rawUrl = str(values, 'url');
  if (!rawUrl) throw new UsageError('--url is required: the receiver, e.g. --url http://127.0.0.1:1880/detections');
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new UsageError(`--url: "${rawUrl}" is not an absolute URL such as http://127.0.0.1:1880/detections`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url: expected http:// or https://, got ${url.protocol}//`);
  if (url.username || url.password) throw new UsageError('--url: put credentials in --user/--password (or --token, --header-*), not in the URL');
  const forever = values.forever === true;
  if (forever && values.count !== undefined) throw new UsageError('--count and --forever conflict: choose one');
  const resilient = values.resilient === true;
  if (resilient && values.retries !== undefined) throw new UsageError('--retries and --resilient conflict: a resilient delivery retries until it gets a 200');
  return {
    url: url.href,
    count: num(values, 'count', { integer: true, min: 1 }),
    forever,
    rate: num(values, 'rate', { min: 0, unit: ' events/s' }),
    mix: num(values, 'mix', { min: 0, max: 1 }),
    auth: authFromArgs(values, env),
    realisticImages: values['realistic-images'] === true,
    resilient,
    retryDelayMs: num(values, 'retry-delay', { min: 0, unit: ' ms' }),
    timeoutMs: num(values, 'timeout', { above: 0, unit: ' ms' }),
    retries: num(values, 'retries', { integer: true, min: 0 }),
    concurrency: num(values, 'concurrency', { integer: true, min: 1 }),
    insecure: values.insecure === true,
    summaryJson: str(values, 'summary-json'),
    quiet: values.quiet === true,
  };
}

const FLAG_OF: Record<string, string> = {
  url: '--url',
  count: '--count',
  rate: '--rate',
  mix: '--mix',
  auth: '--auth',
  retryDelayMs: '--retry-delay',
  timeoutMs: '--timeout',
  retries: '--retries',
  concurrency: '--concurrency',
};

/** A problem body's title, else the start of the body. */
function answerText(detail: string): string {
  const title = /"title"\s*:\s*"([^"]{1,80})"/.exec(detail);
  return title ? title[1] : detail.slice(0, 80);
}

function describeAttempt(r: AttemptReport): string {
  const answer =
    r.status !== undefined
      ? `${r.status}${r.detail ? ` ${answerText(r.detail)}` : ''}`
      : `${r.error}${r.detail && r.error !== 'timeout' ? ` (${r.detail.slice(0, 80)})` : ''}`;
  const then =
    r.outcome === 'retry' ? `retry in ${r.retryInMs} ms` : r.outcome === 'failed' ? 'FAILED' : r.outcome === 'aborted' ? 'stopped' : 'acknowledged';
  return `#${r.seq} ${r.kind === 'lpr' ? 'plate' : 'face'} ${r.messageId} attempt ${r.attempt}: ${answer} → ${then}`;
}

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

const stdio: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

async function send(args: string[], io: Io): Promise<number> {
  const values = parse(args, SEND_OPTIONS);
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const { summaryJson, quiet, ...options } = deliveryOptionsFromArgs(values);
  let run;
  try {
    run = startDelivery(options);
  } catch (err) {
    if (err instanceof SimOptionError) throw new UsageError(`${FLAG_OF[err.option] ?? err.option}: ${err.detail}`);
    throw err;
  }
  const log = quiet ? () => undefined : (line: string) => io.err(`${line}\n`);
  const count = options.count ?? DELIVERY_DEFAULTS.count;
  const total = options.forever ? 'events until stopped' : `${count} ${count === 1 ? 'event' : 'events'}`;
  const rate = options.rate ?? DELIVERY_DEFAULTS.rate;
  log(
    `${PROG}: ${total} to ${options.url} at ${rate === 0 ? 'no set rate' : `${rate}/s`}, ` +
      `${Math.round((options.mix ?? DELIVERY_DEFAULTS.mix) * 100)}% plates, auth ${options.auth?.mode ?? 'none'}` +
      `${options.resilient ? ', resilient' : ''}${options.realisticImages ? ', realistic images' : ''}${options.insecure ? ', insecure TLS' : ''}`,
  );
  run.on('attempt', (r) => {
    if (r.outcome !== 'acknowledged') log(describeAttempt(r));
  });
  const ticker = quiet
    ? undefined
    : setInterval(() => {
        const s = run.snapshot();
        log(
          `${(s.durationMs / 1000).toFixed(1)} s  sent ${s.sent} · acknowledged ${s.acknowledged} · retried ${s.retried} · failed ${s.failed} · in delivery ${s.sent - s.acknowledged - s.failed - s.abandoned}`,
        );
      }, 1000);
  ticker?.unref();
  let stops = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    stops++;
    if (stops === 1) {
      io.err(`${PROG}: ${signal}: stopping (again to quit at once)\n`);
      run.stop();
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const summary = await run.done;
    io.out(formatSummary(summary));
    if (summaryJson) {
      try {
        await writeSummaryJson(summaryJson, summary);
      } catch (err) {
        io.err(`${PROG}: could not write --summary-json ${summaryJson}: ${(err as Error).message}\n`);
        return 1;
      }
    }
    return summary.failed > 0 ? 1 : 0;
  } finally {
    if (ticker) clearInterval(ticker);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** The mock platform v2 core (lib/mock-core.ts), mounted beside the sample
 *  endpoints: /api/v2/... shares their port. Sign in as admin / secret. */
interface StartedCore {
  handler?: RequestListener;
  url?: string;
  close?: () => Promise<void>;
}

async function startCoreHook(): Promise<StartedCore> {
  const core = createMockCore({ userName: MOCK_CORE_USER, password: MOCK_CORE_PASSWORD });
  return { handler: core.handler };
}

async function serve(args: string[], io: Io): Promise<number> {
  const values = parse(args, SERVE_OPTIONS);
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const port = num(values, 'port', { integer: true, min: 0, max: 65535 }) ?? DEFAULT_SAMPLE_PORT;
  const host = str(values, 'host') ?? DEFAULT_SAMPLE_HOST;
  const basePath = str(values, 'base-path');
  if (basePath !== undefined && !/^\/?[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(basePath)) throw new UsageError(`--base-path: "${basePath}" is not a URL path`);
  const certFile = str(values, 'tls-cert');
  const keyFile = str(values, 'tls-key');
  if (values['tls-self-signed'] && (certFile || keyFile)) throw new UsageError('--tls-self-signed conflicts with --tls-cert/--tls-key: choose one');
  if (!!certFile !== !!keyFile) throw new UsageError('--tls-cert and --tls-key go together');
  let tls: SampleServerTls | 'self-signed' | undefined;
  if (values['tls-self-signed']) tls = 'self-signed';
  else if (certFile && keyFile) {
    try {
      tls = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
    } catch (err) {
      io.err(`${PROG}: cannot read the TLS files: ${(err as Error).message}\n`);
      return 1;
    }
  }
  const core = values.core ? await startCoreHook() : undefined;
  const quiet = values.quiet === true;
  let server: SampleServer;
  try {
    server = await startSampleServer({
      port,
      host,
      basePath,
      tls,
      fallback: core?.handler,
      onRequest: quiet ? undefined : (r) => io.err(`${new Date().toISOString()} ${r.method} ${r.path} ${r.status}\n`),
    });
  } catch (err) {
    await core?.close?.().catch(() => undefined);
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? `port ${port} on ${host} is in use (try --port 0 for a free one)` : (err as Error).message;
    io.err(`${PROG}: cannot serve: ${why}\n`);
    return 1;
  }
  io.out(`${PROG}: sample endpoints at ${server.url}\n`);
  io.out(`  GET ${server.url}/api/v1/webhook-models/face\n`);
  io.out(`  GET ${server.url}/api/v1/webhook-models/lpr\n`);
  if (server.fingerprint256) io.out(`  TLS: self-signed certificate, SHA-256 fingerprint ${server.fingerprint256}\n`);
  if (core?.url) io.out(`  mock v2 core at ${core.url}\n`);
  else if (core?.handler) io.out(`  mock v2 core at ${server.url}/api/v2/\n`);
  io.out('Ctrl-C stops.\n');
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await Promise.all([server.close(), core?.close?.()]);
  io.err(`${PROG}: stopped\n`);
  return 0;
}

/** Runs the program with the arguments after the script name; resolves with the exit code. */
export async function main(argv: string[], io: Io = stdio): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(rest, io);
      case 'send':
        return await send(rest, io);
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return 0;
      case undefined:
        throw new UsageError('a command is needed: serve or send');
      default:
        throw new UsageError(command.startsWith('-') ? `unknown option ${command} before a command (serve or send)` : `unknown command "${command}": expected serve or send`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${PROG}: ${err.message}\nRun "${PROG} --help" for the options.\n`);
      return 2;
    }
    io.err(`${PROG}: ${(err as Error)?.stack ?? String(err)}\n`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`${PROG}: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
