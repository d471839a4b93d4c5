/**
 * A presence table saved to a file of its own, so a restart keeps who is
 * present: JSON, written whole and atomically (lib/core/whole-file.ts), so a
 * crash leaves the old file or the new one, never half of one.
 *
 * Its format version is `v` (1 since the first release). A file of a newer
 * version (a later release wrote it, then the package was downgraded) is
 * refused with an error naming both versions (FormatTooNewError, as the
 * journal and the key log do); the node then starts with an empty table.
 */
import { z } from 'zod';
import { refuseNewer } from '../core/file-format';
import { readWholeFile, removeWholeFile, writeWholeFile } from '../core/whole-file';
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
  const text = await readWholeFile(path);
  if (text === undefined) return undefined;
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

/** Writes the state whole and atomically (lib/core/whole-file.ts). */
export function writePresenceFile(path: string, keys: string, entries: readonly PresenceEntry[], savedAt: number): Promise<void> {
  // the text is made now: what is written is the state at the time of the call
  return writeWholeFile(path, JSON.stringify({ v: PRESENCE_VERSION, keys, savedAt, entries }));
}

/** Removes the saved state (a node removed from the flows). */
export function removePresenceFile(path: string): Promise<void> {
  return removeWholeFile(path);
}
