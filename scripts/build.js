#!/usr/bin/env node
/**
 * Compiles the TypeScript to dist/ and puts each node's editor files where
 * Node-RED looks for them: next to the compiled nodes/<type>/<type>.js go
 * <type>.html, locales/<lang>/<type>.{json,html} and icons/.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');

fs.rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.json')], {
  stdio: 'inherit',
  cwd: root,
});

// A node folder without its runtime file is work in progress, not a node.
const types = fs
  .readdirSync(path.join(root, 'nodes'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .filter((type) => {
    const complete = fs.existsSync(path.join(root, 'nodes', type, `${type}.ts`));
    if (!complete) console.warn(`build: skipping nodes/${type}: no ${type}.ts yet`);
    return complete;
  });
const langs = fs.readdirSync(path.join(root, 'locales'));
const icons = fs.readdirSync(path.join(root, 'icons'));

for (const type of types) {
  const target = path.join(dist, 'nodes', type);
  fs.copyFileSync(path.join(root, 'nodes', type, `${type}.html`), path.join(target, `${type}.html`));
  for (const lang of langs) {
    for (const ext of ['json', 'html']) {
      const file = path.join(root, 'locales', lang, `${type}.${ext}`);
      if (!fs.existsSync(file)) continue;
      fs.mkdirSync(path.join(target, 'locales', lang), { recursive: true });
      fs.copyFileSync(file, path.join(target, 'locales', lang, `${type}.${ext}`));
    }
  }
  fs.mkdirSync(path.join(target, 'icons'), { recursive: true });
  for (const icon of icons) fs.copyFileSync(path.join(root, 'icons', icon), path.join(target, 'icons', icon));
}
console.log(`built ${types.length} node type(s): ${types.join(', ')}`);
