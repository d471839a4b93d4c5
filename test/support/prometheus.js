'use strict';
/**
 * A real Prometheus (Debian's `prometheus` package) for one test: started on
 * 127.0.0.1 on a free port, its configuration and data in a temp directory,
 * scraping what the test names every second; stopped and removed by the test.
 * `.ci/run` installs it; the service Debian sets up is never used.
 */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { request, until } = require('./index');
const { freePort } = require('./redis-server');

const BINARY = process.env.PROMETHEUS || 'prometheus';

function prometheusAvailable() {
  try {
    execFileSync(BINARY, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

class Prometheus {
  /**
   * `target`: host:port to scrape; `metricsPath`; `token`: sent as a bearer token.
   */
  static async start({ target, metricsPath, token }) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'detection-bridge-prometheus-'));
    const config = [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: detection-bridge',
      `    metrics_path: ${metricsPath}`,
      '    authorization:',
      '      type: Bearer',
      `      credentials: ${token}`,
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), config);
    const port = await freePort();
    const args = [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ];
    const child = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new Prometheus(child, dir, `http://127.0.0.1:${port}`);
    child.stdout.on('data', (d) => (server.output += d));
    child.stderr.on('data', (d) => (server.output += d));
    server.exited = new Promise((resolve) => child.once('exit', resolve));
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited: ${server.output}`);
        return (await request(`${server.url}/-/ready`, { method: 'GET' }).catch(() => ({ status: 0 }))).status === 200;
      },
      30000,
      'prometheus ready',
    );
    return server;
  }

  constructor(child, dir, url) {
    this.child = child;
    this.dir = dir;
    this.url = url;
    this.output = '';
  }

  /** An instant query through the HTTP API: [{metric, value}] with the value as a number. */
  async query(promql) {
    const answer = await request(`${this.url}/api/v1/query?query=${encodeURIComponent(promql)}`, { method: 'GET' });
    if (answer.status !== 200 || answer.json.status !== 'success') throw new Error(`query ${promql}: ${answer.status} ${answer.text}`);
    return answer.json.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  }

  /** Waits until `promql` gives one series whose value is `expected`; returns it. */
  async valueOf(promql, expected, timeoutMs = 20000) {
    let last;
    try {
      return await until(
        async () => {
          last = await this.query(promql);
          return last.length === 1 && last[0].value === expected ? last[0] : undefined;
        },
        timeoutMs,
        `${promql} = ${expected}`,
      );
    } catch (err) {
      throw new Error(`${err.message}; last answer ${JSON.stringify(last)}`, { cause: err });
    }
  }

  /** Waits until `promql` (a comparison, say) gives at least one series. */
  async holds(promql, timeoutMs = 20000) {
    return until(async () => (await this.query(promql)).length > 0, timeoutMs, promql);
  }

  async close() {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
    await this.exited;
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

module.exports = { Prometheus, prometheusAvailable };
