'use strict';
/**
 * The packed package, installed once: `npm pack` runs once, `npm install
 * <tarball> [modules…]` once per set of modules into a template user
 * directory, and each end-to-end test gets a copy of that template (its own
 * user directory, as a fresh install would leave it: package.json,
 * package-lock.json, node_modules). An install takes seconds; a copy, a
 * fraction of one.
 *
 * Where the tarball and templates live: DETECTION_BRIDGE_TEST_CACHE, a
 * directory shared by the test processes of one run (.ci/run sets it and
 * runs `node test/support/user-dir-template.js` first, so parallel mocha
 * processes find everything made), else a temporary directory of this
 * process, removed at exit. The tarball and the templates are kept under a
 * name made from what `npm pack` ships (each file's path, size and time), so
 * a cache kept across builds (a developer's DETECTION_BRIDGE_TEST_CACHE) never
 * gives the tests the tarball of an earlier build: a new build packs again,
 * and `node test/support/user-dir-template.js` removes those of other builds.
 *
 * Each entry is built in a folder of its own and renamed into place, so
 * processes building the same entry at once both end with a whole one.
 */
const { execFile } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('./index');
const { npmEnv } = require('./nodered-launcher');

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

let cacheDir;
/** The directory the tarball and templates are kept in (see above). */
function cache() {
  if (!cacheDir) {
    if (process.env.DETECTION_BRIDGE_TEST_CACHE) {
      cacheDir = path.resolve(process.env.DETECTION_BRIDGE_TEST_CACHE);
      fs.mkdirSync(cacheDir, { recursive: true });
    } else {
      cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detection-bridge-test-cache-'));
      process.once('exit', () => fs.rmSync(cacheDir, { recursive: true, force: true }));
    }
  }
  return cacheDir;
}

const entries = new Map();
/**
 * The cache entry `name`, built by `build(dir)` into a folder of its own
 * the first time and renamed into place; later calls, in this process or
 * another sharing the cache, find it there.
 */
function entry(name, build) {
  if (!entries.has(name)) {
    entries.set(
      name,
      (async () => {
        const final = path.join(cache(), name);
        if (fs.existsSync(final)) return final;
        const work = await fsp.mkdtemp(path.join(cache(), `.${name}-`));
        try {
          await build(work);
          await fsp.rename(work, final);
        } catch (err) {
          // Another process renamed its own into place first: use that one.
          if (!['ENOTEMPTY', 'EEXIST'].includes(err.code) || !fs.existsSync(final)) throw err;
        } finally {
          await fsp.rm(work, { recursive: true, force: true });
        }
        return final;
      })(),
    );
  }
  return entries.get(name);
}

let buildKey;
/**
 * A name for what `npm pack` would ship now: a hash of the path, size and
 * modification time of every file under package.json "files" (and of
 * package.json). Stat only: a few milliseconds, once per process.
 */
function packedKey() {
  if (buildKey) return buildKey;
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const hash = crypto.createHash('sha256');
  const add = (rel) => {
    const st = fs.statSync(path.join(ROOT, rel), { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(path.join(ROOT, rel)).sort()) add(path.join(rel, name));
    } else hash.update(`${rel}\0${st.size}\0${st.mtimeMs}\n`);
  };
  add('package.json');
  for (const f of pkg.files || []) if (!f.startsWith('!')) add(f);
  buildKey = hash.digest('hex').slice(0, 16);
  return buildKey;
}

/** Packs the package (dist/ must be built: npm test does): the tarball's path and the paths it ships. */
async function packModule() {
  const distEntry = path.join(ROOT, 'dist', 'nodes', 'detection-in', 'detection-in.js');
  if (!fs.existsSync(distEntry)) {
    throw new Error(`${path.relative(ROOT, distEntry)} is missing: run \`npm run build\` first (npm test does)`);
  }
  const dir = await entry(`package-${packedKey()}`, async (work) => {
    const out = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT });
    const info = JSON.parse(out.stdout.slice(out.stdout.indexOf('[')))[0];
    await fsp.writeFile(path.join(work, 'pack.json'), JSON.stringify({ filename: info.filename, files: info.files.map((f) => f.path) }));
  });
  const info = JSON.parse(await fsp.readFile(path.join(dir, 'pack.json'), 'utf8'));
  return { tarball: path.join(dir, info.filename), files: info.files };
}

/**
 * A tarball of the package `name` as installed in this package's
 * node_modules (a dev dependency): it installs without the network (its own
 * dependencies come from the npm cache that installed it) and at the locked
 * version. Null when `name` is not installed.
 */
async function packInstalled(name) {
  const source = path.join(ROOT, 'node_modules', name);
  if (!fs.existsSync(path.join(source, 'package.json'))) return null;
  const dir = await entry(`dep-${name.replace(/[^\w.-]+/g, '_')}`, async (work) => {
    // Its real path: packed through a symlinked node_modules (a git worktree sharing another
    // checkout's), npm leaves out the package's bundled dependencies (node-red-node-email's all).
    const out = await run('npm', ['pack', fs.realpathSync(source), '--ignore-scripts', '--json', '--pack-destination', work], { cwd: work });
    await fsp.writeFile(
      path.join(work, 'pack.json'),
      JSON.stringify({ filename: JSON.parse(out.stdout.slice(out.stdout.indexOf('[')))[0].filename }),
    );
  });
  return path.join(dir, JSON.parse(await fsp.readFile(path.join(dir, 'pack.json'), 'utf8')).filename);
}

/** A name for a list of npm install specs (a tarball counts by its file name and size). */
function modulesKey(modules) {
  const named = modules.map((m) => (fs.existsSync(m) ? `${path.basename(m)}:${fs.statSync(m).size}` : m));
  return crypto.createHash('sha256').update(JSON.stringify(named)).digest('hex').slice(0, 16);
}

/**
 * A template user directory: the packed package and `modules` (npm install
 * specs: a tarball, name@version) installed as a fresh Node-RED user
 * directory would have them. Made once per set of modules.
 */
async function template(modules = []) {
  const { tarball } = await packModule();
  return entry(`user-${packedKey()}-${modulesKey(modules)}`, async (work) => {
    await fsp.writeFile(
      path.join(work, 'package.json'),
      JSON.stringify({ name: 'node-red-project', description: 'e2e user dir', version: '0.0.1', private: true }, null, 2),
    );
    await run('npm', ['install', tarball, ...modules, '--prefix', work, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
      cwd: work,
    });
    if (!fs.existsSync(path.join(work, 'node_modules', MODULE, 'package.json'))) throw new Error(`npm install left no ${MODULE} in ${work}`);
    // npm wrote the tarballs' paths relative to where it installed; make them absolute so they hold in every copy.
    const pkgFile = path.join(work, 'package.json');
    const pkg = JSON.parse(await fsp.readFile(pkgFile, 'utf8'));
    for (const [name, spec] of Object.entries(pkg.dependencies || {})) {
      if (spec.startsWith('file:')) pkg.dependencies[name] = `file:${path.resolve(work, spec.slice(5))}`;
    }
    await fsp.writeFile(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  });
}

/**
 * Copies the template for `modules` to `userDir` (which must not exist).
 * node_modules is hard-linked (cp -al: nothing at run time writes there, and
 * hard links keep each copy's paths its own, unlike a symlink); the files
 * beside it are copied. Where `cp -al` fails (another file system,
 * no GNU cp), everything is copied.
 */
async function copyTemplate(modules, userDir) {
  const from = await template(modules);
  await fsp.mkdir(userDir);
  for (const name of await fsp.readdir(from)) {
    if (name !== 'node_modules') await fsp.cp(path.join(from, name), path.join(userDir, name), { recursive: true });
  }
  try {
    await run('cp', ['-al', path.join(from, 'node_modules'), path.join(userDir, 'node_modules')]);
  } catch {
    await fsp.rm(path.join(userDir, 'node_modules'), { recursive: true, force: true });
    await fsp.cp(path.join(from, 'node_modules'), path.join(userDir, 'node_modules'), { recursive: true });
  }
}

module.exports = { MODULE, cache, copyTemplate, modulesKey, packInstalled, packModule, run, template };

// `node test/support/user-dir-template.js`: makes the tarball and the templates the tests use
// (none, and FlowFuse Dashboard beside the package) in DETECTION_BRIDGE_TEST_CACHE before tests run.
if (require.main === module) {
  (async () => {
    if (!process.env.DETECTION_BRIDGE_TEST_CACHE) throw new Error('set DETECTION_BRIDGE_TEST_CACHE to the directory the test processes share');
    const started = performance.now();
    const dashboard = await packInstalled('@flowfuse/node-red-dashboard');
    const made = await Promise.all([template([]), template(dashboard ? [dashboard] : [])]);
    // A cache kept across builds stays bounded: the tarball and templates of other builds go.
    const key = packedKey();
    for (const name of fs.readdirSync(cache())) {
      const m = /^(?:package-|user-)([0-9a-f]{16})(?:-|$)/.exec(name);
      if (m && m[1] !== key) fs.rmSync(path.join(cache(), name), { recursive: true, force: true });
    }
    console.log(
      `user-dir templates in ${((performance.now() - started) / 1000).toFixed(1)} s: ${made.map((d) => path.relative(cache(), d)).join(', ')}`,
    );
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
