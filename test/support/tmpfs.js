'use strict';
/**
 * A small tmpfs of its own, for tests of a full disk (ENOSPC for real, not a
 * mock). Mounting needs root: CI runs as root; anywhere else these tests fail
 * saying so, never skip.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Mounts a tmpfs of `size` (mount's notation: `256k`, `6m`) on a new directory; `unmount()` removes it. */
function mountTmpfs(size) {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    throw new Error('this test fills a small tmpfs it mounts (mount -t tmpfs), which needs root: run it as root, as CI does');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'full-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  return {
    dir,
    unmount() {
      try {
        execFileSync('umount', [dir]);
      } catch {
        execFileSync('umount', ['-l', dir]);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills what is left of the file system of `dir` with one file but `leave` bytes (about); answers its path. */
function fillUp(dir, leave = 0) {
  const file = path.join(dir, `filler-${process.hrtime.bigint()}`);
  const { bavail, bsize } = fs.statfsSync(dir);
  const bytes = Math.max(0, bavail * bsize - leave);
  const fd = fs.openSync(file, 'w');
  try {
    const chunk = Buffer.alloc(64 * 1024, 1);
    for (let done = 0; done < bytes;) {
      try {
        done += fs.writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - done));
      } catch (err) {
        if (err.code === 'ENOSPC') break;
        throw err;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

module.exports = { mountTmpfs, fillUp };
