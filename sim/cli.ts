/**
 * detection-bridge-sim: a stand-in for the events bridge, for building and
 * load-testing a receiver without a real bridge.
 *
 *   detection-bridge-sim serve   the anonymous sample endpoints /api/v1/webhook-models/{face,lpr}
 *                                the enrollment endpoints and the WebHooks controller (in
 *                                memory, behind a JWT); with
 *                                --send-to, also delivers events drawing from what is enrolled
 *   detection-bridge-sim send    face and plate events POSTed to a receiver URL
 *
 * Why `serve --send-to` and not `send --bridge`: the real bridge is one system
 * that both keeps the enrollments and delivers the events; the simulator does
 * the same in one process, so a delivery sees an unenrollment at once, and no
 * endpoint the bridge does not have (the documented list gives ids only, not
 * the plates and fields an event needs) is made up for a second process.
 *
 * The program behind bin/detection-bridge-sim.ts: the command line (read in
 * cli-args.ts) handed to the simulator. Exit codes: 0 done, 1 events failed
 * or the program failed, 2 bad command line.
 */
import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
export { PROG } from './cli-args';
import {
  deliveryOptionsFromArgs,
  ENV_JWT,
  FLAG_OF,
  num,
  parse,
  PORT_RULE,
  PROG,
  SEND_BY_SERVE_OPTIONS,
  SEND_OPTIONS,
  SERVE_OPTIONS,
  str,
  USAGE,
  UsageError,
  type Values,
} from './cli-args';
import { startDelivery, type AttemptReport, type DeliveryRun } from './delivery';
import { DELIVERY_DEFAULTS, DELIVERY_NUMBER_RULES, SimOptionError, type DeliveryOptions } from './delivery-options';
import { EnrollmentStore } from './enroll-server';
import { WebHookStore } from './webhooks-server';
import { createMockCore } from './mock-core';
import { DEFAULT_SAMPLE_HOST, DEFAULT_SAMPLE_PORT, startSampleServer, type SampleServer, type SampleServerTls } from './sample-server';
import { formatSummary, writeSummaryJson } from './summary';

const MOCK_CORE_USER = 'admin';
const MOCK_CORE_PASSWORD = 'secret';

/** A problem body's title, else the start of the body. */
function answerText(detail: string): string {
  const title = /"title"\s*:\s*"([^"]{1,80})"/.exec(detail);
  return title ? title[1] : detail.slice(0, 80);
}

function describeAttempt(r: AttemptReport): string {
  const answer =
    r.status !== undefined
      ? `${r.status}${r.detail ? ` ${answerText(r.detail)}` : ''}`
      : // how long the attempt ran tells a reset at the first write from one after a long wait
        `${r.error} after ${Math.round(r.latencyMs)} ms${r.detail && r.error !== 'timeout' ? ` (${r.detail.slice(0, 80)})` : ''}`;
  const then =
    r.outcome === 'retry' ? `retry in ${r.retryInMs} ms` : r.outcome === 'failed' ? 'FAILED' : r.outcome === 'aborted' ? 'stopped' : 'acknowledged';
  return `#${r.seq} ${r.kind === 'lpr' ? 'plate' : 'face'} ${r.messageId} attempt ${r.attempt}: ${answer} → ${then}`;
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

const stdio: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** Starts a delivery run; bad options are usage errors. */
function startRun(options: DeliveryOptions): DeliveryRun {
  try {
    return startDelivery(options);
  } catch (err) {
    if (err instanceof SimOptionError) throw new UsageError(`${FLAG_OF[err.option] ?? err.option}: ${err.detail}`);
    throw err;
  }
}

/** How the progress line names the scenario: its file or built-in name. */
function scenarioName(values: Values): string {
  const name = str(values, 'scenario');
  return name === undefined ? '' : ` ${name}`;
}

async function send(args: string[], io: Io): Promise<number> {
  const values = parse(args, SEND_OPTIONS);
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const { summaryJson, quiet, ...options } = deliveryOptionsFromArgs(values);
  const run = startRun(options);
  const log = quiet ? () => undefined : (line: string) => io.err(`${line}\n`);
  const count = options.count ?? DELIVERY_DEFAULTS.count;
  const total = options.forever ? 'events until stopped' : `${count} ${count === 1 ? 'event' : 'events'}`;
  const rate = options.rate ?? DELIVERY_DEFAULTS.rate;
  log(
    `${PROG}: ${total} to ${Array.isArray(options.url) ? `${options.url.join(', ')} (round robin)` : options.url} at ${rate === 0 ? 'no set rate' : `${rate}/s`}, ` +
      `${Math.round((options.mix ?? DELIVERY_DEFAULTS.mix) * 100)}% plates, auth ${options.auth?.mode ?? 'none'}` +
      `${options.resilient ? ', resilient' : ''}, ${options.images ?? DELIVERY_DEFAULTS.images} images${options.insecure ? ', insecure TLS' : ''}` +
      `${run.seed !== undefined ? `, scenario${scenarioName(values)} with --seed ${run.seed}` : ''}`,
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

/** The mock platform v2 core (sim/mock-core.ts), mounted beside the sample
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

/** The delivery of `serve --send-to`, from the send options given with it. */
function serveDelivery(values: Values, enrollments: EnrollmentStore): (DeliveryOptions & { summaryJson?: string }) | undefined {
  if (values['send-to'] === undefined) {
    const stray = Object.keys(values).filter((name) => name in SEND_BY_SERVE_OPTIONS || name === 'enrolled-share');
    if (stray.length) throw new UsageError(`--${stray[0]} is an option of the delivery: give --send-to URL with it`);
    return undefined;
  }
  try {
    const { quiet: _quiet, ...options } = deliveryOptionsFromArgs({ ...values, url: values['send-to'] });
    return { ...options, enrollments, enrolledShare: num(values, 'enrolled-share', DELIVERY_NUMBER_RULES.enrolledShare) };
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(err.message.replace(/--url\b/g, '--send-to'));
    throw err;
  }
}

async function serve(args: string[], io: Io): Promise<number> {
  const values = parse(args, { ...SEND_BY_SERVE_OPTIONS, ...SERVE_OPTIONS });
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const enrollments = new EnrollmentStore({ token: str(values, 'jwt') ?? (process.env[ENV_JWT] || undefined) });
  // One JWT for the whole bridge, as the real one has.
  const webhooks = new WebHookStore({ token: () => enrollments.token });
  const delivery = serveDelivery(values, enrollments);
  const port = num(values, 'port', PORT_RULE) ?? DEFAULT_SAMPLE_PORT;
  const host = str(values, 'host') ?? DEFAULT_SAMPLE_HOST;
  const basePath = str(values, 'base-path');
  if (basePath !== undefined && !/^\/?[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(basePath))
    throw new UsageError(`--base-path: "${basePath}" is not a URL path`);
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
      enrollments,
      webhooks,
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
  io.out(`enrollment endpoints and WebHooks controller (in memory, behind the JWT below):\n`);
  io.out(`  PUT, DELETE, GET ${server.url}/api/v1/lpr/monitor/{externalId}    GET ${server.url}/api/v1/lpr/monitored\n`);
  io.out(`  PUT, DELETE, GET ${server.url}/api/v1/faces/monitor/{externalId}  GET ${server.url}/api/v1/faces/monitored\n`);
  io.out(`  PUT, GET ${server.url}/api/v1/webhooks  GET, DELETE ${server.url}/api/v1/webhooks/{hookId}  GET ${server.url}/api/v1/webhooks/new\n`);
  io.out(`  JWT: ${enrollments.token}\n`);
  if (server.fingerprint256) io.out(`  TLS: self-signed certificate, SHA-256 fingerprint ${server.fingerprint256}\n`);
  if (core?.url) io.out(`  mock v2 core at ${core.url}\n`);
  else if (core?.handler) io.out(`  mock v2 core at ${server.url}/api/v2/\n`);
  let run: DeliveryRun | undefined;
  if (delivery) {
    const { summaryJson: _summary, ...options } = delivery;
    run = startRun(options);
    const targets = ([] as Array<string | URL>).concat(options.url as string | URL).join(', ');
    io.out(
      `delivering to ${targets} at ${options.rate ?? DELIVERY_DEFAULTS.rate}/s, enrolled plates and faces in ${options.enrolledShare ?? DELIVERY_DEFAULTS.enrolledShare} of the events` +
        `${run.seed !== undefined ? `, scenario${scenarioName(values)} with --seed ${run.seed}` : ''}\n`,
    );
    if (!quiet) run.on('attempt', (r) => r.outcome !== 'acknowledged' && io.err(`${describeAttempt(r)}\n`));
  }
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
  if (run) {
    run.stop();
    const summary = await run.done;
    io.out(formatSummary(summary));
    if (delivery?.summaryJson) await writeSummaryJson(delivery.summaryJson, summary);
  }
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
        throw new UsageError(
          command.startsWith('-')
            ? `unknown option ${command} before a command (serve or send)`
            : `unknown command "${command}": expected serve or send`,
        );
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
