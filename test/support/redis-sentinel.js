'use strict';
/**
 * A real Sentinel setup (Debian's redis-server) for one test file: a primary,
 * one replica and three sentinels on free 127.0.0.1 ports, their files in a
 * temp directory, started and stopped by the test.
 *
 *   const set = await RedisSentinelSet.start({ redisPassword: 'r', sentinelPassword: 's' });
 *   set.sentinels        // 'host:port host:port host:port', as the configuration node takes it
 *   set.name             // the name the sentinels monitor
 *   set.primaryPort      // the primary's port now
 *   await set.killPrimary();            // SIGKILL; resolves with the killed port
 *   const port = await set.waitForPromotion(); // the replica the sentinels promoted
 *   await set.close();                  // stops everything, removes the directory
 *
 * Options (all optional): `name`; `replicas` (how many, default 1: a set
 * that must still confirm writes on a replica after a failover needs two);
 * `redisUser`/`redisPassword` (an ACL user, or
 * the default user's password, on the primary and the replica; the sentinels
 * and the replica get them too); `sentinelUser`/`sentinelPassword` (what a
 * client must give the sentinels); `tls: { cert, key }` (PEM: Redis and the
 * sentinels listen with TLS only, and talk to each other with TLS).
 * Down after 1 s (`downAfterMs`), failover timeout 3 s: a failover takes a few seconds. Each sentinel
 * logs its failover events to a file: `set.sentinelLogs()` for a failure message.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort } = require('./redis-server');

const BINARY = process.env.REDIS_SERVER || 'redis-server';
const HOST = '127.0.0.1';

/** One redis-server process (a data node or a sentinel) started from a config file. */
class Process {
  constructor(port, file, sentinel) {
    this.port = port;
    this.file = file;
    this.sentinel = sentinel;
    this.child = undefined;
    this.output = '';
  }

  start() {
    const child = spawn(BINARY, this.sentinel ? [this.file, '--sentinel'] : [this.file], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout.on('data', (d) => (this.output = (this.output + d).slice(-4000)));
    child.stderr.on('data', (d) => (this.output = (this.output + d).slice(-4000)));
    child.exited = new Promise((resolve) => child.once('exit', resolve));
  }

  async stop(signal = 'SIGTERM') {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      // a frozen one (SIGSTOP) acts on SIGTERM only once it runs again
      child.kill('SIGCONT');
      child.kill(signal);
    }
    await child.exited;
  }
}

class RedisSentinelSet {
  constructor(options, dir) {
    this.options = options;
    this.name = options.name || 'detection-primary';
    this.dir = dir;
    this.nodes = [];
    this.sentinelProcesses = [];
    /** The client options for the test's own checks (node-redis). */
    this.tls = options.tls;
  }

  static async start(options = {}) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'detection-bridge-sentinel-'));
    const set = new RedisSentinelSet(options, dir);
    try {
      await set.startAll();
    } catch (err) {
      await set.close();
      throw err;
    }
    return set;
  }

  /** The sentinels' addresses, space separated (the configuration node's text). */
  get sentinels() {
    return this.sentinelProcesses.map((s) => `${HOST}:${s.port}`).join(' ');
  }

  /** The port of the data node that is primary as far as this set knows (the first, until a promotion). */
  get primaryPort() {
    return this.primary.port;
  }

  async startAll() {
    const { redisUser, redisPassword, sentinelUser, sentinelPassword, tls } = this.options;
    let tlsLines = [];
    if (tls) {
      fs.writeFileSync(path.join(this.dir, 'cert.pem'), tls.cert);
      fs.writeFileSync(path.join(this.dir, 'key.pem'), tls.key);
      const cert = path.join(this.dir, 'cert.pem');
      tlsLines = [
        `tls-cert-file ${cert}`,
        `tls-key-file ${path.join(this.dir, 'key.pem')}`,
        `tls-ca-cert-file ${cert}`,
        'tls-auth-clients no',
        'tls-replication yes',
      ];
    }
    const listen = (port) => (tls ? ['port 0', `tls-port ${port}`, ...tlsLines] : [`port ${port}`]);
    const auth = [];
    if (redisUser) auth.push(`user ${redisUser} on >${redisPassword} ~* &* +@all`, 'user default off');
    else if (redisPassword) auth.push(`requirepass ${redisPassword}`);
    if (redisPassword) auth.push(...(redisUser ? [`masteruser ${redisUser}`] : []), `masterauth ${redisPassword}`);

    const primaryPort = await freePort();
    const ports = [primaryPort];
    for (let i = 0; i < (this.options.replicas ?? 1); i++) ports.push(await freePort());
    for (const [i, port] of ports.entries()) {
      const nodeDir = path.join(this.dir, `redis-${i}`);
      fs.mkdirSync(nodeDir);
      // A backlog that holds a failover's worth of plate events, so a replica that the sentinels point at
      // the promoted primary continues (PSYNC) instead of a full resync; a full one starts at once.
      const lines = [`bind ${HOST}`, ...listen(port), `dir ${nodeDir}`, 'save ""', 'appendonly no', 'loglevel warning', ...auth];
      lines.push('repl-backlog-size 256mb', 'repl-diskless-sync-delay 0');
      if (i > 0) lines.push(`replicaof ${HOST} ${primaryPort}`);
      const file = path.join(this.dir, `redis-${i}.conf`);
      fs.writeFileSync(file, lines.join('\n') + '\n');
      const node = new Process(port, file, false);
      this.nodes.push(node);
      node.start();
      await this.waitAnswers(node);
    }
    this.primary = this.nodes[0];

    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const lines = [
        `bind ${HOST}`,
        ...listen(port),
        `dir ${this.dir}`,
        'loglevel warning',
        // failover events (+sdown, +odown, +elected-leader, +switch-master) are logged at this level
        `logfile ${path.join(this.dir, `sentinel-${i}.log`)}`,
        'sentinel resolve-hostnames no',
        `sentinel monitor ${this.name} ${HOST} ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${this.name} ${this.options.downAfterMs ?? 1000}`,
        `sentinel failover-timeout ${this.name} 3000`,
      ];
      if (redisUser) lines.push(`sentinel auth-user ${this.name} ${redisUser}`);
      if (redisPassword) lines.push(`sentinel auth-pass ${this.name} ${redisPassword}`);
      if (sentinelUser)
        lines.push(`user ${sentinelUser} on >${sentinelPassword} ~* &* +@all`, 'user default off', `sentinel sentinel-user ${sentinelUser}`);
      else if (sentinelPassword) lines.push(`requirepass ${sentinelPassword}`);
      if (sentinelPassword) lines.push(`sentinel sentinel-pass ${sentinelPassword}`);
      const file = path.join(this.dir, `sentinel-${i}.conf`);
      fs.writeFileSync(file, lines.join('\n') + '\n');
      const sentinel = new Process(port, file, true);
      this.sentinelProcesses.push(sentinel);
      sentinel.start();
      await this.waitAnswers(sentinel);
    }
    // Ready once every sentinel sees every replica (up) and the two other sentinels: a failover needs both.
    await this.until(async () => {
      for (const sentinel of this.sentinelProcesses) {
        const replicas = await this.sentinelCommand(sentinel, ['SENTINEL', 'REPLICAS', this.name]);
        const up = replicas.filter((r) => !/s_down|disconnected/.test(fields(r).flags));
        const others = await this.sentinelCommand(sentinel, ['SENTINEL', 'SENTINELS', this.name]);
        if (up.length < this.nodes.length - 1 || others.length < 2) return false;
      }
      return true;
    }, 30000);
  }

  /** What the sentinels logged (their failover events), each file's last `lines` lines, for a failure message. */
  sentinelLogs(lines = 40) {
    return this.sentinelProcesses
      .map((sentinel, i) => {
        let text = '';
        try {
          text = fs.readFileSync(path.join(this.dir, `sentinel-${i}.log`), 'utf8');
        } catch {
          // not written (yet)
        }
        return `-- sentinel ${i} (port ${sentinel.port}) --\n${text.trimEnd().split('\n').slice(-lines).join('\n')}`;
      })
      .join('\n');
  }

  /** Freezes sentinel `i` (SIGSTOP): its connections stay open, it answers nothing, as a hung machine. */
  freezeSentinel(i) {
    this.sentinelProcesses[i].child?.kill('SIGSTOP');
    // asked no more by the set itself (waitForPromotion)
    this.sentinelProcesses[i].frozen = true;
  }

  /** SIGKILLs the current primary; resolves with its port once it is gone. */
  async killPrimary() {
    const primary = this.primary;
    await primary.stop('SIGKILL');
    return primary.port;
  }

  /**
   * Resolves with the port of the data node the sentinels promoted in place of
   * the killed primary, once a majority of them name it and it says it is a master.
   */
  async waitForPromotion(timeoutMs = 30000) {
    const old = this.primary;
    let promoted;
    await this.until(async () => {
      const named = [];
      for (const sentinel of this.sentinelProcesses.filter((p) => !p.frozen)) {
        const reply = await this.sentinelCommand(sentinel, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name]).catch(() => null);
        if (reply) named.push(Number(reply[1]));
      }
      const port = named.find((p) => p !== old.port && named.filter((q) => q === p).length >= 2);
      if (port === undefined) return false;
      const node = this.nodes.find((n) => n.port === port);
      const role = await this.redisCommand(node, ['ROLE']).catch(() => null);
      if (!role || String(role[0]) !== 'master') return false;
      promoted = node;
      return true;
    }, timeoutMs);
    this.primary = promoted;
    return promoted.port;
  }

  /** Stops every process and removes the directory. */
  async close() {
    await Promise.all([...this.sentinelProcesses, ...this.nodes].map((p) => p.stop()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** Runs one command on a sentinel (with the sentinels' credentials). */
  sentinelCommand(sentinel, args) {
    return this.command(sentinel.port, this.options.sentinelUser, this.options.sentinelPassword, args);
  }

  /** Runs one command on a data node (with Redis's credentials). */
  redisCommand(node, args) {
    return this.command(node.port, this.options.redisUser, this.options.redisPassword, args);
  }

  async command(port, username, password, args) {
    const { createClient } = require('redis');
    const socket = { host: HOST, port, connectTimeout: 1000, reconnectStrategy: false };
    if (this.tls) Object.assign(socket, { tls: true, ca: this.tls.cert, servername: 'localhost' });
    const client = createClient({ socket, username, password });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await client.sendCommand(args);
    } finally {
      client.destroy();
    }
  }

  async waitAnswers(proc) {
    await this.until(async () => {
      if (proc.child.exitCode !== null) throw new Error(`redis-server exited: ${proc.output}`);
      const args = ['PING'];
      const reply = proc.sentinel ? await this.sentinelCommand(proc, args).catch(() => null) : await this.redisCommand(proc, args).catch(() => null);
      return reply === 'PONG';
    }, 10000);
  }

  async until(check, timeoutMs) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (await check()) return;
      if (Date.now() > end) throw new Error(`sentinel set not ready in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A sentinel's flat [name, value, …] reply as an object. */
function fields(list) {
  const out = {};
  for (let i = 0; i + 1 < list.length; i += 2) out[String(list[i])] = String(list[i + 1]);
  return out;
}

module.exports = { RedisSentinelSet };
