'use strict';
/**
 * A real MQTT broker (Debian's mosquitto) for one test file: started on
 * 127.0.0.1 on a free port with a configuration of its own (anonymous, no
 * persistence) in a temp directory, and stopped by the test.
 *
 * `mosquittoAvailable()` says whether the binary is here: .ci/run installs it;
 * a developer machine without it skips the test with a message saying so.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

/** Debian puts the broker in /usr/sbin, which a non-root PATH may lack. */
const BINARY = process.env.MOSQUITTO || ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((p) => fs.existsSync(p)) || 'mosquitto';

function mosquittoAvailable() {
  return path.isAbsolute(BINARY) ? fs.existsSync(BINARY) : false;
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

/** Whether something accepts TCP connections on 127.0.0.1:`port` now. */
function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

class Mosquitto {
  constructor(port, dir) {
    this.port = port;
    this.dir = dir;
    this.url = `mqtt://127.0.0.1:${port}`;
    this.child = undefined;
    this.output = '';
  }

  static async start() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'detection-bridge-mqtt-'));
    const broker = new Mosquitto(await freePort(), dir);
    const conf = path.join(dir, 'mosquitto.conf');
    fs.writeFileSync(conf, [`listener ${broker.port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', 'log_dest stderr', ''].join('\n'));
    const child = spawn(BINARY, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    broker.child = child;
    child.stdout.on('data', (d) => (broker.output += d));
    child.stderr.on('data', (d) => (broker.output += d));
    child.exited = new Promise((resolve) => child.once('exit', resolve));
    // Ready once it accepts connections on its port.
    for (;;) {
      if (child.exitCode !== null) throw new Error(`mosquitto exited: ${broker.output}`);
      if (await accepts(broker.port)) return broker;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Stops the broker and removes its directory. */
  async close() {
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await child.exited;
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

module.exports = { Mosquitto, mosquittoAvailable };
