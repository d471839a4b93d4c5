/**
 * A small file written whole and atomically: to `<path>.tmp`, synced,
 * renamed over `path`, the folder synced, so a crash leaves the old file or
 * the new one, never half of one. Writes to one path wait for each other (a
 * deploy's old and new node alike). For state a node saves as a snapshot
 * (presence, alarms); logs that grow use ./append-log.ts.
 */
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The write under way to each path. */
const writing = new Map<string, Promise<void>>();

/** Writes `text` as the whole of `path`; one write per path at a time. */
export function writeWholeFile(path: string, text: string): Promise<void> {
  const before = writing.get(path) ?? Promise.resolve();
  const write = before.then(() => writeWhole(path, text));
  const settled = write.catch(() => undefined);
  writing.set(path, settled);
  void settled.then(() => {
    if (writing.get(path) === settled) writing.delete(path);
  });
  return write;
}

/** The text of `path`; undefined when there is no such file. */
export async function readWholeFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Removes `path` and its temporary file; a missing one is no error. */
export async function removeWholeFile(path: string): Promise<void> {
  for (const file of [path, `${path}.tmp`]) {
    await unlink(file).catch((err: { code?: unknown }) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
}

async function writeWhole(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp`;
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
  await syncFolder(dirname(path));
}

/** Syncs a folder, so a rename in it survives a crash (where the platform allows opening a folder). */
async function syncFolder(folder: string): Promise<void> {
  let handle;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch {
    // not every platform syncs a folder (Windows): the rename itself is still atomic
  } finally {
    await handle?.close();
  }
}
