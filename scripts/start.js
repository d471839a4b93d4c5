#!/usr/bin/env node
/**
 * `npm start`: a live demo on a fresh clone. Builds the package, prepares a
 * Node-RED user directory in .demo/ (git-ignored) with this package
 * installed, puts every example flow on its own tab, starts Node-RED (the dev
 * dependency) on 127.0.0.1 and prints where to look. Ctrl-C stops it.
 *
 * Options (or environment): --port N (PORT, default 1880), --keep-flows
 * (DEMO_KEEP_FLOWS=1: keep the flows you changed in the demo instead of
 * resetting them to the examples on every start).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
function option(name, env, fallback) {
  const i = args.indexOf(`--${name}`);
  if (i >= 0 && args[i + 1]) return args[i + 1];
  return process.env[env] || fallback;
}
if (args.includes('--help') || args.includes('-h')) {
  console.log('usage: npm start [-- --port 1880] [--keep-flows]');
  process.exit(0);
}
const port = Number(option('port', 'PORT', '1880'));
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`npm start: --port must be a port number, got "${option('port', 'PORT', '')}"`);
  process.exit(2);
}
const keepFlows = args.includes('--keep-flows') || process.env.DEMO_KEEP_FLOWS === '1';

console.log('Building…');
execFileSync(process.execPath, [path.join(root, 'scripts', 'build.js')], { stdio: 'inherit', cwd: root });

const userDir = path.join(root, '.demo');
fs.mkdirSync(path.join(userDir, 'node_modules'), { recursive: true });
// The package is linked, not copied, so a rebuild shows up on the next start.
const link = path.join(userDir, 'node_modules', 'node-red-contrib-detection-bridge');
fs.rmSync(link, { recursive: true, force: true });
fs.symlinkSync(root, link, 'dir');
fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: 'detection-bridge-demo', private: true, dependencies: { 'node-red-contrib-detection-bridge': '*' } }, null, 2));
fs.writeFileSync(
  path.join(userDir, 'settings.js'),
  `// Written by npm start. Node-RED's defaults, listening on 127.0.0.1 only.
module.exports = {
  uiHost: '127.0.0.1',
  uiPort: ${port},
  flowFile: 'flows.json',
  credentialSecret: false,
  editorTheme: { projects: { enabled: false }, tours: false },
  logging: { console: { level: 'info' } },
};
`,
);

const flowFile = path.join(userDir, 'flows.json');
if (!keepFlows || !fs.existsSync(flowFile)) {
  const flows = [];
  const examples = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json')).sort();
  examples.forEach((file, i) => {
    const tab = `demo-tab-${i}`;
    flows.push({ id: tab, type: 'tab', label: path.basename(file, '.json'), info: `Example flow examples/${file}` });
    for (const node of JSON.parse(fs.readFileSync(path.join(root, 'examples', file), 'utf8'))) flows.push({ ...node, z: tab });
  });
  fs.writeFileSync(flowFile, JSON.stringify(flows, null, 2));
}

const redJs = path.join(path.dirname(require.resolve('node-red/package.json')), 'red.js');
const child = spawn(process.execPath, [redJs, '--userDir', userDir, '--settings', path.join(userDir, 'settings.js')], { stdio: ['ignore', 'pipe', 'inherit'], cwd: root });

let announced = false;
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  if (!announced && /Started flows/.test(String(chunk))) {
    announced = true;
    const base = `http://127.0.0.1:${port}`;
    console.log(`
  Node-RED editor:   ${base}/
  Receiver endpoint: ${base}/detections   (from examples/receive-detections.json)

  Post an event and watch the debug sidebar (the bug icon, top right):
    curl -X POST ${base}/detections -H 'Content-Type: application/json' \\
      -d '{"publishType":"WebHookLprPayload","sourceName":"Car park","payload":{"lprPlateInfo":{"plate":"XYZ987"},"detectionInfo":{"dateTimeUtc":"2026-11-21T18:04:05Z","detectorName":"Gate 2"},"resentEvent":false,"messageId":"demo-1"}}'

  The user directory is .demo/ (flows are reset to the examples on every start; --keep-flows keeps yours).
  Ctrl-C stops everything.
`);
  }
});

let stopping = false;
function stop(signal) {
  if (stopping) return;
  stopping = true;
  child.kill(signal);
  setTimeout(() => child.kill('SIGKILL'), 10000).unref();
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
child.on('exit', (code, signal) => process.exit(stopping ? 0 : code ?? (signal ? 1 : 0)));
