'use strict';
/**
 * Receiver A/B (`--baseline <git-ref>`): the receiver scenario of
 * parts/receiver.js (detection-in, Bearer token, schema check → dedupe →
 * switch → count → detection-done) run on two builds of the package in one
 * run: a baseline build and this tree's, each in a Node-RED of its own started
 * here, taking turns in rounds (A B, B A, …) with the same load generator,
 * connections and bodies. Optionally a third: this tree's build with a
 * detection-monitor deployed (the operator's view on), its metrics scraped
 * once a second for the whole run as Prometheus would.
 *
 * With `config.together` (--together) the builds are loaded at the same time
 * instead, each by `connections` of its own: they share the CPUs, and
 * whatever else runs on the machine at that moment, alike.
 *
 * Per round, each build's requests/s and p99; the ratios current ÷ baseline
 * are taken round by round (the builds measured side by side under the same
 * load on the machine) and summarised as median and min–max.
 */
const { runLoad, Latencies } = require('../support/load');
const { body } = require('../support/bodies');
const { NodeRed, httpJson, delay } = require('../support/nodered');
const { flows, READY, MONITOR_PATH } = require('../support/flows');
const { roundOrder, roundRatios, spread } = require('../support/ab');
const { cpuSecondsOf, machineBusySeconds } = require('../support/proc');
const os = require('node:os');

const MONITOR_TOKEN = 'bench-monitor-token';

/**
 * Scrapes `url` (Bearer `token`) every `everyMs` until stopped, one scrape at
 * a time: what Prometheus does to a target. Counts answers by status.
 */
function startScraper(url, token, everyMs = 1000) {
  const state = { scrapes: 0, statuses: {}, errors: {}, lastBytes: 0, lastText: '' };
  let busy = false;
  const scrape = async () => {
    if (busy) return;
    busy = true;
    try {
      const r = await httpJson(url, { headers: { authorization: `Bearer ${token}` } });
      state.scrapes++;
      state.statuses[r.status] = (state.statuses[r.status] || 0) + 1;
      state.lastBytes = Buffer.byteLength(r.text);
      if (r.status === 200) state.lastText = r.text;
    } catch (err) {
      state.scrapes++;
      const code = (err && (err.code || err.name)) || 'error';
      state.errors[code] = (state.errors[code] || 0) + 1;
    } finally {
      busy = false;
    }
  };
  scrape();
  const timer = setInterval(scrape, everyMs);
  return {
    state,
    stop: async () => {
      clearInterval(timer);
      while (busy) await delay(20);
      return state;
    },
  };
}

/**
 * `ctx`: {variants, token, coreUrl, sampler, config, log, execArgv, started}.
 * variants: [{name, label, root, monitor}] in their first round's order,
 * the first the baseline. config: {connections, kinds: [{kind, label, bytes, rounds, seconds, warmupSeconds}]}.
 * `started` (a list) gets every Node-RED started, so the caller stops them whatever happens.
 */
async function runReceiverAb(ctx) {
  const { variants, token, coreUrl, sampler, config, log, execArgv, started } = ctx;
  const problems = [];
  const nrs = {};
  let scraper;
  for (const v of variants) {
    const nr = await NodeRed.create({ execArgv, packageRoot: v.root });
    started.push(nr);
    await nr.start();
    await nr.deploy(flows({ token, coreUrl, monitor: v.monitor ? { token: MONITOR_TOKEN } : undefined }), READY);
    sampler.watch(v.name, nr.pid);
    nrs[v.name] = nr;
    log(`bench: Node-RED (${v.label}) at ${nr.url}, pid ${nr.pid}`);
    if (v.monitor) {
      const url = `${nr.url}${MONITOR_PATH}`;
      const first = await waitFor200(url, MONITOR_TOKEN, 20000);
      if (first !== 200) problems.push(`${v.label}: GET ${MONITOR_PATH} with the monitor's token answered ${first}, not 200`);
      scraper = startScraper(url, MONITOR_TOKEN);
    }
  }
  const before = {};
  for (const v of variants) before[v.name] = (await httpJson(`${nrs[v.name].url}/bench/stats`)).json.count;
  const acknowledged = Object.fromEntries(variants.map((v) => [v.name, 0]));
  const names = variants.map((v) => v.name);
  const kinds = [];
  // What else ran on the machine meanwhile: CPUs busy in all against ours
  // (the Node-REDs and this process, the load generator), over the rounds.
  const ourCpu = () =>
    variants.reduce((sum, v) => sum + (cpuSecondsOf(nrs[v.name].pid) || 0), 0) + process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6;
  const t0 = performance.now();
  const busy0 = machineBusySeconds();
  const ours0 = ourCpu();
  const loadBefore = os.loadavg()[0];

  try {
    for (const spec of config.kinds) {
      const template = body(spec.kind, spec.bytes);
      const stats = Object.fromEntries(
        names.map((n) => [
          n,
          { requests: 0, ms: 0, latencies: new Latencies(), statuses: {}, errors: {}, roundsRps: [], roundsP99: [], roundsCpuMs: [], cpuSeconds: 0 },
        ]),
      );
      // Together, the builds share one RSS label (the sampler keeps a peak per process anyway).
      const rssLabel = (name) => `ab:${spec.kind}:${config.together ? 'together' : name}`;
      const once = async (name, seconds, record) => {
        if (!config.together) sampler.mark(record ? rssLabel(name) : null);
        const cpu0 = cpuSecondsOf(nrs[name].pid);
        const r = await runLoad({
          url: `${nrs[name].url}/bench/detections`,
          headers: { authorization: `Bearer ${token}` },
          body: template,
          connections: config.connections,
          durationMs: seconds * 1000,
          idPrefix: `${spec.kind[0]}${name[0]}`,
        });
        if (!config.together) sampler.mark(null);
        const cpu1 = cpuSecondsOf(nrs[name].pid);
        acknowledged[name] += r.ok;
        const s = stats[name];
        for (const [k, n] of Object.entries(r.statuses)) s.statuses[k] = (s.statuses[k] || 0) + n;
        for (const [k, n] of Object.entries(r.errors)) s.errors[k] = (s.errors[k] || 0) + n;
        if (r.ok !== r.requests)
          problems.push(
            `${spec.label} → ${name}: ${r.requests - r.ok} of ${r.requests} not answered 200 (${JSON.stringify({ ...r.statuses, ...r.errors })})`,
          );
        if (r.requests === 0) problems.push(`${spec.label} → ${name}: no request completed`);
        if (!record) return;
        s.requests += r.requests;
        s.ms += r.durationMs;
        s.latencies.merge(r.latencies);
        s.roundsRps.push(+((r.requests / r.durationMs) * 1000).toFixed(1));
        s.roundsP99.push(r.latencies.count ? +r.latencies.percentile(99).toFixed(2) : null);
        // The Node-RED's own CPU time per request: what the build costs per event,
        // much less moved than req/s by other processes taking the CPUs.
        const cpu = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
        if (cpu !== null) s.cpuSeconds += cpu;
        s.roundsCpuMs.push(cpu !== null && r.requests > 0 ? +((cpu * 1000) / r.requests).toFixed(3) : null);
      };
      if (spec.warmupSeconds > 0) for (const name of names) await once(name, spec.warmupSeconds, false);
      const orders = [];
      for (let round = 0; round < spec.rounds; round++) {
        const order = roundOrder(names, round);
        orders.push(config.together ? 'together' : order.join(' '));
        if (config.together) {
          sampler.mark(rssLabel());
          await Promise.all(order.map((name) => once(name, spec.seconds, true)));
          sampler.mark(null);
        } else for (const name of order) await once(name, spec.seconds, true);
        log(`  ${spec.label} A/B: round ${round + 1}/${spec.rounds} (${order.join(', ')}) done`);
      }
      const targets = {};
      for (const v of variants) {
        const s = stats[v.name];
        targets[v.name] = {
          label: v.label,
          requests: s.requests,
          rps: s.ms > 0 ? +((s.requests / s.ms) * 1000).toFixed(1) : 0,
          roundsRps: s.roundsRps,
          roundsP99Ms: s.roundsP99,
          cpuMsPerRequest: s.requests > 0 ? +((s.cpuSeconds * 1000) / s.requests).toFixed(3) : null,
          roundsCpuMs: s.roundsCpuMs,
          p50Ms: s.latencies.count ? +s.latencies.percentile(50).toFixed(2) : null,
          p99Ms: s.latencies.count ? +s.latencies.percentile(99).toFixed(2) : null,
          peakRssBytes: sampler.peak(rssLabel(v.name), v.name),
          statuses: s.statuses,
          errors: s.errors,
        };
      }
      // Each build against every one before it in the list: current ÷ baseline,
      // monitor ÷ baseline (the 2% line), monitor ÷ current (what the view alone costs).
      const ratios = {};
      for (let j = 1; j < names.length; j++) {
        for (let i = 0; i < j; i++) {
          const [name, base] = [names[j], names[i]];
          const rps = roundRatios(stats[name].roundsRps, stats[base].roundsRps).map(round3);
          const p99 = roundRatios(stats[name].roundsP99, stats[base].roundsP99).map(round3);
          // Inverted (base's CPU per event ÷ this one's) to read like req/s: below 1 costs more.
          const cpu = roundRatios(stats[base].roundsCpuMs, stats[name].roundsCpuMs).map(round3);
          ratios[`${name}To${cap(base)}`] = {
            rps: { rounds: rps, ...rounded(spread(rps)) },
            p99: { rounds: p99, ...rounded(spread(p99)) },
            cpu: { rounds: cpu, ...rounded(spread(cpu)) },
          };
        }
      }
      kinds.push({
        kind: spec.kind,
        label: spec.label,
        bodyBytes: template.bytes,
        connections: config.connections,
        rounds: spec.rounds,
        secondsPerRound: spec.seconds,
        orders,
        targets,
        ratios,
      });
    }
  } finally {
    if (scraper) await scraper.stop();
  }
  const wall = (performance.now() - t0) / 1000;
  const busy1 = machineBusySeconds();
  const ours = (ourCpu() - ours0) / wall;
  const all = busy0 === null || busy1 === null ? null : (busy1 - busy0) / wall;
  const machine = {
    cpus: os.cpus().length,
    cpusBusyOurs: +ours.toFixed(2),
    cpusBusyAll: all === null ? null : +all.toFixed(2),
    cpusBusyOthers: all === null ? null : +Math.max(0, all - ours).toFixed(2),
    loadAverage1mBefore: +loadBefore.toFixed(2),
    loadAverage1mAfter: +os.loadavg()[0].toFixed(2),
  };

  // Every 200 of each build became a message at the end of its flow.
  for (const v of variants) {
    let count;
    const until = Date.now() + 15000;
    do {
      count = (await httpJson(`${nrs[v.name].url}/bench/stats`)).json.count - before[v.name];
      if (count >= acknowledged[v.name]) break;
      await delay(50);
    } while (Date.now() < until);
    if (count !== acknowledged[v.name])
      problems.push(`${v.label}: ${acknowledged[v.name]} answered 200 but ${count} messages reached the end of the flow`);
  }
  for (const v of variants) for (const line of nrs[v.name].errorLines()) problems.push(`Node-RED (${v.label}) logged: ${line.trim()}`);

  let scrape;
  if (scraper) {
    const s = scraper.state;
    scrape = { path: MONITOR_PATH, everyMs: 1000, scrapes: s.scrapes, statuses: s.statuses, errors: s.errors, lastBytes: s.lastBytes };
    const ok = s.statuses[200] || 0;
    if (ok !== s.scrapes)
      problems.push(`metrics scrapes: ${s.scrapes - ok} of ${s.scrapes} not answered 200 (${JSON.stringify({ ...s.statuses, ...s.errors })})`);
    if (ok > 0 && !s.lastText.includes('/bench/detections'))
      problems.push(`metrics: the last scrape does not mention the receiver's path /bench/detections`);
  }
  return { variants: variants.map(({ name, label, monitor }) => ({ name, label, monitor: Boolean(monitor) })), kinds, scrape, machine, problems };
}

async function waitFor200(url, token, timeoutMs) {
  const end = Date.now() + timeoutMs;
  let status;
  for (;;) {
    try {
      status = (await httpJson(url, { headers: { authorization: `Bearer ${token}` } })).status;
    } catch (err) {
      status = (err && err.code) || 'error';
    }
    if (status === 200 || Date.now() > end) return status;
    await delay(100);
  }
}

const round3 = (v) => (v === null ? null : +v.toFixed(3));
const rounded = (s) => ({
  median: s.median === null ? null : round3(s.median),
  min: s.min === null ? null : round3(s.min),
  max: s.max === null ? null : round3(s.max),
  n: s.n,
});
const cap = (s) => s[0].toUpperCase() + s.slice(1);

module.exports = { runReceiverAb, MONITOR_TOKEN };
