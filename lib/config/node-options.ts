/**
 * Each node type's options with a rule: the default a new node gets, the
 * range or the allowed values, and what a saved node that lacks the option
 * has always meant. Stated once: the runtime reads a node's configuration
 * with it (nodeOptions, readNodeOptions: a value it cannot use is named, and
 * the node warns at deploy), a node's saved configuration and its running
 * options are typed from it (SavedOptions, NodeOptionValues), lib's defaults
 * read it (optionDefault), and the editor builds the
 * dialog's `defaults` and validators from it (DetectionBridgeEditor.option,
 * nodes/shared/editor-helpers.ts). nodes/shared/editor-script.ts serves this
 * file's compiled text to the browser: it imports only lib/core/option-rules
 * (served beside it) and uses nothing a browser lacks.
 *
 * Options checked otherwise (paths, URLs, TypedInputs, configuration nodes)
 * stay with their node's dialog and runtime; the lists of allowed values are
 * also those of lib (test/unit/editor-defaults.test.js compares them).
 */
import { choiceRule, flagRule, numberRule, readOption, type OptionRule, type RuleProblem } from '../core/option-rules';

/**
 * The units the options are counted in, and what the runtime counts: each
 * conversion stated once, beside the options it converts (a dialog's time
 * units: ttlUnits, capUnits, awayUnits, stillHereUnits; …Seconds; …MiB).
 */
export const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;
export type TimeUnit = keyof typeof UNIT_MS;
/** `amount` of `units` (s, m, h) in milliseconds. */
export const durationMs = (amount: number, units: TimeUnit): number => amount * UNIT_MS[units];
/** An option counted in seconds (timeout, stallSeconds, …Seconds), in milliseconds. */
export const secondsMs = (seconds: number): number => seconds * UNIT_MS.s;
/** Bytes in a MiB (maxBodyMiB, maxInFlightMiB, journalMaxMiB, streamMaxMiB). */
export const MIB = 1024 * 1024;
/** An option counted in MiB, in bytes. */
export const mibBytes = (mib: number): number => Math.round(mib * MIB);

/**
 * Seconds a request to a server may take: the same rule for both server
 * configurations (platform-server, events-bridge) and a sample's own URL.
 * Missing or wrong: 30 s (the clients' default); above the maximum: the maximum.
 */
const TIMEOUT_SECONDS = numberRule({ above: 0, max: 600, default: 30, message: 'timeout' });
/** Accept a server's certificate without checking it. */
const INSECURE = flagRule({ default: false });

export const NODE_OPTIONS = {
  'detection-in': {
    // A new receiver asks for a token; one saved before the option took no credentials and still takes none.
    auth: choiceRule(['none', 'basic', 'bearer', 'header'], { default: 'bearer', absent: 'none' }),
    maxBodyMiB: numberRule({ above: 0, max: 512, default: 16 }),
    validation: choiceRule(['lenient', 'strict', 'accept'], { default: 'lenient' }),
    // At most an hour, as the dialog always said (a hand-edited flow's longer time runs as an hour).
    stallSeconds: numberRule({ above: 0, max: 3600, default: 30 }),
    ackMode: choiceRule(['memory', 'disk', 'redis'], { default: 'memory' }),
    maxInFlight: numberRule({ integer: true, min: 1, default: 1000 }),
    maxInFlightMiB: numberRule({ above: 0, default: 256 }),
    journalMaxMiB: numberRule({ above: 0, default: 512 }),
    redeliverAfterSeconds: numberRule({ min: 0, default: 0 }),
    finishedWhen: choiceRule(['auto', 'handed', 'done'], { default: 'auto' }),
    streamMaxEvents: numberRule({ integer: true, min: 1, default: 10_000 }),
    streamMaxMiB: numberRule({ above: 0, default: 512 }),
    claimAfterSeconds: numberRule({ above: 0, default: 60 }),
    // Attempts and dead letters: a poison event is tried a few times, then kept aside.
    maxAttempts: numberRule({ integer: true, min: 1, max: 1000, default: 5 }),
    firstPauseSeconds: numberRule({ min: 0, default: 10 }),
    maxPauseSeconds: numberRule({ min: 0, default: 3600 }),
    maxDeadLetters: numberRule({ integer: true, min: 1, max: 100_000, default: 100 }),
  },
  'detection-switch': {
    otherOutput: flagRule({ default: true }),
  },
  'detection-filter': {
    combine: choiceRule(['all', 'any'], { default: 'all' }),
    noMatchOutput: flagRule({ default: false }),
    // How plate rules match (the classes, text, are the node's own: DEFAULT_LOOKALIKE_CLASSES, lib/plates).
    // A new node forgives one look-alike; one saved before the option matched exactly and still does.
    plateLookalikes: choiceRule(['0', '1', '2'], { default: '1', absent: '0' }),
    plateExtraMissing: choiceRule(['0', '1', '2'], { default: '0' }),
    plateSimilar: flagRule({ default: true }),
  },
  'detection-dedupe': {
    mode: choiceRule(['id', 'cooldown'], { default: 'id' }),
    missingKey: choiceRule(['pass', 'drop', 'hash'], { default: 'pass' }),
    // The window's and the cap's sizes: a number out of range stops the node (outOfRange, lib/core/option-rules.ts).
    ttl: numberRule({ above: 0, default: 1, outOfRange: 'stops' }),
    // A new window counts hours; one saved before units existed counted seconds.
    ttlUnits: choiceRule(['s', 'm', 'h'], { default: 'h', absent: 's' }),
    refresh: flagRule({ default: false }),
    maxKeys: numberRule({ integer: true, min: 1, max: 10_000_000, default: 100_000, outOfRange: 'stops' }),
    duplicatesOutput: flagRule({ default: false }),
    persist: flagRule({ default: false }),
    scope: choiceRule(['local', 'redis'], { default: 'local' }),
    whenUnreachable: choiceRule(['pass', 'drop'], { default: 'pass' }),
    // The cap: at most capCount messages per capPeriod (overall or per key); off in flows saved before it.
    cap: flagRule({ default: false }),
    capCount: numberRule({ integer: true, min: 1, max: 1_000_000, default: 5, outOfRange: 'stops' }),
    capPeriod: numberRule({ above: 0, default: 1, outOfRange: 'stops' }),
    capUnits: choiceRule(['s', 'm', 'h'], { default: 'm' }),
    capPer: choiceRule(['all', 'key'], { default: 'all' }),
    // urgent messages (msg.priority urgent or high) pass the cap uncounted; on in saved flows too (only messages with a priority differ)
    capUrgent: flagRule({ default: true }),
  },
  'detection-presence': {
    // what a stay is keyed by (lib/presence/sighting.ts PRESENCE_KEYS)
    keyBy: choiceRule(['plateOrFace', 'plate', 'face', 'externalId'], { default: 'plateOrFace' }),
    // 8OB123 and BOB123 are one car: a plate reader's misreads do not make a second arrival
    lookalike: flagRule({ default: true }),
    away: numberRule({ above: 0, default: 30 }),
    awayUnits: choiceRule(['s', 'm', 'h'], { default: 'm' }),
    // 0: no still-here messages
    stillHere: numberRule({ min: 0, default: 4 }),
    stillHereUnits: choiceRule(['s', 'm', 'h'], { default: 'h' }),
    maxKeys: numberRule({ integer: true, min: 1, max: 1_000_000, default: 10_000 }),
    scope: choiceRule(['local', 'redis'], { default: 'local' }),
    // an arrival too many beats one lost, as dedupe's default
    whenUnreachable: choiceRule(['pass', 'drop'], { default: 'pass' }),
  },
  'detection-image': {
    plateMode: choiceRule(['first', 'all'], { default: 'first' }),
    faceImage: choiceRule(['detection', 'photo'], { default: 'detection' }),
    faceFallback: flagRule({ default: true }),
    format: choiceRule(['buffer', 'base64', 'dataurl'], { default: 'buffer' }),
    noImage: choiceRule(['output', 'error'], { default: 'output' }),
  },
  'detection-alert': {
    // the senders of lib/alert/senders.ts (ALERT_SENDERS)
    sender: choiceRule(['email', 'telegram', 'ntfy', 'pushover', 'gotify', 'slack', 'teams'], { default: 'email' }),
    picture: flagRule({ default: true }),
    // the picture is chosen as detection image chooses it: the same rules
    faceImage: choiceRule(['detection', 'photo'], { default: 'detection' }),
    faceFallback: flagRule({ default: true }),
  },
  'detection-alarm': {
    // what joins reads into one alarm (lib/alarm/alert-in.ts ALARM_KEYS)
    keyBy: choiceRule(['subject', 'camera', 'subjectCamera', 'externalId'], { default: 'subject' }),
    lookalike: flagRule({ default: true }),
    // 0: no reminders, no escalation, no quiet close
    remind: numberRule({ min: 0, default: 5 }),
    remindUnits: choiceRule(['s', 'm', 'h'], { default: 'm' }),
    maxReminders: numberRule({ integer: true, min: 0, max: 100, default: 3 }),
    escalate: numberRule({ min: 0, default: 15 }),
    escalateUnits: choiceRule(['s', 'm', 'h'], { default: 'm' }),
    quiet: numberRule({ min: 0, default: 30 }),
    quietUnits: choiceRule(['s', 'm', 'h'], { default: 'm' }),
    // the Snooze button's time, and what it silences
    snoozeFor: numberRule({ above: 0, default: 1 }),
    snoozeUnits: choiceRule(['s', 'm', 'h'], { default: 'h' }),
    snoozeScope: choiceRule(['key', 'camera'], { default: 'key' }),
    // an urgent alert (msg.priority urgent or high) goes through a snooze
    urgentPierces: flagRule({ default: true }),
    maxOpen: numberRule({ integer: true, min: 1, max: 10_000, default: 200 }),
    historyMax: numberRule({ integer: true, min: 1, max: 10_000, default: 500 }),
    historyDays: numberRule({ above: 0, max: 3650, default: 30 }),
    // how long a mail link works
    linkHours: numberRule({ above: 0, max: 720, default: 24 }),
    scope: choiceRule(['local', 'redis'], { default: 'local' }),
  },
  'detection-sample': {
    // the kind when the dialog fixes it (kindType "kind"); else it is read from the message
    kind: choiceRule(['face', 'lpr'], { default: 'face', typed: 'kind' }),
    source: choiceRule(['builtin', 'bridge'], { default: 'builtin' }),
    // pictures also for flows saved before the option existed: an image flow works at once
    images: choiceRule(['fillers', 'pictures'], { default: 'pictures' }),
    insecure: INSECURE,
    // a sample is small: a shorter wait than a server's
    timeout: numberRule({ above: 0, max: 600, default: 10, message: 'timeout' }),
  },
  'detection-done': {
    passOn: flagRule({ default: false }),
    // finished: the event is done; failed: the attempt failed (tried again, or dead-lettered)
    outcome: choiceRule(['finished', 'failed'], { default: 'finished' }),
  },
  'detection-redis': {
    // Where the data is: a wrong value stops the node (lib/redis/connection.ts checks them) rather than reach another server's.
    database: numberRule({ integer: true, min: 0, max: 1000, default: '', optional: true, wrong: 'stops' }),
    tls: flagRule({ default: false, wrong: 'stops' }),
    tlsInsecure: flagRule({ default: false, wrong: 'stops' }),
    // Sentinel mode (issue 30): absent in flows saved before it is single
    mode: choiceRule(['single', 'sentinel'], { default: 'single', wrong: 'stops' }),
    // Confirm on replicas / on disk (lib/redis/confirm.ts): 0 and off, and absent in saved flows, are as before.
    confirmReplicas: numberRule({ integer: true, min: 0, max: 10, default: 0 }),
    // 1 s: replicas on the same network answer in about a millisecond; a second rides out a busy moment
    // (a fsync, a backlog of large events) and still answers the bridge well before it gives up on a request.
    confirmTimeoutMs: numberRule({ integer: true, min: 1, max: 60_000, default: 1000 }),
    confirmAof: choiceRule(['off', 'primary', 'replicas'], { default: 'off' }),
    // refuse: nothing answered 200 rests on fewer machines than asked, as before the choice existed
    confirmFewer: choiceRule(['refuse', 'connected'], { default: 'refuse' }),
  },
  'detection-listener': {
    // no port is no listener: a wrong one stops it (no default: a port taken by surprise would be worse)
    port: numberRule({ integer: true, min: 1, max: 65535, default: 8443, wrong: 'stops' }),
    tls: choiceRule(['self-signed', 'files', 'pem', 'none'], { default: 'self-signed' }),
    clientCerts: flagRule({ default: false }),
  },
  'platform-server': {
    insecure: INSECURE,
    timeout: TIMEOUT_SECONDS,
  },
  'platform-push': {
    operation: choiceRule(['pos', 'casino-ratings', 'tito', 'face-detections', 'plate-reads'], { default: 'pos' }),
    batchSize: numberRule({ integer: true, min: 1, max: 10_000, default: 100 }),
    batchMs: numberRule({ min: 0, max: 600_000, default: 1000 }),
    maxRetries: numberRule({ integer: true, min: 0, max: 100, default: 5 }),
  },
  'platform-request': {
    errors: choiceRule(['catch', 'output'], { default: 'catch' }),
    check: flagRule({ default: true }),
  },
  'events-bridge': {
    insecure: INSECURE,
    timeout: TIMEOUT_SECONDS,
  },
  'detection-enroll': {
    // the action and the kind when the dialog fixes them (actionType "action", kindType "kind")
    action: choiceRule(['enroll', 'unenroll', 'check', 'list'], { default: 'enroll', typed: 'action' }),
    kind: choiceRule(['lpr', 'face'], { default: 'lpr', typed: 'kind' }),
  },
  'detection-monitor': {
    metrics: flagRule({ default: true }),
    // Metrics say how busy and how healthy a site is: never served to anyone unless the user says so.
    metricsOpen: flagRule({ default: false }),
    health: flagRule({ default: true }),
    // Load balancers and probes often send no credential: the health answers ask for none unless told.
    healthAuth: flagRule({ default: false }),
    // The overall readiness answer (lib/metrics/health.ts): ready when any receiver is, all are, or the ones named
    // (readyPaths) are. Any keeps the healthy receivers behind a balancer; monitors saved before the option run
    // with it too (they answered by all: one broken receiver took every camera out).
    readyWhen: choiceRule(['any', 'all', 'named'], { default: 'any' }),
  },
} as const;

export type NodeOptionsTable = typeof NODE_OPTIONS;
export type NodeType = keyof NodeOptionsTable;

/** The value an option of `R` runs with. */
export type OptionValue<R> = R extends { kind: 'number'; optional: true }
  ? number | undefined
  : R extends { kind: 'number' }
    ? number
    : R extends { kind: 'choice'; choices: readonly (infer T)[] }
      ? T
      : R extends { kind: 'flag' }
        ? boolean
        : never;

/** The options of a node of `type` as it runs: `NodeOptionValues<'detection-dedupe'>['ttl']` is a number. */
export type NodeOptionValues<T extends NodeType> = { -readonly [K in keyof NodeOptionsTable[T]]: OptionValue<NodeOptionsTable[T][K]> };

/**
 * An option as a dialog saves it: a number as its text (or a number, from a
 * flow written by a program), a choice as its text, a flag as a boolean (as
 * text, `'true'`, in older flows).
 */
export type SavedOptionValue<R> = R extends { kind: 'number' }
  ? number | string
  : R extends { kind: 'choice'; choices: readonly (infer T)[] }
    ? T
    : R extends { kind: 'flag' }
      ? boolean | string
      : never;

/**
 * The options of a node of `type` as saved (each may be missing: a flow saved
 * before the option existed). A node's saved configuration is NodeDef, these,
 * and the node's own fields the table does not hold:
 * `interface DedupeDef extends NodeDef, SavedOptions<'detection-dedupe'> { key: string; … }`.
 */
export type SavedOptions<T extends NodeType> = { -readonly [K in keyof NodeOptionsTable[T]]?: SavedOptionValue<NodeOptionsTable[T][K]> };

/** A saved value the node could not use as it is: what was wrong, and what it runs with instead. */
export interface WrongOption {
  option: string;
  /** The saved value. */
  value: unknown;
  /** What the node runs with instead (undefined: none, for an optional number). */
  used: unknown;
  problem: RuleProblem;
}

export interface ReadOptions<T extends NodeType> {
  values: NodeOptionValues<T>;
  /** Values it runs with something else in place of: the node warns at deploy. */
  wrong: WrongOption[];
  /** Values it cannot run with (numbers out of range of a rule whose `outOfRange` stops the node): its setup says why. */
  stops: WrongOption[];
}

/** Reads each option of the table for a node of `type` with its rule (readOption, lib/core/option-rules.ts). */
export function readNodeOptions<T extends NodeType>(type: T, config: object): ReadOptions<T> {
  const saved = config as Record<string, unknown>;
  const rules = NODE_OPTIONS[type] as Record<string, OptionRule>;
  const values: Record<string, unknown> = {};
  const wrong: WrongOption[] = [];
  const stops: WrongOption[] = [];
  for (const option of Object.keys(rules)) {
    const rule = rules[option];
    const read = readOption(rule, saved[option]);
    values[option] = read.value;
    // a TypedInput of another type holds a property or an expression: the node reads it so, nothing is wrong
    const type = saved[`${option}Type`];
    const applies = rule.typed === undefined || type === undefined || type === '' || type === rule.typed;
    if (read.problem && applies) (read.stops ? stops : wrong).push({ option, value: saved[option], used: read.value, problem: read.problem });
  }
  return { values: values as NodeOptionValues<T>, wrong, stops };
}

/** The options of a node of `type` as it runs: each option of lib/config/node-options.ts read with its rule (readNodeOptions). */
export function nodeOptions<T extends NodeType>(type: T, config: object): NodeOptionValues<T> {
  return readNodeOptions(type, config).values;
}

/** The default a new node of `type` gets for option `name` (and what lib's own defaults read: one number, stated here). */
export function optionDefault<T extends NodeType, K extends keyof NodeOptionsTable[T] & string>(type: T, name: K): NodeOptionValues<T>[K] {
  const { default: value } = (NODE_OPTIONS[type] as Record<string, OptionRule>)[name];
  return (value === '' ? undefined : value) as NodeOptionValues<T>[K];
}

/** The rule of option `name` of `type` (lib/config/node-options.ts). */
export function optionRule<T extends NodeType>(type: T, name: keyof NodeOptionsTable[T] & string): OptionRule {
  return (NODE_OPTIONS[type] as Record<string, OptionRule>)[name];
}
