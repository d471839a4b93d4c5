'use strict';
/**
 * A real redis-server (Debian's package) for one test file: started on
 * 127.0.0.1 on a free port, with no persistence and its files in a temp
 * directory, stopped (and restarted on the same port) by the test itself.
 *
 * `redisAvailable()` says whether the binary is here: .ci/run installs it;
 * a developer machine without it skips these tests with a message saying so.
 */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const BINARY = process.env.REDIS_SERVER || 'redis-server';

function redisAvailable() {
  try {
    execFileSync(BINARY, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

class RedisServer {
  /** `persist`: an append-only file in its directory, synced on every write, so a restart keeps the data.
   *  `replicaOf`: the port of a primary on 127.0.0.1 this server replicates (see startReplica).
   *  `args`: more redis-server options, for every start. */
  constructor(port, dir, { persist = false, replicaOf, args = [] } = {}) {
    this.port = port;
    this.dir = dir;
    this.persist = persist;
    this.replicaOf = replicaOf;
    this.args = args;
    this.url = `redis://127.0.0.1:${port}`;
    this.child = undefined;
  }

  static async start(options) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'detection-bridge-redis-'));
    // A port free a moment ago can be taken by another test's process before redis-server binds it
    // (seen in CI): then another free port, a few times.
    for (let attempt = 1; ; attempt++) {
      const server = new RedisServer(await freePort(), dir, options);
      try {
        await server.resume();
        return server;
      } catch (err) {
        server.child = undefined;
        if (attempt >= 5 || !/Address already in use/.test(err.message)) throw err;
      }
    }
  }

  /**
   * Starts (again) on the same port: empty, unless started with `persist` or its data saved (SAVE).
   * `args`: more redis-server options for this start; `loaded: false`: resolved as soon as it answers
   * at all (a server loading its data answers PING with LOADING), not once it answers PONG.
   */
  async resume({ args: extra = [], loaded = true } = {}) {
    if (this.child) return;
    const durability = this.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', ...durability, '--dir', this.dir, '--loglevel', 'warning'];
    // A replica's first sync at once (a primary waits 5 s for more replicas to share a diskless sync by default).
    args.push('--repl-diskless-sync-delay', '0');
    if (this.replicaOf) args.push('--replicaof', '127.0.0.1', String(this.replicaOf));
    args.push(...this.args, ...extra);
    const child = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.exited = exited;
    // Ready once it answers PING on its port.
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited: ${output}`);
      if (await this.ping(!loaded).catch(() => false)) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** A replica of this server (its own port and directory), resolved once its link to this one is up. */
  async startReplica(options = {}) {
    const replica = await RedisServer.start({ ...options, replicaOf: this.port });
    await replica.linkUp();
    return replica;
  }

  /** Resolves once this replica's link to its primary is up (INFO replication: master_link_status:up). */
  async linkUp() {
    for (;;) {
      const info = await this.command('INFO replication\r\n').catch(() => '');
      if (/master_link_status:up/.test(info)) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Freezes the process (SIGSTOP): it keeps its connections but answers nothing, as a hung machine. */
  freeze() {
    this.child?.kill('SIGSTOP');
  }

  thaw() {
    this.child?.kill('SIGCONT');
  }

  /** Stops the server (SIGTERM) and waits for it to exit. */
  async stop() {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      child.kill('SIGCONT'); // a frozen one handles SIGTERM once thawed
    }
    await child.exited;
  }

  /** Stops and removes its directory. */
  async close() {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** One inline command's raw answer (a plain RESP exchange over a socket), read until the socket is idle. */
  command(text) {
    return new Promise((resolve, reject) => {
      const socket = net.connect(this.port, '127.0.0.1');
      let answer = '';
      socket.setTimeout(1000);
      socket.once('connect', () => socket.write(text));
      socket.on('data', (d) => {
        answer += d;
        // a bulk string: its length, then the text
        const m = /^\$(\d+)\r\n/.exec(answer);
        if (!m || answer.length >= m[0].length + Number(m[1])) {
          socket.destroy();
          resolve(answer);
        }
      });
      socket.once('timeout', () => {
        socket.destroy();
        resolve(answer);
      });
      socket.once('error', reject);
    });
  }

  /** Whether it answers PING now (a plain RESP exchange over a socket); `anyAnswer`: an error (LOADING) counts too. */
  ping(anyAnswer = false) {
    return new Promise((resolve, reject) => {
      const socket = net.connect(this.port, '127.0.0.1');
      socket.setTimeout(1000);
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (d) => {
        socket.destroy();
        resolve(anyAnswer || String(d).startsWith('+PONG'));
      });
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', reject);
    });
  }
}

/** A node-redis client for the test's own checks (the package's dependency). */
async function redisClient(url) {
  const { createClient } = require('redis');
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * redis-server options that make its next start load its saved data slowly (about 20 ms a key) while
 * answering between keys: LOADING for about 4 s after saveData's 200 keys.
 */
const SLOW_LOAD = ['--key-load-delay', '20000', '--loading-process-events-interval-bytes', '1024'];

/** Writes `keys` keys of `bytes` bytes under `prefix` and saves them (SAVE): what a restart loads. */
async function saveData(client, { keys = 200, bytes = 10_000, prefix = 'saved:' } = {}) {
  const value = 'v'.repeat(bytes);
  await Promise.all(Array.from({ length: keys }, (_, i) => client.set(`${prefix}${i}`, value)));
  await client.sendCommand(['SAVE']);
}

/**
 * A TCP proxy in front of Redis that holds Redis's answers back, once SETs
 * come, until it has seen `total` SET commands: a client that waited for each
 * answer before sending the next check would never get there (the test times
 * out), one that pipelines gets every answer. Resolves with {url, seen(), close()}.
 */
async function holdingProxy(redisPort, total) {
  let seen = 0;
  let release;
  const allSent = new Promise((resolve) => (release = resolve));
  const sockets = new Set();
  const proxy = net.createServer((client) => {
    const upstream = net.connect(redisPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    const held = [];
    let text = '';
    client.on('data', (chunk) => {
      text += String(chunk);
      seen = (text.match(/\r\nSET\r\n/gi) || []).length;
      if (seen >= total) release();
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      // The connection's own handshake passes; once SETs come, answers wait.
      if (seen === 0 || seen >= total) client.write(chunk);
      else held.push(chunk);
    });
    allSent.then(() => {
      for (const chunk of held.splice(0)) client.write(chunk);
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${proxy.address().port}`,
    seen: () => seen,
    /** Closes it, cutting connections still open. */
    close: () =>
      new Promise((resolve) => {
        proxy.close(resolve);
        for (const socket of sockets) socket.destroy();
      }),
  };
}

module.exports = { RedisServer, redisAvailable, redisClient, saveData, SLOW_LOAD, holdingProxy, freePort };
