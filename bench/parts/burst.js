'use strict';
/**
 * Burst memory: many connections posting ~1 MB plate events at detection-in
 * for a while. Peak RSS of Node-RED (sampled), and every request answered 200
 * must come out at the end of the flow (counted there in flow context).
 */
const { runLoad } = require('../support/load');
const { body } = require('../support/bodies');
const { httpJson, delay } = require('../support/nodered');
const { rssOf } = require('../support/proc');

async function runBurst(ctx) {
  const { nr, token, sampler, config } = ctx;
  const problems = [];
  const template = body('lpr', config.bytes);
  await httpJson(`${nr.url}/bench/stats/reset`, { method: 'POST' });
  await delay(300);
  const idleRss = rssOf(nr.pid);
  // Peaks of the first and the second half apart: a bound that does not grow with time.
  sampler.mark('burst:first-half');
  const half = setTimeout(() => sampler.mark('burst:second-half'), (config.seconds * 1000) / 2);
  const r = await runLoad({
    url: `${nr.url}/bench/detections`,
    headers: { authorization: `Bearer ${token}` },
    body: template,
    connections: config.connections,
    durationMs: config.seconds * 1000,
    idPrefix: 'burst',
  });
  clearTimeout(half);
  // Keep sampling while the flow drains.
  sampler.mark('burst:drain');
  let count = 0;
  let last = -1;
  let stableSince = Date.now();
  const until = Date.now() + 20000;
  while (Date.now() < until) {
    count = (await httpJson(`${nr.url}/bench/stats`)).json.count;
    if (count >= r.ok && count === last && Date.now() - stableSince > 300) break;
    if (count !== last) {
      last = count;
      stableSince = Date.now();
    }
    await delay(50);
  }
  sampler.mark(null);
  const halves = ['burst:first-half', 'burst:second-half', 'burst:drain'].map((label) => sampler.peak(label, 'node-red'));
  const peak = halves.every((v) => v === null) ? null : Math.max(...halves.filter((v) => v !== null));
  if (r.ok === 0) problems.push(`burst: no request was answered 200 (${JSON.stringify({ ...r.statuses, ...r.errors })})`);
  // 503 is how a receiver sheds load (the planned backpressure); anything else is a fault.
  const faults = r.requests - r.ok - (r.statuses[503] || 0);
  if (faults > 0)
    problems.push(`burst: ${faults} of ${r.requests} requests answered neither 200 nor 503 (${JSON.stringify({ ...r.statuses, ...r.errors })})`);
  if (count !== r.ok) problems.push(`burst: ${r.ok} requests answered 200 but ${count} messages reached the end of the flow`);
  const others = r.requests - r.ok;
  return {
    connections: config.connections,
    seconds: config.seconds,
    bodyBytes: template.bytes,
    requests: r.requests,
    answered200: r.ok,
    emitted: count,
    notAnswered200: others,
    statuses: r.statuses,
    errors: r.errors,
    rps: +((r.requests / r.durationMs) * 1000).toFixed(1),
    p50Ms: r.latencies.count ? +r.latencies.percentile(50).toFixed(1) : null,
    p99Ms: r.latencies.count ? +r.latencies.percentile(99).toFixed(1) : null,
    idleRssBytes: idleRss,
    peakRssBytes: peak,
    peakRssFirstHalfBytes: halves[0],
    peakRssSecondHalfBytes: halves[1],
    afterRssBytes: rssOf(nr.pid),
    problems,
  };
}

module.exports = { runBurst };
