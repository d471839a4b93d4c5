'use strict';
/**
 * What an escaped body costs over a plain one on the large-body JSON road,
 * with two builds of lib/http/json in one process: the one in dist/ and
 * another (`--other PATH`, e.g. a copy of dist/lib/http/json.js from the
 * branch with the JavaScript escape decoder). Interleaved rounds; medians of
 * CPU time per parse (process.cpuUsage, so waiting on a shared CPU counts less).
 *
 *   node bench/experiments/unescape-road.js --other /tmp/json-js.js [--rounds 15] [--ms 200] [--base face]
 */
const path = require('node:path');
const { body } = require('../support/bodies');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : process.argv[i + 1];
};
const rounds = Number(arg('rounds', 15));
const ms = Number(arg('ms', 200));
const builds = { dist: require(path.resolve(__dirname, '../../dist/lib/http/json')) };
if (arg('other')) builds.other = require(path.resolve(arg('other')));

const base = arg('base', 'lpr');
const kinds = [base, `${base}-stj`, `${base}-slash`];
const bodies = Object.fromEntries(kinds.map((k) => [k, body(k, (base === 'face' ? 370 : 880) * 1000).buffer]));
for (const [name, json] of Object.entries(builds))
  for (const k of kinds) {
    const r = json.parseJsonBody(bodies[k]);
    if (!r.ok) throw new Error(`${name} ${k}: ${r.detail}`);
    if (!json.parseLargeBody(bodies[k])) throw new Error(`${name} ${k}: not on the large-body road`);
    if (JSON.stringify(r.value) !== JSON.stringify(JSON.parse(bodies[k].toString()))) throw new Error(`${name} ${k}: differs from JSON.parse`);
  }

const cases = [];
for (const [name, json] of Object.entries(builds)) for (const k of kinds) cases.push([`${name} ${k}`, () => json.parseJsonBody(bodies[k])]);
cases.push([`JSON.parse ${base}-stj`, () => JSON.parse(bodies[`${base}-stj`].toString())]);
const samples = Object.fromEntries(cases.map(([n]) => [n, []]));
for (let r = 0; r < rounds; r++)
  for (const [name, run] of r % 2 ? [...cases].reverse() : cases) {
    let n = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    while (performance.now() - t0 < ms) {
      run();
      n++;
    }
    const c = process.cpuUsage(c0);
    samples[name].push((c.user + c.system) / n);
  }
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const m = Object.fromEntries(Object.entries(samples).map(([k, a]) => [k, median(a)]));
for (const [k, v] of Object.entries(m)) console.log(`${k.padEnd(22)} ${(v / 1000).toFixed(3)} ms`);
for (const name of Object.keys(builds))
  for (const k of kinds.slice(1))
    console.log(
      `${name}: ${k} over ${base}: +${((m[`${name} ${k}`] - m[`${name} ${base}`]) / 1000).toFixed(3)} ms (${(m[`${name} ${base}`] / m[`${name} ${k}`]).toFixed(2)}x the plain throughput)`,
    );
