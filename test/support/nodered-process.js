'use strict';
/**
 * A real Node-RED process for end-to-end tests: the package is packed with
 * `npm pack` (as published), installed into a fresh user directory (a copy
 * of a template the tarball was installed into once: user-dir-template.js), and
 * Node-RED (the version under test, see NODE_RED_DIR) is started on
 * 127.0.0.1 with its default settings plus what a test adds.
 */
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { ROOT, NODE_RED_DIR, request, until } = require('./index');
const { NodeRedChild } = require('./nodered-launcher');
const { MODULE, copyTemplate, packInstalled, packModule, run } = require('./user-dir-template');

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

/**
 * `runSimulator(args, timeoutMs)`, stopped by `cleanups` (a test's list of
 * `async (failed) => …`) if it is still running; its progress lines (stderr)
 * are printed when the test failed.
 */
function simulateIn(cleanups, args, timeoutMs) {
  const run = runSimulator(args, timeoutMs);
  cleanups.push(async (failed) => {
    const { stderr } = await run.stop();
    if (failed) console.log(`\n---- simulator (stderr, last lines) ----\n${stderr.split('\n').slice(-60).join('\n')}\n----`);
  });
  return run;
}

/** Waits for `predicate` while the simulator `run` runs; fails at once, with its output, should it end first. */
async function whileRunning(run, predicate, timeoutMs, what) {
  let ended;
  run.then((result) => (ended = result));
  await until(
    () => {
      if (predicate()) return true;
      if (ended) throw new Error(`the simulator ended (exit ${ended.code}) before ${what}:\n${ended.stdout}\n${ended.stderr.slice(-3000)}`);
      return false;
    },
    timeoutMs,
    what,
  );
}

class NodeRedProcess extends NodeRedChild {
  /**
   * Creates a user directory of its own with the packed module installed.
   * `settings`: extra settings.js entries (JSON-serialisable); `modules`:
   * other packages to install beside it (npm install specs: a directory, a
   * tarball, name@version).
   */
  static async create({ settings = {}, modules = [] } = {}) {
    const { files } = await packModule();
    const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'detection-bridge-e2e-'));
    const nr = new NodeRedProcess(base, files);
    await copyTemplate(modules, nr.userDir);
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

/**
 * Reads the JSON lines a probe file node has written so far. The file node
 * may be halfway through appending one: what follows the last newline is
 * left for the next read.
 */
function readProbeLines(file) {
  if (!fs.existsSync(file)) return [];
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.pop(); // '' after a whole last line, else the line being written
  return lines.filter(Boolean).map((l) => JSON.parse(l));
}

module.exports = {
  MODULE,
  NodeRedProcess,
  packModule,
  packInstalled,
  probeFunction,
  readProbeLines,
  run,
  functionNode,
  fileNode,
  runSimulator,
  simulateIn,
  whileRunning,
};
