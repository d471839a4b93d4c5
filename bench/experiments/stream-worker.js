'use strict';
/**
 * What a worker thread owning the stream's connection would take off
 * Node-RED's main thread in Redis stream mode (issue 29; see
 * docs/performance.md, note ⁴ of "Redis"): 880 KB plate bodies XADDed into a
 * capped stream, 8 at a time (as 8 connections keep in flight), by a
 * node-redis client on the main thread (over TCP on 127.0.0.1, and over a
 * Unix socket), and by one in a worker thread the body is posted to (copied,
 * or its memory transferred), in one process
 * against one redis-server (started here), in interleaved rounds. Each body
 * is first copied out of a template, as the receiver joins a body from its
 * socket's chunks.
 *
 * Medians over the rounds of the main thread's busy time per event (event
 * loop utilisation: everything but waiting for I/O, the `writev` into Redis's
 * socket included; wall time, so it also counts the thread waiting for a CPU),
 * of the main thread's CPU time per event (from /proc: what it did), of the
 * whole process's CPU per event (all threads), and of events per second.
 *
 *   node bench/experiments/stream-worker.js [--rounds 9] [--events 600]
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const { createClient } = require('redis');

const STREAM = 'worker:stream';
/** XADD with a cap, so Redis holds a few bodies, not the run's. */
const xadd = (body) => ['XADD', STREAM, 'MAXLEN', '~', '32', '*', 'body', body, 'meta', '{"kind":"lpr"}'];

if (!isMainThread) {
  // The worker: its own connection; a body in, the entry's id out.
  const client = createClient({ url: workerData.url });
  client.on('error', () => undefined);
  client.connect().then(() => {
    parentPort.on('message', ({ id, body }) => {
      client.sendCommand(xadd(Buffer.from(body.buffer, body.byteOffset, body.byteLength))).then(
        (entry) => parentPort.postMessage({ id, entry }),
        (err) => parentPort.postMessage({ id, error: err.message }),
      );
    });
    parentPort.postMessage({ ready: true });
  });
} else {
  const { RedisServer } = require('../../test/support/redis-server');
  const { body: plateBody } = require('../support/bodies');

  const arg = (name, dflt) => {
    const i = process.argv.indexOf(`--${name}`);
    return i < 0 ? dflt : Number(process.argv[i + 1]);
  };
  const rounds = arg('rounds', 9);
  const events = arg('events', 600);
  const IN_FLIGHT = 8;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  /** Sends `events` bodies through `send`, `IN_FLIGHT` at a time; main-thread and process CPU per event, events/s. */
  /** CPU seconds of this process's main thread (user + system), from /proc (Linux): what it did, not how long it was scheduled out. */
  const mainCpu = () => {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  };

  async function round(send, template) {
    const main0 = mainCpu();
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let next = 0;
    const lane = async () => {
      while (next < events) {
        next++;
        await send(Buffer.from(template));
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    const wall = performance.now() - t0;
    const elu = performance.eventLoopUtilization(elu0);
    const cpu = process.cpuUsage(cpu0);
    return {
      main: elu.active / events,
      mainCpu: ((mainCpu() - main0) * 1000) / events,
      process: (cpu.user + cpu.system) / 1000 / events,
      rate: (events / wall) * 1000,
    };
  }

  async function main() {
    const template = plateBody('lpr', 880 * 1000).buffer;
    const socketPath = path.join(os.tmpdir(), `detection-bridge-stream-worker-${process.pid}.sock`);
    const server = await RedisServer.start({ args: ['--unixsocket', socketPath] });
    const client = createClient({ url: server.url });
    const unixClient = createClient({ socket: { path: socketPath } });
    for (const c of [client, unixClient]) {
      c.on('error', () => undefined);
      await c.connect();
    }
    const worker = new Worker(__filename, { workerData: { url: server.url } });
    const waiting = new Map();
    let ids = 0;
    await new Promise((resolve, reject) => {
      worker.once('error', reject);
      worker.on('message', (m) => {
        if (m.ready) return resolve();
        const w = waiting.get(m.id);
        waiting.delete(m.id);
        if (m.error) w.reject(new Error(m.error));
        else w.resolve(m.entry);
      });
    });
    const viaWorker = (transfer) => (body) =>
      new Promise((resolve, reject) => {
        const id = ids++;
        waiting.set(id, { resolve, reject });
        // A body of its own memory (not a slice of Node's pool) can be handed over without a copy.
        worker.postMessage({ id, body }, transfer && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? [body.buffer] : []);
      });
    const ways = {
      'main thread': (body) => client.sendCommand(xadd(body)),
      'main thread, Unix socket': (body) => unixClient.sendCommand(xadd(body)),
      'worker, body copied': viaWorker(false),
      'worker, body transferred': viaWorker(true),
    };
    const results = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
    try {
      for (const send of Object.values(ways)) await round(send, template); // warm-up
      for (let r = 0; r < rounds; r++) {
        const order = Object.keys(ways);
        for (let i = 0; i < order.length; i++) {
          const name = order[(i + r) % order.length];
          results[name].push(await round(ways[name], template));
        }
      }
    } finally {
      await worker.terminate();
      for (const c of [client, unixClient]) await c.quit().catch(() => undefined);
      await server.close();
      fs.rmSync(socketPath, { force: true });
    }
    const base = median(results['main thread'].map((x) => x.main));
    console.log(`${events} plate events of ${(template.length / 1000).toFixed(0)} KB per round, ${IN_FLIGHT} in flight, ${rounds} rounds, medians:`);
    console.log(
      'way                         main thread ms/event  main thread CPU ms/event  process CPU ms/event  events/s  main thread saved ms/event',
    );
    for (const [name, rs] of Object.entries(results)) {
      const m = median(rs.map((x) => x.main));
      console.log(
        `${name.padEnd(28)}${m.toFixed(3).padStart(20)}${median(rs.map((x) => x.mainCpu))
          .toFixed(3)
          .padStart(26)}${median(rs.map((x) => x.process))
          .toFixed(3)
          .padStart(22)}${median(rs.map((x) => x.rate))
          .toFixed(0)
          .padStart(10)}${(base - m).toFixed(3).padStart(28)}`,
      );
    }
  }

  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
