/**
 * A record format for logs without one of their own: a checksummed frame,
 * written by `frame` and read back, whatever bytes the file holds, by
 * `readFrames` (the append log's replay, append-log.ts, calls it through the
 * caller's reader). Apart from the file's writing: a format is read the same
 * whoever wrote it.
 *
 *   u32 LE  payload length
 *   u8      type (the caller's: 1–255)
 *   u32 LE  crc32 of type byte and payload
 *   payload
 */
import { crc32 } from 'node:zlib';

/** Reads what is on disk (during replay, or of the old file during a rewrite). */
export interface LogReader {
  /** Bytes in the file. */
  readonly size: number;
  /** `length` bytes at `position` (fewer at the end of the file). */
  read(position: number, length: number): Promise<Buffer>;
}

export const FRAME_HEADER_BYTES = 9;
/** A length above this cannot be a record of ours: the header itself is damaged. */
const MAX_FRAME_BYTES = 1024 * 1024 * 1024;

/** A record of `type` around `payload`, ready to append. */
export function frame(type: number, payload: readonly Buffer[]): Buffer[] {
  let length = 0;
  for (const part of payload) length += part.length;
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  header.writeUInt32LE(length, 0);
  header.writeUInt8(type, 4);
  let crc = crc32(header.subarray(4, 5));
  for (const part of payload) crc = crc32(part, crc);
  header.writeUInt32LE(crc, 5);
  return [header, ...payload];
}

/** What a replay of frames skipped or cut off (`K`: what the caller's own checks find). */
export interface FrameProblem<K extends string = never> {
  kind: 'torn' | 'checksum' | K;
  /** Byte offset of the record in the file. */
  offset: number;
}

export interface Frame {
  type: number;
  payload: Buffer;
  offset: number;
  /** Bytes of the whole record, header included. */
  length: number;
}

/**
 * Reads every frame of `file` in order, for `AppendLog.open`, whatever bytes
 * it holds (it never throws on them): a damaged stretch (a checksum that
 * fails, a header that cannot be ours: a length of 0 bytes' worth of nothing,
 * past the file or absurd, a type not in `types`) is reported and skipped up
 * to the next whole frame; with none after it, it is the torn tail (a crash
 * mid-write, or a zero-filled end) and the replay ends there. `types`: the
 * types the caller writes. `visit` may answer a problem of its own with a
 * record it cannot use (it is skipped).
 */
export async function readFrames<K extends string = never>(
  file: LogReader,
  types: readonly number[],
  visit: (frame: Frame) => K | undefined | void,
): Promise<{ end: number; problems: FrameProblem<K>[] }> {
  const problems: FrameProblem<K>[] = [];
  const size = file.size;
  let offset = 0;
  let end = 0;
  while (offset < size) {
    const whole = await wholeFrame(file, offset, types);
    if (!whole) {
      // Damaged here: the next whole frame, if any, is where reading goes on.
      const next = await nextWholeFrame(file, offset + 1, types);
      if (next === undefined) {
        problems.push({ kind: 'torn', offset });
        break;
      }
      problems.push({ kind: 'checksum', offset });
      offset = next;
      continue;
    }
    const problem = visit({ ...whole, offset });
    if (problem) problems.push({ kind: problem, offset });
    offset += whole.length;
    end = offset;
  }
  return { end, problems };
}

/** The frame at `offset` if it is whole (a header of ours, inside the file, its checksum right). */
async function wholeFrame(file: LogReader, offset: number, types: readonly number[]): Promise<Omit<Frame, 'offset'> | undefined> {
  if (file.size - offset < FRAME_HEADER_BYTES) return undefined;
  const header = await file.read(offset, FRAME_HEADER_BYTES);
  return frameAfter(file, offset, header, types);
}

async function frameAfter(file: LogReader, offset: number, header: Buffer, types: readonly number[]): Promise<Omit<Frame, 'offset'> | undefined> {
  if (header.length < FRAME_HEADER_BYTES) return undefined;
  const length = header.readUInt32LE(0);
  const type = header.readUInt8(4);
  if (length > MAX_FRAME_BYTES || !types.includes(type) || offset + FRAME_HEADER_BYTES + length > file.size) return undefined;
  const payload = await file.read(offset + FRAME_HEADER_BYTES, length);
  if (payload.length !== length || crc32(payload, crc32(header.subarray(4, 5))) !== header.readUInt32LE(5)) return undefined;
  return { type, payload, length: FRAME_HEADER_BYTES + length };
}

/** Where the first whole frame at or after `from` starts; read in chunks (a zero-filled stretch costs one read per chunk). */
async function nextWholeFrame(file: LogReader, from: number, types: readonly number[]): Promise<number | undefined> {
  const chunkBytes = 64 * 1024;
  for (let start = from; start + FRAME_HEADER_BYTES <= file.size; start += chunkBytes) {
    const chunk = await file.read(start, chunkBytes + FRAME_HEADER_BYTES - 1);
    const last = Math.min(chunkBytes, chunk.length - FRAME_HEADER_BYTES + 1);
    for (let i = 0; i < last; i++) {
      // Cheap checks first: the type byte, and a length that fits.
      if (!types.includes(chunk[i + 4])) continue;
      const length = chunk.readUInt32LE(i);
      if (length > MAX_FRAME_BYTES || start + i + FRAME_HEADER_BYTES + length > file.size) continue;
      if (await frameAfter(file, start + i, chunk.subarray(i, i + FRAME_HEADER_BYTES), types)) return start + i;
    }
  }
  return undefined;
}
