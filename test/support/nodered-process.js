'use strict';
/**
 * A real Node-RED process for end-to-end tests: the package is packed with
 * `npm pack` (as published), installed into a fresh user directory, and
 * Node-RED (the version under test, see NODE_RED_DIR) is started on
 * 127.0.0.1 with its default settings plus what a test adds.
 */
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { ROOT, NODE_RED_DIR, request } = require('./index');
const { NodeRedChild, npmEnv } = require('./nodered-launcher');

const MODULE = require(path.join(ROOT, 'package.json')).name;

function run(cmd, args, options) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { maxBuffer: 64 * 1024 * 1024, env: npmEnv(), ...options }, (err, stdout, stderr) => {
      if (err) {
        err.message += `\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
        reject(err);
      } else resolve({ stdout, stderr });
    });
  });
}

let packed;
/** Packs the package once per test run (dist/ must be built: npm test does). */
function packModule() {
  if (!packed) {
    packed = (async () => {
      const distEntry = path.join(ROOT, 'dist', 'nodes', 'detection-in', 'detection-in.js');
      if (!fs.existsSync(distEntry)) {
        throw new Error(`${path.relative(ROOT, distEntry)} is missing: run \`npm run build\` first (npm test does)`);
      }
      const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'detection-bridge-pack-'));
      process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
      const out = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT });
      const info = JSON.parse(out.stdout.slice(out.stdout.indexOf('[')))[0];
      return { tarball: path.join(dir, info.filename), files: info.files.map((f) => f.path) };
    })();
  }
  return packed;
}

const packedInstalled = new Map();
/**
 * A tarball of the package `name` as installed in this package's
 * node_modules (a dev dependency), for NodeRedProcess.create's `modules`: it
 * installs without the network (its own dependencies come from the npm cache
 * that installed it) and at the locked version. Packed once per test run;
 * null when `name` is not installed.
 */
function packInstalled(name) {
  if (!packedInstalled.has(name)) {
    const dir = path.join(ROOT, 'node_modules', name);
    packedInstalled.set(
      name,
      !fs.existsSync(path.join(dir, 'package.json'))
        ? Promise.resolve(null)
        : (async () => {
            const dest = await fsp.mkdtemp(path.join(os.tmpdir(), 'detection-bridge-dep-'));
            process.once('exit', () => fs.rmSync(dest, { recursive: true, force: true }));
            const out = await run('npm', ['pack', dir, '--ignore-scripts', '--json', '--pack-destination', dest], { cwd: dest });
            return path.join(dest, JSON.parse(out.stdout.slice(out.stdout.indexOf('[')))[0].filename);
          })(),
    );
  }
  return packedInstalled.get(name);
}

/** The JS body of a core function node that turns a message into one JSON
 *  line: `fields` is a JS object expression over `msg`. */
function probeFunction(fields) {
  return `return { payload: JSON.stringify(${fields}) };`;
}

/** A core function node running `func`, wired to `next` (or to nothing). */
function functionNode(id, z, func, next) {
  return {
    id,
    type: 'function',
    z,
    name: '',
    outputs: 1,
    timeout: 0,
    noerr: 0,
    initialize: '',
    finalize: '',
    libs: [],
    func,
    wires: [next ? [next] : []],
  };
}

/** A core file node appending msg.payload as a line to `filename`, then passing the message to `next`. */
function fileNode(id, z, filename, next) {
  return {
    id,
    type: 'file',
    z,
    name: '',
    filename,
    filenameType: 'str',
    appendNewline: true,
    createDir: true,
    overwriteFile: 'false',
    encoding: 'utf8',
    wires: [next ? [next] : []],
  };
}

/** Runs the simulator's command line (the built bin) and resolves with its exit code and output.
 *  The promise's `stop()` ends the run at once (a test that fails before awaiting it). */
function runSimulator(args, timeoutMs = 90000) {
  const sim = path.join(ROOT, 'dist', 'bin', 'detection-bridge-sim.js');
  let child;
  const result = new Promise((resolve) => {
    child = execFile(process.execPath, [sim, ...args], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, stdout, stderr }),
    );
  });
  result.stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return result;
  };
  return result;
}

class NodeRedProcess extends NodeRedChild {
  /**
   * Creates a user directory with the packed module installed.
   * `settings`: extra settings.js entries (JSON-serialisable); `modules`:
   * other packages to install beside it (npm install specs: a directory, a
   * tarball, name@version).
   */
  static async create({ settings = {}, modules = [] } = {}) {
    const { tarball, files } = await packModule();
    const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'detection-bridge-e2e-'));
    const nr = new NodeRedProcess(base, files);
    await fsp.mkdir(nr.userDir);
    await fsp.writeFile(
      path.join(nr.userDir, 'package.json'),
      JSON.stringify({ name: 'node-red-project', description: 'e2e user dir', version: '0.0.1', private: true }, null, 2),
    );
    await run('npm', ['install', tarball, ...modules, '--prefix', nr.userDir, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
      cwd: nr.userDir,
    });
    assert.ok(fs.existsSync(path.join(nr.userDir, 'node_modules', MODULE, 'package.json')), 'the module is installed in the user dir');
    await nr.writeSettings(settings);
    return nr;
  }

  constructor(base, files) {
    super(base);
    /** Paths the tarball ships. */
    this.packedFiles = files;
  }

  async restart() {
    await this.stop();
    await this.start();
  }

  /**
   * Listens to the editor's comms websocket as the editor does: debug sidebar
   * messages (`debug`) and node status (`status/<id>`). Resolves once
   * subscribed. `events` holds every {topic, data} received.
   */
  async openComms() {
    const WebSocket = require(require.resolve('ws', { paths: [NODE_RED_DIR] }));
    const ws = new WebSocket(`ws://127.0.0.1:${this.port}/comms`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const events = [];
    ws.on('message', (data) => {
      const parsed = JSON.parse(String(data));
      if (Array.isArray(parsed)) events.push(...parsed);
    });
    ws.send(JSON.stringify({ subscribe: 'debug' }));
    ws.send(JSON.stringify({ subscribe: 'status/#' }));
    return {
      events,
      /** Debug sidebar messages of one debug node, as the editor gets them. */
      debug: (nodeId) => events.filter((e) => e.topic === 'debug' && e.data.id === nodeId).map((e) => e.data),
      /** The latest status of a node, or undefined. */
      status: (nodeId) => {
        const mine = events.filter((e) => e.topic === `status/${nodeId}`);
        return mine.length ? mine[mine.length - 1].data : undefined;
      },
      close: () => ws.close(),
    };
  }

  /** An example flow as Import > Examples fetches it (library "examples"). */
  async example(name) {
    const res = await request(`${this.url}/library/examples/flows/${MODULE}/${name}`, { method: 'GET', headers: { accept: 'application/json' } });
    assert.equal(res.status, 200, `example ${name}: ${res.text.slice(0, 200)}`);
    return res.json;
  }

  async cleanup() {
    await this.dispose('SIGTERM');
  }
}

/** Reads the JSON lines a probe file node has written so far. */
function readProbeLines(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

module.exports = { MODULE, NodeRedProcess, packModule, packInstalled, probeFunction, readProbeLines, run, functionNode, fileNode, runSimulator };
