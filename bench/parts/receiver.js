'use strict';
/**
 * Receiver throughput: the same bodies posted to detection-in (Bearer auth,
 * schema check, then dedupe and switch), to the core flow (http in → switch →
 * http response) in the same Node-RED, and to the floor (bare node:http +
 * JSON.parse in a process of its own), in alternating rounds.
 *
 * Escaped kinds (the same event as System.Text.Json or a `\/` writer sends
 * it, see support/bodies.js) take turns with fewer targets: the receiver, the
 * floor on the same escaped bytes (its own floor), and `receiver-plain`, the
 * receiver on the plain body of the same event, so receiver ÷ plain comes
 * from the same rounds.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { runLoad, Latencies } = require('../support/load');
const { body } = require('../support/bodies');
const { httpJson, delay, ROOT } = require('../support/nodered');

const fs = require('node:fs');

const TARGETS = ['receiver', 'durable', 'core', 'core-ack', 'floor'];
/** The targets of an escaped kind (`lpr-stj`, …). */
const ESCAPED_TARGETS = ['receiver', 'receiver-plain', 'floor'];
const isEscaped = (kind) => kind.includes('-');

/**
 * This machine's own limit for the journal: the same bytes appended to a file
 * on the same file system, `batch` bodies per write and fdatasync (as the
 * journal's group commit does with `batch` requests under way), for `seconds`.
 * Answers bodies per second.
 */
function syncedWriteLimit(dir, bodyBytes, batch, seconds) {
  const file = path.join(dir, `bench-sync-${process.pid}.bin`);
  const fd = fs.openSync(file, 'w');
  const body = Buffer.alloc(bodyBytes, 0x41);
  const buffers = Array.from({ length: batch }, () => body);
  let bodies = 0;
  const start = performance.now();
  try {
    while (performance.now() - start < seconds * 1000) {
      fs.writevSync(fd, buffers);
      fs.fdatasyncSync(fd);
      bodies += batch;
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  return +((bodies / (performance.now() - start)) * 1000).toFixed(1);
}

/** Checks the package's JSON parsing gives JSON.parse's value for a bench body. */
function checkParse(template) {
  const { parseJsonBody } = require(path.join(ROOT, 'dist', 'lib', 'http', 'json.js'));
  const parsed = parseJsonBody(template.buffer);
  assert.ok(parsed.ok, 'parseJsonBody accepts the bench body');
  assert.deepStrictEqual(parsed.value, JSON.parse(template.buffer.toString('utf8')), "parseJsonBody gives JSON.parse's value");
}

/**
 * What msg.detection costs per event: detectionView on the bench body as
 * parsed, mean µs over `seconds` (in this process, on the same machine).
 * Its share of the receiver's time per event is µs × receiver req/s.
 */
function viewMicros(template, seconds) {
  const { detectionView } = require(path.join(ROOT, 'dist', 'lib', 'events', 'detection-view.js'));
  const event = JSON.parse(template.buffer.toString('utf8'));
  const kind = event.publishType === 'WebHookFaceRecPayload' ? 'face' : 'lpr';
  const received = Date.now();
  let calls = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    for (let i = 0; i < 1000; i++) detectionView(event, kind, received);
    calls += 1000;
  }
  return +(((performance.now() - start) * 1000) / calls).toFixed(2);
}

/**
 * `ctx`: {nr, floorUrl, token, sampler, config, log}.
 * config.kinds: [{kind, label, bytes, rounds, seconds, warmupSeconds}], config.connections;
 * kind: lpr, face, small, or one of them escaped (lpr-stj, face-stj, lpr-slash).
 */
async function runReceiver(ctx) {
  const { nr, floorUrl, token, sampler, config, log } = ctx;
  const urls = {
    receiver: { url: `${nr.url}/bench/detections`, headers: { authorization: `Bearer ${token}` }, process: 'node-red' },
    'receiver-plain': { url: `${nr.url}/bench/detections`, headers: { authorization: `Bearer ${token}` }, process: 'node-red' },
    durable: { url: `${nr.url}/bench/durable`, headers: { authorization: `Bearer ${token}` }, process: 'node-red' },
    core: { url: `${nr.url}/bench/core`, headers: {}, process: 'node-red' },
    'core-ack': { url: `${nr.url}/bench/core-ack`, headers: {}, process: 'node-red' },
    floor: { url: floorUrl, headers: {}, process: 'floor' },
  };
  const before = (await httpJson(`${nr.url}/bench/stats`)).json.count;
  let receiverOk = 0;
  const problems = [];
  const kinds = [];
  for (const spec of config.kinds) {
    const template = body(spec.kind, spec.bytes);
    checkParse(template);
    const escaped = isEscaped(spec.kind);
    const plainTemplate = escaped ? body(spec.kind.split('-')[0], spec.bytes) : template;
    const kindTargets = escaped ? ESCAPED_TARGETS : TARGETS;
    const stats = Object.fromEntries(
      kindTargets.map((t) => [t, { requests: 0, ok: 0, ms: 0, latencies: new Latencies(), statuses: {}, errors: {}, rounds: [] }]),
    );
    const once = async (target, seconds, record, label) => {
      sampler.mark(record ? label : null);
      const r = await runLoad({
        ...urls[target],
        body: target === 'receiver-plain' ? plainTemplate : template,
        connections: config.connections,
        durationMs: seconds * 1000,
        idPrefix: `${spec.kind[0]}${target[0]}`,
      });
      sampler.mark(null);
      if (target.startsWith('receiver') || target === 'durable') receiverOk += r.ok;
      const s = stats[target];
      for (const [k, v] of Object.entries(r.statuses)) s.statuses[k] = (s.statuses[k] || 0) + v;
      for (const [k, v] of Object.entries(r.errors)) s.errors[k] = (s.errors[k] || 0) + v;
      if (r.ok !== r.requests)
        problems.push(
          `${spec.label} → ${target}: ${r.requests - r.ok} of ${r.requests} not answered 200 (${JSON.stringify({ ...r.statuses, ...r.errors })})`,
        );
      if (r.requests === 0) problems.push(`${spec.label} → ${target}: no request completed`);
      if (!record) return;
      s.requests += r.requests;
      s.ok += r.ok;
      s.ms += r.durationMs;
      s.latencies.merge(r.latencies);
      s.rounds.push(+((r.requests / r.durationMs) * 1000).toFixed(1));
    };
    if (spec.warmupSeconds > 0) for (const target of kindTargets) await once(target, spec.warmupSeconds, false);
    // The disk's limit is measured in every round, right after durable: the
    // disk of a shared machine is not as fast from one minute to the next.
    const limitRounds = [];
    for (let round = 0; round < spec.rounds; round++) {
      // Rotate the order so no target always follows the same one.
      for (let i = 0; i < kindTargets.length; i++) {
        const target = kindTargets[(i + round) % kindTargets.length];
        await once(target, spec.seconds, true, `${spec.kind}:${target}`);
        if (target === 'durable') limitRounds.push(syncedWriteLimit(nr.userDir, template.bytes, config.connections, Math.max(1, spec.seconds)));
      }
      log(`  ${spec.label}: round ${round + 1}/${spec.rounds} done`);
    }
    const targets = {};
    for (const target of kindTargets) {
      const s = stats[target];
      targets[target] = {
        requests: s.requests,
        ok: s.ok,
        rps: s.ms > 0 ? +((s.requests / s.ms) * 1000).toFixed(1) : 0,
        roundsRps: s.rounds,
        p50Ms: s.latencies.count ? +s.latencies.percentile(50).toFixed(2) : null,
        p99Ms: s.latencies.count ? +s.latencies.percentile(99).toFixed(2) : null,
        peakRssBytes: sampler.peak(`${spec.kind}:${target}`, urls[target].process),
        rssOf: urls[target].process,
        statuses: s.statuses,
        errors: s.errors,
      };
    }
    const r = targets.receiver;
    const viewUs = viewMicros(template, Math.max(0.5, spec.seconds / 2));
    const base = {
      kind: spec.kind,
      label: spec.label,
      bodyBytes: template.bytes,
      connections: config.connections,
      rounds: spec.rounds,
      secondsPerRound: spec.seconds,
      targets,
      viewMicros: viewUs,
    };
    const viewShareOfReceiver = typeof r.rps === 'number' ? +((viewUs * r.rps) / 1e6).toFixed(4) : null;
    if (escaped) {
      kinds.push({
        ...base,
        plainBodyBytes: plainTemplate.bytes,
        ratios: {
          viewShareOfReceiver,
          // The escaped body ÷ the same event's plain body, both at the receiver, same rounds.
          receiverToPlainRps: ratio(r.rps, targets['receiver-plain'].rps),
          // ÷ its own floor: JSON.parse of the same escaped bytes.
          receiverToFloorRps: ratio(r.rps, targets.floor.rps),
        },
      });
      continue;
    }
    const diskLimitRps = +(limitRounds.reduce((a, b) => a + b, 0) / limitRounds.length).toFixed(1);
    const durableRounds = stats.durable.rounds;
    kinds.push({
      ...base,
      diskLimitRps,
      diskLimitRoundsRps: limitRounds,
      ratios: {
        viewShareOfReceiver,
        durableToReceiverRps: ratio(targets.durable.rps, r.rps),
        durableToDiskLimitRps: ratio(targets.durable.rps, diskLimitRps),
        // Round by round (durable and the limit measured one after the other): median, min–max.
        durableToDiskLimitRounds: spreadOf(durableRounds.map((d, i) => ratio(d, limitRounds[i]))),
        receiverToCoreRps: ratio(r.rps, targets.core.rps),
        receiverToFloorRps: ratio(r.rps, targets.floor.rps),
        receiverToCoreAckRps: ratio(r.rps, targets['core-ack'].rps),
        receiverToCoreP99: ratio(r.p99Ms, targets.core.p99Ms),
      },
    });
  }

  // Every 200 of the receiver became a message at the end of its flow.
  let count;
  const until = Date.now() + 15000;
  do {
    count = (await httpJson(`${nr.url}/bench/stats`)).json.count - before;
    if (count >= receiverOk) break;
    await delay(50);
  } while (Date.now() < until);
  if (count !== receiverOk) problems.push(`receiver: ${receiverOk} answered 200 but ${count} messages reached the end of the flow`);
  return { kinds, emitted: count, acknowledged: receiverOk, problems };
}

function spreadOf(values) {
  const sorted = values.filter((v) => typeof v === 'number').sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : +((sorted[mid - 1] + sorted[mid]) / 2).toFixed(2);
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

function ratio(a, b) {
  return typeof a === 'number' && typeof b === 'number' && b > 0 ? +(a / b).toFixed(2) : null;
}

module.exports = { runReceiver, TARGETS, ESCAPED_TARGETS };
