'use strict';
/**
 * A Node-RED for the bench: a fresh user directory in the system temp folder
 * with this package in its node_modules, Node-RED's default settings (editor
 * and httpNode both at `/`, apiMaxLength 5 MB) on 127.0.0.1, started as a
 * child process of its own so its RSS is its own.
 *
 * The package is linked into the user directory (as `npm install <folder>`
 * does) instead of packed and installed: the same compiled files load, and
 * the bench needs no registry. The end-to-end tests cover the packed tarball.
 */
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { request } = require('undici');
const { children } = require('./proc');

const { ROOT } = require('../../test/support');
const MODULE = require(path.join(ROOT, 'package.json')).name;
const { NodeRedChild, NODE_RED_DIR, delay } = require('../../test/support/nodered-launcher');

/** One control request (deploy, counters, push start) on a connection of its
 *  own: a kept-alive one could be closed by the server just as it is reused. */
async function httpJson(url, { method = 'GET', body, headers = {}, timeoutMs = 10000 } = {}) {
  const res = await request(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    reset: true,
  });
  const text = await res.body.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, text, json };
}

class NodeRed extends NodeRedChild {
  /** `execArgv`: extra Node.js flags for the Node-RED process (e.g. --cpu-prof);
   *  `packageRoot`: the built package to load (default this tree; a baseline build for an A/B run). */
  static async create({ execArgv = [], settings = {}, packageRoot = ROOT } = {}) {
    const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'detection-bridge-bench-'));
    const nr = new NodeRed(base, { execArgv });
    await fsp.mkdir(path.join(nr.userDir, 'node_modules'), { recursive: true });
    await fsp.writeFile(
      path.join(nr.userDir, 'package.json'),
      JSON.stringify({ name: 'node-red-bench', version: '0.0.1', private: true, dependencies: { [MODULE]: `file:${packageRoot}` } }, null, 2),
    );
    await fsp.symlink(packageRoot, path.join(nr.userDir, 'node_modules', MODULE), 'dir');
    await nr.writeSettings(settings, 'warn');
    return nr;
  }

  async start(timeoutMs = 60000) {
    await super.start(timeoutMs);
    children.add(this.child);
    this.exited.then(() => children.delete(this.child));
  }
}

/** Whether dist/ holds a build of every registered node. */
function distBuilt() {
  const pkg = require(path.join(ROOT, 'package.json'));
  return Object.values(pkg['node-red'].nodes).every((file) => fs.existsSync(path.join(ROOT, file)));
}

module.exports = { NodeRed, httpJson, distBuilt, ROOT, MODULE, NODE_RED_DIR, delay };
