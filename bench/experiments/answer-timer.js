'use strict';
/**
 * What bounding each answer costs a shared dedupe (RedisConnection.answer: one
 * timer per check, so a Redis that stops answering counts as down after the
 * command timeout): pipelined checks through RedisSeenKeys with the bound, and
 * with `answer` replaced by the identity, in one process against one
 * redis-server (started here), in interleaved rounds. Medians of the client's
 * CPU per check (process.cpuUsage: waiting on a shared CPU counts less) and of
 * checks per second.
 *
 *   node bench/experiments/answer-timer.js [--rounds 11] [--checks 50000] [--batch 1024]
 */
const path = require('node:path');
const { RedisServer } = require('../../test/support/redis-server');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : Number(process.argv[i + 1]);
};
const rounds = arg('rounds', 11);
const checks = arg('checks', 50000);
const batch = arg('batch', 1024);
const DIST = path.resolve(__dirname, '../../dist/lib');
const { RedisConnection } = require(path.join(DIST, 'redis', 'connection.js'));
const { RedisSeenKeys } = require(path.join(DIST, 'dedupe', 'redis-window.js'));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const server = await RedisServer.start();
  const bounded = new RedisConnection({ url: server.url, prefix: 'timer:' }, 'bounded');
  const identity = new RedisConnection({ url: server.url, prefix: 'timer:' }, 'identity');
  identity.answer = (reply) => reply;
  // neither node-redis's per-command timeout nor the bound
  const untimed = new RedisConnection({ url: server.url, prefix: 'timer:', commandTimeoutMs: 0 }, 'untimed');
  try {
    for (const c of [bounded, identity, untimed]) c.open();
    while (!(bounded.ready && identity.ready && untimed.ready)) await new Promise((r) => setTimeout(r, 20));
    const ways = {
      bounded: new RedisSeenKeys(bounded, { name: 'b', ttlMs: 60_000 }),
      identity: new RedisSeenKeys(identity, { name: 'i', ttlMs: 60_000 }),
      untimed: new RedisSeenKeys(untimed, { name: 'u', ttlMs: 60_000 }),
    };
    const samples = { bounded: [], identity: [], untimed: [] };
    let next = 0;
    for (let r = 0; r < rounds + 1; r++) {
      const order = ['bounded', 'identity', 'untimed'];
      for (const name of order.slice(r % 3).concat(order.slice(0, r % 3))) {
        const seen = ways[name];
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        for (let i = 0; i < checks; i += batch) {
          const pending = [];
          for (let j = i; j < Math.min(checks, i + batch); j++) pending.push(seen.check(`id-${next++}`, Date.now()));
          await Promise.all(pending);
        }
        const ms = performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        // round 0 warms up
        if (r > 0) samples[name].push({ perSecond: (checks / ms) * 1000, cpuUs: (cpu.user + cpu.system) / checks });
      }
    }
    const out = {};
    for (const [name, list] of Object.entries(samples))
      out[name] = { checksPerSecond: Math.round(median(list.map((s) => s.perSecond))), cpuUsPerCheck: +median(list.map((s) => s.cpuUs)).toFixed(2) };
    out.boundedToIdentity = {
      checksPerSecond: +(out.bounded.checksPerSecond / out.identity.checksPerSecond).toFixed(3),
      cpuPerCheck: +(out.bounded.cpuUsPerCheck / out.identity.cpuUsPerCheck).toFixed(3),
    };
    console.log(JSON.stringify({ rounds, checks, batch, ...out }, null, 2));
  } finally {
    await bounded.close();
    await identity.close();
    await untimed.close();
    await server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
