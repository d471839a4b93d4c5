'use strict';
/**
 * A build of the package at another commit, for `--baseline <git-ref>`: the
 * commit is checked out into a temporary folder (`git archive`, so nothing is
 * registered in the repository and a killed bench leaves nothing behind but
 * that folder), given this tree's node_modules as hard links (copied where
 * hard links are not possible), built with `npm run build`, and cut down to
 * what Node-RED loads (package.json, dist/, node_modules/). That is cached
 * under bench/.baselines/<commit> (git-ignored): a second run against the same
 * commit builds nothing.
 *
 * The baseline runs with this tree's dependencies, not its own lockfile's:
 * when its package-lock.json differs, that is said.
 */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const { ROOT } = require('./nodered');

const CACHE = path.join(ROOT, 'bench', '.baselines');
/** What of a build Node-RED needs to load the package. */
const KEEP = ['package.json', 'dist', 'node_modules'];

function git(args, options = {}) {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: options.encoding === undefined ? 'utf8' : options.encoding, maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${(r.stderr || '').toString().trim()}`);
  return r.stdout;
}

/** The full commit hash `ref` names, and its subject line. */
function resolveRef(ref) {
  let sha;
  try {
    sha = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).trim();
  } catch {
    throw new Error(`--baseline ${ref}: not a commit of this repository`);
  }
  const subject = git(['log', '-1', '--format=%s', sha]).trim();
  return { sha, short: sha.slice(0, 7), subject };
}

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { ok: r.status === 0, output: `${r.stdout || ''}${r.stderr || ''}${r.error ? r.error.message : ''}` };
}

/**
 * The folder of the built package at `ref` (a git ref or commit hash),
 * building it first when the cache has none. `log` reports progress.
 * Resolves with {root, sha, short, subject, cached, notes}.
 */
function baselineBuild(ref, log) {
  const { sha, short, subject } = resolveRef(ref);
  const root = path.join(CACHE, sha);
  const notes = [];
  const lockNow = readOr(path.join(ROOT, 'package-lock.json'));
  let lockThen;
  try {
    lockThen = git(['show', `${sha}:package-lock.json`]);
  } catch {
    lockThen = undefined;
  }
  if (lockThen !== undefined && lockNow !== undefined && lockThen !== lockNow)
    notes.push(`${short}'s package-lock.json differs from this tree's: the baseline runs with this tree's node_modules`);

  if (fs.existsSync(path.join(root, 'package.json')) && fs.existsSync(path.join(root, 'dist'))) {
    log(`bench: baseline ${short} (${subject}) from the cache, ${path.relative(ROOT, root)}`);
    return { root, sha, short, subject, cached: true, notes };
  }

  fs.mkdirSync(CACHE, { recursive: true });
  const stage = path.join(CACHE, `.build-${short}-${process.pid}`);
  const removeStage = () => fs.rmSync(stage, { recursive: true, force: true });
  process.on('exit', removeStage);
  try {
    removeStage();
    fs.mkdirSync(stage);
    log(`bench: building baseline ${short} (${subject}) in ${path.relative(ROOT, stage)}`);
    const tar = git(['archive', '--format=tar', sha], { encoding: 'buffer' });
    const untar = spawnSync('tar', ['-x', '-C', stage], { input: tar });
    if (untar.status !== 0) throw new Error(`tar -x failed: ${untar.stderr.toString()}`);
    const modules = path.join(ROOT, 'node_modules');
    if (!run('cp', ['-al', modules, path.join(stage, 'node_modules')], ROOT).ok) {
      fs.rmSync(path.join(stage, 'node_modules'), { recursive: true, force: true });
      const copy = run('cp', ['-a', modules, path.join(stage, 'node_modules')], ROOT);
      if (!copy.ok) throw new Error(`copying node_modules failed: ${copy.output}`);
    }
    const build = run('npm', ['run', 'build'], stage);
    if (!build.ok) throw new Error(`npm run build of ${short} failed:\n${build.output}`);
    for (const entry of fs.readdirSync(stage)) if (!KEEP.includes(entry)) fs.rmSync(path.join(stage, entry), { recursive: true, force: true });
    fs.writeFileSync(path.join(stage, '.baseline.json'), `${JSON.stringify({ ref, sha, subject, builtAt: new Date().toISOString() }, null, 2)}\n`);
    try {
      fs.renameSync(stage, root);
    } catch (err) {
      // Another bench built the same commit meanwhile: use that one.
      if (!fs.existsSync(path.join(root, 'dist'))) throw err;
    }
  } finally {
    removeStage();
    process.removeListener('exit', removeStage);
  }
  return { root, sha, short, subject, cached: false, notes };
}

function readOr(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Whether the package built at `root` registers node type `type`. */
function hasNodeType(root, type) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const file = pkg['node-red'] && pkg['node-red'].nodes && pkg['node-red'].nodes[type];
  return Boolean(file && fs.existsSync(path.join(root, file)));
}

module.exports = { baselineBuild, resolveRef, hasNodeType, CACHE };
