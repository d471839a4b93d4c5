#!/usr/bin/env node
/**
 * Compiles the TypeScript to dist/ and puts each node's editor files where
 * Node-RED looks for them: next to the compiled nodes/<type>/<type>.js go
 * <type>.html, locales/<lang>/<type>.{json,html} and icons/ with the one icon
 * the node declares (Node-RED pools the icons of a module's node folders, so
 * each icon ships once).
 *
 * A node's dialog script is TypeScript, nodes/<type>/editor.ts, compiled by
 * tsconfig.editor.json (a plain browser script, no modules) and put into the
 * built <type>.html where the editor runs it: after the package's editor
 * script (`detection-bridge/editor.js`), before the dialog's template. A node
 * file that still holds its own inline script is copied as it is.
 *
 * Messages of lib's errors are written once, in locales/<lang>/shared.json;
 * they are merged into every node's catalog so that RED._ finds them from any
 * node (a node's RED._ only sees its own catalog).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
const SHARED_CATALOG = 'shared.json';

fs.rmSync(dist, { recursive: true, force: true });
const EDITOR_OUT = path.join(dist, 'editor');
for (const project of ['tsconfig.json', 'tsconfig.editor.json']) {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, project)], { stdio: 'inherit', cwd: root });
}

const types = fs
  .readdirSync(path.join(root, 'nodes'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && fs.existsSync(path.join(root, 'nodes', e.name, `${e.name}.ts`)))
  .map((e) => e.name);
const langs = fs.readdirSync(path.join(root, 'locales'));

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}

/** The icon a node's editor file declares (`icon: 'x.svg'`); config nodes have none. */
function declaredIcon(html) {
  const m = /\bicon:\s*'([^']+)'/.exec(html);
  return m ? m[1] : undefined;
}

const INLINE_SCRIPT = /<script type="text\/javascript">/;
const EDITOR_SCRIPT_TAG = '<script src="detection-bridge/editor.js"></script>\n';

/** The node file as the editor gets it: its compiled editor.ts (if it has one) after the package's editor script. */
function editorFile(type) {
  const html = fs.readFileSync(path.join(root, 'nodes', type, `${type}.html`), 'utf8');
  if (!html.startsWith(EDITOR_SCRIPT_TAG)) fail(`nodes/${type}/${type}.html must begin with ${EDITOR_SCRIPT_TAG.trim()}`);
  const source = path.join(root, 'nodes', type, 'editor.ts');
  if (!fs.existsSync(source)) {
    if (!INLINE_SCRIPT.test(html)) fail(`nodes/${type} has neither an editor.ts nor a script in ${type}.html`);
    return html;
  }
  if (INLINE_SCRIPT.test(html)) fail(`nodes/${type} has an editor.ts and a script in ${type}.html: keep one`);
  const compiled = fs.readFileSync(path.join(EDITOR_OUT, 'nodes', type, 'editor.js'), 'utf8');
  if (compiled.includes('</script')) fail(`nodes/${type}/editor.ts: its compiled text holds "</script", which would end the script early`);
  return `${EDITOR_SCRIPT_TAG}<script type="text/javascript">\n${compiled}</script>\n${html.slice(EDITOR_SCRIPT_TAG.length)}`;
}

const shippedIcons = new Map();
for (const type of types) {
  const target = path.join(dist, 'nodes', type);
  const html = editorFile(type);
  fs.writeFileSync(path.join(target, `${type}.html`), html);
  for (const lang of langs) {
    const dir = path.join(root, 'locales', lang);
    const catalogFile = path.join(dir, `${type}.json`);
    if (fs.existsSync(catalogFile)) {
      const catalog = JSON.parse(fs.readFileSync(catalogFile, 'utf8'));
      const sharedFile = path.join(dir, SHARED_CATALOG);
      const shared = fs.existsSync(sharedFile) ? JSON.parse(fs.readFileSync(sharedFile, 'utf8')) : {};
      for (const key of Object.keys(shared)) if (key in catalog) fail(`locales/${lang}/${type}.json and ${SHARED_CATALOG} both define "${key}"`);
      fs.mkdirSync(path.join(target, 'locales', lang), { recursive: true });
      fs.writeFileSync(path.join(target, 'locales', lang, `${type}.json`), `${JSON.stringify({ ...catalog, ...shared }, null, 2)}\n`);
    }
    const help = path.join(dir, `${type}.html`);
    if (fs.existsSync(help)) fs.copyFileSync(help, path.join(target, 'locales', lang, `${type}.html`));
  }
  const icon = declaredIcon(html);
  if (icon === undefined) continue;
  if (shippedIcons.has(icon)) fail(`${type} and ${shippedIcons.get(icon)} both declare ${icon}: give each node an icon of its own`);
  if (!fs.existsSync(path.join(root, 'icons', icon))) fail(`${type} declares icon ${icon}, which is not in icons/`);
  shippedIcons.set(icon, type);
  fs.mkdirSync(path.join(target, 'icons'), { recursive: true });
  fs.copyFileSync(path.join(root, 'icons', icon), path.join(target, 'icons', icon));
}
fs.rmSync(EDITOR_OUT, { recursive: true, force: true });
const unused = fs.readdirSync(path.join(root, 'icons')).filter((icon) => !shippedIcons.has(icon));
if (unused.length) fail(`icons/ holds icons no node declares: ${unused.join(', ')}`);
console.log(`built ${types.length} node type(s): ${types.join(', ')}`);
