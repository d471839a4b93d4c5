'use strict';
/**
 * The one way tests and benchmarks run Node-RED as a child process: a user
 * directory with a settings.js on a free port of 127.0.0.1, `node-red -u … -s …`
 * started with the Node.js running us, ready once GET /settings answers 200,
 * stopped as Ctrl-C does, its folder removed after (at exit at the latest).
 * The e2e tests (nodered-process.js) install the packed tarball into it; the
 * benchmark (bench/support/nodered.js) links the clone.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');

const { NODE_RED_DIR, postJson } = require('./index');

/** Resolves after `ms`, without holding the process open. */
function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms, null).unref());
}

/** A port free on 127.0.0.1 right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Our environment without the variables `npm test` or `npm run bench` export
 *  for this package, so Node-RED and a nested npm work on their own directory. */
function npmEnv() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^npm_(package_|lifecycle_|config_local_prefix$|config_prefix$)/i.test(key)) delete env[key];
  }
  return env;
}

/** The status of GET `url` (0 when nothing answers). */
function statusOf(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { headers: { accept: 'application/json' }, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** Folders of instances not disposed of yet: removed at exit, should dispose() never run. */
const bases = new Set();
process.on('exit', () => {
  for (const base of bases) fs.rmSync(base, { recursive: true, force: true });
});

class NodeRedChild {
  /**
   * `base`: a temporary folder this instance owns (the user dir is base/user);
   * `execArgv`: extra Node.js flags (e.g. --cpu-prof); `env`: the child's environment.
   */
  constructor(base, { execArgv = [], env = npmEnv() } = {}) {
    this.base = base;
    bases.add(base);
    this.userDir = path.join(base, 'user');
    this.settingsFile = path.join(this.userDir, 'settings.js');
    this.execArgv = execArgv;
    this.env = env;
    this.log = [];
    this.child = undefined;
    this.killNow = () => this.child && this.child.exitCode === null && this.child.signalCode === null && this.child.kill('SIGKILL');
  }

  get pid() {
    return this.child && this.child.pid;
  }

  /** Writes settings.js: 127.0.0.1 on a free port, no credential secret or telemetry, plus `settings`. */
  async writeSettings(settings = {}, logLevel = 'info') {
    const port = await freePort();
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    const all = {
      uiHost: '127.0.0.1',
      uiPort: port,
      flowFile: 'flows.json',
      credentialSecret: false,
      telemetry: { enabled: false },
      logging: { console: { level: logLevel, metrics: false, audit: false } },
      ...settings,
    };
    await fsp.writeFile(this.settingsFile, `module.exports = ${JSON.stringify(all, null, 2)};\n`);
  }

  /** Starts Node-RED and resolves once its admin API answers. */
  async start(timeoutMs = 60000) {
    const redJs = path.join(NODE_RED_DIR, require(path.join(NODE_RED_DIR, 'package.json')).bin['node-red']);
    const child = spawn(process.execPath, [...this.execArgv, redJs, '-u', this.userDir, '-s', this.settingsFile], {
      cwd: this.userDir,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    process.once('exit', this.killNow); // last resort, should stop() never run
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.stdout.on('data', (d) => this.pushLog(d));
    child.stderr.on('data', (d) => this.pushLog(d));
    this.exitedWith = null;
    this.exited.then((e) => (this.exitedWith = e));
    await this.answers('/settings', 200, timeoutMs);
  }

  /**
   * Deploys a whole flow configuration and waits until its endpoints answer
   * (flows start after the deploy request returns): `ready` maps paths to the
   * status a GET gets once the flow is up.
   */
  async deploy(flow, ready = {}, timeoutMs = 20000) {
    const res = await postJson(`${this.url}/flows`, flow, { 'Node-RED-Deployment-Type': 'full' });
    if (res.status !== 204 && res.status !== 200) throw new Error(`deploy answered ${res.status}: ${res.text}`);
    for (const [path, status] of Object.entries(ready)) await this.answers(path, status, timeoutMs);
  }

  /** Deploys with a deployment type ('full', 'nodes', 'flows') and returns the answer, without waiting for endpoints. */
  deployAs(flow, type) {
    return postJson(`${this.url}/flows`, flow, { 'Node-RED-Deployment-Type': type });
  }

  /** Resolves once GET `path` answers `status` (an endpoint is up once a deploy has
   *  started its flow); fails when Node-RED exits or `timeoutMs` passes first. */
  async answers(path, status, timeoutMs = 15000) {
    const end = performance.now() + timeoutMs;
    for (;;) {
      if (this.exitedWith) throw new Error(`Node-RED exited (${JSON.stringify(this.exitedWith)})\n${this.logText()}`);
      const got = await statusOf(`${this.url}${path}`);
      if (got === status) return;
      if (performance.now() > end) throw new Error(`GET ${path} answered ${got}, not ${status}, for ${timeoutMs} ms\n${this.logText()}`);
      await delay(50);
    }
  }

  /** Stops Node-RED as Ctrl-C does (flows closed, context flushed); SIGKILL after 15 s. */
  async stop(signal = 'SIGINT') {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    if (!(await Promise.race([this.exited, delay(15000)]))) {
      child.kill('SIGKILL');
      await Promise.race([this.exited, delay(5000)]);
    }
    process.removeListener('exit', this.killNow);
  }

  /** Stops Node-RED, then removes its folder. */
  async dispose(signal = 'SIGINT') {
    await this.stop(signal);
    await fsp.rm(this.base, { recursive: true, force: true, maxRetries: 3 });
    bases.delete(this.base);
  }

  pushLog(chunk) {
    this.log.push(chunk.toString());
    if (this.log.length > 4000) this.log.splice(0, this.log.length - 2000);
  }

  logText(lines = 200) {
    return this.log.join('').split('\n').slice(-lines).join('\n');
  }

  /** `[error]` lines Node-RED logged. */
  errorLines() {
    return this.log
      .join('')
      .split('\n')
      .filter((l) => /\[error\]/.test(l));
  }
}

module.exports = { NodeRedChild, NODE_RED_DIR, delay, freePort, npmEnv };
