'use strict';
/** Dedupe at scale: one child process (with --expose-gc) per window size. */
const path = require('node:path');
const { forkNode, stopChild } = require('../support/proc');

async function runDedupe(ctx) {
  const { config, log } = ctx;
  const problems = [];
  const sizes = [];
  for (const keys of config.keys) {
    const { child, message } = await forkNode(path.join(__dirname, '..', 'dedupe-child.js'), [String(keys), String(config.checks)], {
      execArgv: ['--expose-gc'],
      readyTimeoutMs: config.timeoutMs,
    });
    await stopChild(child);
    if (message.error) throw new Error(`dedupe child (${keys} keys): ${message.error}`);
    const r = message.result;
    if (r.windowSize !== keys) problems.push(`dedupe (${keys} keys): the window holds ${r.windowSize} keys`);
    if (r.firstSeenDuplicates !== 0) problems.push(`dedupe (${keys} keys): ${r.firstSeenDuplicates} first sightings reported as repeats`);
    if (!r.sane) problems.push(`dedupe (${keys} keys): a held key did not repeat, or a new key did`);
    log(`  dedupe ${keys} keys: ${r.checksPerSecond} checks/s, ${r.heapBytesPerKey} bytes/key`);
    sizes.push(r);
  }
  return { sizes, problems };
}

module.exports = { runDedupe };
