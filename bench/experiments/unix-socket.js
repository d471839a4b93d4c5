'use strict';
/**
 * Whether a Unix socket instead of TCP on 127.0.0.1 makes sending a plate
 * body to Redis cheaper for the sender (issue 29; docs/performance.md, note ⁴
 * of "Redis"): 880 KB bodies XADDed into a capped stream, 8 in flight, by one
 * node-redis client over each, against one redis-server (started here,
 * listening on both), in interleaved rounds. Medians of the client's CPU per
 * event (user + system) and of its kernel share.
 *
 *   node bench/experiments/unix-socket.js [--rounds 7] [--events 1000]
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { createClient } = require('redis');
const { body: plateBody } = require('../support/bodies');
const { freePort } = require('../support/proc');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : Number(process.argv[i + 1]);
};
const rounds = arg('rounds', 7);
const events = arg('events', 1000);
const IN_FLIGHT = 8;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const xadd = (body) => ['XADD', 'unix:stream', 'MAXLEN', '~', '32', '*', 'body', body];

async function round(client, template) {
  const cpu0 = process.cpuUsage();
  let next = 0;
  const lane = async () => {
    while (next < events) {
      next++;
      await client.sendCommand(xadd(template));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / 1000 / events, system: cpu.system / 1000 / events };
}

async function main() {
  const template = plateBody('lpr', 880 * 1000).buffer;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'detection-bridge-unix-'));
  const socket = path.join(dir, 'redis.sock');
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--unixsocket', socket, '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const clients = {};
  try {
    for (let i = 0; i < 100 && !fs.existsSync(socket); i++) await new Promise((r) => setTimeout(r, 50));
    clients['TCP 127.0.0.1'] = createClient({ socket: { host: '127.0.0.1', port } });
    clients['Unix socket'] = createClient({ socket: { path: socket } });
    for (const c of Object.values(clients)) {
      c.on('error', () => undefined);
      await c.connect();
      await round(c, template); // warm-up
    }
    const results = Object.fromEntries(Object.keys(clients).map((k) => [k, []]));
    for (let r = 0; r < rounds; r++) {
      const order = Object.keys(clients);
      for (let i = 0; i < order.length; i++) {
        const name = order[(i + r) % order.length];
        results[name].push(await round(clients[name], template));
      }
    }
    console.log(`${events} plate events of ${(template.length / 1000).toFixed(0)} KB per round, ${IN_FLIGHT} in flight, ${rounds} rounds, medians:`);
    console.log('way              client CPU ms/event  of it in the kernel');
    for (const [name, rs] of Object.entries(results))
      console.log(
        `${name.padEnd(17)}${median(rs.map((x) => x.cpu))
          .toFixed(3)
          .padStart(19)}${median(rs.map((x) => x.system))
          .toFixed(3)
          .padStart(21)}`,
      );
  } finally {
    for (const c of Object.values(clients)) await c.quit().catch(() => undefined);
    server.kill();
    await new Promise((r) => (server.exitCode === null ? server.once('exit', r) : r()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
