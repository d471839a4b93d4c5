'use strict';
/**
 * A closed-loop HTTP load generator on undici: `connections` workers, each
 * with a kept-alive connection of its own, posting one body after another
 * for a duration (or a count), reading every answer to its end.
 *
 * Every request carries a message id of its own: the body is serialised once
 * with a fixed-width placeholder id, each worker keeps a private copy and
 * writes the next id into it (in place, between its own requests), so the
 * dedupe window never sees a repeat and no JSON is built while loading.
 */
const { performance } = require('node:perf_hooks');
const { Pool } = require('undici');

/** Fixed width of the ids written into bodies. */
const ID_WIDTH = 24;
const ID_PLACEHOLDER = 'bench-id-'.padEnd(ID_WIDTH, 'X');

let sequence = 0;
/** A unique id of exactly ID_WIDTH characters (no character base64 uses: '-'). */
function nextId(prefix) {
  sequence++;
  const id = `${prefix}-${sequence.toString(36)}`;
  return id.length >= ID_WIDTH ? id.slice(0, ID_WIDTH) : id.padEnd(ID_WIDTH, '-');
}

/** A body template: the JSON of `value` (which must contain ID_PLACEHOLDER once), written by `stringify`. */
function template(value, stringify = JSON.stringify) {
  const buffer = Buffer.from(stringify(value), 'utf8');
  const offset = buffer.indexOf(ID_PLACEHOLDER);
  if (offset < 0 || buffer.indexOf(ID_PLACEHOLDER, offset + 1) >= 0) throw new Error('the body must contain the id placeholder exactly once');
  return { buffer, offset, bytes: buffer.length };
}

/** Latencies in ms, kept in a growable Float64Array. */
class Latencies {
  constructor() {
    this.values = new Float64Array(1024);
    this.count = 0;
  }
  add(ms) {
    if (this.count === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.count++] = ms;
  }
  merge(other) {
    for (let i = 0; i < other.count; i++) this.add(other.values[i]);
  }
  percentile(p) {
    if (this.count === 0) return null;
    const sorted = this.values.slice(0, this.count).sort();
    const rank = Math.min(this.count - 1, Math.max(0, Math.ceil((p / 100) * this.count) - 1));
    return sorted[rank];
  }
}

/**
 * Runs load against `url` and resolves with
 * {requests, ok, statuses, errors, durationMs, latencies, perTarget}.
 * `ok` counts answers with status `expect` (default 200).
 * `url` may be a list: the requests go to each in turn (round robin, as a
 * load balancer would spread them), still `connections` in flight in all;
 * perTarget: [{url, requests, ok}] in the same order.
 * `messageId` (ID_WIDTH characters): the same id in every request, as a
 * sender resending one event, instead of a new one each.
 */
async function runLoad({
  url,
  body,
  headers = {},
  connections = 8,
  durationMs,
  maxRequests = Infinity,
  idPrefix = 'b',
  messageId,
  expect = 200,
  timeoutMs = 30000,
}) {
  if (durationMs === undefined && !Number.isFinite(maxRequests)) throw new Error('runLoad needs a duration or a request count');
  const urls = Array.isArray(url) ? url : [url];
  const targets = urls.map((u) => {
    const target = new URL(u);
    const pool = new Pool(target.origin, {
      connections,
      pipelining: 1,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 30000,
    });
    return { pool, path: target.pathname + target.search, counts: { url: u, requests: 0, ok: 0 } };
  });
  let turn = 0;
  const statuses = {};
  const errors = {};
  const latencies = new Latencies();
  let requests = 0;
  let ok = 0;
  let started = 0;
  const requestHeaders = { 'content-type': 'application/json', ...headers };
  const t0 = performance.now();
  const deadline = durationMs === undefined ? Infinity : t0 + durationMs;

  async function worker() {
    const copy = Buffer.from(body.buffer);
    while (performance.now() < deadline && started < maxRequests) {
      started++;
      copy.write(messageId ?? nextId(idPrefix), body.offset, ID_WIDTH, 'latin1');
      const { pool, path, counts } = targets[turn++ % targets.length];
      counts.requests++;
      const begin = performance.now();
      try {
        const res = await pool.request({ path, method: 'POST', headers: requestHeaders, body: copy });
        // Read the whole answer (core's http response echoes the body back).
        for await (const chunk of res.body) void chunk;
        latencies.add(performance.now() - begin);
        requests++;
        statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1;
        if (res.statusCode === expect) {
          ok++;
          counts.ok++;
        }
      } catch (err) {
        requests++;
        const code = (err && (err.code || err.name)) || 'error';
        errors[code] = (errors[code] || 0) + 1;
        // A refused connection would spin: pause a little before the next try.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  }

  await Promise.all(Array.from({ length: connections }, worker));
  const durationMs_ = performance.now() - t0;
  await Promise.all(targets.map(({ pool }) => pool.close().catch(() => pool.destroy())));
  return { requests, ok, statuses, errors, durationMs: durationMs_, latencies, perTarget: targets.map((t) => t.counts) };
}

module.exports = { runLoad, template, Latencies, ID_PLACEHOLDER, ID_WIDTH };
