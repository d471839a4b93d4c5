/**
 * A presence table saved to a file of its own, so a restart keeps who is
 * present: JSON, written whole and atomically (a temporary file beside it,
 * synced, renamed over it, the folder synced), so a crash leaves the old
 * file or the new one, never half of one.
 *
 * Its format version is `v` (1 since the first release). A file of a newer
 * version (a later release wrote it, then the package was downgraded) is
 * refused with an error naming both versions (FormatTooNewError, as the
 * journal and the key log do); the node then starts with an empty table.
 */
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { refuseNewer } from '../core/file-format';
import { MAX_CAMERAS, type PresenceEntry } from './table';

const Entry = z.object({
  id: z.string().min(1),
  key: z.string(),
  kind: z.enum(['face', 'lpr']),
  label: z.string(),
  firstSeen: z.number(),
  lastSeen: z.number(),
  cameras: z.array(z.string()).max(MAX_CAMERAS),
  sightings: z.number().int().min(1),
  stillHereSent: z.boolean(),
});

/** What the format is called in an error, and the version this code writes (and the newest it reads). */
export const PRESENCE_FORMAT = 'detection-bridge presence';
export const PRESENCE_VERSION = 1;

/** The file: its version, what its keys mean, when it was saved, the stays. */
export const PresenceFile = z.object({
  v: z.literal(PRESENCE_VERSION),
  keys: z.string(),
  savedAt: z.number(),
  entries: z.array(z.unknown()),
});
export type PresenceFile = z.infer<typeof PresenceFile>;

export interface LoadedState {
  /** What its keys mean (a table of another definition is not used). */
  keys: string;
  entries: PresenceEntry[];
  /** Stays that did not read as one (a damaged or hand-edited file): left out. */
  damaged: number;
}

/** The saved state at `path`; undefined when there is none. Throws when the file is not one (not JSON, another shape). */
export async function readPresenceFile(path: string): Promise<LoadedState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return undefined;
    throw err;
  }
  const parsed: unknown = JSON.parse(text);
  const v = (parsed as { v?: unknown } | null)?.v;
  if (typeof v === 'number') refuseNewer(path, PRESENCE_FORMAT, v, PRESENCE_VERSION);
  const file = PresenceFile.parse(parsed);
  const entries: PresenceEntry[] = [];
  let damaged = 0;
  for (const raw of file.entries) {
    const entry = Entry.safeParse(raw);
    if (entry.success && entry.data.lastSeen >= entry.data.firstSeen) entries.push(entry.data);
    else damaged++;
  }
  return { keys: file.keys, entries, damaged };
}

/** The write under way to each path: writes to one file wait for each other (a deploy's old and new node alike). */
const writing = new Map<string, Promise<void>>();

/** Writes the state whole: to `<path>.tmp`, synced, renamed over `path`, the folder synced. One write per path at a time. */
export function writePresenceFile(path: string, keys: string, entries: readonly PresenceEntry[], savedAt: number): Promise<void> {
  // the text is made now: what is written is the state at the time of the call
  const text = JSON.stringify({ v: PRESENCE_VERSION, keys, savedAt, entries });
  const before = writing.get(path) ?? Promise.resolve();
  const write = before.then(() => writeWhole(path, text));
  const settled = write.catch(() => undefined);
  writing.set(path, settled);
  void settled.then(() => {
    if (writing.get(path) === settled) writing.delete(path);
  });
  return write;
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

/** Removes the saved state (a node removed from the flows). */
export async function removePresenceFile(path: string): Promise<void> {
  for (const file of [path, `${path}.tmp`]) {
    await unlink(file).catch((err: { code?: unknown }) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
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
